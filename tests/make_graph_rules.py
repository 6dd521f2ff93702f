#!/usr/bin/env python3
"""Writes the hand-designed dumps of testdata/graph_rules/: each case holds
the rule of one graph cell that the corpus (../shared/corpus) does not
show. msprobe itself was run on them: expected/graph/ holds msprobe
8.1.0's `graph` runs (.vis), expected/graph_newest/ the newest msprobe's
`graph_visualize` runs (.vis.db), each with its commands.txt in the
corpus's format, so tests/conformance_graph.sh checks them as it checks the
corpus. Run from the repository root:
    python3 tests/make_graph_rules.py

Cases:
  process_group  statistics and md5 dumps (msprobe 8.1.0's format, level
                 mix) of two steps of one run, with a broadcast and an
                 all_reduce given a process group: the group input and the
                 group the output repeats keep only type, group_ranks,
                 group_id and data_name in the .vis, compare columns
                 included (spec §8.3 2).
  params_grad    the newest msprobe's dumps (level mix) of a small ResNet,
                 two steps of one run: a module's parameters_grad entry is
                 named with the call counter of its gradient hooks
                 (`Module.conv1.Conv2d.parameters_grad.0` in step 0, `.1`
                 in step 1, which continues the count), and `accum`, one
                 step of two micro-batches (`.0` and `.1` in one dump).
  collections    statistics dumps (8.1.0's format, level mix) whose root-level
                 APIs form Apis_Between_Modules collections, with an API
                 whose inputs differ between the runs in number.
"""
import json
import os
import zlib

OUT = "testdata/graph_rules"


def save(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1)


def tensor(shape, mx, mn, mean, norm, dtype="torch.float32", rg=False, md5=None):
    d = {"type": "torch.Tensor", "dtype": dtype, "shape": list(shape), "Max": mx, "Min": mn, "Mean": mean,
         "Norm": norm}
    if md5 is not None:
        d["md5"] = md5
    d["requires_grad"] = rg
    return d


def group(ranks):
    return {"type": "torch.ProcessGroup", "group_ranks": ranks,
            "group_id": f"{zlib.crc32(str(ranks).encode('utf-8')):08x}"}


def scalar(kind, value):
    return {"type": kind, "value": value}


def crc(*parts):
    return f"{zlib.crc32(repr(parts).encode('utf-8')):08x}"


def stack(names_lines):
    """msprobe's stack.json: {"0": [[names], [lines]], ...}"""
    return {str(i): [names, lines] for i, (names, lines) in enumerate(names_lines)}


def write_rank(root, dump, construct, stacks):
    save(os.path.join(root, "dump.json"), dump)
    save(os.path.join(root, "construct.json"), construct)
    save(os.path.join(root, "stack.json"), stack(stacks))


# ---- process_group ------------------------------------------------------------

def process_group_rank(step, md5):
    """One rank of step `step`: a Linear module, then a broadcast and an
    all_reduce over the group of ranks 0 and 1 at the root (a collection),
    then the module's backward and its parameters' gradients."""
    s = 1 + step * 0.001
    m = (lambda *p: crc(step, *p)) if md5 else (lambda *p: None)
    pg = group([0, 1])
    x = tensor([4, 8], 1.5 * s, -1.25, 0.0625 * s, 10.0 * s, md5=m("x"))
    w = tensor([2, 8], 0.33 * s, -0.33, -0.01, 1.0 * s, rg=True, md5=m("w"))
    b = tensor([2], 0.1, -0.1, 0.0, 0.14, rg=True, md5=m("b"))
    y = tensor([4, 2], 1.18 * s, -0.56, -0.008, 2.34 * s, md5=m("y"))
    data = {
        "Functional.linear.0.forward": {"input_args": [x, w, b], "input_kwargs": {}, "output": [y]},
        "Module.fc.Linear.forward.0": {"input_args": [x], "input_kwargs": {}, "output": [y]},
        "Distributed.broadcast.0.forward": {
            "input_args": [y],
            "input_kwargs": {"src": scalar("int", 0), "group": pg},
            "output": [y, scalar("int", 0), pg],
        },
        "Distributed.all_reduce.0.forward": {
            "input_args": [y, pg],
            "input_kwargs": {"op": {"type": "torch.distributed.ReduceOp", "value": "RedOpType.SUM"}},
            "output": [y, pg, {"type": "torch.distributed.ReduceOp", "value": "RedOpType.SUM"}],
        },
        "Tensor.sum.0.forward": {"input_args": [y], "input_kwargs": {},
                                 "output": [tensor([], 3.5 * s, 3.5 * s, 3.5 * s, 3.5 * s, md5=m("l"))]},
        "Module.fc.Linear.backward.0": {"input": [tensor([4, 2], 1.0, 1.0, 1.0, 2.83, md5=m("g"))],
                                        "output": [tensor([4, 8], 0.5 * s, -0.5, 0.01, 1.9 * s, md5=m("gx"))]},
        "Functional.linear.0.backward": {"input": [tensor([4, 2], 1.0, 1.0, 1.0, 2.83, md5=m("g"))],
                                         "output": [tensor([4, 8], 0.5 * s, -0.5, 0.01, 1.9 * s, md5=m("gx")),
                                                    tensor([2, 8], 3.0 * s, -2.0, 0.1, 9.0 * s, md5=m("gw")),
                                                    tensor([2], 4.0, 4.0, 4.0, 5.66, md5=m("gb"))]},
        "Module.fc.Linear.parameters_grad": {"weight": [tensor([2, 8], 3.0 * s, -2.0, 0.1, 9.0 * s, md5=m("gw"))],
                                             "bias": [tensor([2], 4.0, 4.0, 4.0, 5.66, md5=m("gb"))]},
    }
    construct = {
        "Functional.linear.0.forward": "Module.fc.Linear.forward.0",
        "Module.fc.Linear.forward.0": None,
        "Distributed.broadcast.0.forward": None,
        "Distributed.all_reduce.0.forward": None,
        "Tensor.sum.0.forward": None,
        "Module.fc.Linear.backward.0": None,
        "Functional.linear.0.backward": "Module.fc.Linear.backward.0",
    }
    stacks = [
        (["Functional.linear.0.forward"], ["File train.py, line 12, in forward, \n return self.fc(x)"]),
        (["Module.fc.Linear.forward.0"], ["File train.py, line 20, in step, \n y = model(x)"]),
        (["Distributed.broadcast.0.forward"], ["File train.py, line 21, in step, \n dist.broadcast(y, 0, group=g)"]),
        (["Distributed.all_reduce.0.forward"], ["File train.py, line 22, in step, \n dist.all_reduce(y, group=g)"]),
        (["Tensor.sum.0.forward"], ["File train.py, line 23, in step, \n loss = y.sum()"]),
    ]
    # an md5 dump is a statistics dump whose tensors carry their md5
    dump = {"task": "statistics", "level": "mix", "framework": "pytorch", "dump_data_dir": None, "data": data}
    return dump, construct, stacks


def process_group():
    for mode in ("statistics", "md5"):
        for step in (0, 1):
            dump, construct, stacks = process_group_rank(step, mode == "md5")
            write_rank(f"{OUT}/process_group/run/{mode}/step{step}/rank", dump, construct, stacks)


# ---- params_grad ----------------------------------------------------------------

RESNET = [
    # (module path, class, has parameters, its api)
    ("conv1", "Conv2d", True, "Functional.conv2d"),
    ("bn1", "BatchNorm2d", True, "Functional.batch_norm"),
    ("relu", "ReLU", False, "Functional.relu"),
    ("layer1.0.conv1", "Conv2d", True, "Functional.conv2d"),
    ("layer1.0.bn1", "BatchNorm2d", True, "Functional.batch_norm"),
    ("fc", "Linear", True, "Functional.linear"),
]
PARAMS = {"Conv2d": ["weight"], "BatchNorm2d": ["weight", "bias"], "Linear": ["weight", "bias"]}


def params_grad_rank(step, counters, micro_batches=1):
    """The newest msprobe's dump of one rank and step of a small ResNet
    (the block layer1.0 holds a conv and a bn; relu is called again after
    the block). `counters`: the gradient hooks' call counter of each module
    path, carried across steps as the newest msprobe's hook manager does."""
    data, construct, stacks = {}, {}, []
    api_count = {}
    mod_count = {}

    def t(shape, k, rg=False):
        v = 1 + 0.01 * k + 0.001 * step
        return tensor(shape, v, -v, 0.01 * v, 3 * v, rg=rg)

    def api(name, parent, k, direction, forward_name=None):
        """an API call; its backward is named with its forward's counter"""
        if forward_name:
            full = forward_name[:-len("forward")] + "backward"
            data[full] = {"input": [t([2, 4, 8, 8], k + 2)], "output": [t([2, 4, 8, 8], k + 3)]}
        else:
            c = api_count.get(name, 0)
            api_count[name] = c + 1
            full = f"{name}.{c}.{direction}"
            data[full] = {"input_args": [t([2, 4, 8, 8], k)], "input_kwargs": {}, "output": [t([2, 4, 8, 8], k + 1)]}
            stacks.append(([full], [f"File resnet.py, line {10 + k}, in forward, \n x = {name.split('.')[-1]}(x)"]))
        construct[full] = parent
        return full

    def module(path, cls, direction, parent):
        key = (path, direction)
        c = mod_count.get(key, 0)
        mod_count[key] = c + 1
        full = f"Module.{path}.{cls}.{direction}.{c}"
        k = len(data)
        if direction == "forward":
            data[full] = {"input_args": [t([2, 4, 8, 8], k)], "input_kwargs": {}, "output": [t([2, 4, 8, 8], k + 1)]}
            stacks.append(([full], [f"File resnet.py, line {40 + len(stacks)}, in forward, \n x = self.{path}(x)"]))
        else:
            data[full] = {"input": [t([2, 4, 8, 8], k)], "output": [t([2, 4, 8, 8], k + 1)]}
        construct[full] = parent
        return full

    for _ in range(micro_batches):
        # forward: the block's module is the parent of its layers
        block = None
        called = {}
        for k, (path, cls, _, fn) in enumerate(RESNET):
            parent = None
            if path.startswith("layer1.0."):
                if block is None:
                    block = module("layer1.0", "BasicBlock", "forward", None)
                parent = block
            m = module(path, cls, "forward", parent)
            called[path] = api(fn, m, k, "forward")
            if path == "layer1.0.bn1":
                m = module("relu", "ReLU", "forward", None)   # relu again, after the block
                called["relu again"] = api("Functional.relu", m, 9, "forward")
        view = api("Tensor.view", None, 20, "forward")
        loss = api("Functional.cross_entropy", None, 21, "forward")
        # backward, in reverse; each parameterised module's hooks give a
        # parameters_grad entry, keyed again at every update
        api(None, None, 22, "backward", loss)
        api(None, None, 23, "backward", view)
        bblock = None
        for k, (path, cls, has_params, fn) in reversed(list(enumerate(RESNET))):
            parent = None
            if path.startswith("layer1.0."):
                if bblock is None:
                    bblock = module("layer1.0", "BasicBlock", "backward", None)
                parent = bblock
            if path == "layer1.0.bn1":
                m = module("relu", "ReLU", "backward", None)
                api(None, m, 9, "backward", called["relu again"])
            m = module(path, cls, "backward", parent)
            api(None, m, k, "backward", called[path])
            if has_params:
                c = counters.get(path, -1) + 1
                counters[path] = c
                name = f"Module.{path}.{cls}.parameters_grad.{c}"
                data[name] = {p: [t([4, 4], 30 + i, rg=False)] for i, p in enumerate(PARAMS[cls])}
    dump = {"task": "statistics", "level": "mix", "framework": "pytorch", "dump_data_dir": None, "data": data}
    return dump, construct, stacks


def params_grad():
    counters = {}
    for step in (0, 1):
        dump, construct, stacks = params_grad_rank(step, counters)
        write_rank(f"{OUT}/params_grad/run/statistics/step{step}/rank", dump, construct, stacks)
    dump, construct, stacks = params_grad_rank(0, {}, micro_batches=2)
    write_rank(f"{OUT}/params_grad/accum/statistics/step0/rank", dump, construct, stacks)


# ---- collections -----------------------------------------------------------------

def collections_rank(side):
    """Two Linear modules and root-level APIs between them (three
    Apis_Between_Modules collections once the backward is in). The target
    ran under autocast: its Tensor.float.1.backward has one more output (the
    gradient of the cast's input, None in the bench's float32 run), its
    Tensor.mul.0.forward another shape, and its module b a bfloat16 input of
    another shape."""
    tgt = side == "target"
    s = 1.001 if tgt else 1.0

    def t(shape, k, dtype="torch.float32"):
        return tensor(shape, k * s, -k, 0.1 * k, 2 * k * s, dtype=dtype)

    data = {
        "Functional.linear.0.forward": {"input_args": [t([4, 8], 1), t([4, 8], 2), t([4], 3)], "input_kwargs": {},
                                        "output": [t([4, 4], 4)]},
        "Module.a.Linear.forward.0": {"input_args": [t([4, 8], 1)], "input_kwargs": {}, "output": [t([4, 4], 4)]},
        "Tensor.float.0.forward": {"input_args": [t([4, 4], 4)], "input_kwargs": {}, "output": [t([4, 4], 4)]},
        "Tensor.mul.0.forward": {"input_args": [t([4, 4] if not tgt else [2, 8], 4), scalar("float", 0.5)],
                                 "input_kwargs": {}, "output": [t([4, 4], 2)]},
        "Functional.linear.1.forward": {
            "input_args": [t([4, 4] if not tgt else [4, 2, 2], 2, "torch.bfloat16" if tgt else "torch.float32"),
                           t([2, 4], 5), t([2], 6)],
            "input_kwargs": {}, "output": [t([4, 2], 7)]},
        "Module.b.Linear.forward.0": {
            "input_args": [t([4, 4] if not tgt else [4, 2, 2], 2, "torch.bfloat16" if tgt else "torch.float32")],
            "input_kwargs": {}, "output": [t([4, 2], 7)]},
        "Tensor.float.1.forward": {"input_args": [t([4, 2], 7)], "input_kwargs": {}, "output": [t([4, 2], 7)]},
        "Torch.sum.0.forward": {"input_args": [t([4, 2], 7)], "input_kwargs": {}, "output": [t([], 8)]},
        "Torch.sum.0.backward": {"input": [t([], 1)], "output": [t([4, 2], 1)]},
        "Tensor.float.1.backward": {"input": [t([4, 2], 1)],
                                    "output": [t([4, 2], 1)] + ([None] if tgt else [])},
        "Module.b.Linear.backward.0": {"input": [t([4, 2], 1)], "output": [t([4, 4], 9)]},
        "Functional.linear.1.backward": {"input": [t([4, 2], 1)], "output": [t([4, 4], 9), t([2, 4], 10),
                                                                              t([2], 11)]},
        "Tensor.mul.0.backward": {"input": [t([4, 4], 9)], "output": [t([4, 4], 12)]},
        "Tensor.float.0.backward": {"input": [t([4, 4], 12)], "output": [t([4, 4], 12)]},
        "Module.a.Linear.backward.0": {"input": [t([4, 4], 12)], "output": [t([4, 8], 13)]},
        "Functional.linear.0.backward": {"input": [t([4, 4], 12)], "output": [t([4, 8], 13), t([4, 8], 14),
                                                                              t([4], 15)]},
    }
    construct = {
        "Functional.linear.0.forward": "Module.a.Linear.forward.0",
        "Module.a.Linear.forward.0": None,
        "Tensor.float.0.forward": None,
        "Tensor.mul.0.forward": None,
        "Functional.linear.1.forward": "Module.b.Linear.forward.0",
        "Module.b.Linear.forward.0": None,
        "Tensor.float.1.forward": None,
        "Torch.sum.0.forward": None,
        "Torch.sum.0.backward": None,
        "Tensor.float.1.backward": None,
        "Module.b.Linear.backward.0": None,
        "Functional.linear.1.backward": "Module.b.Linear.backward.0",
        "Tensor.mul.0.backward": None,
        "Tensor.float.0.backward": None,
        "Module.a.Linear.backward.0": None,
        "Functional.linear.0.backward": "Module.a.Linear.backward.0",
    }
    stacks = [([k], [f"File model.py, line {10 + i}, in forward, \n {k.split('.')[1]}(x)"])
              for i, k in enumerate(data) if k.endswith(".forward") or ".forward." in k]
    dump = {"task": "statistics", "level": "mix", "framework": "pytorch", "dump_data_dir": None, "data": data}
    return dump, construct, stacks


def collections():
    for side in ("target", "bench"):
        dump, construct, stacks = collections_rank(side)
        write_rank(f"{OUT}/collections/{side}/statistics/step0/rank", dump, construct, stacks)


def main():
    process_group()
    params_grad()
    collections()


if __name__ == "__main__":
    main()
