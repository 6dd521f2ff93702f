/* The tensor views of tensor.h: the dtype table, the 16-bit float
 * conversions, and the reads that turn any view into a plain array of
 * float, double or raw elements. A read walks the view along its innermost
 * dimension after dropping dimensions of size 1 and merging those that lie
 * densely in each other, so a C-order tensor or a slice of whole rows is
 * one run, and converts each run in fixed-size blocks the compiler
 * vectorises. Loaders finish here too: tensor_set_shape and
 * tensor_check_view refuse a shape or a view that reaches outside its
 * storage, which is why the reads need no checks of their own.
 */
#include "format/tensor.h"
#include "base/err.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name, *torch;
    unsigned char size, kind;
} dtype_table[DT_COUNT] = {
    [DT_BOOL] = { "bool", "torch.bool", 1, 'b' },
    [DT_I8] = { "int8", "torch.int8", 1, 'i' },
    [DT_U8] = { "uint8", "torch.uint8", 1, 'u' },
    [DT_I16] = { "int16", "torch.int16", 2, 'i' },
    [DT_U16] = { "uint16", "torch.uint16", 2, 'u' },
    [DT_I32] = { "int32", "torch.int32", 4, 'i' },
    [DT_U32] = { "uint32", "torch.uint32", 4, 'u' },
    [DT_I64] = { "int64", "torch.int64", 8, 'i' },
    [DT_U64] = { "uint64", "torch.uint64", 8, 'u' },
    [DT_F16] = { "float16", "torch.float16", 2, 'f' },
    [DT_BF16] = { "bfloat16", "torch.bfloat16", 2, 'f' },
    [DT_F32] = { "float32", "torch.float32", 4, 'f' },
    [DT_F64] = { "float64", "torch.float64", 8, 'f' },
    [DT_C64] = { "complex64", "torch.complex64", 8, 'c' },
    [DT_C128] = { "complex128", "torch.complex128", 16, 'c' },
};

static int dtype_ok(dtype_id dt) { return (unsigned)dt < DT_COUNT; }

const char *dtype_name(dtype_id dt) { return dtype_ok(dt) ? dtype_table[dt].name : "unknown"; }
const char *dtype_torch_name(dtype_id dt) { return dtype_ok(dt) ? dtype_table[dt].torch : "unknown"; }
size_t dtype_size(dtype_id dt) { return dtype_ok(dt) ? dtype_table[dt].size : 0; }
int dtype_is_float(dtype_id dt) { return dtype_ok(dt) && dtype_table[dt].kind == 'f'; }
int dtype_is_complex(dtype_id dt) { return dtype_ok(dt) && dtype_table[dt].kind == 'c'; }
int dtype_is_integer(dtype_id dt)
{
    return dtype_ok(dt) && (dtype_table[dt].kind == 'i' || dtype_table[dt].kind == 'u');
}

/* ---- 16-bit floats ---------------------------------------------------- */

static inline float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* Branch-free so the contiguous loops vectorise.  Exponent and mantissa
 * shifted into float position and scaled by 2^(127-15) give every finite
 * half exactly, subnormals included (the product is a normal float);
 * all-ones exponents are rebuilt as float inf/NaN with the payload kept. */
static inline float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t em = h & 0x7fffu;
    uint32_t finite = f32_bits(bits_f32(em << 13) * 0x1p112f);
    uint32_t special = 0x7f800000u | (em & 0x3ffu) << 13;
    uint32_t is_special = 0u - (uint32_t)(em >= 0x7c00u);
    return bits_f32((finite & ~is_special) | (special & is_special) | sign);
}

float f16_to_f32(uint16_t h) { return half_to_float(h); }
double f16_to_f64(uint16_t h) { return half_to_float(h); }
float bf16_to_f32(uint16_t b) { return bits_f32((uint32_t)b << 16); }
double bf16_to_f64(uint16_t b) { return bits_f32((uint32_t)b << 16); }

uint16_t f32_to_bf16(float f)
{
    uint32_t u = f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
        uint16_t top = (uint16_t)(u >> 16);
        return (top & 0x7fu) ? top : (uint16_t)(top | 0x40u);
    }
    uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)((u + rounding) >> 16);
}

uint16_t f32_to_f16(float f)
{
    uint32_t u = f32_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) {
        uint16_t payload = (uint16_t)((a >> 13) & 0x3ffu);
        return (uint16_t)(sign | 0x7c00u | (payload ? payload : 0x200u));
    }
    if (a >= 0x477ff000u) /* rounds to 65536 or more */
        return (uint16_t)(sign | 0x7c00u);
    if (a >= 0x38800000u) { /* normal half */
        uint32_t r = a - ((uint32_t)(127 - 15) << 23);
        r += 0xfffu + ((r >> 13) & 1u);
        return (uint16_t)(sign | (r >> 13));
    }
    /* Subnormal half (or zero): value / 2^-24 rounded to nearest even.
     * The float is below 2^-14, so the scaled value is below 1024 and the
     * integer rounding below is exact. */
    if (a < 0x33000000u) /* below half the smallest subnormal: zero */
        return sign;
    uint32_t mant = (a & 0x7fffffu) | 0x800000u;
    int shift = 126 - (int)(a >> 23); /* 14 .. 24 */
    uint32_t q = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1u)))
        q++;
    return (uint16_t)(sign | q);
}

/* ---- element loads ---------------------------------------------------- */

static inline uint16_t ld16(const unsigned char *p, int swap)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return swap ? __builtin_bswap16(v) : v;
}

static inline uint32_t ld32(const unsigned char *p, int swap)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t ld64(const unsigned char *p, int swap)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return swap ? __builtin_bswap64(v) : v;
}

static inline double ldf64(const unsigned char *p, int swap)
{
    uint64_t u = ld64(p, swap);
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* Real part of one element, as double; complex imaginary parts via im. */
static inline double elem_f64(dtype_id dt, const unsigned char *p, int swap, double *im)
{
    *im = 0;
    switch (dt) {
    case DT_BOOL: return p[0] != 0;
    case DT_I8: return (int8_t)p[0];
    case DT_U8: return p[0];
    case DT_I16: return (int16_t)ld16(p, swap);
    case DT_U16: return ld16(p, swap);
    case DT_I32: return (int32_t)ld32(p, swap);
    case DT_U32: return ld32(p, swap);
    case DT_I64: return (double)(int64_t)ld64(p, swap);
    case DT_U64: return (double)ld64(p, swap);
    case DT_F16: return half_to_float(ld16(p, swap));
    case DT_BF16: return bits_f32((uint32_t)ld16(p, swap) << 16);
    case DT_F32: return bits_f32(ld32(p, swap));
    case DT_F64: return ldf64(p, swap);
    case DT_C64:
        *im = bits_f32(ld32(p + 4, swap));
        return bits_f32(ld32(p, swap));
    case DT_C128:
        *im = ldf64(p + 8, swap);
        return ldf64(p, swap);
    default: return 0;
    }
}

/* float results: integers and doubles round once, to nearest (what
 * torch's .float() does), not through double. */
static inline float elem_f32(dtype_id dt, const unsigned char *p, int swap)
{
    switch (dt) {
    case DT_I64: return (float)(int64_t)ld64(p, swap);
    case DT_U64: return (float)ld64(p, swap);
    case DT_F16: return half_to_float(ld16(p, swap));
    case DT_BF16: return bits_f32((uint32_t)ld16(p, swap) << 16);
    case DT_F32: return bits_f32(ld32(p, swap));
    case DT_C64: return bits_f32(ld32(p, swap));
    default: {
        double im;
        return (float)elem_f64(dt, p, swap, &im);
    }
    }
}

/* ---- runs: n elements `step` bytes apart ------------------------------ */

/* Fixed-size blocks let the compiler vectorise at -O2 without a cost model
 * that allows epilogue loops. */
#define BLOCK 16

static void dense_f64(dtype_id dt, const unsigned char *restrict p, size_t n, double *restrict out)
{
    size_t i = 0;
    switch (dt) {
    case DT_F32:
        for (; i + BLOCK <= n; i += BLOCK)
            for (size_t j = 0; j < BLOCK; j++) {
                float v;
                memcpy(&v, p + 4 * (i + j), 4);
                out[i + j] = v;
            }
        for (; i < n; i++) {
            float v;
            memcpy(&v, p + 4 * i, 4);
            out[i] = v;
        }
        return;
    case DT_BF16:
        for (; i + BLOCK <= n; i += BLOCK)
            for (size_t j = 0; j < BLOCK; j++) {
                uint16_t v;
                memcpy(&v, p + 2 * (i + j), 2);
                out[i + j] = bits_f32((uint32_t)v << 16);
            }
        for (; i < n; i++)
            out[i] = bits_f32((uint32_t)ld16(p + 2 * i, 0) << 16);
        return;
    case DT_F16:
        for (; i + BLOCK <= n; i += BLOCK)
            for (size_t j = 0; j < BLOCK; j++) {
                uint16_t v;
                memcpy(&v, p + 2 * (i + j), 2);
                out[i + j] = half_to_float(v);
            }
        for (; i < n; i++)
            out[i] = half_to_float(ld16(p + 2 * i, 0));
        return;
    case DT_F64:
        memcpy(out, p, n * 8);
        return;
    default: {
        size_t es = dtype_size(dt);
        double im;
        for (; i < n; i++)
            out[i] = elem_f64(dt, p + es * i, 0, &im);
        return;
    }
    }
}

static void run_f64(const tensor *t, const unsigned char *p, ptrdiff_t step, size_t n, void *vout)
{
    double *out = vout;
    if (!t->byteswap && step == (ptrdiff_t)dtype_size(t->dtype)) {
        dense_f64(t->dtype, p, n, out);
        return;
    }
    double im;
    for (size_t i = 0; i < n; i++, p += step)
        out[i] = elem_f64(t->dtype, p, t->byteswap, &im);
}

static void dense_f32(dtype_id dt, const unsigned char *restrict p, size_t n, float *restrict out)
{
    size_t i = 0;
    switch (dt) {
    case DT_F32:
        memcpy(out, p, n * 4);
        return;
    case DT_BF16:
        for (; i + BLOCK <= n; i += BLOCK)
            for (size_t j = 0; j < BLOCK; j++) {
                uint16_t v;
                memcpy(&v, p + 2 * (i + j), 2);
                out[i + j] = bits_f32((uint32_t)v << 16);
            }
        break;
    case DT_F16:
        for (; i + BLOCK <= n; i += BLOCK)
            for (size_t j = 0; j < BLOCK; j++) {
                uint16_t v;
                memcpy(&v, p + 2 * (i + j), 2);
                out[i + j] = half_to_float(v);
            }
        break;
    default:
        break;
    }
    size_t es = dtype_size(dt);
    for (; i < n; i++)
        out[i] = elem_f32(dt, p + es * i, 0);
}

static void run_f32(const tensor *t, const unsigned char *p, ptrdiff_t step, size_t n, void *vout)
{
    float *out = vout;
    if (!t->byteswap && step == (ptrdiff_t)dtype_size(t->dtype)) {
        dense_f32(t->dtype, p, n, out);
        return;
    }
    for (size_t i = 0; i < n; i++, p += step)
        out[i] = elem_f32(t->dtype, p, t->byteswap);
}

static void run_complex(const tensor *t, const unsigned char *p, ptrdiff_t step, size_t n, void *vout)
{
    double *out = vout;
    for (size_t i = 0; i < n; i++, p += step)
        out[2 * i] = elem_f64(t->dtype, p, t->byteswap, &out[2 * i + 1]);
}

static void run_raw(const tensor *t, const unsigned char *p, ptrdiff_t step, size_t n, void *vout)
{
    unsigned char *out = vout;
    size_t es = dtype_size(t->dtype);
    if (!t->byteswap && step == (ptrdiff_t)es) {
        memcpy(out, p, n * es);
        return;
    }
    /* Complex numbers swap each part on its own. */
    size_t part = dtype_is_complex(t->dtype) ? es / 2 : es;
    for (size_t i = 0; i < n; i++, p += step, out += es) {
        if (!t->byteswap) {
            memcpy(out, p, es);
            continue;
        }
        for (size_t k = 0; k < es; k += part)
            for (size_t b = 0; b < part; b++)
                out[k + b] = p[k + part - 1 - b];
    }
}

typedef void (*run_fn)(const tensor *t, const unsigned char *p, ptrdiff_t step, size_t n, void *out);

/* Walk elements [start, start+n) of the view in row-major order, handing
 * each stretch along the innermost dimension to `run`.  Dimensions of size
 * 1 are dropped and neighbours that are dense relative to each other are
 * merged first, so a slice of whole rows is one long run. */
static size_t walk(const tensor *t, size_t start, size_t count, void *out, size_t out_es, run_fn run)
{
    if (start >= t->numel || count == 0)
        return 0;
    size_t n = t->numel - start < count ? t->numel - start : count;
    size_t es = dtype_size(t->dtype);
    const unsigned char *base = t->storage + (size_t)t->offset * es;
    if (t->contiguous) {
        run(t, base + start * es, (ptrdiff_t)es, n, out);
        return n;
    }
    int64_t shape[TENSOR_MAX_DIMS], stride[TENSOR_MAX_DIMS];
    int nd = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (t->shape[d] == 1)
            continue;
        if (nd > 0 && stride[nd - 1] == t->shape[d] * t->stride[d]) {
            shape[nd - 1] *= t->shape[d];
            stride[nd - 1] = t->stride[d];
            continue;
        }
        shape[nd] = t->shape[d];
        stride[nd] = t->stride[d];
        nd++;
    }
    if (nd == 0) {
        run(t, base, (ptrdiff_t)es, n, out);
        return n;
    }
    int64_t idx[TENSOR_MAX_DIMS];
    size_t rem = start;
    int64_t pos = 0;
    for (int d = nd - 1; d >= 0; d--) {
        idx[d] = (int64_t)(rem % (size_t)shape[d]);
        rem /= (size_t)shape[d];
        pos += idx[d] * stride[d];
    }
    int last = nd - 1;
    unsigned char *o = out;
    size_t done = 0;
    while (done < n) {
        size_t run_len = (size_t)(shape[last] - idx[last]);
        if (run_len > n - done)
            run_len = n - done;
        run(t, base + (size_t)pos * es, (ptrdiff_t)((size_t)stride[last] * es), run_len, o + done * out_es);
        done += run_len;
        idx[last] += (int64_t)run_len;
        pos += (int64_t)run_len * stride[last];
        for (int d = last; d > 0 && idx[d] == shape[d]; d--) {
            pos -= idx[d] * stride[d];
            idx[d] = 0;
            idx[d - 1]++;
            pos += stride[d - 1];
        }
    }
    return n;
}

size_t tensor_read_f64(const tensor *t, size_t start, size_t count, double *out)
{
    return walk(t, start, count, out, sizeof *out, run_f64);
}

size_t tensor_read_f32(const tensor *t, size_t start, size_t count, float *out)
{
    return walk(t, start, count, out, sizeof *out, run_f32);
}

size_t tensor_read_complex(const tensor *t, size_t start, size_t count, double *out)
{
    return walk(t, start, count, out, 2 * sizeof *out, run_complex);
}

size_t tensor_read_raw(const tensor *t, size_t start, size_t count, void *out)
{
    return walk(t, start, count, out, dtype_size(t->dtype), run_raw);
}

const void *tensor_contiguous_data(const tensor *t)
{
    if (!t->contiguous || t->numel == 0)
        return NULL;
    return t->storage + (size_t)t->offset * dtype_size(t->dtype);
}

/* ---- building and checking views -------------------------------------- */

int tensor_set_shape(tensor *t, const char *path, int ndim, const int64_t *shape, int fortran)
{
    if (ndim < 0 || ndim > TENSOR_MAX_DIMS)
        return err_set(ERR_LIMIT, path, "tensor has %d dimensions, at most %d are supported", ndim, TENSOR_MAX_DIMS);
    int64_t es = (int64_t)dtype_size(t->dtype);
    int64_t total = 1;    /* elements, zero dimensions skipped for the overflow check */
    int64_t bytes = es;
    int empty = 0;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] < 0)
            return err_input(path, "dimension %d of the shape is negative (%lld)", d, (long long)shape[d]);
        if (shape[d] == 0) {
            empty = 1;
            continue;
        }
        if (__builtin_mul_overflow(total, shape[d], &total) || total > TENSOR_MAX_ELEMENTS)
            return err_set(ERR_LIMIT, path, "shape is too large: more than %lld elements (2^48)",
                           (long long)TENSOR_MAX_ELEMENTS);
        if (__builtin_mul_overflow(total, es, &bytes) || (uint64_t)bytes > SIZE_MAX)
            return err_input(path, "shape is too large: the data size overflows 64 bits");
    }
    t->ndim = ndim;
    t->numel = empty ? 0 : (size_t)total;
    int64_t step = 1;
    for (int k = 0; k < ndim; k++) {
        int d = fortran ? k : ndim - 1 - k;
        t->shape[d] = shape[d];
        t->stride[d] = step;
        if (shape[d] > 0)
            step *= shape[d];
    }
    return 0;
}

int tensor_check_view(tensor *t, const char *path)
{
    size_t es = dtype_size(t->dtype);
    t->contiguous = 0;
    if (t->offset < 0)
        return err_input(path, "negative storage offset %lld", (long long)t->offset);
    for (int d = 0; d < t->ndim; d++)
        if (t->stride[d] < 0)
            return err_input(path, "negative stride %lld in dimension %d", (long long)t->stride[d], d);
    if (t->numel == 0) {
        t->storage = NULL;
        t->storage_size = 0;
        return 0;
    }
    int64_t last = t->offset;
    for (int d = 0; d < t->ndim; d++) {
        int64_t reach;
        if (__builtin_mul_overflow(t->shape[d] - 1, t->stride[d], &reach) || __builtin_add_overflow(last, reach, &last))
            return err_input(path, "strides reach beyond any possible storage");
    }
    uint64_t need;
    if (__builtin_mul_overflow((uint64_t)last + 1, (uint64_t)es, &need) || need > t->storage_size)
        return err_input(path, "data is too short: the tensor needs %llu bytes of storage, %zu are present",
                         (unsigned long long)need, t->storage_size);
    int dense = !t->byteswap;
    int64_t expect = 1;
    for (int d = t->ndim - 1; d >= 0 && dense; d--) {
        if (t->shape[d] != 1 && t->stride[d] != expect)
            dense = 0;
        expect *= t->shape[d];
    }
    t->contiguous = dense;
    return 0;
}

int tensor_crc_check(const tensor *t, const char *path, const crc_run *runs, size_t nruns)
{
    if (!t->crc.data)
        return 0;
    if (crc32_fill(t->crc.data, t->crc.size, runs, nruns) == t->crc.want)
        return 0;
    return err_input(path ? path : t->map.path, "zip entry '%.*s' fails its CRC-32 check (the archive is damaged)",
                     (int)(t->crc.entry_len < 200 ? t->crc.entry_len : 200), t->crc.entry);
}

long long tensor_crc_offset(const tensor *t)
{
    const unsigned char *c = t->crc.data ? tensor_contiguous_data(t) : NULL;
    if (!c || c < t->crc.data || c > t->crc.data + t->crc.size)
        return -1;
    return (long long)(c - t->crc.data);
}

void tensor_free(tensor *t)
{
    if (t->map.path || t->map.data)
        file_unmap(&t->map);
    free(t->owned);
    memset(t, 0, sizeof *t);
}
