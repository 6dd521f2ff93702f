#!/usr/bin/python3
"""Digest what torch reads from every .pt tensor of the shared corpus, one
line per dump_tensor_data directory, for the corpus test of
tests/unit/test_pt.c (which recomputes the digest from our reader, without
Python).  Run once by hand:

    tests/tools/corpus_tensor_digests.py [CORPUS] > testdata/tensors/corpus_digests.txt

Digest: 64-bit FNV-1a over, for each file in byte order of its name: the
name, a NUL, the dtype name (numpy style), a NUL, ndim and each dimension as
int64 little-endian, then every element in row-major order as the bits of a
little-endian double (real part for complex; any NaN as 0x7ff8000000000000).
"""
import glob
import math
import os
import struct
import sys

import torch

corpus = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..', '..', 'shared', 'corpus')
FNV_OFFSET, FNV_PRIME, MASK = 0xcbf29ce484222325, 0x100000001b3, (1 << 64) - 1


def fnv(h, data):
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & MASK
    return h


for d in sorted(glob.glob(os.path.join(corpus, '*', '*', 'tensor', '*', '*', 'dump_tensor_data'))):
    names = sorted(n for n in os.listdir(d) if n.endswith('.pt'))
    h = FNV_OFFSET
    for n in names:
        t = torch.load(os.path.join(d, n))
        dt = str(t.dtype).replace('torch.', '')
        h = fnv(h, n.encode() + b'\0' + dt.encode() + b'\0')
        h = fnv(h, struct.pack('<q', t.dim()) + b''.join(struct.pack('<q', s) for s in t.shape))
        vals = (t.real if t.is_complex() else t).double().reshape(-1).tolist()
        h = fnv(h, b''.join(b'\x00\x00\x00\x00\x00\x00\xf8\x7f' if math.isnan(v) else struct.pack('<d', v) for v in vals))
    print('%s %d %016x' % (os.path.relpath(d, corpus), len(names), h))
