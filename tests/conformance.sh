#!/bin/sh
# Conformance against msprobe 8.1.0's own results in ../shared/corpus: for
# every statistics and md5 compare recorded there, run our compare the way
# msprobe was run (same compare.json, same flags, from the case directory)
# and check every cell and row highlight with ../shared/tools/conformance.py.
# Skipped, and said so, when the corpus is not there.
set -u
CONFORMANCE_TEST="conformance test"
# shellcheck source=tests/conformance_common.sh
. "$(dirname "$0")/conformance_common.sh"
# run directory name -> compare flags (see the corpus README)
flags_for() {
    case "$1" in
    plain|out) echo "" ;;
    stack_s) echo "-s" ;;
    fuzzy_f) echo "-f" ;;
    fuzzy_f_stack_s) echo "-f -s" ;;
    *) echo "UNSUPPORTED" ;;
    esac
}
for case_dir in "$CORPUS"/*/; do
    case_dir=${case_dir%/}
    for run in "$case_dir"/expected/*/step*/*/; do
        run=${run%/}
        name=$(basename "$run")
        mode_dir=$(basename "$(dirname "$(dirname "$run")")")
        case "$mode_dir" in statistics*|md5*|tensor*) ;; *) continue ;; esac
        flags=$(flags_for "$name")
        [ "$flags" = UNSUPPORTED ] && continue
        # msprobe 8.1.0's -f is broken in statistics and md5 mode (columns
        # shifted, every row unmatched; spec §4.4): only its tensor-mode
        # fuzzy output is a reference
        case "$name:$mode_dir" in fuzzy*:statistics*|fuzzy*:md5*) continue ;; esac
        for expected in "$run"/*compare_result*.xlsx; do
            [ -f "$expected" ] || continue
            out="$tmp/$runs"
            runs=$((runs + 1))
            rel=${run#"$CORPUS"/}
            # shellcheck disable=SC2086
            # --compat: the 0-d tensor message 16 times, as 8.1.0 writes it
            if ! (cd "$case_dir" && "$BIN" compare -q --compat -i "$(dirname "$run")/compare.json" -o "$out" $flags); then
                echo "FAIL $rel: compare exited with an error"
                fail=1
                continue
            fi
            ours=$(ls "$out"/*compare_result*.xlsx 2>/dev/null | head -1)
            if [ -z "$ours" ]; then
                echo "FAIL $rel: no result written"
                fail=1
                continue
            fi
            if res=$("$PY" "$TOOL" "$expected" "$ours" --rtol "$RTOL" --show 5); then
                echo "ok   $rel: $(echo "$res" | tail -1)"
            else
                echo "FAIL $rel:"
                echo "$res" | sed 's/^/     /'
                fail=1
            fi
        done
    done
done
echo "conformance: $runs compares checked"
exit $fail
