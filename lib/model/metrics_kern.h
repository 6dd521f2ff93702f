/* The vector kernels of the metrics scan (metrics_scan.c) and the choice of
 * instruction set they run with.
 *
 * One kernel per pair of operand formats (float32, bfloat16 or float16
 * storage on each side, read in place) and relative-error rule, for each
 * instruction set: the portable one (16-byte vectors: SSE2 on x86-64, NEON
 * on AArch64, whatever GCC/Clang make of them elsewhere) and, on x86-64,
 * AVX2 and AVX-512, picked at run time from what the CPU (and the kernel)
 * supports. The scan picks its kernel once per tensor.
 *
 * Every instruction set gives bit-identical results: the double sums have
 * eight lanes whatever the vector width (lane k adds x[k]*y[k], then
 * x[k+8]*y[k+8], of each block of 16 elements; a product of two float
 * values is exact in double, so a fused multiply-add rounds as the
 * separate operations do), reduced in one fixed order; the maxima and
 * counts are exact.
 * So a result never depends on the machine that computed it.
 */
#ifndef MSP_METRICS_KERN_H
#define MSP_METRICS_KERN_H

#include <stddef.h>

/* Instruction sets, in order of preference. */
enum simd_level {
    SIMD_AUTO = 0,      /* the best this CPU supports */
    SIMD_PORTABLE,      /* 16-byte generic vectors: SSE2, NEON */
    SIMD_AVX2,          /* x86-64 with AVX2, FMA and F16C */
    SIMD_AVX512,        /* x86-64 with AVX-512 F/BW/DQ/VL */
    SIMD_COUNT
};

/* The best level this CPU runs; whether it runs `level`; its name
 * ("sse2", "neon", "avx2", "avx512", "portable"). Cheap: the CPU's features
 * are read once, before main() (cpuid and xgetbv on x86-64). */
int simd_best(void);
int simd_available(int level);
const char *simd_name(int level);

/* What one kernel call adds up over its elements. */
typedef struct {
    double dot, nn, bb, dd;   /* sums of n*b, n*n, b*b, (n-b)^2 */
    double maxabs, maxrel;    /* max |n-b| (double), max relative error (NaN lanes excluded) */
    int relnan;               /* some relative error is NaN */
    size_t below1, below5;    /* relative errors below the two thresholds */
} chunk_acc;

/* How a kernel reads its operands. */
enum { LD_F32, LD_BF16, LD_F16 };

/* Elements [0, len) of px and py, len a multiple of KERN_BLOCK, all finite
 * or the sums say otherwise (a non-finite nn or bb: the caller redoes the
 * chunk element by element). t1 / t5: the thresholds as the kernel compares
 * them (metrics_scan.c); eps: what the rule adds where the bench is 0
 * (2^-52, or float32's own 2^-23 for the newest msprobe). */
typedef void metrics_kern_fn(const unsigned char *px, const unsigned char *py, size_t len, float t1, float t5,
                             float eps, chunk_acc *a);
enum { KERN_BLOCK = 16 };

/* The relative-error rule of a kernel: `half`: float16 arithmetic (both
 * sides float16, no eps); else float32 with eps added where the bench is 0
 * on the NPU side (en) and on the bench side (eb). */
typedef struct {
    int ldn, ldb;  /* LD_* */
    int half, en, eb;
} kern_rule;

/* The kernel for `rule` at `level` (SIMD_AUTO: the best), or NULL when the
 * level is not available here or the combination has no kernel. */
metrics_kern_fn *metrics_kern_pick(int level, const kern_rule *rule);

/* The vector float16 rounding of the float16 kernels on in[0..4), for the
 * unit tests. */
void metrics_round_half4(const float *in, float *out);

/* The order in which the eight lanes of a double sum are added. */
double lanes8_sum(const double s[8]);

#endif
