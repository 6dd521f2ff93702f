#!/usr/bin/python3
"""Write the reference tensor files of testdata/tensors/ with real torch and
numpy, and a manifest of their expected contents for tests/unit/test_pt.c and
test_npy.c.  Run once by hand (Debian's python3-torch and python3-numpy);
the tests themselves never need Python.

    tests/tools/make_tensor_fixtures.py [OUTDIR]

manifest.txt: one line per file,
    NAME DTYPE NDIM DIM... | VALUE...
values in row-major order as Python float reprs (exact doubles); complex
dtypes list real and imaginary part of each element.
"""
import io
import os
import sys
import zipfile

import numpy as np
import torch

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..', 'testdata', 'tensors')
os.makedirs(out, exist_ok=True)
manifest = []


def record(name, dtype, shape, values):
    vals = []
    for v in values:
        if isinstance(v, complex):
            vals += [repr(float(v.real)), repr(float(v.imag))]
        else:
            vals.append(repr(float(v)))
    manifest.append('%s %s %d%s | %s' % (name, dtype, len(shape), ''.join(' %d' % d for d in shape), ' '.join(vals)))


def save_pt(name, t):
    path = os.path.join(out, name)
    torch.save(t, path)
    back = torch.load(path)
    if isinstance(back, np.ndarray) or isinstance(back, np.generic):
        arr = np.asarray(back)
        record(name, str(arr.dtype), arr.shape, arr.flatten().tolist())
        return
    dt = str(back.dtype).replace('torch.', '')
    flat = back.detach().contiguous().reshape(-1)
    if back.is_complex():
        values = [complex(x) for x in flat.tolist()]
    else:
        values = flat.double().tolist()
    record(name, dt, tuple(back.shape), values)


def save_npy(name, arr, version=None):
    path = os.path.join(out, name)
    with open(path, 'wb') as f:
        np.lib.format.write_array(f, arr, version=version, allow_pickle=False)
    back = np.load(path, allow_pickle=False)
    record(name, str(back.dtype.newbyteorder('=')), back.shape, back.flatten(order='C').tolist())


base = torch.arange(12, dtype=torch.float32).reshape(3, 4) * 0.25 - 1
save_pt('f32.pt', base)
save_pt('bf16.pt', (base * 3.1).to(torch.bfloat16))
save_pt('f16.pt', torch.tensor([0.0, -0.0, 1.0, -2.5, 65504.0, 6e-8, float('inf'), float('-inf'), float('nan')],
                               dtype=torch.float16))
save_pt('f64.pt', torch.tensor([[1.0 / 3, -1e300], [5e-324, 2.0]], dtype=torch.float64))
save_pt('i64.pt', torch.tensor([-(2 ** 40), -1, 0, 7, 2 ** 40], dtype=torch.int64))
save_pt('i32.pt', torch.tensor([-70000, 3, 70000], dtype=torch.int32))
save_pt('i16.pt', torch.tensor([-300, 300], dtype=torch.int16))
save_pt('i8.pt', torch.tensor([-128, 127], dtype=torch.int8))
save_pt('u8.pt', torch.tensor([0, 200, 255], dtype=torch.uint8))
save_pt('bool.pt', torch.tensor([True, False, True]))
save_pt('c64.pt', torch.tensor([1 + 2j, -0.5 - 4j], dtype=torch.complex64))
save_pt('scalar.pt', torch.tensor(3.5))
save_pt('empty.pt', torch.zeros(0, 3))
grid = torch.arange(24, dtype=torch.float32).reshape(4, 6)
save_pt('view.pt', grid[1:, ::2])            # storage offset 6, stride (6, 2)
save_pt('transposed.pt', grid.t())           # stride (1, 6)
save_pt('expanded.pt', torch.tensor([1.0, 2.0]).expand(3, 2))  # stride (0, 1)
save_pt('param.pt', torch.nn.Parameter(torch.tensor([0.5, -0.5])))
save_pt('numpy_f32.pt', np.arange(6, dtype=np.float32).reshape(2, 3) / 4)
save_pt('numpy_i64_fortran.pt', np.asfortranarray(np.arange(6, dtype=np.int64).reshape(2, 3)))
save_pt('numpy_f64_be.pt', np.array([1.5, -2.25], dtype='>f8'))
save_pt('numpy_bool.pt', np.array([True, False]))
save_pt('numpy_empty.pt', np.zeros((0,), dtype=np.float32))
save_pt('numpy_scalar.pt', np.float64(2.5))


def save_pt_protocol(name, t, protocol):
    torch.save(t, os.path.join(out, name), pickle_protocol=protocol)
    arr = np.asarray(t) if isinstance(t, np.ndarray) else t.numpy()
    record(name, str(arr.dtype.newbyteorder('=')), arr.shape, arr.flatten(order='C').tolist())


# pickle protocols other than torch's default 2: FRAME, MEMOIZE, STACK_GLOBAL,
# and numpy's protocol-5 form numpy.core.numeric._frombuffer.
save_pt_protocol('proto4.pt', base[1:], 4)
save_pt_protocol('numpy_proto5.pt', np.asfortranarray(np.arange(6, dtype='>i4').reshape(2, 3)), 5)

# The same tensor re-zipped by Python's zipfile: deflated entries, ZIP64
# records, and a folder name other than the file stem.
with open(os.path.join(out, 'f32.pt'), 'rb') as f:
    src = zipfile.ZipFile(io.BytesIO(f.read()))
with zipfile.ZipFile(os.path.join(out, 'rezipped.pt'), 'w', zipfile.ZIP_DEFLATED) as dst:
    for info in src.infolist():
        name = 'renamed/' + info.filename.split('/', 1)[1]
        with dst.open(name, 'w', force_zip64=True) as w:
            w.write(src.read(info.filename))
record('rezipped.pt', 'float32', (3, 4), base.reshape(-1).double().tolist())

grid_np = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
save_npy('f32.npy', grid_np)
save_npy('f64_fortran.npy', np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3) / 8))
save_npy('i32_be.npy', np.array([[-5, 6], [70000, -80000]], dtype='>i4'))
save_npy('bool.npy', np.array([True, False, False, True]))
save_npy('c128.npy', np.array([1 - 1j, 0.25 + 8j]))
save_npy('f16.npy', np.array([1.0, -0.5, 65504.0], dtype=np.float16))
save_npy('u64.npy', np.array([0, 2 ** 63 + 2 ** 11], dtype=np.uint64))
save_npy('scalar.npy', np.array(7, dtype=np.int16))
save_npy('v2.npy', grid_np, version=(2, 0))
save_npy('v3.npy', grid_np, version=(3, 0))

with open(os.path.join(out, 'manifest.txt'), 'w') as f:
    f.write('\n'.join(manifest) + '\n')
