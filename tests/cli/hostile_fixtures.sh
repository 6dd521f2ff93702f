# Sourced by tests/cli/run.sh: hostile inputs for tests/cli/hostile_cases.txt,
# made in $F/h at test time (nothing big is checked in).
# Needs $F (fixture directory) and $T (testdata/), run from the top directory.

H=$F/h
mkdir -p "$H"
h_leaf='{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [4, 4], "Max": 1.5, "Min": -1.5, "Mean": 0.1, "Norm": 3.2, "requires_grad": false}'

# 30,000 repeated keys with long common prefixes in one entry (1.7 MB):
# quadratic duplicate lookup took 85 s on such a file
awk 'BEGIN {
    printf "{\"task\": \"statistics\", \"level\": \"L1\", \"framework\": \"pytorch\", \"dump_data_dir\": null, \"data\": {\"Functional.a.0.forward\": {\"input_kwargs\": {"
    for (r = 0; r < 2; r++)
        for (i = 0; i < 15000; i++)
            printf "%s\"model.decoder.layers.attention.%05d\": {\"type\": \"int\", \"value\": %d}", (r || i ? ", " : ""), i, r
    printf "}, \"output\": []}}}\n"
}' > "$H/dups.json"
# 30,000 entries of "data" under 15,000 names: the last value wins, at the
# first position
awk -v leaf="$h_leaf" 'BEGIN {
    printf "{\"task\": \"statistics\", \"level\": \"L1\", \"framework\": \"pytorch\", \"dump_data_dir\": null, \"data\": {"
    for (r = 0; r < 2; r++)
        for (i = 0; i < 15000; i++)
            printf "%s\"Functional.linear.%d.forward\": {\"input_args\": [%s], \"output\": []}", (r || i ? ", " : ""), i, leaf
    printf "}}\n"
}' > "$H/dup_entries.json"

# names that cannot be written: invalid UTF-8 (Python cannot even read the
# file), a lone surrogate escape (Python reads it, openpyxl refuses to write
# it), a NUL
h_dump() {
    mkdir -p "$H/$1"
    printf '{"task": "statistics", "level": "L1", "data": {"%s": {"input_args": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": false, "data_name": "%s.input.0.pt"}], "output": []}}}' \
        "$2" "${3:-$2}" > "$H/$1/dump.json"
}
h_dump utf8_name "$(printf 'Functional.a\377b.0.forward')"
h_dump utf8_overlong "$(printf 'Functional.a\300\257.0.forward')"
h_dump utf8_surrogate "$(printf 'Functional.a\355\240\200.0.forward')"
h_dump surrogate_name 'Functional.a\ud800.0.forward'
h_dump surrogate_data_name 'Functional.a.0.forward' 'Functional.a\udc80.0.forward'
h_dump nul_name 'Functional.a\u0000b.0.forward'
h_dump ctrl_name 'Functional.a\u0001b\u001f.0.forward'
h_dump good_name 'Functional.\u00e9\ud83d\ude00\u4e2d.0.forward'
mkdir -p "$H/surrogate_stack" && cp "$feat_t/dump.json" "$H/surrogate_stack/" &&
    printf '{"Functional.linear.0.forward": ["File \\"a.py\\", line 1, in \\udfff"]}' > "$H/surrogate_stack/stack.json"

# A .pt whose storage inflates 64 MiB of zeros from 64 KiB (about 1000:1,
# the most deflate can do), in the compare layout too
python3 - "$T/tensors/f32.pt" "$H/bomb.pt" <<'PY'
import sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(src) as z, zipfile.ZipFile(dst, "w") as out:
    for info in z.infolist():
        data = z.read(info)
        if info.filename.endswith("/data/0"):
            out.writestr(info.filename, b"\0" * (64 << 20), zipfile.ZIP_DEFLATED, 9)
        else:
            out.writestr(info.filename, data, zipfile.ZIP_STORED)
PY
for side in target bench; do
    mkdir -p "$H/bomb_$side/dump_tensor_data"
    printf '{"task": "tensor", "level": "L1", "framework": "pytorch", "dump_data_dir": null, "data": {"Functional.a.0.forward": {"input_args": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [12], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": false, "data_name": "Functional.a.0.forward.input.0.pt"}], "output": []}}}' \
        > "$H/bomb_$side/dump.json"
done
cp "$H/bomb.pt" "$H/bomb_target/dump_tensor_data/Functional.a.0.forward.input.0.pt"
cp "$T/tensors/f32.pt" "$H/bomb_bench/dump_tensor_data/Functional.a.0.forward.input.0.pt"

# 60,000 rows: writing the result takes long enough to be interrupted
awk -v leaf="$h_leaf" 'BEGIN {
    printf "{\"task\": \"statistics\", \"level\": \"L1\", \"framework\": \"pytorch\", \"dump_data_dir\": null, \"data\": {"
    for (i = 0; i < 30000; i++)
        printf "%s\"Functional.linear.%d.forward\": {\"input_args\": [%s], \"input_kwargs\": {}, \"output\": [%s]}", (i ? ", " : ""), i, leaf, leaf
    printf "}}\n"
}' > "$H/big.json"
