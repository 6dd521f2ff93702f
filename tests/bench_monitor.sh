#!/bin/sh
# make bench, monitor part: the training-monitor converters on a generated
# monitor tree (no data is checked in).
#
#   tests/bench_monitor.sh BUILD    BUILD holds msprobe and tools/{gen_monitor,runstat}
#
# gen_monitor writes what msprobe's TrainerMon writes (format csv) for a
# 24-layer Megatron-core GPT model: MONITOR_RANKS (64) rank directories x 8
# data types, MONITOR_STEPS (100) steps in files of 50, about 40 MB of csv per
# rank (2.5 GB for 64 ranks, 125 bytes a row). After one untimed pass (page cache filled) it times,
# MONITOR_RUNS (3) times each, the output removed before every run:
#   monitor2db  -> monitor_metrics.db   (target >= 200 MB/s of csv)
#   monitor2tb  -> 512 event files      (target >= 400 MB/s of csv; the event
#                  files are about 4.4 times the csv, so they go to OUT_TMP,
#                  default /dev/shm when it has room, else the scratch directory)
# and reports MB/s of csv (median wall time), CPU seconds and peak memory
# (target < 500 MB). The machine's other load shows in the wall times; the
# CPU seconds do not depend on it.
# Part "mem": memory on big inputs, against the input's size + 100 MB:
#   monitor2db over one rank's ~40 MB of csv whose activations are named
#   apart every step (gen_monitor --unique: as many series as rows), and
#   anomaly -k 1000000000 (every record ranked and written) over ~118 MB of
#   anomaly.json in 8 ranks (gen_monitor --anomaly).
#
# Environment: TMPDIR (scratch for the tree), OUT_TMP, KEEP=1, JOBS (-j),
# MONITOR_RANKS, MONITOR_STEPS, MONITOR_RUNS, MONITOR_PARTS ("db tb mem").
set -eu
# shellcheck source=tests/bench_common.sh
. "$(dirname "$0")/bench_common.sh"
RANKS=${MONITOR_RANKS:-64}
STEPS=${MONITOR_STEPS:-100}
RUNS=${MONITOR_RUNS:-3}
PARTS=${MONITOR_PARTS:-db tb mem}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 1)}

bench_need bench_monitor "$TOOLS/gen_monitor" "$TOOLS/runstat" "$MSPROBE"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/msprobe-bench-monitor.XXXXXX")
tree=$scratch/monitor_output
# the event files need room: /dev/shm when it has 1.5 GB per 10 ranks and
# the memory to hold them leaves 3 GB to everything else on the machine
need_kb=$((RANKS * 150000))
avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null || echo 0)
if [ -z "${OUT_TMP:-}" ] && [ -d /dev/shm ] && [ "$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')" -gt "$need_kb" ] &&
    [ "${avail_kb:-0}" -gt $((need_kb + 3000000)) ]; then
    OUT_TMP=/dev/shm
fi
out=$(mktemp -d "${OUT_TMP:-$scratch}/msprobe-bench-monitor-out.XXXXXX")
bench_cleanup_on_exit bench_monitor "$out"

bytes=1 rows=1
case " $PARTS " in *" db "*|*" tb "*)
    echo "bench_monitor: generating $RANKS ranks x 8 data types, $STEPS steps"
    "$TOOLS/gen_monitor" --out "$tree" --ranks "$RANKS" --steps "$STEPS" --window 50 >"$scratch/gen.out"
    cat "$scratch/gen.out"
    bytes=$(sed -n 's/^gen_monitor: [0-9]* files, \([0-9]*\) bytes.*/\1/p' "$scratch/gen.out")
    rows=$(sed -n 's/^gen_monitor: .* bytes, \([0-9]*\) rows.*/\1/p' "$scratch/gen.out")
    # the page cache: every csv read once
    find "$tree" -name '*.csv' -exec cat {} + >/dev/null ;;
esac

# runs NAME ARGS...: RUNS runs of msprobe, the output removed before each;
# one line: name, MB/s at the median wall time, median wall, median cpu, peak MB
table=$scratch/table
: >"$table"
runs() {
    name=$1
    shift
    : >"$scratch/walls"
    : >"$scratch/cpus"
    : >"$scratch/mems"
    i=0
    while [ "$i" -lt "$RUNS" ]; do
        rm -rf "$out/$name"
        sync
        if ! line=$("$TOOLS/runstat" -q -n 1 -- "$MSPROBE" "$@" -o "$out/$name" -j "$JOBS"); then
            echo "bench_monitor: $name failed" >&2
            printf '%-28s %10s\n' "$name" FAILED >>"$table"
            return 1
        fi
        field median_s "$line" >>"$scratch/walls"
        field cpu_s "$line" >>"$scratch/cpus"
        field peak_rss_mb "$line" >>"$scratch/mems"
        i=$((i + 1))
    done
    rm -rf "$out/$name"
    med() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
    wall=$(med "$scratch/walls")
    cpu=$(med "$scratch/cpus")
    mem=$(sort -n "$scratch/mems" | tail -1)
    awk -v n="$name" -v b="$bytes" -v w="$wall" -v c="$cpu" -v m="$mem" -v walls="$(tr '\n' ' ' <"$scratch/walls")" \
        'BEGIN { printf "%-28s %10.1f %10.3f %10.3f %10.1f   (%s)\n", n, b / 1e6 / w, w, c, m, walls }' >>"$table"
    eval "${name}_mbs=\$(awk -v b=\"\$bytes\" -v w=\"\$wall\" 'BEGIN { printf \"%.1f\", b / 1e6 / w }')"
    eval "${name}_mem=\$mem"
}

bench_machine bench_monitor
monitor2db_mbs=0 monitor2db_mem=0 monitor2tb_mbs=0 monitor2tb_mem=0
case " $PARTS " in *" db "*)
    echo "bench_monitor: monitor2db, $RUNS runs"
    runs monitor2db monitor2db -q -m "$tree" || true ;;
esac
case " $PARTS " in *" tb "*)
    echo "bench_monitor: monitor2tb, $RUNS runs (event files in $out)"
    runs monitor2tb monitor2tb -q -m "$tree" || true ;;
esac

# mem NAME INPUT-BYTES CMD...: one run; its peak memory against the input's size + 100 MB
memtable=$scratch/memtable
: >"$memtable"
mem() {
    name=$1
    in_bytes=$2
    shift 2
    if ! line=$("$TOOLS/runstat" -q -n 1 -- "$MSPROBE" "$@"); then
        echo "bench_monitor: $name failed" >&2
        printf '%-34s %10s\n' "$name" FAILED >>"$memtable"
        return 0
    fi
    awk -v n="$name" -v b="$in_bytes" -v m="$(field peak_rss_mb "$line")" -v w="$(field median_s "$line")" \
        -v c="$(field cpu_s "$line")" 'BEGIN {
        limit = b / 1048576 + 100
        printf "%-34s %8.1f %8.1f %8.3f %8.3f %9.1f   %s\n", n, b / 1e6, m, w, c, limit, m < limit ? "ok" : "MISSED" }' \
        >>"$memtable"
}
case " $PARTS " in *" mem "*)
    echo "bench_monitor: memory on big inputs"
    big=$scratch/big
    mkdir -p "$big"
    "$TOOLS/gen_monitor" --out "$big/unique" --ranks 1 --steps 110 --window 200 --unique 1 >"$scratch/gen_u.out"
    "$TOOLS/gen_monitor" --out "$big/anomaly" --ranks 8 --anomaly 118000000 >"$scratch/gen_a.out"
    cat "$scratch/gen_u.out" "$scratch/gen_a.out"
    ub=$(sed -n 's/^gen_monitor: [0-9]* files, \([0-9]*\) bytes.*/\1/p' "$scratch/gen_u.out")
    ab=$(sed -n 's/^gen_monitor: [0-9]* files, \([0-9]*\) bytes.*/\1/p' "$scratch/gen_a.out")
    find "$big" -type f -exec cat {} + >/dev/null
    mem "monitor2db, a series a row" "$ub" monitor2db -q -m "$big/unique" -o "$out/mem_db" -j "$JOBS"
    mem "anomaly -k all" "$ab" anomaly -q -d "$big/anomaly/anomaly_detected" -o "$out/mem_anomaly" -k 1000000000
    mem "anomaly -k all --format xlsx" "$ab" anomaly -q -d "$big/anomaly/anomaly_detected" -o "$out/mem_anomaly_x" \
        -k 1000000000 --format xlsx
    rm -rf "$big" "$out/mem_db" "$out/mem_anomaly" "$out/mem_anomaly_x" ;;
esac

echo
case " $PARTS " in *" db "*|*" tb "*)
    echo "bench_monitor: $((bytes / 1000000)) MB of csv, $rows rows ($((bytes / rows)) bytes a row)"
    printf '%-28s %10s %10s %10s %10s\n' "monitor tree $((bytes / 1000000)) MB" "MB/s" median_s cpu_s peak_MB
    cat "$table"
    echo ;;
esac
if [ -s "$memtable" ]; then
    printf '%-34s %8s %8s %8s %8s %9s\n' "memory on big inputs" input_MB peak_MB wall_s cpu_s limit_MB
    cat "$memtable"
    echo
fi
awk -v db="$monitor2db_mbs" -v tb="$monitor2tb_mbs" -v dm="$monitor2db_mem" -v tm="$monitor2tb_mem" \
    -v parts=" $PARTS " 'BEGIN {
    if (index(parts, " db "))
        printf "monitor2db: %.0f MB/s, %.0f MB   (target >= 200 MB/s, < 500 MB)   %s\n", db, dm,
            (db >= 200 && dm < 500) ? "ok" : "MISSED"
    if (index(parts, " tb "))
        printf "monitor2tb: %.0f MB/s, %.0f MB   (target >= 400 MB/s, < 500 MB)   %s\n", tb, tm,
            (tb >= 400 && tm < 500) ? "ok" : "MISSED"
}'
