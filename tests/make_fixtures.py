#!/usr/bin/env python3
"""Writes the hand-designed fixture dumps of testdata/features/ (and the md5
variant) that the CLI tests compare. Each row exercises one rule of
spec/compare.md; the expected outputs in tests/cli/golden/ were made by our
compare and checked cell by cell against msprobe 8.1.0's own xlsx for the
same input (conformance.py --rtol 0). Run from the repository root:
    python3 tests/make_fixtures.py
"""
import json
import os

INF, NAN = float("inf"), float("nan")


def t(dtype, shape, mx, mn, mean, norm, md5=None, rg=True):
    d = {"type": "torch.Tensor", "dtype": dtype, "shape": shape, "Max": mx, "Min": mn, "Mean": mean, "Norm": norm,
         "requires_grad": rg}
    if md5 is not None:
        d["md5"] = md5
    return d


def f32(mx, mn, mean, norm, md5=None, shape=(4, 8)):
    return t("torch.float32", list(shape), mx, mn, mean, norm, md5)


def data(side, md5):
    b = side == "bench"
    m = (lambda x: x) if md5 else (lambda x: None)
    d = {}
    # plain matched API: input equal, output drifts slightly
    d["Functional.linear.0.forward"] = {
        "input_args": [f32(1.5, -1.25, 0.0625, 10.0, m("0a1b2c3d")),
                       f32(0.33020302653312683, -0.3333950340747833, -0.010701632127165794, 1.001181721687317,
                           m("11111111" if b else "22222222"))],
        "input_kwargs": {"bias": None},
        "output": [f32(1.1805685758590698 if not b else 1.179263114929199, -0.5616238713264465,
                       -0.008318128995597363, 2.3407371044158936, m("33333333" if b else "44444444"))],
    }
    # scalar arguments of every kind, incl. the NaN / Infinity tokens
    d["Tensor.__add__.0.forward"] = {
        "input_args": [t("torch.bfloat16", [2, 2], 3.0, -INF if not b else -1.0, NAN, INF, m("55555555")),
                       {"type": "int", "value": 3},
                       {"type": "float", "value": 0.5 if not b else 0.25},
                       {"type": "bool", "value": True},
                       {"type": "str", "value": "SBH"},
                       {"type": "str", "value": "NaN inside a string"}],
        "input_kwargs": {"alpha": {"type": "float", "value": 1e-05}, "memory_format": {"type": "torch.memory_format",
                                                                                        "format": "contiguous_format"}},
        "output": [t("torch.bfloat16", [2, 2], 4.0, 1.0, 2.5, 5.0, m("66666666"))],
    }
    d["Distributed.all_reduce.0.forward"] = {
        "input_args": [f32(2.0, 0.0, 1.0, 4.0, m("77777777"), shape=(8,))],
        "input_kwargs": {"group": {"type": "torch.ProcessGroup", "group_ranks": [0, 1, 2, 3], "group_id": "8b6e"},
                         "op": {"type": "torch.distributed.ReduceOp", "value": "RedOpType.SUM"},
                         "async_op": {"type": "bool", "value": False}},
        "output": [f32(2.0, 0.0, 1.0, 4.0, m("77777777"), shape=(8,))],
    }
    d["Tensor.__getitem__.0.forward"] = {
        "input_args": [f32(1.0, 0.0, 0.5, 2.0, m("88888888")),
                       [{"type": "slice", "value": [None, 2, None]}, {"type": "ellipsis", "value": "..."}],
                       {"type": "torch.Size", "value": [4, 8]}],
        "input_kwargs": {"dtype": {"type": "torch.dtype", "value": "torch.float32"}},
        "output": [f32(1.0, 0.0, 0.5, 2.0, m("88888888"), shape=(2, 8))],
    }
    # a module with parameters and its parameter gradients
    d["Module.fc.Linear.forward.0"] = {
        "input_args": [f32(1.0, -1.0, 0.0, 3.0, m("99999999"))],
        "input_kwargs": {},
        "output": [f32(30.0 if not b else 10.0, -1.0, 0.0, 40.0 if not b else 3.0, m("aaaaaaaa" if b else "bbbbbbbb"))],
        "parameters": {"weight": f32(0.5, -0.5, 0.0, 1.0, m("cccccccc")),
                       "bias": f32(0.1, -0.1, 0.0, 0.2, m("dddddddd"), shape=(8,))},
    }
    d["Module.fc.Linear.parameters_grad"] = {
        "weight": [f32(0.01, -0.01, 0.0, 0.05 if not b else 0.04, m("eeeeeeee"))],
        "bias": [f32(0.001, -0.001, 0.0, 0.002, m("ffffffff"), shape=(8,))],
    }
    # overflow and a huge difference
    d["Functional.softmax.0.forward"] = {
        "input_args": [f32(100.0, -100.0, 0.0, 1000.0, m("12121212"))],
        "output": [f32(INF if not b else 1.0, 0.0, 0.125, 1e12 if not b else 1.0, m("13131313"))],
    }
    # dtype and shape mismatches: unmatched rows
    d["Torch.matmul.0.forward"] = {
        "input_args": [t("torch.int64" if not b else "torch.float32", [3], 3.0, 1.0, 2.0, 3.7416573867739413,
                         m("14141414")),
                       f32(1.0, 0.0, 0.5, 1.0, m("15151515"), shape=(3,) if not b else (4,))],
        "output": [t("torch.float16", [2], 7.0, 1.0, 4.0, 7.0710678118654755, m("16161616"))],
    }
    # backward, a null output and an empty list
    d["Functional.linear.0.backward"] = {
        "input": [f32(1.0, 1.0, 1.0, 5.656854249492381, m("17171717"))],
        "output": [f32(0.5, -0.5, 0.0, 2.0, m("18181818")), None, []],
    }
    if not b:
        d["Functional.dropout.0.forward"] = {"input_args": [f32(1.0, 0.0, 0.5, 2.0, m("19191919"))],
                                             "output": [f32(1.0, 0.0, 0.5, 2.0, m("19191919"))]}
    else:
        d["Functional.gelu.0.forward"] = {"input_args": [f32(1.0, 0.0, 0.5, 2.0, m("20202020"))]}
    return d


def stack(names):
    groups = {}
    for i, n in enumerate(names):
        groups[str(i)] = [[n], ["File /home/user/train.py, line %d, in forward, \n x = layer(x)" % (10 + i),
                                "File /home/user/train.py, line 99, in <module>, \n main()"]]
    return groups


def write(root, side, md5):
    path = os.path.join(root, side, "step0", "rank0")
    os.makedirs(path, exist_ok=True)
    d = data(side, md5)
    with open(os.path.join(path, "dump.json"), "w") as f:
        json.dump({"task": "statistics", "level": "mix", "framework": "pytorch", "dump_data_dir": None, "data": d},
                  f, indent=1)
    with open(os.path.join(path, "stack.json"), "w") as f:
        json.dump(stack(list(d)), f, indent=1)
    with open(os.path.join(path, "construct.json"), "w") as f:
        json.dump({}, f)


if __name__ == "__main__":
    for md5, name in ((False, "features"), (True, "features_md5")):
        for side in ("target", "bench"):
            write(os.path.join("testdata", name), side, md5)
