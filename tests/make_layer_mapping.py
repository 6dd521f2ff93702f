#!/usr/bin/env python3
"""Writes testdata/layer_mapping/: a MindSpore target and a PyTorch bench of
the same small model, laid out so that each rule of the layer mapping
(spec/compare.md §4.7) decides some pair: the Cell -> TopLayer rule,
rules by class (also of a node named after a framework function),
multi-part rules, "name(comment)" values, framework functions taken from
the stacks (MindSpore "Template ... construct", PyTorch "Template ... in
forward,"), stack lines that are skipped, Primitive and Jit entries without
stack scope, backward entries taking their forward scope, parameters_grad,
an entry without rows, repeated APIs in one scope, and the pipeline-parallel
renumbering of `layers` (target layers 2, 3 against bench 0, 1).

  synth/{target,bench}/       statistics dumps, stack.json in the old layout
  synth_new/{target,bench}/   the same with stack.json in the new layout
  tensor/{target,bench}/      MindSpore vs MindSpore in tensor mode (.npy)
  repo/                       msprobe's own test dumps (Apache-2.0, from
                              test/mindspore_ut/compare/dump_file)
  empty_construct/            a target whose construct.json is {}
  bad/                        inputs the layer mapping refuses
  layer_mapping.yaml          the mapping for synth and tensor

The expected outputs in tests/cli/golden/ were made by our compare and
checked against msprobe 8.1.0 (xlsx cell by cell with conformance.py
--rtol 0, the data_mapping yaml byte for byte); synth_new against msprobe
on synth, since 8.1.0 ignores stacks in the new layout. Run from the
repository root:  python3 tests/make_layer_mapping.py
"""
import json
import os
import shutil

import numpy as np

OUT = "testdata/layer_mapping"
REF = "/work/ref/debug/accuracy_tools/msprobe/test/mindspore_ut/compare/dump_file"


def ms_t(dtype, shape, mx, mn, mean, norm):
    return {"type": "mindspore.Tensor", "dtype": dtype, "shape": shape, "Max": mx, "Min": mn, "Mean": mean,
            "Norm": norm}


def pt_t(dtype, shape, mx, mn, mean, norm):
    return {"type": "torch.Tensor", "dtype": dtype, "shape": shape, "Max": mx, "Min": mn, "Mean": mean,
            "Norm": norm, "requires_grad": False}


def io(t, n_in=1, n_out=1, kwargs=None, base=1.0):
    return {"input_args": [t(base + i, -base, 0.25 * base, 2.0 * base + i) for i in range(n_in)],
            "input_kwargs": kwargs or {},
            "output": [t(base * 3 + i, -base * 2, 0.5, 4.0 + i) for i in range(n_out)]}


# ---- stacks ------------------------------------------------------------------

def line(path, n, func, code="x = f(x)"):
    return f"File {path}, line {n}, in {func}, \n {code}"


MS_PKG = "/usr/local/python3/lib/python3.9/site-packages/mindspore"
PT_PKG = "/usr/local/python3/lib/python3.9/site-packages/torch"
MS_TEMPLATE = line("/opt/msprobe/mindspore/dump/hook_cell/wrap_api.py", 98, "api_function",
                   "return ApiTemplate(api_name, api_dict, prefix, hook)(*args, **kwargs)")
PT_TEMPLATE = line("/opt/msprobe/pytorch/hook_module/wrap_functional.py", 90, "functional_op_template",
                   "return FunctionalOPTemplate(op_name, hook)(*args, **kwargs)")


def ms_stack(*frames, user="construct"):
    """cell.py before the wrapper, the wrapper ("Template"), framework frames,
    then the model's construct (the end mark)."""
    return ([line(MS_PKG + "/nn/cell.py", 733, "__call__", "return self._run_construct(*args)"), MS_TEMPLATE]
            + [line(f, 10 + i, fn) for i, (f, fn) in enumerate(frames)]
            + [line("/work/net/model.py", 40, user), line("/work/net/train.py", 7, "main")])


def pt_stack(*frames, user="forward"):
    return ([line(PT_PKG + "/nn/modules/module.py", 1194, "_call_impl"), PT_TEMPLATE]
            + [line(f, 20 + i, fn) for i, (f, fn) in enumerate(frames)]
            + [line("/work/net/model.py", 50, user), line("/work/net/train.py", 9, "main")])


# ---- the two models ------------------------------------------------------------

def target():
    t = lambda mx, mn, mean, norm: ms_t("Float32", [2, 4], mx, mn, mean, norm)
    data, construct, stack = {}, {}, {}

    def add(name, parent, value, st=None):
        data[name] = value
        construct[name] = parent
        if st is not None:
            stack[name] = st

    net = "Cell.net.Net.forward.0"
    emb = "Cell.net.embedding.Embedding.forward.0"
    enc = "Cell.net.encoder.ParallelTransformer.forward.0"
    add(net, None, io(t, base=1.0))
    add(emb, net, io(t, base=1.5))
    # frame function "gather_outer": a node without entries, so its rules are
    # found under its own name
    add("Functional.gather.0.forward", emb, io(t, 2, 1, base=2.0),
        ms_stack((MS_PKG + "/ops/function/array_func.py", "gather_impl"),
                 (MS_PKG + "/ops/function/array_func.py", "gather_outer")))
    # top level, two calls: paired by their order
    add("Tensor.__add__.0.forward", "", io(t, 2, 1, base=2.5), [line("/work/net/train.py", 3, "main")])
    add("Tensor.__add__.1.forward", "", io(t, 2, 1, base=3.0), [line("/work/net/train.py", 4, "main")])
    add(enc, net, io(t, base=3.5))
    for k, layer in enumerate((2, 3)):
        lay = f"Cell.net.encoder.layers.{layer}.ParallelTransformerLayer.forward.0"
        att = f"Cell.net.encoder.layers.{layer}.attention.Attn.forward.0"
        add(lay, enc, io(t, base=4.0 + k))
        add(att, lay, {"output": [t(5.0 + k, -1.0, 0.5, 6.0)]})
        add(f"Mint.matmul.{k}.forward", att, io(t, 2, 1, base=6.0 + k),
            ms_stack((MS_PKG + "/ops/auto_generate/gen_ops_def.py", "matmul_frame")))
        # multi-part rule dropout.bmm -> core.baddbmm
        add(f"Functional.bmm.{k}.forward", att, io(t, 2, 1, base=7.0 + k),
            ms_stack((MS_PKG + "/ops/function/math_func.py", "dropout")))
        # Primitive: no stack scope even with a stack
        add(f"Primitive.norm.RmsNorm.{k}.forward", lay, io(t, 2, 2, base=8.0 + k),
            ms_stack((MS_PKG + "/ops/operations/nn_ops.py", "rms_frame")))
    add("Mint.matmul.1.backward", "Cell.net.encoder.layers.3.attention.Attn.backward.0",
        {"input": [t(9.0, -9.0, 0.0, 9.5)], "output": [t(9.25, -9.0, 0.0, 9.75), t(1.0, 0.0, 0.5, 1.0)]})
    add("Cell.net.encoder.layers.2.attention.Attn.backward.0", None,
        {"input": [t(10.0, -1.0, 0.5, 11.0)], "output": [t(10.5, -1.0, 0.5, 11.5)]})
    # a framework line inside msprobe, and a frame function named __call__:
    # neither gives a scope
    add("Functional.relu.0.forward", net, io(t, base=11.0),
        ms_stack(("/opt/msprobe/mindspore/site-packages/mindspore/x.py", "relu_wrap")))
    add("Functional.silu.0.forward", net, io(t, base=11.5),
        ms_stack((MS_PKG + "/nn/layer/activation.py", "__call__")))
    # Jit entries have no stack scope either; an entry without rows still counts
    add("Jit.fn.0.forward", net, io(t, base=12.0), ms_stack((MS_PKG + "/common/api.py", "jit_frame")))
    add("Functional.dropout.0.forward", net, {"input_args": [], "output": []},
        ms_stack((MS_PKG + "/ops/function/nn_func.py", "dropout_frame")))
    add("Functional.dropout.1.forward", net, io(t, 1, 1, {"p": {"type": "float", "value": 0.1},
                                                          "training": {"type": "bool", "value": True}}, base=12.5),
        ms_stack((MS_PKG + "/ops/function/nn_func.py", "dropout_frame")))
    add("Cell.net.embedding.Embedding.parameters_grad", None, {"weight": [t(13.0, -13.0, 0.0, 14.0)]})
    # nothing like it in the bench
    add("Functional.cos.0.forward", net, io(t, base=14.0), ms_stack())
    return data, construct, stack


def bench():
    t = lambda mx, mn, mean, norm: pt_t("torch.float32", [2, 4], mx, mn, mean, norm)
    data, construct, stack = {}, {}, {}

    def add(name, parent, value, st=None):
        data[name] = value
        construct[name] = parent
        if st is not None:
            stack[name] = st

    net = "Module.module.Net.forward.0"
    emb = "Module.module.embedding.Embedding.forward.0"
    enc = "Module.module.encoder.ParallelTransformer.forward.0"
    add(net, None, io(t, base=1.0))
    add(emb, net, io(t, base=1.5))
    add("Functional.embedding.0.forward", emb, io(t, 2, 1, base=2.0),
        pt_stack((PT_PKG + "/nn/functional.py", "gather_outer")))
    add("Tensor.__add__.0.forward", "", io(t, 2, 1, base=2.5), [line("/work/net/train.py", 3, "main")])
    add("Tensor.__add__.1.forward", "", io(t, 2, 1, base=3.25), [line("/work/net/train.py", 4, "main")])
    add(enc, net, io(t, base=3.5))
    for k in (0, 1):
        lay = f"Module.module.encoder.layers.{k}.ParallelTransformerLayer.forward.0"
        att = f"Module.module.encoder.layers.{k}.self_attention.Attention.forward.0"
        add(lay, enc, io(t, base=4.0 + k))
        add(att, lay, {"output": [t(5.0 + k, -1.0, 0.5, 6.0)]})
        add(f"Torch.matmul.{k}.forward", att, io(t, 2, 1, base=6.0 + k),
            pt_stack((PT_PKG + "/_tensor.py", "matmul_frame")))
        add(f"Torch.baddbmm.{k}.forward", att, io(t, 2, 1, base=7.0 + k),
            pt_stack((PT_PKG + "/functional.py", "core")))
        add(f"NPU.npu_rms_norm.{k}.forward", lay, io(t, 2, 2, base=8.0 + k))
    add("Torch.matmul.1.backward", "Module.module.encoder.layers.1.self_attention.Attention.backward.0",
        {"input": [t(9.0, -9.0, 0.0, 9.5)], "output": [t(9.0, -9.0, 0.0, 9.75)]})
    add("Module.module.encoder.layers.0.self_attention.Attention.backward.0", None,
        {"input": [t(10.0, -1.0, 0.5, 11.0)], "output": [t(10.5, -1.0, 0.5, 11.5)]})
    add("Functional.relu.0.forward", net, io(t, base=11.0))
    add("Functional.silu.0.forward", net, io(t, base=11.5))
    add("Functional.dropout.0.forward", net, {"input_args": [], "output": []})
    add("Functional.dropout.1.forward", net, io(t, 1, 1, {"p": {"type": "float", "value": 0.1}}, base=12.5))
    add("Module.module.embedding.Embedding.parameters_grad", None, {"weight": [t(13.0, -13.0, 0.0, 14.0)]})
    return data, construct, stack


def new_layout(stack):
    """msprobe >= 1.3: identical stacks once, under "0", "1", ..."""
    groups = {}
    for name, st in stack.items():
        groups.setdefault(json.dumps(st), [[], st])[0].append(name)
    return {str(i): v for i, v in enumerate(groups.values())}


def write(d, name, obj):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


def dump(d, framework, task, data, construct, stack):
    write(d, "dump.json", {"task": task, "level": "mix", "framework": framework, "dump_data_dir": None,
                           "data": data})
    write(d, "construct.json", construct)
    write(d, "stack.json", stack)


def tensor_mode(d, data):
    """Give every tensor a .npy file (and its data_name) as a tensor dump."""
    tdir = os.path.join(d, "dump_tensor_data")
    os.makedirs(tdir, exist_ok=True)

    def walk(v, prefix):
        if isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, f"{prefix}.{i}")
        elif isinstance(v, dict) and v.get("type") == "mindspore.Tensor":
            v["data_name"] = prefix + ".npy"
            arr = np.linspace(v["Min"], v["Max"], 8, dtype=np.float32).reshape(2, 4)
            np.save(os.path.join(tdir, prefix + ".npy"), arr)
        elif isinstance(v, dict):
            for k, x in v.items():
                walk(x, f"{prefix}.{k}")

    for name, entry in data.items():
        for key, cat in (("input_args", "input"), ("input_kwargs", "kwargs"), ("output", "output")):
            if key in entry:
                walk(entry[key], f"{name}.{cat}")


def bad_inputs(data, construct, stack):
    """Targets the layer mapping refuses (and one it takes: no construct)."""
    bad = f"{OUT}/bad"
    dump(f"{bad}/noconstruct", "mindspore", "statistics", data, construct, stack)
    os.remove(f"{bad}/noconstruct/construct.json")
    dump(f"{bad}/nostack", "mindspore", "statistics", data, construct, stack)
    os.remove(f"{bad}/nostack/stack.json")
    short = {"Functional.relu.forward": io(lambda *v: ms_t("Float32", [2], *v))}
    dump(f"{bad}/shortname", "mindspore", "statistics", short, {"Functional.relu.forward": ""}, {"x": []})
    dump(f"{bad}/parent_type", "mindspore", "statistics", data, dict(construct, **{"Mint.matmul.0.forward": 5}),
         stack)
    dump(f"{bad}/parent_short", "mindspore", "statistics", data,
         dict(construct, **{"Mint.matmul.0.forward": "Cell.net.Attn"}), stack)
    dump(f"{bad}/stack_type", "mindspore", "statistics", data, construct,
         dict(stack, **{"Mint.matmul.0.forward": "oops"}))
    # no "framework" and no tensor whose type names one
    anon = {"Functional.relu.0.forward": {"input_args": [{"type": "int", "value": 1}]}}
    write(f"{bad}/noframework", "dump.json", {"task": "statistics", "level": "L1", "data": anon})
    write(f"{bad}/noframework", "construct.json", {"Functional.relu.0.forward": ""})
    write(f"{bad}/noframework", "stack.json", {"Functional.relu.0.forward": []})
    dump(f"{OUT}/empty_construct", "mindspore", "statistics", data, {}, stack)
    for name, text in (("rules_list", "- TopLayer\n- Cell\n"), ("rules_value", "Cell:\n  net: 5\n"),
                       ("rules_type", "TopLayer:\nAttn:\n  bmm: baddbmm\n")):
        with open(f"{bad}/{name}.yaml", "w") as f:
            f.write(text)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    td, tc, ts = target()
    bd, bc, bs = bench()
    dump(f"{OUT}/synth/target", "mindspore", "statistics", td, tc, ts)
    dump(f"{OUT}/synth/bench", "pytorch", "statistics", bd, bc, bs)
    dump(f"{OUT}/synth_new/target", "mindspore", "statistics", td, tc, new_layout(ts))
    dump(f"{OUT}/synth_new/bench", "pytorch", "statistics", bd, bc, new_layout(bs))
    # tensor mode, MindSpore on both sides: the bench is the target with a
    # few statistics changed
    td2, _, _ = target()
    bd2, _, _ = target()
    bd2["Tensor.__add__.1.forward"]["output"][0]["Max"] = 9.5
    for d, data in (("target", td2), ("bench", bd2)):
        tensor_mode(f"{OUT}/tensor/{d}", data)
        dump(f"{OUT}/tensor/{d}", "mindspore", "tensor", data, tc, ts)
    with open(f"{OUT}/layer_mapping.yaml", "w") as f:
        f.write("# target class -> {target sub-path: bench name}; Cell means the top layer\n"
                "Cell:\n"
                "  net: module\n"
                "gather_outer:\n"
                "  gather: embedding\n"
                "ParallelTransformerLayer:\n"
                "  attention: self_attention\n"
                "  RmsNorm: npu_rms_norm(fused in torch_npu)\n"
                "Attn:\n"
                "  dropout.bmm: core.baddbmm\n"
                "  dropout: never_used\n")
    bad_inputs(td, tc, ts)
    for side, src in (("target", "mindspore_data"), ("bench", "pytorch_data")):
        os.makedirs(f"{OUT}/repo/{side}")
        for f in ("dump.json", "stack.json", "construct.json"):
            shutil.copy(f"{REF}/{src}/{f}", f"{OUT}/repo/{side}/{f}")
    shutil.copy(f"{REF}/layer_mapping.yaml", f"{OUT}/repo/layer_mapping.yaml")
    with open(f"{OUT}/repo/NOTICE", "w") as f:
        f.write("Test data of msprobe 8.1.0 (mstt commit 99ccc5c94d9b, debug/accuracy_tools/msprobe/test/\n"
                "mindspore_ut/compare/dump_file), Copyright Huawei Technologies Co., Ltd., Apache License 2.0.\n")


if __name__ == "__main__":
    main()
