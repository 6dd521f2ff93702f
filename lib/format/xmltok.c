/* Streaming XML tokenizer over a zip entry (see xmltok.h). The window holds
 * the bytes from the current token on; when a token runs past its end the
 * window is compacted and refilled from the inflater, so every offset is
 * kept relative to `pos` while a token is being scanned. */
#include "format/xmltok.h"
#include "base/err.h"
#include "base/utf8.h"
#include "base/mem.h"
#include "base/le.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define WINDOW_CHUNK ((size_t)256 << 10)
#define LOCAL_HEADER_LEN 30
#define MAX_DEFLATE_RATIO 1032

int xml_fail(xml_reader *x, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return err_input(x->path, "malformed xlsx: %s: %s (at byte %llu)", x->part, msg,
                     (unsigned long long)(x->consumed + x->pos));
}

int xml_open(xml_reader *x, const zip_archive *z, const zip_entry *e, const char *path, uint64_t max_size)
{
    memset(x, 0, sizeof *x);
    x->path = path;
    /* entry names are not NUL-terminated in the archive */
    char *part = xstrndup(e->name, e->name_len);
    x->part = part;
    const char *why = NULL;
    uint64_t off = e->local_offset;
    if (e->flags & 1)
        why = "is encrypted";
    else if (e->method != 0 && e->method != 8)
        why = "uses an unsupported compression method";
    else if (off > z->size || z->size - off < LOCAL_HEADER_LEN || memcmp(z->data + off, "PK\3\4", 4))
        why = "has a bad local header";
    else if (max_size && e->size > max_size)
        why = "is too large";
    else if (e->method == 8 && e->size / MAX_DEFLATE_RATIO > e->comp_size)
        why = "claims an impossible compression ratio (zip bomb?)";
    if (!why) {
        const unsigned char *lh = z->data + off;
        uint64_t start = off + LOCAL_HEADER_LEN + le_get16(lh + 26) + le_get16(lh + 28);
        if (start > z->size || z->size - start < e->comp_size || (e->method == 0 && e->comp_size != e->size))
            why = "lies outside the file";
        else
            x->src = z->data + start;
    }
    if (why) {
        err_input(path, "malformed xlsx: zip entry %s %s", part, why);
        xml_close(x);
        return -1;
    }
    x->src_left = e->comp_size;
    x->declared = e->size;
    x->want_crc = e->crc;
    x->deflated = e->method == 8;
    if (!x->deflated) {
        /* stored: the window is the entry itself, read in place (its CRC
         * checked like an inflated part's: one pass, as fast as memchr) */
        x->buf = x->src;
        x->end = (size_t)e->size;
        x->eof = 1;
        uLong crc = crc32(0, NULL, 0);
        for (uint64_t at = 0; at < e->size; at += 0x40000000u)
            crc = crc32(crc, x->src + at, (uInt)(e->size - at > 0x40000000u ? 0x40000000u : e->size - at));
        if (crc != e->crc) {
            xml_fail(x, "fails its CRC-32 check");
            xml_close(x);
            return -1;
        }
        return 0;
    }
    z_stream *zs = xcalloc(1, sizeof *zs);
    x->zs = zs;
    if (inflateInit2(zs, -MAX_WBITS) != Z_OK) {
        err_internal(path, "cannot initialise zlib");
        xml_close(x);
        return -1;
    }
    x->crc = (uint32_t)crc32(0, NULL, 0);
    return 0;
}

void xml_close(xml_reader *x)
{
    if (x->zs) {
        inflateEnd(x->zs);
        free(x->zs);
    }
    free(x->own);
    free((char *)x->part);
    free(x->attrs);
    free(x->marks);
    sb_free(&x->scratch);
    sb_free(&x->stack);
    memset(x, 0, sizeof *x);
}

/* More bytes into the window: 1 when some came, 0 at the end of the part,
 * -1 on error. Offsets relative to x->pos stay valid; pointers do not. */
static int fill(xml_reader *x)
{
    if (x->eof)
        return 0;
    if (x->pos) {
        memmove(x->own, x->own + x->pos, x->end - x->pos);
        x->consumed += x->pos;
        x->end -= x->pos;
        x->pos = 0;
    }
    if (x->cap - x->end < WINDOW_CHUNK / 2) {
        if (x->end > XML_MAX_TOKEN)
            return xml_fail(x, "a tag or text longer than %zu bytes", XML_MAX_TOKEN);
        x->cap = x->cap ? 2 * x->cap : WINDOW_CHUNK;
        x->own = xrealloc(x->own, x->cap);
    }
    x->buf = x->own;
    z_stream *zs = x->zs;
    size_t before = x->end;
    while (x->end == before) {
        if (zs->avail_in == 0 && x->src_left) {
            zs->next_in = (unsigned char *)x->src;
            zs->avail_in = x->src_left > 0x40000000u ? 0x40000000u : (uInt)x->src_left;
            x->src += zs->avail_in;
            x->src_left -= zs->avail_in;
        }
        zs->next_out = x->own + x->end;
        zs->avail_out = (uInt)(x->cap - x->end);
        uInt in_before = zs->avail_in;
        int rc = inflate(zs, Z_NO_FLUSH);
        size_t got = (size_t)(zs->next_out - (x->own + x->end));
        x->crc = (uint32_t)crc32(x->crc, x->own + x->end, (uInt)got);
        x->end += got;
        x->produced += got;
        if (x->produced > x->declared)
            return xml_fail(x, "inflates to more than its declared %llu bytes", (unsigned long long)x->declared);
        if (rc == Z_STREAM_END) {
            x->eof = 1;
            if (x->produced != x->declared)
                return xml_fail(x, "inflates to %llu bytes, %llu were declared", (unsigned long long)x->produced,
                                (unsigned long long)x->declared);
            if (x->crc != x->want_crc)
                return xml_fail(x, "fails its CRC-32 check");
            break;
        }
        if (rc == Z_BUF_ERROR && zs->avail_in == 0 && x->src_left == 0)
            return xml_fail(x, "its compressed data ends early");
        if ((rc != Z_OK && rc != Z_BUF_ERROR) || (rc == Z_BUF_ERROR && !got && zs->avail_in == in_before))
            return xml_fail(x, "corrupt deflate data (%s)", zs->msg ? zs->msg : "zlib error");
    }
    return x->end > before ? 1 : 0;
}

/* Offset (from pos) of the first occurrence of `pat` at or after `from`,
 * refilling as needed; -1 at the end of the part, -2 on error. */
static long long find(xml_reader *x, size_t from, const char *pat)
{
    size_t plen = strlen(pat);
    for (;;) {
        size_t have = x->end - x->pos;
        if (have >= from + plen) {
            const unsigned char *p = memmem(x->buf + x->pos + from, have - from, pat, plen);
            if (p)
                return (long long)(p - (x->buf + x->pos));
            from = have - plen + 1;
        }
        int r = fill(x);
        if (r < 0)
            return -2;
        if (r == 0)
            return -1;
    }
}

static int is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static void put_utf8(strbuf *sb, unsigned cp)
{
    sb_grow(sb, 4);
    sb->len += utf8_put(sb->buf + sb->len, cp);
    sb->buf[sb->len] = 0;
}

/* Bytes that end a plain run of text: '&', ']' (of "]]>") and everything
 * below 0x20 (line ends are normalised, the other control characters are
 * not XML characters); in attribute values '<' too. */
#define CTRL_STOPS                                                                                            \
    [0] = 1, [1] = 1, [2] = 1, [3] = 1, [4] = 1, [5] = 1, [6] = 1, [7] = 1, [8] = 1, [9] = 1, [10] = 1, [11] = 1, \
    [12] = 1, [13] = 1, [14] = 1, [15] = 1, [16] = 1, [17] = 1, [18] = 1, [19] = 1, [20] = 1, [21] = 1, [22] = 1,  \
    [23] = 1, [24] = 1, [25] = 1, [26] = 1, [27] = 1, [28] = 1, [29] = 1, [30] = 1, [31] = 1
static const unsigned char stops[2][256] = {
    {CTRL_STOPS, ['&'] = 1, [']'] = 1},
    {CTRL_STOPS, ['&'] = 1, [']'] = 1, ['<'] = 1},
};

/* s[0..n) holds only XML characters (Char of the XML 1.0 grammar, in
 * UTF-8): no invalid UTF-8, none of U+FFFE and U+FFFF. Control characters
 * are checked by the callers' stop tables. */
static int chars_ok(const unsigned char *s, size_t n)
{
    if (utf8_invalid_at((const char *)s, n) < n)
        return 0;
    for (const unsigned char *p = s; (p = memchr(p, 0xEF, n - (size_t)(p - s))) != NULL; p++)
        if (n - (size_t)(p - s) >= 3 && p[1] == 0xBF && (p[2] == 0xBE || p[2] == 0xBF))
            return 0;
    return 1;
}

/* Is code point cp a Char of the XML grammar? */
static int is_xml_char(unsigned long cp)
{
    return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD) ||
           (cp >= 0x10000 && cp <= 0x10FFFF);
}

/* Decode s[0..n) (text or an attribute value) onto the scratch buffer,
 * refusing what is not well-formed XML there. */
static int decode(xml_reader *x, const unsigned char *s, size_t n, int attr)
{
    strbuf *sb = &x->scratch;
    const unsigned char *stop = stops[attr];
    sb_grow(sb, n + 1);
    size_t i = 0;
    while (i < n) {
        size_t run = i;
        while (run < n && !stop[s[run]])
            run++;
        /* an XML parser (openpyxl's) refuses a part that is not UTF-8 */
        if (!chars_ok(s + i, run - i))
            return xml_fail(x, "invalid UTF-8 or a non-character in text");
        sb_add(sb, s + i, run - i);
        i = run;
        if (i >= n)
            break;
        unsigned char c = s[i];
        if (c == ']') {
            if (!attr && n - i >= 3 && s[i + 1] == ']' && s[i + 2] == '>')
                return xml_fail(x, "']]>' in text");
            sb_addc(sb, ']');
            i++;
            continue;
        }
        if (c == '<')
            return xml_fail(x, "a '<' in an attribute value");
        if (c != '&') {
            if (c != '\r' && c != '\n' && c != '\t')
                return xml_fail(x, "a control character (0x%02x), which XML does not allow", c);
            /* line ends read as "\n"; in attributes blanks become spaces */
            if (c == '\r' && i + 1 < n && s[i + 1] == '\n')
                i++;
            sb_addc(sb, attr ? ' ' : c == '\t' ? '\t' : '\n');
            i++;
            continue;
        }
        const unsigned char *semi = memchr(s + i, ';', n - i < 16 ? n - i : 16);
        if (!semi)
            return xml_fail(x, "an '&' that starts no entity");
        const char *ent = (const char *)s + i + 1;
        size_t len = (size_t)((const char *)semi - ent);
        static const struct {
            const char *name;
            char ch;
        } named[] = {{"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
        int done = 0;
        for (size_t k = 0; k < 5 && !done; k++)
            if (len == strlen(named[k].name) && !memcmp(ent, named[k].name, len))
                sb_addc(sb, named[k].ch), done = 1;
        if (!done && len >= 2 && ent[0] == '#') {
            int hex = ent[1] == 'x';
            unsigned long cp = 0;
            size_t k = hex ? 2 : 1;
            if (k == len)
                return xml_fail(x, "an empty character reference");
            for (; k < len; k++) {
                char ch = ent[k];
                int d = ch >= '0' && ch <= '9' ? ch - '0'
                        : hex && ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                        : hex && ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                                        : -1;
                if (d < 0)
                    return xml_fail(x, "a bad character reference '&%.*s;'", (int)len, ent);
                cp = cp * (hex ? 16 : 10) + (unsigned long)d;
                if (cp > 0x10FFFF)
                    break;
            }
            if (!is_xml_char(cp))
                return xml_fail(x, "a character reference to an invalid character '&%.*s;'", (int)len, ent);
            put_utf8(sb, (unsigned)cp);
            done = 1;
        }
        if (!done)
            return xml_fail(x, "an unknown entity '&%.*s;'", (int)len, ent);
        i = (size_t)(semi - s) + 1;
    }
    return 0;
}

/* An XML name: ASCII name characters checked (a letter, '_' or ':' first;
 * then also digits, '.' and '-'), others only as valid UTF-8 (XML's tables
 * of non-ASCII name characters are not applied: README, Differences). */
static int is_name(const char *s, size_t n)
{
    if (!n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x80)
            continue;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
                 (i > 0 && ((c >= '0' && c <= '9') || c == '.' || c == '-'));
        if (!ok)
            return 0;
    }
    return utf8_invalid_at(s, n) == n;
}

static int push_name(xml_reader *x, const char *name, size_t n)
{
    GROW(x->marks, x->capmarks, x->nmarks + 1);
    x->marks[x->nmarks++] = x->stack.len;
    sb_add(&x->stack, name, n);
    sb_addc(&x->stack, 0);
    x->seen_root = 1;
    return 0;
}

static void set_local_name(xml_reader *x, const char *name, size_t n)
{
    const char *colon = memchr(name, ':', n);
    if (colon) {
        n -= (size_t)(colon + 1 - name);
        name = colon + 1;
    }
    x->name = name;
    x->name_len = n;
}

/* An end tag: </name ws?> */
static int end_tag(xml_reader *x, size_t close)
{
    const char *s = (const char *)x->buf + x->pos + 2;
    size_t n = close - 2;
    while (n && is_space((unsigned char)s[n - 1]))
        n--;
    if (!x->nmarks)
        return xml_fail(x, "an end tag </%.*s> without a start tag", (int)(n > 64 ? 64 : n), s);
    const char *open = x->stack.buf + x->marks[x->nmarks - 1];
    if (x->stack.len - x->marks[x->nmarks - 1] - 1 != n || memcmp(open, s, n))
        return xml_fail(x, "</%.*s> closes <%s>", (int)(n > 64 ? 64 : n), s, open);
    x->nmarks--;
    x->stack.len = x->marks[x->nmarks];
    set_local_name(x, s, n);
    x->depth = (int)x->nmarks;
    x->pos += close + 1;
    return XML_END;
}

/* A start tag <name attr="v" ...> or <name .../>; `close` is the offset of
 * its '>'. */
static int start_tag(xml_reader *x, size_t close)
{
    const char *s = (const char *)x->buf + x->pos + 1, *end = (const char *)x->buf + x->pos + close;
    int empty = end[-1] == '/' && end - 1 >= s;
    if (empty)
        end--;
    const char *p = s;
    while (p < end && !is_space((unsigned char)*p))
        p++;
    if (p == s)
        return xml_fail(x, "a tag without a name");
    size_t name_len = (size_t)(p - s);
    if (!is_name(s, name_len))
        return xml_fail(x, "a bad element name '%.*s'", (int)(name_len > 64 ? 64 : name_len), s);
    if (!x->nmarks && x->seen_root)
        return xml_fail(x, "a second root element <%.*s>", (int)(name_len > 64 ? 64 : name_len), s);
    /* attribute values go to scratch; record offsets, make pointers last */
    size_t n = 0;
    size_t (*offs)[3] = NULL;   /* name offset in window, name length, value offset in scratch */
    size_t capoffs = 0;
    while (p < end) {
        const char *blank = p;
        while (p < end && is_space((unsigned char)*p))
            p++;
        if (p >= end)
            break;
        if (p == blank) {
            free(offs);
            return xml_fail(x, "no space before an attribute in <%.*s>", (int)(name_len > 64 ? 64 : name_len), s);
        }
        const char *an = p;
        while (p < end && *p != '=' && !is_space((unsigned char)*p))
            p++;
        size_t an_len = (size_t)(p - an);
        while (p < end && is_space((unsigned char)*p))
            p++;
        if (p >= end || *p != '=' || !is_name(an, an_len)) {
            free(offs);
            return xml_fail(x, "a malformed attribute in <%.*s>", (int)(name_len > 64 ? 64 : name_len), s);
        }
        for (size_t k = 0; k < n; k++)
            if (offs[k][1] == an_len && !memcmp(x->buf + offs[k][0], an, an_len)) {
                free(offs);
                return xml_fail(x, "attribute %.*s given twice in <%.*s>", (int)(an_len > 64 ? 64 : an_len), an,
                                (int)(name_len > 64 ? 64 : name_len), s);
            }
        p++;
        while (p < end && is_space((unsigned char)*p))
            p++;
        char q = p < end ? *p : 0;
        const char *v = p + 1, *ve = q == '"' || q == '\'' ? memchr(v, q, (size_t)(end - v > 0 ? end - v : 0)) : NULL;
        if (!ve) {
            free(offs);
            return xml_fail(x, "an unquoted attribute value in <%.*s>", (int)(name_len > 64 ? 64 : name_len), s);
        }
        if (n == XML_MAX_ATTRS) {
            free(offs);
            return xml_fail(x, "more than %d attributes in <%.*s>", XML_MAX_ATTRS, (int)(name_len > 64 ? 64 : name_len),
                            s);
        }
        GROW(offs, capoffs, n + 1);
        offs[n][0] = (size_t)(an - (const char *)x->buf);
        offs[n][1] = an_len;
        offs[n][2] = x->scratch.len;
        if (decode(x, (const unsigned char *)v, (size_t)(ve - v), 1) != 0) {
            free(offs);
            return -1;
        }
        sb_addc(&x->scratch, 0);
        n++;
        p = ve + 1;
    }
    if (n > x->capattrs) {
        x->capattrs = n;
        x->attrs = xrealloc(x->attrs, n * sizeof *x->attrs);
    }
    for (size_t i = 0; i < n; i++) {
        const char *an = (const char *)x->buf + offs[i][0];
        size_t an_len = offs[i][1];
        const char *colon = memchr(an, ':', an_len);
        if (colon) {
            an_len -= (size_t)(colon + 1 - an);
            an = colon + 1;
        }
        x->attrs[i].name = an;
        x->attrs[i].name_len = an_len;
        x->attrs[i].value = x->scratch.buf + offs[i][2];
        x->attrs[i].value_len = strlen(x->attrs[i].value);
    }
    free(offs);
    x->nattrs = n;
    push_name(x, s, name_len);
    set_local_name(x, s, name_len);
    x->pending_end = empty;
    x->depth = (int)x->nmarks;
    x->pos += close + 1;
    return XML_START;
}

/* Offset of the '>' that closes the tag starting at pos (quotes respected). */
static long long tag_close(xml_reader *x)
{
    size_t i = 1;
    char quote = 0;
    for (;;) {
        for (; x->pos + i < x->end; i++) {
            char c = (char)x->buf[x->pos + i];
            if (quote) {
                if (c == quote)
                    quote = 0;
            } else if (c == '"' || c == '\'') {
                quote = c;
            } else if (c == '>') {
                return (long long)i;
            } else if (c == '<') {
                return xml_fail(x, "a '<' inside a tag"), -2;
            }
        }
        int r = fill(x);
        if (r < 0)
            return -2;
        if (r == 0)
            return -1;
    }
}

static int at_end(xml_reader *x)
{
    if (x->nmarks)
        return xml_fail(x, "the part ends inside <%s>", x->stack.buf + x->marks[x->nmarks - 1]);
    if (!x->seen_root)
        return xml_fail(x, "no XML element");
    return XML_EOF;
}

static int starts(xml_reader *x, const char *lit)
{
    size_t n = strlen(lit);
    while (x->end - x->pos < n) {
        int r = fill(x);
        if (r <= 0)
            return r < 0 ? -1 : 0;
    }
    return memcmp(x->buf + x->pos, lit, n) == 0;
}

/* Control characters other than blanks (XML's Char excludes them). */
static int has_ctrl(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < 0x20 && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
            return 1;
    return 0;
}

/* The XML declaration's pseudo-attributes: version="1.x", then optionally
 * encoding="name" and standalone="yes|no", in that order. */
static int decl_ok(const char *s, size_t n)
{
    static const char *const names[] = {"version", "encoding", "standalone"};
    size_t i = 0;
    int next = 0;
    for (;;) {
        size_t blank = i;
        while (i < n && is_space((unsigned char)s[i]))
            i++;
        if (i == n)
            return next > 0;
        if (i == blank)
            return 0;
        int k = next;
        while (k < 3 && !(n - i >= strlen(names[k]) && !memcmp(s + i, names[k], strlen(names[k]))))
            k++;
        if (k == 3 || (next == 0 && k != 0))
            return 0;
        i += strlen(names[k]);
        while (i < n && is_space((unsigned char)s[i]))
            i++;
        if (i == n || s[i++] != '=')
            return 0;
        while (i < n && is_space((unsigned char)s[i]))
            i++;
        if (i == n || (s[i] != '"' && s[i] != '\''))
            return 0;
        const char *v = s + i + 1, *ve = memchr(v, s[i], n - i - 1);
        if (!ve)
            return 0;
        size_t vl = (size_t)(ve - v);
        int ok = k == 0 ? vl >= 3 && !memcmp(v, "1.", 2) && strspn(v + 2, "0123456789") == vl - 2
                 : k == 1 ? vl > 0 && ((v[0] | 0x20) >= 'a' && (v[0] | 0x20) <= 'z') &&
                                strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == vl
                          : (vl == 3 && !memcmp(v, "yes", 3)) || (vl == 2 && !memcmp(v, "no", 2));
        if (!ok)
            return 0;
        i = (size_t)(ve - s) + 1;
        next = k + 1;
    }
}

/* A processing instruction <?target data?> at pos, its "?>" at offset e:
 * the target a name, "xml" (any case) only as the declaration at the very
 * start of the part. */
static int pi_check(xml_reader *x, size_t e)
{
    const char *s = (const char *)x->buf + x->pos + 2, *end = (const char *)x->buf + x->pos + e;
    const char *t = s;
    while (t < end && !is_space((unsigned char)*t))
        t++;
    size_t tl = (size_t)(t - s);
    if (!is_name(s, tl))
        return xml_fail(x, "a processing instruction without a proper target");
    if (!chars_ok((const unsigned char *)t, (size_t)(end - t)) || has_ctrl((const unsigned char *)t, (size_t)(end - t)))
        return xml_fail(x, "invalid characters in a processing instruction");
    if (tl == 3 && (s[0] | 0x20) == 'x' && (s[1] | 0x20) == 'm' && (s[2] | 0x20) == 'l') {
        int at_start = x->consumed + x->pos == 0 || (x->consumed == 0 && x->pos == 3 && !memcmp(x->buf, "\xEF\xBB\xBF", 3));
        if (!at_start || memcmp(s, "xml", 3))
            return xml_fail(x, "an XML declaration that is not at the start");
        if (!decl_ok(t, (size_t)(end - t)))
            return xml_fail(x, "a malformed XML declaration");
    }
    return 0;
}

int xml_next(xml_reader *x)
{
    sb_reset(&x->scratch);
    x->nattrs = 0;
    if (x->pending_end) {
        x->pending_end = 0;
        x->nmarks--;
        x->stack.len = x->marks[x->nmarks];
        x->depth = (int)x->nmarks;
        return XML_END;
    }
    for (;;) {
        if (x->pos == x->end) {
            int r = fill(x);
            if (r < 0)
                return XML_FAIL;
            if (r == 0)
                return at_end(x);
        }
        if (!x->nmarks && x->buf[x->pos] != '<') {
            /* outside the root element only blanks (and a byte order mark
             * first), skipped here window by window: a part of a gigabyte
             * of zeros is refused at its first byte, not buffered */
            if (x->consumed + x->pos == 0 && x->end - x->pos < 3 && fill(x) < 0)
                return XML_FAIL;
            if (x->consumed + x->pos == 0 && x->end - x->pos >= 3 && !memcmp(x->buf + x->pos, "\xEF\xBB\xBF", 3))
                x->pos += 3;
            while (x->pos < x->end && is_space(x->buf[x->pos]))
                x->pos++;
            if (x->pos < x->end && x->buf[x->pos] != '<')
                return xml_fail(x, "text outside the root element");
            continue;
        }
        if (x->buf[x->pos] != '<') {
            long long lt = find(x, 0, "<");
            if (lt == -2)
                return XML_FAIL;
            size_t n = lt < 0 ? x->end - x->pos : (size_t)lt;
            const unsigned char *t = x->buf + x->pos;
            if (decode(x, t, n, 0) != 0)
                return XML_FAIL;
            x->pos += n;
            x->text = x->scratch.buf ? x->scratch.buf : "";
            x->text_len = x->scratch.len;
            return XML_TEXT;
        }
        /* most tokens are plain tags: look at the second byte first */
        if (x->end - x->pos < 2 && fill(x) < 0)
            return XML_FAIL;
        int special = x->end - x->pos >= 2 && (x->buf[x->pos + 1] == '!' || x->buf[x->pos + 1] == '?');
        int r = 0;
        if (special && (r = starts(x, "<!--")) != 0) {
            long long e = r < 0 ? -2 : find(x, 4, "--");
            if (e < 0)
                return e == -2 ? XML_FAIL : xml_fail(x, "an unterminated comment");
            /* the first "--" must end it ("-->"): XML allows no other */
            if (x->end - x->pos < (size_t)e + 3 && fill(x) < 0)
                return XML_FAIL;
            if (x->end - x->pos < (size_t)e + 3 || x->buf[x->pos + (size_t)e + 2] != '>')
                return xml_fail(x, "'--' inside a comment");
            if (!chars_ok(x->buf + x->pos + 4, (size_t)e - 4) || has_ctrl(x->buf + x->pos + 4, (size_t)e - 4))
                return xml_fail(x, "invalid characters in a comment");
            x->pos += (size_t)e + 3;
            continue;
        }
        if (special && (r = starts(x, "<![CDATA[")) != 0) {
            long long e = r < 0 ? -2 : find(x, 9, "]]>");
            if (e < 0)
                return e == -2 ? XML_FAIL : xml_fail(x, "an unterminated CDATA section");
            if (!x->nmarks)
                return xml_fail(x, "a CDATA section outside the root element");
            const unsigned char *t = x->buf + x->pos + 9;
            if (!chars_ok(t, (size_t)e - 9) || has_ctrl(t, (size_t)e - 9))
                return xml_fail(x, "invalid characters in a CDATA section");
            /* line ends read as "\n" there too */
            for (size_t k = 0; k < (size_t)e - 9; k++) {
                if (t[k] != '\r') {
                    sb_addc(&x->scratch, (char)t[k]);
                } else {
                    sb_addc(&x->scratch, '\n');
                    k += k + 1 < (size_t)e - 9 && t[k + 1] == '\n';
                }
            }
            x->pos += (size_t)e + 3;
            x->text = x->scratch.buf ? x->scratch.buf : "";
            x->text_len = x->scratch.len;
            return XML_TEXT;
        }
        if (special && (r = starts(x, "<?")) != 0) {
            long long e = r < 0 ? -2 : find(x, 2, "?>");
            if (e < 0)
                return e == -2 ? XML_FAIL : xml_fail(x, "an unterminated processing instruction");
            if (pi_check(x, (size_t)e) != 0)
                return XML_FAIL;
            x->pos += (size_t)e + 2;
            continue;
        }
        if (special)
            return r < 0 ? XML_FAIL : xml_fail(x, "a DTD or declaration, which is not allowed");
        long long close = tag_close(x);
        if (close == -2)
            return XML_FAIL;
        if (close < 0)
            return xml_fail(x, "the part ends inside a tag");
        if (x->buf[x->pos + 1] == '/')
            return end_tag(x, (size_t)close);
        return start_tag(x, (size_t)close);
    }
}

int xml_is(const xml_reader *x, const char *local)
{
    return x->name_len && x->name[0] == local[0] && x->name_len == strlen(local) &&
           !memcmp(x->name, local, x->name_len);
}

const char *xml_attr_value(const xml_reader *x, const char *local, size_t *len)
{
    size_t n = strlen(local);
    for (size_t i = 0; i < x->nattrs; i++)
        if (x->attrs[i].name_len == n && !memcmp(x->attrs[i].name, local, n)) {
            if (len)
                *len = x->attrs[i].value_len;
            return x->attrs[i].value;
        }
    return NULL;
}
