/* The zip writer of zip_write.h, in one forward pass: each entry is
 * written whole as it is added -- local header, then its data, deflated
 * (raw deflate, level 6, as Python's zipfile does) or stored -- and only
 * what the central directory needs is remembered, so the archive never
 * has to be held or rewritten. ZIP64 records are used per entry, and for
 * the end records, exactly when a size, an offset or the entry count
 * passes what the 32-bit (16-bit) fields hold, or when the caller forces
 * them for a test.
 */
#include "format/zip_write.h"
#include "base/le.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "format/zip.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int zip_sink_stdio(void *file, const void *p, size_t n) { return fwrite(p, 1, n, file) == n ? 0 : -1; }

int zip_sink_strbuf(void *sb, const void *p, size_t n)
{
    sb_add(sb, p, n);
    return 0;
}

static int emit(zip_writer *w, const void *p, size_t n)
{
    if (n && w->sink(w->ctx, p, n) != 0)
        return err_set(ERR_OUTPUT, NULL, "cannot write zip data: %s", strerror(errno));
    w->pos += n;
    return 0;
}

void zip_writer_init(zip_writer *w, zip_sink sink, void *ctx)
{
    memset(w, 0, sizeof *w);
    w->sink = sink;
    w->ctx = ctx;
}

static int deflate_all(const void *data, size_t size, strbuf *out)
{
    z_stream s;
    memset(&s, 0, sizeof s);
    if (deflateInit2(&s, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return err_internal(NULL, "cannot initialise zlib");
    s.next_in = (unsigned char *)data;
    size_t in_left = size;
    int rc;
    do {
        if (s.avail_in == 0 && in_left) {
            s.avail_in = in_left > 0x40000000u ? 0x40000000u : (uInt)in_left;
            in_left -= s.avail_in;
        }
        sb_grow(out, 65536);
        s.next_out = (unsigned char *)out->buf + out->len;
        s.avail_out = 65536;
        rc = deflate(&s, in_left || s.avail_in ? Z_NO_FLUSH : Z_FINISH);
        out->len += 65536 - s.avail_out;
    } while (rc == Z_OK || rc == Z_BUF_ERROR);
    deflateEnd(&s);
    return rc == Z_STREAM_END ? 0 : err_internal(NULL, "deflate failed");
}

int zip_writer_add(zip_writer *w, const char *name, const void *data, size_t size, int method)
{
    strbuf packed = STRBUF_INIT;
    const void *body = data;
    size_t body_len = size;
    if (method == 8) {
        if (deflate_all(data, size, &packed) != 0) {
            sb_free(&packed);
            return -1;
        }
        body = packed.buf;
        body_len = packed.len;
    }
    uint32_t crc = (uint32_t)crc32_z(0, data, size);
    size_t nlen = strlen(name);
    int z64 = w->force_zip64 || size >= 0xffffffffu || body_len >= 0xffffffffu;
    size_t xlen = z64 ? 20 : 0;
    size_t pad = 0;
    if (w->align > 1) {
        uint64_t data_at = w->pos + ZIP_LOCAL_LEN + nlen + xlen + 4;
        pad = (size_t)((w->align - data_at % w->align) % w->align);
    }
    size_t hlen = ZIP_LOCAL_LEN + nlen + xlen + (w->align > 1 ? 4 + pad : 0);
    unsigned char *h = xcalloc(1, hlen);
    le_put32(h, ZIP_SIG_LOCAL);
    le_put16(h + 4, z64 ? 45 : 20);
    le_put16(h + 6, 0x0800); /* names are UTF-8 */
    le_put16(h + 8, (unsigned)method);
    le_put16(h + 12, 0x21); /* 1980-01-01, the earliest DOS date */
    le_put32(h + 14, crc);
    le_put32(h + 18, z64 ? 0xffffffffu : (uint32_t)body_len);
    le_put32(h + 22, z64 ? 0xffffffffu : (uint32_t)size);
    le_put16(h + 26, (unsigned)nlen);
    le_put16(h + 28, (unsigned)(hlen - ZIP_LOCAL_LEN - nlen));
    memcpy(h + ZIP_LOCAL_LEN, name, nlen);
    unsigned char *x = h + ZIP_LOCAL_LEN + nlen;
    if (z64) {
        le_put16(x, 1);
        le_put16(x + 2, 16);
        le_put64(x + 4, size);
        le_put64(x + 12, body_len);
        x += 20;
    }
    if (w->align > 1) {
        le_put16(x, 0x4246); /* "FB", torch's padding record */
        le_put16(x + 2, (unsigned)pad);
        memset(x + 4, 'Z', pad);
    }
    GROW(w->entries, w->cap, w->count + 1);
    zip_written *e = &w->entries[w->count++];
    *e = (zip_written){ xstrdup(name), body_len, size, w->pos, crc, (uint16_t)method };
    int rc = emit(w, h, hlen) != 0 || emit(w, body, body_len) != 0 ? -1 : 0;
    free(h);
    sb_free(&packed);
    return rc;
}

int zip_writer_finish(zip_writer *w)
{
    uint64_t cd_start = w->pos;
    int z64_end = w->force_zip64 || w->count >= 0xffff;
    for (size_t i = 0; i < w->count; i++) {
        zip_written *e = &w->entries[i];
        int z64 = w->force_zip64 || e->size >= 0xffffffffu || e->comp_size >= 0xffffffffu
                  || e->local_offset >= 0xffffffffu;
        z64_end |= z64;
        size_t nlen = strlen(e->name);
        unsigned char h[ZIP_CENTRAL_LEN + 28];
        memset(h, 0, sizeof h);
        le_put32(h, ZIP_SIG_CENTRAL);
        le_put16(h + 4, z64 ? 45 : 20);
        le_put16(h + 6, z64 ? 45 : 20);
        le_put16(h + 8, 0x0800);
        le_put16(h + 10, e->method);
        le_put16(h + 14, 0x21);
        le_put32(h + 16, e->crc);
        le_put32(h + 20, z64 ? 0xffffffffu : (uint32_t)e->comp_size);
        le_put32(h + 24, z64 ? 0xffffffffu : (uint32_t)e->size);
        le_put16(h + 28, (unsigned)nlen);
        le_put16(h + 30, z64 ? 28 : 0);
        le_put32(h + 42, z64 ? 0xffffffffu : (uint32_t)e->local_offset);
        if (z64) {
            unsigned char *x = h + ZIP_CENTRAL_LEN;
            le_put16(x, 1);
            le_put16(x + 2, 24);
            le_put64(x + 4, e->size);
            le_put64(x + 12, e->comp_size);
            le_put64(x + 20, e->local_offset);
        }
        if (emit(w, h, ZIP_CENTRAL_LEN) != 0 || emit(w, e->name, nlen) != 0
            || (z64 && emit(w, h + ZIP_CENTRAL_LEN, 28) != 0))
            return -1;
    }
    uint64_t cd_size = w->pos - cd_start;
    z64_end |= cd_start >= 0xffffffffu || cd_size >= 0xffffffffu;
    if (z64_end) {
        uint64_t e64_at = w->pos;
        unsigned char e64[ZIP_EOCD64_LEN + ZIP_LOCATOR64_LEN];
        memset(e64, 0, sizeof e64);
        le_put32(e64, ZIP_SIG_EOCD64);
        le_put64(e64 + 4, ZIP_EOCD64_LEN - 12);
        le_put16(e64 + 12, 45);
        le_put16(e64 + 14, 45);
        le_put64(e64 + 24, w->count);
        le_put64(e64 + 32, w->count);
        le_put64(e64 + 40, cd_size);
        le_put64(e64 + 48, cd_start);
        unsigned char *loc = e64 + ZIP_EOCD64_LEN;
        le_put32(loc, ZIP_SIG_LOCATOR64);
        le_put64(loc + 8, e64_at);
        le_put32(loc + 16, 1);
        if (emit(w, e64, sizeof e64) != 0)
            return -1;
    }
    unsigned char end[ZIP_EOCD_LEN];
    memset(end, 0, sizeof end);
    le_put32(end, ZIP_SIG_EOCD);
    le_put16(end + 8, z64_end ? 0xffff : (unsigned)w->count);
    le_put16(end + 10, z64_end ? 0xffff : (unsigned)w->count);
    le_put32(end + 12, z64_end ? 0xffffffffu : (uint32_t)cd_size);
    le_put32(end + 16, z64_end ? 0xffffffffu : (uint32_t)cd_start);
    int rc = emit(w, end, sizeof end);
    zip_writer_free(w);
    return rc;
}

void zip_writer_free(zip_writer *w)
{
    for (size_t i = 0; i < w->count; i++)
        free(w->entries[i].name);
    free(w->entries);
    w->entries = NULL;
    w->count = w->cap = 0;
}
