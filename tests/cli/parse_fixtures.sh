# Sourced by tests/cli/run.sh: tensor files that are wrong on purpose, for
# tests/cli/parse_cases.txt, made in $F/t (never checked in).
# Needs $F (fixture directory) and $T (testdata/), run from the top directory.

PT=$F/t
mkdir -p "$PT"

# npy_file NAME HEADER: a version 1.0 .npy preamble with the header text
# padded to a multiple of 64 bytes, ended by a newline (no data).
npy_file() {
    h=$2
    while [ $(((10 + ${#h} + 1) % 64)) -ne 0 ]; do h="$h "; done
    h="$h
"
    len=${#h}
    # shellcheck disable=SC2059
    { printf '\223NUMPY\001\000'; printf "\\$(printf %03o $((len % 256)))\\$(printf %03o $((len / 256)))"
      printf '%s' "$h"; } > "$PT/$1"
}

head -c 140 "$T/tensors/f32.npy" > "$PT/trunc.npy"
npy_file badhdr.npy "{'descr': '<f4', 'shape': (2,), }"
npy_file object.npy "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }"
npy_file bf16raw.npy "{'descr': '<V2', 'fortran_order': False, 'shape': (2,), }"
npy_file huge.npy "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 8), }"
: > "$PT/empty.npy"
echo 'not a tensor' > "$PT/text.pt"
printf '\200\002}q\000.' > "$PT/legacy.pt"
head -c 300 "$T/tensors/f32.pt" > "$PT/trunc.pt"
# data.pkl is stored uncompressed, so the global it names can be changed in
# place (and its CRC-32 made good again, in both headers)
python3 - "$T/tensors/f32.pt" "$PT/forbidden.pt" <<'PY'
import struct, sys, zlib
b = bytearray(open(sys.argv[1], "rb").read())
at = b.find(b"_rebuild_tensor_v2")
b[at: at + 18] = b"_rebuild_tensor_vX"
for p in range(len(b)):
    if b[p: p + 4] == b"PK\x01\x02" and b[p + 46: p + 46 + struct.unpack("<H", b[p + 28: p + 30])[0]].endswith(b"data.pkl"):
        lh = struct.unpack("<I", b[p + 42: p + 46])[0]
        nl, xl = struct.unpack("<HH", b[lh + 26: lh + 30])
        start, size = lh + 30 + nl + xl, struct.unpack("<I", b[p + 20: p + 24])[0]
        crc = struct.pack("<I", zlib.crc32(b[start: start + size]))
        b[lh + 14: lh + 18] = crc
        b[p + 16: p + 20] = crc
        break
open(sys.argv[2], "wb").write(b)
PY
ln -s "$PWD/$T/tensors/f32.npy" "$PT/link.npy"
mkdir -p "$PT/dir.npy"

# Small valid pairs (spec/compare.md §5.4.5 worked examples): npy_file, then
# the little-endian element bytes.
npy_data() {
    npy_file "$1" "{'descr': '$2', 'fortran_order': False, 'shape': ($3,), }"
    # shellcheck disable=SC2059
    printf "$4" >> "$PT/$1"
}
npy_data a4.npy '<f4' 4 '\000\000\200\077\000\000\000\100\000\000\100\100\000\000\200\100'
npy_data b4.npy '<f4' 4 '\000\000\200\077\000\000\000\100\000\000\100\100\305\040\200\100'
npy_data h2.npy '<f2' 2 '\000\074\000\100'
npy_data f2.npy '<f4' 2 '\000\000\200\077\142\020\000\100'
npy_data nan_a.npy '<f4' 3 '\000\000\200\077\000\000\300\177\000\000\100\100'
npy_data nan_b.npy '<f4' 3 '\000\000\300\077\000\000\300\177\000\000\100\100'
npy_data nan_c.npy '<f4' 3 '\000\000\300\177\000\000\200\077\000\000\100\100'
