#!/usr/bin/python3
"""Expected results of msprobe 8.1.0's real-data comparison for the
generated tensor pairs of tests/unit/test_metrics.c.

    tests/tools/gen_metrics_cases.py [MSPROBE_SRC] > tests/unit/metrics_cases.h
    tests/tools/gen_metrics_cases.py --newest NEWEST_SRC > tests/unit/metrics_cases_newest.h

With --newest, NEWEST_SRC is the newest msprobe's python/ directory (the
Ascend/msprobe repository) and the cells are what its compare writes for the
same pairs: both squeezed as its readers load them, ValidateTensor's checks,
then compare_ops_apply (its messages are not kept: its table replaces them).
Pairs it raises on are left out.

MSPROBE_SRC: the directory holding the msprobe package (default
/work/ref/debug/accuracy_tools).  Run once by hand with numpy 1.24; the
unit test never needs Python.

Each case is a recipe, not data: the test rebuilds the same bits with the
same generator (splitmix64 plus integer bit manipulation only, so both
languages agree exactly), and this script runs msprobe's own
get_error_flag_and_msg / compare_ops_apply / check_accuracy on them.
Where 8.1.0 raises instead of producing a row, the expected value is our
documented choice (lib/metrics.h): an integer/bool NPU side against a float
bench is taken as float64; a 0-d NPU tensor against a bench that is not 0-d
is "shape unmatched".
"""
import struct
import sys
import warnings

import numpy as np

NEWEST = len(sys.argv) > 2 and sys.argv[1] == '--newest'
if NEWEST:
    sys.path.insert(0, sys.argv[2])
else:
    sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else '/work/ref/debug/accuracy_tools')
warnings.filterwarnings('ignore')
if NEWEST:
    from msprobe.core.compare.npy_compare import compare_ops_apply, ValidateTensor, CompareResult  # noqa: E402
    from msprobe.core.compare.multiprocessing_compute import check_accuracy  # noqa: E402
else:
    from msprobe.core.compare.npy_compare import compare_ops_apply, get_error_flag_and_msg  # noqa: E402
    from msprobe.core.compare.multiprocessing_compute import check_accuracy  # noqa: E402

from msprobe.core.common.log import logger  # noqa: E402

logger.level = 100  # its warnings go to stdout

M64 = (1 << 64) - 1
ZERO_D = ("This is type of 0-d tensor, can not calculate 'Cosine', 'EucDist', 'One Thousandth Err Ratio' "
          "and 'Five Thousandths Err Ratio'. ")
MAXABS_NAN = "Cannot compare by MaxAbsError, the data contains nan/inf/-inf in dump data."
MAXREL_NAN = "Cannot compare by MaxRelativeError, the data contains nan/inf/-inf in dump data."
DTYPE_MSG = "Dtype of NPU and bench tensor do not match."

DTYPES = ['bool', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64',
          'float16', 'bfloat16', 'float32', 'float64', 'complex64', 'complex128']
C_ENUM = {'bool': 'DT_BOOL', 'int8': 'DT_I8', 'uint8': 'DT_U8', 'int16': 'DT_I16', 'uint16': 'DT_U16',
          'int32': 'DT_I32', 'uint32': 'DT_U32', 'int64': 'DT_I64', 'uint64': 'DT_U64', 'float16': 'DT_F16',
          'bfloat16': 'DT_BF16', 'float32': 'DT_F32', 'float64': 'DT_F64', 'complex64': 'DT_C64',
          'complex128': 'DT_C128'}
FLOATS = ('float16', 'bfloat16', 'float32', 'float64')
COMPLEX = ('complex64', 'complex128')
# mantissa bits, exponent bits, bias
FMT = {'float16': (10, 5, 15), 'bfloat16': (7, 8, 127), 'float32': (23, 8, 127), 'float64': (52, 11, 1023)}
INT_BITS = {'bool': 1, 'int8': 8, 'uint8': 8, 'int16': 16, 'uint16': 16, 'int32': 32, 'uint32': 32,
            'int64': 64, 'uint64': 64}


class Rng:
    def __init__(self, seed):
        self.s = seed & M64

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & M64
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)


def is_signed(dt):
    return dt.startswith('int')


def part_of(dt):
    return 'float32' if dt == 'complex64' else 'float64'


def float_bits(dt, r, emin, erange):
    mb, eb, bias = FMT[dt]
    sign = r & 1
    e = emin + ((r >> 1) % erange)
    m = (r >> 12) & ((1 << mb) - 1)
    return (sign << (mb + eb)) | ((e + bias) << mb) | m


def f32_bits(v):
    return struct.unpack('<I', struct.pack('<f', v))[0]


def bits_value(dt, bits):
    if dt == 'float64':
        return struct.unpack('<d', struct.pack('<Q', bits))[0]
    if dt == 'float32':
        return struct.unpack('<f', struct.pack('<I', bits))[0]
    if dt == 'bfloat16':
        return struct.unpack('<f', struct.pack('<I', bits << 16))[0]
    return float(np.frombuffer(struct.pack('<H', bits), dtype=np.float16)[0])


def value_bits(dt, v):
    """v rounded to dt; float16 and bfloat16 from the float32 rounding."""
    if dt == 'float64':
        return struct.unpack('<Q', struct.pack('<d', v))[0]
    f = np.float32(v)
    if dt == 'float32':
        return f32_bits(float(f))
    if dt == 'float16':
        return int(np.array([f]).astype(np.float16).view(np.uint16)[0])
    u = f32_bits(float(f))
    return ((u + 0x7fff + ((u >> 16) & 1)) >> 16) & 0xffff


def special_bits(dt, what, neg=0):
    mb, eb, _ = FMT[dt]
    expo = ((1 << eb) - 1) << mb
    sign = neg << (mb + eb)
    return sign | expo | ((1 << (mb - 1)) if what == 'nan' else 0)


def wrap_int(dt, v):
    bits = INT_BITS[dt]
    if dt == 'bool':
        return v & 1
    v &= (1 << bits) - 1
    if is_signed(dt) and v >> (bits - 1):
        v -= 1 << bits
    return v


def int_gen(dt, r, irange):
    if dt == 'bool':
        return r & 1
    if irange:
        return (r % (2 * irange + 1)) - irange if is_signed(dt) else r % (irange + 1)
    return wrap_int(dt, r)


def perturb(bits, r, delta):
    if delta == 0 or bits & ~(1 << 63) == 0:
        return bits
    return bits + (r >> 12) % (2 * delta + 1) - delta


def generate(c):
    """The element lists of one case: float kinds as bit patterns, complex as
    (re, im) bit pairs, integers as Python ints."""
    dn, db, numel = c['dn'], c['db'], c['numel']
    emin, erange, delta, irange = c['emin'], c['erange'], c['delta'], c['irange']
    rng = Rng(c['seed'])
    ns, bs = [], []
    for i in range(numel):
        r1, r2 = rng.next(), rng.next()
        # NPU element and its real value
        if dn in FLOATS:
            n = float_bits(dn, r1, emin, erange)
            nre, nim = bits_value(dn, n), None
        elif dn in COMPLEX:
            p = part_of(dn)
            n = [float_bits(p, r1, emin, erange), float_bits(p, (r1 * 0x9E3779B97F4A7C15 + 1) & M64, emin, erange)]
            nre, nim = bits_value(p, n[0]), bits_value(p, n[1])
        else:
            n = int_gen(dn, r1, irange)
            nre, nim = float(n), None
        # bench element
        if db in FLOATS:
            b = perturb(value_bits(db, nre), r2, delta)
        elif db in COMPLEX:
            p = part_of(db)
            im = value_bits(p, nim) if nim is not None else float_bits(p, r2 >> 3, emin, erange)
            b = [perturb(value_bits(p, nre), r2, delta), perturb(im, r2 >> 5, delta)]
        elif dn in FLOATS or dn in COMPLEX:
            b = int_gen(db, r2 >> 12, irange)
        else:
            b = wrap_int(db, n + (r2 >> 12) % 3 - 1)
            if not is_signed(db) and db != 'bool' and irange:
                b = abs(n + (r2 >> 12) % 3 - 1)
        # zeros and NaN/inf at the same positions
        nf = dn in FLOATS or dn in COMPLEX
        bf = db in FLOATS or db in COMPLEX
        sel = r2 % 1000
        if sel < c['spec']:
            k = (r2 >> 40) % 4
            if k < 2 and not (nf and bf):
                k = 2
            if k < 2:
                what = 'nan' if k == 0 else 'inf'
                n = set_special(dn, n, what, (r2 >> 50) & 1)
                b = set_special(db, b, what, (r2 >> 51) & 1)
            else:
                if k == 2:
                    n = set_zero(dn, n)
                b = set_zero(db, b)
        elif sel < c['spec'] + c['zb']:
            b = set_zero(db, b)
        if i == c['mis']:
            if nf:
                n = set_special(dn, n, 'nan', 0)
            elif bf:
                b = set_special(db, b, 'nan', 0)
        ns.append(n)
        bs.append(b)
    return ns, bs


def set_special(dt, v, what, neg):
    if dt in COMPLEX:
        return [special_bits(part_of(dt), what, neg), v[1]]
    return special_bits(dt, what, neg)


def set_zero(dt, v):
    if dt in COMPLEX:
        return [0, 0]
    return 0


def to_numpy(dt, vals, shape):
    """What msprobe holds after loading: bfloat16 arrives as float32."""
    if dt in FLOATS:
        if dt == 'bfloat16':
            raw = np.array([v << 16 for v in vals], dtype=np.uint32).view(np.float32)
        else:
            utype = {'float16': np.uint16, 'float32': np.uint32, 'float64': np.uint64}[dt]
            raw = np.array(vals, dtype=utype).view(np.dtype(dt))
    elif dt in COMPLEX:
        p = part_of(dt)
        utype = np.uint32 if p == 'float32' else np.uint64
        raw = np.array([x for pair in vals for x in pair], dtype=utype).view(np.dtype(dt))
    else:
        raw = np.array(vals, dtype=np.dtype('bool' if dt == 'bool' else dt))
    return raw.reshape(shape)


def reference(n, b):
    if NEWEST:
        # read_pt_data / read_npy_data squeeze what they load
        r = ValidateTensor().check_tensor(CompareResult(np.squeeze(n.copy()), np.squeeze(b.copy())))
        res, msg = compare_ops_apply(r.n_value, r.b_value, r.error_flag, r.err_msg)
        return res, check_accuracy(res[0], res[2]), msg
    n2, b2, flag, msg = get_error_flag_and_msg(n.copy(), b.copy())
    res, msg = compare_ops_apply(n2, b2, flag, msg)
    return res, check_accuracy(res[0], res[2]), msg


def format_value(v):
    return float('{:.12f}'.format(v))


def encode16(msg):
    """The repeated 0-d message as letters: M (0-d sentence), X (MaxAbsErr
    NaN), Y (MaxRelativeErr NaN)."""
    out = ''
    while msg:
        for letter, text in (('M', ZERO_D), ('X', MAXABS_NAN), ('Y', MAXREL_NAN)):
            if msg.startswith(text):
                out += letter
                msg = msg[len(text):]
                break
        else:
            raise ValueError('unexpected 0-d message part: ' + msg[:60])
    return out


def expected(c):
    ns, bs = generate(c)
    n = to_numpy(c['dn'], ns[:size(c['shape_n'])], c['shape_n'])
    b = to_numpy(c['db'], bs[:size(c['shape_b'])], c['shape_b'])
    if NEWEST:
        try:
            res, acc, msg = reference(n, b)
        except Exception:
            return None
        return res, acc, '', None
    try:
        res, acc, msg = reference(n, b)
    except Exception:
        if n.shape == () and b.shape != () and n.size:
            return ['shape unmatched'] * 6, 'Unmatched', 'Shape of NPU and bench tensor do not match. Skipped.', None
        if c['dn'] in FLOATS or c['dn'] in COMPLEX or c['db'] not in FLOATS:
            raise
        # documented choice: an integer/bool NPU side is taken as float64 in
        # the relative error; everything else as numpy computes it
        res, acc, msg = reference(n.astype(np.float64), b)
        if n.shape == ():
            nn, bb = (n.astype(float), b.astype(float)) if n.dtype == bool else (n, b)
            d = np.max(np.abs(nn - bb))
            res[2] = 'Nan' if np.isnan(d) else format_value(d)
            acc = check_accuracy(res[0], res[2])
        elif msg.find(DTYPE_MSG) < 0 and not msg.startswith('The position'):
            msg = DTYPE_MSG + msg
    msg16 = None
    if ZERO_D in msg:
        msg16 = encode16(msg)
        msg = ZERO_D + (MAXABS_NAN if res[2] == 'Nan' else '') + (MAXREL_NAN if res[3] == 'Nan' else '')
    return res, acc, msg, msg16


KIND = {'Nan': 'MK_NAN', 'unsupported': 'MK_UNSUPPORTED', 'N/A': 'MK_NA', 'shape unmatched': 'MK_SHAPE'}


def cval(v):
    if isinstance(v, str):
        return KIND[v], '0'
    v = float(v)
    if v == float('inf'):
        return 'MK_NUM', 'INFINITY'
    if v == float('-inf'):
        return 'MK_NUM', '-INFINITY'
    return 'MK_NUM', v.hex()


def cstr(s):
    text = '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'
    # the test defines ZERO_D_MSG; keeps the 0-d rows short
    text = text.replace(ZERO_D, '" ZERO_D_MSG "')
    return text.replace('"" ', '').replace(' ""', '')


CASES = []


def size(shape):
    return int(np.prod(shape)) if shape != () else 1


def case(name, dn, db, shape_n, shape_b=None, seed=1, emin=-3, erange=6, delta=0, irange=20, spec=0, zb=0,
         mis=-1):
    shape_b = shape_n if shape_b is None else shape_b
    numel = max(size(shape_n), size(shape_b))
    CASES.append(dict(name=name, dn=dn, db=db, shape_n=tuple(shape_n), shape_b=tuple(shape_b), numel=numel,
                      seed=seed, emin=emin, erange=erange, delta=delta, irange=irange, spec=spec, zb=zb, mis=mis))


def build_cases():
    seed = 100
    # same-dtype floats: sizes around the vector width and the chunk size,
    # perturbations around the thresholds, zeros, matching NaN/inf, a mismatch
    deltas = {'float32': (0, 3, 9000, 40000, 200000), 'bfloat16': (0, 1, 2), 'float16': (0, 1, 2, 6),
              'float64': (0, 3, 4503599627370, 20000000000000)}
    sizes = ((1,), (2,), (3,), (4,), (5,), (7, 3), (64,), (1023,), (1024,), (1025,), (2, 2053), (4099,))
    for dt in FLOATS:
        emin = -12 if dt == 'float16' else -30
        for k, shape in enumerate(sizes):
            for delta in deltas[dt]:
                seed += 1
                spec = (0, 5, 40)[seed % 3]
                zb = (0, 3, 30)[(seed // 3) % 3]
                case('%s %s d%d' % (dt, 'x'.join(map(str, shape)), delta), dt, dt, shape, seed=seed,
                     emin=(-3 if k % 2 else emin), erange=(6 if k % 2 else 20), delta=delta, spec=spec, zb=zb)
        for shape in ((4,), (1025,), (3000,)):
            seed += 1
            case('%s mismatch %d' % (dt, shape[0]), dt, dt, shape, seed=seed, delta=1, spec=20,
                 mis=shape[0] // 2)
        seed += 1
        case('%s all zero bench' % dt, dt, dt, (300,), seed=seed, delta=1, zb=1000)
        seed += 1
        case('%s specials only' % dt, dt, dt, (50,), seed=seed, spec=1000)
    # float16 extremes: subnormals, overflow of the relative error to inf
    for delta in (0, 1, 3):
        seed += 1
        case('float16 subnormal range d%d' % delta, 'float16', 'float16', (2048,), seed=seed, emin=-14, erange=3,
             delta=delta, zb=20)
        seed += 1
        case('float16 wide range d%d' % delta, 'float16', 'float16', (2048,), seed=seed, emin=-14, erange=30,
             delta=delta, zb=20, spec=10)
    # mixed float pairs
    mixed = [('float16', 'float32'), ('float32', 'float16'), ('bfloat16', 'float32'), ('float32', 'bfloat16'),
             ('float16', 'bfloat16'), ('bfloat16', 'float16'), ('float64', 'float32'), ('float32', 'float64'),
             ('float16', 'float64'), ('float64', 'float16'), ('bfloat16', 'float64'), ('float64', 'bfloat16')]
    for dn, db in mixed:
        for shape, delta, zb, spec in (((5,), 1, 200, 0), ((1031,), 2, 20, 10), ((2, 1500), 40, 50, 5)):
            seed += 1
            case('%s vs %s %d' % (dn, db, shape[-1]), dn, db, shape, seed=seed, emin=-10, erange=12,
                 delta=delta, zb=zb, spec=spec)
    # every dtype pair, small tensors (integers, bool, complex)
    for dn in DTYPES:
        for db in DTYPES:
            seed += 1
            case('%s vs %s' % (dn, db), dn, db, (3, 3), seed=seed, delta=2, zb=150, spec=100)
    # 0-d pairs: every combination, full integer ranges (numpy wraps)
    for dn in DTYPES:
        for db in DTYPES:
            for k in range(2):
                seed += 1
                case('0-d %s vs %s #%d' % (dn, db, k), dn, db, (), seed=seed, delta=3, irange=0,
                     spec=(0, 400)[k], zb=(0, 300)[k])
    # shapes, emptiness
    case('shape mismatch', 'float32', 'float32', (2, 3), (3, 2), seed=7)
    case('rank mismatch', 'float32', 'float32', (6,), (1, 6), seed=8)
    case('0-d vs 1-d', 'float32', 'float32', (), (1,), seed=9)
    case('1-d vs 0-d', 'float32', 'float32', (1,), (), seed=10)
    case('empty vs empty', 'float32', 'float32', (0, 4), seed=11)
    case('empty vs other shape', 'float16', 'int64', (0,), (5,), seed=12)
    case('length 1 f16', 'float16', 'float16', (1, 1, 1), seed=13, delta=1)
    case('length 1 i64', 'int64', 'int64', (1,), seed=14)


def main():
    build_cases()
    who = 'the newest msprobe' if NEWEST else 'msprobe 8.1.0'
    out = ['/* Generated by tests/tools/gen_metrics_cases.py from %s with numpy %s; do not edit. */'
           % (who, np.__version__)]
    out.append('static const metrics_case gen_cases%s[] = {' % ('_newest' if NEWEST else ''))
    for c in CASES:
        e = expected(c)
        if e is None:
            continue
        res, acc, msg, msg16 = e
        kinds, vals = zip(*(cval(v) for v in res))
        dims = lambda s: '%d, {%s}' % (len(s), ', '.join(str(d) for d in s) or '0')  # noqa: E731
        out.append('    {%s, %s, %s, %s, %s, %dull, %d, %d, %d, %d, %d, %d, %d,' % (
            cstr(c['name']), C_ENUM[c['dn']], C_ENUM[c['db']], dims(c['shape_n']), dims(c['shape_b']), c['seed'],
            c['emin'], c['erange'], c['delta'], c['irange'], c['spec'], c['zb'], c['mis']))
        out.append('     {%s}, {%s}, %s, %s, %s},' % (', '.join(kinds), ', '.join(vals), cstr(acc), cstr(msg),
                                                     cstr(msg16) if msg16 else 'NULL'))
    out.append('};')
    print('\n'.join(out))


main()
