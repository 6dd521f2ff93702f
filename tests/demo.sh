#!/bin/sh
# make demo: compare the example dumps of testdata/example (a 2-layer
# transformer step dumped on two ranks; the target run drifts from the
# bench run, as bf16 would), draw them as model trees (graph --html) and say
# where the results went.
set -eu
BUILD=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=${DEMO_OUT:-demo_output}
echo "comparing testdata/example/target/step0 (target) with testdata/example/bench/step0 (bench)"
"$BUILD/msprobe" compare -n testdata/example/target/step0 -b testdata/example/bench/step0 -o "$out" -s
echo
echo "drawing both runs as model trees side by side (msprobe graph, with a page for any browser)"
"$BUILD/msprobe" graph -tp testdata/example/target/step0 -gp testdata/example/bench/step0 -o "$out" --html
echo
echo "results are in $top/$out/:"
ls -l "$out"
echo
echo "open the xlsx in a spreadsheet program, or read the advisor file, e.g.:"
echo "  cat $out/$(cd "$out" && ls -t advisor_rank0_*.txt | head -1)"
echo "and open the page of rank 0 in a browser: $(cd "$out" && pwd)/$(cd "$out" && ls -t compare_rank0_*.html | head -1)"
