#!/usr/bin/env python3
"""Make testdata/ckpt_torch: a tiny model saved by real PyTorch two ways -- a Megatron-style
TP=1 checkpoint (torch.save of args, model, rng state) and a torch.distributed.checkpoint
directory (.metadata + .distcp) -- so that the readers are checked against what torch writes.

    python3 tests/tools/make_torch_ckpt.py testdata/ckpt_torch    # needs torch (1.13: Debian 12)

The files are checked in (about 12 KB); this script is not run by the tests."""
import sys, types, importlib.util, argparse, collections, io, os
# torch 1.13's sharded_tensor/metadata.py has a dataclass default that Python 3.11 refuses;
# load it with default_factory instead (validation only)
import importlib.abc, importlib.machinery
NAME = "torch.distributed._shard.sharded_tensor.metadata"
class Patch(importlib.machinery.SourceFileLoader):
    def get_data(self, p):
        data = super().get_data(p)
        if p.endswith(".py"):
            data = data.replace(b"field(default=TensorProperties())", b"field(default_factory=TensorProperties)")
        return data
    def get_code(self, fullname):
        return compile(self.get_data(self.path), self.path, "exec")
class Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname != NAME:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        spec.loader = Patch(fullname, spec.origin)
        return spec
sys.meta_path.insert(0, Finder())
import torch
import torch.distributed._shard.checkpoint as dcp
out = sys.argv[1]
torch.manual_seed(0)
sd = collections.OrderedDict()
sd["decoder.layers.0.mlp.linear_fc1.weight"] = torch.randn(8, 4)
sd["decoder.layers.0.mlp.linear_fc1.bias"] = torch.zeros(8)
sd["embedding.word_embeddings.weight"] = torch.randn(16, 4).to(torch.bfloat16)
sd["decoder.final_layernorm.weight"] = torch.ones(4, dtype=torch.float16)
os.makedirs(out + "/dist/iter_0000005", exist_ok=True)
open(out + "/dist/latest_checkpointed_iteration.txt", "w").write("5")
dcp.save_state_dict(sd, dcp.FileSystemWriter(out + "/dist/iter_0000005"), no_dist=True)
# the same model as a Megatron TP=1 checkpoint, torch.save of a Megatron-like dict
# Megatron's enum, as a stand-in module: Python 3.11 pickles its members as getattr(cls, name)
import enum
megatron = types.ModuleType("megatron"); core = types.ModuleType("megatron.core")
enums = types.ModuleType("megatron.core.enums")
class ModelType(enum.Enum):
    encoder_or_decoder = 1
ModelType.__module__ = "megatron.core.enums"
enums.ModelType = ModelType
sys.modules.update({"megatron": megatron, "megatron.core": core, "megatron.core.enums": enums})
args = argparse.Namespace(tensor_model_parallel_size=1, pipeline_model_parallel_size=1,
                          expert_model_parallel_size=1, num_experts=None, params_dtype=torch.bfloat16,
                          model_type=ModelType.encoder_or_decoder, lr=1e-4, data_path=["data/x"])
model = collections.OrderedDict(sd)
model["decoder.layers.0.self_attention.linear_qkv._extra_state"] = io.BytesIO(b"te")
model._metadata = collections.OrderedDict([("", {"version": 1})])
os.makedirs(out + "/mega/iter_0000005/mp_rank_00", exist_ok=True)
open(out + "/mega/latest_checkpointed_iteration.txt", "w").write("5")
torch.save({"args": args, "checkpoint_version": 3.0, "iteration": 5, "model": model,
            "rng_state": [{"torch_rng_state": torch.get_rng_state()}]},
           out + "/mega/iter_0000005/mp_rank_00/model_optim_rng.pt")
# and safetensors written by hand the library's way is covered elsewhere
print("ok")
