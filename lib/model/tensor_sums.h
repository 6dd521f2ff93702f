/* The sums behind an L2 distance and a cosine similarity of two tensors
 * taken as float32 (what msprobe's checkpoint compare does after
 * tensor.float()): a·b, a·a, b·b and (a−b)·(a−b), the difference rounded to
 * float32 first as numpy subtracts two float32 arrays. The squares and
 * products are summed in double (each 1024-element chunk per vector lane,
 * the chunks with Neumaier compensation), so the sums are at least as
 * accurate as numpy's float32 BLAS and differ from them in the last bits
 * only. NaN and inf propagate, as in numpy.
 *
 * The tensors are read once, in logical (row-major) order, over an element
 * range: any view (a slice of a tensor-parallel shard, a strided piece)
 * works, and a big tensor can be split into ranges for several threads,
 * whose sums add up (in a fixed order, for reproducible results).
 * Contiguous float32 / bfloat16 / float16 data goes through a vector
 * kernel (generic vectors: SSE2 on x86-64, NEON on AArch64); everything
 * else is converted to float32 chunk by chunk.
 *
 * The data may be a file mapping: read it under a file_guard (files.h).
 * Thread-safe; nothing global. */
#ifndef MSP_TENSOR_SUMS_H
#define MSP_TENSOR_SUMS_H

#include <stddef.h>

#include "format/tensor.h"

typedef struct {
    double dot, aa, bb, dd;
} tensor_sums;

enum { TSUMS_SCALAR = 1 };   /* only the element-by-element path (tests compare the two) */

/* Sums over elements [start, start + count) of a and b, which have the
 * same element count, added to *acc. */
void tensor_sums_add(const tensor *a, const tensor *b, size_t start, size_t count, unsigned flags, tensor_sums *acc);

/* numpy.allclose(a, b) over elements [start, start + count), in float32
 * as numpy computes it for float32 arrays: |a − b| <= 1e-08 + 1e-05·|b|
 * everywhere (NaN is never close, equal infinities are). 1 when close, 0
 * when not. */
int tensor_allclose(const tensor *a, const tensor *b, size_t start, size_t count);

#endif
