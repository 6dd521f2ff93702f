/* Four-lane float vectors for the tensor kernels (metrics_scan.c,
 * tensor_sums.c): GCC/Clang generic vectors, so the same source compiles to
 * SSE2 on x86-64 (a few SSE2 intrinsics where the generic form would take
 * several instructions) and to NEON on AArch64; and the loads of float32,
 * bfloat16 and float16 operands straight from contiguous storage. */
#ifndef MSP_VEC4_H
#define MSP_VEC4_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));
typedef double v2d __attribute__((vector_size(16)));
typedef int64_t v2l __attribute__((vector_size(16)));

/* How the kernel reads its operands: float32 values, or raw bfloat16 /
 * float16 patterns straight from a contiguous tensor. */
enum { LD_F32, LD_BF16, LD_F16 };

#define SPLAT4(x) ((v4i){(x), (x), (x), (x)})

static inline v4i sel4(v4i m, v4i a, v4i b) { return (m & a) | (~m & b); }

/* Four 16-bit patterns into the low (high = 0) or high (high = 1) halves
 * of four 32-bit lanes. */
static inline v4i ld4_u16(const unsigned char *p, int high)
{
#if defined(__SSE2__)
    __m128i v = _mm_loadl_epi64((const void *)p);
    return (v4i)(high ? _mm_unpacklo_epi16(_mm_setzero_si128(), v) : _mm_unpacklo_epi16(v, _mm_setzero_si128()));
#else
    uint16_t h[4];
    memcpy(h, p, sizeof h);
    v4i v = {h[0], h[1], h[2], h[3]};
    return high ? v << 16 : v;
#endif
}

/* The branch-free float16 -> float32 conversion of tensor.c on four lanes. */
static inline v4f half4_to_float(v4i h)
{
    v4i sign = (h & 0x8000) << 16;
    v4i em = h & 0x7fff;
    v4i finite = (v4i)((v4f)(em << 13) * 0x1p112f);
    v4i special = 0x7f800000 | (em & 0x3ff) << 13;
    return (v4f)(sel4(em >= 0x7c00, special, finite) | sign);
}

static inline v4f load4(const unsigned char *p, size_t i, int ld)
{
    if (ld == LD_BF16)
        return (v4f)ld4_u16(p + 2 * i, 1);
    if (ld == LD_F16)
        return half4_to_float(ld4_u16(p + 2 * i, 0));
    v4f v;
    memcpy(&v, p + 4 * i, sizeof v);
    return v;
}

#if defined(__SSE2__)
static inline v2d lo2(v4f v) { return (v2d)_mm_cvtps_pd((__m128)v); }
static inline v2d hi2(v4f v) { return (v2d)_mm_cvtps_pd(_mm_movehl_ps((__m128)v, (__m128)v)); }
#else
static inline v2d lo2(v4f v) { return (v2d){v[0], v[1]}; }
static inline v2d hi2(v4f v) { return (v2d){v[2], v[3]}; }
#endif
static inline v2d abs2(v2d v) { return (v2d)((v2l)v & INT64_MAX); }
static inline v4f abs4(v4f v) { return (v4f)((v4i)v & INT32_MAX); }

/* Maxima of values that are never NaN (abs differences of finite data); for
 * the relative error a NaN lane is tracked separately, so whatever the max
 * makes of it does not matter. */
static inline v2d max2(v2d a, v2d b)
{
#if defined(__SSE2__)
    return (v2d)_mm_max_pd((__m128d)a, (__m128d)b);
#else
    v2l m = a > b;
    return (v2d)((m & (v2l)a) | (~m & (v2l)b));
#endif
}

static inline v4f max4(v4f a, v4f b)
{
#if defined(__SSE2__)
    return (v4f)_mm_max_ps((__m128)a, (__m128)b);
#else
    return (v4f)sel4(a > b, (v4i)a, (v4i)b);
#endif
}

static inline v4f min4(v4f a, v4f b)
{
#if defined(__SSE2__)
    return (v4f)_mm_min_ps((__m128)a, (__m128)b);
#else
    return (v4f)sel4(a < b, (v4i)a, (v4i)b);
#endif
}

#endif
