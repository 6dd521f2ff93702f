/* The text msprobe's export makes of every value of an item (spec §8.3,
 * msprobe's _format_data): strings lose their quotes, "None" becomes "null"
 * and a long decimal is cut to six places; null is "null"; a float is
 * "%.6e" when its repr has an exponent, else repr(round(x, 6)); anything
 * else is Python's str().
 *
 * These run for every statistic of every item of a dump, so the roundings
 * start from the shortest digits of the double (repr's) instead of
 * snprintf: rounding the shortest digits at a place gives the same result
 * as rounding the exact binary value -- a decimal between the two would be
 * a shorter or closer repr -- except when the dropped digits are exactly a
 * lone 5 (the exact value may lie on either side of that tie); then
 * snprintf, which rounds the exact value, decides. Padding the shortest
 * digits with zeros is right while half an ulp stays below half a unit of
 * the last place kept. tests/unit/test_graph_format.c checks both against
 * snprintf on a million doubles. */
#include "graph/model/values.h"
#include "base/memo.h"
#include "format/jsonw.h"
#include "py/numfmt.h"
#include "py/pystr.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The shortest digits of x rounded at `keep` significant digits (keep may
 * be <= 0: nothing kept). Digits go to out[]; returns their count (keep,
 * or keep + 1 after a carry into a new leading digit, or 0 when everything
 * rounds away), -1 on a tie that needs the exact value. *top is the
 * decimal place (power of ten) of out[0]. */
static int round_digits(uint64_t c, int e, int n, int keep_from_place, char *out, int *top)
{
    char d[24];
    for (int i = n - 1; i >= 0; i--, c /= 10)
        d[i] = (char)('0' + c % 10);
    int place0 = e + n - 1;                       /* place of d[0] */
    int keep = place0 - keep_from_place + 1;      /* digits at places >= keep_from_place */
    *top = place0;
    if (keep >= n) {
        memcpy(out, d, (size_t)n);
        for (int i = n; i < keep; i++)
            out[i] = '0';
        return keep;
    }
    if (keep < 0)
        return 0;
    int dropped = d[keep] - '0', rest = keep + 1 < n;
    if (dropped == 5 && !rest)
        return -1;
    memcpy(out, d, (size_t)keep);
    if (dropped < 5)
        return keep;
    /* round up */
    int i = keep - 1;
    while (i >= 0 && out[i] == '9')
        out[i--] = '0';
    if (i >= 0) {
        out[i]++;
        return keep;
    }
    memmove(out + 1, out, (size_t)keep);
    out[0] = '1';
    *top = place0 + 1;
    return keep + 1;
}

/* "%.6f" of x, whose shortest digits are c * 10^e (n digits) */
static size_t fixed6(double x, uint64_t c, int e, int n, char *buf)
{
    /* The shortest digits padded with zeros are the exact value only to
     * within half an ulp: below 2^32 that is under half a millionth, so the
     * sixth decimal is right; beyond, snprintf decides. */
    if (!isfinite(x) || x == 0 || fabs(x) >= 4294967296.0)
        return (size_t)snprintf(buf, NUMFMT_BUFSZ * 2, "%.6f", x);
    char dig[32];
    int top;
    int nd = round_digits(c, e, n, -6, dig, &top);
    if (nd < 0 || top > 20)
        return (size_t)snprintf(buf, NUMFMT_BUFSZ * 2, "%.6f", x);
    char *p = buf;
    if (x < 0)
        *p++ = '-';
    if (nd == 0)
        top = -7;   /* all rounded away */
    /* digits dig[k] sit at place top - k, down to place -6 */
    if (top < 0) {
        *p++ = '0';
    } else {
        for (int pl = top; pl >= 0; pl--)
            *p++ = dig[top - pl];
    }
    *p++ = '.';
    for (int pl = -1; pl >= -6; pl--) {
        int k = top - pl;
        *p++ = (k >= 0 && k < nd) ? dig[k] : '0';
    }
    *p = 0;
    return (size_t)(p - buf);
}

size_t vis_fixed6(double x, char *buf)
{
    uint64_t c = 0;
    int e = 0, n = 0;
    if (isfinite(x) && x != 0)
        n = fmt_shortest(x, &c, &e);
    return fixed6(x, c, e, n, buf);
}

/* repr(round(x, 6)) from the shortest digits of x */
static size_t round6(double x, uint64_t c, int e, int nd, char *buf)
{
    char f[64];
    size_t n = fixed6(x, c, e, nd, f);
    /* strip the trailing zeros, keeping one decimal */
    while (n > 0 && f[n - 1] == '0' && f[n - 2] != '.')
        n--;
    f[n] = 0;
    size_t sig = 0;
    int leading = 1;
    for (size_t i = 0; i < n; i++) {
        if (f[i] < '0' || f[i] > '9')
            continue;
        if (leading && f[i] == '0')
            continue;
        leading = 0;
        sig++;
    }
    if (sig <= 15) {
        memcpy(buf, f, n + 1);
        return n;
    }
    /* 16 or 17 digits need not read back as written: repr decides */
    const char *s = f[0] == '-' ? f + 1 : f;
    double y = parse_double(s, strlen(s));
    return fmt_pyrepr(f[0] == '-' ? -y : y, buf);
}

size_t vis_round6(double x, char *buf)
{
    uint64_t c = 0;
    int e = 0, n = 0;
    if (isfinite(x) && x != 0)
        n = fmt_shortest(x, &c, &e);
    return round6(x, c, e, n, buf);
}

/* "%.6e" of x, whose shortest digits are c * 10^e (n digits) */
static size_t exp6(double x, uint64_t c, int e, int n, char *buf)
{
    char dig[32];
    int top;
    int nd = round_digits(c, e, n, e + n - 1 - 6, dig, &top);
    if (nd < 7)
        return (size_t)snprintf(buf, NUMFMT_BUFSZ * 2, "%.6e", x);
    char *p = buf;
    if (x < 0)
        *p++ = '-';
    *p++ = dig[0];
    *p++ = '.';
    memcpy(p, dig + 1, 6);
    p += 6;
    *p++ = 'e';
    int ex = top;
    *p++ = ex < 0 ? '-' : '+';
    if (ex < 0)
        ex = -ex;
    if (ex >= 100)
        *p++ = (char)('0' + ex / 100);
    *p++ = (char)('0' + ex / 10 % 10);
    *p++ = (char)('0' + ex % 10);
    *p = 0;
    return (size_t)(p - buf);
}

void vis_float(strbuf *sb, double x)
{
    /* an op's output statistics are the next op's inputs: most values come
     * again */
    static _Thread_local memo seen;
    const memo_slot *hit = memo_get(&seen, &x, sizeof x);
    if (hit) {
        sb_add(sb, hit->value, hit->value_len);
        return;
    }
    size_t at = sb->len;
    char buf[64];
    size_t n;
    if (isnan(x)) {
        n = (size_t)snprintf(buf, sizeof buf, "nan");
    } else if (isinf(x)) {
        n = (size_t)snprintf(buf, sizeof buf, x > 0 ? "inf" : "-inf");
    } else if (x == 0) {
        n = (size_t)snprintf(buf, sizeof buf, signbit(x) ? "-0.0" : "0.0");
    } else {
        /* repr() writes an exponent when the decimal exponent is below -4
         * or above 15 */
        uint64_t c;
        int e;
        int nd = fmt_shortest(x, &c, &e);
        int x10 = e + nd - 1;
        n = x10 < -4 || x10 > 15 ? exp6(x, c, e, nd, buf) : round6(x, c, e, nd, buf);
    }
    sb_add(sb, "\"", 1);
    sb_add(sb, buf, n);
    sb_add(sb, "\"", 1);
    memo_put(&seen, &x, sizeof x, sb->buf + at, sb->len - at);
}

/* ^\d{1,20}\.\d{1,20}%?$ (Python's $ also before a final newline), with
 * more than 6 decimals: the number cut to "%.6f". */
static int decimal_rule(const char *s, size_t n, strbuf *out)
{
    size_t end = n;
    if (end && s[end - 1] == '\n')
        end--;
    int pct = end && s[end - 1] == '%';
    size_t numend = end - (size_t)pct;
    size_t i = 0;
    while (i < numend && s[i] >= '0' && s[i] <= '9')
        i++;
    if (i == 0 || i > 20 || i >= numend || s[i] != '.')
        return 0;
    size_t dot = i++;
    while (i < numend && s[i] >= '0' && s[i] <= '9')
        i++;
    size_t decimals = i - dot - 1;
    if (i != numend || decimals == 0 || decimals > 20 || decimals <= 6)
        return 0;
    char buf[64];
    size_t bn = vis_fixed6(parse_double(s, numend), buf);
    sb_add(out, buf, bn);
    sb_add(out, s + numend, n - numend);
    return 1;
}

void vis_string(strbuf *sb, const char *s, size_t n)
{
    int plain = 1;
    for (size_t i = 0; i < n && plain; i++)
        if (s[i] == '\'' || (s[i] == 'N' && i + 4 <= n && !memcmp(s + i, "None", 4)))
            plain = 0;
    if (plain && (n == 0 || s[0] < '0' || s[0] > '9')) {
        jsonw_str_ascii(sb, s, n);
        return;
    }
    strbuf t = STRBUF_INIT, u = STRBUF_INIT;
    /* value.replace("'", "").replace("None", "null") */
    for (size_t i = 0; i < n; i++)
        if (s[i] != '\'')
            sb_addc(&t, s[i]);
    for (size_t i = 0; i < t.len;) {
        if (i + 4 <= t.len && !memcmp(t.buf + i, "None", 4)) {
            sb_add(&u, "null", 4);
            i += 4;
        } else {
            sb_addc(&u, t.buf[i++]);
        }
    }
    sb_reset(&t);
    if (decimal_rule(u.buf ? u.buf : "", u.len, &t))
        jsonw_str_ascii(sb, t.buf, t.len);
    else
        jsonw_str_ascii(sb, u.buf ? u.buf : "", u.len);
    sb_free(&t);
    sb_free(&u);
}

void vis_value_json(strbuf *sb, const jval *v)
{
    switch (v->type) {
    case J_NULL:
        sb_add(sb, "\"null\"", 6);
        return;
    case J_TRUE:
        sb_add(sb, "\"True\"", 6);
        return;
    case J_FALSE:
        sb_add(sb, "\"False\"", 7);
        return;
    case J_STRING:
        vis_string(sb, v->u.str, v->len);
        return;
    case J_NUMBER:
        if (!v->is_int) {
            vis_float(sb, v->u.num);
            return;
        }
        sb_addc(sb, '"');
        py_str_int_token(sb, v->text, v->len);
        sb_addc(sb, '"');
        return;
    default: {
        strbuf t = STRBUF_INIT;
        py_str_json(&t, v);
        jsonw_str_ascii(sb, t.buf ? t.buf : "", t.len);
        sb_free(&t);
        return;
    }
    }
}

void vis_pyval(strbuf *sb, const pyval *v)
{
    char buf[64];
    switch (v->kind) {
    case PV_NONE:
        sb_add(sb, "\"null\"", 6);
        return;
    case PV_BOOL:
        sb_adds(sb, v->num ? "\"True\"" : "\"False\"");
        return;
    case PV_INT:
        if (v->text) {
            sb_addc(sb, '"');
            sb_add(sb, v->text, v->len);
            sb_addc(sb, '"');
        } else {
            snprintf(buf, sizeof buf, "\"%.0f\"", v->num);
            sb_adds(sb, buf);
        }
        return;
    case PV_FLOAT:
        vis_float(sb, v->num);
        return;
    case PV_STR:
        vis_string(sb, v->text, v->len);
        return;
    default:
        jsonw_str_ascii(sb, v->text ? v->text : "", v->len);
        return;
    }
}
