#!/bin/sh
# The graph page in a browser: pages written by `msprobe graph --html` and
# `msprobe graph view` opened in headless Chromium (Debian's chromium) and
# used through the DevTools protocol by tests/browser_graph.py -- a module
# expanded, a name searched, a matched node clicked and the other run's tree
# following it, a communication node's link to its rank's page; on the
# example of `make demo`, the layout and colour cues (--layout) -- with any
# console error failing the test; the largest .vis of ../shared/corpus (as
# msprobe wrote it) must open in under 2 s of Chromium's CPU time (the clock
# would measure the machine's load too). Without the corpus, a generated
# pair. Skipped, and said so, without chromium or python3.
#
#   tests/browser_graph.sh BUILD [SCREENSHOT.png]   (the README's picture:
#                                                     docs/graph_page.png)
set -u
BROWSER_TEST="graph page browser test"
BROWSER_DRIVER=browser_graph.py
# shellcheck source=tests/browser_common.sh disable=SC2034
. "$(dirname "$0")/browser_common.sh"
page() {    # page DIR PATTERN: the one page of DIR
    find "$1" -name "$2" | head -1
}
# the example `make demo` draws, in a 1400x900 window: the panes keep half
# the width each whatever is selected, the legend entries are toggles, a
# closed module holding yellow or red nodes is ringed with their count, a
# collection is filled by its index (--layout); the README's picture
"$BIN" graph -q -tp "$top/testdata/example/target/step0" -gp "$top/testdata/example/bench/step0" \
    -o "$tmp/demo" --html || fail=1
drive "$(page "$tmp/demo" 'compare_rank0_*.html')" --window 1400x900 --layout --search getitem \
    ${SHOT:+--screenshot "$SHOT"}
if [ -d "$CORPUS/mix" ]; then
    (cd "$CORPUS/mix" && "$BIN" graph -q -tp target/statistics/step0/rank -gp bench/statistics/step0/rank \
        -o "$tmp/mix" --html -oc) || fail=1
    drive "$(page "$tmp/mix" '*.html')" --search conv2d
    (cd "$CORPUS/mix" && "$BIN" graph -q -tp target/statistics/step0/rank -o "$tmp/build" --html) || fail=1
    drive "$(page "$tmp/build" '*.html')" --search relu
    (cd "$CORPUS/nan4" && "$BIN" graph -q -tp fwd_inf_r2_mix/statistics/step0 -gp clean_mix/statistics/step0 \
        -o "$tmp/nan4" --html -oc) || fail=1
    drive "$(page "$tmp/nan4" 'compare_rank2_*.html')" --search exp
    # the largest .vis msprobe wrote, through graph view
    big=$(ls -S "$CORPUS"/*/expected/graph/*/*.vis | head -1)
    "$BIN" graph view -q "$big" -o "$tmp/big.html" || fail=1
    drive "$tmp/big.html" --expect-open-s 2 --search forward
else
    "$top/$BUILD/tools/gen_graph" --out "$tmp/gen" --blocks 200 || fail=1
    "$BIN" graph -q -tp "$tmp/gen/target" -gp "$tmp/gen/bench" -o "$tmp/gen/out" --html || fail=1
    drive "$(page "$tmp/gen/out" '*.html')" --expect-open-s 2 --search linear.1
fi
exit $fail
