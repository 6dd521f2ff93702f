#!/bin/sh
# Runs the CLI behaviour tests of tests/cli/cases.txt and every
# tests/cli/*_cases.txt
# against BUILD/msprobe.
set -u
BUILD=${1:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
BIN="$top/$BUILD/msprobe"
T=testdata
W=$(mktemp -d "${TMPDIR:-/tmp}/msprobe-cli.XXXXXX")
trap 'rm -rf "$W"' EXIT
F="$W/fix"
mkdir -p "$F"

# ---- fixtures that are wrong on purpose (made here, not checked in) ----
feat_t=$T/features/target/step0/rank0
feat_b=$T/features/bench/step0/rank0
put() { mkdir -p "$F/$1" && printf '%s' "$2" > "$F/$1/dump.json"; }
mkdir -p "$F/trunc" && head -c 3000 "$feat_t/dump.json" > "$F/trunc/dump.json"
put malformed '{"task": "statistics", "data": {"a": [1, 2,]}}'
put empty ''
put notobj '[1, 2]'
put datanotobj '{"task": "statistics", "data": [1]}'
put nodata '{"task": "statistics"}'
put entrynotobj '{"task": "statistics", "data": {"Functional.a.0.forward": [1]}}'
put shape '{"task": "statistics", "data": {"Functional.a.0.forward": {"input_args": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": 4}]}}}'
put reqgrad '{"task": "statistics", "data": {"Functional.a.0.forward": {"input_args": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [4], "requires_grad": "yes"}]}}}'
put badname '{"task": "statistics", "data": {"=cmd.a.0.forward": {"input_args": []}}}'
put deep '{"task": "statistics", "data": {"Functional.a.0.forward": {"input_args": [[[[[[[[[[[[1]]]]]]]]]]]]}}}'
put nodirection '{"task": "statistics", "data": {"Functional.a.0": {"input_args": [{"type": "int", "value": 1}]}}}'
put tensor '{"task": "tensor", "data": {}}'
put notask '{"data": {}}'
mkdir -p "$F/debug" && printf '{"task": "statistics", "data": {}}' > "$F/debug/debug.json"
mkdir -p "$F/link" && ln -s "$top/$feat_t/dump.json" "$F/link/dump.json"
ln -s "$top/$feat_t" "$F/linkdir"
mkdir -p "$F/nodump" && cp "$feat_t/stack.json" "$F/nodump/"
mkdir -p "$F/nostack" && cp "$feat_t/dump.json" "$F/nostack/"
mkdir -p "$F/badstack" && cp "$feat_t/dump.json" "$F/badstack/" &&
    printf '{"Functional.linear.0.forward": "oops"}' > "$F/badstack/stack.json"
for r in rank0 rank1; do
    mkdir -p "$F/step_t/$r" "$F/step_b/$r"
    cp "$feat_t"/*.json "$F/step_t/$r/"
    cp "$feat_b"/*.json "$F/step_b/$r/"
done
mkdir -p "$F/step_one/rank0" && cp "$feat_b"/*.json "$F/step_one/rank0/"
mkdir -p "$F/stray/rank0" && cp "$feat_t"/*.json "$F/stray/rank0/" && echo x > "$F/stray/notes.txt"
for s in step0 step1; do
    mkdir -p "$F/root_t" "$F/root_b"
    cp -r "$F/step_t" "$F/root_t/$s"
    cp -r "$F/step_b" "$F/root_b/$s"
done
mkdir -p "$F/root_one" && cp -r "$F/step_b" "$F/root_one/step0"
printf '{"npu_path": "%s/dump.json", "bench_path": "%s/dump.json"}' "$feat_t" "$feat_b" > "$F/compare_autostack.json"
printf '{"npu_path": "%s/dump.json", "bench_path": "%s/dump.json", "stack_path": "%s/stack.json", "is_print_compare_log": true}' \
    "$feat_t" "$feat_b" "$feat_t" > "$F/compare_stack_path.json"
printf '{"bench_path": "%s/dump.json"}' "$feat_b" > "$F/compare_no_npu.json"
printf '{"npu_path": "%s/dump.json", "bench_path": "%s/dump.json", "is_print_compare_log": "yes"}' "$feat_t" "$feat_b" \
    > "$F/compare_log_flag.json"
printf '{"npu_path": "%s", "bench_path": "%s", "rank_id": [0]}' "$feat_t" "$feat_b" > "$F/compare_rank_id.json"
ln -s "$BIN" "$W/msprobe-compare"
# every *_fixtures.sh makes the fixtures of its *_cases.txt
for fx in tests/cli/*_fixtures.sh; do
    # shellcheck disable=SC1090
    . "$fx"
done
# CLI_CASES: only these case files (the catalogue under valgrind, say)
# shellcheck disable=SC2086
cat ${CLI_CASES:-tests/cli/cases.txt tests/cli/*_cases.txt} > "$W/cases"

# Every run goes through peakrss (tests/tools), which records its peak
# memory: a run refusing its input (exit 2) must stay under CLI_PEAK_MB
# (default 200), checked in plain builds (the sanitizers' shadow memory
# and valgrind blur it). CLI_WRAP runs the binary under a tool (valgrind).
PEAK="$top/$BUILD/tools/peakrss"
[ -x "$PEAK" ] || PEAK=""
case "$BUILD" in build-asan*|build-clang*) check_peak=0 ;; *) check_peak=1 ;; esac
[ -n "${CLI_WRAP:-}" ] && check_peak=0
PEAK_MB=${CLI_PEAK_MB:-200}
# "nobody:" runs as an unprivileged user: root reads and writes anything,
# so unreadable inputs and unwritable outputs need one (setpriv, else the
# case is skipped, and said so)
as_nobody=""
if [ "$(id -u)" = 0 ]; then
    if command -v setpriv > /dev/null 2>&1 && id nobody > /dev/null 2>&1; then
        as_nobody="setpriv --reuid=$(id -u nobody) --regid=$(id -g nobody) --clear-groups --"
    else
        as_nobody=skip
    fi
fi
# nobody runs a copy of the binary in $W: the tree itself may sit in a home
# directory other users cannot enter (exit 126 otherwise); a copy it still
# cannot run (a mount without exec) skips those cases, saying so
nobody_why="needs setpriv to run as nobody (tests run as root)"
if [ -n "$as_nobody" ] && [ "$as_nobody" != skip ]; then
    mkdir -p "$W/nobody" && cp "$BIN" "$W/nobody/msprobe" && chmod 755 "$W/nobody" "$W/nobody/msprobe"
    # shellcheck disable=SC2086
    if ! $as_nobody "$W/nobody/msprobe" --version > /dev/null 2>&1; then
        as_nobody=skip
        nobody_why="the user nobody cannot run a copy of the binary in $W"
    fi
fi
skipped=0

fail=0 n=0
# trim VAR...: the spaces around each variable's value go, without a fork
# (four fields a case, hundreds of cases, in every build)
trim() {
    for _v in "$@"; do
        eval "_t=\$$_v"
        _t=${_t#"${_t%%[! ]*}"}
        _t=${_t%"${_t##*[! ]}"}
        eval "$_v=\$_t"
    done
}
while IFS='|' read -r name code errtext golden args; do
    case "$name" in '#'*|'') continue ;; esac
    trim name code errtext golden
    n=$((n + 1))
    O="$W/out$n"
    args=$(eval "printf '%s' \"$args\"")
    prog="$BIN"
    case "$args" in " @"*|"@"*) trim args; args=${args#@}; prog="$W/${args%% *}"; args=${args#* } ;; esac
    # Prefixes, in any order:
    # "fsize:BLOCKS ARGS": files may not grow past BLOCKS * 512 bytes, as on
    # a full disk (writes fail with EFBIG instead of killing the process);
    # "xfsz:BLOCKS ARGS" the same with SIGXFSZ left at its default action,
    # which msprobe itself must ignore;
    # "term:GLOB ARGS": SIGTERM as soon as a file named GLOB shows in $O
    # (a temporary output being written); exit 143 expected, and nothing
    # may be left in $O;
    # "nobody: ARGS": run as the user nobody (see above);
    # "mkout: ARGS": $O exists (empty) before the run, for commands that
    # write into an existing directory (graph view -o $O/page.html); a
    # failed run must leave it empty
    fsize=unlimited xfsz=ignore term="" user="" mkout=""
    while :; do
        trim args
        case "$args" in
        fsize:*) args=${args#fsize:}; fsize=${args%% *}; args=${args#* } ;;
        xfsz:*) args=${args#xfsz:}; fsize=${args%% *}; args=${args#* }; xfsz=default ;;
        term:*) args=${args#term:}; term=${args%% *}; args=${args#* } ;;
        nobody:*) args=${args#nobody:}; user=nobody ;;
        mkout:*) args=${args#mkout:}; mkout=1 ;;
        *) break ;;
        esac
    done
    wrap=""
    if [ "$user" = nobody ]; then
        if [ "$as_nobody" = skip ]; then
            echo "skip $name: $nobody_why"
            skipped=$((skipped + 1))
            continue
        fi
        wrap="$as_nobody"
        [ -n "$as_nobody" ] && [ "$prog" = "$BIN" ] && prog="$W/nobody/msprobe"
    fi
    [ -n "${CLI_WRAP:-}" ] && wrap="$wrap $CLI_WRAP"
    # (not around a run to be interrupted: the signal goes to msprobe itself)
    [ -n "$PEAK" ] && [ -z "$term" ] && wrap="$PEAK $W/peak $wrap"
    rm -f "$W/peak"
    [ -n "$mkout" ] && mkdir -p "$O"
    if [ -n "$term" ]; then
        # shellcheck disable=SC2086
        $wrap "$prog" $args > "$W/stdout" 2> "$W/stderr" &
        pid=$!
        while kill -0 "$pid" 2>/dev/null && [ -z "$(find "$O" -name "$term" 2>/dev/null)" ]; do :; done
        kill -TERM "$pid" 2>/dev/null
        { wait "$pid"; } 2>/dev/null
        rc=$?
    elif [ "$xfsz" = default ]; then
        # shellcheck disable=SC2086
        (trap - XFSZ; ulimit -f "$fsize"; exec $wrap "$prog" $args) > "$W/stdout" 2> "$W/stderr"
        rc=$?
    else
        # shellcheck disable=SC2086
        (trap '' XFSZ; ulimit -f "$fsize"; exec $wrap "$prog" $args) > "$W/stdout" 2> "$W/stderr"
        rc=$?
    fi
    why=""
    [ "$rc" = "$code" ] || why="exit $rc, expected $code"
    if [ -z "$why" ] && [ "$errtext" != "-" ] && ! grep -qF -- "$errtext" "$W/stderr"; then
        why="stderr lacks '$errtext'"
    fi
    if [ -z "$why" ] && [ "$code" = 2 ] && [ "$errtext" != usage ]; then
        lines=$(grep -vc '^Try ' "$W/stderr")
        [ "$lines" = 1 ] || why="$lines lines on stderr, expected one"
    fi
    if [ -z "$why" ] && { [ "$rc" = 2 ] || [ -n "$term" ]; } && [ -d "$O" ] && [ -n "$(find "$O" -type f)" ]; then
        why="left files behind: $(find "$O" -type f | tr '\n' ' ')"
    fi
    # CLI_PEAK_LOG=FILE: each case's peak memory (KiB) appended to FILE
    if [ -n "${CLI_PEAK_LOG:-}" ] && [ -s "$W/peak" ]; then
        printf '%s\t%s\n' "$(cat "$W/peak")" "$name" >> "$CLI_PEAK_LOG"
    fi
    if [ -z "$why" ] && [ "$rc" = 2 ] && [ $check_peak = 1 ] && [ -s "$W/peak" ] &&
        [ "$(cat "$W/peak")" -gt $((PEAK_MB * 1024)) ]; then
        why="peak memory $(($(cat "$W/peak") / 1024)) MB, more than $PEAK_MB MB"
    fi
    # $O does not exist before the run: a failed run must not leave it
    # (nor anything under it) behind
    if [ -z "$why" ] && { [ "$rc" = 1 ] || [ "$rc" = 2 ]; } && [ -e "$O" ] &&
        { [ -z "$mkout" ] || [ -n "$(find "$O" -mindepth 1)" ]; }; then
        why="left $O behind: $(find "$O" | tr '\n' ' ')"
    fi
    if [ -z "$why" ]; then
        case "$golden" in
        -) ;;
        out:*)
            g=${golden#out:}
            sed "s|$F|\$F|g" "$W/stdout" | cmp -s - "$g" || { why="stdout differs from $g"; diff "$g" "$W/stdout" | head -5; } ;;
        xlsx)
            f=$(find "$O" -name 'compare_result_*.xlsx')
            [ -n "$f" ] && [ "$(head -c 2 "$f")" = PK ] || why="no xlsx result" ;;
        contains:*)
            # contains:FILE-GLOB:TEXT  a file of $O whose name matches holds TEXT
            spec=${golden#contains:}
            f=$(find "$O" -name "${spec%%:*}" | head -1)
            if [ -z "$f" ]; then why="no file ${spec%%:*}"
            elif ! grep -qF -- "${spec#*:}" "$f"; then why="$f lacks '${spec#*:}'"; fi ;;
        stdout:*)
            grep -qF -- "${golden#stdout:}" "$W/stdout" || why="stdout lacks '${golden#stdout:}'" ;;
        merge:*)
            f=$(find "$O" -name 'multi_ranks_compare_merge_*.xlsx')
            if [ -z "$f" ]; then why="no merged workbook"
            elif ! "$top/$BUILD/tools/xlsx2csv" "$f" | cmp -s - "${golden#merge:}"; then
                why="merged workbook differs from ${golden#merge:}"
                "$top/$BUILD/tools/xlsx2csv" "$f" | diff "${golden#merge:}" - | head -5
            fi ;;
        yaml:*)
            # yaml:GOLDEN[:CSV]  the data mapping -lm wrote (and the csv result)
            spec=${golden#yaml:}; g=${spec%%:*}; c=${spec#"$g"}; c=${c#:}
            f=$(find "$O" -name 'data_mapping_*.yaml')
            r=$(find "$O" -name '*compare_result*.csv')
            if [ -z "$f" ]; then why="no data mapping"
            elif ! cmp -s "$f" "$g"; then why="data mapping differs from $g"; diff "$g" "$f" | head -5
            elif [ -n "$c" ] && ! cmp -s "$r" "$c"; then why="result differs from $c"; diff "$c" "$r" | head -5; fi ;;
        file:*)
            # file:GLOB:GOLDEN  the one file of $O whose name matches GLOB equals GOLDEN
            spec=${golden#file:}; g=${spec#*:}
            f=$(find "$O" -name "${spec%%:*}")
            if [ -z "$f" ] || [ "$(printf '%s\n' "$f" | wc -l)" != 1 ]; then why="not one file ${spec%%:*}: $f"
            elif ! cmp -s "$f" "$g"; then why="$f differs from $g"; diff "$g" "$f" | head -5; fi ;;
        pairs:*)
            # every "target,bench" line of the file is a matched row of the csv result
            f=$(find "$O" -name '*compare_result*.csv' | head -1)
            if [ -z "$f" ]; then why="no csv result"; else
                while IFS= read -r pair; do
                    case "$pair" in '#'*|'') continue ;; esac
                    grep -q "^$pair," "$f" || { why="pair not matched: $pair"; break; }
                done < "${golden#pairs:}"
            fi ;;
        count:*)
            got=$(find "$O" -name '*compare_result*' | wc -l)
            [ "$got" = "${golden#count:}" ] || why="$got result files, expected ${golden#count:}" ;;
        ranks:*|steps:*)
            want=${golden#*:}
            got=$(find "$O" -name 'compare_result_rank*.csv' | wc -l)
            [ "$golden" = "steps:2" ] && want=$((want * 2))
            [ "$got" = "$want" ] || why="$got result files, expected $want"
            for f in $(find "$O" -name 'compare_result_rank*.csv'); do
                cmp -s "$f" tests/cli/golden/features.csv || why="$f differs from features.csv"
            done ;;
        *)
            f=$(find "$O" -name '*compare_result*.csv')
            if [ -z "$f" ]; then why="no csv result"
            elif ! cmp -s "$f" "$golden"; then why="result differs from $golden"; diff "$golden" "$f" | head -5; fi ;;
        esac
    fi
    if [ -n "$why" ]; then
        echo "FAIL $name: $why"
        sed 's/^/     | /' "$W/stderr" | head -5
        fail=1
    else
        echo "ok   $name"
    fi
done < "$W/cases"
if [ $skipped -gt 0 ]; then echo "cli: $n cases, $skipped skipped"; else echo "cli: $n cases"; fi
exit $fail
