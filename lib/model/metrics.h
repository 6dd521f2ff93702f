/* Real-data comparison of two tensors: msprobe 8.1.0's ALL-mode metrics
 * (spec/compare.md §5.4.2-§5.4.5) -- Cosine, EucDist, MaxAbsErr,
 * MaxRelativeErr, One Thousandth and Five Thousandths Err Ratio -- with the
 * same pre-checks, cell values and Err_message texts.
 *
 * The two tensors are read once, in one streaming pass over fixed-size
 * chunks (no temporary copies of the tensors): dot product, both squared
 * norms and the squared difference are accumulated in double, the maxima,
 * the relative errors and the threshold counts exactly as numpy computes
 * them, and the NaN/inf position rule is checked on the fly.
 *
 * Exactness with respect to numpy 1.24:
 *   - MaxAbsErr, MaxRelativeErr and both ratios are exact: the relative
 *     error follows numpy's dtype rules (float16 bench: float16 arithmetic,
 *     each operation rounded to half; f16 vs f32 promotes to f32; a
 *     non-float bench casts both sides to float64; epsilon is added where
 *     bench == 0 in each array's own dtype; thresholds compared in the
 *     dtype of the relative error).
 *   - Cosine and EucDist come from sums whose order differs from numpy's
 *     BLAS dot: each lane sums a chunk, chunk sums are added with Neumaier
 *     compensation, so our sums are at least as accurate as numpy's and
 *     differ from them only in the last bits (Cosine is then rounded to 12
 *     decimals, which hides that except right at a rounding boundary).
 *
 * Where msprobe 8.1.0 raises an uncaught exception (and aborts the whole
 * compare) we return the nearest sensible result instead:
 *   - integer or bool NPU tensor vs float bench: the NPU side is taken as
 *     float64 for the relative error (numpy refuses to add epsilon in place
 *     to an integer array);
 *   - 0-d NPU tensor vs a bench tensor that is not 0-d: "shape unmatched"
 *     (numpy cannot index a 0-d array with the bench's zero mask).
 *
 * bfloat16 tensors are treated as float32, as msprobe converts them on load
 * (so bf16 vs f32 is not a dtype mismatch).  Complex tensors compare by
 * their real parts, as numpy's astype(float) does, except where numpy keeps
 * complex arithmetic (a complex NPU tensor vs a float bench in the relative
 * error; a 0-d complex difference).  There |z| follows numpy's AVX-512F
 * loop, larger * sqrt(fma(r, r, 1)); numpy without AVX-512F calls libm's
 * hypot instead, which can differ in the last bit.
 *
 * Thread-safe: no global state; the tensors are only read.
 */
#ifndef MSP_METRICS_H
#define MSP_METRICS_H

#include <stddef.h>

#include "base/strbuf.h"
#include "format/tensor.h"

/* The six metric columns, in table order. */
enum { MET_COSINE, MET_EUCDIST, MET_MAXABS, MET_MAXREL, MET_ONE_THOUSANDTH, MET_FIVE_THOUSANDTHS, MET_COUNT };

/* What a metric cell holds: a number, or one of msprobe's texts. */
enum metric_kind {
    MK_NUM,          /* value[i] (may be +-inf) */
    MK_NAN,          /* "Nan" */
    MK_UNSUPPORTED,  /* "unsupported" */
    MK_NA,           /* "N/A" */
    MK_SHAPE,        /* "shape unmatched" */
};

/* Err_message parts, one bit each; they are emitted in this order. */
enum metric_msg {
    MSG_EMPTY          = 1u << 0,  /* This is empty data, can not compare. */
    MSG_ZERO_D         = 1u << 1,  /* This is type of 0-d tensor, can not calculate ... */
    MSG_SHAPE          = 1u << 2,  /* Shape of NPU and bench tensor do not match. Skipped. */
    MSG_POSITION       = 1u << 3,  /* The position of inf or nan in NPU and bench Tensor do not match. */
    MSG_DTYPE          = 1u << 4,  /* Dtype of NPU and bench tensor do not match. */
    MSG_COS_LENGTH1    = 1u << 5,  /* This is a 1-d tensor of length 1. */
    MSG_COS_NPU_ZERO   = 1u << 6,  /* Cannot compare by Cosine Similarity, All the data is Zero in npu dump data. */
    MSG_COS_BENCH_ZERO = 1u << 7,  /* ... All the data is Zero in Bench dump data. */
    MSG_COS_NAN        = 1u << 8,  /* Cannot compare by Cosine Similarity, the dump data has NaN. */
    MSG_MAXABS_NAN     = 1u << 9,  /* Cannot compare by MaxAbsError, the data contains nan/inf/-inf in dump data. */
    MSG_MAXREL_NAN     = 1u << 10, /* Cannot compare by MaxRelativeError, ... */
};

/* Options of metrics_compare. */
enum {
    /* Repeat the 0-d sentence the way 8.1.0 accumulates it (16 copies,
     * NaN messages interleaved); default: the sentence once. */
    METRICS_ZERO_D_REPEAT = 1,
    /* Use only the portable element-by-element path (tests, benchmarks). */
    METRICS_SCALAR = 2,
    /* The newest msprobe's rules: both tensors squeezed on loading (a
     * tensor of one element is 0-d), the shapes compared before the 0-d
     * case, the relative error in result_type(npu, bench, float32) with
     * that type's eps (metrics_scan.h). */
    METRICS_NEWEST = 1u << 16,
};
/* Use the vector kernels of one instruction set (model/metrics_kern.h:
 * SIMD_PORTABLE, SIMD_AVX2, ...) instead of the best the CPU runs; for tests
 * and benchmarks. A set the CPU lacks means element by element. */
#define METRICS_SIMD(level) ((unsigned)(level) << 4)
#define METRICS_SIMD_OF(flags) (((flags) >> 4) & 15u)
/* Threads one big tensor may be scanned on (1-255; 0 means 1; n is
 * evaluated twice): a tensor of more than 2^22 elements is split into
 * pieces of that size, whose totals are added in order, so the result does
 * not depend on the number. */
#define METRICS_THREADS(n) ((unsigned)((n) > 255 ? 255 : (n)) << 8)
#define METRICS_THREADS_OF(flags) (((flags) >> 8) & 255u)

typedef struct {
    double value[MET_COUNT];        /* valid where kind[i] == MK_NUM */
    unsigned char kind[MET_COUNT];  /* enum metric_kind */
    unsigned msgs;                  /* enum metric_msg bits */
    unsigned flags;                 /* the options the result was made with */
} tensor_metrics;

/* Compare NPU tensor `npu` with bench tensor `bench` (§5.4.2-§5.4.3).
 * Every outcome msprobe reports in the table (empty, 0-d, shape or NaN
 * position mismatch, ...) is a result, not an error.  Returns 0, or -1
 * with an internal error recorded for a tensor of unknown dtype, or
 * ERR_CHANGED naming the file when a tensor file was truncated or rewritten
 * by another process while being read (the data is read under a file_guard
 * on each tensor's mapping), or ERR_MALFORMED naming the file and the zip
 * entry when a .pt's stored data fails the CRC-32 check left to this pass
 * (tensor.h's tensor_crc; checked as the bytes are read). */
int metrics_compare(const tensor *npu, const tensor *bench, unsigned flags, tensor_metrics *out);

/* numpy's a.shape == b.shape: the same number of dimensions, each of the
 * same size. Two tensors are compared element by element only then (here
 * and in the checkpoint compare); otherwise "shape unmatched". */
int shape_equal(int ndim_a, const int64_t *shape_a, int ndim_b, const int64_t *shape_b);

/* Append the Err_message text of a result (may append nothing). */
void metrics_message(const tensor_metrics *m, strbuf *sb);

/* Text of a non-numeric cell: "Nan", "unsupported", "N/A", "shape
 * unmatched"; NULL for MK_NUM. */
const char *metric_kind_text(int kind);

/* "Accuracy Reached or Not" (§5.4.4) from the Cosine and MaxAbsErr cells:
 * "Yes", "No", "None" or "Unmatched". */
const char *metrics_accuracy(const tensor_metrics *m);

/* Column headers, in order: "Cosine", "EucDist", "MaxAbsErr", ... */
extern const char *const metric_names[MET_COUNT];

/* The double nearest to Python's "%.12f" % x (msprobe's format_value);
 * +-inf and NaN are returned unchanged. */
double round12(double x);

#endif
