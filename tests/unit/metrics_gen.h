/* For tests/unit/test_metrics.c: the recipe of a generated case, the
 * generator of tests/tools/gen_metrics_cases.py bit for bit, and tensors
 * built in memory (C order, Fortran order, byte-swapped, strided).
 * Include after <cmocka.h>. */
#ifndef MSP_METRICS_GEN_H
#define MSP_METRICS_GEN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/metrics.h"
#include "format/tensor.h"

typedef struct {
    const char *name;
    dtype_id dn, db;
    int ndim_n;
    int64_t shape_n[4];
    int ndim_b;
    int64_t shape_b[4];
    uint64_t seed;
    int emin, erange;
    int64_t delta;      /* perturbation of the bench, in units in the last place */
    int irange, spec, zb, mis;
    unsigned char kind[MET_COUNT];
    double value[MET_COUNT];
    const char *accuracy;
    const char *message;
    const char *message16; /* 0-d: the 8.1.0 text as letters M / X / Y */
} metrics_case;

/* ---- building tensors in memory ------------------------------------------ */

typedef struct {
    uint64_t re, im; /* float bits or integer value (two's complement); im: complex */
} elem;

enum { L_C, L_FORTRAN, L_SWAP, L_STRIDE, L_COUNT };

static void put(unsigned char *dst, size_t size, uint64_t v, int swap)
{
    unsigned char tmp[8];
    switch (size) {
    case 1: tmp[0] = (unsigned char)v; break;
    case 2: { uint16_t x = (uint16_t)v; memcpy(tmp, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(tmp, &x, 4); break; }
    default: memcpy(tmp, &v, 8); break;
    }
    for (size_t k = 0; k < size; k++)
        dst[k] = swap ? tmp[size - 1 - k] : tmp[k];
}

static void put_elem(unsigned char *dst, dtype_id dt, const elem *e, int swap)
{
    size_t es = dtype_size(dt);
    if (dtype_is_complex(dt)) {
        put(dst, es / 2, e->re, swap);
        put(dst + es / 2, es / 2, e->im, swap);
    } else {
        put(dst, es, dt == DT_BOOL ? e->re & 1 : e->re, swap);
    }
}

/* Logical row-major element i of `shape` stored column-major. */
static size_t fortran_pos(int ndim, const int64_t *shape, size_t i)
{
    size_t pos = 0, step = 1, rest = i;
    size_t idx[TENSOR_MAX_DIMS];
    for (int d = ndim - 1; d >= 0; d--) {
        idx[d] = rest % (size_t)shape[d];
        rest /= (size_t)shape[d];
    }
    for (int d = 0; d < ndim; d++) {
        pos += idx[d] * step;
        step *= (size_t)shape[d];
    }
    return pos;
}

static void build(tensor *t, dtype_id dt, int ndim, const int64_t *shape, const elem *v, int layout)
{
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    assert_int_equal(tensor_set_shape(t, "mem", ndim, shape, layout == L_FORTRAN), 0);
    size_t es = dtype_size(dt), n = t->numel;
    size_t slots = layout == L_STRIDE ? 2 * n + 1 : n;
    unsigned char *buf = calloc(slots ? slots : 1, es);
    assert_non_null(buf);
    if (layout == L_STRIDE) {
        for (int d = 0; d < ndim; d++)
            t->stride[d] *= 2;
        t->offset = 1;
        memset(buf, 0xff, slots * es); /* NaN/garbage between the elements */
    }
    for (size_t i = 0; i < n; i++) {
        size_t pos = layout == L_FORTRAN ? fortran_pos(ndim, shape, i) : layout == L_STRIDE ? 1 + 2 * i : i;
        put_elem(buf + pos * es, dt, &v[i], layout == L_SWAP);
    }
    t->byteswap = layout == L_SWAP && es > 1;
    t->owned = buf;
    t->storage = n ? buf : NULL;
    t->storage_size = n ? slots * es : 0;
    assert_int_equal(tensor_check_view(t, "mem"), 0);
}

/* ---- the generator of tests/tools/gen_metrics_cases.py, bit for bit -------- */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int is_fl(dtype_id dt) { return dtype_is_float(dt); }
static int is_signed(dtype_id dt) { return dt == DT_I8 || dt == DT_I16 || dt == DT_I32 || dt == DT_I64; }
static dtype_id part_of(dtype_id dt) { return dt == DT_C64 ? DT_F32 : DT_F64; }

static void fmt_of(dtype_id dt, int *mb, int *eb, int *bias)
{
    switch (dt) {
    case DT_F16: *mb = 10, *eb = 5, *bias = 15; break;
    case DT_BF16: *mb = 7, *eb = 8, *bias = 127; break;
    case DT_F32: *mb = 23, *eb = 8, *bias = 127; break;
    default: *mb = 52, *eb = 11, *bias = 1023; break;
    }
}

static uint64_t float_bits(dtype_id dt, uint64_t r, int emin, int erange)
{
    int mb, eb, bias;
    fmt_of(dt, &mb, &eb, &bias);
    uint64_t sign = r & 1;
    int64_t e = emin + (int64_t)((r >> 1) % (uint64_t)erange);
    uint64_t m = (r >> 12) & ((UINT64_C(1) << mb) - 1);
    return sign << (mb + eb) | (uint64_t)(e + bias) << mb | m;
}

static double bits_value(dtype_id dt, uint64_t bits)
{
    switch (dt) {
    case DT_F16: return f16_to_f64((uint16_t)bits);
    case DT_BF16: return bf16_to_f64((uint16_t)bits);
    case DT_F32: { uint32_t u = (uint32_t)bits; float f; memcpy(&f, &u, 4); return f; }
    default: { double d; memcpy(&d, &bits, 8); return d; }
    }
}

static uint64_t value_bits(dtype_id dt, double v)
{
    float f = (float)v;
    uint32_t u;
    switch (dt) {
    case DT_F16: return f32_to_f16(f);
    case DT_BF16: return f32_to_bf16(f);
    case DT_F32: memcpy(&u, &f, 4); return u;
    default: { uint64_t b; memcpy(&b, &v, 8); return b; }
    }
}

static uint64_t special_bits(dtype_id dt, int nan, uint64_t neg)
{
    int mb, eb, bias;
    fmt_of(dt, &mb, &eb, &bias);
    uint64_t expo = ((UINT64_C(1) << eb) - 1) << mb;
    return neg << (mb + eb) | expo | (nan ? UINT64_C(1) << (mb - 1) : 0);
}

static int int_bits(dtype_id dt) { return dt == DT_BOOL ? 1 : (int)dtype_size(dt) * 8; }

static uint64_t wrap_int(dtype_id dt, uint64_t v)
{
    if (dt == DT_BOOL)
        return v & 1;
    int bits = int_bits(dt);
    if (bits == 64)
        return v;
    v &= (UINT64_C(1) << bits) - 1;
    if (is_signed(dt) && (v >> (bits - 1)))
        v |= ~((UINT64_C(1) << bits) - 1);
    return v;
}

static uint64_t int_gen(dtype_id dt, uint64_t r, int irange)
{
    if (dt == DT_BOOL)
        return r & 1;
    if (irange) {
        if (is_signed(dt))
            return (uint64_t)((int64_t)(r % (uint64_t)(2 * irange + 1)) - irange);
        return r % (uint64_t)(irange + 1);
    }
    return wrap_int(dt, r);
}

static double int_value(dtype_id dt, uint64_t v)
{
    return is_signed(dt) ? (double)(int64_t)v : (double)v;
}

static uint64_t perturb(uint64_t bits, uint64_t r, int64_t delta)
{
    if (delta == 0 || (bits & ~(UINT64_C(1) << 63)) == 0)
        return bits;
    return bits + (r >> 12) % (uint64_t)(2 * delta + 1) - (uint64_t)delta;
}

static elem set_special(dtype_id dt, elem v, int nan, uint64_t neg)
{
    if (dtype_is_complex(dt))
        v.re = special_bits(part_of(dt), nan, neg);
    else
        v.re = special_bits(dt, nan, neg);
    return v;
}

static void generate(const metrics_case *c, size_t numel, elem *ns, elem *bs)
{
    uint64_t s = c->seed;
    dtype_id dn = c->dn, db = c->db;
    int nf = is_fl(dn) || dtype_is_complex(dn), bf = is_fl(db) || dtype_is_complex(db);
    for (size_t i = 0; i < numel; i++) {
        uint64_t r1 = rng_next(&s), r2 = rng_next(&s);
        elem n = {0, 0}, b = {0, 0};
        double nre, nim = 0;
        int has_im = 0;
        if (is_fl(dn)) {
            n.re = float_bits(dn, r1, c->emin, c->erange);
            nre = bits_value(dn, n.re);
        } else if (dtype_is_complex(dn)) {
            dtype_id p = part_of(dn);
            n.re = float_bits(p, r1, c->emin, c->erange);
            n.im = float_bits(p, r1 * 0x9E3779B97F4A7C15ull + 1, c->emin, c->erange);
            nre = bits_value(p, n.re);
            nim = bits_value(p, n.im);
            has_im = 1;
        } else {
            n.re = int_gen(dn, r1, c->irange);
            nre = int_value(dn, n.re);
        }
        if (is_fl(db)) {
            b.re = perturb(value_bits(db, nre), r2, c->delta);
        } else if (dtype_is_complex(db)) {
            dtype_id p = part_of(db);
            uint64_t im = has_im ? value_bits(p, nim) : float_bits(p, r2 >> 3, c->emin, c->erange);
            b.re = perturb(value_bits(p, nre), r2, c->delta);
            b.im = perturb(im, r2 >> 5, c->delta);
        } else if (nf) {
            b.re = int_gen(db, r2 >> 12, c->irange);
        } else {
            uint64_t v = n.re + (r2 >> 12) % 3 - 1;
            b.re = wrap_int(db, v);
            if (!is_signed(db) && db != DT_BOOL && c->irange)
                b.re = (int64_t)v < 0 ? 0 - v : v;
        }
        uint64_t sel = r2 % 1000;
        if (sel < (uint64_t)c->spec) {
            uint64_t k = (r2 >> 40) % 4;
            if (k < 2 && !(nf && bf))
                k = 2;
            if (k < 2) {
                n = set_special(dn, n, k == 0, (r2 >> 50) & 1);
                b = set_special(db, b, k == 0, (r2 >> 51) & 1);
            } else {
                if (k == 2)
                    n.re = n.im = 0;
                b.re = b.im = 0;
            }
        } else if (sel < (uint64_t)(c->spec + c->zb)) {
            b.re = b.im = 0;
        }
        if ((long)i == c->mis) {
            if (nf)
                n = set_special(dn, n, 1, 0);
            else if (bf)
                b = set_special(db, b, 1, 0);
        }
        ns[i] = n;
        bs[i] = b;
    }
}

static size_t count_of(int ndim, const int64_t *shape)
{
    size_t n = 1;
    for (int d = 0; d < ndim; d++)
        n *= (size_t)shape[d];
    return n;
}


#endif
