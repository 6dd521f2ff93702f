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
  inplace        the newest msprobe's dumps (level mix) of a ResNet block
                 whose ReLU works in place: the backward hooks of the
                 modules after it name the ReLU's backward as their parent
                 (the newest msprobe gives them the backward twin of their
                 forward's parent, or the root), with a parent that has no
                 backward twin and a downsample Sequential whose path is
                 deeper than its parent's; `bench_extra` calls a module the
                 target does not have three times at the root (the newest
                 msprobe numbers such Bench nodes' micro steps by their call
                 counter).
  recompute      the newest msprobe's dumps (level mix) of a Megatron-like
                 model whose layers are checkpointed: each recomputed layer's
                 forward and backward at the root (the newest msprobe moves
                 them under the backward of their first forward's parent),
                 found by torch's recompute_fn, by Megatron's
                 CheckpointFunction.backward, a recomputed forward without a
                 backward, and a root module with a recompute stack but a
                 first-level name; `ms`, a MindSpore run, moved by name alone.
  megatron       the newest msprobe's dumps of a two-micro-batch Megatron run:
                 construct.json holds megatron_micro_step_number and
                 [parent, micro step] values (the newest msprobe takes the
                 micro steps from there), with MindSpeed APIs (API nodes for
                 the newest msprobe).
  distributed    the newest msprobe's dumps of four ranks, two steps, with
                 send/recv (outputs that differ), isend/irecv, a broadcast, an
                 all_reduce, a batch_isend_irecv of P2POps, NaN outputs (-oc);
                 `bench_half` has one of the two steps and two of the four
                 ranks.
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


# ---- the newest msprobe's dumps, traced ---------------------------------------

class Trace:
    """A dump as the newest msprobe's hooks write it: a module's forward and
    backward share its call counter (`...forward.N` / `...backward.N`), an
    API's backward carries its forward's counter, construct.json maps each
    node to its parent (with `micro`: to [parent, micro step]). Statistics
    come from a running count, scaled by `s` (target against bench)."""

    def __init__(self, s=1.0, prefix="Module", micro=None):
        self.s, self.prefix, self.micro = s, prefix, micro
        self.data, self.construct, self.stacks = {}, {}, []
        self.calls, self.apis, self.k = {}, {}, 0

    def t(self, shape, dtype="torch.float32", rg=False, nan=False):
        self.k += 1
        v = (1 + 0.01 * self.k) * self.s
        if nan:
            return tensor(shape, float("nan"), -v, float("nan"), float("nan"), dtype=dtype, rg=rg)
        return tensor(shape, v, -v, 0.01 * v, 3 * v, dtype=dtype, rg=rg)

    def parent(self, name, up):
        self.construct[name] = [up, self.micro] if self.micro is not None else up

    def stack(self, name, lines):
        if lines:
            self.stacks.append(([name], lines))

    def module(self, path, cls, up, stack=None, shape=(2, 8)):
        key = f"{path}.{cls}"
        n = self.calls.get(key, 0)
        self.calls[key] = n + 1
        name = f"{self.prefix}.{path}.{cls}.forward.{n}"
        self.data[name] = {"input_args": [self.t(shape, rg=True)], "input_kwargs": {}, "output": [self.t(shape)]}
        self.parent(name, up)
        self.stack(name, stack if stack is not None else
                   [f"File model.py, line {10 + len(self.stacks)}, in forward, \n x = self.{path.split('.')[-1]}(x)"])
        return name

    def backward(self, forward_name, up, shape=(2, 8), nan=False):
        name = forward_name.replace(".forward.", ".backward.")
        self.data[name] = {"input": [self.t(shape)], "output": [self.t(shape, nan=nan)]}
        self.parent(name, up)
        return name

    def api(self, api, up, shape=(2, 8), stack=None, nan=False, inputs=None, kwargs=None, output=None):
        n = self.apis.get(api, 0)
        self.apis[api] = n + 1
        name = f"{api}.{n}.forward"
        self.data[name] = {"input_args": inputs if inputs is not None else [self.t(shape), self.t(shape, rg=True)],
                           "input_kwargs": kwargs or {},
                           "output": output if output is not None else [self.t(shape, nan=nan)]}
        self.parent(name, up)
        self.stack(name, stack if stack is not None else
                   [f"File model.py, line {100 + len(self.stacks)}, in forward, \n x = {api.split('.')[-1]}(x)"])
        return name

    def api_backward(self, forward_name, up, shape=(2, 8)):
        name = forward_name[:-len("forward")] + "backward"
        self.data[name] = {"input": [self.t(shape)], "output": [self.t(shape), self.t(shape)]}
        self.parent(name, up)
        return name

    def params_grad(self, forward_name, params):
        path = forward_name.rsplit(".", 2)[0]
        n = self.calls.get(("grad", path), 0)
        self.calls[("grad", path)] = n + 1
        self.data[f"{path}.parameters_grad.{n}"] = {p: [self.t((4, 4))] for p in params}

    def save(self, root, framework="pytorch", task="statistics", extra_construct=None):
        construct = dict(extra_construct or {})
        construct.update(self.construct)
        dump = {"task": task, "level": "mix", "framework": framework, "dump_data_dir": None, "data": self.data}
        save(os.path.join(root, "dump.json"), dump)
        save(os.path.join(root, "construct.json"), construct)
        save(os.path.join(root, "stack.json"), stack(self.stacks))


# ---- inplace -----------------------------------------------------------------------

def inplace_rank(s, extra=False):
    """conv1, then layer1.0 (a BasicBlock: conv1, bn1, relu, conv2, bn2, a
    downsample Sequential, relu again, all in place), head inside a wrapper
    module, fc. Backward in reverse: after an in-place ReLU the hooks of the
    next modules name the ReLU's backward as their parent."""
    tr = Trace(s)
    conv1 = tr.module("conv1", "Conv2d", None)
    c = tr.api("Functional.conv2d", conv1)
    blk = tr.module("layer1.0", "BasicBlock", None)
    fw = {}
    for path, cls, api in (("conv1", "Conv2d", "Functional.conv2d"), ("bn1", "BatchNorm2d", "Functional.batch_norm"),
                           ("relu", "ReLU", "Functional.relu"), ("conv2", "Conv2d", "Functional.conv2d"),
                           ("bn2", "BatchNorm2d", "Functional.batch_norm")):
        m = tr.module(f"layer1.0.{path}", cls, blk)
        fw[path] = (m, tr.api(api, m))
    ds = tr.module("layer1.0.downsample", "Sequential", blk)
    ds0 = tr.module("layer1.0.downsample.0", "Conv2d", ds)
    ds0_api = tr.api("Functional.conv2d", ds0)
    relu2 = tr.module("layer1.0.relu", "ReLU", blk)
    relu2_api = tr.api("Functional.relu", relu2)
    wrap = tr.module("head_wrap", "Wrap", None)
    head = tr.module("head", "Linear", wrap)
    head_api = tr.api("Functional.linear", head)
    fc = tr.module("fc", "Linear", None)
    fc_api = tr.api("Functional.linear", fc)
    if extra:
        for _ in range(3):      # called three times at the root, a module the target has not
            tr.module("fc2", "Linear", None)
    loss = tr.api("Functional.cross_entropy", None)
    tr.api_backward(loss, None)
    # backward: fc and the block correct; inside the block each module
    # after an in-place ReLU hangs under that ReLU's backward
    b = tr.backward(fc, None)
    tr.api_backward(fc_api, b)
    b = tr.backward(head, "Module.layer1.0.relu.ReLU.backward.0")   # its forward's parent has no backward
    tr.api_backward(head_api, b)
    bblk = tr.backward(blk, None)
    r2 = tr.backward(relu2, bblk)
    tr.api_backward(relu2_api, r2)
    bds = tr.backward(ds, r2)                                         # wrong: under relu.backward.1
    b = tr.backward(ds0, bds)                                         # right, a deeper path than its parent's
    tr.api_backward(ds0_api, b)
    for path in ("bn2", "conv2"):
        b = tr.backward(fw[path][0], r2)                              # wrong: under relu.backward.1
        tr.api_backward(fw[path][1], b)
    r1 = tr.backward(fw["relu"][0], bblk)
    tr.api_backward(fw["relu"][1], r1)
    for path in ("bn1", "conv1"):
        b = tr.backward(fw[path][0], r1)                              # wrong: under relu.backward.0
        tr.api_backward(fw[path][1], b)
    b = tr.backward(conv1, r1)                                        # wrong, and its forward is at the root
    tr.api_backward(c, b)
    return tr


def inplace():
    for side, s in (("target", 1.001), ("bench", 1.0)):
        inplace_rank(s).save(f"{OUT}/inplace/{side}/statistics/step0/rank")
    inplace_rank(1.0, extra=True).save(f"{OUT}/inplace/bench_extra/statistics/step0/rank")


# ---- recompute ---------------------------------------------------------------------

TORCH = "/usr/lib/python3/dist-packages/torch"
RECOMPUTE_FN = [  # torch.utils.checkpoint, non-reentrant: the forward runs again in unpack_hook
    f"File {TORCH}/nn/modules/module.py, line 1529, in _call_impl, \n return forward_call(*args, **kwargs)",
    "File train.py, line 40, in custom_forward, \n return module(*inputs)",
    f"File {TORCH}/utils/checkpoint.py, line 1422, in recompute_fn, \n fn(*args, **kwargs)",
    f"File {TORCH}/utils/checkpoint.py, line 1097, in unpack_hook, \n frame.recompute_fn(*args)",
]
MEGATRON_BACKWARD = [  # Megatron's CheckpointFunction.backward, called by autograd
    f"File {TORCH}/nn/modules/module.py, line 1529, in _call_impl, \n return forward_call(*args, **kwargs)",
    "File /opt/megatron/core/tensor_parallel/random.py, line 296, in backward, \n outputs = ctx.run_function(*inputs)",
    f"File {TORCH}/autograd/function.py, line 289, in apply, \n return user_fn(self, *args)",
]
FIRST_FORWARD = ["File pretrain_gpt.py, line 120, in forward_step, \n output = model(tokens)"]


def recompute_rank(s, prefix="Module", check_stack=True):
    """Megatron-like names: Module.0.module.GPTModel (first level), its
    decoder and layers 0-2. Layers 0 and 1 are recomputed during the
    backward (their forward .1 and backward .1 at the root; layer 0 twice,
    one more than its first forwards); layer 2's forward runs again without
    a backward; the final norm runs again with a backward and a stack that
    shows no recomputation; `Module.0.module.Loss.forward.1`
    is a first-level module whose stack looks recomputed."""
    tr = Trace(s, prefix)
    p = f"0.module"
    gpt = tr.module(f"{p}", "GPTModel", None, stack=FIRST_FORWARD)
    emb = tr.module(f"{p}.embedding", "Embedding", gpt)
    tr.api("Functional.embedding", emb)
    dec = tr.module(f"{p}.decoder", "TransformerBlock", gpt)
    layers = []
    for i in range(3):
        lay = tr.module(f"{p}.decoder.layers.{i}", "TransformerLayer", dec)
        mlp = tr.module(f"{p}.decoder.layers.{i}.mlp", "MLP", lay)
        layers.append((lay, mlp, tr.api("Functional.linear", mlp), tr.api("Functional.gelu", lay)))
    norm = tr.module(f"{p}.decoder.final_layernorm", "LayerNorm", dec)
    tr.api("Functional.layer_norm", norm)
    head = tr.module(f"{p}.output_layer", "ColumnParallelLinear", gpt)
    tr.api("Functional.linear", head)
    loss = tr.module("0.module", "Loss", None, stack=FIRST_FORWARD)
    tr.api("Functional.cross_entropy", loss)
    loss1 = tr.module("0.module", "Loss", None, stack=RECOMPUTE_FN)   # first level by name: stays
    # backward: the model's, then each checkpointed layer's recomputation at
    # the root, its forward then its backward
    bgpt = tr.backward(gpt, None)
    tr.backward(head, bgpt)
    bdec = tr.backward(dec, bgpt)
    # the norm runs again at the root with a backward, its stack no
    # recomputation's: PyTorch's stays at the root
    n1 = tr.module(f"{p}.decoder.final_layernorm", "LayerNorm", None)
    tr.api("Functional.layer_norm", n1)
    tr.backward(n1, None)
    for i in (2, 1, 0, 0):
        stack_lines = RECOMPUTE_FN if i != 1 else MEGATRON_BACKWARD
        lay = tr.module(f"{p}.decoder.layers.{i}", "TransformerLayer", None,
                        stack=stack_lines if check_stack else None)
        mlp = tr.module(f"{p}.decoder.layers.{i}.mlp", "MLP", lay)
        tr.api("Functional.linear", mlp)
        tr.api("Functional.gelu", lay)
        if i == 2:
            continue     # no backward through the recomputed graph
        blay = tr.backward(lay, None)
        bmlp = tr.backward(mlp, blay)
    tr.backward(emb, bgpt)
    tr.backward(loss, None)
    tr.backward(loss1, None)
    return tr


def recompute():
    for side, s in (("target", 1.001), ("bench", 1.0)):
        recompute_rank(s).save(f"{OUT}/recompute/{side}/statistics/step0/rank")
    recompute_rank(1.0, "Cell", check_stack=False).save(f"{OUT}/recompute/ms/statistics/step0/rank",
                                                        framework="mindspore")


# ---- megatron ----------------------------------------------------------------------

def megatron_rank(s):
    """Two micro batches of a small Megatron model in a pipeline's order
    (forward 0, forward 1, backward 0, backward 1: one micro step by the
    split of 8.1.0, two by construct.json); MindSpeed's fused APIs among
    the layers' APIs."""
    tr = Trace(s)
    fw = []
    for mb in (0, 1):
        tr.micro = mb
        gpt = tr.module("0.module", "GPTModel", None)
        lay = tr.module("0.module.decoder.layers.0", "TransformerLayer", gpt)
        a = tr.api("MindSpeed.npu_rotary_position_embedding", lay)
        b = tr.api("Functional.linear", lay)
        c = tr.api("MindSpeed.npu_fusion_attention", None)
        d = tr.api("MindSpeed.npu_swiglu", None)
        loss = tr.api("Functional.cross_entropy", None)
        fw.append((gpt, lay, a, b, c, d, loss))
    for mb, (gpt, lay, a, b, c, d, loss) in enumerate(fw):
        tr.micro = mb
        tr.api_backward(loss, None)
        bgpt = tr.backward(gpt, None)
        blay = tr.backward(lay, bgpt)
        for x in (b, a):
            tr.api_backward(x, blay)
        tr.api_backward(d, None)
        tr.api_backward(c, None)
        tr.params_grad(lay, ["weight"])
    tr.micro = 0
    return tr


def megatron():
    for side, s in (("target", 1.001), ("bench", 1.0)):
        megatron_rank(s).save(f"{OUT}/megatron/{side}/statistics/step0/rank",
                              extra_construct={"megatron_micro_step_number": 1})


# ---- distributed -------------------------------------------------------------------

def p2pop(op, peer, t, pg):
    return {"class_type": "torch.distributed.P2POp", "tensor": t, "op": op, "peer": peer, "tag": 0,
            "group_id": pg["group_id"]}


def distributed_rank(rank, step, s, nan):
    """One rank of four: a module whose forward broadcasts from rank 0 and
    all-reduces over the world, then pairs of ranks (0-1, 2-3) talk: send
    and recv (recv returns the sender's rank, send None: outputs that
    differ), isend and irecv, and a batch_isend_irecv of a send and a recv
    P2POp. With `nan`, rank 2's all_reduce returns NaN."""
    tr = Trace(s + 0.01 * step)
    world = group([0, 1, 2, 3])
    net = tr.module("0.module", "Net", None)
    tr.api("Functional.linear", net)
    y = tr.t((2, 8))
    tr.api("Distributed.broadcast", net, inputs=[y, scalar("int", 0)], kwargs={"group": world},
           output=[tr.t((2, 8))])
    tr.api("Distributed.all_reduce", net, inputs=[tr.t((2, 8))],
           kwargs={"group": world, "op": {"type": "torch.distributed.ReduceOp", "value": "RedOpType.SUM"}},
           output=[tr.t((2, 8), nan=nan and rank == 2)])
    peer = rank + 1 if rank % 2 == 0 else rank - 1
    if rank % 2 == 0:
        tr.api("Distributed.send", None, inputs=[tr.t((2, 8))], kwargs={"dst": scalar("int", peer)}, output=[None])
        tr.api("Distributed.isend", None, inputs=[tr.t((2, 8))], kwargs={"dst": scalar("int", peer)}, output=[None])
    else:
        tr.api("Distributed.recv", None, inputs=[tr.t((2, 8))], kwargs={"src": scalar("int", peer)},
               output=[scalar("int", peer)])
        tr.api("Distributed.irecv", None, inputs=[tr.t((2, 8))], kwargs={"src": scalar("int", peer)},
               output=[None])
    ops = [p2pop("isend", peer, tr.t((2, 8)), world), p2pop("irecv", peer, tr.t((2, 8)), world)]
    if rank % 2:
        ops.reverse()
    tr.api("Distributed.batch_isend_irecv", None, inputs=[ops], output=[ops])
    loss = tr.api("Functional.mse_loss", None)
    tr.api_backward(loss, None)
    b = tr.backward(net, None)
    return tr


def distributed():
    for side, s in (("target", 1.001), ("bench", 1.0)):
        for step in (0, 1):
            for rank in range(4):
                distributed_rank(rank, step, s, side == "target" and step == 1).save(
                    f"{OUT}/distributed/{side}/statistics/step{step}/rank{rank}")
    # a bench of step 1 alone and ranks 0 and 1 (the newest msprobe compares
    # the steps and ranks both runs have; 8.1.0 refuses)
    for rank in range(2):
        distributed_rank(rank, 1, 1.0, False).save(f"{OUT}/distributed/bench_half/statistics/step1/rank{rank}")


def main():
    process_group()
    params_grad()
    collections()
    inplace()
    recompute()
    megatron()
    distributed()


if __name__ == "__main__":
    main()
