/* Exact double <-> decimal conversions, fast in the common case.
 *
 * Every conversion scales by a power of ten from a table of 128-bit
 * truncated significands, so each intermediate value is known to within a
 * few units of 2^-64 of the last decimal (or binary) digit kept.  When the
 * true value could still lie on either side of a rounding decision, the fast
 * path gives up and glibc answers instead.  That happens for exact ties met
 * through an inexact power of ten (a repr rounding bound that is an exact
 * integer above 2^56; a decimal exactly halfway between two doubles), for
 * parse results that are subnormal or overflow, for tokens of more than 19
 * significant digits close to a tie, and for values within ~2^-60 of a
 * decision point: rarely on random bit patterns, practically never on real
 * data.  Powers 10^0..10^55 are exact in 128 bits, which keeps the frequent
 * exact ties (short binary fractions such as float32 values) on the fast
 * path.  The table and its helpers are in lib/pow10.h, parsing in
 * lib/numparse.c.
 */
#include "py/numfmt.h"
#include "py/pow10.h"


#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- digits and layout ------------------------------------------------ */

/* Digits are assembled in registers, character i of a string in bits
 * 8i..8i+7 of an integer, and only ever stored: reading freshly stored
 * bytes back in wider words stalls store forwarding, which used to cost
 * more than the arithmetic. */

/* The 8 digits of v < 10^8, split lane-wise: two 4-digit lanes, then four
 * 2-digit lanes, then eight 1-digit lanes.  Each lane's multiply by the
 * reciprocal (10486 / 2^20 ~ 1/100 for < 10^4, 103 / 2^10 ~ 1/10 for
 * < 100, both exact there) stays inside its lane. */
static inline uint64_t digits8(uint32_t v)
{
    uint64_t y = (v / 10000) | ((uint64_t)(v % 10000) << 32);
    uint64_t q = ((y * 10486) >> 20) & UINT64_C(0x0000007F0000007F);
    uint64_t z = q | ((y - q * 100) << 16);
    uint64_t t = ((z * 103) >> 10) & UINT64_C(0x000F000F000F000F);
    return t | ((z - t * 10) << 8) | UINT64_C(0x3030303030303030);
}

/* The 16 digits of v < 10^16, zero-padded. */
static inline u128 digits16(uint64_t v)
{
    return (u128)digits8((uint32_t)(v / 100000000)) |
           (u128)digits8((uint32_t)(v % 100000000)) << 64;
}

/* Number of '0' characters ending the 16 in s. */
static inline int zeros_at_end16(u128 s)
{
    uint64_t hi = (uint64_t)(s >> 64) ^ UINT64_C(0x3030303030303030);
    uint64_t lo = (uint64_t)s ^ UINT64_C(0x3030303030303030);
    /* leading zero bits of hi:lo without branches; x | 1 keeps clz defined */
    int zhi = __builtin_clzll(hi | 1) + (hi == 0);
    int zlo = __builtin_clzll(lo | 1) + (lo == 0);
    return (zhi + (zlo & -(hi == 0))) >> 3;
}

static inline void store16(char *p, u128 s)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &s, 16);
#else
    for (int i = 0; i < 16; i++)
        p[i] = (char)(s >> (8 * i));
#endif
}

/* Number of decimal digits of v > 0. */
static inline int decimal_len(uint64_t v)
{
    int t = ((64 - __builtin_clzll(v)) * 1233) >> 12;
    return t + (v >= POW10_U64[t]);
}

/* A decimal d0.d1...d16 * 10^x10 with nd significant digits: d0 and the
 * 16 characters that follow it ('0'-padded). */
struct digits {
    char first;
    u128 rest;
    int nd, x10;
};

/* v in [10^16, 10^17) as digits. */
static inline void split17(uint64_t v, int x10, struct digits *d)
{
    d->first = (char)('0' + v / POW10_U64[16]);
    d->rest = digits16(v % POW10_U64[16]);
    d->nd = 17 - zeros_at_end16(d->rest);
    d->x10 = x10;
}

/* The layout both %g (precision 16) and repr use: fixed notation for
 * -4 <= x10 <= 15, otherwise d.ddde+XX with at least two exponent digits;
 * dot0 appends ".0" to whole numbers (repr).  Writes at most 24 bytes. */
static size_t layout(char *out, const struct digits *d, int dot0)
{
    char *p = out;
    int x10 = d->x10, nd = d->nd;
    if (x10 < -4 || x10 > 15) {
        p[0] = d->first;
        p[1] = '.';
        store16(p + 2, d->rest);
        p += nd > 1 ? nd + 1 : 1;
        unsigned a = (unsigned)(x10 < 0 ? -x10 : x10);
        *p++ = 'e';
        *p++ = x10 < 0 ? '-' : '+';
        if (a >= 100)
            *p++ = (char)('0' + a / 100);
        p[0] = (char)('0' + a / 10 % 10);
        p[1] = (char)('0' + a % 10);
        p += 2;
    } else if (x10 < 0) {
        memcpy(p, "0.000000", 8);
        p += 1 - x10;
        p[0] = d->first;
        store16(p + 1, d->rest);
        p += nd;
    } else if (nd <= x10 + 1) {
        p[0] = d->first;
        store16(p + 1, d->rest);
        p += x10 + 1;
        if (dot0) {
            memcpy(p, ".0", 2);
            p += 2;
        }
    } else {
        /* the point goes after rest[x10 - 1]; rest[15] is pushed out of
         * the 16-byte word and stored on its own */
        int sh = 8 * x10;
        u128 low = d->rest & (((u128)1 << sh) - 1);
        u128 high = ((d->rest >> sh) << 8) << sh;
        p[0] = d->first;
        store16(p + 1, low | (u128)'.' << sh | high);
        p[17] = (char)(d->rest >> 120);
        p += nd + 1;
    }
    *p = '\0';
    return (size_t)(p - out);
}

static size_t put_word(char *out, const char *w)
{
    size_t n = strlen(w);
    memcpy(out, w, n + 1);
    return n;
}

/* ---- %.16g -------------------------------------------------------------- */

/* Whether m * 2^(b-63) (m normalized to 64 bits, value in [2^b, 2^(b+1)))
 * is >= 10^k, given that 10^k > 2^b. */
static inline int at_least_pow10(uint64_t m, int b, int k)
{
    const struct pow10 *p = pow10_at(k);
    int pb = p->e2 + 127;
    int ge = (m > p->hi) | ((m == p->hi) & (p->lo == 0) & pow10_exact(k));
    return (pb < b) | ((pb == b) & ge);
}

/* m * 2^e rounded to 16 significant digits: *digits in [10^15, 10^16) and
 * the decimal exponent of its first digit.  Returns 0 when undecidable. */
static int round16(uint64_t m, int e, uint64_t *digits, int *exp10)
{
    int lz = __builtin_clzll(m);
    m <<= lz;
    e -= lz;
    int b = e + 63;
    int x10 = floor_log10_pow2(b);
    if (at_least_pow10(m, b, x10 + 1))
        x10++;

    /* T = m * 2^e * 10^(15 - x10) lies in [10^15, 10^16); keep it as a
     * 64.64 fixed-point number r, at most 2 units below the truth. */
    int k = 15 - x10;
    const struct pow10 *p = pow10_at(k);
    uint64_t w[3];
    mul192(m, p, w);
    int t = -(e + p->e2) - 128;
    if (t < 1 || t > 63)
        return 0;
    u128 r = ((u128)w[2] << (64 - t)) | (w[1] >> t);
    uint64_t ip = (uint64_t)(r >> 64);
    int exact = pow10_exact(k) & (w[0] == 0) & ((w[1] & ((UINT64_C(1) << t) - 1)) == 0);
    int up = round_dir((uint64_t)r, exact, (int)(ip & 1));
    if (up < 0)
        return 0;
    ip += (uint64_t)up;
    if (ip == UINT64_C(10000000000000000)) {
        ip = UINT64_C(1000000000000000);
        x10++;
    }
    if (ip < UINT64_C(1000000000000000) || ip >= UINT64_C(10000000000000000))
        return 0;
    *digits = ip;
    *exp10 = x10;
    return 1;
}

size_t fmt_g16(double x, char *buf)
{
    uint64_t bits = dbl_bits(x);
    char *p = buf + (bits >> 63);
    buf[0] = '-';
    int bexp = (int)(bits >> 52) & 0x7FF;
    uint64_t frac = bits & MANT_MASK;
    if (bexp == 0x7FF)
        return (size_t)(p - buf) + put_word(p, frac ? "nan" : "inf");
    if (bexp == 0 && frac == 0)
        return (size_t)(p - buf) + put_word(p, "0");

    pow10_ready();
    uint64_t d;
    int x10;
    if (!round16(bexp ? frac | HIDDEN_BIT : frac, bexp ? bexp - 1075 : -1074, &d, &x10))
        return (size_t)snprintf(buf, NUMFMT_BUFSZ, "%.16g", x);
    struct digits dg;
    split17(d * 10, x10, &dg);
    return (size_t)(p - buf) + layout(p, &dg, 0);
}

/* ---- shortest round-trip digits (repr) --------------------------------- */

enum { UNDECIDED = 2 };

/* Orders y against z when the true y is within err of the computed one:
 * -1, 1, 0 (equal, only when err == 0) or UNDECIDED. */
static inline int cmp_approx(u128 y, u128 z, unsigned err)
{
    if (y > z + err)
        return 1;
    if (y + err < z)
        return -1;
    return err ? UNDECIDED : 0;
}

/* The decimals that read back as the double, in units of 10^j, 64.64 fixed
 * point; the bounds belong to the interval when the significand is even
 * (strtod rounds a tie to even). */
struct interval {
    u128 lo, hi;
    unsigned err;
    int incl;
};

/* 1 if the integer c is inside, 0 if not, -1 if undecidable. */
static inline int contains(const struct interval *iv, uint64_t c)
{
    u128 z = (u128)c << 64;
    int a = cmp_approx(iv->lo, z, iv->err);
    int b = cmp_approx(iv->hi, z, iv->err);
    if (a == 1 || b == -1)
        return 0;
    if (a == UNDECIDED || b == UNDECIDED)
        return -1;
    if (a == 0 || b == 0)
        return iv->incl;
    return 1;
}

static int sig_len(uint64_t c)
{
    int n = decimal_len(c);
    while (c % 10 == 0) {
        c /= 10;
        n--;
    }
    return n;
}

/* Of two neighbouring multiples of 10 both inside the interval, the one
 * with fewer significant digits, else the closer one to v.  0: undecidable. */
static uint64_t pick_coarse(uint64_t cd, uint64_t cu, u128 v, unsigned err)
{
    int ld = sig_len(cd), lu = sig_len(cu);
    if (ld != lu)
        return ld < lu ? cd : cu;
    int r = cmp_approx(v, (u128)(cd + 5) << 64, err);
    if (r == 1)
        return cu;
    return r == -1 ? cd : 0;
}

/* Shortest digits of m * 2^e (the closest if several): *c * 10^*exp10, or 0
 * when undecidable.  asym: m is a power of two whose lower neighbour is
 * only half as far as the upper one.
 *
 * The unit 10^j is the largest power of ten not above twice the smaller
 * half-gap, so the integer nearest to v/10^j is inside the interval, and the
 * interval (narrower than 15 units) holds at most the two multiples of 10
 * around v; any shorter decimal is one of those. */
static int shortest(uint64_t m, int e, int asym, uint64_t *c, int *exp10)
{
    int j = floor_log10_pow2(asym ? e - 1 : e);
    const struct pow10 *p = pow10_at(-j);
    int sh = -(e + p->e2 + 64);
    if (sh < 58 || sh > 63)
        return 0;
    u128 sig = ((u128)p->hi << 64) | p->lo;
    u128 h = (u128)m * p->hi, l = (u128)m * p->lo;
    /* v: at most 2 units low; q (a quarter gap): at most 1 unit low */
    u128 v = (h << (64 - sh)) + (l >> sh);
    u128 q = sig >> (sh + 2);
    int vexact = pow10_exact(-j) & ((l & (((u128)1 << sh) - 1)) == 0);
    int qexact = pow10_exact(-j) & ((sig & (((u128)1 << (sh + 2)) - 1)) == 0);
    unsigned verr = vexact ? 0 : 8;
    struct interval iv = {
        .lo = v - (asym ? q : 2 * q),
        .hi = v + 2 * q,
        .err = vexact && qexact ? 0 : 8,
        .incl = !(m & 1),
    };

    uint64_t vi = (uint64_t)(v >> 64);
    uint64_t cd = vi - vi % 10, cu = cd + 10;
    int ind = contains(&iv, cd), inu = contains(&iv, cu);
    if (ind < 0 || inu < 0)
        return 0;
    uint64_t best;
    if (ind && inu) {
        best = pick_coarse(cd, cu, v, verr);
    } else if (ind || inu) {
        best = ind ? cd : cu;
    } else {
        int r = cmp_approx(v, ((u128)vi << 64) | HALF64, verr);
        if (r == UNDECIDED)
            return 0;
        best = vi + (r == 1 || (r == 0 && (vi & 1)));
        if (contains(&iv, best) != 1)
            return 0;
    }
    if (best == 0)
        return 0;
    *c = best;
    *exp10 = j;
    return 1;
}

/* Same answer by trial with glibc: for each length, the nearest decimal of
 * that length, or the next one up (a power of two has a wider interval
 * above than below, so that one can read back when the nearest does not). */
static void shortest_slow(double ax, uint64_t *c, int *exp10)
{
    char tmp[40];
    for (int n = 1; n <= 17; n++) {
        snprintf(tmp, sizeof tmp, "%.*e", n - 1, ax);
        uint64_t d = 0;
        const char *s = tmp;
        for (; *s != 'e'; s++)
            if (*s != '.')
                d = d * 10 + (uint64_t)(*s - '0');
        int j = atoi(s + 1) - (n - 1);
        double y = strtod(tmp, NULL);
        if (y < ax) {
            snprintf(tmp, sizeof tmp, "%" PRIu64 "e%d", d + 1, j);
            if (strtod(tmp, NULL) == ax) {
                d++;
                y = ax;
            }
        }
        if (y == ax || n == 17) {
            *c = d;
            *exp10 = j;
            return;
        }
    }
}

int fmt_shortest(double x, uint64_t *digits, int *exp10)
{
    uint64_t bits = dbl_bits(x);
    int bexp = (int)(bits >> 52) & 0x7FF;
    uint64_t frac = bits & MANT_MASK;
    pow10_ready();
    uint64_t c;
    int j;
    if (!shortest(bexp ? frac | HIDDEN_BIT : frac, bexp ? bexp - 1075 : -1074, frac == 0 && bexp > 1, &c, &j))
        shortest_slow(fabs(x), &c, &j);
    while (c % 10 == 0) {
        c /= 10;
        j++;
    }
    *digits = c;
    *exp10 = j;
    return decimal_len(c);
}

size_t fmt_pyrepr(double x, char *buf)
{
    uint64_t bits = dbl_bits(x);
    int bexp = (int)(bits >> 52) & 0x7FF;
    uint64_t frac = bits & MANT_MASK;
    if (bexp == 0x7FF && frac)
        return put_word(buf, "nan");
    char *p = buf + (bits >> 63);
    buf[0] = '-';
    if (bexp == 0x7FF)
        return (size_t)(p - buf) + put_word(p, "inf");
    if (bexp == 0 && frac == 0)
        return (size_t)(p - buf) + put_word(p, "0.0");

    pow10_ready();
    uint64_t c;
    int j;
    if (!shortest(bexp ? frac | HIDDEN_BIT : frac, bexp ? bexp - 1075 : -1074,
                  frac == 0 && bexp > 1, &c, &j))
        shortest_slow(fabs(x), &c, &j);
    int n = decimal_len(c);
    struct digits dg;
    split17(n <= 17 ? c * POW10_U64[17 - n] : c / 10, j + n - 1, &dg);
    return (size_t)(p - buf) + layout(p, &dg, 1);
}

/* x * 10^n exactly is y + e (y the rounded product, e its error, found by
 * fma); its nearest integer is y's unless y lies exactly half way between
 * two integers, where the sign of e decides, and a tie (e == 0) goes to
 * the even one, as nearbyint() already chose. Dividing that integer by
 * 10^n (both exact) is one correctly rounded operation: the double nearest
 * to the decimal, as Python's strtod of dtoa's digits gives. Beyond 2^52
 * the integer is not exact: there glibc's exact %.*f does it. */
double py_round(double x, int ndigits)
{
    static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
                                 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17};
    if (!isfinite(x) || ndigits < 0 || ndigits > 17)
        return x;
    double p = p10[ndigits], y = x * p;
    if (fabs(y) < 4503599627370496.0) {   /* 2^52 */
        double e = fma(x, p, -y), r = nearbyint(y), a = y - r;
        /* a == +-0.5 with e of the other sign: the exact value is nearer
         * to r, which nearbyint() chose */
        if (a == 0.5 && e > 0)
            r += 1;
        else if (a == -0.5 && e < 0)
            r -= 1;
        double q = r / p;
        return q == 0 ? copysign(0.0, x) : q;
    }
    char buf[400];
    snprintf(buf, sizeof buf, "%.*f", ndigits, x);
    return strtod(buf, NULL);
}
