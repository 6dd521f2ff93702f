/* The vector kernels of the metrics scan, once per instruction set
 * (metrics_kern_body.h), and the run-time choice between them.
 *
 * The kernels are written with GCC/Clang generic vectors of the set's
 * native width (wider generic vectors are lowered badly: GCC keeps them in
 * memory), the instruction set chosen by a function attribute, so one
 * build of the program runs on any x86-64 and uses AVX2 or AVX-512 where
 * the CPU has them (cpuid, and xgetbv for whether the operating system
 * saves the registers); the portable set is SSE2 on x86-64 and NEON
 * on AArch64. Generic vectors passed between the always-inlined helpers
 * are wider than the build's own ABI knows, hence -Wpsabi is off here (no
 * such function is ever called, so no ABI is involved).
 */
#include "model/metrics_kern.h"
#include "format/tensor.h"

#include <stdint.h>
#include <string.h>

#pragma GCC diagnostic ignored "-Wpsabi"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KERN_X86 1
#include <immintrin.h>
#endif
#if defined(__aarch64__)
#include <arm_neon.h>
#endif

/* What a kernel leaves in its vector registers, lane by lane. */
typedef struct {
    double dot[8], nn[8], bb[8], dd[8], ma[8];
    float mr[16];
    int32_t rn[16], c1[16], c5[16];
} kern_lanes;

double lanes8_sum(const double s[8])
{
    return ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]));
}

static float round_to_half_f(float x) { return f16_to_f32(f32_to_f16(x)); }

/* The lanes into one chunk's totals. A float16 kernel kept the maximum
 * quotient before its last rounding: rounding is monotonic, so it is
 * rounded once, here. */
static void kern_finish(const kern_lanes *k, int nf, int half, chunk_acc *a)
{
    a->dot = lanes8_sum(k->dot);
    a->nn = lanes8_sum(k->nn);
    a->bb = lanes8_sum(k->bb);
    a->dd = lanes8_sum(k->dd);
    a->maxabs = 0;
    for (int i = 0; i < 8; i++)
        if (k->ma[i] > a->maxabs)
            a->maxabs = k->ma[i];
    a->maxrel = 0;
    a->relnan = 0;
    a->below1 = a->below5 = 0;
    for (int i = 0; i < nf; i++) {
        if (k->rn[i]) {
            a->relnan = 1;
        } else {
            float m = half ? round_to_half_f(k->mr[i]) : k->mr[i];
            if (m > a->maxrel)
                a->maxrel = m;
        }
        a->below1 += (size_t)k->c1[i];
        a->below5 += (size_t)k->c5[i];
    }
}

/* ---- the portable set: 16-byte vectors ------------------------------------ */

typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));
typedef double v2d __attribute__((vector_size(16)));
typedef int64_t v2l __attribute__((vector_size(16)));
typedef uint16_t v4h __attribute__((vector_size(8)));

#define KSFX base
#define KATTR
#define KW 16
#define VF v4f
#define VI v4i
#define VD v2d
#define VL v2l
#define VH v4h
#define LO_IDX 0, 1
#define HI_IDX 2, 3
#if defined(KERN_X86)
#define KMAXF(a, b) ((v4f)_mm_max_ps((__m128)(a), (__m128)(b)))
#define KMINF(a, b) ((v4f)_mm_min_ps((__m128)(a), (__m128)(b)))
#define KMAXD(a, b) ((v2d)_mm_max_pd((__m128d)(a), (__m128d)(b)))
#define KDLO(x) ((v2d)_mm_cvtps_pd((__m128)(x)))
#define KDHI(x) ((v2d)_mm_cvtps_pd(_mm_movehl_ps((__m128)(x), (__m128)(x))))
#define KWIDEN(p) ((v4i)_mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)(const void *)(p)), _mm_setzero_si128()))
#elif defined(__aarch64__)
#define KMAXF(a, b) ((v4f)vmaxq_f32((float32x4_t)(a), (float32x4_t)(b)))
#define KMINF(a, b) ((v4f)vminq_f32((float32x4_t)(a), (float32x4_t)(b)))
#define KMAXD(a, b) ((v2d)vmaxq_f64((float64x2_t)(a), (float64x2_t)(b)))
#define KDLO(x) ((v2d)vcvt_f64_f32(vget_low_f32((float32x4_t)(x))))
#define KDHI(x) ((v2d)vcvt_high_f64_f32((float32x4_t)(x)))
#define KFMAD(a, b, c) ((v2d)vfmaq_f64((float64x2_t)(c), (float64x2_t)(a), (float64x2_t)(b)))
#else
static inline v4f sel_f(v4i m, v4f a, v4f b) { return (v4f)((m & (v4i)a) | (~m & (v4i)b)); }
static inline v2d sel_d(v2l m, v2d a, v2d b) { return (v2d)((m & (v2l)a) | (~m & (v2l)b)); }
#define KMAXF(a, b) sel_f((a) > (b), (a), (b))
#define KMINF(a, b) sel_f((a) < (b), (a), (b))
#define KMAXD(a, b) sel_d((a) > (b), (a), (b))
#endif
#include "model/metrics_kern_body.h"

/* ---- x86-64: AVX2 and AVX-512 --------------------------------------------- */

#if defined(KERN_X86)
typedef float v8f __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));
typedef double v4d __attribute__((vector_size(32)));
typedef int64_t v4l __attribute__((vector_size(32)));
typedef uint16_t v8h __attribute__((vector_size(16)));

#define KSFX avx2
#define KATTR __attribute__((target("avx2,fma,f16c")))
#define KW 32
#define VF v8f
#define VI v8i
#define VD v4d
#define VL v4l
#define VH v8h
#define LO_IDX 0, 1, 2, 3
#define HI_IDX 4, 5, 6, 7
#define KMAXF(a, b) ((v8f)_mm256_max_ps((__m256)(a), (__m256)(b)))
#define KMINF(a, b) ((v8f)_mm256_min_ps((__m256)(a), (__m256)(b)))
#define KMAXD(a, b) ((v4d)_mm256_max_pd((__m256d)(a), (__m256d)(b)))
#define KDLO(x) ((v4d)_mm256_cvtps_pd(_mm256_castps256_ps128((__m256)(x))))
#define KDHI(x) ((v4d)_mm256_cvtps_pd(_mm256_extractf128_ps((__m256)(x), 1)))
#define KFMAD(a, b, c) ((v4d)_mm256_fmadd_pd((__m256d)(a), (__m256d)(b), (__m256d)(c)))
#define KWIDEN(p) ((v8i)_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p))))
#define KF16(p) ((v8f)_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(p))))
#include "model/metrics_kern_body.h"

typedef float v16f __attribute__((vector_size(64)));
typedef int32_t v16i __attribute__((vector_size(64)));
typedef double v8d __attribute__((vector_size(64)));
typedef int64_t v8l __attribute__((vector_size(64)));
typedef uint16_t v16h __attribute__((vector_size(32)));

#define KSFX avx512
#define KATTR __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,f16c")))
#define KW 64
#define VF v16f
#define VI v16i
#define VD v8d
#define VL v8l
#define VH v16h
#define LO_IDX 0, 1, 2, 3, 4, 5, 6, 7
#define HI_IDX 8, 9, 10, 11, 12, 13, 14, 15
#define KMAXF(a, b) ((v16f)_mm512_max_ps((__m512)(a), (__m512)(b)))
#define KMINF(a, b) ((v16f)_mm512_min_ps((__m512)(a), (__m512)(b)))
#define KMAXD(a, b) ((v8d)_mm512_max_pd((__m512d)(a), (__m512d)(b)))
#define KDLO(x) ((v8d)_mm512_cvtps_pd(_mm512_castps512_ps256((__m512)(x))))
#define KDHI(x) ((v8d)_mm512_cvtps_pd(_mm512_extractf32x8_ps((__m512)(x), 1)))
#define KFMAD(a, b, c) ((v8d)_mm512_fmadd_pd((__m512d)(a), (__m512d)(b), (__m512d)(c)))
/* max(m, |d|) in one instruction: VRANGEPD's absolute maximum, sign cleared */
#define KMAXABSD(m, d) ((v8d)_mm512_range_pd((__m512d)(m), (__m512d)(d), 0x0b))
/* counts and eps by mask registers */
#define KCOUNT(c, r, t)                                                                                      \
    ((c) = (v16i)_mm512_mask_sub_epi32((__m512i)(c), _mm512_cmp_ps_mask((__m512)(r), (__m512)(t), _CMP_LT_OQ), \
                                       (__m512i)(c), _mm512_set1_epi32(-1)))
#define KEPS(xn, yn, en, eb)                                                                                  \
    do {                                                                                                     \
        __mmask16 z_ = _mm512_cmp_ps_mask((__m512)(yn), _mm512_setzero_ps(), _CMP_EQ_OQ);                    \
        const __m512 e_ = _mm512_set1_ps(eps);                                                               \
        if (en)                                                                                              \
            xn = (v16f)_mm512_mask_add_ps((__m512)(xn), z_, (__m512)(xn), e_);                               \
        if (eb)                                                                                              \
            yn = (v16f)_mm512_mask_add_ps((__m512)(yn), z_, (__m512)(yn), e_);                               \
    } while (0)
#define KWIDEN(p) ((v16i)_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(p))))
#define KF16(p) ((v16f)_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(p))))
#include "model/metrics_kern_body.h"
#endif

/* ---- the choice ------------------------------------------------------------ */

#if defined(KERN_X86)
#include <cpuid.h>

/* What the CPU and the operating system support, read once before main()
 * (like the feature table of GCC's runtime; cpuid traps to the hypervisor
 * in a VM, so it is not asked per tensor), never written again. AVX needs
 * the OS to save the YMM state (XCR0 bits 1-2), AVX-512 also the opmask
 * and ZMM state (bits 5-7). */
static int x86_avx2, x86_avx512;

__attribute__((constructor)) static void x86_features(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return;
    int fma = c >> 12 & 1, osxsave = c >> 27 & 1, avx = c >> 28 & 1, f16c = c >> 29 & 1;
    if (!osxsave || !avx)
        return;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 0x6) != 0x6 || !__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return;
    int avx2 = b >> 5 & 1, f = b >> 16 & 1, dq = b >> 17 & 1, bw = b >> 30 & 1, vl = b >> 31 & 1;
    x86_avx2 = avx2 && fma && f16c;
    x86_avx512 = x86_avx2 && f && dq && bw && vl && (lo & 0xe6) == 0xe6;
}
#endif

int simd_available(int level)
{
    switch (level) {
    case SIMD_AUTO:
    case SIMD_PORTABLE:
        return 1;
#if defined(KERN_X86)
    case SIMD_AVX2:
        return x86_avx2;
    case SIMD_AVX512:
        return x86_avx512;
#endif
    default:
        return 0;
    }
}

int simd_best(void)
{
    for (int l = SIMD_COUNT - 1; l > SIMD_PORTABLE; l--)
        if (simd_available(l))
            return l;
    return SIMD_PORTABLE;
}

const char *simd_name(int level)
{
    switch (level) {
    case SIMD_AUTO: return "auto";
    case SIMD_PORTABLE:
#if defined(__x86_64__)
        return "sse2";
#elif defined(__aarch64__)
        return "neon";
#else
        return "portable";
#endif
    case SIMD_AVX2: return "avx2";
    case SIMD_AVX512: return "avx512";
    default: return "unknown";
    }
}

metrics_kern_fn *metrics_kern_pick(int level, const kern_rule *rule)
{
    if (level == SIMD_AUTO)
        level = simd_best();
    if (!simd_available(level))
        return NULL;
    switch (level) {
#if defined(KERN_X86)
    case SIMD_AVX512: return pick_avx512(rule);
    case SIMD_AVX2: return pick_avx2(rule);
#endif
    default: return pick_base(rule);
    }
}

void metrics_round_half4(const float *in, float *out) { round_half4_base(in, out); }
