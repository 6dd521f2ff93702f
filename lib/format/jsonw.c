/* JSON text as Python's json.dump writes it (jsonw.h): its escapes, its
 * float spelling (repr(), NaN, Infinity), its ensure_ascii \u escapes with
 * surrogate pairs, and its indent layout, so that the JSON files we write
 * (config_check packs, graph's .vis, compare and nan_analyze summaries)
 * read like msprobe's. A loaded value can be written back (jsonw_value)
 * the way json.dump writes what json.load returned: an int with its
 * digits, a float by repr(). Strings are written byte by byte in place, no
 * intermediate copies, as the graph writer sends every name through here.
 */
#include "format/jsonw.h"
#include "py/numfmt.h"

#include <math.h>
#include <string.h>

void jsonw_strn(strbuf *sb, const char *s, size_t n)
{
    sb_addc(sb, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': sb_add(sb, "\\\"", 2); break;
        case '\\': sb_add(sb, "\\\\", 2); break;
        case '\n': sb_add(sb, "\\n", 2); break;
        case '\r': sb_add(sb, "\\r", 2); break;
        case '\t': sb_add(sb, "\\t", 2); break;
        case '\b': sb_add(sb, "\\b", 2); break;
        case '\f': sb_add(sb, "\\f", 2); break;
        default:
            if (c < 0x20 || c == 0x7f)
                sb_addf(sb, "\\u%04x", c);
            else
                sb_addc(sb, (char)c);
        }
    }
    sb_addc(sb, '"');
}

void jsonw_str(strbuf *sb, const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    jsonw_strn(sb, s, n);
}

void jsonw_double(strbuf *sb, double x)
{
    if (isnan(x)) {
        sb_adds(sb, "NaN");
    } else if (isinf(x)) {
        sb_adds(sb, x > 0 ? "Infinity" : "-Infinity");
    } else {
        sb_grow(sb, NUMFMT_BUFSZ);
        sb->len += fmt_pyrepr(x, sb->buf + sb->len);
    }
}

/* One code point from UTF-8 at s[*i]; a byte that starts no valid sequence
 * stands for itself. Surrogates encoded as three bytes are accepted: our
 * JSON reader stores a lone \ud800 escape that way, as Python keeps it. */
static unsigned utf8_next(const unsigned char *s, size_t n, size_t *i)
{
    unsigned c = s[*i];
    int len = c < 0xC2 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF5 ? 4 : 1;
    if (c < 0x80 || len == 1 || *i + (size_t)len > n) {
        (*i)++;
        return c;
    }
    unsigned cp = c & (0x7F >> len);
    for (int k = 1; k < len; k++) {
        unsigned b = s[*i + (size_t)k];
        if ((b & 0xC0) != 0x80) {
            (*i)++;
            return c;
        }
        cp = cp << 6 | (b & 0x3F);
    }
    *i += (size_t)len;
    return cp;
}

void jsonw_str_ascii(strbuf *sb, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    sb_addc(sb, '"');
    for (size_t i = 0; i < n;) {
        unsigned c = u[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            size_t run = i;
            while (run < n && u[run] >= 0x20 && u[run] < 0x7f && u[run] != '"' && u[run] != '\\')
                run++;
            sb_add(sb, s + i, run - i);
            i = run;
            continue;
        }
        switch (c) {
        case '"': sb_add(sb, "\\\"", 2); i++; continue;
        case '\\': sb_add(sb, "\\\\", 2); i++; continue;
        case '\n': sb_add(sb, "\\n", 2); i++; continue;
        case '\r': sb_add(sb, "\\r", 2); i++; continue;
        case '\t': sb_add(sb, "\\t", 2); i++; continue;
        case '\b': sb_add(sb, "\\b", 2); i++; continue;
        case '\f': sb_add(sb, "\\f", 2); i++; continue;
        }
        unsigned cp = utf8_next(u, n, &i);
        if (cp >= 0x10000) {
            cp -= 0x10000;
            sb_addf(sb, "\\u%04x\\u%04x", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF));
        } else {
            sb_addf(sb, "\\u%04x", cp);
        }
    }
    sb_addc(sb, '"');
}

void jsonw_newline(strbuf *sb, int indent, int level)
{
    size_t n = (size_t)indent * (size_t)level;
    sb_grow(sb, n + 1);
    sb->buf[sb->len++] = '\n';
    memset(sb->buf + sb->len, ' ', n);
    sb->len += n;
    sb->buf[sb->len] = 0;
}

void jsonw_key(strbuf *sb, int indent, int level, const char *k)
{
    jsonw_newline(sb, indent, level);
    jsonw_str_ascii(sb, k, strlen(k));
    sb_add(sb, ": ", 2);
}

void jsonw_value(strbuf *sb, const jval *v, int indent, int level)
{
    switch (v->type) {
    case J_NULL: sb_adds(sb, "null"); return;
    case J_TRUE: sb_adds(sb, "true"); return;
    case J_FALSE: sb_adds(sb, "false"); return;
    case J_NUMBER:
        /* a Python int prints its digits ("-0" loads as 0) */
        if (v->is_int)
            sb_add(sb, v->u.num == 0 ? "0" : v->text, v->u.num == 0 ? 1 : v->len);
        else
            jsonw_double(sb, v->u.num);
        return;
    case J_STRING: jsonw_str_ascii(sb, v->u.str, v->len); return;
    case J_ARRAY:
        if (!v->len) {
            sb_adds(sb, "[]");
            return;
        }
        sb_addc(sb, '[');
        for (uint32_t i = 0; i < v->len; i++) {
            if (i)
                sb_addc(sb, ',');
            jsonw_newline(sb, indent, level + 1);
            jsonw_value(sb, &v->u.items[i], indent, level + 1);
        }
        jsonw_newline(sb, indent, level);
        sb_addc(sb, ']');
        return;
    default: {
        int any = 0;
        sb_addc(sb, '{');
        for (uint32_t i = 0; i < v->len; i++) {
            const jval *item = json_member_value(v, i);
            if (!item)
                continue;
            if (any++)
                sb_addc(sb, ',');
            jsonw_newline(sb, indent, level + 1);
            jsonw_str_ascii(sb, v->u.members[i].key, v->u.members[i].keylen);
            sb_add(sb, ": ", 2);
            jsonw_value(sb, item, indent, level + 1);
        }
        if (any)
            jsonw_newline(sb, indent, level);
        sb_addc(sb, '}');
        return;
    }
    }
}
