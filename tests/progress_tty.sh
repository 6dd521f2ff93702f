#!/bin/sh
# What a user sees on a terminal during a long compare, checked on a
# pseudo-terminal (script(1)) with generated dumps (tests/tools/gen_dump):
#   - a statistics compare shows its status line from the first second to
#     the last (loading, matching, writing, compressing the xlsx);
#   - two rank pairs compared at once share one line ("k/2 done");
#   - warnings start at column 0 while the line is shown, repeated ones are
#     capped with a total, the summary counts the unreadable tensors;
#   - each rank pair's result line comes when the pair is done;
#   - with pairs at once the slowest is named steadily, and once a pair is
#     done the line says how long is left;
#   - -q prints nothing on success, warnings included.
#
#   tests/progress_tty.sh BUILD      ENTRIES (default 30000) sizes the dumps
set -u
BUILD=${1:-build}
ENTRIES=${ENTRIES:-30000}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
BIN=$top/$BUILD/msprobe
GEN=$top/$BUILD/tools/gen_dump
if ! command -v script >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1 || [ ! -x "$GEN" ]; then
    echo "skip progress on a terminal (needs script, python3 and $GEN)"
    exit 0
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/msprobe-tty.XXXXXX")
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT

# statistics, two ranks; and a small tensor-mode pair
"$GEN" --out "$W/stat" --entries "$ENTRIES" --ranks 2 --layers 24 --seed 1 >/dev/null || exit 1
"$GEN" --out "$W/tens" --mode tensor --layers 2 --seed 1 >/dev/null || exit 1
# four smaller ranks, two at a time: the slowest named, the time left
"$GEN" --out "$W/stat4" --entries $((ENTRIES / 4)) --ranks 4 --layers 24 --seed 2 >/dev/null || exit 1
# a run of two pairs, one after the other (-j 1): the statistics pair first,
# so that the status line is up when the tensor pair, with 40 target tensor
# files missing, warns
for side in target bench; do
    mkdir -p "$W/mix/$side/step0"
    cp -r "$W/stat/$side/step0/rank1" "$W/mix/$side/step0/rank0"
    cp -r "$W/tens/$side/step0/rank" "$W/mix/$side/step0/rank1"
done
ls "$W/mix/target/step0/rank1/dump_tensor_data" | LC_ALL=C sort | head -40 |
    (cd "$W/mix/target/step0/rank1/dump_tensor_data" && xargs rm -f)

fail=0
check() {
    name=$1
    shift
    echo "$name"
    if python3 tests/tty_run.py "$@"; then
        echo "ok   $name"
    else
        echo "FAIL $name"
        fail=1
    fi
}

check "status line through a statistics compare (xlsx)" --through \
    -- "$BIN" compare -n "$W/stat/target/step0/rank0" -b "$W/stat/bench/step0/rank0" -o "$W/o1"
check "two rank pairs at once: one line" --through --jobs 2 --screen "total: 2 results" \
    -- "$BIN" compare -n "$W/stat/target/step0" -b "$W/stat/bench/step0" -o "$W/o2" -j 2
check "warnings at column 0, capped, counted" --jobs 2 --warnings 6 \
    --screen "... and 35 more tensor files missing" --screen "40 tensors unreadable" \
    -- "$BIN" compare -n "$W/mix/target/step0" -b "$W/mix/bench/step0" -o "$W/o3" -j 1
# four pairs, two at a time: a third starts when one of the first two is
# done, so the first result comes while the run still has work to draw
check "results as they finish; the slowest named steadily; the time left" --jobs 4 --steady 5 --eta \
    --before "rank0: " \
    -- "$BIN" compare -n "$W/stat4/target/step0" -b "$W/stat4/bench/step0" -o "$W/o5" -j 2
check "-q: nothing on success, warnings included" --silent \
    -- "$BIN" compare -q -n "$W/mix/target/step0" -b "$W/mix/bench/step0" -o "$W/o4" -j 1 --format csv
exit $fail
