/* The float32 sums of two tensors (tensor_sums.h). */
#include "model/tensor_sums.h"
#include "model/csum.h"
#include "model/vec4.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

enum { CHUNK = 1024 };

/* Elements [0, len) (a multiple of 4) of two operand streams. */
static inline __attribute__((always_inline)) void kern(const unsigned char *pa, const unsigned char *pb, size_t len,
                                                      int lda, int ldb, tensor_sums *s)
{
    const v2d z = {0, 0};
    v2d dot0 = z, dot1 = z, aa0 = z, aa1 = z, bb0 = z, bb1 = z, dd0 = z, dd1 = z;
    for (size_t i = 0; i < len; i += 4) {
        v4f x = load4(pa, i, lda), y = load4(pb, i, ldb);
        v4f d = x - y; /* float32 difference, as numpy's a - b */
        v2d xl = lo2(x), xh = hi2(x), yl = lo2(y), yh = hi2(y), dl = lo2(d), dh = hi2(d);
        dot0 += xl * yl;
        dot1 += xh * yh;
        aa0 += xl * xl;
        aa1 += xh * xh;
        bb0 += yl * yl;
        bb1 += yh * yh;
        dd0 += dl * dl;
        dd1 += dh * dh;
    }
    s->dot = (dot0[0] + dot0[1]) + (dot1[0] + dot1[1]);
    s->aa = (aa0[0] + aa0[1]) + (aa1[0] + aa1[1]);
    s->bb = (bb0[0] + bb0[1]) + (bb1[0] + bb1[1]);
    s->dd = (dd0[0] + dd0[1]) + (dd1[0] + dd1[1]);
}

static int ld_kind(dtype_id dt)
{
    return dt == DT_F32 ? LD_F32 : dt == DT_BF16 ? LD_BF16 : dt == DT_F16 ? LD_F16 : -1;
}

/* The kernel for a pair of raw operand kinds. */
static void kern_pair(int lda, int ldb, const unsigned char *pa, const unsigned char *pb, size_t len, tensor_sums *s)
{
#define K(A, B) if (lda == A && ldb == B) { kern(pa, pb, len, A, B, s); return; }
    K(LD_F32, LD_F32) K(LD_BF16, LD_BF16) K(LD_F16, LD_F16) K(LD_BF16, LD_F32) K(LD_F32, LD_BF16)
    K(LD_F16, LD_F32) K(LD_F32, LD_F16) K(LD_BF16, LD_F16) K(LD_F16, LD_BF16)
#undef K
}

static void scalar(const float *x, const float *y, size_t len, tensor_sums *s)
{
    double dot = 0, aa = 0, bb = 0, dd = 0;
    for (size_t i = 0; i < len; i++) {
        double a = x[i], b = y[i], d = (float)(x[i] - y[i]);
        dot += a * b;
        aa += a * a;
        bb += b * b;
        dd += d * d;
    }
    s->dot = dot;
    s->aa = aa;
    s->bb = bb;
    s->dd = dd;
}

void tensor_sums_add(const tensor *a, const tensor *b, size_t start, size_t count, unsigned flags, tensor_sums *acc)
{
    csum k[4] = {{acc->dot, 0}, {acc->aa, 0}, {acc->bb, 0}, {acc->dd, 0}};
    const unsigned char *ra = tensor_contiguous_data(a), *rb = tensor_contiguous_data(b);
    int lda = ld_kind(a->dtype), ldb = ld_kind(b->dtype);
    int direct = !(flags & TSUMS_SCALAR) && ra && rb && lda >= 0 && ldb >= 0;
    size_t ea = dtype_size(a->dtype), eb = dtype_size(b->dtype);
    float bufa[CHUNK], bufb[CHUNK];
    size_t end = start + count;
    for (size_t s = start; s < end; s += CHUNK) {
        size_t len = end - s < CHUNK ? end - s : CHUNK;
        tensor_sums part = {0, 0, 0, 0}, rest = {0, 0, 0, 0};
        size_t vec = direct ? len & ~(size_t)3 : 0;
        if (vec)
            kern_pair(lda, ldb, ra + ea * s, rb + eb * s, vec, &part);
        if (vec < len) {
            tensor_read_f32(a, s + vec, len - vec, bufa);
            tensor_read_f32(b, s + vec, len - vec, bufb);
            scalar(bufa, bufb, len - vec, &rest);
        }
        csum_add(&k[0], part.dot + rest.dot);
        csum_add(&k[1], part.aa + rest.aa);
        csum_add(&k[2], part.bb + rest.bb);
        csum_add(&k[3], part.dd + rest.dd);
    }
    acc->dot = csum_get(&k[0]);
    acc->aa = csum_get(&k[1]);
    acc->bb = csum_get(&k[2]);
    acc->dd = csum_get(&k[3]);
}

int tensor_allclose(const tensor *a, const tensor *b, size_t start, size_t count)
{
    float x[CHUNK], y[CHUNK];
    size_t end = start + count;
    for (size_t s = start; s < end; s += CHUNK) {
        size_t len = end - s < CHUNK ? end - s : CHUNK;
        tensor_read_f32(a, s, len, x);
        tensor_read_f32(b, s, len, y);
        for (size_t i = 0; i < len; i++) {
            /* numpy.isclose on float32 arrays computes in float32 (the
             * Python float tolerances take the arrays' dtype) */
            float p = x[i], q = y[i];
            if (p == q)
                continue;
            if (!isfinite(p) || !isfinite(q) || !(fabsf(p - q) <= 1e-08f + 1e-05f * fabsf(q)))
                return 0;
        }
    }
    return 1;
}
