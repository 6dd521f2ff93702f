#!/bin/sh
# The train_compare page in a browser: pages written by `msprobe
# train_compare --html` opened in headless Chromium (Debian's chromium) and
# used through the DevTools protocol by tests/browser_train.py -- every
# metric's chart, the steps out of tolerance marked, the log scale toggle,
# the values under the pointer -- any console error failing the test. On
# the corpus' toy runs (one golden, and three golden runs as a band) when
# ../shared is there, on tests' generated runs otherwise. Skipped, and said
# so, without chromium or python3.
#
#   tests/browser_train.sh BUILD [SCREENSHOT.png]
set -u
BROWSER_TEST="train_compare page browser test"
BROWSER_DRIVER=browser_train.py
# shellcheck source=tests/browser_common.sh disable=SC2034
. "$(dirname "$0")/browser_common.sh"
compare() {   # compare OUT ARGS...: exit 3 (a check fails) is what these pairs give
    out=$1
    shift
    "$BIN" train_compare -q "$@" -o "$out" --html
    rc=$?
    [ $rc -eq 3 ] || { echo "FAIL train_compare $* exited $rc, not 3"; fail=1; }
    find "$out" -name '*.html' | head -1
}
if [ -d "$CORPUS/train/tensorboard/runs" ]; then
    R=$CORPUS/train/tensorboard/runs
    p=$(compare "$tmp/one" -n "$R/lr20/megatron" -b "$R/base/megatron" --model-config \
        "$CORPUS/train/tensorboard/expected/configs/perf_model_config.yaml")
    drive "$p" --min-failing 100 ${SHOT:+--screenshot "$SHOT"}
    p=$(compare "$tmp/band" -n "$R/lr20/mindformers" -b "$R/base/mindformers" -b "$R/repeat/mindformers" \
        -b "$R/seed2/mindformers" --check 'loss:exact,rtol=0.05' --check 'grad-norm:rtol=0.05' \
        --check 'local_norm/*:rtol=0.1')
    drive "$p" --min-failing 50
else
    "$top/$BUILD/tools/gen_train" --tb "$tmp/gen/a" --tags 8 --steps 200 --files 2 --seed 1 > /dev/null || fail=1
    "$top/$BUILD/tools/gen_train" --tb "$tmp/gen/b" --tags 8 --steps 200 --files 1 --seed 2 --drift 0.2 \
        > /dev/null || fail=1
    p=$(compare "$tmp/gen/out" -n "$tmp/gen/b" -b "$tmp/gen/a" --check 'lm loss:exact,rtol=0.05' \
        --check 'grad-norm:rtol=0.05')
    drive "$p" --min-failing 1 ${SHOT:+--screenshot "$SHOT"}
fi
exit $fail
