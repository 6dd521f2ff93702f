#!/bin/sh
# Conformance of graph against msprobe's own runs in ../shared/corpus: every
# "msprobe -f pytorch graph" line of a case's expected/graph/commands.txt is
# run again the same way (from the case directory) and each .vis must equal
# msprobe 8.1.0's as data -- the same keys in the same order, the same
# values and number types -- but for the fixes the README lists (applied to
# msprobe's side by tests/conformance_graph.py); msprobe's failures must be
# ours too (non-zero status, one line, nothing written). Then every .vis.db of
# expected/graph_newest (the newest msprobe) against ours in schema and
# structure (tests/conformance_graph_db.py). The same for the cases of
# testdata/graph_rules, rules the corpus does not show. Skipped, and said
# so, when the corpus or python3 is not there.
set -u
BUILD=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=${CORPUS:-$top/../shared/corpus}
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIPPED: graph conformance test (python3 not installed)"
    exit 0
fi
fail=0
# the rules the corpus does not show, on dumps made for them
# (tests/make_graph_rules.py) with msprobe's own output beside them
RULES=$top/testdata/graph_rules
python3 "$top/tests/conformance_graph.py" "$top/$BUILD/msprobe" "$RULES" || fail=1
python3 "$top/tests/conformance_graph_db.py" "$top/$BUILD/msprobe" "$RULES" || fail=1
if [ ! -d "$CORPUS" ]; then
    echo "SKIPPED: graph conformance test on the corpus (no corpus at $CORPUS)"
    exit $fail
fi
python3 "$top/tests/conformance_graph.py" "$top/$BUILD/msprobe" "$CORPUS" || fail=1
python3 "$top/tests/conformance_graph_db.py" "$top/$BUILD/msprobe" "$CORPUS" || fail=1
exit $fail
