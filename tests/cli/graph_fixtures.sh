# Sourced by tests/cli/run.sh: the dumps of tests/cli/graph_cases.txt
# (graph, graph_visualize), made in $F/graph (never checked in). Needs $F.
G=$F/graph
mkdir -p "$G"
# a tensor leaf with statistics X (Max) and a drift of the bench
g_t() {
    printf '{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2, 3], "Max": %s, "Min": -1.0, "Mean": 0.25, "Norm": 2.5, "requires_grad": false}' "$1"
}
# g_rank DIR MAX [TASK [FRAMEWORK [EXTRA-MEMBERS]]]: a mix-level rank directory
# with a module holding an add, and two relus at the root
g_rank() {
    mkdir -p "$1"
    t=$(g_t "$2")
    printf '{"task": "%s", "level": "mix", "framework": "%s", "dump_data_dir": null, "data": {' \
        "${3:-statistics}" "${4:-pytorch}" > "$1/dump.json"
    printf '"Module.m.M.forward.0": {"input_args": [%s], "input_kwargs": {}, "output": [%s]},' "$t" "$t" >> "$1/dump.json"
    printf '"Torch.add.0.forward": {"input_args": [%s, {"type": "int", "value": 1}], "input_kwargs": {"alpha": {"type": "int", "value": 2}}, "output": [%s]},' "$t" "$t" >> "$1/dump.json"
    printf '"Functional.relu.0.forward": {"input_args": [%s], "input_kwargs": {}, "output": [%s]},' "$t" "$t" >> "$1/dump.json"
    printf '"Functional.relu.1.forward": {"input_args": [%s], "input_kwargs": {}, "output": [%s]}%s}}' "$t" "$t" "${5:-}" >> "$1/dump.json"
    printf '{"Module.m.M.forward.0": null, "Torch.add.0.forward": "Module.m.M.forward.0", "Functional.relu.0.forward": null, "Functional.relu.1.forward": null}' > "$1/construct.json"
    printf '{"0": [["Torch.add.0.forward"], ["File a.py, line 1, in f, \\n AddTemplate(x)", "File m.py, line 5, in forward, \\n y = x + 1"]], "1": [["Module.m.M.forward.0"], ["File t.py, line 9, in step, \\n out = self.m(x)"]]}' > "$1/stack.json"
}
g_rank "$G/n/rank" 2.0
g_rank "$G/b/rank" 1.5
# step directories of two ranks, dump roots of two steps
for side in n b; do
    m=2.0; [ $side = b ] && m=1.5
    g_rank "$G/step_$side/rank0" $m
    g_rank "$G/step_$side/rank1" $m
    g_rank "$G/root_$side/step0/rank" $m
    g_rank "$G/root_$side/step1/rank" $m
done
g_rank "$G/onerank/rank0" 2.0
g_rank "$G/onestep/step0/rank" 2.0
printf '{"npu_path": "%s", "bench_path": "%s", "is_print_compare_log": true}' "$G/n/rank" "$G/b/rank" > "$G/input.json"
printf '{"npu_path": "%s"}' "$G/n/rank" > "$G/input_build.json"
printf '{"npu_path": "%s", "bench_path": null}' "$G/n/rank" > "$G/input_null_bench.json"
printf '[1, 2]' > "$G/input_list.json"
printf '{"bench_path": "%s"}' "$G/b/rank" > "$G/input_no_npu.json"
printf '{"npu_path": 5}' > "$G/input_npu_int.json"
printf '{"npu_path": ' > "$G/input_trunc.json"
# ---- bad input
mkdir -p "$G/empty"
mkdir -p "$G/badroot/step0" && cp -r "$G/n/rank" "$G/badroot/step0/rank" && echo x > "$G/badroot/notes.txt"
for f in construct stack; do
    mkdir -p "$G/no_$f" && cp "$G/n/rank/"*.json "$G/no_$f/" && rm "$G/no_$f/$f.json"
done
g_bad() {    # g_bad NAME FILE TEXT: the rank directory n/rank with FILE replaced
    mkdir -p "$G/$1" && cp "$G/n/rank/"*.json "$G/$1/" && printf '%s' "$3" > "$G/$1/$2"
}
g_bad dump_malformed dump.json '{"task": "statistics", "data": {"a": [1, 2,]}}'
g_bad dump_truncated dump.json '{"task": "statistics", "data": {"Torch.add.0.forward": {"input_args": ['
g_bad dump_list dump.json '[1, 2]'
g_bad dump_data_list dump.json '{"task": "statistics", "data": [1]}'
g_bad dump_empty dump.json ''
g_bad construct_malformed construct.json '{"a": }'
g_bad construct_list construct.json '["a"]'
g_bad construct_parent construct.json '{"Torch.add.0.forward": 5}'
g_bad megatron construct.json '{"megatron_micro_step_number": 1, "Module.m.M.forward.0": [null, 1], "Torch.add.0.forward": ["Module.m.M.forward.0", 1], "Functional.relu.0.forward": [null, 1], "Functional.relu.1.forward": [null, 1]}'
g_bad megatron_list construct.json '{"megatron_micro_step_number": 1, "Torch.add.0.forward": [null, 0, 1]}'
g_bad megatron_micro construct.json '{"megatron_micro_step_number": 1, "Torch.add.0.forward": [null, "0"]}'
g_bad megatron_steps construct.json '{"megatron_micro_step_number": "1", "Torch.add.0.forward": [null, 0]}'
g_bad stack_malformed stack.json '{"0": [["a"], ["b"]'
g_bad deep dump.json '{"task": "statistics", "data": {"Torch.add.0.forward": {"input_args": [[[[[[[[[[[[{"type": "int", "value": 1}]]]]]]]]]]]]}}}'
printf '{"Torch.add.0.forward": null}' > "$G/deep/construct.json"
g_rank "$G/tensor/rank" 2.0 tensor
g_rank "$G/notask/rank" 2.0
sed -i 's/"task": "statistics"/"task": ""/' "$G/notask/rank/dump.json"
g_rank "$G/ms/rank" 2.0 statistics mindspore
g_rank "$G/md5/rank" 2.0 statistics pytorch ', "Functional.relu.2.forward": {"input_args": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1.0, "Min": 1.0, "Mean": 1.0, "Norm": 1.0, "md5": "12345678"}], "output": []}'
echo x > "$G/afile"
# a level-L1 dump: construct.json {}
mkdir -p "$G/l1/rank" && cp "$G/n/rank/"*.json "$G/l1/rank/" && printf '{}' > "$G/l1/rank/construct.json"
# a .vis for graph view
printf '{\n    "root": "DefaultModel",\n    "dump_data_dir": "",\n    "node": {\n        "DefaultModel": {"id": "DefaultModel", "node_type": 0, "output_data": {}, "input_data": {}, "upnode": "None", "subnodes": [], "matched_node_link": [], "suggestions": {}, "stack_info": [], "data": {"precision_index": NaN}}\n    },\n    "MicroSteps": 1,\n    "OverflowCheck": false\n}' > "$G/view.vis"
