#!/usr/bin/env python3
"""Builds the seed corpus of every fuzz harness: OUT/<harness>/ (default
build/fuzz/seeds) from testdata/, tests/cli/ and ../shared/corpus (when it
exists), plus the seeds kept in tests/fuzz/seeds/<harness>/: hand-made ones,
and small files of ../shared/corpus for the harnesses that testdata/ has no
input for (anomaly.json, compare.json, monitor csv, packs, xlsx), so that a
clone without ../shared replays every harness too. Files are named by
their content's hash, so a seed found twice is kept once; files over
MAX_BYTES are left out (the fuzzer's inputs are small; big ones only slow it
down). Nothing here is checked in but tests/fuzz/seeds/.

    tests/fuzz/seeds.py [OUT]
"""
import glob
import hashlib
import io
import os
import shlex
import struct
import sys
import zipfile

MAX_BYTES = 256 << 10
TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CORPUS = os.path.normpath(os.path.join(TOP, "..", "shared", "corpus"))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "build", "fuzz", "seeds")


def files(*patterns):
    """Files matching the globs (recursive), under testdata/ and the corpus."""
    found = []
    for root in (os.path.join(TOP, "testdata"), CORPUS):
        if not os.path.isdir(root):
            continue
        for p in patterns:
            found += glob.glob(os.path.join(root, "**", p), recursive=True)
    return sorted(f for f in set(found) if os.path.isfile(f) and os.path.getsize(f) <= MAX_BYTES)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def put(harness, data):
    d = os.path.join(OUT, harness)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def put_files(harness, paths):
    for p in paths:
        put(harness, read(p))


def zip_members(paths, want):
    """Members of the zip files whose name satisfies want(name)."""
    out = []
    for p in paths:
        try:
            with zipfile.ZipFile(p) as z:
                for info in z.infolist():
                    if want(info.filename) and info.file_size <= MAX_BYTES:
                        out.append(z.read(info))
        except (zipfile.BadZipFile, OSError):
            pass
    return out


def safetensors(tensors, meta=None):
    """A safetensors file: {name: (dtype, shape, bytes)}."""
    header, data = {}, b""
    if meta is not None:
        header["__metadata__"] = meta
    for name, (dt, shape, raw) in tensors.items():
        header[name] = {"dtype": dt, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    import json
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + data


COMMANDS = ["compare", "merge_result", "parse", "nan_analyze", "config_check", "ckpt_compare", "anomaly",
            "monitor2tb", "monitor2db", "data2db", "monitor", "train_compare"]


def argv_seeds():
    """The command lines of the CLI tests, as fz_opts inputs: the command's
    index, then its arguments separated by NUL bytes."""
    out = set()
    for cases in glob.glob(os.path.join(TOP, "tests", "cli", "*cases.txt")):
        for line in open(cases, encoding="utf-8", errors="replace"):
            if line.startswith("#") or line.count("|") < 4:
                continue
            args = line.split("|", 4)[4].strip()
            try:
                words = shlex.split(args)
            except ValueError:
                continue
            while words and (words[0].startswith(("-f", "fsize:", "xfsz:", "term:", "@")) or words[0] in
                             ("pytorch", "mindspore")):
                words = words[1:]
            if words and words[0] in COMMANDS:
                out.add(bytes([COMMANDS.index(words[0])]) + b"\0".join(w.encode() for w in words[1:]))
    return sorted(out)


def main():
    json_files = files("*.json")
    yaml_files = files("*.yaml", "*.yml")
    pt_files = files("*.pt")
    xlsx_files = files("*.xlsx")
    zip_files = files("*.zip")
    csv_files = files("*.csv") + sorted(glob.glob(os.path.join(TOP, "tests", "cli", "golden", "*.csv")))

    put_files("fz_json", [f for f in json_files if os.path.getsize(f) <= 64 << 10])
    put_files("fz_json_cjson", [f for f in json_files if os.path.getsize(f) <= 64 << 10])
    put_files("fz_dump", files("dump.json", "debug.json"))
    put_files("fz_stack", files("stack.json"))
    put_files("fz_construct", files("construct.json"))
    put_files("fz_compare_json", files("compare.json"))
    put_files("fz_anomaly", files("anomaly.json"))
    put_files("fz_npy", files("*.npy"))
    put_files("fz_zip", pt_files + zip_files + xlsx_files)
    put_files("fz_pt", pt_files)
    for data in zip_members(pt_files, lambda n: n.endswith("data.pkl")):
        put("fz_pickle", data)
    put_files("fz_pickle", files(".metadata"))
    put_files("fz_ckpt", files("model_optim_rng.pt"))
    for meta in files(".metadata"):
        d = os.path.dirname(meta)
        for part in sorted(glob.glob(os.path.join(d, "*.distcp")))[:2]:
            put("fz_distcp", read(meta) + b"\n--8<--\n" + read(part))
    for y in ("fz_yaml", "fz_mapping_yaml", "fz_merge_config", "fz_cc_hyper"):
        put_files(y, yaml_files)
    put_files("fz_cc_hyper", files("*.sh"))
    put_files("fz_csv", csv_files)
    put_files("fz_monitor_csv", [f for f in csv_files if "monitor" in f])
    put_files("fz_xlsx", xlsx_files)
    put_files("fz_merge_read", xlsx_files + [f for f in csv_files if "compare_result" in f or "golden" in f])
    put_files("fz_pack", zip_files)
    put_files("fz_vis", files("*.vis"))
    put_files("fz_tfevents", files("events.out.tfevents.*"))
    put_files("fz_golden", files("golden_values*.json") + [f for f in json_files if "goldens" in f or "quirks" in f])
    put_files("fz_trainlog", files("*.log"))
    put("fz_vis", b'{"NPU": {"root": "a", "node": {"a": {"id": "a", "input_data": {"x": {"Max": NaN, "Min": -Infinity}}}}}}')
    for data in zip_members(xlsx_files, lambda n: n.endswith(".xml") or n.endswith(".rels")):
        put("fz_xml_expat", data)
    for a in argv_seeds():
        put("fz_opts", a)

    f32 = struct.pack("<4f", 1.0, -2.0, 0.5, 3.25)
    put("fz_safetensors", safetensors({"w": ("F32", [2, 2], f32)}))
    put("fz_safetensors", safetensors({"a.weight": ("BF16", [2], b"\x80\x3f\x00\x40"),
                                       "b": ("I64", [1], struct.pack("<q", 7)),
                                       "c": ("BOOL", [0], b"")}, {"format": "pt"}))
    put("fz_safetensors", b'{"weight_map": {"a": "model-00001-of-00002.safetensors", '
                          b'"b": "model-00002-of-00002.safetensors"}}')

    # the hand-made seeds
    for d in sorted(glob.glob(os.path.join(TOP, "tests", "fuzz", "seeds", "*"))):
        put_files(os.path.basename(d), sorted(glob.glob(os.path.join(d, "*"))))

    counts = {h: len(os.listdir(os.path.join(OUT, h))) for h in sorted(os.listdir(OUT))}
    print("seeds: " + ", ".join("%s %d" % kv for kv in counts.items()))


if __name__ == "__main__":
    main()
