#include "py/pdnum.h"
#include "base/memo.h"
#include "py/numfmt.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static double pow10_table[309];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

/* The table holds the correctly rounded doubles of 1e0..1e308, as the
 * compiler turns pandas' literals into. */
static void init_table(void)
{
    char buf[16];
    for (int i = 0; i <= 308; i++) {
        snprintf(buf, sizeof buf, "1e%d", i);
        pow10_table[i] = strtod(buf, NULL);
    }
}

/* The int that two's complement wrap-around gives for u. */
static int wrap_int32(unsigned u)
{
    return u <= (unsigned)INT_MAX ? (int)u : (int)(u - (unsigned)INT_MAX - 1u) + INT_MIN;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* pandas' precise_xstrtod(): at most 17 significant digits are
 * accumulated, the rest only shift the exponent. */
static int precise_xstrtod(const char *s, size_t n, double *out)
{
    pthread_once(&table_once, init_table);
    size_t p = 0;
    while (p < n && is_space(s[p]))
        p++;
    int negative = 0;
    if (p < n && (s[p] == '-' || s[p] == '+'))
        negative = s[p++] == '-';
    double number = 0;
    int exponent = 0, digits = 0, decimals = 0;
    const int max_digits = 17;
    while (p < n && is_digit(s[p])) {
        if (digits < max_digits) {
            number = number * 10. + (s[p] - '0');
            digits++;
        } else {
            exponent++;
        }
        p++;
    }
    if (p < n && s[p] == '.') {
        p++;
        while (digits < max_digits && p < n && is_digit(s[p])) {
            number = number * 10. + (s[p] - '0');
            p++;
            digits++;
            decimals++;
        }
        if (digits >= max_digits)
            while (p < n && is_digit(s[p]))
                p++;
        exponent -= decimals;
    }
    if (digits == 0)
        return 0;
    if (negative)
        number = -number;
    if (p < n && (s[p] == 'e' || s[p] == 'E')) {
        p++;
        int eneg = 0;
        if (p < n && (s[p] == '-' || s[p] == '+'))
            eneg = s[p++] == '-';
        /* pandas accumulates up to 17 exponent digits in a C int, which
         * wraps in its build: "1e4294967297" is 10.0 and "1e2147483648"
         * is 0.0 there. Same results here without signed overflow. */
        int k = 0;
        unsigned e = 0;
        while (k < max_digits && p < n && is_digit(s[p])) {
            e = e * 10u + (unsigned)(s[p] - '0');
            k++;
            p++;
        }
        exponent = wrap_int32(eneg ? (unsigned)exponent - e : (unsigned)exponent + e);
        if (k == 0)
            p--;
    }
    if (exponent > 308)
        return 0;
    if (exponent > 0) {
        number *= pow10_table[exponent];
    } else if (exponent < -308) {
        if (exponent < -616) {
            number = 0.;
        } else {
            number /= pow10_table[-308 - exponent];
            number /= pow10_table[308];
        }
    } else {
        number /= pow10_table[-exponent];
    }
    if (isinf(number))
        return 0;
    while (p < n && is_space(s[p]))
        p++;
    if (p != n)
        return 0;
    *out = number;
    return 1;
}

int pd_to_numeric(const char *s, size_t n, double *out)
{
    static const char *const infs[] = {"inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"};
    for (int i = 0; i < 6; i++)
        if (strlen(infs[i]) == n && strncasecmp(s, infs[i], n) == 0) {
            *out = infs[i][0] == '-' ? -INFINITY : INFINITY;
            return 1;
        }
    return precise_xstrtod(s, n, out);
}

/* pd_float_roundtrip() by the value's bits. */
static _Thread_local memo roundtrip_memo;

static double roundtrip(double x);

double pd_float_roundtrip(double x)
{
    if (isnan(x) || isinf(x))
        return x;
    double v;
    const memo_slot *hit = memo_get(&roundtrip_memo, &x, sizeof x);
    if (hit) {
        memcpy(&v, hit->value, sizeof v);
        return v;
    }
    v = roundtrip(x);
    memo_put(&roundtrip_memo, &x, sizeof x, &v, sizeof v);
    return v;
}

static double roundtrip(double x)
{
    char buf[NUMFMT_BUFSZ];
    size_t n = fmt_pyrepr(x, buf);
    double v;
    return precise_xstrtod(buf, n, &v) ? v : NAN;
}
