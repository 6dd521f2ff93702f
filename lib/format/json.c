/* The JSON reader of json.h: recursive descent straight over the mapped
 * bytes (no tokenizer), with the byte scanning it shares with the skimmer
 * (json_scan.h). An array's or object's items are gathered on a stack the
 * parser reuses and copied into the arena once their number is known, so
 * the arena holds no half-grown arrays. Numbers keep their text; their
 * value comes from the digits gathered while scanning whenever one exact
 * IEEE operation gives it, and from the correctly rounded parse_double
 * otherwise. A repeated object key is looked for only when cheap
 * signatures of the keys collide, so the common case costs one pass.
 */
#include "format/json.h"
#include "base/err.h"
#include "base/mem.h"
#include "py/numfmt.h"
#include "base/strmap.h"
#include "base/utf8.h"
#include "format/json_scan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>



void jp_init(jparser *jp, const char *path, const void *buf, size_t len)
{
    memset(jp, 0, sizeof *jp);
    jp->path = path;
    jp->start = jp->p = buf ? buf : "";
    jp->end = jp->start + (buf ? len : 0);
}

void jp_free(jparser *jp)
{
    free(jp->vstack);
    free(jp->mstack);
    jp->vstack = NULL;
    jp->mstack = NULL;
}

static int fail(jparser *jp, const char *what)
{
    size_t line = 1, col = 1;
    for (const char *c = jp->start; c < jp->p && c < jp->end; c++) {
        if (*c == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    if (jp->p >= jp->end)
        return err_input(jp->path, "malformed JSON: %s at line %zu, column %zu (the file ends there; truncated?)",
                         what, line, col);
    return err_input(jp->path, "malformed JSON: %s at line %zu, column %zu", what, line, col);
}

static inline void skip_ws(jparser *jp) { jp->p = json_skip_ws(jp->p, jp->end); }

static int literal(jparser *jp, const char *word)
{
    size_t n = json_literal(jp->p, jp->end, word);
    jp->p += n;
    return n != 0;
}

int jp_peek(jparser *jp)
{
    skip_ws(jp);
    return jp->p < jp->end ? (unsigned char)*jp->p : -1;
}

static int parse_number(jparser *jp, jval *out)
{
    const char *s = jp->p, *p = s, *e = jp->end;
    out->type = J_NUMBER;
    out->is_int = 0;
    if (p < e && *p == '-')
        p++;
    if (p < e && *p == 'I') {
        jp->p = p;
        if (!literal(jp, "Infinity"))
            return fail(jp, "invalid literal");
        out->u.num = s[0] == '-' ? -INFINITY : INFINITY;
        goto done;
    }
    if (p >= e || !json_is_digit(*p)) {
        jp->p = p;
        return fail(jp, "invalid number");
    }
    /* The digits are gathered as they are scanned: a number of at most 19
     * significant digits whose value one IEEE operation gives exactly
     * (decimal_exact) -- nearly every statistic in a dump -- is not
     * scanned a second time by parse_double. */
    uint64_t w = 0;
    int nd = 0, many = 0;
    long frac = 0, ex = 0;
    if (*p == '0') {
        p++;
    } else {
        for (; p < e && json_is_digit(*p); p++) {
            if (nd < 19)
                w = w * 10 + (uint64_t)(*p - '0'), nd++;
            else
                many = 1;
        }
    }
    int is_int = 1;
    if (p < e && *p == '.') {
        p++;
        if (p >= e || !json_is_digit(*p)) {
            jp->p = p;
            return fail(jp, "invalid number (digit expected after '.')");
        }
        for (; p < e && json_is_digit(*p); p++) {
            if (w == 0 && *p == '0')
                frac++;          /* a zero before the first significant digit */
            else if (nd < 19)
                w = w * 10 + (uint64_t)(*p - '0'), nd++, frac++;
            else
                many = 1;
        }
        is_int = 0;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        int eneg = 0;
        if (p < e && (*p == '+' || *p == '-'))
            eneg = *p++ == '-';
        if (p >= e || !json_is_digit(*p)) {
            jp->p = p;
            return fail(jp, "invalid number (digit expected in exponent)");
        }
        for (; p < e && json_is_digit(*p); p++)
            if (ex < 100000)
                ex = ex * 10 + (*p - '0');
        many |= ex >= 100000;    /* saturated: parse_double says what it is */
        ex = eneg ? -ex : ex;
        is_int = 0;
    }
    jp->p = p;
    out->is_int = (uint8_t)is_int;
    int neg = *s == '-';
    double v;
    /* A short integer (shapes' dimensions) is exact in a double. Numbers
     * are not memoised: the memo cost more than this. */
    if (is_int && nd <= 15) {
        out->u.num = neg ? -(double)w : (double)w;
    } else if (!many && w == 0) {
        out->u.num = neg ? -0.0 : 0.0;
    } else if (!many && decimal_exact(w, ex - frac, &v)) {
        out->u.num = neg ? -v : v;
    } else {
        out->u.num = parse_double(s, (size_t)(p - s));
    }
done:
    out->text = s;
    out->len = (uint32_t)(jp->p - s);
    return 0;
}

static int hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

/* Parse a string at jp->p (which is at the opening quote). Strings without
 * escapes are returned as a view into the buffer. */
static int parse_string(jparser *jp, arena *a, const char **str, uint32_t *len)
{
    const char *s = ++jp->p, *p = s, *e = jp->end;
    int escaped = 0;
    for (;;) {
        p = json_skip_plain(p, e);
        if (p >= e)
            break;
        unsigned char c = (unsigned char)*p;
        if (c == '"')
            break;
        if (c < 0x20) {
            jp->p = p;
            return fail(jp, "control character in string");
        }
        if (c == '\\') {
            escaped = 1;
            if (e - p < 2) {
                p = e;
                break;
            }
            p += 2;
        } else if (c >= 0x80) {
            /* Python decodes the file as UTF-8 first and refuses it whole */
            size_t n = utf8_seq_len((const unsigned char *)p, (const unsigned char *)e);
            if (!n) {
                jp->p = p;
                return fail(jp, "invalid UTF-8 in a string (Python cannot read the file)");
            }
            p += n;
        } else {
            p++;
        }
    }
    if (p >= e) {
        jp->p = p;
        return fail(jp, "unterminated string");
    }
    if ((size_t)(p - s) > UINT32_MAX) {
        jp->p = s;
        return fail(jp, "string too long");
    }
    if (!escaped) {
        *str = s;
        *len = (uint32_t)(p - s);
        jp->p = p + 1;
        return 0;
    }
    /* Unescaped text is never longer than the escaped text. */
    char *d = arena_alloc(a, (size_t)(p - s) + 1), *o = d;
    const char *q = s;
    while (q < p) {
        if (*q != '\\') {
            *o++ = *q++;
            continue;
        }
        q++;
        char c = *q++;
        switch (c) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            unsigned cp, lo;
            if (p - q < 4 || hex4(q, &cp) != 0) {
                jp->p = q;
                return fail(jp, "invalid \\u escape");
            }
            q += 4;
            /* A surrogate pair joins into one code point. Python keeps a
             * lone surrogate in its str, but nothing can write it out
             * (openpyxl refuses it, UTF-8 cannot encode it): refused here,
             * where the file and the place can still be named. NUL ends
             * C strings (and is not allowed in XML): refused too. */
            if (cp >= 0xD800 && cp < 0xDC00 && p - q >= 6 && q[0] == '\\' && q[1] == 'u' &&
                hex4(q + 2, &lo) == 0 && lo >= 0xDC00 && lo < 0xE000) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                q += 6;
            } else if (cp < 0xDC00 && p - q >= 2 && q[0] == '\\' && q[1] == 'u' && (p - q < 6 || hex4(q + 2, &lo) != 0)) {
                jp->p = q;
                return fail(jp, "invalid \\u escape");
            } else if (cp >= 0xD800 && cp < 0xE000) {
                jp->p = q - 6;
                return fail(jp, "lone surrogate escape in a string (no UTF-8 output can hold it)");
            } else if (cp == 0) {
                jp->p = q - 6;
                return fail(jp, "\\u0000 (a NUL character) in a string");
            }
            o += utf8_put(o, cp);
            break;
        }
        default:
            jp->p = q - 1;
            return fail(jp, "invalid escape in string");
        }
    }
    *o = 0;
    *str = d;
    *len = (uint32_t)(o - d);
    jp->p = p + 1;
    return 0;
}

static jval *vpush(jparser *jp)
{
    GROW(jp->vstack, jp->vcap, jp->vtop + 1);
    return &jp->vstack[jp->vtop++];
}

static jmember *mpush(jparser *jp)
{
    GROW(jp->mstack, jp->mcap, jp->mtop + 1);
    return &jp->mstack[jp->mtop++];
}

static int parse_value(jparser *jp, arena *a, jval *out);

static int same_key(const jmember *a, const jmember *b)
{
    return a->keylen == b->keylen && (a->keylen == 0 || (a->key[0] == b->key[0] && !memcmp(a->key, b->key, a->keylen)));
}

/* Objects are small except a few (stack.json, "data"): pairwise below 32
 * members, a hash set above. */
static int has_duplicate_keys(const jmember *m, size_t n)
{
    if (n < 2)
        return 0;
    if (n <= 32) {
        /* 6-bit signatures (length, first, second, last byte): all distinct
         * (a dump leaf's eight keys) means no key repeats */
        uint64_t seen = 0, clash = 0;
        for (size_t i = 0; i < n; i++) {
            const unsigned char *k = (const unsigned char *)m[i].key;
            size_t l = m[i].keylen;
            uint64_t w = l | (l ? k[0] << 8 | (uint64_t)k[l - 1] << 16 : 0) | (l > 1 ? (uint64_t)k[1] << 24 : 0);
            clash |= seen & (1ULL << ((w * 0x9E3779B97F4A7C15ULL) >> 58));
            seen |= 1ULL << ((w * 0x9E3779B97F4A7C15ULL) >> 58);
        }
        if (!clash)
            return 0;
        for (size_t i = 1; i < n; i++)
            for (size_t j = 0; j < i; j++)
                if (same_key(&m[i], &m[j]))
                    return 1;
        return 0;
    }
    strmap seen;
    strmap_init(&seen, n);
    int dup = 0;
    for (size_t i = 0; i < n && !dup; i++) {
        int added;
        strmap_put(&seen, m[i].key, m[i].keylen, i, &added);
        dup = !added;
    }
    strmap_free(&seen);
    return dup;
}

static int parse_array(jparser *jp, arena *a, jval *out)
{
    jp->p++;
    size_t base = jp->vtop;
    skip_ws(jp);
    if (jp->p < jp->end && *jp->p == ']') {
        jp->p++;
    } else {
        for (;;) {
            jval v;
            if (parse_value(jp, a, &v) != 0)
                goto error;
            *vpush(jp) = v;
            skip_ws(jp);
            if (jp->p < jp->end && *jp->p == ',') {
                jp->p++;
                continue;
            }
            if (jp->p < jp->end && *jp->p == ']') {
                jp->p++;
                break;
            }
            fail(jp, "expected ',' or ']'");
            goto error;
        }
    }
    size_t n = jp->vtop - base;
    out->type = J_ARRAY;
    out->len = (uint32_t)n;
    out->u.items = NULL;
    if (n) {
        out->u.items = arena_alloc(a, n * sizeof(jval));
        memcpy(out->u.items, jp->vstack + base, n * sizeof(jval));
    }
    jp->vtop = base;
    return 0;
error:
    jp->vtop = base;
    return -1;
}

static int parse_key(jparser *jp, arena *a, const char **key, uint32_t *keylen)
{
    skip_ws(jp);
    if (jp->p >= jp->end || *jp->p != '"')
        return fail(jp, "expected a string key");
    if (parse_string(jp, a, key, keylen) != 0)
        return -1;
    skip_ws(jp);
    if (jp->p >= jp->end || *jp->p != ':')
        return fail(jp, "expected ':'");
    jp->p++;
    return 0;
}

static int parse_object(jparser *jp, arena *a, jval *out)
{
    jp->p++;
    size_t base = jp->mtop;
    skip_ws(jp);
    if (jp->p < jp->end && *jp->p == '}') {
        jp->p++;
    } else {
        for (;;) {
            jmember m;
            if (parse_key(jp, a, &m.key, &m.keylen) != 0 || parse_value(jp, a, &m.val) != 0)
                goto error;
            *mpush(jp) = m;
            skip_ws(jp);
            if (jp->p < jp->end && *jp->p == ',') {
                jp->p++;
                continue;
            }
            if (jp->p < jp->end && *jp->p == '}') {
                jp->p++;
                break;
            }
            fail(jp, "expected ',' or '}'");
            goto error;
        }
    }
    size_t n = jp->mtop - base;
    out->type = J_OBJECT;
    out->len = 0;
    out->u.members = NULL;
    if (n) {
        /* Python's dict: a repeated key keeps its first place, last value */
        const jmember *src = jp->mstack + base;
        out->u.members = arena_alloc(a, n * sizeof(jmember));
        if (has_duplicate_keys(src, n))
            n = json_dict_members(src, n, out->u.members);
        else
            memcpy(out->u.members, src, n * sizeof(jmember));
        out->len = (uint32_t)n;
    }
    jp->mtop = base;
    return 0;
error:
    jp->mtop = base;
    return -1;
}

static int parse_value(jparser *jp, arena *a, jval *out)
{
    skip_ws(jp);
    memset(out, 0, sizeof *out);
    if (jp->p >= jp->end)
        return fail(jp, "value expected");
    int rc;
    switch (*jp->p) {
    case '{':
    case '[':
        if (++jp->depth > JSON_MAX_DEPTH)
            return fail(jp, JSON_DEPTH_MESSAGE);
        rc = *jp->p == '{' ? parse_object(jp, a, out) : parse_array(jp, a, out);
        jp->depth--;
        return rc;
    case '"':
        out->type = J_STRING;
        return parse_string(jp, a, &out->u.str, &out->len);
    case 't':
        if (!literal(jp, "true"))
            return fail(jp, "invalid literal");
        out->type = J_TRUE;
        return 0;
    case 'f':
        if (!literal(jp, "false"))
            return fail(jp, "invalid literal");
        out->type = J_FALSE;
        return 0;
    case 'n':
        if (!literal(jp, "null"))
            return fail(jp, "invalid literal");
        out->type = J_NULL;
        return 0;
    case 'N': {
        const char *s = jp->p;
        if (!literal(jp, "NaN"))
            return fail(jp, "invalid literal");
        out->type = J_NUMBER;
        out->u.num = NAN;
        out->text = s;
        out->len = 3;
        return 0;
    }
    default:
        if (*jp->p == '-' || *jp->p == 'I' || json_is_digit(*jp->p))
            return parse_number(jp, out);
        return fail(jp, "unexpected character");
    }
}

int jp_value(jparser *jp, arena *a, jval *out) { return parse_value(jp, a, out); }

int jp_scalar(jparser *jp, arena *a, jval *out)
{
    skip_ws(jp);
    if (jp->p < jp->end && (*jp->p == '[' || *jp->p == '{'))
        return 1;
    return parse_value(jp, a, out) == 0 ? 0 : -1;
}

int jp_object_begin(jparser *jp)
{
    skip_ws(jp);
    if (jp->p >= jp->end || *jp->p != '{')
        return fail(jp, "expected an object");
    jp->p++;
    jp->depth++;
    jp->fresh = 1;
    return 0;
}

int jp_object_next(jparser *jp, arena *a, const char **key, size_t *keylen)
{
    skip_ws(jp);
    if (jp->p >= jp->end)
        return fail(jp, "expected ',' or '}'");
    int first = jp->fresh;
    jp->fresh = 0;
    if (*jp->p == '}') {
        jp->p++;
        jp->depth--;
        return 0;
    }
    if (!first) {
        if (*jp->p != ',')
            return fail(jp, "expected ',' or '}'");
        jp->p++;
    }
    uint32_t n;
    if (parse_key(jp, a, key, &n) != 0)
        return -1;
    *keylen = n;
    return 1;
}

int jp_array_begin(jparser *jp)
{
    skip_ws(jp);
    if (jp->p >= jp->end || *jp->p != '[')
        return fail(jp, "expected an array");
    if (++jp->depth > JSON_MAX_DEPTH)
        return fail(jp, JSON_DEPTH_MESSAGE);
    jp->p++;
    jp->fresh = 1;
    return 0;
}

int jp_array_next(jparser *jp)
{
    skip_ws(jp);
    if (jp->p >= jp->end)
        return fail(jp, "expected ',' or ']'");
    int first = jp->fresh;
    jp->fresh = 0;
    if (*jp->p == ']') {
        jp->p++;
        jp->depth--;
        return 0;
    }
    if (!first) {
        if (*jp->p != ',')
            return fail(jp, "expected ',' or ']'");
        jp->p++;
    }
    return 1;
}

/* Skipping still validates: a malformed value anywhere must be reported. */
int jp_skip(jparser *jp)
{
    arena tmp;
    arena_init(&tmp, 4096);
    jval v;
    int rc = parse_value(jp, &tmp, &v);
    arena_free(&tmp);
    return rc;
}

int jp_end(jparser *jp)
{
    skip_ws(jp);
    if (jp->p != jp->end)
        return fail(jp, "extra data after the JSON value");
    return 0;
}

int json_walk_object(jparser *jp, const char *path, const char *not_object, arena *scratch, json_member_fn *member,
                     void *ctx)
{
    if (jp_peek(jp) != '{') {
        /* valid JSON of another kind gets this message (an empty document
         * too); invalid JSON its own */
        if (jp_peek(jp) < 0 || jp_skip(jp) == 0)
            err_input(path, "%s", not_object);
        return -1;
    }
    jp_object_begin(jp);
    for (;;) {
        const char *key;
        size_t keylen;
        int more = jp_object_next(jp, scratch, &key, &keylen);
        if (more < 0)
            return -1;
        if (!more)
            return jp_end(jp);
        int rc = member(ctx, jp, key, keylen, scratch);
        arena_reset(scratch);
        if (rc != 0)
            return -1;
    }
}

int json_parse(const char *path, const void *buf, size_t len, arena *a, jval *out)
{
    jparser jp;
    jp_init(&jp, path, buf, len);
    int rc = parse_value(&jp, a, out);
    if (rc == 0)
        rc = jp_end(&jp);
    jp_free(&jp);
    return rc;
}

