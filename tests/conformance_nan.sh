#!/bin/sh
# Conformance of nan_analyze against msprobe 8.1.0's own results in
# ../shared/corpus: every "nan_analyze -i IN -o OUT" line of a case's
# commands.txt is run again the same way (from the case directory), and our
# anomaly_analyze_*.json must equal msprobe's as data (NaN and Infinity
# included); where msprobe wrote none, we must write none and say so.
# Byte-for-byte equality is reported too. The scene classifier behind --all
# is checked against msprobe's `graph -oc` builds of the same dumps.
# Skipped, and said so, when the corpus is not there.
set -u
BUILD=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
BIN="$top/$BUILD/msprobe"
CORPUS=${CORPUS:-$top/../shared/corpus}
if [ ! -d "$CORPUS" ]; then
    echo "SKIPPED: nan_analyze conformance test (no corpus at $CORPUS)"
    exit 0
fi
PY=$(command -v python3 || true)
if [ -z "$PY" ]; then
    echo "SKIPPED: nan_analyze conformance test (python3 not installed)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/same.py" <<'PY'
import json, sys
def load(p):
    with open(p) as f:
        return json.load(f, parse_constant=lambda c: {"<constant>": c})
a, b = load(sys.argv[1]), load(sys.argv[2])
if a != b:
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            print("     differs under %s" % k)
    sys.exit(1)
PY
fail=0 runs=0
for case_dir in "$CORPUS"/*/; do
    case_dir=${case_dir%/}
    [ -f "$case_dir/commands.txt" ] || continue
    # "... nan_analyze -i IN -o OUT" (the rc recorded before the colon)
    sed -n 's/^ *NAN_ANALYZE .*rc=\([0-9]*\) *: .*nan_analyze -i \([^ ]*\) -o \([^ ]*\).*/\1 \2 \3/p' \
        "$case_dir/commands.txt" > "$tmp/runs"
    while read -r rc in out; do
        [ -d "$case_dir/$in" ] || continue
        runs=$((runs + 1))
        name="$(basename "$case_dir")/$(basename "$out")"
        ours="$tmp/$runs"
        (cd "$case_dir" && "$BIN" nan_analyze -i "$in" -o "$ours") > "$tmp/stdout" 2> "$tmp/stderr"
        got=$?
        want=$(find "$case_dir/$out" -maxdepth 1 -name "anomaly_analyze_*.json" 2>/dev/null | head -1)
        mine=$(find "$ours" -maxdepth 1 -name "anomaly_analyze_*.json" 2>/dev/null | head -1)
        if [ "$got" != "$rc" ]; then
            echo "FAIL $name: exit $got, msprobe's $rc"
            sed 's/^/     | /' "$tmp/stderr" | head -5
            fail=1
        elif [ -z "$want" ]; then
            if [ -n "$mine" ] || ! grep -q '^no NaN/Inf node found' "$tmp/stdout"; then
                echo "FAIL $name: msprobe found nothing; we wrote ${mine:-no file} and said: $(cat "$tmp/stdout")"
                fail=1
            else
                echo "ok   $name: nothing found, no file (as msprobe)"
            fi
        elif [ -z "$mine" ]; then
            echo "FAIL $name: msprobe wrote $(basename "$want"), we wrote nothing: $(cat "$tmp/stdout")"
            fail=1
        elif ! "$PY" "$tmp/same.py" "$want" "$mine"; then
            echo "FAIL $name: our $(basename "$mine") differs from msprobe's $(basename "$want")"
            fail=1
        elif cmp -s "$want" "$mine"; then
            echo "ok   $name: equal to msprobe's, byte for byte ($(sed 's/ (inputs.*//' "$tmp/stdout"))"
        else
            echo "ok   $name: equal to msprobe's as data ($(sed 's/ (inputs.*//' "$tmp/stdout"))"
        fi
    done < "$tmp/runs"
done
# The scenes of --all (model/overflow) against the overflow levels msprobe's
# `graph -oc` gave the nodes of a build of the same step: the same APIs, the
# same levels.
cat > "$tmp/levels.py" <<'PY'
import glob, json, os, sys
ours_file, vis_dir = sys.argv[1], sys.argv[2]
const = lambda c: c
ours = json.load(open(ours_file), parse_constant=const).get("anomalies", {})
bad = n = 0
for vis in sorted(glob.glob(os.path.join(vis_dir, "build_rank*.vis"))):
    rank = os.path.basename(vis).split("_")[1][4:]
    nodes = json.load(open(vis), parse_constant=const)["node"]
    theirs = {k: v["data"]["overflow_level"] for k, v in nodes.items() if v.get("data", {}).get("overflow_level")}
    mine = {a["op_name"]: a["level"] for a in ours.get("rank_" + rank, [])}
    n += len(theirs)
    if theirs != mine:
        bad = 1
        print("     rank %s: graph marks %d, we list %d; differing: %s" % (rank, len(theirs), len(mine),
              sorted(k for k in set(theirs) | set(mine) if theirs.get(k) != mine.get(k))[:5]))
print(n)
sys.exit(bad)
PY
for vis_dir in "$CORPUS"/*/expected/graph/*_oc/; do
    vis_dir=${vis_dir%/}
    ls "$vis_dir"/build_rank*.vis > /dev/null 2>&1 || continue
    case_dir=${vis_dir%/expected/graph/*}
    in=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1])).get("npu_path", ""))' "$vis_dir/input.json")
    [ -d "$case_dir/$in" ] || continue
    runs=$((runs + 1))
    name="$(basename "$case_dir")/graph/$(basename "$vis_dir")"
    ours="$tmp/$runs"
    if ! (cd "$case_dir" && "$BIN" nan_analyze -q --all -i "$in" -o "$ours"); then
        echo "FAIL $name: nan_analyze --all failed"
        fail=1
    elif levels=$("$PY" "$tmp/levels.py" "$ours"/anomaly_analyze_*.json "$vis_dir"); then
        echo "ok   $name: --all lists the $levels nodes graph -oc marks, with its levels"
    else
        printf '%s\n' "$levels" | sed '$d'
        echo "FAIL $name: --all's scenes differ from graph -oc's overflow levels"
        fail=1
    fi
done
if [ "$runs" = 0 ]; then
    echo "SKIPPED: nan_analyze conformance test (no nan_analyze runs in $CORPUS)"
    exit 0
fi
echo "nan_analyze conformance: $runs runs"
exit $fail
