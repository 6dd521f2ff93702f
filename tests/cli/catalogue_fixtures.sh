# Sourced by tests/cli/run.sh: the catalogue of hostile files of
# tests/cli/catalogue_cases.txt, made in $F/cat at test time (nothing big
# or binary is checked in). Needs $F, $T, $BIN and python3; run from the top
# directory. Self-contained: it uses no other fixture script's files.
#
# What is hostile here and where else the suite has it (not repeated here):
#   tests/cli/hostile_cases.txt   repeated keys, invalid UTF-8 / NUL /
#                                 surrogates in names, a .pt zip bomb, a full
#                                 disk under SIGXFSZ, SIGTERM while writing
#   tests/cli/cases.txt           truncated / malformed / empty dump.json,
#                                 nesting past msprobe's limit, a symlinked
#                                 dump, an output path under a file, full disk
#   tests/cli/config_check_cases.txt  zip slip, absolute and repeated entry
#                                 names, pack and checkpoint zip bombs,
#                                 disallowed pickle globals, truncated packs
#   tests/cli/monitor_cases.txt, nan_cases.txt, parse_cases.txt, merge_cases.txt
#                                 malformed csv, empty files, symlinked and
#                                 directory inputs, full disks of their outputs

C=$F/cat
mkdir -p "$C"
# the user nobody must reach the fixtures of the "nobody:" cases
chmod 1777 "$W"
chmod 711 "$F"
chmod 755 "$C"
feat_t=$T/features/target/step0/rank0
feat_b=$T/features/bench/step0/rank0

# a dump directory NAME holding dump.json TEXT (and the features' stack.json)
cat_dump() {
    mkdir -p "$C/$1"
    printf '%s' "$2" > "$C/$1/dump.json"
    cp "$feat_t/stack.json" "$C/$1/stack.json"
}
leaf='{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [4], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": false'
head_json='{"task": "statistics", "level": "L1", "framework": "pytorch", "dump_data_dir": null, "data": '

# ---- JSON: nesting, numbers ----------------------------------------------------
deep=$(python3 -c 'print("[" * 100000 + "]" * 100000)')
cat_dump deep_dump "${head_json}{\"Functional.a.0.forward\": {\"input_args\": $deep}}}"
mkdir -p "$C/deep_stack" && cp "$feat_t/dump.json" "$C/deep_stack/" &&
    printf '{"Functional.linear.0.forward": %s}' "$deep" > "$C/deep_stack/stack.json"
printf '{"npu_path": %s}' "$deep" > "$C/deep_compare.json"
mkdir -p "$C/deep_anomaly/rank0" && printf '{"a": %s}' "$deep" > "$C/deep_anomaly/rank0/anomaly.json"
cat_dump shape_1e999 "${head_json}{\"Functional.a.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [1e999], \"Max\": 1.0, \"Min\": 0.0, \"Mean\": 0.5, \"Norm\": 1.0, \"requires_grad\": false}], \"output\": []}}}"
mkdir -p "$C/rank_1e999/rank0" &&
    printf '{"x": {"rank": 1e999, "step": 1, "micro_step": 0, "pp_stage": 0, "vpp_stage": 0, "call_id": 0, "tag_name": "0:fc/rank0/actv", "message": "m", "group_mates": [0]}}' \
        > "$C/rank_1e999/rank0/anomaly.json"
printf '{"npu_path": 1e999, "bench_path": "x"}' > "$C/num_compare.json"
# a deep YAML flow sequence as a data mapping
python3 -c 'print("a: " + "[" * 100000 + "]" * 100000)' > "$C/deep.yaml"

# ---- files that are not regular files ------------------------------------------------
mkdir -p "$C/fifo_dump" && mkfifo "$C/fifo_dump/dump.json"
mkfifo "$C/fifo.npy" "$C/fifo.zip" "$C/fifo.yaml"
mkdir -p "$C/fifo_stack" && cp "$feat_t/dump.json" "$C/fifo_stack/" && mkfifo "$C/fifo_stack/stack.json"
mkdir -p "$C/dir_dump/dump.json" "$C/dir.npy" "$C/dir.zip" "$C/dir.yaml"
mkdir -p "$C/dir_stack/stack.json" && cp "$feat_t/dump.json" "$C/dir_stack/"
mkdir -p "$C/zero" && ln -s /dev/zero "$C/zero/dump.json"
# an empty file of every kind
mkdir -p "$C/empty_stack" && cp "$feat_t/dump.json" "$C/empty_stack/" && : > "$C/empty_stack/stack.json"
: > "$C/empty.pt"
: > "$C/empty.zip"
: > "$C/empty.yaml"
: > "$C/empty.safetensors"
mkdir -p "$C/empty_anomaly/rank0" && : > "$C/empty_anomaly/rank0/anomaly.json"
mkdir -p "$C/empty_dist/iter_0000001" && printf 1 > "$C/empty_dist/latest_checkpointed_iteration.txt" &&
    : > "$C/empty_dist/iter_0000001/.metadata"
mkdir -p "$C/empty_tracker" && : > "$C/empty_tracker/latest_checkpointed_iteration.txt"
mkdir -p "$C/empty_merge" && : > "$C/empty_merge/compare_result_rank0_20261121080525.xlsx" &&
    : > "$C/empty_merge/compare_result_rank1_20261121080525.xlsx"
printf 'api:\n- Functional.linear\n' > "$C/merge.yaml"
mkdir -p "$C/empty_mon/Nov25_01-23-20-rank0-0000abc0" && : > "$C/empty_mon/Nov25_01-23-20-rank0-0000abc0/actv_0-199.csv"

# ---- symbolic links where files belong ------------------------------------------------
mkdir -p "$C/link_stack" && cp "$feat_t/dump.json" "$C/link_stack/" && ln -s "$(pwd)/$feat_t/stack.json" "$C/link_stack/stack.json"
ln -s "$(pwd)/$T/tensors/f32.npy" "$C/link.npy"
printf 'Functional.linear: Functional.linear\n' > "$C/good.yaml" && ln -s "$C/good.yaml" "$C/link.yaml"

# ---- unreadable files and directories (read as the user nobody) ---------------------------
mkdir -p "$C/noread" && cp "$feat_t/dump.json" "$feat_t/stack.json" "$C/noread/" && chmod 755 "$C/noread" &&
    chmod 000 "$C/noread/dump.json" && chmod 644 "$C/noread/stack.json"
mkdir -p "$C/noread_stack" && cp "$feat_t/dump.json" "$feat_t/stack.json" "$C/noread_stack/" && chmod 755 "$C/noread_stack" &&
    chmod 644 "$C/noread_stack/dump.json" && chmod 000 "$C/noread_stack/stack.json"
mkdir -p "$C/bench" && cp "$feat_b/dump.json" "$feat_b/stack.json" "$C/bench/" && chmod 755 "$C/bench" && chmod 644 "$C/bench"/*
cp "$T/tensors/f32.npy" "$C/noread.npy" && chmod 000 "$C/noread.npy"
cp "$C/good.yaml" "$C/noread.yaml" && chmod 000 "$C/noread.yaml"
mkdir -p "$C/noread_step/rank0" "$C/noread_step/rank1" && cp "$feat_t/dump.json" "$C/noread_step/rank0/" &&
    cp "$feat_t/dump.json" "$C/noread_step/rank1/" && chmod 755 "$C/noread_step" && chmod 644 "$C/noread_step"/rank*/dump.json &&
    chmod 755 "$C/noread_step/rank0" && chmod 000 "$C/noread_step/rank1"
mkdir -p "$C/bench_step/rank0" "$C/bench_step/rank1" && cp "$feat_b/dump.json" "$C/bench_step/rank0/" &&
    cp "$feat_b/dump.json" "$C/bench_step/rank1/" && chmod -R a+rX "$C/bench_step"
# an output directory nobody may write into
mkdir -p "$C/ro_out" && chmod 555 "$C/ro_out"

# ---- names: "../" in a tensor's data name, invalid UTF-8 in a directory name --------------
mkdir -p "$C/dotdot_t/dump_tensor_data" "$C/dotdot_b/dump_tensor_data"
cp "$T/tensors/f32.npy" "$C/dotdot_b/dump_tensor_data/Functional.a.0.forward.input.0.npy"
cp "$T/tensors/f32.npy" "$C/dotdot.npy"
for side in t b; do
    name=Functional.a.0.forward.input.0.npy
    [ $side = t ] && name=../../dotdot.npy
    printf '{"task": "tensor", "level": "L1", "framework": "pytorch", "dump_data_dir": null, "data": {"Functional.a.0.forward": {"input_args": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2, 3, 4], "Max": 1.75, "Min": -1.0, "Mean": 0.375, "Norm": 3.0, "requires_grad": false, "data_name": "%s"}], "output": []}}}' \
        "$name" > "$C/dotdot_$side/dump.json"
done
mkdir -p "$C/bad_utf8_step/rank0" "$C/bad_utf8_step/$(printf 'rank\377')" &&
    cp "$feat_t/dump.json" "$C/bad_utf8_step/rank0/" && cp "$feat_t/dump.json" "$C/bad_utf8_step/$(printf 'rank\377')/"
mkdir -p "$C/bad_utf8_bench/rank0" "$C/bad_utf8_bench/rank1" && cp "$feat_b/dump.json" "$C/bad_utf8_bench/rank0/" &&
    cp "$feat_b/dump.json" "$C/bad_utf8_bench/rank1/"

# ---- binary hostile files: tensors, zips, pickles, checkpoints, workbooks -----------------------
python3 - "$C" "$T" <<'PY'
import io, json, os, struct, sys, zipfile, zlib

C, T = sys.argv[1], sys.argv[2]

def read(path):
    with open(path, "rb") as f:
        return f.read()

def write(name, data):
    p = os.path.join(C, name)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "wb") as f:
        f.write(data)

def npy(header, data=b"", version=1):
    h = header.encode("latin1")
    pre = 10 if version == 1 else 12
    h += b" " * (-(pre + len(h) + 1) % 64) + b"\n"
    n = struct.pack("<H", len(h)) if version == 1 else struct.pack("<I", len(h))
    return b"\x93NUMPY" + bytes([version, 0]) + n + h + data

# npy: 2^62 elements, a negative dimension, data shorter than the shape, a
# header length past the end of the file
write("huge.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904,), }"))
write("huge2d.npy", npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2147483648, 2147483648), }"))
write("negative.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-3, 4), }", b"\0" * 48))
write("short.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1000,), }", b"\0" * 400))
write("inf.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1e999,), }"))
write("dims65.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (" + "1, " * 65 + "), }", b"\0" * 4))
write("headlen.npy", b"\x93NUMPY\x02\x00" + struct.pack("<I", 0xFFFFFFF0) + b"{'descr': '<f4'")

# .pt files: from the f32 tensor of testdata, rewritten
with zipfile.ZipFile(os.path.join(T, "tensors", "f32.pt")) as z:
    parts = [(i.filename, z.read(i)) for i in z.infolist()]
prefix = parts[0][0].split("/")[0]

def pt(entries, method=zipfile.ZIP_STORED):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as z:
        for name, data in entries:
            z.writestr(zipfile.ZipInfo(name), data, method)
    return b.getvalue()

def with_pickle(pkl):
    return pt([(n, pkl if n.endswith("data.pkl") else d) for n, d in parts])

good = pt(parts)
write("good.pt", good)
# pickles asking for os.system, nesting a million lists, a string claiming 4 GiB
write("system.pt", with_pickle(b"\x80\x02cos\nsystem\nq\x00X\x02\x00\x00\x00idq\x01\x85q\x02Rq\x03."))
write("nest.pt", with_pickle(b"\x80\x02" + b"]" * 1000000 + b"a" * 999999 + b"."))
write("marks.pt", with_pickle(b"\x80\x02" + b"(" * 1000000 + b"."))
# a memo index at the limit (the pickle is long enough for it to be in range)
write("memo.pt", with_pickle(b"\x80\x02K\x01r\x00\x00\x40\x00." + b"\0" * (4 << 20)))
write("bigstr.pt", with_pickle(b"\x80\x02X\xff\xff\xff\xffabc."))
# the storage shorter than the tensor: the data entry cut to half
write("short.pt", pt([(n, d[: len(d) // 2] if "/data/" in n else d) for n, d in parts]))
# central directories that lie: an entry's offset past the end, its size
# past the end, an entry count larger than the directory holds, the
# directory's own offset past the end
def patch_cd(data, fn):
    eocd = data.rfind(b"PK\x05\x06")
    cd = struct.unpack("<I", data[eocd + 16: eocd + 20])[0]
    return fn(bytearray(data), eocd, cd)
def lie_offset(b, eocd, cd):
    b[cd + 42: cd + 46] = struct.pack("<I", len(b) + 1000); return bytes(b)
def lie_size(b, eocd, cd):
    b[cd + 20: cd + 24] = struct.pack("<I", 0x7FFFFFFF); b[cd + 24: cd + 28] = struct.pack("<I", 0x7FFFFFFF); return bytes(b)
def lie_count(b, eocd, cd):
    b[eocd + 8: eocd + 12] = struct.pack("<HH", 60000, 60000); return bytes(b)
def lie_cdoff(b, eocd, cd):
    b[eocd + 16: eocd + 20] = struct.pack("<I", len(b) * 4); return bytes(b)
write("cd_offset.pt", patch_cd(good, lie_offset))
write("cd_size.pt", patch_cd(good, lie_size))
write("cd_count.pt", patch_cd(good, lie_count))
write("cd_cdoff.pt", patch_cd(good, lie_cdoff))
write("trunc.pt", good[: len(good) // 2])

# config_check packs: a lying directory, a name with a NUL, "../", truncated
def pack(entries):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as z:
        for name, text in entries:
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, text)
    return b.getvalue()
good_pack = pack([("env", "{}"), ("pip", "numpy=1.26.4\n")])
write("pack_good.zip", good_pack)
write("pack_cd.zip", patch_cd(good_pack, lie_size))
nul = bytearray(pack([("env", "{}"), ("pipXnul", "x")]))
for at in (nul.find(b"pipXnul"), nul.rfind(b"pipXnul")):
    nul[at + 3] = 0
write("pack_nul.zip", bytes(nul))
write("pack_dotdot.zip", pack([("env", "{}"), ("../../outside", "x")]))
write("pack_trunc.zip", good_pack[:-30])
# a pack whose env inflates 1000:1 (64 MiB of zeros from 64 KiB)
b = io.BytesIO()
with zipfile.ZipFile(b, "w") as z:
    z.writestr(zipfile.ZipInfo("env"), b"{}", zipfile.ZIP_STORED)
    z.writestr(zipfile.ZipInfo("pip"), b"0" * (64 << 20), zipfile.ZIP_DEFLATED, 9)
write("pack_bomb.zip", b.getvalue())

# safetensors: a header claiming 2^62 bytes, data offsets past the end, a
# header nested 100000 deep, an offset of 1e999
def st(header, data=b""):
    h = json.dumps(header).encode() if not isinstance(header, bytes) else header
    return struct.pack("<Q", len(h)) + h + data
write("st_headlen.safetensors", struct.pack("<Q", 1 << 62) + b"{}")
write("st_offsets.safetensors", st({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}, b"\0" * 8))
write("st_deep.safetensors", st(b'{"w": ' + b"[" * 100000 + b"]" * 100000 + b"}"))
write("st_1e999.safetensors", st(b'{"w": {"dtype": "F32", "shape": [1e999], "data_offsets": [0, 16]}}', b"\0" * 16))

# safetensors the format's rules refuse (its reference implementation:
# data contiguous from 0 to the end, no overlap, metadata of strings; a
# name given twice is ambiguous): overlapping offsets, a gap, data not
# starting at 0, bytes after the last tensor, a name twice, a number in
# __metadata__; a sharded index naming a tensor its shard lacks
f4 = lambda b, e: {"dtype": "F32", "shape": [(e - b) // 4], "data_offsets": [b, e]}
write("st_overlap.safetensors", st({"a": f4(0, 16), "b": f4(8, 24)}, b"\0" * 24))
write("st_gap.safetensors", st({"a": f4(0, 16), "b": f4(20, 36)}, b"\0" * 36))
write("st_start.safetensors", st({"a": f4(4, 20)}, b"\0" * 20))
write("st_tail.safetensors", st({"a": f4(0, 16)}, b"\0" * 20))
write("st_twice.safetensors", st(b'{"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}, '
                                 b'"a": {"dtype": "F32", "shape": [4], "data_offsets": [16, 32]}}', b"\0" * 32))
write("st_meta.safetensors", st({"__metadata__": {"format": "pt", "step": 7}, "a": f4(0, 16)}, b"\0" * 16))
write("st_shards/model-00001-of-00001.safetensors", st({"a": f4(0, 16)}, b"\0" * 16))
write("st_shards/model.safetensors.index.json", json.dumps(
    {"metadata": {}, "weight_map": {"a": "model-00001-of-00001.safetensors", "b": "model-00001-of-00001.safetensors"}}).encode())
# 200,000 zero-size tensors (12 MB of header), the last one out of place:
# read entry by entry, the header costs about its own size (it took 1.1 GB)
many = ",".join('"t%06d": {"dtype": "F32", "shape": [0], "data_offsets": [0, 0]}' % i for i in range(199999))
write("st_many.safetensors", st(('{' + many + ', "zlast": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}')
                                .encode(), b"\0" * 8))

# Megatron checkpoints whose state dict asks for os.system / nests deeply
for name, pkl in (("ck_system", b"\x80\x02cos\nsystem\nq\x00X\x02\x00\x00\x00idq\x01\x85q\x02Rq\x03."),
                  ("ck_nest", b"\x80\x02}q\x00X\x05\x00\x00\x00modelq\x01" + b"]" * 1000000 + b"a" * 999999 + b"s.")):
    write(name + "/latest_checkpointed_iteration.txt", b"1")
    write(name + "/iter_0000001/mp_rank_00/model_optim_rng.pt",
          pt([("archive/data.pkl", pkl), ("archive/version", b"3\n")]))
# a state dict whose model holds one dict under two keys, 40 levels down:
# 2^40 paths through 41 dicts (it hung config_check before the walk was
# bounded; tests/fuzz/regress/fz_ckpt/ has the same file)
def ns_pickle(model):
    # {"args": argparse.Namespace(tp=1, pp=1, num_layers=1), "model": model}
    import argparse, pickle
    return pickle.dumps({"args": argparse.Namespace(tensor_model_parallel_size=1, pipeline_model_parallel_size=1,
                                                    num_layers=1), "model": model, "iteration": 1}, protocol=2)
shared = {}
for _ in range(40):
    shared = {"a": shared, "b": shared}
write("ck_shared/latest_checkpointed_iteration.txt", b"1")
write("ck_shared/iter_0000001/mp_rank_00/model_optim_rng.pt",
      pt([("archive/data.pkl", ns_pickle(shared)), ("archive/version", b"3\n")]))
# torch_dist metadata asking for os.system
write("dist_system/latest_checkpointed_iteration.txt", b"1")
write("dist_system/iter_0000001/.metadata", b"\x80\x02cos\nsystem\nq\x00X\x02\x00\x00\x00idq\x01\x85q\x02Rq\x03.")


# ---- a byte flipped inside a stored zip entry (its CRC-32 no longer holds):
# a .pt, a Megatron checkpoint's storage record, a torch_dist chunk, a pack
def flipped(data, suffix, at=3):
    """data with one byte of the stored entry ending in `suffix` flipped"""
    b = bytearray(data)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        e = [i for i in z.infolist() if i.filename.endswith(suffix)][0]
    nl, xl = struct.unpack("<HH", b[e.header_offset + 26: e.header_offset + 30])
    b[e.header_offset + 30 + nl + xl + at] ^= 0x01
    return bytes(b)
write("crc.pt", flipped(good, "/data/0"))
mega = os.path.join(T, "ckpt_torch", "mega")
rank = "iter_0000005/mp_rank_00/model_optim_rng.pt"
write("ck_crc/latest_checkpointed_iteration.txt", b"5")
write("ck_crc/" + rank, flipped(read(os.path.join(mega, rank)), "/data/1"))
# ---- one bad tensor file is one bad row (msprobe's "read failed", the
# compare goes on): a tensor compare and a graph compare whose NPU files
# are good, 2^62 elements, a pickle nested a million deep, a list, a
# flipped byte; the bench's are all good
f32_npy = read(os.path.join(T, "tensors", "f32.npy"))
npu_files = [("good.npy", f32_npy), ("huge.npy", read(os.path.join(C, "huge.npy"))),
             ("nest.pt", read(os.path.join(C, "nest.pt"))), ("list.pt", with_pickle(b"\x80\x02]q\x00.")),
             ("crc.pt", read(os.path.join(C, "crc.pt")))]
for side in ("t", "b"):
    data = {}
    for i, (kind, body) in enumerate(npu_files):
        name = "Functional.a.%d.forward.input.0.%s" % (i, kind)
        write("rows_%s/dump_tensor_data/%s" % (side, name), body if side == "t" else f32_npy)
        data["Functional.a.%d.forward" % i] = {"input_args": [{
            "type": "torch.Tensor", "dtype": "torch.float32", "shape": [2, 3], "Max": 1.0, "Min": 0.0, "Mean": 0.5,
            "Norm": 1.0, "requires_grad": False, "data_name": name}], "output": []}
    write("rows_%s/dump.json" % side, json.dumps({"task": "tensor", "level": "mix", "framework": "pytorch",
                                                  "dump_data_dir": None, "data": data}).encode())
    write("rows_%s/construct.json" % side, json.dumps({k: None for k in data}).encode())
    write("rows_%s/stack.json" % side, b"{}")

def patched(data, suffix, old, new):
    """data with `old` replaced by `new` (same length) inside the stored
    entry ending in `suffix`, its CRC-32 made good in both headers"""
    b = bytearray(data)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        e = [i for i in z.infolist() if i.filename.endswith(suffix)][0]
    nl, xl = struct.unpack("<HH", b[e.header_offset + 26: e.header_offset + 30])
    at = e.header_offset + 30 + nl + xl
    body = bytes(b[at: at + e.compress_size]).replace(old, new, 1)
    b[at: at + len(body)] = body
    crc = struct.pack("<I", zlib.crc32(body))
    b[e.header_offset + 14: e.header_offset + 18] = crc
    cd = b.find(b"PK\x01\x02")
    while b[cd + 46: cd + 46 + len(e.filename)] != e.filename.encode():
        cd = b.find(b"PK\x01\x02", cd + 46)
    b[cd + 16: cd + 20] = crc
    return bytes(b)
# checkpoints that leave nothing to compare: a negative iteration in the
# tracker, a rank whose state dict has no model, a Megatron checkpoint
# against a safetensors file with no name in common
write("ck_negative/latest_checkpointed_iteration.txt", b"-10\n")
write("ck_negative/" + rank, read(os.path.join(mega, rank)))
write("ck_nomodel/latest_checkpointed_iteration.txt", b"5")
write("ck_nomodel/" + rank, patched(read(os.path.join(mega, rank)), "data.pkl", b"X\x05\x00\x00\x00model",
                                    b"X\x05\x00\x00\x00weigh"))
write("st_other.safetensors", st({"lm_head.weight": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 4))
stored_pack = pt([("env", b'{"PATH": "/usr/bin"}'), ("pip", b"numpy=1.26.4\n")])
write("pack_crc.zip", flipped(stored_pack, "pip"))
PY

# merge_result inputs made from a real compare result
"$BIN" compare -q -n "$feat_t" -b "$feat_b" -o "$C/cmp"
book=$(ls "$C"/cmp/compare_result_*.xlsx)
python3 - "$C" "$book" <<'PY'
import io, os, struct, sys, zipfile
C, book = sys.argv[1], sys.argv[2]
data = open(book, "rb").read()
def write(d, name, b):
    os.makedirs(os.path.join(C, d), exist_ok=True)
    for r in (0, 1):
        open(os.path.join(C, d, "compare_result_rank%d_20261121080525.xlsx" % r), "wb").write(b if r == 0 else data)
eocd = data.rfind(b"PK\x05\x06")
cd = struct.unpack("<I", data[eocd + 16: eocd + 20])[0]
# the sheet's entry in the central directory points past the end
lie = bytearray(data)
at = data.find(b"xl/worksheets/sheet1.xml", cd) - 46
lie[at + 42: at + 46] = struct.pack("<I", len(data) + 99)
write("book_cd", "x", bytes(lie))
write("book_trunc", "x", data[: len(data) // 2])
b = io.BytesIO()
with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(b, "w") as out:
    for info in src.infolist():
        body = src.read(info)
        if info.filename.endswith("sheet1.xml"):
            body = b"\0" * (256 << 20)
        out.writestr(info.filename, body, zipfile.ZIP_DEFLATED, 9)
write("book_bomb", "x", b.getvalue())
PY
printf 'api:\n- Functional.linear\n' > "$C/cfg.yaml"
mkdir -p "$C/merge_in" && cp "$book" "$C/merge_in/compare_result_rank0_20261121080525.xlsx" &&
    cp "$book" "$C/merge_in/compare_result_rank1_20261121080525.xlsx" && chmod 644 "$C/merge_in"/*

# an output path that is a file
: > "$C/file_out"

# a monitor tree and an anomaly tree, good, for the output cases
mkdir -p "$C/mon/Nov25_01-23-20-rank0-0000abc0"
printf 'vpp_stage,name,step,micro_step,min,max,norm,zeros,nans,mean,shape,dtype\n0,fc.input,0,0,-1.5,2.0,3.25,0.0,0,0.1,"[4, 2]",torch.float32\n' \
    > "$C/mon/Nov25_01-23-20-rank0-0000abc0/actv_0-199.csv"
mkdir -p "$C/anomaly/rank0"
awk 'BEGIN { printf "{"; for (i = 0; i < 40; i++) printf "%s\"r%d\": {\"rank\": 0, \"step\": %d, \"micro_step\": 0, \"pp_stage\": 0, \"vpp_stage\": 0, \"call_id\": %d, \"tag_name\": \"0:fc%d/rank0/actv\", \"message\": \"m\", \"group_mates\": [0]}", (i ? ", " : ""), i, i, i, i; printf "}\n" }' \
    > "$C/anomaly/rank0/anomaly.json"
awk 'BEGIN { for (s = 1; s < 200; s++) printf "0,fc.input,%d,0,-1.5,2.0,3.25,0.0,0,0.1,\"[4, 2]\",torch.float32\n", s }' \
    >> "$C/mon/Nov25_01-23-20-rank0-0000abc0/actv_0-199.csv"

# ---- rank directories, one rule for every analyzer: rank0 and rank00 are two
# dumps of rank 0; a rank or step number beyond the integer range is refused
mkdir -p "$C/anomaly_twice/rank0" "$C/anomaly_twice/rank00" &&
    cp "$C/anomaly/rank0/anomaly.json" "$C/anomaly_twice/rank0/" && cp "$C/anomaly/rank0/anomaly.json" "$C/anomaly_twice/rank00/"
mkdir -p "$C/anomaly_big/rank0" &&
    printf '{"x": {"rank": 0, "step": 99999999999999999999999, "micro_step": 0, "pp_stage": 0, "vpp_stage": 0, "call_id": 0, "tag_name": "0:fc/rank0/actv", "message": "m", "group_mates": [0]}}' \
        > "$C/anomaly_big/rank0/anomaly.json"
mkdir -p "$C/ranks_twice/rank0" "$C/ranks_twice/rank00" && cp "$feat_t/dump.json" "$C/ranks_twice/rank0/" &&
    cp "$feat_t/dump.json" "$C/ranks_twice/rank00/"
mkdir -p "$C/ranks_bench/rank0" && cp "$feat_b/dump.json" "$C/ranks_bench/rank0/"
mkdir -p "$C/ranks_huge/rank0" "$C/ranks_huge/rank99999999999999999999" && cp "$feat_t/dump.json" "$C/ranks_huge/rank0/" &&
    cp "$feat_t/dump.json" "$C/ranks_huge/rank99999999999999999999/"
mkdir -p "$C/nan_huge/rank99999999999999999999" && cp "$feat_t/dump.json" "$C/nan_huge/rank99999999999999999999/"
# data2db reads dumps as compare and nan_analyze do: the same refusals, the same messages
d2() {    # d2 NAME DUMP.JSON-TEXT: NAME/step0/rank0/dump.json
    mkdir -p "$C/$1/step0/rank0" && printf '%s' "$2" > "$C/$1/step0/rank0/dump.json"
}
d2 d2_list "${head_json}[1, 2]}"
d2 d2_name "${head_json}{\"x\": {\"input_args\": [$leaf}], \"output\": []}}}"
d2 d2_obj "${head_json}{\"Functional.a.0.forward\": [1]}}"
mkdir -p "$C/d2_fifo/step0/rank0" && mkfifo "$C/d2_fifo/step0/rank0/dump.json"
mkdir -p "$C/d2_fiforank/step0" && mkfifo "$C/d2_fiforank/step0/rank0"
mkdir -p "$C/d2_twice/step0" && cp -r "$C/d2_list/step0/rank0" "$C/d2_twice/step0/rank0" &&
    cp -r "$C/d2_list/step0/rank0" "$C/d2_twice/step0/rank00"
mkdir -p "$C/d2_step/step99999999999999999999/rank0" && cp "$feat_t/dump.json" "$C/d2_step/step99999999999999999999/rank0/"

# ---- graph: its dump directories (dump.json, construct.json, stack.json) and .vis files ----
g_dir() {    # a copy of the features' rank directory, NAME
    mkdir -p "$C/$1" && cp "$feat_t/dump.json" "$feat_t/stack.json" "$feat_t/construct.json" "$C/$1/"
}
for k in dump stack construct; do
    g_dir "g_deep_$k"
    python3 -c 'print("{\"task\": \"statistics\", \"data\": {\"a\": " + "[" * 100000 + "]" * 100000 + "}}")' > "$C/g_deep_$k/$k.json"
done
g_dir g_fifo_construct && rm "$C/g_fifo_construct/construct.json" && mkfifo "$C/g_fifo_construct/construct.json"
g_dir g_dir_construct && rm "$C/g_dir_construct/construct.json" && mkdir "$C/g_dir_construct/construct.json"
g_dir g_link_construct && rm "$C/g_link_construct/construct.json" && ln -s /dev/zero "$C/g_link_construct/construct.json"
g_dir g_empty_construct && : > "$C/g_empty_construct/construct.json"
g_dir g_num_construct && printf '{"Module.a.A.forward.0": 1e999}' > "$C/g_num_construct/construct.json"
# construct.json trees that are none: a node its own parent, two nodes each
# other's parent, a loop of three; a parent that is no key (msprobe keeps it
# outside the tree: a warning); a stack.json whose stacks are numbers
g_dir g_self && printf '{"Functional.linear.0.forward": "Functional.linear.0.forward"}' > "$C/g_self/construct.json"
g_dir g_cycle && printf '{"Functional.linear.0.forward": "Tensor.__add__.0.forward", "Tensor.__add__.0.forward": "Functional.linear.0.forward"}' \
    > "$C/g_cycle/construct.json"
g_dir g_loop && printf '{"Functional.linear.0.forward": "Tensor.__add__.0.forward", "Tensor.__add__.0.forward": "Distributed.all_reduce.0.forward", "Distributed.all_reduce.0.forward": "Functional.linear.0.forward"}' \
    > "$C/g_loop/construct.json"
g_dir g_unlisted && printf '{"Functional.linear.0.forward": "Module.gone.Gone.forward.0", "Tensor.__add__.0.forward": null}' \
    > "$C/g_unlisted/construct.json"
g_dir g_stack_num && printf '{"0": [["Functional.linear.0.forward"], 5]}' > "$C/g_stack_num/stack.json" &&
    printf '{"Functional.linear.0.forward": null}' > "$C/g_stack_num/construct.json"
# .vis files for graph view: text after the object that would end the page's
# script element, empty, cut short, nested 100,000 deep, a list, invalid
# UTF-8, a FIFO, a directory, a link to /dev/zero
printf '{"NPU": {}}</script><script>alert(1)</script>' > "$C/script.vis"
: > "$C/empty.vis"
printf '{"NPU": {"node": ' > "$C/trunc.vis"
python3 -c 'print("{\"a\": " + "[" * 100000 + "]" * 100000 + "}")' > "$C/deep.vis"
printf '[1, 2]' > "$C/list.vis"
printf '{"a": "\377"}' > "$C/utf8.vis"
mkfifo "$C/fifo.vis"
mkdir -p "$C/dir.vis"
ln -s /dev/zero "$C/zero.vis"
awk 'BEGIN { printf "{\"node\": {}, \"a\": ["; for (i = 0; i < 5000; i++) printf "%d, ", i; printf "0]}" }' > "$C/big.vis"
