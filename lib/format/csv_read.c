/* csv reader (see csv_read.h): one pass, fields unquoted into a scratch
 * buffer and pointed to once the row is complete (the buffer may move). */
#include "format/csv_read.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "base/utf8.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    size_t off, len;
    int quoted;
} field_pos;

int csv_read(const char *path, const void *buf, size_t len, csv_row_fn fn, void *ctx)
{
    /* pandas decodes the file as UTF-8 first and refuses it whole */
    size_t bad = utf8_invalid_at(buf, len);
    if (bad < len)
        return err_input(path, "malformed csv: invalid UTF-8 at byte %zu (Python cannot read the file)", bad);
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
            f->quoted = p < end && *p == '"';
            if (f->quoted) {
                size_t line = row + 1;
                for (p++;; p++) {
                    if (p >= end) {
                        rc = err_input(path, "malformed csv: a quoted field of row %zu is never closed", line);
                        break;
                    }
                    if (*p == '"') {
                        if (p + 1 < end && p[1] == '"') {
                            sb_addc(&text, '"');
                            p++;
                            continue;
                        }
                        p++;
                        break;
                    }
                    sb_addc(&text, *p);
                }
                if (rc)
                    break;
            }
            const char *s = p;
            while (p < end && *p != ',' && *p != '\n' && !(*p == '\r' && p + 1 < end && p[1] == '\n'))
                p++;
            sb_add(&text, s, (size_t)(p - s));
            f->len = text.len - f->off;
            sb_addc(&text, 0);
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
            fields[i].s = text.buf + pos[i].off;
            fields[i].len = pos[i].len;
            fields[i].quoted = pos[i].quoted;
        }
        rc = fn(ctx, row++, fields, n);
    }
    sb_free(&text);
    free(pos);
    free(fields);
    return rc;
}
