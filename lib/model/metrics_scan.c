/* The streaming pass of metrics.c: both tensors are read once, chunk by
 * chunk, and everything the six metrics need is accumulated on the way.
 *
 * Chunks of float16 / bfloat16 / float32 data (the bulk of every dump) go
 * through a vector kernel (metrics_kern.h: one per dtype pair, for the best
 * instruction set of the CPU, chosen once per tensor). Everything else
 * (float64, integers, complex) goes element by element in double. The
 * kernel assumes finite data; a chunk holding a NaN or inf is recomputed
 * element by element by the careful path, which applies the position rule.
 * Detecting that costs nothing: the squared norms of a chunk are finite
 * exactly when every value in it is (float squares cannot overflow a
 * double).
 *
 * Sums: within a chunk each of eight double lanes sums its own elements;
 * chunk sums are added to the totals with Neumaier compensation. That keeps
 * the error of a sum of N terms near that of a chunk (CHUNK / 8 terms a
 * lane) instead of N, whatever the tensor size.
 */
#include "model/metrics_scan.h"
#include "base/files.h"
#include "base/mem.h"
#include "base/pool.h"
#include "model/csum.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* 4096 elements: the kernel's lanes are reduced once per chunk (that costs
 * a tenth of the kernel's time at 1024), and a lane sums 512 terms. */
enum { CHUNK = 4096 };

dtype_id metrics_eff_dtype(dtype_id dt) { return dt == DT_BF16 ? DT_F32 : dt; }

static int eps_mode(dtype_id dt)
{
    return dt == DT_F16 ? EPS_NONE : dt == DT_F32 ? EPS_F32 : EPS_F64;
}

static void set_thresholds(rel_plan *p);

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
    set_thresholds(p);
}

void rel_plan_make_newest(dtype_id dn, dtype_id db, rel_plan *p)
{
    dn = metrics_eff_dtype(dn);
    db = metrics_eff_dtype(db);
    memset(p, 0, sizeof *p);
    /* astype(float) of anything but float16/32/64 (a complex tensor keeps
     * its real part) */
    int f64 = !(dn == DT_F16 || dn == DT_F32) || !(db == DT_F16 || db == DT_F32);
    p->rtype = f64 ? RT_F64 : RT_F32;
    p->eps_n = p->eps_b = f64 ? EPS_F64 : EPS_F32_OWN;
    set_thresholds(p);
}

/* np.min_scalar_type() of a float value needs float64 */
static int needs_f64(double x) { return isfinite(x) && fabs(x) > FLT_MAX; }

void rel_plan_make_newest_0d(double n, double b, rel_plan *p)
{
    memset(p, 0, sizeof *p);
    int f64 = needs_f64(n) || needs_f64(b);
    p->rtype = f64 ? RT_F64 : RT_F32;
    p->eps_n = p->eps_b = f64 ? EPS_F64 : EPS_F32_OWN;
    set_thresholds(p);
}

static void set_thresholds(rel_plan *p)
{
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

/* eps (float64 machine epsilon, 2^-52; float32's, 2^-23, for
 * EPS_F32_OWN) added in one side's own dtype. */
static double add_eps(double x, int mode)
{
    if (mode == EPS_F32)
        return (float)x + 0x1p-52f;
    if (mode == EPS_F32_OWN)
        return (float)x + 0x1p-23f;
    if (mode == EPS_F64)
        return x + 0x1p-52;
    return x;
}

/* numpy's complex division (Smith's method) of a by the real b promoted
 * to complex; float and double versions. The two are kept apart on
 * purpose, as are cabs_f and cabs_d below: numpy computes complex64 in
 * float, and one double version rounded to float would differ from it in
 * the last bit. */
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

/* The float16 kernel compares the quotient before its last rounding to
 * half: round_to_half(q) < t exactly when q < half_bound(t), the midpoint
 * between t and the half below it (nudged up when a tie there rounds down,
 * i.e. to the even neighbour below). */
static float half_bound(double t)
{
    uint16_t h = f32_to_f16((float)t);
    float below = f16_to_f32((uint16_t)(h - 1));
    float mid = (below + (float)t) / 2; /* exact: one bit more than a half has */
    return (h - 1) & 1 ? mid : nextafterf(mid, INFINITY);
}

/* The CRC-32 checks a .pt's stored data still owes (tensor.h's
 * tensor_crc) are folded into the scan: the check follows the kernel by
 * blocks of CRC_BEHIND bytes, so it finds the bytes the kernel has just
 * brought from memory in the cache (the kernel, busy computing, hides the
 * memory's latency; a check running ahead would wait for it instead: a
 * third of the check's cost), and the data is read from memory once. A
 * range keeps one run per tensor whose elements lie contiguously in the
 * checked bytes; metrics_scan checks the runs and reads what they did not
 * cover (a strided view, the bytes around the view, what an early stop
 * skipped). */
enum { CRC_BEHIND = 32 << 10 };

typedef struct {
    crc_run run;
    const unsigned char *base;   /* NULL: no check folded in */
    size_t seen, end;            /* read by the kernel up to `seen`; the range's bytes end at `end` */
} side_crc;

typedef struct {
    side_crc n, b;
} range_crc;

static void crc_begin_side(side_crc *c, const tensor *t, size_t from_el, size_t to_el)
{
    long long off = tensor_crc_offset(t);
    size_t es = dtype_size(t->dtype);
    c->base = off >= 0 ? t->crc.data : NULL;
    c->run.from = c->run.to = c->seen = off >= 0 ? (size_t)off + from_el * es : 0;
    c->end = off >= 0 ? (size_t)off + to_el * es : 0;
    c->run.crc = 0;
}

static void crc_begin(range_crc *rc, const tensor *n, const tensor *b, size_t from_el, size_t to_el)
{
    crc_begin_side(&rc->n, n, from_el, to_el);
    crc_begin_side(&rc->b, b, from_el, to_el);
}

/* The kernel has read the bytes [at, at + len) of the contiguous data c
 * (NULL: not contiguous): check what it read since the last check once
 * that makes a block (or the range is done). */
static inline void crc_behind(side_crc *s, const unsigned char *c, size_t at, size_t len)
{
    if (!s->base || !c)
        return;
    at += (size_t)(c - s->base);
    if (at != s->seen)
        return; /* not in order: crc32_fill reads the rest */
    s->seen = at + len;
    if (s->seen - s->run.to < CRC_BEHIND && s->seen != s->end)
        return;
    s->run.crc = crc32_update(s->run.crc, s->base + s->run.to, s->seen - s->run.to);
    s->run.to = s->seen;
}

/* A chunk of the contiguous data cn / cb at byte offsets sn / sb, ln / lb
 * long, just read. */
static inline void crc_feed(range_crc *rc, const unsigned char *cn, const unsigned char *cb, size_t sn, size_t sb,
                            size_t ln, size_t lb)
{
    crc_behind(&rc->n, cn, sn, ln);
    crc_behind(&rc->b, cb, sb, lb);
}

static int ld_kind(dtype_id dt) { return dt == DT_F32 ? LD_F32 : dt == DT_BF16 ? LD_BF16 : LD_F16; }

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
 * exactly). The kernel, chosen once, takes the multiple-of-16 part of each
 * chunk, in place when both tensors are contiguous, else from float32
 * copies; the rest, and chunks holding NaN or inf, go element by element. */
static int scan_float(const tensor *n, const tensor *b, const rel_plan *p, int level, size_t from_el, size_t to_el,
                      totals *t, range_crc *rc)
{
    float bufn[CHUNK], bufb[CHUNK];
    const unsigned char *rn = tensor_contiguous_data(n), *rb = tensor_contiguous_data(b);
    int inplace = rn && rb;
    kern_rule rule = {.ldn = inplace ? ld_kind(n->dtype) : LD_F32,
                      .ldb = inplace ? ld_kind(b->dtype) : LD_F32,
                      .half = p->rtype == RT_F16,
                      .en = p->eps_n == EPS_F32 || p->eps_n == EPS_F32_OWN,
                      .eb = p->eps_b == EPS_F32 || p->eps_b == EPS_F32_OWN};
    metrics_kern_fn *kern = level < 0 ? NULL : metrics_kern_pick(level, &rule);
    if (!kern && inplace && level >= 0) {
        /* no in-place kernel for this rule (the newest msprobe computes
         * float16 in float32): float32 copies */
        inplace = 0;
        rule.ldn = rule.ldb = LD_F32;
        kern = metrics_kern_pick(level, &rule);
    }
    const float eps = p->eps_n == EPS_F32_OWN || p->eps_b == EPS_F32_OWN ? 0x1p-23f : 0x1p-52f;
    const float t1 = rule.half ? half_bound(p->thr1) : (float)p->thr1;
    const float t5 = rule.half ? half_bound(p->thr5) : (float)p->thr5;
    size_t en = dtype_size(n->dtype), eb = dtype_size(b->dtype);
    for (size_t s = from_el; s < to_el; s += CHUNK) {
        size_t len = to_el - s < CHUNK ? to_el - s : CHUNK;
        size_t vec = kern ? len - len % KERN_BLOCK : 0;
        size_t from = vec; /* first element still to do one by one */
        const unsigned char *px = NULL, *py = NULL;
        chunk_acc a;
        memset(&a, 0, sizeof a);
        if (vec) {
            if (inplace) {
                kern(rn + en * s, rb + eb * s, vec, t1, t5, eps, &a);
            } else {
                px = floats_at(n, s, len, bufn);
                py = floats_at(b, s, len, bufb);
                kern(px, py, vec, t1, t5, eps, &a);
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
        crc_feed(rc, rn, rb, s * en, s * eb, len * en, len * eb);
    }
    return 0;
}

/* Everything else, in double (integers, float64, complex real parts). */
static int scan_double(const tensor *n, const tensor *b, const rel_plan *p, size_t from_el, size_t to_el, totals *t,
                       range_crc *rc)
{
    double xr[CHUNK], y[CHUNK], xc[2 * CHUNK];
    const unsigned char *rn = tensor_contiguous_data(n), *rb = tensor_contiguous_data(b);
    size_t en = dtype_size(n->dtype), eb = dtype_size(b->dtype);
    for (size_t s = from_el; s < to_el; s += CHUNK) {
        size_t len = to_el - s < CHUNK ? to_el - s : CHUNK;
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
        crc_feed(rc, rn, rb, s * en, s * eb, len * en, len * eb);
    }
    return 0;
}

static int scan_range(const tensor *n, const tensor *b, const rel_plan *p, int level, size_t from, size_t to,
                      totals *t, range_crc *rc)
{
    memset(t, 0, sizeof *t);
    crc_begin(rc, n, b, from, to);
    return is_f16_or_f32(n->dtype) && is_f16_or_f32(b->dtype) ? scan_float(n, b, p, level, from, to, t, rc)
                                                              : scan_double(n, b, p, from, to, t, rc);
}

/* A big tensor is scanned in pieces of PIECE elements, on several threads
 * when the caller gives them, and the pieces' totals are added in order.
 * The pieces do not depend on the number of threads, so neither do the
 * results. Each thread reads the mappings under guards of its own (a
 * truncation while it reads must not kill the process); the change itself
 * is reported by the caller's guards, which see the file's new size. */
enum { PIECE = 1 << 22 };

typedef struct {
    const tensor *n, *b;
    const rel_plan *p;
    int level;
    totals *part;
    range_crc *crc;
    unsigned char *mismatch;
} piece_job;

static void scan_piece(void *arg, size_t i)
{
    piece_job *j = arg;
    size_t from = i * (size_t)PIECE, to = j->n->numel - from < PIECE ? j->n->numel : from + PIECE;
    file_guard gn, gb;
    file_guard_begin(&gn, &j->n->map);
    file_guard_begin(&gb, &j->b->map);
    j->mismatch[i] = (unsigned char)scan_range(j->n, j->b, j->p, j->level, from, to, &j->part[i], &j->crc[i]);
    file_guard_end(&gb);
    file_guard_end(&gn);
}

static void add_totals(totals *t, const totals *a)
{
    csum_merge(&t->dot, &a->dot);
    csum_merge(&t->nn, &a->nn);
    csum_merge(&t->bb, &a->bb);
    csum_merge(&t->dd, &a->dd);
    if (a->maxabs > t->maxabs)
        t->maxabs = a->maxabs;
    if (a->maxrel > t->maxrel)
        t->maxrel = a->maxrel;
    t->relnan |= a->relnan;
    t->below1 += a->below1;
    t->below5 += a->below5;
}

/* The checks of n and b from the runs of the ranges (tensor.h). */
static int crc_finish(const tensor *n, const tensor *b, const range_crc *rc, size_t count)
{
    crc_run one[1] = {{0, 0, 0}}, *runs = count > 1 ? xmalloc_array(count, sizeof *runs) : one;
    size_t k = 0;
    for (size_t i = 0; i < count; i++)
        if (rc[i].n.base)
            runs[k++] = rc[i].n.run;
    int bad = tensor_crc_check(n, NULL, runs, k) != 0;
    k = 0;
    for (size_t i = 0; i < count && !bad; i++)
        if (rc[i].b.base)
            runs[k++] = rc[i].b.run;
    bad = bad || tensor_crc_check(b, NULL, runs, k) != 0;
    if (runs != one)
        free(runs);
    return bad ? -1 : 0;
}

int metrics_scan(const tensor *n, const tensor *b, const rel_plan *p, int level, int threads, scan_totals *out)
{
    totals t;
    int rc;
    if (n->numel <= PIECE) {
        range_crc crc;
        rc = scan_range(n, b, p, level, 0, n->numel, &t, &crc);
        if (crc_finish(n, b, &crc, 1) != 0)
            return -1;
    } else {
        size_t pieces = (n->numel + PIECE - 1) / PIECE;
        piece_job j = {.n = n, .b = b, .p = p, .level = level};
        j.part = xcalloc(pieces, sizeof *j.part);
        j.crc = xcalloc(pieces, sizeof *j.crc);
        j.mismatch = xcalloc(pieces, 1);
        pool_for(pieces, threads, scan_piece, &j);
        memset(&t, 0, sizeof t);
        rc = 0;
        for (size_t i = 0; i < pieces; i++) {
            rc |= j.mismatch[i];
            add_totals(&t, &j.part[i]);
        }
        int crc_bad = crc_finish(n, b, j.crc, pieces);
        free(j.part);
        free(j.crc);
        free(j.mismatch);
        if (crc_bad)
            return -1;
    }
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
