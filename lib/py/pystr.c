/* Python's spellings (pystr.h): str() and repr() of values loaded from
 * JSON -- repr() of a str with Python's choice of quote, its escapes and
 * its printable test (a table of the non-printable Unicode ranges that
 * real text holds) --, msprobe's formula-injection test, and the plain
 * decimal syntax float() and int() accept. Invalid UTF-8 is passed through
 * byte by byte rather than refused: a cell must still be written.
 */
#include "py/pystr.h"
#include "py/numfmt.h"

#include <stdlib.h>
#include <string.h>

void py_repr_float(strbuf *sb, double x)
{
    char buf[40];
    size_t n = fmt_pyrepr(x, buf);
    sb_add(sb, buf, n);
}

void py_str_int_token(strbuf *sb, const char *text, size_t n)
{
    if (n == 2 && text[0] == '-' && text[1] == '0') {
        sb_addc(sb, '0');
        return;
    }
    sb_add(sb, text, n);
}

/* Decode one UTF-8 sequence; invalid bytes come back as themselves with
 * len 1 (Python would have refused to decode the file; we stay lenient). */
static unsigned utf8_next(const unsigned char *s, size_t n, size_t *len)
{
    unsigned c = s[0];
    size_t need = c >= 0xF0 && c < 0xF8 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (c < 0x80 || need > n || need == 1) {
        *len = 1;
        return c;
    }
    unsigned cp = c & (0x3F >> (need - 1));
    for (size_t i = 1; i < need; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *len = 1;
            return c;
        }
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    *len = need;
    return cp;
}

/* Python's str.isprintable() is false for Unicode categories Cc, Cf, Cs, Co,
 * Cn, Zl, Zp and Zs other than the space. The table covers the code points
 * of those categories that real text contains; rare unassigned points are
 * treated as printable. */
static int unicode_printable(unsigned cp)
{
    static const unsigned ranges[][2] = {
        {0x80, 0xA0},     {0xAD, 0xAD},     {0x600, 0x605},   {0x61C, 0x61C},   {0x6DD, 0x6DD},
        {0x70F, 0x70F},   {0x890, 0x891},   {0x8E2, 0x8E2},   {0x1680, 0x1680}, {0x180E, 0x180E},
        {0x2000, 0x200F}, {0x2028, 0x202F}, {0x205F, 0x2064}, {0x2066, 0x206F}, {0x3000, 0x3000},
        {0xD800, 0xF8FF}, {0xFEFF, 0xFEFF}, {0xFFF0, 0xFFFB}, {0xFFFE, 0xFFFF}, {0x110BD, 0x110BD},
        {0x110CD, 0x110CD}, {0x13430, 0x13438}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A},
        /* U+E0100..U+E01EF are variation selectors (Mn): printable */
        {0xE0000, 0xE00FF}, {0xE01F0, 0xE0FFF}, {0xF0000, 0x10FFFF},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        if (cp >= ranges[i][0] && cp <= ranges[i][1])
            return 0;
    return 1;
}

void py_repr_str(strbuf *sb, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    int has_sq = memchr(s, '\'', n) != NULL, has_dq = memchr(s, '"', n) != NULL;
    char quote = has_sq && !has_dq ? '"' : '\'';
    sb_grow(sb, n + 2);
    sb_addc(sb, quote);
    size_t i = 0;
    while (i < n) {
        unsigned c = u[i];
        if (c < 0x80) {
            i++;
            if (c == (unsigned)quote || c == '\\') {
                sb_addc(sb, '\\');
                sb_addc(sb, (char)c);
            } else if (c == '\n') {
                sb_add(sb, "\\n", 2);
            } else if (c == '\r') {
                sb_add(sb, "\\r", 2);
            } else if (c == '\t') {
                sb_add(sb, "\\t", 2);
            } else if (c < 0x20 || c == 0x7F) {
                sb_addf(sb, "\\x%02x", c);
            } else {
                sb_addc(sb, (char)c);
            }
            continue;
        }
        size_t len;
        unsigned cp = utf8_next(u + i, n - i, &len);
        if (len == 1 || unicode_printable(cp)) {
            sb_add(sb, s + i, len);
        } else if (cp <= 0xFF) {
            sb_addf(sb, "\\x%02x", cp);
        } else if (cp <= 0xFFFF) {
            sb_addf(sb, "\\u%04x", cp);
        } else {
            sb_addf(sb, "\\U%08x", cp);
        }
        i += len;
    }
    sb_addc(sb, quote);
}

static void py_format(strbuf *sb, const jval *v, int repr)
{
    switch (v->type) {
    case J_NULL:
        sb_add(sb, "None", 4);
        return;
    case J_TRUE:
        sb_add(sb, "True", 4);
        return;
    case J_FALSE:
        sb_add(sb, "False", 5);
        return;
    case J_NUMBER:
        if (v->is_int)
            py_str_int_token(sb, v->text, v->len);
        else
            py_repr_float(sb, v->u.num);
        return;
    case J_STRING:
        if (repr)
            py_repr_str(sb, v->u.str, v->len);
        else
            sb_add(sb, v->u.str, v->len);
        return;
    case J_ARRAY:
        sb_addc(sb, '[');
        for (uint32_t i = 0; i < v->len; i++) {
            if (i)
                sb_add(sb, ", ", 2);
            py_format(sb, &v->u.items[i], 1);
        }
        sb_addc(sb, ']');
        return;
    case J_OBJECT: {
        sb_addc(sb, '{');
        uint32_t emitted = 0;
        for (uint32_t i = 0; i < v->len; i++) {
            /* objects already hold each key once (base/value.h) */
            const jmember *m = &v->u.members[i];
            const jval *val = &m->val;
            if (emitted++)
                sb_add(sb, ", ", 2);
            py_repr_str(sb, m->key, m->keylen);
            sb_add(sb, ": ", 2);
            py_format(sb, val, 1);
        }
        sb_addc(sb, '}');
        return;
    }
    }
}

void py_str_json(strbuf *sb, const jval *v) { py_format(sb, v, 0); }
void py_repr_json(strbuf *sb, const jval *v) { py_format(sb, v, 1); }

/* The full-width characters of the blacklist, UTF-8 encoded. */
static int blacklisted_at(const unsigned char *s, size_t n)
{
    if (n >= 1 && (s[0] == '+' || s[0] == '-' || s[0] == '=' || s[0] == '%' || s[0] == '@'))
        return 1;
    /* ＋ U+FF0B, － U+FF0D, ＝ U+FF1D, ％ U+FF05, ＠ U+FF20 */
    if (n >= 3 && s[0] == 0xEF && s[1] == 0xBC &&
        (s[2] == 0x8B || s[2] == 0x8D || s[2] == 0x9D || s[2] == 0x85 || s[2] == 0xA0))
        return 1;
    return 0;
}

int py_blacklisted(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    if (blacklisted_at(u, n))
        return 1;
    for (const char *p = memchr(s, ';', n); p; p = memchr(p + 1, ';', n - (size_t)(p + 1 - s))) {
        size_t off = (size_t)(p - s) + 1;
        if (blacklisted_at(u + off, n - off))
            return 1;
        if (off >= n)
            break;
    }
    return 0;
}

size_t py_decimal_len(const char *p, int *is_int)
{
    static const char digit[] = "0123456789";
    size_t digits = strspn(p, digit), i = digits;
    *is_int = 1;
    if (p[i] == '.') {
        size_t frac = strspn(p + i + 1, digit);
        digits += frac;
        i += 1 + frac;
        *is_int = 0;
    }
    if (!digits)
        return 0;
    if (p[i] == 'e' || p[i] == 'E') {
        size_t e = i + 1 + (p[i + 1] == '+' || p[i + 1] == '-');
        size_t ex = strspn(p + e, digit);
        if (!ex)
            return 0;
        i = e + ex;
        *is_int = 0;
    }
    return i;
}

void py_strip(const char **s, size_t *n)
{
    while (*n && py_is_blank(**s))
        ++*s, --*n;
    while (*n && py_is_blank((*s)[*n - 1]))
        --*n;
}

int py_decimal_number(const char *s, size_t n, double *out, int *is_int)
{
    char buf[PY_DECIMAL_MAX];
    py_strip(&s, &n);
    if (!n || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);   /* strtod and py_decimal_len want the text ended */
    buf[n] = 0;
    const char *p = buf + (buf[0] == '+' || buf[0] == '-');
    size_t len = py_decimal_len(p, is_int);
    if (!len || p[len])
        return -1;
    *out = strtod(buf, NULL);
    return 0;
}
