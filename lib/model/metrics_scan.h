/* Internals of metrics.c: the one-pass scan over two tensors of the same
 * shape and the numpy relative-error rules it applies per element. */
#ifndef MSP_METRICS_SCAN_H
#define MSP_METRICS_SCAN_H

#include <stddef.h>

#include "format/tensor.h"
#include "model/metrics_kern.h"

/* The dtype numpy computes the relative error in. */
enum rel_type { RT_F16, RT_F32, RT_F64, RT_C64, RT_C128 };

/* How "+= eps where bench == 0" rounds on one side: float16 loses it
 * (eps is below half the smallest subnormal), float32 and float64 add it
 * in their own precision. 8.1.0 adds float64's eps (2^-52); the newest
 * msprobe the eps of the dtype it computes in: EPS_F32_OWN is float32's
 * (2^-23), in float32. */
enum eps_mode { EPS_NONE, EPS_F32, EPS_F64, EPS_F32_OWN };

typedef struct {
    int rtype;          /* enum rel_type */
    int eps_n, eps_b;   /* enum eps_mode */
    int complex_n;      /* the NPU imaginary part enters the relative error */
    double thr1, thr5;  /* 0.001 and 0.005 rounded to the relative error's dtype */
} rel_plan;

/* Effective dtype after msprobe's loading: bfloat16 becomes float32. */
dtype_id metrics_eff_dtype(dtype_id dt);

/* The plan for NPU dtype dn vs bench dtype db (effective dtypes): msprobe
 * 8.1.0's numpy rules, or (newest) the newest msprobe's: a side that is
 * not float16/32/64 taken as float64, then both computed in
 * result_type(n, b, float32) with that type's eps where the bench is 0. */
void rel_plan_make(dtype_id dn, dtype_id db, rel_plan *p);
void rel_plan_make_newest(dtype_id dn, dtype_id db, rel_plan *p);
/* The same for two 0-d tensors holding n and b (as float64): numpy's
 * value-based casting makes result_type(n, b, float32) float32 unless a
 * value is beyond float32's range, whatever the dtypes. */
void rel_plan_make_newest_0d(double n, double b, rel_plan *p);

/* |(n' - b') / b'| of one element as numpy computes it, where n' and b'
 * carry eps when b == 0.  n = nr + i*ni (ni only for complex plans).
 * The result is exactly representable in the plan's real dtype. */
double rel_err_one(const rel_plan *p, double nr, double ni, double b);

/* |re + i*im| the way numpy computes np.abs of complex64 / complex128. */
float cabs_f(float re, float im);
double cabs_d(double re, double im);

/* float rounded to the nearest float16 value (ties to even, overflow to
 * inf), kept as float. */
float round_to_half(float x);


/* Totals of one scan. */
typedef struct {
    double dot, nn, bb, dd;   /* sums of n*b, n*n, b*b, (n-b)^2 in double */
    double maxabs;            /* max |n - b| in double */
    double maxrel;            /* max relative error, NaN elements skipped */
    int relnan;               /* some relative error is NaN */
    size_t below1, below5;    /* relative errors below thr1 / thr5 */
} scan_totals;

/* Scan two tensors of the same element count.  NaN/inf positions that
 * agree on both sides count as zeros on both sides.  Returns 0, or 1 when
 * the NaN/inf positions disagree (then the totals are meaningless), or -1
 * when a tensor's pending CRC-32 check (tensor.h), made as the scan reads
 * its bytes, fails (error recorded).
 * level: the instruction set of the vector kernels (metrics_kern.h;
 * SIMD_AUTO: the best), or -1: element by element only. A tensor of more
 * than 2^22 elements is scanned in pieces of that size, on up to `threads`
 * threads (the results do not depend on their number). */
int metrics_scan(const tensor *n, const tensor *b, const rel_plan *p, int level, int threads, scan_totals *out);

#endif
