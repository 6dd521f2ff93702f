#!/bin/sh
# make bench, part "config": `msprobe ckpt_compare` on generated Megatron
# checkpoint pairs, TP=2 x PP=2, one pair in bfloat16 and one in float32, each
# side at least 2 GB (gen_ckpt; the second side has four parameters changed).
#
#   tests/bench_config.sh BUILD [SCRATCH]
#
# Each pair is timed cold (page cache dropped before each of COLD_RUNS runs:
# needs root and a scratch directory on a disk, not tmpfs) and page-cached
# (median of RUNS after a warm-up run) with -j 1 -- the per-core figure -- and
# with -j JOBS. Throughput = both sides' .pt bytes / wall time; "per core"
# divides by the -j used, "cpu" by user + system time (which other load on a
# shared machine does not skew). Target: >= 1 GB/s per core page-cached.
#
# Environment: RUNS (5), COLD_RUNS (3), JOBS (all cores), DTYPES ("bf16
# fp32"), HIDDEN (2048), VOCAB (32000), LAYERS_BF16 (20), LAYERS_FP32 (10),
# TIMEOUT (900), KEEP=1 keeps the scratch directory, VERDICTS (a file the
# verdict lines are appended to; default: printed).
set -eu
# shellcheck source=tests/bench_common.sh
. "$(dirname "$0")/bench_common.sh"
RUNS=${RUNS:-5}
COLD_RUNS=${COLD_RUNS:-3}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 1)}
DTYPES=${DTYPES:-bf16 fp32}
HIDDEN=${HIDDEN:-2048}
VOCAB=${VOCAB:-32000}

bench_need "bench (config)" "$TOOLS/gen_ckpt" "$TOOLS/runstat" "$MSPROBE"

if [ -n "${2:-}" ]; then
    scratch=$2
    mkdir -p "$scratch"
else
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/msprobe-bench-config.XXXXXX")
fi
bench_cleanup_on_exit "bench (config)"

cold_ok=0
if [ "$(stat -f -c %T "$scratch" 2>/dev/null)" = tmpfs ]; then
    cold_why="scratch $scratch is on tmpfs"
elif ! (echo 3 >/proc/sys/vm/drop_caches) 2>/dev/null; then
    cold_why="cannot write /proc/sys/vm/drop_caches (not root?)"
else
    cold_ok=1
fi

table=$scratch/table
: >"$table"

# report CASE BYTES JOBS RUNSTAT-LINE
report() {
    awk -v c="$1" -v b="$2" -v j="$3" -v t="$(field median_s "$4")" -v lo="$(field min_s "$4")" \
        -v hi="$(field max_s "$4")" -v cpu="$(field cpu_s "$4")" -v mb="$(field peak_rss_mb "$4")" 'BEGIN {
        g = b / 1e9 / t
        cg = (cpu == "-" || cpu <= 0) ? "-" : sprintf("%.2f", b / 1e9 / cpu)
        printf "%-32s %8.0f %8.3f %8.3f %8.3f %7.2f %9.2f %8s %8s\n", c, b / 1e6, t, lo, hi, g, g / j, cg, mb }' >>"$table"
}

# the compare, into a fresh output each run (an existing one is refused)
cmp_cmd() {
    printf 'rm -f "%s"; exec "%s" ckpt_compare "%s" "%s" -o "%s" -j %s -q' "$scratch/out.json" "$MSPROBE" \
        "$scratch/a" "$scratch/b" "$scratch/out.json" "$1"
}

bench_machine "bench (config)"
for dt in $DTYPES; do
    if [ "$dt" = fp32 ]; then
        layers=${LAYERS_FP32:-10}
    else
        layers=${LAYERS_BF16:-20}
    fi
    echo "bench (config): generating a TP=2 x PP=2 $dt pair: $layers layers, hidden $HIDDEN, vocab $VOCAB"
    rm -rf "$scratch/a" "$scratch/b"
    "$TOOLS/gen_ckpt" "$scratch/a" --tp 2 --pp 2 --layers "$layers" --hidden "$HIDDEN" --vocab "$VOCAB" \
        --dtype "$dt" --seed 1
    "$TOOLS/gen_ckpt" "$scratch/b" --tp 2 --pp 2 --layers "$layers" --hidden "$HIDDEN" --vocab "$VOCAB" \
        --dtype "$dt" --seed 1 --change
    sa=$(find "$scratch/a" -name '*.pt' -exec cat {} + | wc -c)
    sb=$(find "$scratch/b" -name '*.pt' -exec cat {} + | wc -c)
    bytes=$((sa + sb))
    echo "bench (config): $dt pair: $((sa / 1000000)) MB + $((sb / 1000000)) MB"
    if [ "$cold_ok" = 1 ]; then
        : >"$scratch/cold"
        i=0
        while [ "$i" -lt "$COLD_RUNS" ]; do
            sync
            echo 3 >/proc/sys/vm/drop_caches
            one=$(timed "$TOOLS/runstat" -q -n 1 -- sh -c "$(cmp_cmd "$JOBS")")
            field median_s "$one" >>"$scratch/cold"
            i=$((i + 1))
        done
        line=$(sort -n "$scratch/cold" | awk '{ t[NR] = $1 } END {
            m = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
            printf "median_s=%.4f min_s=%.4f max_s=%.4f peak_rss_mb=- cpu_s=-\n", m, t[1], t[NR] }')
        report "ckpt $dt cold -j $JOBS" "$bytes" "$JOBS" "$line"
    fi
    js=1
    if [ "$JOBS" != 1 ]; then
        js="1 $JOBS"
    fi
    for j in $js; do
        echo "bench (config): ckpt_compare $dt -j $j, page-cached, $RUNS run(s)"
        line=$(timed "$TOOLS/runstat" -q -w 1 -n "$RUNS" -- sh -c "$(cmp_cmd "$j")")
        report "ckpt $dt cached -j $j" "$bytes" "$j" "$line"
        awk -v d="$dt" -v b="$bytes" -v s="$(field median_s "$line")" -v cpu="$(field cpu_s "$line")" -v j="$j" \
            -v load="$(cut -d' ' -f1 /proc/loadavg 2>/dev/null)" 'BEGIN {
            g = b / 1e9 / s / j
            printf "ckpt_compare %s TP=2 x PP=2 cached -j %d: %.2f GB/s per core (%.2f per cpu-second; load %s)   (target >= 1)   %s\n",
                d, j, g, b / 1e9 / cpu, load, (g >= 1 ? "ok" : "MISSED") }' >"$scratch/v"
        out_verdict "$(cat "$scratch/v")"
    done
    rm -rf "$scratch/a" "$scratch/b" "$scratch/out.json"
done
if [ "$cold_ok" = 0 ]; then
    echo "bench (config): cold runs SKIPPED ($cold_why)"
fi
echo
printf '%-32s %8s %8s %8s %8s %7s %9s %8s %8s\n' "checkpoint compare" MB median_s min_s max_s GB/s GB/s/core cpu_GB/s peak_MB
cat "$table"
