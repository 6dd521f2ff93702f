#!/bin/sh
# Conformance against the newest msprobe's own results in
# ../shared/corpus/*/expected/newest_compare: every command of its
# commands.txt ("msprobe compare -tp ... -gp ... -o ... [--xlsx]") is run
# again with our binary on the same layout (each case's step*/rank dumps
# copied to newest_layout/<target|bench>/<mode>/step*/proc1001|proc2002, as
# the corpus README says), and the result must be the same file: the same
# name but for the time stamp, nothing else written, every cell equal
# (tests/conformance_newest.py; numbers within RTOL). Skipped, and said so,
# when the corpus is not there.
set -u
CONFORMANCE_TEST="newest-dialect conformance test"
# shellcheck source=tests/conformance_common.sh
. "$(dirname "$0")/conformance_common.sh"

# newest_layout/<side>/<mode>/<step>/<proc> from <side>/<mode>/<step>/rank
layout() {
    case_dir=$1 dest=$2 path=$3
    side=$(echo "$path" | cut -d/ -f2) mode=$(echo "$path" | cut -d/ -f3) step=$(echo "$path" | cut -d/ -f4)
    proc=proc1001
    [ "$side" = bench ] && proc=proc2002
    [ -d "$dest/$path/$proc" ] && return 0
    mkdir -p "$dest/$path" && cp -r "$case_dir/$side/$mode/$step/rank" "$dest/$path/$proc"
}

for case_dir in "$CORPUS"/*/; do
    case_dir=${case_dir%/}
    cmds=$case_dir/expected/newest_compare/commands.txt
    [ -f "$cmds" ] || continue
    name=$(basename "$case_dir")
    work=$tmp/$name
    mkdir -p "$work"
    while IFS= read -r line; do
        case "$line" in NEWEST_COMPARE*) ;; *) continue ;; esac
        run=$(echo "$line" | cut -d' ' -f2)
        args=${line#*: msprobe compare }
        tp=$(echo "$args" | sed -n 's/.*-tp \([^ ]*\).*/\1/p')
        gp=$(echo "$args" | sed -n 's/.*-gp \([^ ]*\).*/\1/p')
        if ! layout "$case_dir" "$work" "$tp" || ! layout "$case_dir" "$work" "$gp"; then
            echo "FAIL $name/$run: cannot lay out $tp and $gp"
            fail=1
            continue
        fi
        out="out/$run"
        # shellcheck disable=SC2086
        set -- $(echo "$args" | sed "s|-o expected/newest_compare/$run|-o $out|")
        runs=$((runs + 1))
        if ! (cd "$work" && "$BIN" compare -q "$@"); then
            echo "FAIL $name/$run: compare exited with an error"
            fail=1
            continue
        fi
        expected=$(ls "$case_dir/expected/newest_compare/$run"/*compare_result* 2>/dev/null | head -1)
        ours=$(ls "$work/$out" 2>/dev/null)
        want=$(basename "$expected" | sed 's/_[0-9]\{14\}\././')
        got=$(echo "$ours" | sed 's/_[0-9]\{14\}\././')
        if [ "$(echo "$ours" | wc -l)" != 1 ] || [ "$got" != "$want" ]; then
            echo "FAIL $name/$run: wrote $(echo "$ours" | tr '\n' ' '), expected one file like $(basename "$expected")"
            fail=1
            continue
        fi
        if res=$("$PY" "$top/tests/conformance_newest.py" "$expected" "$work/$out/$ours" --rtol "$RTOL" --show 5 \
            --tool "$TOOL"); then
            echo "ok   $name/$run: $(echo "$res" | tail -1)"
        else
            echo "FAIL $name/$run:"
            echo "$res" | sed 's/^/     /'
            fail=1
        fi
    done < "$cmds"
done
echo "newest-dialect conformance: $runs compares checked"
exit $fail
