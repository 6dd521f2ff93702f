#!/bin/sh
# Replays what the fuzzers found and the seed corpora through every
# harness of BUILD/fuzz/, built as plain replay drivers (no libFuzzer, no
# clang: make test builds them with the test build's compiler, under
# ASan/UBSan in build-asan/). Every kept finding of
# tests/fuzz/regress/<harness>/ must pass, and so must every seed
# (tests/fuzz/seeds.py). On a failure the inputs are replayed one by one to
# name the culprit.
set -u
BUILD=${1:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
F="$BUILD/fuzz"
python3 tests/fuzz/seeds.py "$F/seeds" > /dev/null || { echo "FAIL seeds"; exit 1; }
fail=0 n=0
for bin in "$F"/fz_*; do
    case $bin in *.d) continue ;; esac
    [ -x "$bin" ] || continue
    h=$(basename "$bin")
    dirs=""
    [ -d "tests/fuzz/regress/$h" ] && dirs="tests/fuzz/regress/$h"
    [ -d "$F/seeds/$h" ] && dirs="$dirs $F/seeds/$h"
    if [ -z "$dirs" ]; then
        echo "FAIL $h: no input to replay (keep a seed in tests/fuzz/seeds/$h/)"
        fail=1
        continue
    fi
    # shellcheck disable=SC2086
    if out=$("$bin" $dirs 2>&1); then
        k=$(printf '%s\n' "$out" | sed -n 's/^\([0-9]*\) inputs$/\1/p' | tail -1)
        n=$((n + ${k:-0}))
        printf 'ok   %-18s %s inputs\n' "$h" "${k:-?}"
    else
        fail=1
        echo "FAIL $h"
        # shellcheck disable=SC2086
        for f in $(find $dirs -type f | sort); do
            "$bin" "$f" > /dev/null 2>&1 || echo "     | fails on $f"
        done
        printf '%s\n' "$out" | grep -E 'ERROR|SUMMARY|^fz_|^fuzz:' | head -5 | sed 's/^/     | /'
    fi
done
echo "fuzz replay: $n inputs"
exit $fail
