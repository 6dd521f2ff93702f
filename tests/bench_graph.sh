#!/bin/sh
# make bench, graph part: `msprobe graph` on generated mix-level statistics
# pairs (tests/tools/gen_graph): 1,250 blocks Module.model.layers.{i}.Block
# .forward.0, each holding Functional.linear, Functional.gelu,
# Functional.linear and Torch.add -- 6,250 entries per dump.json, the pair
# msprobe 8.1.0 needs 6.8 s / 357 MB to build and 9.6 s / 433 MB to compare
# on this machine -- built and compared page-cached (median of GRAPH_RUNS
# after a warm-up run); then a 100,000-entry pair (20,000 blocks) once, for
# time and memory: peak RSS, and of it the anonymous memory (the rest are
# the mapped dump.json files, page cache read in place).
# Targets: build <= 0.14 s, compare <= 0.19 s, < 150 MB (50x msprobe).
#
#   tests/bench_graph.sh BUILD      BUILD holds msprobe and tools/{gen_graph,runstat}
#
# Environment: GRAPH_BLOCKS (1250), GRAPH_BIG_BLOCKS (20000), GRAPH_RUNS (11),
# TMPDIR, KEEP=1; run from tests/bench.sh (PARTS=graph) its rows and
# verdicts go into bench.sh's tables (TABLE, VERDICTS), alone it prints them.
set -eu
# shellcheck source=tests/bench_common.sh
. "$(dirname "$0")/bench_common.sh"
BLOCKS=${GRAPH_BLOCKS:-1250}
BIG=${GRAPH_BIG_BLOCKS:-20000}
RUNS=${GRAPH_RUNS:-11}

bench_need bench_graph "$TOOLS/gen_graph" "$TOOLS/runstat" "$MSPROBE"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/msprobe-bench-graph.XXXXXX")
bench_cleanup_on_exit bench_graph

# anon_peak CMD...: the command's peak anonymous memory in MB (RssAnon,
# sampled every 20 ms), its output discarded
anon_peak() {
    "$@" > /dev/null 2>&1 &
    pid=$!
    peak=0
    while kill -0 "$pid" 2>/dev/null; do
        a=$(awk '/^RssAnon:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
        [ -n "$a" ] && [ "$a" -gt "$peak" ] && peak=$a
        sleep 0.02
    done
    wait "$pid" || true
    echo $((peak / 1024))
}

entries=$((BLOCKS * 5))
echo "bench_graph: generating a pair of $BLOCKS blocks ($entries entries per dump.json)"
"$TOOLS/gen_graph" --out "$scratch/pair" --blocks "$BLOCKS"
mb=$(du -sm "$scratch/pair/target/dump.json" | cut -f1)
echo "  dump.json: $mb MB a side"
out="$scratch/out"
build=$(timed "$TOOLS/runstat" -q -w 1 -n "$RUNS" -- "$MSPROBE" graph -q -tp "$scratch/pair/target" -o "$out/b")
out_row "graph build ${BLOCKS} blocks" "$entries" "$build"
cmp=$(timed "$TOOLS/runstat" -q -w 1 -n "$RUNS" -- "$MSPROBE" graph -q -tp "$scratch/pair/target" \
    -gp "$scratch/pair/bench" -o "$out/c")
out_row "graph compare ${BLOCKS} blocks" "$entries" "$cmp"
vis=$(ls -S "$out/c" | head -1)
echo "  compare .vis: $(du -m "$out/c/$vis" | cut -f1) MB"
out_verdict "$(awk -v b="$(field median_s "$build")" -v c="$(field median_s "$cmp")" \
    -v bm="$(field peak_rss_mb "$build")" -v cm="$(field peak_rss_mb "$cmp")" 'BEGIN {
    v = (b <= 0.14 && c <= 0.19 && bm < 150 && cm < 150) ? "ok" : "MISSED"
    printf "graph %s: build %.3f s %.0f MB (%.0fx msprobe 6.8 s), compare %.3f s %.0f MB (%.0fx msprobe 9.6 s)", \
        "1,250 blocks", b, bm, 6.8 / b, c, cm, 9.6 / c
    printf "   (target build <= 0.14 s, compare <= 0.19 s, < 150 MB)   %s", v }')"

if [ "$BIG" -gt 0 ]; then
    bent=$((BIG * 5))
    echo "bench_graph: generating a pair of $BIG blocks ($bent entries per dump.json)"
    rm -rf "$out"
    "$TOOLS/gen_graph" --out "$scratch/big" --blocks "$BIG"
    bmb=$(du -sm "$scratch/big/target/dump.json" | cut -f1)
    echo "  dump.json: $bmb MB a side"
    bb=$(timed "$TOOLS/runstat" -q -w 1 -n 1 -- "$MSPROBE" graph -q -tp "$scratch/big/target" -o "$out/b")
    out_row "graph build ${bent} entries" "$bent" "$bb"
    bc=$(timed "$TOOLS/runstat" -q -n 1 -- "$MSPROBE" graph -q -tp "$scratch/big/target" \
        -gp "$scratch/big/bench" -o "$out/c")
    out_row "graph compare ${bent} entries" "$bent" "$bc"
    rm -rf "$out"
    anon=$(anon_peak "$MSPROBE" graph -q -tp "$scratch/big/target" -gp "$scratch/big/bench" -o "$out/c")
    out_verdict "$(awk -v s="$(field median_s "$bc")" -v m="$(field peak_rss_mb "$bc")" -v a="$anon" \
        -v e="$bent" -v d="$bmb" 'BEGIN {
        v = a < 2 * d + 100 ? "ok" : "MISSED"
        printf "graph compare %d entries (%d MB of dump.json a side): %.2f s, peak %.0f MB, of it %d MB anonymous", \
            e, d, s, m, a
        printf " (the rest the mapped dumps)   (target: anonymous memory below the two dumps, no item kept)   %s", v }')"
fi
