#!/bin/sh
# make bench: time `msprobe compare` on generated dumps (no data is checked in).
#
#   tests/bench.sh BUILD      BUILD holds msprobe and tools/{gen_dump,runstat,xlsx_floor,bench_metrics,bench_limit}
#
# Statistics part:
# (a) a 24-layer transformer step, 5,766 API entries per dump.json (the size of
#     the real pair msprobe 8.1.0 needs 8.4 s and 495 MB for): compare to csv
#     and to xlsx, and libxlsxwriter alone writing the same cells (those of the
#     csv result; a synthetic table of the same size when there is none);
# (b) a pair of 500,000 entries (over a million rows): compare to csv.
# Tensor part (task "tensor", every tensor leaf a file in dump_tensor_data/):
# (t1) msprobe's 2-layer toy transformer: 235 API entries, ~9.5 MB of .pt
#      files a side (msprobe 8.1.0 needs 3.4 s for its own);
# (t2) a whole 2-layer step of .pt files, float32 and bfloat16, over 1 GB for
#      both sides together; (t3) the same walk as .npy files;
# each compared to csv page-cached (median of RUNS after a warm-up run; t2/t3
# with -j 1, the per-core figure itself, and with -j JOBS, default all cores)
# and, for t2/t3, cold (page cache dropped before each of COLD_RUNS runs:
# needs root and a scratch directory on a disk, not tmpfs). Throughput is
# both sides' tensor file bytes / wall time, per core = divided by the -j
# used; "cpu" divides by user + system time instead, which other load on the
# machine does not skew. Before each, bench_limit measures the machine's
# limit on the same files in the same sitting (mapped page-cached reads, dot
# product and both norms by a vector loop), and the verdict gives the ratio:
# "compare t3 -j1: 9.1 GB/s = 0.41 of this machine's 22.0". bench_metrics
# gives the metrics kernel alone, in memory, on one core (the instruction set
# it used in brackets).
# nan part: tests/bench_nan.sh (nan_analyze on a generated 1,000-rank step).
# Part "graph" (tests/bench_graph.sh): msprobe graph build and compare of a
# generated 1,250-block mix-level pair, and of a 100,000-entry pair.
# Part "train" (tests/bench_train.sh): train_compare on a generated 1 GB
# TensorBoard directory and a 500 MB training log, and Megatron-LM's own
# checker beside it on the corpus' pairs (when its sources are given).
# Part "config" (tests/bench_config.sh): checkpoint compare on generated
# TP=2 x PP=2 Megatron pairs of >= 2 GB a side, bfloat16 and float32.
# Parts whose tools are missing are reported as SKIPPED.
#
# Environment: TMPDIR (scratch space; /dev/shm avoids disk writeback noise but
# allows no cold runs), KEEP=1 keeps the scratch directory, PARTS (default
# "statistics tensor nan graph config monitor train"; monitor is tests/bench_monitor.sh), RUNS
# (default 11) and BIG_RUNS (1) set the number of
# timed runs, COLD_RUNS (3) the cold ones, ENTRIES / BIG_ENTRIES the
# statistics pair sizes, TENSOR_SCALE (12) / NPY_SCALE (10) the --tensor-scale
# of t2 / t3, JOBS the compare threads, TIMEOUT (900) the seconds one timed
# case may take, MSPROBE_REF=path/to/python-msprobe also times msprobe 8.1.0
# on (a) and (t1) (the verdicts then give the ratios to it), and
# BASELINE=path/to/another/msprobe-binary (an older build of ours) also times
# that one on (b), for the ratio of this build to it.
set -eu

BUILD=${1:-build}
TOOLS=$BUILD/tools
MSPROBE=$BUILD/msprobe
PARTS=${PARTS:-statistics tensor nan graph config monitor train}
RUNS=${RUNS:-11}
BIG_RUNS=${BIG_RUNS:-1}
COLD_RUNS=${COLD_RUNS:-3}
ENTRIES=${ENTRIES:-5766}
BIG_ENTRIES=${BIG_ENTRIES:-500000}
TENSOR_SCALE=${TENSOR_SCALE:-12}
NPY_SCALE=${NPY_SCALE:-10}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 1)}
TIMEOUT=${TIMEOUT:-900}
MSPROBE_TOY_S=3.4   # msprobe 8.1.0 on its toy transformer, as the issue quotes it

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
verdicts=$scratch/verdicts
: >"$verdicts"

skip() {
    skipped="${skipped:+$skipped; }$1"
}

has_part() {
    case " $PARTS " in *" $1 "*) return 0 ;; esac
    return 1
}

# field NAME LINE: the value of NAME=... in a runstat line
field() {
    printf '%s\n' "$2" | sed -n "s/.*$1=\([^ ]*\).*/\1/p"
}

# row CASE ROWS RUNSTAT-LINE: one line of the result table (an empty
# RUNSTAT-LINE: the case failed)
row() {
    if [ -z "$3" ]; then
        printf '%-34s %9s %9s\n' "$1" "$2" FAILED >>"$table"
        return
    fi
    printf '%-34s %9s %9s %9s %9s %8s %9s\n' "$1" "$2" "$(field median_s "$3")" "$(field min_s "$3")" \
        "$(field max_s "$3")" "$(field peak_rss_mb "$3")" "$(field cpu_s "$3")" >>"$table"
}

# rows_of GEN-OUTPUT: result rows of rank 0 step 0 = flattened target rows
rows_of() {
    sed -n 's/^gen_dump: side=target step=0 rank=0 .* rows=\([0-9]*\) .*/\1/p' "$1"
}

# timed RUNSTAT-ARGS...: runstat, stopped after TIMEOUT seconds (when
# timeout(1) exists) so that a hung compare fails its case instead of the bench
timed() {
    if command -v timeout >/dev/null 2>&1; then
        timeout "$TIMEOUT" "$TOOLS/runstat" "$@"
    else
        "$TOOLS/runstat" "$@"
    fi
}

# median_line FILE: a runstat-like line from one wall time per line of FILE
median_line() {
    sort -n "$1" | awk '{ t[NR] = $1 } END {
        m = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
        printf "median_s=%.4f min_s=%.4f max_s=%.4f peak_rss_mb=- cpu_s=- runs=%d\n", m, t[1], t[NR], NR }'
}

have_tools=1
for t in gen_dump runstat; do
    if [ ! -x "$TOOLS/$t" ]; then
        echo "bench: $TOOLS/$t is missing (make tools)" >&2
        have_tools=0
    fi
done
have_msprobe=0
if [ -x "$MSPROBE" ]; then
    have_msprobe=1
fi

# ------------------------------------------------------------ statistics

# gen NAME ENTRIES: one dump pair in $scratch/NAME
gen() {
    echo "bench: generating pair ($1): $2 entries per dump.json"
    "$TOOLS/runstat" -n 1 -- "$TOOLS/gen_dump" --out "$scratch/$1" --entries "$2" --layers 24 --seed 1 \
        >"$scratch/gen_$1.out"
    grep '^gen_dump: ' "$scratch/gen_$1.out" | sed 's/^/  /'
    row "generate ($1) $2 entries" "$(rows_of "$scratch/gen_$1.out")" "$(tail -n 1 "$scratch/gen_$1.out")"
}

# compare NAME RUNS FORMAT [DIALECT]: time `msprobe compare` on pair NAME
# (with -n/-b: msprobe 8.1.0's table; DIALECT newest: -tp/-gp, the newest
# msprobe's); sets $line (empty when a run failed)
compare() {
    dialect=${4:-8.1}
    out=$scratch/out_$1_$3_$dialect
    mkdir -p "$out"
    t=-n b=-b
    [ "$dialect" = newest ] && t=-tp b=-gp
    echo "bench: msprobe compare ($1) $t/$b --format $3, $2 run(s)"
    if ! line=$(timed -q -n "$2" -- "$MSPROBE" compare "$t" "$scratch/$1/target/step0/rank/dump.json" \
        "$b" "$scratch/$1/bench/step0/rank/dump.json" -o "$out" --format "$3"); then
        line=
        skip "compare ($1) $t/$b --format $3 failed or timed out"
    fi
}

statistics_part() {
    gen a "$ENTRIES"
    gen b "$BIG_ENTRIES"
    rows_a=$(rows_of "$scratch/gen_a.out")
    rows_b=$(rows_of "$scratch/gen_b.out")
    dump_a="$scratch/a/target/step0/rank/dump.json"
    bench_a="$scratch/a/bench/step0/rank/dump.json"

    have_compare=0
    csv=
    csv_a=''
    xlsx_a=''
    csv_b=''
    ref=''
    base_b=''
    if [ "$have_msprobe" = 0 ]; then
        skip "statistics compare timings ($MSPROBE not built)"
    elif ! "$MSPROBE" compare -q -n "$dump_a" -b "$bench_a" -o "$scratch/probe" --format csv; then
        skip "statistics compare timings ($MSPROBE compare failed, exit status above)"
    else
        have_compare=1
        csv=$(find "$scratch/probe" -name '*.csv' | head -n 1)
    fi

    if [ "$have_compare" = 1 ]; then
        compare a "$RUNS" csv
        csv_a=$line
        row "compare csv (a)" "$rows_a" "$csv_a"
        compare a "$RUNS" csv newest
        row "compare csv newest dialect (a)" "$rows_a" "$line"
        compare a "$RUNS" xlsx
        xlsx_a=$line
        row "compare xlsx (a)" "$rows_a" "$xlsx_a"
    fi

    # The floor times only the writing (xlsx_floor prints write_s=), not the
    # loading of the csv whose cells it writes.
    floor=
    if [ ! -x "$TOOLS/xlsx_floor" ]; then
        skip "xlsx_floor ($TOOLS/xlsx_floor not built)"
    else
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
        floor=$(median_line "$scratch/floor_times")
        row "$floor_case" "$rows_a" "$floor"
    fi

    if [ -n "${MSPROBE_REF:-}" ]; then
        printf '{"npu_path": "%s", "bench_path": "%s"}\n' "$dump_a" "$bench_a" >"$scratch/compare.json"
        echo "bench: $MSPROBE_REF (msprobe 8.1.0) on (a), 1 run"
        if ref=$(timed -q -n 1 -- "$MSPROBE_REF" -f pytorch compare -i "$scratch/compare.json" \
            -o "$scratch/out_ref"); then
            row "msprobe 8.1.0 xlsx (a)" "$rows_a" "$ref"
        else
            ref=
            skip "msprobe 8.1.0 on (a) (failed)"
        fi
    fi

    if [ "$have_compare" = 1 ]; then
        rm -rf "$scratch"/out_a_*   # room for the big result
        compare b "$BIG_RUNS" csv
        csv_b=$line
        row "compare csv (b)" "$rows_b" "$csv_b"
        rm -rf "$scratch"/out_b_*
        compare b "$BIG_RUNS" csv newest
        row "compare csv newest dialect (b)" "$rows_b" "$line"
        if [ -n "${BASELINE:-}" ]; then
            rm -rf "$scratch"/out_b_*
            ours=$MSPROBE
            MSPROBE=$BASELINE
            compare b "$BIG_RUNS" csv
            MSPROBE=$ours
            base_b=$line
            row "baseline csv (b)" "$rows_b" "$base_b"
        fi
    fi

    if [ "$have_compare" = 1 ] && [ -n "$csv_a" ] && [ -n "$xlsx_a" ] && [ -n "$csv_b" ]; then
        # Times on these machines vary up to 2x with other work, so the
        # targets are ratios to runs made in the same sitting where there
        # are any (MSPROBE_REF, BASELINE, the floor); memory is absolute.
        awk -v csv="$(field median_s "$csv_a")" -v csvmb="$(field peak_rss_mb "$csv_a")" \
            -v x="$(field median_s "$xlsx_a")" -v f="$(field median_s "$floor")" \
            -v ref="$(field median_s "${ref:-}")" -v base="$(field median_s "${base_b:-}")" \
            -v big="$(field median_s "$csv_b")" -v bigmb="$(field peak_rss_mb "$csv_b")" 'BEGIN {
            printf "csv (a):  %.4f s, %.1f MB", csv, csvmb
            if (ref != "")
                printf "; msprobe 8.1.0 here %.2f s = %.0fx   (target >= 200x, < 60 MB)   %s\n", ref, ref / csv,
                    (ref / csv >= 200 && csvmb < 60 ? "ok" : "MISSED")
            else
                printf "   (target >= 200x msprobe 8.1.0: give MSPROBE_REF to see it; < 60 MB)   %s\n",
                    (csvmb < 60 ? "ok" : "MISSED")
            if (f > 0) {
                verdict = x <= 1.1 * f ? "ok" : "MISSED"
                printf "xlsx/floor ratio: %.2f   (target <= 1.1)   %s\n", x / f, verdict
            }
            printf "csv (b):  %.2f s, %.0f MB", big, bigmb
            if (base != "")
                printf "; baseline build here %.2f s = %.2fx   (target >= 2.5x, <= 800 MB)   %s\n", base, base / big,
                    (base / big >= 2.5 && bigmb <= 800 ? "ok" : "MISSED")
            else
                printf "   (target >= 2.5x the baseline: give BASELINE to see it; <= 800 MB)   %s\n",
                    (bigmb <= 800 ? "ok" : "MISSED")
        }' >>"$verdicts"
    fi
}

# ----------------------------------------------------------------- tensor

tput_table=$scratch/throughput
: >"$tput_table"

# tgen NAME DESCRIPTION GEN-ARGS...: one tensor dump pair in $scratch/NAME;
# sets tbytes (both sides' tensor file bytes) and trows
tgen() {
    name=$1
    desc=$2
    shift 2
    echo "bench: generating tensor pair ($name): $desc"
    "$TOOLS/runstat" -n 1 -- "$TOOLS/gen_dump" --out "$scratch/$name" --mode tensor --layers 2 --seed 1 "$@" \
        >"$scratch/gen_$name.out"
    grep '^gen_dump: ' "$scratch/gen_$name.out" | sed 's/^/  /'
    tbytes=$(sed -n 's/^gen_dump: tensor data: [0-9]* files, \([0-9]*\) bytes.*/\1/p' "$scratch/gen_$name.out")
    trows=$(rows_of "$scratch/gen_$name.out")
    row "generate ($name) $(awk -v b="$tbytes" 'BEGIN { printf "%.0f MB", b / 1e6 }')" "$trows" \
        "$(tail -n 1 "$scratch/gen_$name.out")"
}

# tput CASE BYTES RUNSTAT-LINE [CORES]: one line of the throughput table
tput() {
    if [ -z "$3" ]; then
        printf '%-34s %9s %9s\n' "$1" "" FAILED >>"$tput_table"
        return
    fi
    awk -v c="$1" -v b="$2" -v t="$(field median_s "$3")" -v cpu="$(field cpu_s "$3")" -v j="${4:-$JOBS}" 'BEGIN {
        gbs = b / 1e9 / t
        cg = (cpu == "-" || cpu <= 0) ? "-" : sprintf("%.2f", b / 1e9 / cpu)
        printf "%-34s %9.1f %9.4f %9.3g %9.3g %9s\n", c, b / 1e6, t, gbs, gbs / j, cg }' >>"$tput_table"
}

# tcompare NAME JOBS: time `msprobe compare -j JOBS --format csv` on tensor
# pair NAME, page-cached; sets $line (empty when a run failed)
tcompare() {
    out=$scratch/out_$1
    mkdir -p "$out"
    echo "bench: msprobe compare ($1) --format csv -j $2, page-cached, $RUNS run(s)"
    if ! line=$(timed -q -n "$RUNS" -w 1 -- "$MSPROBE" compare -j "$2" \
        -n "$scratch/$1/target/step0/rank/dump.json" -b "$scratch/$1/bench/step0/rank/dump.json" \
        -o "$out" --format csv); then
        line=
        skip "tensor compare ($1) -j $2 failed or timed out"
    fi
}

# tcold NAME: the same with the page cache dropped before each run
tcold() {
    out=$scratch/out_$1
    mkdir -p "$out"
    echo "bench: msprobe compare ($1) --format csv -j $JOBS, cold, $COLD_RUNS run(s)"
    : >"$scratch/cold_times"
    : >"$scratch/cold_cpu"
    i=0
    line=
    while [ "$i" -lt "$COLD_RUNS" ]; do
        sync
        echo 3 >/proc/sys/vm/drop_caches
        if ! one=$(timed -q -n 1 -- "$MSPROBE" compare -j "$JOBS" \
            -n "$scratch/$1/target/step0/rank/dump.json" -b "$scratch/$1/bench/step0/rank/dump.json" \
            -o "$out" --format csv); then
            skip "cold tensor compare ($1) failed or timed out"
            return
        fi
        field median_s "$one" >>"$scratch/cold_times"
        field cpu_s "$one" >>"$scratch/cold_cpu"
        i=$((i + 1))
    done
    cpu=$(sort -n "$scratch/cold_cpu" | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }')
    line=$(median_line "$scratch/cold_times" | sed "s/cpu_s=-/cpu_s=$cpu/")
}

# big_case NAME: cold (when possible) and page-cached timings of a big pair
# just generated (rows and bytes from tgen)
big_case() {
    if [ "$have_msprobe" = 0 ]; then
        return
    fi
    if [ "$cold_ok" = 1 ]; then
        tcold "$1"
        row "compare csv ($1) cold" "$trows" "$line"
        tput "compare csv ($1) cold" "$tbytes" "$line"
    fi
    # one core: the per-core figure itself; all cores: how it scales
    js=1
    if [ "$JOBS" != 1 ]; then
        js="1 $JOBS"
    fi
    # target GB/s on one core: 8 for .npy (float32), 6 for the .pt mix
    want=6
    [ "$1" = t3 ] && want=8
    one=
    for j in $js; do
        # the machine's limit on the same files in the same sitting, just
        # before the compare: mapped page-cached reads, dot product and norms
        # by a vector loop (tests/tools/bench_limit.c)
        lim=
        if [ -x "$TOOLS/bench_limit" ]; then
            echo "bench: the machine's limit on ($1) -j $j: bench_limit, $RUNS round(s)"
            lim=$("$TOOLS/bench_limit" -j "$j" -r "$RUNS" "$scratch/$1/target/step0/rank/dump_tensor_data" \
                "$scratch/$1/bench/step0/rank/dump_tensor_data") || lim=
            [ -n "$lim" ] && tput "limit ($1) -j $j" "$(field bytes "$lim")" "$lim" "$j"
        else
            skip "the machine's limit ($TOOLS/bench_limit not built)"
        fi
        tcompare "$1" "$j"
        row "compare csv ($1) cached -j $j" "$trows" "$line"
        tput "compare csv ($1) cached -j $j" "$tbytes" "$line" "$j"
        if [ -n "$line" ]; then
            [ "$j" = 1 ] && one=$(field median_s "$line")
            awk -v t="$1" -v b="$tbytes" -v s="$(field median_s "$line")" -v cpu="$(field cpu_s "$line")" \
                -v j="$j" -v load="$(cut -d' ' -f1 /proc/loadavg 2>/dev/null)" -v lim="$(field limit_gbs "$lim")" \
                -v want="$want" -v one="$one" 'BEGIN {
                g = b / 1e9 / s
                printf "compare %s -j%d: %.2f GB/s", t, j, g
                if (lim != "") printf " = %.2f of this machine'"'"'s %.2f", g / lim, lim
                printf " (%.2f per cpu-second; load %s)", b / 1e9 / cpu, load
                if (j == 1) {
                    ok = (g >= want) && (lim == "" || g >= 0.4 * lim)
                    printf "   (target >= %d GB/s, >= 0.4 of the limit)   %s\n", want, (ok ? "ok" : "MISSED")
                } else if (one != "") {
                    printf "; %.2fx one core   (target >= 1.6x)   %s\n", one / s, (one / s >= 1.6 ? "ok" : "MISSED")
                } else {
                    printf "\n"
                }
            }' >>"$verdicts"
        fi
    done
    rm -rf "$scratch/out_$1"
}

# Cold runs need root to drop the page cache, and a scratch directory whose
# pages can be dropped at all (tmpfs keeps them).
cold_ok=0
cold_why=
if [ "$(stat -f -c %T "$scratch" 2>/dev/null)" = tmpfs ]; then
    cold_why="scratch $scratch is on tmpfs"
elif ! (echo 3 >/proc/sys/vm/drop_caches) 2>/dev/null; then
    cold_why="cannot write /proc/sys/vm/drop_caches (not root?)"
else
    cold_ok=1
fi

tensor_part() {
    if [ "$have_msprobe" = 0 ]; then
        skip "tensor compare timings ($MSPROBE not built)"
    fi
    toy=''
    ref_toy=''
    tgen t1 "toy transformer, 235 entries, .pt" --entries 235 --tensor-scale 1
    rows_t1=$trows
    bytes_t1=$tbytes
    if [ "$have_msprobe" = 1 ]; then
        tcompare t1 "$JOBS"
        toy=$line
        row "compare csv (t1) cached" "$rows_t1" "$toy"
        tput "compare csv (t1) cached" "$bytes_t1" "$toy"
    fi
    if [ "$have_msprobe" = 1 ] && [ "$cold_ok" = 0 ]; then
        skip "cold tensor runs ($cold_why)"
    fi
    tgen t2 "whole step, .pt, --tensor-scale $TENSOR_SCALE" --tensor-scale "$TENSOR_SCALE"
    big_case t2
    rm -rf "$scratch/t2"    # room for the next pair
    tgen t3 "whole step, .npy, --tensor-scale $NPY_SCALE" --tensor-scale "$NPY_SCALE" --format npy
    big_case t3

    if [ -n "${MSPROBE_REF:-}" ]; then
        printf '{"npu_path": "%s", "bench_path": "%s"}\n' "$scratch/t1/target/step0/rank/dump.json" \
            "$scratch/t1/bench/step0/rank/dump.json" >"$scratch/compare_t1.json"
        # a warm-up run first: the cold runs above dropped torch from the page cache
        echo "bench: $MSPROBE_REF (msprobe 8.1.0) on (t1), page-cached, 1 run"
        if ref_toy=$(timed -q -w 1 -n 1 -- "$MSPROBE_REF" -f pytorch compare -i "$scratch/compare_t1.json" \
            -o "$scratch/out_ref_t1" 2>"$scratch/ref_t1.log"); then
            row "msprobe 8.1.0 xlsx (t1)" "$rows_t1" "$ref_toy"
            tput "msprobe 8.1.0 xlsx (t1)" "$bytes_t1" "$ref_toy"
        else
            ref_toy=
            skip "msprobe 8.1.0 on (t1) (failed)"
        fi
    fi

    if [ -x "$TOOLS/bench_metrics" ]; then
        echo "bench: bench_metrics (metrics kernel, in memory, one core)"
        if "$TOOLS/bench_metrics" -n 32 -r 3 >"$scratch/kernel.out"; then
            awk '/^(float32|bfloat16) in memory/ {
                for (i = 1; i <= NF; i++) if ($i == "GB/s") g = $(i - 1)
                printf "%-34s %9.1f %9s %9.2f %9.2f %9s\n", "kernel " $1 " " $4 " 1 core", $5, "", g, g, "" }' \
                "$scratch/kernel.out" >>"$tput_table"
            awk '/^(float32|bfloat16) in memory/ {
                for (i = 1; i <= NF; i++) if ($i == "GB/s") g = $(i - 1)
                want = $1 == "float32" ? 12 : 8
                printf "metrics kernel %s %s, one core: %.2f GB/s   (target >= %d)   %s\n", $1, $4,
                    g, want, (g >= want ? "ok" : "MISSED") }' "$scratch/kernel.out" >>"$verdicts"
        else
            skip "bench_metrics (failed)"
        fi
    else
        skip "metrics kernel ($TOOLS/bench_metrics not built)"
    fi

    if [ -n "$toy" ]; then
        # the ratio to msprobe run here when there is one, else to the
        # time the issue quotes for it
        awk -v s="$(field median_s "$toy")" -v q="$MSPROBE_TOY_S" -v r="$(field median_s "$ref_toy")" 'BEGIN {
            if (r != "") {
                printf "toy pair (t1): %.4f s; msprobe 8.1.0 here %.2f s = %.0fx", s, r, r / s
                q = r
            } else {
                printf "toy pair (t1): %.4f s, %.0fx msprobe'"'"'s %.1f s quoted (MSPROBE_REF: run it here)", s, q / s, q
            }
            printf "   (target >= 150x)   %s\n", (q / s >= 150 ? "ok" : "MISSED") }' >>"$verdicts"
    fi
}

# ------------------------------------------------------------------- main

if [ "$have_tools" = 0 ]; then
    skip "everything ($TOOLS/gen_dump or $TOOLS/runstat not built)"
else
    echo "bench: $(nproc 2>/dev/null || echo '?') cores, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
    if has_part statistics; then
        statistics_part
    fi
    if has_part tensor; then
        tensor_part
    fi
    if has_part nan; then
        TABLE=$table VERDICTS=$verdicts sh tests/bench_nan.sh "$BUILD" || skip "nan_analyze part (failed)"
    fi
    if has_part graph; then
        TABLE=$table VERDICTS=$verdicts sh tests/bench_graph.sh "$BUILD" || skip "graph part (failed)"
    fi
    # the training-monitor converters: a part of their own, with its own table
    if has_part monitor; then
        sh "$(dirname "$0")/bench_monitor.sh" "$BUILD" || skip "monitor part (failed)"
    fi
    # train_compare: a part of its own, with its own tables
    if has_part train; then
        sh "$(dirname "$0")/bench_train.sh" "$BUILD" || skip "train part (failed)"
    fi
fi
# config: checkpoint compare on generated TP=2 x PP=2 pairs (its own script)
if has_part config; then
    VERDICTS=$verdicts sh "$(dirname "$0")/bench_config.sh" "$BUILD" "$scratch/config"
fi

echo
printf '%-34s %9s %9s %9s %9s %8s %9s\n' case rows median_s min_s max_s peak_MB cpu_s
cat "$table"
if [ -s "$tput_table" ]; then
    echo
    printf '%-34s %9s %9s %9s %9s %9s\n' "tensor throughput" MB median_s GB/s GB/s/core cpu_GB/s
    cat "$tput_table"
fi
echo
cat "$verdicts"
if [ -n "$skipped" ]; then
    echo "bench: SKIPPED: $skipped"
fi
