/* CRC-32 (crc32.h): zlib's polynomial, folded by carry-less multiplies
 * where the CPU has them.
 *
 * Folding (the method of Gopal et al., "Fast CRC computation for generic
 * polynomials using PCLMULQDQ", Intel 2009): a 128-bit lane L of the
 * message, followed by D more bits, may be replaced by any F with
 * F == L * x^D (mod P) added into the lane D bits later, without changing
 * the CRC. In the reflected bit order of zip, a lane's low 64 bits a are
 * its high-degree half, so F = a * (x^(D+32) mod P) + b * (x^(D-32) mod P),
 * two 64 x 33-bit carry-less products that fit a lane. Lanes are folded
 * until 16 bytes remain, whose CRC (with the tail) the table code takes;
 * the caller's CRC enters as the xor of the first four bytes. */
#include "format/crc32.h"

#include <pthread.h>
#include <string.h>
#include <zlib.h>

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
#endif

/* x^n mod P, bit-reflected into 33 bits (bit j is the coefficient of
 * x^(32-j)); test_crc32 computes them again from P. */
#define K_4128 0x01072db28ULL
#define K_4064 0x1d741f35cULL
#define K_544 0x154442bd4ULL
#define K_480 0x1c6e41596ULL
#define K_416 0x03db1ecdcULL
#define K_352 0x174359406ULL
#define K_288 0x0f1da05aaULL
#define K_224 0x15a546366ULL
#define K_160 0x1751997d0ULL
#define K_96 0x0ccaa009eULL

enum { KIND_ZLIB, KIND_FOLD16, KIND_FOLD64, KIND_ARM };

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int kind;

uint32_t crc32_update_zlib(uint32_t crc, const void *data, size_t n)
{
    return (uint32_t)crc32_z(crc, data, n);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* The CRC from the 16 bytes left after folding (raw, starting from a zero
 * state) and the tail. */
static uint32_t finish(const unsigned char v[16], const unsigned char *p, size_t n)
{
    uint32_t c = (uint32_t)crc32_z(0xffffffffUL, v, 16);
    return (uint32_t)crc32_z(c, p, n);
}

#define FOLD16_TARGET __attribute__((target("pclmul,sse4.1")))
#define FOLD64_TARGET __attribute__((target("pclmul,sse4.1,avx512f,avx512vl,vpclmulqdq")))

FOLD16_TARGET static inline __m128i fold16(__m128i x, __m128i k, __m128i y)
{
    return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), y);
}

#define LOAD16(p) _mm_loadu_si128((const __m128i *)(const void *)(p))

/* n >= 64 */
FOLD16_TARGET static uint32_t fold_by_16(uint32_t crc, const unsigned char *p, size_t n)
{
    const __m128i k64 = _mm_set_epi64x((long long)K_480, (long long)K_544);
    const __m128i k16 = _mm_set_epi64x((long long)K_96, (long long)K_160);
    __m128i x0 = _mm_xor_si128(LOAD16(p), _mm_cvtsi32_si128((int)~crc)), x1 = LOAD16(p + 16),
            x2 = LOAD16(p + 32), x3 = LOAD16(p + 48);
    for (p += 64, n -= 64; n >= 64; p += 64, n -= 64) {
        x0 = fold16(x0, k64, LOAD16(p));
        x1 = fold16(x1, k64, LOAD16(p + 16));
        x2 = fold16(x2, k64, LOAD16(p + 32));
        x3 = fold16(x3, k64, LOAD16(p + 48));
    }
    x3 = fold16(fold16(fold16(x0, k16, x1), k16, x2), k16, x3);
    for (; n >= 16; p += 16, n -= 16)
        x3 = fold16(x3, k16, LOAD16(p));
    unsigned char v[16];
    _mm_storeu_si128((__m128i *)(void *)v, x3);
    return finish(v, p, n);
}

FOLD64_TARGET static inline __m512i fold64(__m512i x, __m512i k, __m512i y)
{
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00), _mm512_clmulepi64_epi128(x, k, 0x11), y,
                                     0x96);
}

#define LOAD64(p) _mm512_loadu_si512((const void *)(p))

/* n >= 512: eight 64-byte registers, 512 bytes a round (four leave the
 * multiplier waiting for the products before: a third slower). */
FOLD64_TARGET static uint32_t fold_by_64(uint32_t crc, const unsigned char *p, size_t n)
{
    const __m512i k512 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)K_4064, (long long)K_4128));
    const __m512i k64 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)K_480, (long long)K_544));
    __m512i z[8];
    for (int i = 0; i < 8; i++)
        z[i] = LOAD64(p + 64 * i);
    z[0] = _mm512_xor_si512(z[0], _mm512_inserti32x4(_mm512_setzero_si512(), _mm_cvtsi32_si128((int)~crc), 0));
    for (p += 512, n -= 512; n >= 512; p += 512, n -= 512)
        for (int i = 0; i < 8; i++)
            z[i] = fold64(z[i], k512, LOAD64(p + 64 * i));
    __m512i z3 = z[0];
    for (int i = 1; i < 8; i++)
        z3 = fold64(z3, k64, z[i]);
    for (; n >= 64; p += 64, n -= 64)
        z3 = fold64(z3, k64, LOAD64(p));
    /* the four lanes of z3, 48, 32 and 16 bytes before the last one's end */
    const __m128i k48 = _mm_set_epi64x((long long)K_352, (long long)K_416);
    const __m128i k32 = _mm_set_epi64x((long long)K_224, (long long)K_288);
    const __m128i k16 = _mm_set_epi64x((long long)K_96, (long long)K_160);
    __m128i x = _mm512_extracti32x4_epi32(z3, 3);
    x = fold16(_mm512_extracti32x4_epi32(z3, 2), k16, x);
    x = fold16(_mm512_extracti32x4_epi32(z3, 1), k32, x);
    x = fold16(_mm512_extracti32x4_epi32(z3, 0), k48, x);
    for (; n >= 16; p += 16, n -= 16)
        x = fold16(x, k16, LOAD16(p));
    unsigned char v[16];
    _mm_storeu_si128((__m128i *)(void *)v, x);
    return finish(v, p, n);
}
#define HAVE_FOLD 1

#elif defined(__aarch64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
#include <arm_acle.h>
__attribute__((target("+crc"))) static uint32_t arm_crc(uint32_t crc, const unsigned char *p, size_t n)
{
    uint32_t c = ~crc;
    for (; n >= 8; n -= 8, p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        c = __crc32d(c, w);
    }
    while (n--)
        c = __crc32b(c, *p++);
    return ~c;
}
#define HAVE_ARM 1
#endif

static void init(void)
{
    kind = KIND_ZLIB;
#ifdef HAVE_FOLD
    __builtin_cpu_init();
    if (__builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1"))
        kind = KIND_FOLD16;
    if (kind == KIND_FOLD16 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")
        && __builtin_cpu_supports("vpclmulqdq"))
        kind = KIND_FOLD64;
#elif defined(HAVE_ARM)
    if (getauxval(AT_HWCAP) & HWCAP_CRC32)
        kind = KIND_ARM;
#endif
}

static uint32_t update_as(int k, uint32_t crc, const unsigned char *p, size_t n)
{
#ifdef HAVE_FOLD
    if (k == KIND_FOLD64 && n >= 512)
        return fold_by_64(crc, p, n);
    if (k >= KIND_FOLD16 && n >= 64)
        return fold_by_16(crc, p, n);
#elif defined(HAVE_ARM)
    if (k == KIND_ARM)
        return arm_crc(crc, p, n);
#endif
    (void)k;
    return (uint32_t)crc32_z(crc, p, n);
}

uint32_t crc32_update(uint32_t crc, const void *data, size_t n)
{
    pthread_once(&once, init);
    return update_as(kind, crc, data, n);
}

uint32_t crc32_update_level(int level, uint32_t crc, const void *data, size_t n)
{
    pthread_once(&once, init);
    int k = level <= 0 ? KIND_ZLIB : kind == KIND_ARM ? KIND_ARM : level < kind ? level : kind;
    return update_as(k, crc, data, n);
}

const char *crc32_kind(void)
{
    pthread_once(&once, init);
    return kind == KIND_FOLD64 ? "vpclmulqdq" : kind == KIND_FOLD16 ? "pclmulqdq" : kind == KIND_ARM ? "armv8-crc"
                                                                                                       : "zlib";
}

uint32_t crc32_join(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
{
    return (uint32_t)crc32_combine64(crc_a, crc_b, (z_off64_t)len_b);
}

uint32_t crc32_fill(const unsigned char *base, size_t size, const crc_run *runs, size_t nruns)
{
    uint32_t crc = 0;
    size_t at = 0;
    for (size_t i = 0; i < nruns; i++) {
        const crc_run *r = &runs[i];
        if (r->from < at || r->to > size || r->to <= r->from)
            continue;
        crc = crc32_update(crc, base + at, r->from - at);
        crc = crc32_join(crc, r->crc, r->to - r->from);
        at = r->to;
    }
    return crc32_update(crc, base + at, size - at);
}
