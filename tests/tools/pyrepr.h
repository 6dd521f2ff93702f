/* Python's repr() of a finite double, the text json.dump writes for a float.
 *
 * Header-only because every file in tests/tools/ is built as its own
 * program; only gen_dump includes it. snprintf("%.17g") plus round-trip
 * checks costs about a microsecond per number, which would dominate the
 * generation of a dump with millions of statistics, so the common range is
 * handled exactly with 128-bit integers: the shortest digit string inside
 * the interval of reals that round to the double, closest to the double
 * when several have that length (what Python's dtoa mode 0 returns).
 */
#ifndef GEN_PYREPR_H
#define GEN_PYREPR_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef unsigned __int128 pyrepr_u128;

static const uint64_t pyrepr_pow10[20] = {
    1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
    100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
    10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
    100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL,
};

/* Lay out digits c (no trailing zeros needed) times 10^e10 the way
 * float_repr_style 'short' does: exponent form when the decimal exponent is
 * below -4 or at least 16, otherwise positional with at least one digit
 * after the point. */
static int pyrepr_layout(char *out, int neg, uint64_t c, int e10)
{
    char d[24];
    int nd = 0, n = 0;
    while (c >= 10 && c % 10 == 0) {
        c /= 10;
        e10++;
    }
    do {
        d[nd++] = (char)('0' + c % 10);
        c /= 10;
    } while (c);
    for (int i = 0; i < nd / 2; i++) {
        char t = d[i];
        d[i] = d[nd - 1 - i];
        d[nd - 1 - i] = t;
    }
    int x = e10 + nd - 1;
    if (neg)
        out[n++] = '-';
    if (x < -4 || x >= 16) {
        out[n++] = d[0];
        if (nd > 1) {
            out[n++] = '.';
            memcpy(out + n, d + 1, (size_t)(nd - 1));
            n += nd - 1;
        }
        n += sprintf(out + n, "e%c%02d", x < 0 ? '-' : '+', x < 0 ? -x : x);
    } else if (x < 0) {
        out[n++] = '0';
        out[n++] = '.';
        for (int i = 0; i < -x - 1; i++)
            out[n++] = '0';
        memcpy(out + n, d, (size_t)nd);
        n += nd;
    } else if (nd <= x + 1) {
        memcpy(out + n, d, (size_t)nd);
        n += nd;
        for (int i = nd; i <= x; i++)
            out[n++] = '0';
        out[n++] = '.';
        out[n++] = '0';
    } else {
        memcpy(out + n, d, (size_t)(x + 1));
        n += x + 1;
        out[n++] = '.';
        memcpy(out + n, d + x + 1, (size_t)(nd - x - 1));
        n += nd - x - 1;
    }
    out[n] = '\0';
    return n;
}

/* Any finite double, by trial: for 1..17 digits (15..17 for normal
 * doubles, whose rounding interval is narrower than 10^-15 so %.15e already
 * finds every shorter form), the correctly rounded digits or, at a power of
 * two where the interval is lopsided, a neighbour, whichever reads back. */
static int pyrepr_slow(char *out, double v)
{
    char buf[48];
    int neg = v < 0, start = fabs(v) < 2.2250738585072014e-308 ? 1 : 15;
    for (int prec = start; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*e", prec - 1, fabs(v));
        uint64_t c = 0;
        const char *p = buf;
        for (; *p != 'e'; p++)
            if (*p != '.')
                c = c * 10 + (uint64_t)(*p - '0');
        int e10 = atoi(p + 1) - (prec - 1);
        static const int step[3] = {0, 1, -1};
        for (int i = 0; i < 3; i++) {
            uint64_t d = c + (uint64_t)(int64_t)step[i];
            snprintf(buf, sizeof buf, "%llue%d", (unsigned long long)d, e10);
            if (strtod(buf, NULL) == fabs(v) || prec == 17)
                return pyrepr_layout(out, neg, d, e10);
        }
    }
    return 0;
}

/* Exact fast path for normal doubles of magnitude about 1e-11 .. 4e15;
 * returns -1 outside it so the caller falls back to pyrepr_slow. */
static int pyrepr_fast(char *out, double v)
{
    static const uint64_t pow5[28] = {
        1ULL, 5ULL, 25ULL, 125ULL, 625ULL, 3125ULL, 15625ULL, 78125ULL, 390625ULL,
        1953125ULL, 9765625ULL, 48828125ULL, 244140625ULL, 1220703125ULL, 6103515625ULL,
        30517578125ULL, 152587890625ULL, 762939453125ULL, 3814697265625ULL,
        19073486328125ULL, 95367431640625ULL, 476837158203125ULL, 2384185791015625ULL,
        11920928955078125ULL, 59604644775390625ULL, 298023223876953125ULL,
        1490116119384765625ULL, 7450580596923828125ULL,
    };
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int neg = (int)(bits >> 63), be = (int)((bits >> 52) & 0x7ff);
    uint64_t frac = bits & ((1ULL << 52) - 1);
    if (be == 0 || be == 0x7ff)
        return -1;
    uint64_t m = frac | (1ULL << 52);
    int e = be - 1075;
    /* The reals that round to v, in units of 2^(e-2): [lo, hi] around 4m;
     * the lower half is narrower at a power of two. Round-half-even makes
     * the bounds part of the interval when m is even. */
    uint64_t x4 = m << 2, h4 = x4 + 2, l4 = (frac == 0 && be > 1) ? x4 - 1 : x4 - 2;
    int incl = (m & 1) == 0;
    int k = (int)floor((double)(e + 52) * 0.30102999566398120);
    int t = 16 - k;        /* scale by 10^t: 17 or 18 digits */
    int s = 2 - e - t;     /* then divide by 2^s */
    if (t < 0 || t > 27 || s < 1 || s > 120)
        return -1;
    pyrepr_u128 p = pow5[t], one = 1, mask = (one << s) - 1;
    pyrepr_u128 X = (pyrepr_u128)x4 * p, H = (pyrepr_u128)h4 * p, L = (pyrepr_u128)l4 * p;
    uint64_t lo = (uint64_t)(L >> s), hi = (uint64_t)(H >> s);
    if ((L & mask) || !incl)
        lo++;
    if (!(H & mask) && !incl)
        hi--;
    if (lo > hi)
        return -1;
    int j = 0;
    while ((lo + 9) / 10 <= hi / 10) {
        lo = (lo + 9) / 10;
        hi /= 10;
        j++;
    }
    uint64_t xi = (uint64_t)(X >> s), c;
    pyrepr_u128 rs = X & mask, half = one << (s - 1);
    if (j == 0) {
        c = xi + (rs > half || (rs == half && (xi & 1)));
    } else {
        uint64_t pj = pyrepr_pow10[j], r = xi % pj, h = pj / 2;
        c = xi / pj;
        if (r > h || (r == h && (rs != 0 || (c & 1))))
            c++;
    }
    if (c < lo)
        c = lo;
    if (c > hi)
        c = hi;
    return pyrepr_layout(out, neg, c, j - t);
}

/* repr(v) for a finite v into out (at least 32 bytes); returns the length. */
static int pyrepr(char *out, double v)
{
    if (v == 0)
        return sprintf(out, signbit(v) ? "-0.0" : "0.0");
    int n = pyrepr_fast(out, v);
    return n >= 0 ? n : pyrepr_slow(out, v);
}

#endif
