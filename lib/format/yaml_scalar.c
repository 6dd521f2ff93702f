/* YAML 1.1 scalars the way PyYAML resolves and constructs them: the
 * implicit resolver's regular expressions written out by hand, Python's
 * int() of any size printed in decimal, float() and base-60 sums done in the
 * same order as PyYAML, dates checked like datetime does. */
#include "format/yaml_scalar.h"
#include "base/mem.h"
#include "py/numfmt.h"
#include "base/strbuf.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TAG_PREFIX YAML_TAG_PREFIX
/* Python 3.11 refuses to convert longer decimal integers (int_max_str_digits). */
#define MAX_INT_DIGITS 4300

static const char timestamp_mark[] = "timestamp";

int yaml_is_timestamp(const jval *v) { return v && v->type == J_STRING && v->text == timestamp_mark; }

/* ---- integers: Python int of any size, printed in decimal ------------------ */

typedef struct {
    uint32_t *limb;   /* base 1e9, least significant first */
    size_t n, cap;
} bigint;

static void big_muladd(bigint *b, uint32_t mul, uint32_t add)
{
    uint64_t carry = add;
    for (size_t i = 0; i < b->n; i++) {
        uint64_t v = (uint64_t)b->limb[i] * mul + carry;
        b->limb[i] = (uint32_t)(v % 1000000000u);
        carry = v / 1000000000u;
    }
    while (carry) {
        GROW(b->limb, b->cap, b->n + 1);
        b->limb[b->n++] = (uint32_t)(carry % 1000000000u);
        carry /= 1000000000u;
    }
}

static void big_decimal(const bigint *b, int negative, strbuf *out)
{
    if (b->n == 0) {
        sb_addc(out, '0');
        return;
    }
    if (negative)
        sb_addc(out, '-');
    sb_addf(out, "%u", b->limb[b->n - 1]);
    for (size_t i = b->n - 1; i-- > 0;)
        sb_addf(out, "%09u", b->limb[i]);
}

static int digit_value(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return 99;
}

/* Append digits of s[0..n) in `base` to b; 0, or -1 if a digit is invalid
 * or there is none. */
static int big_digits(bigint *b, const char *s, size_t n, unsigned base)
{
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int d = digit_value(s[i]);
        if (d >= (int)base)
            return -1;
        big_muladd(b, base, (uint32_t)d);
    }
    return 0;
}

/* PyYAML's construct_yaml_int on `s` (underscores already removed):
 * decimal text into `out`; -1 when Python would raise. */
static int int_text(const char *s, size_t n, strbuf *out)
{
    if (n == 0 || n > MAX_INT_DIGITS + 3)
        return -1;
    int negative = s[0] == '-';
    if (s[0] == '-' || s[0] == '+') {
        s++;
        n--;
    }
    if (n == 0)
        return -1;
    bigint b = {NULL, 0, 0};
    int rc = 0;
    if (n == 1 && s[0] == '0') {
        rc = 0;
    } else if (n >= 2 && s[0] == '0' && s[1] == 'b') {
        rc = big_digits(&b, s + 2, n - 2, 2);
    } else if (n >= 2 && s[0] == '0' && s[1] == 'x') {
        rc = big_digits(&b, s + 2, n - 2, 16);
    } else if (s[0] == '0') {
        /* int(value, 8) also takes Python's own 0o prefix */
        size_t skip = n >= 2 && (s[1] == 'o' || s[1] == 'O') ? 2 : 0;
        rc = big_digits(&b, s + skip, n - skip, 8);
    } else if (memchr(s, ':', n)) {
        const char *end = s + n, *part = s;
        while (rc == 0) {
            const char *colon = memchr(part, ':', (size_t)(end - part));
            size_t plen = (size_t)((colon ? colon : end) - part);
            if (part == s) {
                rc = big_digits(&b, part, plen, 10);
            } else {
                /* later parts are small in every valid spelling */
                uint32_t v = 0;
                rc = plen && plen <= 9 ? 0 : -1;
                for (size_t i = 0; i < plen && rc == 0; i++) {
                    if (part[i] < '0' || part[i] > '9')
                        rc = -1;
                    v = v * 10 + (uint32_t)(part[i] - '0');
                }
                if (rc == 0)
                    big_muladd(&b, 60, 0), big_muladd(&b, 1, v);
            }
            if (!colon)
                break;
            part = colon + 1;
        }
    } else {
        rc = big_digits(&b, s, n, 10);
    }
    if (rc == 0) {
        while (b.n && b.limb[b.n - 1] == 0)
            b.n--;
        big_decimal(&b, negative, out);
    }
    free(b.limb);
    return rc;
}

/* ---- floats ---------------------------------------------------------------- */

/* Python's float() on a plain decimal spelling (digits, optional dot,
 * optional exponent), or inf/infinity/nan; -1 otherwise. */
static int py_float(const char *s, double *out)
{
    const char *p = s;
    int neg = 0;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    if (!strcmp(p, "inf") || !strcmp(p, "infinity")) {
        *out = neg ? -INFINITY : INFINITY;
        return 0;
    }
    if (!strcmp(p, "nan")) {
        *out = NAN;
        return 0;
    }
    const char *q = p;
    size_t digits = 0;
    while (*q >= '0' && *q <= '9')
        q++, digits++;
    if (*q == '.')
        for (q++; *q >= '0' && *q <= '9'; q++)
            digits++;
    if (!digits)
        return -1;
    if (*q == 'e') {
        q++;
        if (*q == '+' || *q == '-')
            q++;
        if (!(*q >= '0' && *q <= '9'))
            return -1;
        while (*q >= '0' && *q <= '9')
            q++;
    }
    if (*q)
        return -1;
    *out = strtod(s, NULL);
    return 0;
}

/* PyYAML's construct_yaml_float (underscores removed, lower-cased). */
static int float_value(char *s, double *out)
{
    double sign = 1;
    if (s[0] == '-')
        sign = -1;
    if (s[0] == '-' || s[0] == '+')
        s++;
    if (!strcmp(s, ".inf")) {
        *out = sign * INFINITY;
        return 0;
    }
    if (!strcmp(s, ".nan")) {
        *out = NAN;
        return 0;
    }
    if (strchr(s, ':')) {
        /* base 60, summed from the last part up, in floating point */
        double value = 0, base = 1;
        char *end = s + strlen(s);
        for (char *part = end;;) {
            char *start = part;
            while (start > s && start[-1] != ':')
                start--;
            char save = *part;
            *part = 0;
            double d;
            int rc = py_float(start, &d);
            *part = save;
            if (rc)
                return -1;
            value += d * base;
            base *= 60;
            if (start == s)
                break;
            part = start - 1;
        }
        *out = sign * value;
        return 0;
    }
    double v;
    if (py_float(s, &v))
        return -1;
    *out = sign * v;
    return 0;
}

/* ---- implicit resolution (PyYAML's Resolver, YAML 1.1) --------------------- */

int yaml_unsupported_tag(const char *tag)
{
    static const char *const tags[] = {TAG_PREFIX "binary", TAG_PREFIX "set", TAG_PREFIX "omap", TAG_PREFIX "pairs",
                                       NULL};
    for (size_t i = 0; tags[i]; i++)
        if (!strcmp(tag, tags[i]))
            return 1;
    return 0;
}

static int is_digit(char ch) { return ch >= '0' && ch <= '9'; }

static int one_of(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(s, *list))
            return 1;
    return 0;
}

/* [0-9_]* from *p; returns the count of characters taken. */
static size_t span(const char **p, const char *set)
{
    size_t n = strspn(*p, set);
    *p += n;
    return n;
}

/* (?::[0-5]?[0-9])+ */
static int sexagesimal_tail(const char **pp)
{
    const char *p = *pp;
    int parts = 0;
    while (*p == ':') {
        const char *q = p + 1;
        if (q[0] >= '0' && q[0] <= '5' && is_digit(q[1]))
            q += 2;
        else if (is_digit(q[0]))
            q += 1;
        else
            break;
        p = q;
        parts++;
    }
    *pp = p;
    return parts > 0;
}

static int match_int(const char *s)
{
    const char *p = s;
    if (*p == '-' || *p == '+')
        p++;
    if (p[0] == '0' && p[1] == 'b')
        return (p += 2, span(&p, "01_") > 0 && !*p);
    if (p[0] == '0' && p[1] == 'x')
        return (p += 2, span(&p, "0123456789abcdefABCDEF_") > 0 && !*p);
    if (p[0] == '0')
        return (p += 1, span(&p, "01234567_"), !*p);
    if (p[0] < '1' || p[0] > '9')
        return 0;
    p++;
    span(&p, "0123456789_");
    if (!*p)
        return 1;
    return sexagesimal_tail(&p) && !*p;
}

static int match_float(const char *s)
{
    static const char *const special[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf",
                                          "-.INF", ".nan", ".NaN", ".NAN", NULL};
    if (one_of(s, special))
        return 1;
    const char *p = s;
    if (*p == '.') {
        p++;
        if (!is_digit(*p))
            return 0;
        span(&p, "0123456789_");
    } else {
        if (*p == '-' || *p == '+')
            p++;
        if (!is_digit(*p))
            return 0;
        span(&p, "0123456789_");
        if (*p == ':') {
            if (!sexagesimal_tail(&p) || *p != '.')
                return 0;
            p++;
            span(&p, "0123456789_");
            return !*p;
        }
        if (*p != '.')
            return 0;
        p++;
        span(&p, "0123456789_");
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p != '-' && *p != '+')
            return 0;
        p++;
        if (span(&p, "0123456789") == 0)
            return 0;
    }
    return !*p;
}

/* Fixed-width digit run: exactly n digits. */
static int digits_n(const char **pp, int n, int *value)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!is_digit((*pp)[i]))
            return 0;
        v = v * 10 + (*pp)[i] - '0';
    }
    *pp += n;
    *value = v;
    return 1;
}

/* One or two digits. */
static int digits_12(const char **pp, int *value)
{
    if (!is_digit(**pp))
        return 0;
    int v = *(*pp)++ - '0';
    if (is_digit(**pp))
        v = v * 10 + *(*pp)++ - '0';
    *value = v;
    return 1;
}

/* The timestamp regex; *valid tells whether Python's datetime accepts the
 * fields (a matching but impossible date is an error in PyYAML). */
static int match_timestamp(const char *s, int *valid)
{
    const char *p = s;
    int year, month, day, hour = 0, minute = 0, second = 0, tzh = 0, tzm = 0;
    if (!digits_n(&p, 4, &year) || *p++ != '-')
        return 0;
    const char *date_part = p;
    if (digits_n(&p, 2, &month) && *p == '-' && (p++, digits_n(&p, 2, &day)) && !*p)
        goto check;
    p = date_part;
    if (!digits_12(&p, &month) || *p++ != '-' || !digits_12(&p, &day))
        return 0;
    if (*p == 'T' || *p == 't')
        p++;
    else if (span(&p, " \t") == 0)
        return 0;
    if (!digits_12(&p, &hour) || *p++ != ':' || !digits_n(&p, 2, &minute) || *p++ != ':' ||
        !digits_n(&p, 2, &second))
        return 0;
    if (*p == '.') {
        p++;
        span(&p, "0123456789");
    }
    span(&p, " \t");
    if (*p == 'Z') {
        p++;
    } else if (*p == '-' || *p == '+') {
        p++;
        if (!digits_12(&p, &tzh))
            return 0;
        if (*p == ':' && !(p++, digits_n(&p, 2, &tzm)))
            return 0;
    } else if (p > s && (p[-1] == ' ' || p[-1] == '\t')) {
        return 0;   /* trailing blanks need a time zone after them */
    }
    if (*p)
        return 0;
check:;
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    *valid = year >= 1 && month >= 1 && month <= 12 && day >= 1 &&
             day <= mdays[month - 1] + (month == 2 && leap) && hour < 24 && minute < 60 && second < 60 &&
             tzh * 60 + tzm < 24 * 60;
    return 1;
}

int yaml_resolve_plain(const char *s)
{
    static const char *const bools[] = {"yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false",
                                        "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF", NULL};
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL", NULL};
    int valid;
    if (one_of(s, bools))
        return T_BOOL;
    if (match_float(s))
        return T_FLOAT;
    if (match_int(s))
        return T_INT;
    if (!strcmp(s, "<<"))
        return T_MERGE;
    if (one_of(s, nulls))
        return T_NULL;
    if (match_timestamp(s, &valid))
        return T_TIMESTAMP;
    if (!strcmp(s, "="))
        return T_VALUE;
    return T_STR;
}

int yaml_explicit_tag(const char *tag)
{
    static const struct {
        const char *name;
        int tag;
    } tags[] = {{"str", T_STR},   {"null", T_NULL},           {"bool", T_BOOL},   {"int", T_INT},
                {"float", T_FLOAT}, {"timestamp", T_TIMESTAMP}, {"merge", T_MERGE}, {"value", T_VALUE}};
    if (strncmp(tag, TAG_PREFIX, sizeof TAG_PREFIX - 1))
        return T_UNKNOWN;
    if (yaml_unsupported_tag(tag))
        return T_UNSUPPORTED;
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++)
        if (!strcmp(tag + sizeof TAG_PREFIX - 1, tags[i].name))
            return tags[i].tag;
    return T_UNKNOWN;
}

/* ---- scalars --------------------------------------------------------------- */

static void set_number(arena *a, jval *out, int is_int, double num, const char *text, size_t n)
{
    out->type = J_NUMBER;
    out->is_int = (uint8_t)is_int;
    out->u.num = num;
    out->text = arena_strndup(a, text, n);
    out->len = (uint32_t)n;
}

/* Underscores removed; lower-cased when `lower`. malloc'ed. */
static char *squeeze(const char *s, size_t n, int lower)
{
    char *o = xmalloc(n + 1), *q = o;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (ch == '_')
            continue;
        *q++ = lower && ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
    }
    *q = 0;
    return o;
}

int yaml_scalar_value(int tag, const char *s, size_t n, arena *a, jval *out, const char **why)
{
    memset(out, 0, sizeof *out);
    *why = NULL;
    switch (tag) {
    case T_NULL:
        out->type = J_NULL;
        return 0;
    case T_BOOL: {
        char *low = squeeze(s, n, 1);
        size_t m = strlen(low);
        int t = !strcmp(low, "yes") || !strcmp(low, "true") || !strcmp(low, "on");
        int f = !strcmp(low, "no") || !strcmp(low, "false") || !strcmp(low, "off");
        free(low);
        /* squeeze dropped underscores, which bool() does not */
        if ((!t && !f) || m != n) {
            *why = "is not a valid !!bool";
            return -1;
        }
        out->type = t ? J_TRUE : J_FALSE;
        return 0;
    }
    case T_INT: {
        char *clean = squeeze(s, n, 0);
        strbuf text = STRBUF_INIT;
        int rc = int_text(clean, strlen(clean), &text);
        free(clean);
        if (rc) {
            sb_free(&text);
            *why = "is not a valid !!int";
            return -1;
        }
        set_number(a, out, 1, parse_double(text.buf, text.len), text.buf, text.len);
        sb_free(&text);
        return 0;
    }
    case T_FLOAT: {
        char *clean = squeeze(s, n, 1);
        double v;
        int rc = clean[0] ? float_value(clean, &v) : -1;
        free(clean);
        if (rc) {
            *why = "is not a valid !!float";
            return -1;
        }
        char buf[NUMFMT_BUFSZ];
        size_t len = fmt_pyrepr(v, buf);
        set_number(a, out, 0, v, buf, len);
        return 0;
    }
    case T_TIMESTAMP: {
        int valid = 0;
        if (memchr(s, 0, n) || !match_timestamp(s, &valid) || !valid) {
            *why = "is not a valid date or time";
            return -1;
        }
        out->type = J_STRING;
        out->u.str = arena_strndup(a, s, n);
        out->len = (uint32_t)n;
        out->text = timestamp_mark;
        return 0;
    }
    case T_STR:
        out->type = J_STRING;
        out->u.str = arena_strndup(a, s, n);
        out->len = (uint32_t)n;
        return 0;
    default:
        return -1;
    }
}

