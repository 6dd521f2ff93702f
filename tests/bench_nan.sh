#!/bin/sh
# make bench, nan_analyze part: one generated step of a 1,000-rank job
# (tests/tools/gen_nan: 10,000 API entries per rank, a collective every 50 --
# tensor-parallel all_reduce / all_gather / broadcast in groups of 8,
# send/recv between groups, an all_reduce over every rank every 500 -- and
# one rank making inf, which the collectives carry to every rank), about
# 7.5 GB of dump.json in msprobe's indent=1 layout; then `msprobe
# nan_analyze` on it, page-cached: time and peak memory, and whether it
# names the source. Target: under 10 s and under 2 GB.
#
#   tests/bench_nan.sh BUILD     BUILD holds msprobe and tools/{gen_nan,runstat}
#
# Environment: NAN_SCRATCH (scratch; default /dev/shm when it and the
# memory have room, else TMPDIR; the dumps need about 8.5 GB), KEEP=1 keeps
# them, NAN_RANKS (1000), NAN_ENTRIES (10000), NAN_EVERY (50), NAN_RUNS (3
# timed runs after a warm-up). Run from tests/bench.sh (PARTS=nan) its rows
# and verdict go into bench.sh's tables (TABLE, VERDICTS); alone it prints
# them.
set -eu
# shellcheck source=tests/bench_common.sh
. "$(dirname "$0")/bench_common.sh"
RANKS=${NAN_RANKS:-1000}
ENTRIES=${NAN_ENTRIES:-10000}
EVERY=${NAN_EVERY:-50}
RUNS=${NAN_RUNS:-3}

bench_need bench_nan "$TOOLS/gen_nan" "$TOOLS/runstat" "$MSPROBE"
need_kb=$((RANKS * ENTRIES * 85 / 100))   # ~850 bytes of files per entry
# Memory when there is room for the dumps and 4 GB to spare: on a disk they
# are re-read from it whenever the page cache does not keep 8 GB (on this
# VM a DAMON reclaim pages out file pages idle for a minute), and the run
# measures the disk instead of the analysis.
avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null || echo 0)
shm_kb=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')
if [ -n "${NAN_SCRATCH:-}" ]; then
    base=$NAN_SCRATCH
elif [ -n "$shm_kb" ] && [ "$shm_kb" -gt "$need_kb" ] && [ "${avail_kb:-0}" -gt $((need_kb + 4194304)) ]; then
    base=/dev/shm
else
    base=${TMPDIR:-/tmp}
fi
scratch=$(mktemp -d "$base/msprobe-bench-nan.XXXXXX")
bench_cleanup_on_exit bench_nan

have_kb=$(df -Pk "$scratch" | awk 'NR == 2 { print $4 }')
if [ "$have_kb" -lt "$need_kb" ]; then
    echo "bench_nan: SKIPPED: $((have_kb / 1024)) MB free in $scratch, the dumps need $((need_kb / 1024)) MB"
    exit 0
fi

echo "bench_nan: generating $RANKS ranks x $ENTRIES entries, a collective every $EVERY"
gen=$("$TOOLS/runstat" -n 1 -- "$TOOLS/gen_nan" --out "$scratch/dump" --ranks "$RANKS" --entries "$ENTRIES" \
    --every "$EVERY")
printf '%s\n' "$gen" | grep '^gen_nan: ' | sed 's/^/  /'
source=$(printf '%s\n' "$gen" | sed -n 's/^gen_nan: source rank=\([0-9]*\) op=\(.*\)/rank \1 \2/p')
bytes=$(du -sb "$scratch/dump" | cut -f1)
echo "  $((bytes / 1000000)) MB of dumps in $base ($(stat -f -c %T "$scratch" 2>/dev/null))"
rows=$((RANKS * ENTRIES))
out_row "generate nan ${RANKS}x$ENTRIES" "$rows" "$(printf '%s\n' "$gen" | tail -n 1)"

# the warm-up run (page cache) also checks the answer
echo "bench_nan: msprobe nan_analyze, 1 warm-up run and $RUNS timed run(s)"
found=$("$MSPROBE" nan_analyze -i "$scratch/dump/step0" -o "$scratch/out")
printf '  %s\n' "$found"
right=no
case "$found" in "first NaN/Inf: $source "*) right=yes ;; esac
if ! run=$(timed "$TOOLS/runstat" -q -n "$RUNS" -- "$MSPROBE" nan_analyze -q -i "$scratch/dump/step0" \
    -o "$scratch/out"); then
    out_row "nan_analyze ${RANKS}x$ENTRIES" "$rows" ""
    out_verdict "nan_analyze ${RANKS} ranks: FAILED or timed out"
    exit 1
fi
out_row "nan_analyze ${RANKS}x$ENTRIES" "$rows" "$run"
out_verdict "$(awk -v s="$(field median_s "$run")" -v mb="$(field peak_rss_mb "$run")" -v r="$RANKS" \
    -v gb="$bytes" -v right="$right" -v src="$source" 'BEGIN {
    v = (s < 10 && mb < 2048 && right == "yes") ? "ok" : "MISSED"
    printf "nan_analyze %d ranks (%.1f GB): %.2f s, %.0f MB, finds %s: %s   (target < 10 s, < 2 GB)   %s",
        r, gb / 1e9, s, mb, src, right, v }')"
