/* Neumaier's compensated sum, for the tensor kernels (metrics_scan.c,
 * tensor_sums.c): each kernel sums a chunk of a tensor in plain double
 * lanes and adds the chunk's sum to the total here, so the rounding error
 * of a sum over N elements stays near that of one chunk instead of growing
 * with N. Header-only: the kernels call it once a chunk, from their hot
 * loop, where a function call would show. */
#ifndef MSP_CSUM_H
#define MSP_CSUM_H

#include <math.h>

typedef struct {
    double s, c;   /* the running sum and the compensation (the rounding errors so far) */
} csum;

static inline void csum_add(csum *k, double x)
{
    double t = k->s + x;
    if (fabs(k->s) >= fabs(x))
        k->c += (k->s - t) + x;
    else
        k->c += (x - t) + k->s;
    k->s = t;
}

/* Adds the sum b (taken in a piece of its own) to k: b's sum, then its
 * compensation. */
static inline void csum_merge(csum *k, const csum *b)
{
    csum_add(k, b->s);
    k->c += b->c;
}

/* The total. Once the sum met inf or NaN the compensation means nothing
 * (inf - inf made it NaN). */
static inline double csum_get(const csum *k) { return isfinite(k->s) ? k->s + k->c : k->s; }

#endif
