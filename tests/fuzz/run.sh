#!/bin/sh
# libFuzzer over every harness of BUILD/fuzz/ (make fuzz builds them with
# clang): FUZZ_SECONDS each (default 10), FUZZ_JOBS harnesses at a time
# (default: the number of cores), on a corpus kept in
# BUILD/fuzz/corpus/<harness>/ (it grows from run to run), started from the
# seeds (tests/fuzz/seeds.py) and the kept findings (tests/fuzz/regress/),
# with the harness's dictionary (tests/fuzz/dict/). A crash, leak, timeout
# or out-of-memory stops that harness; its input is left in
# BUILD/fuzz/findings/<harness>/ and the run fails. Each harness's line
# gives its executions and executions per second.
#
#   tests/fuzz/run.sh BUILD                 every harness (the short run: make fuzz, make check-long)
#   FUZZ_ONLY="fz_npy fz_pt" FUZZ_SECONDS=600 tests/fuzz/run.sh BUILD
#   FUZZ_RUNS=10000000 FUZZ_JOBS=1 nice -n 19 tests/fuzz/run.sh BUILD   (the long run: README)
#   (FUZZ_RUNS and FUZZ_SECONDS together: whichever limit comes first)
#
# Extra libFuzzer options: FUZZ_ARGS.
set -u
BUILD=${1:-build-fuzz}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
SECONDS_EACH=${FUZZ_SECONDS:-10}
RUNS=${FUZZ_RUNS:-}
JOBS=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
F="$BUILD/fuzz"
python3 tests/fuzz/seeds.py "$F/seeds" > /dev/null || exit 2

# the dictionary of each harness's format
dict_of() {
    case $1 in
    fz_json|fz_json_cjson|fz_dump|fz_stack|fz_construct|fz_compare_json|fz_anomaly|fz_vis) echo json ;;
    fz_yaml|fz_mapping_yaml|fz_merge_config|fz_cc_hyper) echo yaml ;;
    fz_zip|fz_pack) echo zip ;;
    fz_pt|fz_ckpt|fz_pickle|fz_distcp) echo pickle ;;
    fz_xlsx|fz_xml_expat|fz_merge_read) echo xml ;;
    fz_csv|fz_monitor_csv) echo csv ;;
    *) echo "${1#fz_}" ;;
    esac
}

# one harness; its result line goes to $F/$h.result, "FAIL" first on failure
run_one() {
    h=$1 bin="$F/$1"
    corpus="$F/corpus/$h" findings="$F/findings/$h"
    mkdir -p "$corpus" "$findings"
    dict="tests/fuzz/dict/$(dict_of "$h").dict"
    set -- -max_len=65536 -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$findings/"
    [ -f "$dict" ] && set -- "$@" -dict="$dict"
    # a number of executions, a time, or both (whichever comes first)
    [ -n "$RUNS" ] && set -- "$@" -runs="$RUNS"
    if [ -z "$RUNS" ] || [ -n "${FUZZ_SECONDS:-}" ]; then set -- "$@" -max_total_time="$SECONDS_EACH"; fi
    dirs="$corpus"
    [ -d "$F/seeds/$h" ] && dirs="$dirs $F/seeds/$h"
    [ -d "tests/fuzz/regress/$h" ] && dirs="$dirs tests/fuzz/regress/$h"
    log="$F/$h.log"
    start=$(date +%s)
    # shellcheck disable=SC2086
    "$bin" "$@" ${FUZZ_ARGS:-} $dirs > "$log" 2>&1
    rc=$?
    took=$(($(date +%s) - start))
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    if [ $rc -eq 0 ]; then
        printf 'ok   %-18s %12s runs %8s/s %6ss\n' "$h" "${runs:-?}" "${speed:-?}" "$took" > "$F/$h.result"
    else
        { printf 'FAIL %-18s exit %d (log: %s, inputs: %s)\n' "$h" $rc "$log" "$findings"
          grep -E 'ERROR|SUMMARY|^fz_|^fuzz:' "$log" | head -5 | sed 's/^/     | /'; } > "$F/$h.result"
    fi
}

list=""
for bin in "$F"/fz_*; do
    case $bin in *.d|*.log|*.result) continue ;; esac
    [ -x "$bin" ] || continue
    h=$(basename "$bin")
    if [ -n "${FUZZ_ONLY:-}" ]; then
        case " $FUZZ_ONLY " in *" $h "*) ;; *) continue ;; esac
    fi
    rm -f "$F/$h.result"
    list="$list $h"
done
[ -n "$list" ] || { echo "fuzz: no harness in $F (make fuzz builds them)"; exit 2; }

# JOBS lanes, harness k in lane k mod JOBS, each lane one harness at a time
lane=0 pids=""
while [ $lane -lt "$JOBS" ]; do
    (
        k=0
        for h in $list; do
            [ $((k % JOBS)) -eq $lane ] && run_one "$h"
            k=$((k + 1))
        done
    ) &
    pids="$pids $!"
    lane=$((lane + 1))
done
# shellcheck disable=SC2086
wait $pids

fail=0 total=0 passed=0 failed=0
for h in $list; do
    if [ -f "$F/$h.result" ]; then cat "$F/$h.result"; else echo "FAIL $h: no result"; fi
    if grep -q '^ok' "$F/$h.result" 2>/dev/null; then
        passed=$((passed + 1))
        runs=$(awk '{print $3}' "$F/$h.result")
        total=$((total + runs))
    else
        fail=1 failed=$((failed + 1))
    fi
done
echo "fuzz: $total executions in all"
echo "fuzz: $passed passed, $failed failed"
exit $fail
