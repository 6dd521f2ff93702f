/* parse_double() of lib/numfmt.h: JSON number text to the double strtod()
 * gives, scaled by the table of lib/pow10.h, with glibc answering the rare
 * cases the 128-bit arithmetic cannot decide (see lib/numfmt.c). */
#include "py/numfmt.h"
#include "py/pow10.h"

#include "base/mem.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- parsing -------------------------------------------------------------- */

/* A decimal w * 10^exp10 read from the text; nd: digits in w; sticky:
 * nonzero digits beyond the 19 kept in w were dropped. */
struct decimal {
    uint64_t w;
    int nd;
    long exp10;
    int sticky;
};

static int is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

/* The token is read 8 bytes at a time (byte i of a word in bits 8i) so
 * that digit runs of any length cost no data-dependent branches. */
static inline uint64_t load_le64(const char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* The (up to) 8 bytes at p, zero past the token's end; never reads
 * outside [tok, end). */
static inline uint64_t peek8(const char *p, const char *tok, const char *end)
{
    size_t left = (size_t)(end - p);
    if (left >= 8)
        return load_le64(p);
    if (left == 0)
        return 0;
    if (end - tok >= 8)
        return load_le64(end - 8) >> (8 * (8 - left));
    uint64_t v = 0;
    for (size_t i = 0; i < left; i++)
        v |= (uint64_t)(unsigned char)p[i] << (8 * i);
    return v;
}

/* How many bytes of v, from the first, are digits.  A byte is a digit iff
 * its high nibble is 3 and stays 3 after adding 6; a carry out of a byte
 * >= 0xFA only disturbs bytes after that non-digit. */
static inline int digit_prefix(uint64_t v)
{
    const uint64_t hi = UINT64_C(0xF0F0F0F0F0F0F0F0), three = UINT64_C(0x3030303030303030);
    uint64_t bad = ((v & hi) ^ three) | (((v + UINT64_C(0x0606060606060606)) & hi) ^ three);
    return bad ? __builtin_ctzll(bad) >> 3 : 8;
}

/* How many bytes of v, from the first, are '0'. */
static inline int zero_prefix(uint64_t v)
{
    uint64_t x = v ^ UINT64_C(0x3030303030303030);
    return x ? __builtin_ctzll(x) >> 3 : 8;
}

/* The number written by the first k (0..8) bytes of v, all digits.  They
 * are moved to the end of the word behind '0' padding and combined
 * pairwise: bytes into 2-digit lanes, those into 4-digit lanes, then one
 * 8-digit value; no lane ever carries into the next. */
static inline uint64_t prefix_value(uint64_t v, int k)
{
    int sh = (64 - 8 * k) & 63;
    v = (v << sh) | (UINT64_C(0x3030303030303030) & ((UINT64_C(1) << sh) - 1));
    v -= UINT64_C(0x3030303030303030);
    v = (v * 10 + (v >> 8)) & UINT64_C(0x00FF00FF00FF00FF);
    v = (v * 100 + (v >> 16)) & UINT64_C(0x0000FFFF0000FFFF);
    v = (v * 10000 + (v >> 32)) & 0xFFFFFFFF;
    return v & -(uint64_t)(k != 0);
}

/* Appends the digit run at p to d: up to 19 digits in all go into w, the
 * rest only set sticky.  Returns the end of the run, in *kept how many of
 * its digits went into w. */
static const char *take_run(const char *p, const char *tok, const char *end, struct decimal *d,
                            long *kept)
{
    const char *start = p;
    int k;
    do {
        uint64_t v = peek8(p, tok, end);
        k = digit_prefix(v);
        int room = 19 - d->nd;
        if (k > room) {
            d->w = d->w * POW10_U64[room] + prefix_value(v, room);
            d->nd = 19;
            p += room;
            *kept = p - start;
            for (; p < end && is_digit(*p); p++)
                d->sticky |= *p != '0';
            return p;
        }
        d->w = d->w * POW10_U64[k] + prefix_value(v, k);
        d->nd += k;
        p += k;
    } while (k == 8 && p < end);
    *kept = p - start;
    return p;
}

/* Skips the zeros at p (those before a fraction's first nonzero digit). */
static const char *skip_zeros(const char *p, const char *tok, const char *end)
{
    int z;
    do {
        z = zero_prefix(peek8(p, tok, end));
        p += z;
    } while (z == 8);
    return p;
}

/* The exponent's digits at p into *ev, saturating; NULL when there are none. */
static const char *take_exponent(const char *p, const char *tok, const char *end, long *ev)
{
    uint64_t v = peek8(p, tok, end);
    int k = digit_prefix(v);
    *ev = (long)prefix_value(v, k);
    p += k;
    if (k == 8)
        for (; p < end && is_digit(*p); p++)
            if (*ev < 100000000)
                *ev = *ev * 10 + (*p - '0');
    return k ? p : NULL;
}

/* 0 when the text is not a JSON number. */
static int scan_decimal(const char *s, size_t n, int *neg, struct decimal *d)
{
    const char *p = s, *end = s + n, *q;
    long kept;
    memset(d, 0, sizeof *d);
    *neg = p < end && *p == '-';
    p += *neg;
    if (p < end && *p == '0') {
        p++;
    } else {
        q = take_run(p, s, end, d, &kept);
        if (q == p)
            return 0;
        d->exp10 = (q - p) - kept;
        p = q;
    }
    if (p < end && *p == '.') {
        p++;
        q = d->w ? p : skip_zeros(p, s, end);
        const char *r = take_run(q, s, end, d, &kept);
        if (r == p)
            return 0;
        d->exp10 -= (q - p) + kept;
        p = r;
    }
    if (p < end && (*p | 0x20) == 'e') {
        p++;
        int eneg = p < end && *p == '-';
        p += p < end && (*p == '-' || *p == '+');
        long ev;
        if (!(p = take_exponent(p, s, end, &ev)))
            return 0;
        d->exp10 += eneg ? -ev : ev;
    }
    return p == end;
}

/* w * 10^q for w >= 2^53 or |q| > 22 and 10^q in the table: the 192-bit
 * product holds the value to within w units of its lowest word, so only a
 * remainder that close to half an ulp is undecidable.  0: undecidable. */
static int scaled_to_double(uint64_t w, int q, double *out)
{
    const struct pow10 *p = pow10_at(q);
    int lz = __builtin_clzll(w);
    uint64_t n[3];
    mul192(w << lz, p, n);
    int drop = 10 + (int)(n[2] >> 63);
    uint64_t mant = n[2] >> drop;
    int biased = p->e2 - lz + 128 + drop + 1075;
    if (biased < 1 || biased > 2046)
        return 0;
    uint64_t rb = n[2] & ((UINT64_C(1) << drop) - 1), half = UINT64_C(1) << (drop - 1);
    int exact = pow10_exact(q);
    /* branch-free, as in round_dir(); at exactly half an ulp the truth is
     * above (lower words nonzero), a tie (exact power) or unknown */
    int at_half = (rb == half) & ((n[1] | n[0]) == 0);
    int up = (rb > half) | ((rb == half) & !at_half) | (at_half & exact & (int)(mant & 1));
    int unsure = (exact == 0) & (at_half | ((rb == half - 1) & (n[1] == UINT64_MAX)));
    if (unsure)
        return 0;
    mant += (uint64_t)up;
    if (mant >> 53) {
        mant >>= 1;
        if (++biased > 2046)
            return 0;
    }
    *out = bits_dbl(((uint64_t)biased << 52) | (mant & MANT_MASK));
    return 1;
}

static const double EXACT_POW10[] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

int decimal_exact(uint64_t w, long q, double *out)
{
#if FLT_EVAL_METHOD == 0
    /* both factors exact, so one IEEE operation rounds correctly */
    if (w <= (UINT64_C(1) << 53) && q >= -22 && q <= 22) {
        double v = (double)w;
        *out = q < 0 ? v / EXACT_POW10[-q] : v * EXACT_POW10[q];
        return 1;
    }
#else
    (void)w, (void)q, (void)out;
#endif
    return 0;
}

/* w * 10^q correctly rounded (w > 0); 0 when undecidable here. */
static int decimal_to_double(uint64_t w, long q, double *out)
{
    if (decimal_exact(w, q, out))
        return 1;
    /* w < 2^64 < 10^20: below 10^-324, far under half the least denormal */
    if (q < -343) {
        *out = 0.0;
        return 1;
    }
    if (q > 308) {
        *out = HUGE_VAL;
        return 1;
    }
    return scaled_to_double(w, (int)q, out);
}

static double parse_slow(const char *s, size_t n)
{
    char small[64];
    char *tmp = n < sizeof small ? small : xmalloc(n + 1);
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    double v = strtod(tmp, NULL);
    if (tmp != small)
        free(tmp);
    return v;
}

double parse_double(const char *s, size_t n)
{
    struct decimal d;
    int neg;
    if (!scan_decimal(s, n, &neg, &d))
        return parse_slow(s, n);
    if (d.w == 0)
        return neg ? -0.0 : 0.0;

    pow10_ready();
    double v, v2;
    if (!decimal_to_double(d.w, d.exp10, &v))
        return parse_slow(s, n);
    /* dropped digits: the value is strictly between w and w + 1 units, and
     * rounding is monotonic, so agreeing ends settle it */
    if (d.sticky && (!decimal_to_double(d.w + 1, d.exp10, &v2) || v2 != v))
        return parse_slow(s, n);
    return neg ? -v : v;
}
