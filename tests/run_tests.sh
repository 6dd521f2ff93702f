#!/bin/sh
# Runs the whole test suite against one build tree (build/ or build-asan/):
# every cmocka unit test, the CLI behaviour tests, and the conformance test
# against ../shared/corpus when that directory exists. What is slow for
# what it adds to every run is in tests/run_long.sh (make check-long).
set -u
BUILD=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
fail=0

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# test_metrics_kern's long tensor: 2^23 elements, past the 2^22-element
# pieces a big tensor is cut into (make check-long: 10^8)
export MSPROBE_TEST_BIG=${MSPROBE_TEST_BIG:-8388608}

# Every pass says how long it took ("   (12 s)" after its lines) and the
# last line sums them up, so that a slow pass shows in any CI log.
. tests/pass_time.sh

pass layers "include layers"
if python3 tests/lint/check_layers.py .; then
    echo "ok   no include cycle, no upward include, path includes only"
else
    fail=1
fi

pass unit "unit tests ($BUILD)"
for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    case "$t" in *.d) continue ;; esac
    t0=$(date +%s)
    if "$t" >"$BUILD/$(basename "$t").log" 2>&1; then
        took=$(($(date +%s) - t0))
        # the slow ones say so
        if [ $took -ge 2 ]; then echo "ok   $(basename "$t") ($took s)"; else echo "ok   $(basename "$t")"; fi
    else
        echo "FAIL $(basename "$t") (log: $BUILD/$(basename "$t").log)"
        tail -20 "$BUILD/$(basename "$t").log"
        fail=1
    fi
done

for s in tests/cli/run.sh tests/conformance.sh tests/conformance_newest.sh tests/conformance_nan.sh \
    tests/conformance_config.sh tests/monitor_conformance.sh tests/conformance_graph.sh tests/conformance_train.sh; do
    [ -f "$s" ] || continue
    case $s in tests/cli/run.sh) short=cli ;; *) short=$(basename "$s" .sh) ;; esac
    pass "$short" "$s ($BUILD)"
    sh "$s" "$BUILD" || fail=1
done

# Every reader's fuzz harness, as a plain program (under ASan/UBSan in
# build-asan/), over the inputs the fuzzers found (tests/fuzz/regress/) and
# the seed corpora; the timed libFuzzer run is make fuzz (clang).
pass replay "tests/fuzz/replay.sh ($BUILD)"
sh tests/fuzz/replay.sh "$BUILD" || fail=1

# Tensor files truncated by another process while a compare reads them:
# exit 2 with one line, never a signal (the full run: tests/stress/truncate.sh
# BUILD 100 128).
pass truncate "tests/stress/truncate.sh ($BUILD)"
if out=$(sh tests/stress/truncate.sh "$BUILD" 20 32 2>&1); then
    echo "ok   $(printf '%s\n' "$out" | tail -1)"
else
    printf '%s\n' "$out" | tail -20
    fail=1
fi

# The graph page in headless Chromium (plain builds only: the page's script
# is what it tests; skipped, and said so, without chromium)
case "$BUILD" in build-asan*|build-clang*) ;; *)
    pass browser "tests/browser_graph.sh ($BUILD)"
    sh tests/browser_graph.sh "$BUILD" || fail=1
    pass browser_train "tests/browser_train.sh ($BUILD)"
    sh tests/browser_train.sh "$BUILD" || fail=1 ;;
esac

# A compare, a nan_analyze and a graph under valgrind (plain builds only:
# it cannot run ASan binaries, build-asan/ or clang's build-clang/); the
# whole catalogue of hostile files under valgrind is in make check-long.
case "$BUILD" in build-asan*|build-clang*) sanitized=1 ;; *) sanitized=0 ;; esac
if command -v valgrind >/dev/null 2>&1 && [ $sanitized = 0 ]; then
    pass valgrind "valgrind ($BUILD)"
    vout=$(mktemp -d)
    if valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite,indirect \
        "$BUILD/msprobe" compare -q -n testdata/features/target/step0/rank0 -b testdata/features/bench/step0/rank0 \
        -o "$vout" -s > "$BUILD/valgrind.log" 2>&1; then
        echo "ok   valgrind: no error, no leak (statistics compare, xlsx)"
    else
        echo "FAIL valgrind (log: $BUILD/valgrind.log)"
        tail -20 "$BUILD/valgrind.log"
        fail=1
    fi
    # nan_analyze over 16 generated ranks, with --all and an xlsx table
    "$BUILD/tools/gen_nan" --out "$vout/nan" --ranks 16 --entries 300 > /dev/null
    if valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite,indirect \
        "$BUILD/msprobe" nan_analyze -q -i "$vout/nan/step0" -o "$vout/nan_out" --format xlsx \
        > "$BUILD/valgrind_nan.log" 2>&1; then
        echo "ok   valgrind: no error, no leak (nan_analyze, 16 ranks, --format xlsx)"
    else
        echo "FAIL valgrind (log: $BUILD/valgrind_nan.log)"
        tail -20 "$BUILD/valgrind_nan.log"
        fail=1
    fi
    # graph: a compare with its page, as a .vis.db
    "$BUILD/tools/gen_graph" --out "$vout/graph" --blocks 50
    if valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite,indirect \
        "$BUILD/msprobe" graph -q -tp "$vout/graph/target" -gp "$vout/graph/bench" -o "$vout/graph_out" \
        --format db --html > "$BUILD/valgrind_graph.log" 2>&1; then
        echo "ok   valgrind: no error, no leak (graph compare, .vis.db and page)"
    else
        echo "FAIL valgrind (log: $BUILD/valgrind_graph.log)"
        tail -20 "$BUILD/valgrind_graph.log"
        fail=1
    fi
    # train_compare: event files (simple values and tensors, texts) and a
    # log against a band of two golden runs, with the xlsx step table and the page
    "$BUILD/tools/gen_train" --tb "$vout/train/a" --tags 6 --steps 150 --files 2 --text > /dev/null
    "$BUILD/tools/gen_train" --tb "$vout/train/b" --tags 6 --steps 150 --seed 2 --tensor --text > /dev/null
    "$BUILD/tools/gen_train" --log "$vout/train/c.log" --tags 6 --steps 150 --seed 3 > /dev/null
    valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite,indirect \
        "$BUILD/msprobe" train_compare -q -n "$vout/train/c.log" -b "$vout/train/a" -b "$vout/train/b" \
        --check 'lm loss:exact,rtol=0.05' --check 'grad-norm:rtol=0.05' --steps 2-140 -o "$vout/train_out" --html \
        --summary-json "$vout/train_out.json" > "$BUILD/valgrind_train.log" 2>&1
    vrc=$?
    # 3: a check fails (these runs differ); 9: valgrind found something
    if [ $vrc = 0 ] || [ $vrc = 3 ]; then
        echo "ok   valgrind: no error, no leak (train_compare, event files and a log, a band, xlsx and page)"
    else
        echo "FAIL valgrind (log: $BUILD/valgrind_train.log)"
        tail -20 "$BUILD/valgrind_train.log"
        fail=1
    fi
    rm -rf "$vout"
fi

# The status line on a pseudo-terminal (plain builds only: it checks
# timing, which the sanitizers' slowdown would blur).
if [ "${BUILD#build-asan}" = "$BUILD" ]; then
    pass progress_tty "tests/progress_tty.sh ($BUILD)"
    sh tests/progress_tty.sh "$BUILD" || fail=1
fi

pass_summary "$BUILD"

if [ $fail -ne 0 ]; then
    echo "TESTS FAILED ($BUILD)"
    exit 1
fi
echo "all tests passed ($BUILD)"
