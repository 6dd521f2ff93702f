/* Internals shared by lib/numfmt.c (formatting) and lib/numparse.c
 * (parsing): the table of powers of ten both scale by, and the 128-bit and
 * rounding helpers around it. Not for use outside those two.
 *
 * 10^k ~= (hi*2^64 + lo) * 2^e2 with the significand in [2^127, 2^128),
 * truncated, so the true power lies in [sig, sig + 1) * 2^e2. Powers
 * 10^0..10^55 are exact in 128 bits. */
#ifndef MSP_POW10_H
#define MSP_POW10_H

#include <stdint.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

#define MANT_MASK ((UINT64_C(1) << 52) - 1)
#define HIDDEN_BIT (UINT64_C(1) << 52)
#define HALF64 (UINT64_C(1) << 63)

struct pow10 {
    uint64_t hi, lo;
    int e2;
};

/* Formatting needs 10^-292..10^340, parsing 10^-343..10^308. */
enum { POW10_MIN = -350, POW10_MAX = 350, POW10_EXACT_MAX = 55 };

extern struct pow10 pow10_tab[POW10_MAX - POW10_MIN + 1];

/* Builds the table once; call before the first pow10_at(). */
void pow10_ready(void);

static inline const struct pow10 *pow10_at(int k)
{
    return &pow10_tab[k - POW10_MIN];
}

static inline int pow10_exact(int k)
{
    return (unsigned)k <= POW10_EXACT_MAX;
}

/* floor(g * log10(2)), exact for |g| <= 1100 (checked by the unit test). */
static inline int floor_log10_pow2(int g)
{
    return (g * 315653) >> 20;
}

/* The 192-bit product a * sig(p), most significant word in w[2]. */
static inline void mul192(uint64_t a, const struct pow10 *p, uint64_t w[3])
{
    u128 h = (u128)a * p->hi;
    u128 l = (u128)a * p->lo;
    u128 mid = (u128)(uint64_t)h + (uint64_t)(l >> 64);
    w[0] = (uint64_t)l;
    w[1] = (uint64_t)mid;
    w[2] = (uint64_t)(h >> 64) + (uint64_t)(mid >> 64);
}

static inline uint64_t dbl_bits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static inline double bits_dbl(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

static const uint64_t POW10_U64[20] = {
    UINT64_C(1), UINT64_C(10), UINT64_C(100),
    UINT64_C(1000), UINT64_C(10000), UINT64_C(100000),
    UINT64_C(1000000), UINT64_C(10000000), UINT64_C(100000000),
    UINT64_C(1000000000), UINT64_C(10000000000), UINT64_C(100000000000),
    UINT64_C(1000000000000), UINT64_C(10000000000000), UINT64_C(100000000000000),
    UINT64_C(1000000000000000), UINT64_C(10000000000000000), UINT64_C(100000000000000000),
    UINT64_C(1000000000000000000), UINT64_C(10000000000000000000),
};

/* Rounding direction for a 64-bit fraction known to be at most 2 units
 * below the true one (exactly it when exact): 1 up, 0 down, -1 undecidable. */
static inline int round_dir(uint64_t fr, int exact, int odd)
{
    /* branch-free: which way a data-dependent rounding goes is a coin toss
     * for the branch predictor */
    int up = (fr > HALF64) | (exact & (fr == HALF64) & odd);
    int unsure = (exact == 0) & (fr - (HALF64 - 3) <= 3);
    return unsure ? -1 : up;
}

#endif
