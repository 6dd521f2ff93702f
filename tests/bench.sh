#!/bin/sh
# make bench: time `msprobe compare` on generated dumps (no data is checked in).
#
#   tests/bench.sh BUILD      BUILD holds msprobe and tools/{gen_dump,runstat,xlsx_floor}
#
# (a) a 24-layer transformer step, 5,766 API entries per dump.json (the size of
#     the real pair msprobe 8.1.0 needs 8.4 s and 495 MB for): compare to csv
#     and to xlsx, and libxlsxwriter alone writing the same cells (those of the
#     csv result; a synthetic table of the same size when there is none);
# (b) a pair of 500,000 entries (over a million rows): compare to csv.
# Without a working BUILD/msprobe the generator and floor parts still run.
#
# Environment: TMPDIR (scratch space; /dev/shm avoids disk writeback noise),
# KEEP=1 keeps the scratch directory, RUNS (default 5) and BIG_RUNS (1) set
# the number of timed runs, ENTRIES / BIG_ENTRIES the pair sizes, and
# MSPROBE_REF=path/to/python-msprobe also times msprobe 8.1.0 on (a).
set -eu

BUILD=${1:-build}
TOOLS=$BUILD/tools
MSPROBE=$BUILD/msprobe
RUNS=${RUNS:-5}
BIG_RUNS=${BIG_RUNS:-1}
ENTRIES=${ENTRIES:-5766}
BIG_ENTRIES=${BIG_ENTRIES:-500000}

for t in gen_dump runstat xlsx_floor; do
    if [ ! -x "$TOOLS/$t" ]; then
        echo "bench: $TOOLS/$t is missing (make tools)" >&2
        exit 1
    fi
done

scratch=$(mktemp -d "${TMPDIR:-/tmp}/msprobe-bench.XXXXXX")
cleanup() {
    if [ "${KEEP:-0}" = 1 ]; then
        echo "bench: kept $scratch"
    else
        rm -rf "$scratch"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

table=$scratch/table
: >"$table"
skipped=

# field NAME LINE: the value of NAME=... in a runstat line
field() {
    printf '%s\n' "$2" | sed -n "s/.*$1=\([^ ]*\).*/\1/p"
}

# row CASE ROWS RUNSTAT-LINE: one line of the result table (an empty
# RUNSTAT-LINE: the case failed)
row() {
    if [ -z "$3" ]; then
        printf '%-30s %9s %9s\n' "$1" "$2" FAILED >>"$table"
        return
    fi
    printf '%-30s %9s %9s %9s %9s %8s %9s\n' "$1" "$2" "$(field median_s "$3")" "$(field min_s "$3")" \
        "$(field max_s "$3")" "$(field peak_rss_mb "$3")" "$(field cpu_s "$3")" >>"$table"
}

# rows_of GEN-OUTPUT: result rows of rank 0 step 0 = flattened target rows
rows_of() {
    sed -n 's/^gen_dump: side=target step=0 rank=0 .* rows=\([0-9]*\) .*/\1/p' "$1"
}

# gen NAME ENTRIES: one dump pair in $scratch/NAME
gen() {
    echo "bench: generating pair ($1): $2 entries per dump.json"
    "$TOOLS/runstat" -n 1 -- "$TOOLS/gen_dump" --out "$scratch/$1" --entries "$2" --layers 24 --seed 1 \
        >"$scratch/gen_$1.out"
    grep '^gen_dump: ' "$scratch/gen_$1.out" | sed 's/^/  /'
    row "generate ($1) $2 entries" "$(rows_of "$scratch/gen_$1.out")" "$(tail -n 1 "$scratch/gen_$1.out")"
}

gen a "$ENTRIES"
gen b "$BIG_ENTRIES"
rows_a=$(rows_of "$scratch/gen_a.out")
rows_b=$(rows_of "$scratch/gen_b.out")
dump_a="$scratch/a/target/step0/rank/dump.json"
bench_a="$scratch/a/bench/step0/rank/dump.json"

# compare NAME RUNS FORMAT: time `msprobe compare` on pair NAME; sets $line
# (empty when a run failed)
compare() {
    out=$scratch/out_$1_$3
    mkdir -p "$out"
    echo "bench: msprobe compare ($1) --format $3, $2 run(s)"
    if ! line=$("$TOOLS/runstat" -q -n "$2" -- "$MSPROBE" compare -n "$scratch/$1/target/step0/rank/dump.json" \
        -b "$scratch/$1/bench/step0/rank/dump.json" -o "$out" --format "$3"); then
        line=
        skipped="${skipped:+$skipped; }compare ($1) --format $3 failed"
    fi
}

have_compare=0
csv=
if [ ! -x "$MSPROBE" ]; then
    skipped="compare timings ($MSPROBE not built)"
elif ! "$MSPROBE" compare -q -n "$dump_a" -b "$bench_a" -o "$scratch/probe" --format csv; then
    skipped="compare timings ($MSPROBE compare failed, exit status above)"
else
    have_compare=1
    csv=$(find "$scratch/probe" -name '*.csv' | head -n 1)
fi

if [ "$have_compare" = 1 ]; then
    compare a "$RUNS" csv
    csv_a=$line
    row "compare csv (a)" "$rows_a" "$csv_a"
    compare a "$RUNS" xlsx
    xlsx_a=$line
    row "compare xlsx (a)" "$rows_a" "$xlsx_a"
fi

# The floor times only the writing (xlsx_floor prints write_s=), not the
# loading of the csv whose cells it writes.
if [ -n "$csv" ]; then
    echo "bench: xlsx_floor with the cells of the csv result of (a), $RUNS runs"
    floor_args="--cells $csv"
    floor_case="xlsx_floor (a) same cells"
else
    echo "bench: xlsx_floor synthetic $rows_a rows x 24 columns, $RUNS runs"
    floor_args="--rows $rows_a --cols 24"
    floor_case="xlsx_floor ${rows_a}x24 synthetic"
fi
i=0
: >"$scratch/floor_times"
while [ "$i" -lt "$RUNS" ]; do
    # shellcheck disable=SC2086 # floor_args holds two words, paths without spaces
    "$TOOLS/xlsx_floor" $floor_args --out "$scratch/floor.xlsx" >"$scratch/floor.out"
    sed -n 's/.* write_s=\([^ ]*\).*/\1/p' "$scratch/floor.out" >>"$scratch/floor_times"
    i=$((i + 1))
done
floor=$(sort -n "$scratch/floor_times" | awk '{ t[NR] = $1 } END {
    m = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
    printf "median_s=%.4f min_s=%.4f max_s=%.4f peak_rss_mb=- cpu_s=- runs=%d\n", m, t[1], t[NR], NR }')
row "$floor_case" "$rows_a" "$floor"

if [ -n "${MSPROBE_REF:-}" ]; then
    printf '{"npu_path": "%s", "bench_path": "%s"}\n' "$dump_a" "$bench_a" >"$scratch/compare.json"
    echo "bench: $MSPROBE_REF (msprobe 8.1.0) on (a), 1 run"
    if ref=$("$TOOLS/runstat" -q -n 1 -- "$MSPROBE_REF" -f pytorch compare -i "$scratch/compare.json" \
        -o "$scratch/out_ref"); then
        row "msprobe 8.1.0 xlsx (a)" "$rows_a" "$ref"
    else
        skipped="${skipped:+$skipped; }msprobe 8.1.0 (failed)"
    fi
fi

if [ "$have_compare" = 1 ]; then
    rm -rf "$scratch"/out_a_*   # room for the big result
    compare b "$BIG_RUNS" csv
    csv_b=$line
    row "compare csv (b)" "$rows_b" "$csv_b"
fi

echo
printf '%-30s %9s %9s %9s %9s %8s %9s\n' case rows median_s min_s max_s peak_MB cpu_s
cat "$table"
echo
if [ "$have_compare" = 1 ] && [ -n "$csv_a" ] && [ -n "$xlsx_a" ] && [ -n "$csv_b" ]; then
    awk -v csv="$(field median_s "$csv_a")" -v csvmb="$(field peak_rss_mb "$csv_a")" \
        -v x="$(field median_s "$xlsx_a")" -v f="$(field median_s "$floor")" \
        -v big="$(field median_s "$csv_b")" -v bigmb="$(field peak_rss_mb "$csv_b")" 'BEGIN {
        verdict = "ok"
        if (csv > 0.08 || csvmb >= 60) verdict = "MISSED"
        printf "csv (a):  %.4f s, %.1f MB   (target <= 0.08 s, < 60 MB)   %s\n", csv, csvmb, verdict
        verdict = x <= 1.3 * f ? "ok" : "MISSED"
        printf "xlsx/floor ratio: %.2f   (target <= 1.3)   %s\n", x / f, verdict
        verdict = big < 20 && bigmb < 3072 ? "ok" : "MISSED"
        printf "csv (b):  %.2f s, %.0f MB   (target < 20 s, < 3 GB)   %s\n", big, bigmb, verdict
    }'
fi
if [ -n "$skipped" ]; then
    echo "bench: SKIPPED: $skipped"
fi
