/* The table of powers of ten of lib/pow10.h, built once at first use from
 * exact big-integer arithmetic (so no table of constants to get wrong). */
#include "py/pow10.h"

#include <pthread.h>

struct pow10 pow10_tab[POW10_MAX - POW10_MIN + 1];
static pthread_once_t pow10_once = PTHREAD_ONCE_INIT;

/* Just enough of a bignum to build the table: 5^350 and 2^1000 / 5^k. */
enum { BIG_LIMBS = 34, BIG_SHIFT = 1000 };

struct big {
    uint32_t w[BIG_LIMBS];
};

static void big_mul5(struct big *b)
{
    uint64_t carry = 0;
    for (int i = 0; i < BIG_LIMBS; i++) {
        uint64_t t = (uint64_t)b->w[i] * 5 + carry;
        b->w[i] = (uint32_t)t;
        carry = t >> 32;
    }
}

/* floor(floor(a / 5) / 5) == floor(a / 25), so repeated division by 5 yields
 * the exactly truncated quotient 2^BIG_SHIFT / 5^k. */
static void big_div5(struct big *b)
{
    uint64_t rem = 0;
    for (int i = BIG_LIMBS - 1; i >= 0; i--) {
        uint64_t t = (rem << 32) | b->w[i];
        b->w[i] = (uint32_t)(t / 5);
        rem = t % 5;
    }
}

static int big_bitlen(const struct big *b)
{
    for (int i = BIG_LIMBS - 1; i >= 0; i--)
        if (b->w[i])
            return i * 32 + 32 - __builtin_clz(b->w[i]);
    return 0;
}

/* The 128 leading bits of b (whose length is len), truncated. */
static u128 big_top128(const struct big *b, int len)
{
    u128 r = 0;
    for (int bit = len - 1; bit >= len - 128; bit--) {
        r <<= 1;
        if (bit >= 0)
            r |= (b->w[bit / 32] >> (bit % 32)) & 1;
    }
    return r;
}

static void pow10_set(int k, u128 sig, int e2)
{
    struct pow10 *p = &pow10_tab[k - POW10_MIN];
    p->hi = (uint64_t)(sig >> 64);
    p->lo = (uint64_t)sig;
    p->e2 = e2;
}

static void pow10_init(void)
{
    struct big b;
    memset(&b, 0, sizeof b);
    b.w[0] = 1;
    for (int k = 0; k <= POW10_MAX; k++) {
        if (k)
            big_mul5(&b);
        int len = big_bitlen(&b);
        /* 10^k = 5^k * 2^k */
        pow10_set(k, big_top128(&b, len), len - 128 + k);
    }
    memset(&b, 0, sizeof b);
    b.w[BIG_SHIFT / 32] = UINT32_C(1) << (BIG_SHIFT % 32);
    for (int i = 1; i <= -POW10_MIN; i++) {
        big_div5(&b);
        int len = big_bitlen(&b);
        /* 10^-i = 2^-i * 2^-BIG_SHIFT * (2^BIG_SHIFT / 5^i) */
        pow10_set(-i, big_top128(&b, len), len - 128 - BIG_SHIFT - i);
    }
}

void pow10_ready(void)
{
    pthread_once(&pow10_once, pow10_init);
}
