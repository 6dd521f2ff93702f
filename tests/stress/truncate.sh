#!/bin/sh
# Stress test: a tensor file truncated by another process while a tensor
# compare reads it. Every run must end either with the correct result
# (the truncation came after the file was read) or with exit status 2 and
# one line on stderr saying the file changed during the run, leaving no
# file in the output directory -- never with a signal.
#
#   tests/stress/truncate.sh [BUILD [RUNS [MIB]]]     (default: build 100 64)
#
# The truncation is aimed: it happens as soon as the tensor file shows in
# /proc/PID/maps of the running compare, i.e. while it is mapped.
set -u
BUILD=${1:-build}
RUNS=${2:-100}
MIB=${3:-64}
top=$(cd "$(dirname "$0")/../.." && pwd)
case $BUILD in /*) BIN="$BUILD/msprobe" ;; *) BIN="$top/$BUILD/msprobe" ;; esac
W=$(mktemp -d "${TMPDIR:-/tmp}/msprobe-trunc.XXXXXX")
trap 'rm -rf "$W"' EXIT

name=Functional.linear.0.forward.input.0.npy
numel=$((MIB * 1024 * 1024 / 4))
for side in target bench; do
    mkdir -p "$W/$side/dump_tensor_data"
    printf '{"task": "tensor", "level": "L1", "framework": "pytorch", "dump_data_dir": null, "data": {"Functional.linear.0.forward": {"input_args": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [%d], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": false, "data_name": "%s"}], "input_kwargs": {}, "output": []}}}' \
        "$numel" "$name" > "$W/$side/dump.json"
done
# a version 1.0 .npy preamble, padded to 64 bytes, then the elements
h="{'descr': '<f4', 'fortran_order': False, 'shape': ($numel,), }"
while [ $(((10 + ${#h} + 1) % 64)) -ne 0 ]; do h="$h "; done
h="$h
"
len=${#h}
{ printf '\223NUMPY\001\000'; printf "\\$(printf %03o $((len % 256)))\\$(printf %03o $((len / 256)))"
  printf '%s' "$h"; } > "$W/header"
# small integers as float32 (0x3f800000 = 1.0 ...): finite values, quick to make
{ cat "$W/header"; head -c $((numel * 4)) /dev/urandom | tr '\000-\377' '\000-\077\000-\077\000-\077\000-\077'; } > "$W/orig.npy"
cp "$W/orig.npy" "$W/bench/dump_tensor_data/$name"

cp "$W/orig.npy" "$W/target/dump_tensor_data/$name"
mkdir "$W/ref"
if ! "$BIN" compare -q -n "$W/target" -b "$W/bench" -o "$W/ref" --format csv 2> "$W/err"; then
    echo "FAIL: the reference compare failed"; cat "$W/err"; exit 1
fi
ref=$(ls "$W/ref"/*.csv)

done_ok=0 changed=0 fail=0
i=0
while [ $i -lt "$RUNS" ]; do
    i=$((i + 1))
    cp "$W/orig.npy" "$W/target/dump_tensor_data/$name"
    rm -rf "$W/out" && mkdir "$W/out"
    "$BIN" compare -q -n "$W/target" -b "$W/bench" -o "$W/out" --format csv > "$W/stdout" 2> "$W/err" &
    pid=$!
    while kill -0 "$pid" 2>/dev/null && ! grep -q "target/dump_tensor_data/$name" "/proc/$pid/maps" 2>/dev/null; do
        :
    done
    truncate -s $((numel * 2)) "$W/target/dump_tensor_data/$name"
    wait "$pid"
    rc=$?
    why=""
    case $rc in
    0)
        f=$(ls "$W/out"/*.csv 2>/dev/null)
        if [ -z "$f" ] || ! cmp -s "$f" "$ref"; then why="exit 0 but the result differs from the untouched run"; fi
        [ -z "$why" ] && done_ok=$((done_ok + 1)) ;;
    2)
        if [ "$(wc -l < "$W/err")" != 1 ] || ! grep -q "changed during the run" "$W/err"; then
            why="exit 2 without the one line"
        elif [ -n "$(find "$W/out" -type f)" ]; then
            why="left files behind: $(find "$W/out" -type f)"
        fi
        [ -z "$why" ] && changed=$((changed + 1)) && [ $changed = 1 ] && sed "s/^/     first: /" "$W/err" ;;
    *) why="exit status $rc" ;;
    esac
    if [ -n "$why" ]; then
        fail=$((fail + 1))
        echo "FAIL run $i: $why"
        sed 's/^/     | /' "$W/err" | head -5
    fi
done
echo "truncation stress: $RUNS runs: $changed reported the change (exit 2), $done_ok finished before it, $fail failed"
[ $fail -eq 0 ]
