/* The streaming pass of metrics.c: both tensors are read once, chunk by
 * chunk, and everything the six metrics need is accumulated on the way.
 *
 * Chunks of float16 / bfloat16 / float32 data (the bulk of every dump) go
 * through a vector kernel written with GCC/Clang generic vectors, so the
 * same source compiles to SSE2 on x86-64 (a few SSE2 intrinsics where the
 * generic form would take several instructions) and to NEON on AArch64.
 * Everything else (float64, integers, complex) goes element by element in
 * double, which is already faster than memory for 8-byte elements.  The
 * kernel assumes finite data; a chunk holding a NaN or inf is recomputed
 * element by element by the careful path, which applies the position rule.
 * Detecting that costs nothing: the squared norms of a chunk are finite
 * exactly when every value in it is (float squares cannot overflow a
 * double).
 *
 * Sums: within a chunk each vector lane sums its own elements; chunk sums
 * are added to the totals with Neumaier compensation.  That keeps the
 * error of a sum of N terms near that of a chunk (1024 terms) instead of N,
 * whatever the tensor size.
 */
#include "model/metrics_scan.h"
#include "model/vec4.h"

#include <math.h>
#include <stdint.h>
#include <string.h>


enum { CHUNK = 1024 };

dtype_id metrics_eff_dtype(dtype_id dt) { return dt == DT_BF16 ? DT_F32 : dt; }

static int eps_mode(dtype_id dt)
{
    return dt == DT_F16 ? EPS_NONE : dt == DT_F32 ? EPS_F32 : EPS_F64;
}

void rel_plan_make(dtype_id dn, dtype_id db, rel_plan *p)
{
    dn = metrics_eff_dtype(dn);
    db = metrics_eff_dtype(db);
    memset(p, 0, sizeof *p);
    if (!dtype_is_float(db)) {
        /* msprobe casts both sides to float64 when the bench is not float */
        p->rtype = RT_F64;
        p->eps_n = p->eps_b = EPS_F64;
    } else if (dtype_is_complex(dn)) {
        p->complex_n = 1;
        p->rtype = dn == DT_C128 || db == DT_F64 ? RT_C128 : RT_C64;
        p->eps_n = dn == DT_C128 ? EPS_F64 : EPS_F32;
        p->eps_b = eps_mode(db);
    } else {
        /* An integer or bool NPU side would make numpy raise on the in-place
         * eps addition; it is taken as float64 instead (see metrics.h). */
        if (!dtype_is_float(dn))
            dn = DT_F64;
        p->eps_n = eps_mode(dn);
        p->eps_b = eps_mode(db);
        p->rtype = dn == DT_F64 || db == DT_F64 ? RT_F64 : dn == DT_F32 || db == DT_F32 ? RT_F32 : RT_F16;
    }
    /* numpy compares the relative error with the Python float threshold in
     * the error's own dtype (value-based casting), i.e. with the threshold
     * rounded to that dtype. */
    switch (p->rtype) {
    case RT_F16:
        p->thr1 = 0x1.064p-10;  /* float16(0.001) */
        p->thr5 = 0x1.47cp-8;   /* float16(0.005) */
        break;
    case RT_F32:
    case RT_C64:
        p->thr1 = 0.001f;
        p->thr5 = 0.005f;
        break;
    default:
        p->thr1 = 0.001;
        p->thr5 = 0.005;
        break;
    }
}

float round_to_half(float x) { return f16_to_f32(f32_to_f16(x)); }

/* eps (float64 machine epsilon, 2^-52) added in one side's own dtype. */
static double add_eps(double x, int mode)
{
    if (mode == EPS_F32)
        return (float)x + 0x1p-52f;
    if (mode == EPS_F64)
        return x + 0x1p-52;
    return x;
}

/* numpy's complex division (Smith's method) of a by the real b promoted
 * to complex; float and double versions. */
static void cdiv_f(float ar, float ai, float br, float *qr, float *qi)
{
    const float bi = 0.0f;
    float abr = fabsf(br), abi = fabsf(bi);
    if (abr >= abi) {
        if (abr == 0 && abi == 0) {
            *qr = ar / abr;
            *qi = ai / abi;
        } else {
            float rat = bi / br, scl = 1.0f / (br + bi * rat);
            *qr = (ar + ai * rat) * scl;
            *qi = (ai - ar * rat) * scl;
        }
    } else {
        float rat = br / bi, scl = 1.0f / (bi + br * rat);
        *qr = (ar * rat + ai) * scl;
        *qi = (ai * rat - ar) * scl;
    }
}

static void cdiv_d(double ar, double ai, double br, double *qr, double *qi)
{
    const double bi = 0.0;
    double abr = fabs(br), abi = fabs(bi);
    if (abr >= abi) {
        if (abr == 0 && abi == 0) {
            *qr = ar / abr;
            *qi = ai / abi;
        } else {
            double rat = bi / br, scl = 1.0 / (br + bi * rat);
            *qr = (ar + ai * rat) * scl;
            *qi = (ai - ar * rat) * scl;
        }
    } else {
        double rat = br / bi, scl = 1.0 / (bi + br * rat);
        *qr = (ar * rat + ai) * scl;
        *qi = (ai * rat - ar) * scl;
    }
}

/* numpy 1.24's complex absolute value as its AVX-512F loop computes it
 * (on such machines; elsewhere it calls libm's hypot, which can differ in
 * the last bit): larger * sqrt(fma(r, r, 1)) with r = smaller / larger. */
float cabs_f(float re, float im)
{
    float a = fabsf(re), b = fabsf(im);
    if (isinf(a) || isinf(b))
        return INFINITY;
    if (isnan(a) || isnan(b))
        return NAN;
    float big = a > b ? a : b, small = a > b ? b : a;
    if (big == 0)
        return 0;
    float r = small / big;
    return big * sqrtf(fmaf(r, r, 1.0f));
}

double cabs_d(double re, double im)
{
    double a = fabs(re), b = fabs(im);
    if (isinf(a) || isinf(b))
        return INFINITY;
    if (isnan(a) || isnan(b))
        return NAN;
    double big = a > b ? a : b, small = a > b ? b : a;
    if (big == 0)
        return 0;
    double r = small / big;
    return big * sqrt(fma(r, r, 1.0));
}

double rel_err_one(const rel_plan *p, double nr, double ni, double b)
{
    int zero = b == 0;
    switch (p->rtype) {
    case RT_F16: {
        /* numpy's half loops compute in float and round each result to half */
        float d = round_to_half((float)nr - (float)b);
        return fabsf(round_to_half(d / (float)b));
    }
    case RT_F32: {
        float x = (float)nr, y = (float)b;
        if (zero) {
            x = (float)add_eps(x, p->eps_n);
            y = (float)add_eps(y, p->eps_b);
        }
        return fabsf((x - y) / y);
    }
    case RT_F64: {
        double x = nr, y = b;
        if (zero) {
            x = add_eps(x, p->eps_n);
            y = add_eps(y, p->eps_b);
        }
        return fabs((x - y) / y);
    }
    case RT_C64: {
        float xr = (float)nr, xi = (float)ni, y = (float)b, qr, qi;
        if (zero) {
            xr = (float)add_eps(xr, p->eps_n);
            y = (float)add_eps(y, p->eps_b);
        }
        cdiv_f(xr - y, xi - 0.0f, y, &qr, &qi);
        return cabs_f(qr, qi);
    }
    default: {
        double xr = nr, y = b, qr, qi;
        if (zero) {
            xr = add_eps(xr, p->eps_n);
            y = add_eps(y, p->eps_b);
        }
        cdiv_d(xr - y, ni - 0.0, y, &qr, &qi);
        return cabs_d(qr, qi);
    }
    }
}

/* ---- accumulation ------------------------------------------------------ */

typedef struct {
    double dot, nn, bb, dd, maxabs, maxrel;
    int relnan;
    size_t below1, below5;
} chunk_acc;

/* Neumaier's compensated sum. */
typedef struct {
    double s, c;
} csum;

static void csum_add(csum *k, double x)
{
    double t = k->s + x;
    if (fabs(k->s) >= fabs(x))
        k->c += (k->s - t) + x;
    else
        k->c += (x - t) + k->s;
    k->s = t;
}

/* Once the sum overflowed (or met NaN) the compensation is meaningless. */
static double csum_get(const csum *k) { return isfinite(k->s) ? k->s + k->c : k->s; }

/* One element, with the NaN/inf position rule: -1 when the positions of
 * NaN or of inf differ between the sides (the sign of inf does not count). */
static inline int step_one(const rel_plan *p, double x, double xi, double y, chunk_acc *a)
{
    if (!isfinite(x) || !isfinite(y)) {
        if (!isnan(x) != !isnan(y) || !isinf(x) != !isinf(y))
            return -1;
        x = xi = y = 0;
    }
    a->dot += x * y;
    a->nn += x * x;
    a->bb += y * y;
    double d = x - y;
    a->dd += d * d;
    d = fabs(d);
    if (d > a->maxabs)
        a->maxabs = d;
    double r = rel_err_one(p, x, xi, y);
    if (r != r)
        a->relnan = 1;
    else if (r > a->maxrel)
        a->maxrel = r;
    a->below1 += r < p->thr1;
    a->below5 += r < p->thr5;
    return 0;
}

/* ---- vector kernel for float16 / bfloat16 / float32 --------------------- */

/* round_to_half on four lanes without leaving float: adding and
 * subtracting c = 1.5 * 2^(e+13), where 2^e is x's binade clamped to the
 * normal half range [2^-14, 2^15], rounds x to a multiple of the half ulp
 * 2^(e-10) with ties to even (c is an even multiple of that ulp and x + c
 * stays inside c's binade).  Below 2^-14 the clamp gives the subnormal
 * step 2^-24.  A result above 65504 (the largest half) becomes inf by
 * multiplying it with inf; NaN stays NaN. */
static inline v4f vround_half(v4f x)
{
    const v4f lo = {0x1p-14f, 0x1p-14f, 0x1p-14f, 0x1p-14f}, hi = {0x1p15f, 0x1p15f, 0x1p15f, 0x1p15f};
    v4f binade = (v4f)((v4i)x & 0x7f800000); /* 2^e, or 0, or inf */
    v4f c = min4(max4(binade, lo), hi) * 0x1.8p13f;
    v4f r = (x + c) - c;
    v4i big = abs4(r) > 65504.0f;
    v4f scale = (v4f)((big & (0x7f800000 ^ 0x3f800000)) ^ 0x3f800000); /* inf or 1 */
    return r * scale;
}

void metrics_round_half4(const float *in, float *out)
{
    v4f x;
    memcpy(&x, in, sizeof x);
    x = vround_half(x);
    memcpy(out, &x, sizeof x);
}

/* The float16 kernel compares the quotient before its last rounding to
 * half: round_to_half(q) < t exactly when q < half_bound(t), the midpoint
 * between t and the half below it (nudged up when a tie there rounds down,
 * i.e. to the even neighbour below).  Rounding is monotonic, so the
 * maximum can also be rounded once, at the end of the chunk. */
static float half_bound(double t)
{
    uint16_t h = f32_to_f16((float)t);
    float below = f16_to_f32((uint16_t)(h - 1));
    float mid = (below + (float)t) / 2; /* exact: one bit more than a half has */
    return (h - 1) & 1 ? mid : nextafterf(mid, INFINITY);
}

/* Elements [0, len) of px / py, len a multiple of 4.  ldn / ldb: operand
 * formats; half: float16 relative error; en / eb: the NPU / bench side adds
 * eps in float32 (else eps is lost, float16). */
static inline __attribute__((always_inline)) void kern(const unsigned char *px, const unsigned char *py, size_t len,
                                                      int ldn, int ldb, int half, int en, int eb,
                                                      const rel_plan *p, chunk_acc *a)
{
    const v2d z2 = {0, 0};
    v2d dot0 = z2, dot1 = z2, nn0 = z2, nn1 = z2, bb0 = z2, bb1 = z2, dd0 = z2, dd1 = z2, ma = z2;
    v4f mr = {0, 0, 0, 0};
    v4i rn = SPLAT4(0), c1 = rn, c5 = rn;
    const float f1 = half ? half_bound(p->thr1) : (float)p->thr1;
    const float f5 = half ? half_bound(p->thr5) : (float)p->thr5;
    const v4f t1 = {f1, f1, f1, f1}, t5 = {f5, f5, f5, f5};
    const v4i eps = SPLAT4(0x25800000); /* 0x1p-52f */
    for (size_t i = 0; i < len; i += 4) {
        v4f x = load4(px, i, ldn), y = load4(py, i, ldb);
        v2d xl = lo2(x), xh = hi2(x), yl = lo2(y), yh = hi2(y);
        dot0 += xl * yl;
        dot1 += xh * yh;
        nn0 += xl * xl;
        nn1 += xh * xh;
        bb0 += yl * yl;
        bb1 += yh * yh;
        v2d dl = xl - yl, dh = xh - yh;
        dd0 += dl * dl;
        dd1 += dh * dh;
        ma = max2(max2(ma, abs2(dl)), abs2(dh));
        v4f r;
        if (half) {
            r = abs4(vround_half(x - y) / y);
        } else {
            v4f e = (v4f)((y == 0) & eps);
            v4f xn = en ? x + e : x;
            v4f yn = eb ? y + e : y;
            r = abs4((xn - yn) / yn);
        }
        /* with eps on the bench side no divisor is 0, so no NaN */
        if (half || !eb)
            rn |= r != r;
        c1 -= r < t1;
        c5 -= r < t5;
        mr = max4(mr, r);
    }
    a->dot = (dot0[0] + dot0[1]) + (dot1[0] + dot1[1]);
    a->nn = (nn0[0] + nn0[1]) + (nn1[0] + nn1[1]);
    a->bb = (bb0[0] + bb0[1]) + (bb1[0] + bb1[1]);
    a->dd = (dd0[0] + dd0[1]) + (dd1[0] + dd1[1]);
    a->maxabs = fmax(ma[0], ma[1]);
    a->maxrel = 0;
    for (int k = 0; k < 4; k++) {
        if (rn[k])
            a->relnan = 1;
        else if ((half ? round_to_half(mr[k]) : mr[k]) > a->maxrel)
            a->maxrel = half ? round_to_half(mr[k]) : mr[k];
        a->below1 += (size_t)c1[k];
        a->below5 += (size_t)c5[k];
    }
}

/* Kernels reading raw contiguous storage, for the common same-kind pairs. */
enum { DIRECT_NONE, DIRECT_F32, DIRECT_BF16, DIRECT_F16, DIRECT_BF16_F32, DIRECT_F32_BF16 };

static int direct_kind(const tensor *n, const tensor *b)
{
    if (!tensor_contiguous_data(n) || !tensor_contiguous_data(b))
        return DIRECT_NONE;
    dtype_id dn = n->dtype, db = b->dtype;
    if (dn == DT_F32 && db == DT_F32)
        return DIRECT_F32;
    if (dn == DT_BF16 && db == DT_BF16)
        return DIRECT_BF16;
    if (dn == DT_F16 && db == DT_F16)
        return DIRECT_F16;
    if (dn == DT_BF16 && db == DT_F32)
        return DIRECT_BF16_F32;
    if (dn == DT_F32 && db == DT_BF16)
        return DIRECT_F32_BF16;
    return DIRECT_NONE;
}

static void kern_direct(int kind, const unsigned char *px, const unsigned char *py, size_t len, const rel_plan *p,
                        chunk_acc *a)
{
    switch (kind) {
    case DIRECT_F32: kern(px, py, len, LD_F32, LD_F32, 0, 1, 1, p, a); break;
    case DIRECT_BF16: kern(px, py, len, LD_BF16, LD_BF16, 0, 1, 1, p, a); break;
    case DIRECT_F16: kern(px, py, len, LD_F16, LD_F16, 1, 0, 0, p, a); break;
    case DIRECT_BF16_F32: kern(px, py, len, LD_BF16, LD_F32, 0, 1, 1, p, a); break;
    default: kern(px, py, len, LD_F32, LD_BF16, 0, 1, 1, p, a); break;
    }
}

/* Float32 operands in memory, any pairing of float16 / float32 rules. */
static void kern_f32(const unsigned char *px, const unsigned char *py, size_t len, const rel_plan *p, chunk_acc *a)
{
    if (p->rtype == RT_F16)
        kern(px, py, len, LD_F32, LD_F32, 1, 0, 0, p, a);
    else if (p->eps_n == EPS_F32 && p->eps_b == EPS_F32)
        kern(px, py, len, LD_F32, LD_F32, 0, 1, 1, p, a);
    else if (p->eps_n == EPS_F32)
        kern(px, py, len, LD_F32, LD_F32, 0, 1, 0, p, a);
    else if (p->eps_b == EPS_F32)
        kern(px, py, len, LD_F32, LD_F32, 0, 0, 1, p, a);
    else
        kern(px, py, len, LD_F32, LD_F32, 0, 0, 0, p, a);
}

static float ldf(const unsigned char *p)
{
    float f;
    memcpy(&f, p, sizeof f);
    return f;
}

/* ---- the scan ------------------------------------------------------------ */

typedef struct {
    csum dot, nn, bb, dd;
    double maxabs, maxrel;
    int relnan;
    size_t below1, below5;
} totals;

static void merge(totals *t, const chunk_acc *a)
{
    csum_add(&t->dot, a->dot);
    csum_add(&t->nn, a->nn);
    csum_add(&t->bb, a->bb);
    csum_add(&t->dd, a->dd);
    if (a->maxabs > t->maxabs)
        t->maxabs = a->maxabs;
    if (a->maxrel > t->maxrel)
        t->maxrel = a->maxrel;
    t->relnan |= a->relnan;
    t->below1 += a->below1;
    t->below5 += a->below5;
}

static int is_f16_or_f32(dtype_id dt)
{
    dt = metrics_eff_dtype(dt);
    return dt == DT_F16 || dt == DT_F32;
}

/* Elements [s, s + len) of a float16 / bfloat16 / float32 tensor as
 * float32: in place for contiguous float32, else converted into buf. */
static const unsigned char *floats_at(const tensor *t, size_t s, size_t len, float *buf)
{
    const unsigned char *c = t->dtype == DT_F32 ? tensor_contiguous_data(t) : NULL;
    if (c)
        return c + 4 * s;
    tensor_read_f32(t, s, len, buf);
    return (const unsigned char *)buf;
}

/* float16 / bfloat16 / float32 on both sides (float32 holds every value
 * exactly).  The vector kernel takes the multiple-of-4 part of a chunk;
 * the rest, and chunks holding NaN or inf, go element by element. */
static int scan_float(const tensor *n, const tensor *b, const rel_plan *p, int scalar_only, totals *t)
{
    float bufn[CHUNK], bufb[CHUNK];
    int direct = scalar_only ? DIRECT_NONE : direct_kind(n, b);
    const unsigned char *rn = tensor_contiguous_data(n), *rb = tensor_contiguous_data(b);
    size_t en = dtype_size(n->dtype), eb = dtype_size(b->dtype);
    for (size_t s = 0; s < n->numel; s += CHUNK) {
        size_t len = n->numel - s < CHUNK ? n->numel - s : CHUNK;
        size_t vec = scalar_only ? 0 : len & ~(size_t)3;
        size_t from = vec; /* first element still to do one by one */
        const unsigned char *px = NULL, *py = NULL;
        chunk_acc a;
        memset(&a, 0, sizeof a);
        if (vec) {
            if (direct) {
                kern_direct(direct, rn + en * s, rb + eb * s, vec, p, &a);
            } else {
                px = floats_at(n, s, len, bufn);
                py = floats_at(b, s, len, bufb);
                kern_f32(px, py, vec, p, &a);
            }
            if (!isfinite(a.nn) || !isfinite(a.bb)) {
                memset(&a, 0, sizeof a);
                from = 0;
            }
        }
        if (from < len) {
            if (!px) {
                px = floats_at(n, s, len, bufn);
                py = floats_at(b, s, len, bufb);
            }
            for (size_t i = from; i < len; i++)
                if (step_one(p, ldf(px + 4 * i), 0, ldf(py + 4 * i), &a))
                    return 1;
        }
        merge(t, &a);
    }
    return 0;
}

/* Everything else, in double (integers, float64, complex real parts). */
static int scan_double(const tensor *n, const tensor *b, const rel_plan *p, totals *t)
{
    double xr[CHUNK], y[CHUNK], xc[2 * CHUNK];
    for (size_t s = 0; s < n->numel; s += CHUNK) {
        size_t len = n->numel - s < CHUNK ? n->numel - s : CHUNK;
        if (p->complex_n)
            tensor_read_complex(n, s, len, xc);
        else
            tensor_read_f64(n, s, len, xr);
        tensor_read_f64(b, s, len, y);
        chunk_acc a;
        memset(&a, 0, sizeof a);
        if (p->complex_n) {
            for (size_t i = 0; i < len; i++)
                if (step_one(p, xc[2 * i], xc[2 * i + 1], y[i], &a))
                    return 1;
        } else {
            for (size_t i = 0; i < len; i++)
                if (step_one(p, xr[i], 0, y[i], &a))
                    return 1;
        }
        merge(t, &a);
    }
    return 0;
}

int metrics_scan(const tensor *n, const tensor *b, const rel_plan *p, int scalar_only, scan_totals *out)
{
    totals t;
    memset(&t, 0, sizeof t);
    int rc = is_f16_or_f32(n->dtype) && is_f16_or_f32(b->dtype) ? scan_float(n, b, p, scalar_only, &t)
                                                                 : scan_double(n, b, p, &t);
    out->dot = csum_get(&t.dot);
    out->nn = csum_get(&t.nn);
    out->bb = csum_get(&t.bb);
    out->dd = csum_get(&t.dd);
    out->maxabs = t.maxabs;
    out->maxrel = t.maxrel;
    out->relnan = t.relnan;
    out->below1 = t.below1;
    out->below5 = t.below5;
    return rc;
}
