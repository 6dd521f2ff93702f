/* msprobe's real-data comparison of two tensors (spec/compare.md §5.4):
 * pre-checks, the 0-d special case, turning the scan's totals into the six
 * cells, Err_message and Accuracy.  The pass over the data is in
 * metrics_scan.c. */
#include "model/metrics.h"
#include "base/err.h"
#include "model/metrics_scan.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const metric_names[MET_COUNT] = {
    "Cosine", "EucDist", "MaxAbsErr", "MaxRelativeErr", "One Thousandth Err Ratio", "Five Thousandths Err Ratio",
};

/* Indexed by bit number of enum metric_msg. */
static const char *const msg_text[] = {
    "This is empty data, can not compare.",
    ("This is type of 0-d tensor, can not calculate 'Cosine', 'EucDist', 'One Thousandth Err Ratio' and "
     "'Five Thousandths Err Ratio'. "),
    "Shape of NPU and bench tensor do not match. Skipped.",
    "The position of inf or nan in NPU and bench Tensor do not match.",
    "Dtype of NPU and bench tensor do not match.",
    "This is a 1-d tensor of length 1.",
    "Cannot compare by Cosine Similarity, All the data is Zero in npu dump data.",
    "Cannot compare by Cosine Similarity, All the data is Zero in Bench dump data.",
    "Cannot compare by Cosine Similarity, the dump data has NaN.",
    "Cannot compare by MaxAbsError, the data contains nan/inf/-inf in dump data.",
    "Cannot compare by MaxRelativeError, the data contains nan/inf/-inf in dump data.",
};
#define NMSG (sizeof msg_text / sizeof msg_text[0])

/* numpy's float64 eps, msprobe's Const.FLOAT_EPSILON */
#define FLOAT_EPSILON 0x1p-52

const char *metric_kind_text(int kind)
{
    switch (kind) {
    case MK_NAN: return "Nan";
    case MK_UNSUPPORTED: return "unsupported";
    case MK_NA: return "N/A";
    case MK_SHAPE: return "shape unmatched";
    default: return NULL;
    }
}

/* Python float('%.*f' % x): glibc prints the exact binary value rounded
 * half-even, as CPython does, and strtod reads it back correctly rounded. */
static double round_fixed(double x, int decimals)
{
    if (!isfinite(x))
        return x;
    char buf[400]; /* DBL_MAX has 309 integer digits */
    snprintf(buf, sizeof buf, "%.*f", decimals, x);
    return strtod(buf, NULL);
}

double round12(double x) { return round_fixed(x, 12); }

static void set_all(tensor_metrics *m, int kind)
{
    for (int i = 0; i < MET_COUNT; i++) {
        m->kind[i] = (unsigned char)kind;
        m->value[i] = 0;
    }
}

static void set_num(tensor_metrics *m, int i, double v)
{
    m->kind[i] = MK_NUM;
    m->value[i] = v;
}

/* ---- 0-d tensors ----------------------------------------------------------- */

/* numpy's type promotion (np.promote_types) for the dtypes we load;
 * bfloat16 never gets here (it is float32 after loading). */
static int is_signed_int(dtype_id dt) { return dt == DT_I8 || dt == DT_I16 || dt == DT_I32 || dt == DT_I64; }

/* The smallest float (or complex) kind that holds every value of an
 * integer dtype: 1-byte -> float16, 2-byte -> float32, wider -> float64. */
static dtype_id int_as_float(dtype_id dt)
{
    size_t s = dtype_size(dt);
    return s == 1 ? DT_F16 : s == 2 ? DT_F32 : DT_F64;
}

static dtype_id float_as_complex(dtype_id dt) { return dt == DT_F64 ? DT_C128 : DT_C64; }

static dtype_id promote(dtype_id a, dtype_id b)
{
    if (a == b || b == DT_BOOL)
        return a;
    if (a == DT_BOOL)
        return b;
    int ia = dtype_is_integer(a), ib = dtype_is_integer(b);
    if (ia && ib) {
        if (is_signed_int(a) == is_signed_int(b))
            return dtype_size(a) >= dtype_size(b) ? a : b;
        dtype_id u = is_signed_int(a) ? b : a, s = is_signed_int(a) ? a : b;
        if (dtype_size(u) < dtype_size(s))
            return s;
        switch (dtype_size(u)) {
        case 1: return DT_I16;
        case 2: return DT_I32;
        case 4: return DT_I64;
        default: return DT_F64;
        }
    }
    if (ia)
        a = int_as_float(a);
    if (ib)
        b = int_as_float(b);
    int ca = dtype_is_complex(a), cb = dtype_is_complex(b);
    if (ca || cb) {
        dtype_id x = ca ? a : float_as_complex(a), y = cb ? b : float_as_complex(b);
        return x == DT_C128 || y == DT_C128 ? DT_C128 : DT_C64;
    }
    return dtype_size(a) >= dtype_size(b) ? a : b;
}

typedef struct {
    double re, im;   /* value as numpy's astype(float/complex) gives it */
    uint64_t bits;   /* integers: the value modulo 2^64 */
} scalar;

static void load_scalar(const tensor *t, scalar *s)
{
    double c[2];
    tensor_read_complex(t, 0, 1, c);
    s->re = c[0];
    s->im = c[1];
    unsigned char raw[16] = {0};
    tensor_read_raw(t, 0, 1, raw);
    switch (t->dtype) {
    case DT_BOOL: s->bits = raw[0] != 0; break;
    case DT_I8: { int8_t v; memcpy(&v, raw, 1); s->bits = (uint64_t)(int64_t)v; break; }
    case DT_U8: s->bits = raw[0]; break;
    case DT_I16: { int16_t v; memcpy(&v, raw, 2); s->bits = (uint64_t)(int64_t)v; break; }
    case DT_U16: { uint16_t v; memcpy(&v, raw, 2); s->bits = v; break; }
    case DT_I32: { int32_t v; memcpy(&v, raw, 4); s->bits = (uint64_t)(int64_t)v; break; }
    case DT_U32: { uint32_t v; memcpy(&v, raw, 4); s->bits = v; break; }
    case DT_I64:
    case DT_U64: memcpy(&s->bits, raw, 8); break;
    default: s->bits = 0; break;
    }
}

/* x modulo 2^bits, read as a signed (two's complement) number. */
static int64_t wrap_signed(uint64_t x, int bits)
{
    if (bits < 64) {
        x &= (UINT64_C(1) << bits) - 1;
        if (x >> (bits - 1))
            return -(int64_t)((UINT64_C(1) << bits) - x);
        return (int64_t)x;
    }
    if (x >> 63)
        return -(int64_t)(~x) - 1;
    return (int64_t)x;
}

/* np.abs(n - b) of two 0-d arrays, in numpy's promoted dtype: integers
 * wrap (uint8 1 - 2 is 255, abs(int8 -128) stays -128), float16 rounds. */
static double abs_diff_0d(dtype_id dn, dtype_id db, const scalar *n, const scalar *b)
{
    if (dn == DT_BOOL) /* msprobe casts a bool pair to float64 first */
        return fabs(n->re - b->re);
    dtype_id p = promote(dn, db);
    if (dtype_is_integer(p)) {
        int bits = (int)dtype_size(p) * 8;
        uint64_t d = n->bits - b->bits;
        if (!is_signed_int(p))
            return (double)(bits < 64 ? d & ((UINT64_C(1) << bits) - 1) : d);
        int64_t v = wrap_signed(d, bits);
        uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
        return (double)wrap_signed(mag, bits);
    }
    switch (p) {
    case DT_F16: return fabsf(round_to_half((float)n->re - (float)b->re));
    case DT_F32: return fabsf((float)n->re - (float)b->re);
    case DT_C64: return cabs_f((float)n->re - (float)b->re, (float)n->im - (float)b->im);
    case DT_C128: return cabs_d(n->re - b->re, n->im - b->im);
    default: return fabs(n->re - b->re);
    }
}

/* msprobe computes MaxAbsErr and MaxRelativeErr of 0-d tensors without
 * the NaN/inf handling and reports the other four as unsupported. */
static void compare_0d(const tensor *n, const tensor *b, int newest, tensor_metrics *m)
{
    if (!newest && b->ndim != 0) {
        set_all(m, MK_SHAPE);
        m->msgs = MSG_SHAPE;
        return;
    }
    set_all(m, MK_UNSUPPORTED);
    m->msgs = MSG_ZERO_D;
    dtype_id dn = metrics_eff_dtype(n->dtype), db = metrics_eff_dtype(b->dtype);
    scalar sn, sb;
    load_scalar(n, &sn);
    load_scalar(b, &sb);
    double d = abs_diff_0d(dn, db, &sn, &sb);
    if (isnan(d)) {
        m->kind[MET_MAXABS] = MK_NAN;
        m->msgs |= MSG_MAXABS_NAN;
    } else {
        set_num(m, MET_MAXABS, round12(d));
    }
    rel_plan p;
    if (newest)
        rel_plan_make_newest_0d(sn.re, sb.re, &p);
    else
        rel_plan_make(dn, db, &p);
    double r = rel_err_one(&p, sn.re, p.complex_n ? sn.im : 0, sb.re);
    if (isnan(r)) {
        m->kind[MET_MAXREL] = MK_NAN;
        m->msgs |= MSG_MAXREL_NAN;
    } else {
        set_num(m, MET_MAXREL, round12(r));
    }
}

/* ---- tensors with dimensions ------------------------------------------------ */

int shape_equal(int ndim_a, const int64_t *shape_a, int ndim_b, const int64_t *shape_b)
{
    if (ndim_a != ndim_b)
        return 0;
    for (int d = 0; d < ndim_a; d++)
        if (shape_a[d] != shape_b[d])
            return 0;
    return 1;
}

/* The shapes after np.squeeze(): without their dimensions of size 1. */
static int same_squeezed(const tensor *a, const tensor *b)
{
    int i = 0, j = 0;
    for (;;) {
        while (i < a->ndim && a->shape[i] == 1)
            i++;
        while (j < b->ndim && b->shape[j] == 1)
            j++;
        if (i == a->ndim || j == b->ndim)
            return i == a->ndim && j == b->ndim;
        if (a->shape[i++] != b->shape[j++])
            return 0;
    }
}

static void cosine(const scan_totals *t, size_t count, tensor_metrics *m)
{
    if (count == 1) {
        m->kind[MET_COSINE] = MK_UNSUPPORTED;
        m->msgs |= MSG_COS_LENGTH1;
        return;
    }
    double na = sqrt(t->nn), nb = sqrt(t->bb);
    if (na <= FLOAT_EPSILON && nb <= FLOAT_EPSILON) {
        set_num(m, MET_COSINE, 1.0);
    } else if (na <= FLOAT_EPSILON) {
        m->kind[MET_COSINE] = MK_NAN;
        m->msgs |= MSG_COS_NPU_ZERO;
    } else if (nb <= FLOAT_EPSILON) {
        m->kind[MET_COSINE] = MK_NAN;
        m->msgs |= MSG_COS_BENCH_ZERO;
    } else {
        double c = t->dot / (na * nb);
        if (isnan(c)) {
            m->kind[MET_COSINE] = MK_NAN;
            m->msgs |= MSG_COS_NAN;
            return;
        }
        c = round12(c);
        if (c > 0.9999)
            c = round_fixed(c, 6);
        set_num(m, MET_COSINE, c);
    }
}

static void finish(const scan_totals *t, size_t count, tensor_metrics *m)
{
    cosine(t, count, m);
    set_num(m, MET_EUCDIST, sqrt(t->dd));
    set_num(m, MET_MAXABS, round12(t->maxabs));
    if (t->relnan) {
        m->kind[MET_MAXREL] = MK_NAN;
        m->msgs |= MSG_MAXREL_NAN;
    } else {
        set_num(m, MET_MAXREL, round12(t->maxrel));
    }
    set_num(m, MET_ONE_THOUSANDTH, round12((double)t->below1 / (double)count));
    set_num(m, MET_FIVE_THOUSANDTHS, round12((double)t->below5 / (double)count));
}

static int compare_tensors(const tensor *npu, const tensor *bench, unsigned flags, tensor_metrics *out)
{
    memset(out, 0, sizeof *out);
    out->flags = flags;
    if ((unsigned)npu->dtype >= DT_COUNT || (unsigned)bench->dtype >= DT_COUNT)
        return err_internal(NULL, "metrics: tensor of unknown dtype");
    if (npu->numel == 0 || npu->ndim == 0 || !shape_equal(npu->ndim, npu->shape, bench->ndim, bench->shape)) {
        /* not scanned: the CRC checks still owed take a pass of their own */
        if (tensor_crc_check(npu, NULL, NULL, 0) != 0 || tensor_crc_check(bench, NULL, NULL, 0) != 0)
            return -1;
    }
    if (npu->numel == 0) {
        set_all(out, MK_UNSUPPORTED);
        out->msgs = MSG_EMPTY;
        return 0;
    }
    int newest = (flags & METRICS_NEWEST) != 0;
    if (newest) {
        /* the newest msprobe squeezes both on loading: shapes first, then
         * a tensor of one element is its 0-d case */
        if (!same_squeezed(npu, bench)) {
            set_all(out, MK_SHAPE);
            out->msgs = MSG_SHAPE;
            return 0;
        }
        if (npu->numel == 1) {
            compare_0d(npu, bench, 1, out);
            return 0;
        }
    } else if (npu->ndim == 0) {
        compare_0d(npu, bench, 0, out);
        return 0;
    }
    if (!newest && !shape_equal(npu->ndim, npu->shape, bench->ndim, bench->shape)) {
        set_all(out, MK_SHAPE);
        out->msgs = MSG_SHAPE;
        return 0;
    }
    rel_plan p;
    if (newest)
        rel_plan_make_newest(npu->dtype, bench->dtype, &p);
    else
        rel_plan_make(npu->dtype, bench->dtype, &p);
    scan_totals t;
    int level = (flags & METRICS_SCALAR) ? -1 : (int)METRICS_SIMD_OF(flags);
    int scanned = metrics_scan(npu, bench, &p, level, (int)METRICS_THREADS_OF(flags), &t);
    if (scanned < 0)
        return -1;
    if (scanned) {
        set_all(out, MK_NA);
        out->msgs = MSG_POSITION;
        return 0;
    }
    if (metrics_eff_dtype(npu->dtype) != metrics_eff_dtype(bench->dtype))
        out->msgs |= MSG_DTYPE;
    finish(&t, npu->numel, out);
    return 0;
}

int metrics_compare(const tensor *npu, const tensor *bench, unsigned flags, tensor_metrics *out)
{
    /* Both files may be truncated by another process while we stream them:
     * one guard per file for the whole pass (files.h). */
    file_guard gn, gb;
    file_guard_begin(&gn, &npu->map);
    file_guard_begin(&gb, &bench->map);
    int rc = compare_tensors(npu, bench, flags, out);
    int changed_b = file_guard_end(&gb);
    err_record rb = {0};
    if (changed_b)
        err_take(&rb);
    int changed_n = file_guard_end(&gn);
    if (changed_b && !changed_n)
        err_restore(&rb);
    err_record_free(&rb);
    return rc != 0 || changed_n != 0 || changed_b != 0 ? -1 : 0;
}

/* ---- cells ---------------------------------------------------------------- */

static const char *text_of(unsigned bit)
{
    unsigned i = 0;
    while (i < NMSG && !(bit & (1u << i)))
        i++;
    return i < NMSG ? msg_text[i] : "";
}

/* 8.1.0 hands each skipped metric of a 0-d tensor the message accumulated so
 * far and appends what it returns, so the text doubles at Cosine, EucDist
 * and both ratios, with the NaN messages of MaxAbsErr and MaxRelativeErr
 * caught up in the doubling. */
static void zero_d_repeated(unsigned msgs, strbuf *sb)
{
    strbuf acc = STRBUF_INIT;
    sb_adds(&acc, text_of(MSG_ZERO_D));
    for (int metric = 0; metric < MET_COUNT; metric++) {
        if (metric == MET_MAXABS || metric == MET_MAXREL) {
            unsigned bit = metric == MET_MAXABS ? MSG_MAXABS_NAN : MSG_MAXREL_NAN;
            if (msgs & bit)
                sb_adds(&acc, text_of(bit));
            continue;
        }
        size_t len = acc.len;
        sb_grow(&acc, len);
        sb_add(&acc, acc.buf, len);
    }
    sb_add(sb, acc.buf, acc.len);
    sb_free(&acc);
}

void metrics_message(const tensor_metrics *m, strbuf *sb)
{
    if ((m->msgs & MSG_ZERO_D) && (m->flags & METRICS_ZERO_D_REPEAT)) {
        zero_d_repeated(m->msgs, sb);
        return;
    }
    for (unsigned i = 0; i < NMSG; i++)
        if (m->msgs & (1u << i))
            sb_adds(sb, msg_text[i]);
}

const char *metrics_accuracy(const tensor_metrics *m)
{
    int c = m->kind[MET_COSINE], a = m->kind[MET_MAXABS];
    if (c == MK_SHAPE)
        return "Unmatched";
    if (c == MK_NA || a == MK_NA)
        return "No";
    if ((c != MK_NUM && c != MK_NAN) || (a != MK_NUM && a != MK_NAN))
        return "None"; /* float("unsupported") fails */
    double cv = c == MK_NAN ? NAN : m->value[MET_COSINE];
    double av = a == MK_NAN ? NAN : m->value[MET_MAXABS];
    if (cv < 0.99 && av > 0.001)
        return "No";
    if (cv < 0.9 || av > 1)
        return "No";
    return "Yes";
}
