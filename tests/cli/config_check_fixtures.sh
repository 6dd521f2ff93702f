# Sourced by tests/cli/run.sh: packs and checkpoints for
# tests/cli/config_check_cases.txt, made in $F/cc at test time -- good ones
# and hostile ones (zip slip, absolute names, duplicates, zip bombs, absurd
# entry counts, pickles naming what is not allowed, truncated files).
# Needs $F, $BUILD (for tools/gen_ckpt) and python3; run from the top directory.

CC=$F/cc
mkdir -p "$CC"

# ---- packs --------------------------------------------------------------------
# pack NAME.zip JSON: entries {name: text} written by Python's zipfile the
# way msprobe's ConfigChecker writes them (deflated, bare ZipInfo)
pack() {
    python3 - "$CC/$1" "$2" <<'PY'
import json, sys, warnings, zipfile
warnings.simplefilter("ignore")  # dup.zip names an entry twice on purpose
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for name, text in json.loads(sys.argv[2]):
        info = zipfile.ZipInfo(name)
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, text)
PY
}

# the two packs of a run, as Python values (inner JSON written by json.dumps)
python3 - "$CC" <<'PY'
import json, sys, zipfile
d = sys.argv[1]
def pack(name, entries):
    with zipfile.ZipFile(d + "/" + name, "w") as z:
        for entry, value in entries:
            info = zipfile.ZipInfo(entry)
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, value if isinstance(value, str) else json.dumps(value, indent=4))
s1 = {"max": 1.5, "min": -0.5, "mean": 0.25, "norm": 3.0}
s2 = {"max": 1.5, "min": -0.25, "mean": 0.25, "norm": 3.5}
stack = ["File /w/train.py, line 9, in <module>, main()", "File /w/train.py, line 3, in main, torch.manual_seed(1)"]
pack("bench.zip", [
    ("env", {"CUDA_VISIBLE_DEVICES": "0,1", "NCCL_ALGO": "Ring"}),
    ("pip", "numpy=1.26.4\ntransformers=4.40.0\n"),
    ("hyperparameters/hyperparameters_static.json", {"lr": "1e-4", "seq-length": "16", "micro-batch-size": "2", "tp": "1"}),
    ("dataset/step0/rank0/dataset.json", {"args": {"0": s1}, "kwargs": {}}),
    ("weights/step0/rank0/weight.json", {"module.w": s1, "module.b": s1}),
    ("random/rank0.json", {"torch.manual_seed": [{"count": 1, "stack": stack}]})])
pack("cmp.zip", [
    ("env", {"ASCEND_HOME_PATH": "/usr/local/Ascend", "HCCL_DETERMINISTIC": "true", "ASCEND_RT_VISIBLE_DEVICES": "0,1"}),
    ("pip", "numpy=1.26.4\ntransformers=4.41.2\npeft=0.10.0\n"),
    ("hyperparameters/hyperparameters_static.json", {"lr": "2e-4", "seq_length": "16", "micro_batch_size": 2, "tp": 1}),
    ("dataset/step0/rank0/dataset.json", {"args": {"0": s2}, "kwargs": {}}),
    ("weights/step0/rank0/weight.json", {"module.w": s2, "module.b": s1}),
    ("random/rank0.json", {"torch.manual_seed": [{"count": 2, "stack": stack}]})])
PY
pack envonly.zip '[["env", "{}"]]'
pack nothing.zip '[["notes.txt", "x"]]'
# hostile packs
pack slip.zip '[["env", "{}"], ["dataset/../../../../tmp/evil", "x"]]'
pack absolute.zip '[["/etc/cron.d/evil", "x"]]'
pack dup.zip '[["env", "{}"], ["pip", ""], ["env", "{\"X\": \"1\"}"]]'
pack notjson.zip '[["env", "PATH=/bin"]]'
pack envdir.zip '[["env/x", "{}"]]'
pack badstep.zip '[["dataset/stepA/rank0/dataset.json", "{}"]]'
pack badrank.zip '[["random/rankX.json", "{}"]]'
pack flatweights.zip '[["weights/weight.json", "{}"]]'
# a checker that fails half-way: its sheet has rows when the second file turns out broken
pack hyperbad_a.zip '[["hyperparameters/hyperparameters_static.json", "{\"a\": 1}"], ["hyperparameters/hyperparameters_dynamic.json", "[1,"]]'
pack hyperbad_b.zip '[["hyperparameters/hyperparameters_static.json", "{\"a\": 2}"], ["hyperparameters/hyperparameters_dynamic.json", "[1,"]]'
python3 - "$CC" <<'PY'
import struct, sys, warnings, zipfile, zlib
warnings.simplefilter("ignore")
d = sys.argv[1]
# a zip bomb: 64 MiB of zeros deflated to 64 KiB
with zipfile.ZipFile(d + "/bomb.zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("env", b"\0" * (64 << 20))
# an end record that claims 10^12 entries
with zipfile.ZipFile(d + "/count.zip", "w") as z:
    z.writestr("env", "{}")
data = bytearray(open(d + "/count.zip", "rb").read())
end = data.rfind(b"PK\5\6")
data[end + 8:end + 12] = struct.pack("<HH", 0xFFFF, 0xFFFF)
cd_size, cd_off = struct.unpack("<II", data[end + 12:end + 20])
z64 = struct.pack("<IQHHIIQQQQ", 0x06064b50, 44, 45, 45, 0, 0, 10**12, 10**12, cd_size, cd_off)
loc = struct.pack("<IIQI", 0x07064b50, 0, end, 1)
open(d + "/count.zip", "wb").write(bytes(data[:end]) + z64 + loc + bytes(data[end:]))
PY
printf 'not a zip at all' > "$CC/text.zip"
head -c 200 "$CC/bench.zip" > "$CC/trunc.zip"

# ---- static packs -------------------------------------------------------------
printf '#!/bin/bash\nTP=2\ntorchrun --nproc_per_node 2 train.py \\\n    --tensor-model-parallel-size $TP --lr 1e-4 --seed 1\n' > "$CC/launch.sh"
printf 'model:\n  hidden_size: 32\n  dropout: 0.1\nseed: 1\n' > "$CC/config.yml"
printf 'x' > "$CC/notes.txt"
printf 'a: [1,\n' > "$CC/broken.yaml"
pack existing.zip '[["env", "{}"]]'

# ---- checkpoints ----------------------------------------------------------------
G=$BUILD/tools/gen_ckpt
"$G" "$CC/ck_tp2" --tp 2 --pp 2 --layers 4
"$G" "$CC/ck_tp1" --tp 1 --pp 1 --layers 4 --change
"$G" "$CC/ck_vpp" --tp 2 --pp 2 --vpp 2 --layers 4
"$G" "$CC/ck_dist" --format torch_dist --tp 2 --layers 4
"$G" "$CC/ck_st" --format safetensors --layers 4
mkdir -p "$CC/ck_empty/iter_0000001"
printf '1' > "$CC/ck_empty/latest_checkpointed_iteration.txt"
mkdir -p "$CC/ck_badtracker" && printf 'latest' > "$CC/ck_badtracker/latest_checkpointed_iteration.txt"
mkdir -p "$CC/ck_noiter" && printf '7' > "$CC/ck_noiter/latest_checkpointed_iteration.txt"
cp -r "$CC/ck_tp2" "$CC/ck_missing" && rm "$CC/ck_missing/iter_0000010/mp_rank_01_001/model_optim_rng.pt"
cp -r "$CC/ck_tp2" "$CC/ck_trunc"
cc_pt=$CC/ck_trunc/iter_0000010/mp_rank_00_000/model_optim_rng.pt
head -c 3000 "$cc_pt" > "$cc_pt.cut" && mv "$cc_pt.cut" "$cc_pt"
cp -r "$CC/ck_tp2" "$CC/ck_evil" && cp -r "$CC/ck_tp2" "$CC/ck_bomb" && cp -r "$CC/ck_tp2" "$CC/ck_dupent"
python3 - "$CC" <<'PY'
import sys, warnings, zipfile, zlib
warnings.simplefilter("ignore")  # the duplicate name below is on purpose
d = sys.argv[1]
pt = "/iter_0000010/mp_rank_00_000/model_optim_rng.pt"
# a pickle that asks for subprocess.check_output (data.pkl is stored: same
# length, so the archive stays consistent once its CRC-32 is made good,
# in the local header and the central directory)
p = d + "/ck_evil" + pt
b = open(p, "rb").read()
assert b"collections\nOrderedDict" in b
b = bytearray(b.replace(b"collections\nOrderedDict", b"subprocess\ncheck_output", 1))
import io, struct
info = [i for i in zipfile.ZipFile(io.BytesIO(bytes(b))).infolist() if i.filename.endswith("data.pkl")][0]
lh = info.header_offset
nl, xl = struct.unpack("<HH", b[lh + 26: lh + 30])
crc = struct.pack("<I", zlib.crc32(b[lh + 30 + nl + xl: lh + 30 + nl + xl + info.compress_size]))
b[lh + 14: lh + 18] = crc
at = 0
while True:
    at = b.find(b"PK\x01\x02", at)
    name_len = struct.unpack("<H", b[at + 28: at + 30])[0]
    if b[at + 46: at + 46 + name_len] == info.filename.encode():
        b[at + 16: at + 20] = crc
        break
    at += 46
open(p, "wb").write(bytes(b))
# a rank file whose storages are deflated zeros, 1000:1
src = zipfile.ZipFile(d + "/ck_tp2" + pt)
with zipfile.ZipFile(d + "/ck_bomb" + pt, "w") as z:
    for info in src.infolist():
        data = src.read(info)
        if "/data/0" in info.filename:
            data = b"\0" * (16 << 20)
            z.writestr(info.filename, data, compress_type=zipfile.ZIP_DEFLATED)
        else:
            z.writestr(info.filename, data)
# the same storage record twice
with zipfile.ZipFile(d + "/ck_dupent" + pt, "a") as z:
    z.writestr("model_optim_rng/data/0", b"\0" * 8)
PY
mkdir -p "$CC/st_bad" && printf '\010\000\000\000\000\000\000\000{"a": 1}' > "$CC/st_bad/model.safetensors"
mkdir -p "$CC/dist_bad/iter_0000001" && printf '1' > "$CC/dist_bad/latest_checkpointed_iteration.txt" &&
    printf '\200\002cposix\nsystem\n.' > "$CC/dist_bad/iter_0000001/.metadata"

# a static pack of ours, compared with a pack Python's zipfile wrote
MSPROBE_PYTHON= "$BIN" config_check -q -d "$CC/launch.sh" "$CC/config.yml" -o "$CC/packed_self.zip"
