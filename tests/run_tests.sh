#!/bin/sh
# Runs the whole test suite against one build tree (build/ or build-asan/):
# every cmocka unit test, the CLI behaviour tests, and the conformance test
# against ../shared/corpus when that directory exists.
set -u
BUILD=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
fail=0

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

echo "== unit tests ($BUILD)"
for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    case "$t" in *.d) continue ;; esac
    if "$t" >"$BUILD/$(basename "$t").log" 2>&1; then
        echo "ok   $(basename "$t")"
    else
        echo "FAIL $(basename "$t") (log: $BUILD/$(basename "$t").log)"
        tail -20 "$BUILD/$(basename "$t").log"
        fail=1
    fi
done

for s in tests/cli/run.sh tests/conformance.sh; do
    [ -f "$s" ] || continue
    echo "== $s ($BUILD)"
    sh "$s" "$BUILD" || fail=1
done

if [ $fail -ne 0 ]; then
    echo "TESTS FAILED ($BUILD)"
    exit 1
fi
echo "all tests passed ($BUILD)"
