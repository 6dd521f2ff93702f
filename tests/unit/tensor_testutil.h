/* Helpers of the tensor reader tests (test_tensor.c, test_npy.c, test_pt.c):
 * storing a value as any dtype, byte-swapping a stored element, and the
 * fixtures of testdata/tensors, whose manifest.txt has one line per file:
 *
 *     NAME DTYPE NDIM DIM... | VALUE...
 *
 * the values being the first elements in C order, as numpy or torch printed
 * them (complex ones as re, im pairs). Include after <cmocka.h>. */
#ifndef MSP_TENSOR_TESTUTIL_H
#define MSP_TENSOR_TESTUTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "format/tensor_file.h"
#include "format/tensor.h"

#define TT_FIXTURES "testdata/tensors/"

/* Stores v (+ im for complex dtypes) as dtype dt in host byte order. */
static inline void tt_store(dtype_id dt, double v, double im, unsigned char *p)
{
    switch (dt) {
    case DT_BOOL: p[0] = v != 0; break;
    case DT_I8: { int8_t x = (int8_t)v; memcpy(p, &x, 1); } break;
    case DT_U8: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); } break;
    case DT_I16: { int16_t x = (int16_t)v; memcpy(p, &x, 2); } break;
    case DT_U16: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); } break;
    case DT_I32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); } break;
    case DT_U32: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); } break;
    case DT_I64: { int64_t x = (int64_t)v; memcpy(p, &x, 8); } break;
    case DT_U64: { uint64_t x = (uint64_t)v; memcpy(p, &x, 8); } break;
    case DT_F16: { uint16_t x = f32_to_f16((float)v); memcpy(p, &x, 2); } break;
    case DT_BF16: { uint16_t x = f32_to_bf16((float)v); memcpy(p, &x, 2); } break;
    case DT_F32: { float x = (float)v; memcpy(p, &x, 4); } break;
    case DT_F64: memcpy(p, &v, 8); break;
    case DT_C64: { float x[2] = { (float)v, (float)im }; memcpy(p, x, 8); } break;
    case DT_C128: { double x[2] = { v, im }; memcpy(p, x, 16); } break;
    default: fail_msg("tt_store: dtype %d", (int)dt);
    }
}

/* Copies one stored element of dt from src to dst in the other byte order
 * (each half of a complex on its own); src == dst swaps in place. */
static inline void tt_swap_elem(dtype_id dt, const unsigned char *src, unsigned char *dst)
{
    size_t es = dtype_size(dt), part = dtype_is_complex(dt) ? es / 2 : es;
    for (size_t k = 0; k < es; k += part)
        for (size_t b = 0; b < (part + 1) / 2; b++) {
            unsigned char lo = src[k + b], hi = src[k + part - 1 - b];
            dst[k + b] = hi;
            dst[k + part - 1 - b] = lo;
        }
}

/* One line of the fixture manifest. */
typedef struct {
    char name[64], dtype[32];
    int ndim;
    int64_t shape[8];
    double values[64];
    int nvalues;
} tt_fixture;

/* Reads the next manifest line whose file name contains `ext`: 1, or 0 at
 * the end of the manifest. */
static inline int tt_next_fixture(FILE *m, const char *ext, tt_fixture *f)
{
    char line[8192];
    while (fgets(line, sizeof line, m)) {
        int used;
        if (sscanf(line, "%63s %31s %d%n", f->name, f->dtype, &f->ndim, &used) != 3 || !strstr(f->name, ext))
            continue;
        assert_true(f->ndim >= 0 && f->ndim <= 8);
        char *p = line + used;
        for (int d = 0; d < f->ndim; d++)
            f->shape[d] = strtoll(p, &p, 10);
        p = strchr(p, '|');
        assert_non_null(p);
        p++;
        f->nvalues = 0;
        for (char *end;; p = end) {
            double v = strtod(p, &end);
            if (end == p)
                break;
            assert_true(f->nvalues < 64);
            f->values[f->nvalues++] = v;
        }
        return 1;
    }
    return 0;
}

/* Loads the fixture file and checks its dtype, shape and first values (bit
 * for bit: the sign of a zero counts, NaN equals NaN). */
static inline void tt_load_fixture(const tt_fixture *f, tensor *t)
{
    char path[128];
    snprintf(path, sizeof path, TT_FIXTURES "%s", f->name);
    if (tensor_load(path, t) != 0)
        fail_msg("%s", err_message());
    assert_string_equal(dtype_name(t->dtype), f->dtype);
    assert_int_equal(t->ndim, f->ndim);
    for (int d = 0; d < f->ndim; d++)
        assert_int_equal(t->shape[d], f->shape[d]);
    double got[64];
    size_t n = dtype_is_complex(t->dtype) ? tensor_read_complex(t, 0, 32, got) * 2 : tensor_read_f64(t, 0, 64, got);
    assert_int_equal(n, (size_t)f->nvalues);
    for (int i = 0; i < f->nvalues; i++) {
        double g = got[i], w = f->values[i];
        if (!(g == w && signbit(g) == signbit(w)) && !(isnan(g) && isnan(w)))
            fail_msg("%s[%d]: %.17g, the manifest says %.17g", f->name, i, g, w);
    }
}

#endif
