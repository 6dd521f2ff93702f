/* Reading an accepted tensor the ways the metrics do, for the tensor
 * harnesses: its first and last elements through every accessor (a view
 * reaching past its storage shows as an ASan report). Only the ends: a
 * view with zero strides may claim billions of elements over a few bytes,
 * which is legal and would only cost time. */
#ifndef MSP_FUZZ_TENSOR_TOUCH_H
#define MSP_FUZZ_TENSOR_TOUCH_H

#include "format/tensor.h"

#include <stdio.h>
#include <stdlib.h>

static inline void tensor_touch(const tensor *t)
{
    enum { N = 256 };
    double d[2 * N];
    float f[N];
    unsigned char raw[N * 16];
    if (t->numel && !t->storage) {
        fprintf(stderr, "tensor_touch: %zu elements without storage\n", t->numel);
        abort();
    }
    size_t starts[2] = {0, t->numel > N ? t->numel - N : 0};
    for (int k = 0; k < 2; k++) {
        size_t want = t->numel - starts[k] < N ? t->numel - starts[k] : N;
        if (tensor_read_f64(t, starts[k], N, d) != want || tensor_read_f32(t, starts[k], N, f) != want ||
            tensor_read_complex(t, starts[k], N, d) != want || tensor_read_raw(t, starts[k], N, raw) != want) {
            fprintf(stderr, "tensor_touch: short read\n");
            abort();
        }
    }
    const unsigned char *c = tensor_contiguous_data(t);
    if (c && t->numel) {
        volatile unsigned char x = c[0];
        x ^= c[t->numel * dtype_size(t->dtype) - 1];
        (void)x;
    }
}

#endif
