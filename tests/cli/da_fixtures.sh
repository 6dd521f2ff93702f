# Sourced by tests/cli/run.sh: dumps for the compare -da cases, made in
# $F/da (never checked in). Needs $F, $T and $BUILD; run from the top
# directory.
#
# ring: four ranks, each  linear -> send to r+1 -> recv from r-1 -> add ->
# all_reduce over [0, 1, 2, 3] -> mul, and ranks 2 and 3 then exchange a
# batch_isend_irecv of two P2POps. The target's rank 1 computes add wrong;
# from there the all_reduce carries the error to every rank, so every
# later output differs too. The first diff is rank 1's add.
D=$F/da
mkdir -p "$D"

# tensor leaf: max min mean norm requires_grad
da_t() {
    printf '{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [4, 4], "Max": %s, "Min": %s, "Mean": %s, "Norm": %s, "requires_grad": %s}' \
        "$1" "$2" "$3" "$4" "$5"
}

# da_rank SIDE RANK: the dump.json of one rank
da_rank() {
    side=$1 r=$2
    dst=$(((r + 1) % 4)) src=$(((r + 3) % 4))
    add_max=2.5 red_max=6.0 mul_max=12.0
    if [ "$side" = target ]; then
        [ "$r" = 1 ] && add_max=6.0
        red_max=9.5 mul_max=19.0
    fi
    printf '{"task": "statistics", "level": "L1", "framework": "pytorch", "dump_data_dir": null, "data": {\n'
    printf '"Functional.linear.0.forward": {"input_args": [%s, %s], "input_kwargs": {}, "output": [%s]},\n' \
        "$(da_t 1.0 -1.0 0.1 2.0 false)" "$(da_t 0.5 -0.5 0.0 1.0 true)" "$(da_t 1.5 -1.5 0.2 3.0 true)"
    printf '"Distributed.send.0.forward": {"input_args": [%s], "input_kwargs": {"dst": {"type": "int", "value": %d}}, "output": []},\n' \
        "$(da_t 1.5 -1.5 0.2 3.0 true)" "$dst"
    printf '"Distributed.recv.0.forward": {"input_args": [%s], "input_kwargs": {"src": {"type": "int", "value": %d}}, "output": []},\n' \
        "$(da_t 1.5 -1.5 0.2 3.0 false)" "$src"
    printf '"Torch.add.0.forward": {"input_args": [%s, %s], "input_kwargs": {}, "output": [%s]},\n' \
        "$(da_t 1.5 -1.5 0.2 3.0 true)" "$(da_t 1.0 -1.0 0.0 2.0 false)" "$(da_t "$add_max" -2.5 0.2 5.0 true)"
    printf '"Distributed.all_reduce.0.forward": {"input_args": [%s], "input_kwargs": {"group": {"type": "torch.ProcessGroup", "group_ranks": [0, 1, 2, 3], "group_id": "7b1f"}}, "output": [%s]},\n' \
        "$(da_t "$add_max" -2.5 0.2 5.0 true)" "$(da_t "$red_max" -6.0 0.8 12.0 true)"
    printf '"Torch.mul.0.forward": {"input_args": [%s, {"type": "int", "value": 2}], "input_kwargs": {}, "output": [%s]}' \
        "$(da_t "$red_max" -6.0 0.8 12.0 true)" "$(da_t "$mul_max" -12.0 1.6 24.0 true)"
    if [ "$r" -ge 2 ]; then
        peer=$((5 - r))
        printf ',\n"Distributed.batch_isend_irecv.0.forward": {"input_args": [[{"class_type": "torch.distributed.P2POp", "op": "isend", "peer": %d, "tag": 0, "group_id": "7b1f", "tensor": %s}, {"class_type": "torch.distributed.P2POp", "op": "irecv", "peer": %d, "tag": 0, "group_id": "7b1f", "tensor": %s}]], "input_kwargs": {}, "output": []}' \
            "$peer" "$(da_t "$mul_max" -12.0 1.6 24.0 true)" "$peer" "$(da_t 3.0 -3.0 0.1 6.0 false)"
    fi
    printf '\n}}\n'
}

for side in target bench; do
    for r in 0 1 2 3; do
        mkdir -p "$D/ring_$side/rank$r"
        da_rank "$side" "$r" > "$D/ring_$side/rank$r/dump.json"
    done
done
# the target's stack of rank 1, in the de-duplicated layout
printf '{"0": [["Torch.add.0.forward"], ["File train.py, line 42, in step, \\n h = torch.add(x, y)"]], "1": [["Functional.linear.0.forward", "Torch.mul.0.forward"], ["File model.py, line 7, in forward, \\n y = self.proj(x)"]]}' \
    > "$D/ring_target/rank1/stack.json"

# a dump root of two steps (the same ring twice); a step whose ranks all agree
for s in step0 step1; do
    mkdir -p "$D/root_target" "$D/root_bench"
    cp -r "$D/ring_target" "$D/root_target/$s"
    cp -r "$D/ring_bench" "$D/root_bench/$s"
done
mkdir -p "$D/same"
cp -r "$D/ring_bench" "$D/same/target"
cp -r "$D/ring_bench" "$D/same/bench"

# a tensor-mode pair (compared by its statistics) and a debug.json beside it
mkdir -p "$D/tensor_t/rank0" "$D/tensor_b/rank0"
for x in tensor_t tensor_b; do
    sed 's/"task": "statistics"/"task": "tensor"/' "$D/ring_bench/rank0/dump.json" > "$D/$x/rank0/dump.json"
    printf '{"task": "tensor", "level": "debug", "data": {}}' > "$D/$x/rank0/debug.json"
done

# generated: a Megatron step on four tensor-parallel ranks (all_reduce over
# ProcessGroups), with hot rows
"$BUILD/tools/gen_dump" --out "$D/gen" --ranks 4 --layers 2 --entries 300 > /dev/null 2>&1
printf '{"npu_path": "%s", "bench_path": "%s"}' "$D/ring_target" "$D/ring_bench" > "$D/compare.json"
