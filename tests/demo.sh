#!/bin/sh
# make demo: compare the example dumps of testdata/example (a 2-layer
# transformer step dumped on two ranks; the target run drifts from the
# bench run, as bf16 would), draw them as model trees (graph --html) and say
# where the results went: the files of this run, not those of earlier ones.
set -eu
BUILD=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=${DEMO_OUT:-demo_output}
mkdir -p "$out"
before=$(mktemp "${TMPDIR:-/tmp}/msprobe-demo.XXXXXX")
trap 'rm -f "$before"' EXIT
LC_ALL=C ls -A "$out" > "$before"
echo "comparing testdata/example/target/step0 (target) with testdata/example/bench/step0 (bench)"
"$BUILD/msprobe" compare -n testdata/example/target/step0 -b testdata/example/bench/step0 -o "$out" -s
echo
echo "drawing both runs as model trees side by side (msprobe graph, with a page for any browser)"
"$BUILD/msprobe" graph -tp testdata/example/target/step0 -gp testdata/example/bench/step0 -o "$out" --html
echo
# the names this run added (a run never replaces a file: every name is new)
new=$(LC_ALL=C ls -A "$out" | LC_ALL=C comm -13 "$before" -)
echo "this run's results, in $(cd "$out" && pwd)/:"
(cd "$out" && ls -l $new)
echo
advisor=$(printf '%s\n' $new | grep '^advisor_rank0_' | head -1)
page=$(printf '%s\n' $new | grep '^compare_rank0_.*\.html$' | head -1)
echo "open the xlsx in a spreadsheet program, or read the advisor file, e.g.:"
echo "  cat $out/$advisor"
echo "and open the page of rank 0 in a browser: $(cd "$out" && pwd)/$page"
echo
echo "The program is $BUILD/msprobe; to type 'msprobe' as the README does, put it on your PATH:"
echo "  make install PREFIX=\$HOME/.local     # then \$HOME/.local/bin/msprobe (add that directory to PATH)"
echo "  export PATH=\"$top/$BUILD:\$PATH\"      # or use it where it is"
