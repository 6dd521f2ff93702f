/* pickle values: building them in the arena, decoding the text operands of
 * protocol 0, the builtin data constructors, and the accessors of
 * format/pickle_value.h. The opcode interpreter is format/pickle.c. */
#include "format/pickle_value.h"
#include "base/err.h"
#include "base/utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int pk_vfail(const pk_reader *r, const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    return err_input(r->path, "%s, offset %zu: %s", r->what, r->op_pos, msg);
}

int pk_fail(const pk_reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = pk_vfail(r, fmt, ap);
    va_end(ap);
    return rc;
}

pk_value *pk_new_value(arena *a, pk_kind k)
{
    pk_value *v = arena_calloc(a, sizeof *v);
    v->kind = k;
    return v;
}

void pk_seq_add(arena *a, pk_value *s, pk_value *x)
{
    if (s->u.seq.len == s->u.seq.cap) {
        size_t cap = s->u.seq.cap ? 2 * s->u.seq.cap : 4;
        pk_value **item = arena_alloc(a, cap * sizeof *item);
        if (s->u.seq.len)
            memcpy(item, s->u.seq.item, s->u.seq.len * sizeof *item);
        s->u.seq.item = item;
        s->u.seq.cap = cap;
    }
    s->u.seq.item[s->u.seq.len++] = x;
}

pk_value *pk_make_str(arena *a, pk_kind k, const void *p, size_t len)
{
    pk_value *v = pk_new_value(a, k);
    v->u.str.ptr = p;
    v->u.str.len = len;
    return v;
}

int pk_parse_int_text(const pk_reader *r, const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    if (i == len)
        return pk_fail(r, "malformed integer operand");
    uint64_t v = 0;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return pk_fail(r, "malformed integer operand");
        if (v > (UINT64_MAX - 9) / 10)
            return pk_fail(r, "integer operand too large");
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > (uint64_t)INT64_MAX + (uint64_t)neg)
        return pk_fail(r, "integer operand too large");
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

static int hex_digits(const char *s, size_t n, uint32_t *out)
{
    uint32_t v = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
            d = (c | 0x20) - 'a' + 10;
        else
            return -1;
        v = v << 4 | (uint32_t)d;
    }
    *out = v;
    return 0;
}

/* UNICODE operand: raw-unicode-escape (latin-1 bytes, \u and \U escapes
 * of 4 and 8 hex digits). */
pk_value *pk_raw_unicode(const pk_reader *r, const char *s, size_t len)
{
    char *o = arena_alloc(r->a, len * 4 + 1);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        uint32_t cp = (unsigned char)s[i];
        size_t digits = 0;
        if (s[i] == '\\' && i + 1 < len && (s[i + 1] == 'u' || s[i + 1] == 'U'))
            digits = s[i + 1] == 'u' ? 4 : 8;
        if (digits) {
            if (i + 2 + digits > len || hex_digits(s + i + 2, digits, &cp) != 0 || cp > 0x10ffff) {
                pk_fail(r, "malformed \\u escape in a UNICODE operand");
                return NULL;
            }
            i += 1 + digits;
        }
        n += utf8_put(o + n, cp);
    }
    return pk_make_str(r->a, PK_STR, o, n);
}

/* STRING operand: a quoted Python 2 repr with backslash escapes. */
pk_value *pk_quoted_string(const pk_reader *r, const char *s, size_t len)
{
    if (len < 2 || (s[0] != '\'' && s[0] != '"') || s[len - 1] != s[0]) {
        pk_fail(r, "STRING operand is not quoted");
        return NULL;
    }
    char *o = arena_alloc(r->a, len);
    size_t n = 0;
    for (size_t i = 1; i + 1 < len; i++) {
        if (s[i] != '\\') {
            o[n++] = s[i];
            continue;
        }
        if (i + 2 >= len) {
            pk_fail(r, "malformed escape in a STRING operand");
            return NULL;
        }
        char c = s[++i];
        uint32_t x;
        switch (c) {
        case 'n': o[n++] = '\n'; break;
        case 'r': o[n++] = '\r'; break;
        case 't': o[n++] = '\t'; break;
        case '\\': case '\'': case '"': o[n++] = c; break;
        case 'x':
            if (i + 3 >= len || hex_digits(s + i + 1, 2, &x) != 0) {
                pk_fail(r, "malformed \\x escape in a STRING operand");
                return NULL;
            }
            o[n++] = (char)x;
            i += 2;
            break;
        default:
            pk_fail(r, "unsupported escape '\\%c' in a STRING operand", c);
            return NULL;
        }
    }
    return pk_make_str(r->a, PK_STR, o, n);
}

static int is_named(const pk_value *g, const char *mod, const char *name)
{
    return strcmp(g->u.global.module, mod) == 0 && strcmp(g->u.global.name, name) == 0;
}

/* latin-1 text (stored as UTF-8) back to the bytes it encodes. */
static pk_value *latin1_bytes(const pk_reader *r, const pk_value *text)
{
    const unsigned char *s = (const unsigned char *)text->u.str.ptr;
    size_t len = text->u.str.len;
    unsigned char *o = arena_alloc(r->a, len ? len : 1);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < 0x80) {
            o[n++] = s[i];
        } else if ((s[i] == 0xc2 || s[i] == 0xc3) && i + 1 < len && (s[i + 1] & 0xc0) == 0x80) {
            o[n++] = (unsigned char)((s[i] & 0x03) << 6 | (s[i + 1] & 0x3f));
            i++;
        } else {
            pk_fail(r, "_codecs.encode: text is not latin-1");
            return NULL;
        }
    }
    return pk_make_str(r->a, PK_BYTES, o, n);
}

/* REDUCE of a builtin data constructor; *done = 0 when g is not one. */
pk_value *pk_construct(const pk_reader *r, const pk_value *g, const pk_value *args, int *done)
{
    size_t n = args->u.seq.len;
    pk_value **a = args->u.seq.item;
    *done = 1;
    if (is_named(g, "collections", "OrderedDict")) {
        if (n != 0) {
            pk_fail(r, "OrderedDict() with arguments is not supported");
            return NULL;
        }
        return pk_new_value(r->a, PK_DICT);
    }
    if (is_named(g, "collections", "defaultdict")) {
        /* defaultdict(factory): its items follow as SETITEMS; the factory
         * (a class named by an allowed global) does not matter to data */
        if (n > 1) {
            pk_fail(r, "defaultdict() with more than one argument is not supported");
            return NULL;
        }
        return pk_new_value(r->a, PK_DICT);
    }
    if (is_named(g, "_codecs", "encode")) {
        if (n != 2 || a[0]->kind != PK_STR || !(pk_str_eq(a[1], "latin1") || pk_str_eq(a[1], "latin-1"))) {
            pk_fail(r, "_codecs.encode is only supported as encode(text, 'latin1')");
            return NULL;
        }
        return latin1_bytes(r, a[0]);
    }
    if (is_named(g, "builtins", "bytes") || is_named(g, "builtins", "bytearray")) {
        if (n == 0)
            return pk_make_str(r->a, PK_BYTES, "", 0);
        if (n == 1 && a[0]->kind == PK_BYTES)
            return a[0];
        pk_fail(r, "%s() with these arguments is not supported", g->u.global.name);
        return NULL;
    }
    if (is_named(g, "builtins", "set") || is_named(g, "builtins", "frozenset")) {
        pk_value *s = pk_new_value(r->a, PK_SET);
        if (n == 1 && (a[0]->kind == PK_LIST || a[0]->kind == PK_TUPLE))
            for (size_t i = 0; i < a[0]->u.seq.len; i++)
                pk_seq_add(r->a, s, a[0]->u.seq.item[i]);
        else if (n != 0) {
            pk_fail(r, "%s() with these arguments is not supported", g->u.global.name);
            return NULL;
        }
        return s;
    }
    *done = 0;
    return NULL;
}

/* ---- accessors ------------------------------------------------------- */

const char *pk_kind_name(pk_kind k)
{
    static const char *const names[] = {
        [PK_NONE] = "None", [PK_BOOL] = "a bool", [PK_INT] = "an int", [PK_BIGINT] = "a big int",
        [PK_FLOAT] = "a float", [PK_STR] = "a str", [PK_BYTES] = "a bytes object", [PK_TUPLE] = "a tuple",
        [PK_LIST] = "a list", [PK_DICT] = "a dict", [PK_SET] = "a set", [PK_GLOBAL] = "a class or function",
        [PK_CALL] = "an object", [PK_PERSID] = "a persistent id",
    };
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "a value";
}

int pk_is_global(const pk_value *v, int id) { return v && v->kind == PK_GLOBAL && v->u.global.id == id; }

int pk_is_call_of(const pk_value *v, int id) { return v && v->kind == PK_CALL && pk_is_global(v->u.call.callable, id); }

int pk_str_eq(const pk_value *v, const char *s)
{
    size_t n = strlen(s);
    return v && v->kind == PK_STR && v->u.str.len == n && memcmp(v->u.str.ptr, s, n) == 0;
}

long pk_tuple_len(const pk_value *v) { return v && v->kind == PK_TUPLE ? (long)v->u.seq.len : -1; }

const pk_value *pk_dict_get(const pk_value *d, const char *key)
{
    if (!d || d->kind != PK_DICT)
        return NULL;
    for (size_t i = 0; i + 1 < d->u.seq.len; i += 2)
        if (pk_str_eq(d->u.seq.item[i], key))
            return d->u.seq.item[i + 1];
    return NULL;
}
