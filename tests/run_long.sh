#!/bin/sh
# What `make test` leaves out because it is slow for what it adds to every
# run (make check-long; each pass prints its duration):
#   - the catalogue of hostile files (tests/cli/catalogue_cases.txt) under
#     valgrind, every case (make test runs it under ASan+UBSan, and three
#     whole runs under valgrind);
#   - test_metrics_kern at 10^8 elements (make test: 2^23, past the
#     2^22-element pieces);
#   - the truncation stress in full: 100 compares of a 128 MiB tensor
#     (make test: 20 of 32 MiB);
#   - a throw-away subcommand added by the recipe (tests/new_command.sh);
#   - the libFuzzer run, FUZZ_SECONDS per harness (make fuzz; make test
#     replays every harness over its seeds and kept findings), when clang
#     is installed.
#
#   tests/run_long.sh BUILD      (a plain build: valgrind cannot run ASan binaries)
set -u
BUILD=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
fail=0
. tests/pass_time.sh

if command -v valgrind > /dev/null 2>&1; then
    pass valgrind_catalogue "the catalogue of hostile files under valgrind ($BUILD)"
    # an error or a definite leak exits 9, not 2
    CLI_CASES=tests/cli/catalogue_cases.txt \
        CLI_WRAP="valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite,indirect" \
        sh tests/cli/run.sh "$BUILD" > "$BUILD/valgrind_catalogue.log" 2>&1
    if [ $? -eq 0 ]; then
        echo "ok   valgrind: $(tail -1 "$BUILD/valgrind_catalogue.log")"
    else
        echo "FAIL valgrind catalogue (log: $BUILD/valgrind_catalogue.log)"
        grep -A3 '^FAIL' "$BUILD/valgrind_catalogue.log" | head -40
        fail=1
    fi
else
    echo "== the catalogue under valgrind skipped: no valgrind (deps.sh installs it)"
fi

pass metrics_kern "test_metrics_kern at 10^8 elements ($BUILD)"
if MSPROBE_TEST_BIG=100000000 "$BUILD/tests/test_metrics_kern" > "$BUILD/test_metrics_kern_long.log" 2>&1; then
    echo "ok   test_metrics_kern, 10^8 elements"
else
    echo "FAIL test_metrics_kern (log: $BUILD/test_metrics_kern_long.log)"
    tail -20 "$BUILD/test_metrics_kern_long.log"
    fail=1
fi

pass truncate "tests/stress/truncate.sh ($BUILD, 100 runs of 128 MiB)"
if out=$(sh tests/stress/truncate.sh "$BUILD" 100 128 2>&1); then
    echo "ok   $(printf '%s\n' "$out" | tail -1)"
else
    printf '%s\n' "$out" | tail -20
    fail=1
fi

pass new_command "tests/new_command.sh ($BUILD)"
sh tests/new_command.sh "$BUILD" || fail=1

if command -v clang > /dev/null 2>&1; then
    pass fuzz "make fuzz (libFuzzer, ${FUZZ_SECONDS:-10} s per harness, with its build)"
    make --no-print-directory fuzz || fail=1
else
    echo "== make fuzz skipped: no clang on this machine (deps.sh installs it)"
fi

pass_summary "check-long, $BUILD"
if [ $fail -ne 0 ]; then
    echo "LONG TESTS FAILED ($BUILD)"
    exit 1
fi
echo "all long tests passed ($BUILD)"
