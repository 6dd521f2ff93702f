/* csv reader (see csv_read.h): one pass, fields unquoted into a scratch
 * buffer and pointed to once the row is complete (the buffer may move).
 *
 * Big files (a training monitor writes gigabytes of csv) make the scan
 * matter: the end of an unquoted field is found eight bytes at a time and
 * copied in one piece, a quoted field's text up to its next quote too. */
#include "format/csv_read.h"
#include "base/err.h"
#include "base/le.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "base/utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *direct;   /* an unquoted field read in place (zero copy), else NULL */
    size_t off, len;
    int quoted;
} field_pos;

/* Bytes equal to b in w get their top bit set; only the lowest such byte is
 * exact (a borrow may mark the bytes above it), which is all that is used. */
static inline uint64_t bytes_equal(uint64_t w, unsigned char b)
{
    uint64_t x = w ^ (0x0101010101010101ULL * b);
    return (x - 0x0101010101010101ULL) & ~x & 0x8080808080808080ULL;
}

/* The first ',' or '\n' at or after p, or '\r' (which ends a row only
 * before '\n'); end when none. The high bits of every byte looked at are
 * or-ed into *high (a byte that is not ASCII shows there). */
static const char *field_end(const char *p, const char *end, uint64_t *high)
{
    for (;;) {
        while ((size_t)(end - p) >= 8) {
            uint64_t w = le_get64((const unsigned char *)p);
            *high |= w;
            uint64_t m = bytes_equal(w, ',') | bytes_equal(w, '\n') | bytes_equal(w, '\r');
            if (m) {
                p += __builtin_ctzll(m) >> 3;
                break;
            }
            p += 8;
        }
        while (p < end && *p != ',' && *p != '\n' && *p != '\r')
            *high |= (unsigned char)*p++;
        if (p < end && *p == '\r' && !(p + 1 < end && p[1] == '\n')) {
            p++;   /* a lone '\r' is text */
            continue;
        }
        return p;
    }
}

static int invalid_utf8(const char *path, const void *buf, size_t len)
{
    size_t bad = utf8_invalid_at(buf, len);
    if (bad < len)
        return err_input(path, "malformed csv: invalid UTF-8 at byte %zu (Python cannot read the file)", bad);
    return 0;
}

/* pandas decodes the file as UTF-8 first and refuses it whole. csv_read
 * checks before the first row; csv_read_fields (for big files) notes while
 * scanning whether any byte is not ASCII and only then checks the whole
 * file, at the end: its caller may have seen rows of a file it then
 * refuses, and must drop them. */
static int read_rows(const char *path, const void *buf, size_t len, csv_row_fn fn, void *ctx, int copy)
{
    if (copy && invalid_utf8(path, buf, len) != 0)
        return -1;
    uint64_t high = 0;
    const char *p = buf, *end = p + len;
    strbuf text = STRBUF_INIT;
    field_pos *pos = NULL;
    csv_field *fields = NULL;
    size_t cap = 0, row = 0;
    int rc = 0;
    while (p < end && rc == 0) {
        size_t n = 0;
        sb_reset(&text);
        /* an empty line is a row without fields */
        int empty_line = *p == '\n' || (*p == '\r' && p + 1 < end && p[1] == '\n');
        for (;;) {
            if (n == cap) {
                size_t cap2 = cap;
                GROW(pos, cap, n + 1);
                GROW(fields, cap2, n + 1);
            }
            field_pos *f = &pos[n++];
            f->off = text.len;
            f->direct = NULL;
            f->quoted = p < end && *p == '"';
            if (f->quoted) {
                size_t line = row + 1;
                for (p++;;) {
                    const char *q = memchr(p, '"', (size_t)(end - p));
                    if (!q) {
                        rc = err_input(path, "malformed csv: a quoted field of row %zu is never closed", line);
                        break;
                    }
                    for (const char *x = p; x < q; x++)
                        high |= (unsigned char)*x;
                    sb_add(&text, p, (size_t)(q - p));
                    p = q + 1;
                    if (p < end && *p == '"') {
                        sb_addc(&text, '"');
                        p++;
                        continue;
                    }
                    break;
                }
                if (rc)
                    break;
            }
            const char *s = p;
            p = field_end(p, end, &high);
            if (!copy && !f->quoted) {
                f->direct = s;
                f->len = (size_t)(p - s);
            } else {
                sb_add(&text, s, (size_t)(p - s));
                f->len = text.len - f->off;
                sb_addc(&text, 0);
            }
            if (p < end && *p == ',') {
                p++;
                continue;
            }
            p += p < end && *p == '\r';
            p += p < end && *p == '\n';
            break;
        }
        if (rc)
            break;
        if (empty_line)
            n = 0;
        for (size_t i = 0; i < n; i++) {
            fields[i].s = pos[i].direct ? pos[i].direct : text.buf + pos[i].off;
            fields[i].len = pos[i].len;
            fields[i].quoted = pos[i].quoted;
        }
        rc = fn(ctx, row++, fields, n);
    }
    /* a quote left open is reported first: it was found first */
    if (!copy && (rc == 0 || err_cause() == ERR_MALFORMED) && (high & 0x8080808080808080ULL) &&
        invalid_utf8(path, buf, len) != 0)
        rc = -1;
    sb_free(&text);
    free(pos);
    free(fields);
    return rc;
}

int csv_read(const char *path, const void *buf, size_t len, csv_row_fn fn, void *ctx)
{
    return read_rows(path, buf, len, fn, ctx, 1);
}

int csv_read_fields(const char *path, const void *buf, size_t len, csv_row_fn fn, void *ctx)
{
    return read_rows(path, buf, len, fn, ctx, 0);
}
