/* TFRecord writer and reader (tfrecord.h). */
#include "format/tfrecord.h"
#include "format/crc32c.h"
#include "base/err.h"
#include "base/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { BLOCK = 1 << 20 };

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* The header (length and its CRC) before, the data's CRC after. */
static void frame_around(crc32c_fn crc, uint8_t *rec, size_t len)
{
    for (int i = 0; i < 8; i++)
        rec[i] = (uint8_t)((uint64_t)len >> (8 * i));
    put32(rec + 8, crc32c_mask(crc(0, rec, 8)));
    put32(rec + 12 + len, crc32c_mask(crc(0, rec + 12, len)));
}

void tfrecord_frame(uint8_t *out, const void *data, size_t len)
{
    memcpy(out + 12, data, len);
    frame_around(crc32c_best(), out, len);
}

int tfrecord_open(tfrecord_writer *w, const char *path, const char *name)
{
    memset(w, 0, sizeof *w);
    w->name = name;
    w->fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
    if (w->fd < 0)
        return err_set(ERR_OUTPUT, name, "cannot write: %s", strerror(errno));
    w->cap = BLOCK;
    w->buf = xmalloc(w->cap);
    w->crc = crc32c_best();
    return 0;
}

static int flush(tfrecord_writer *w)
{
    size_t off = 0;
    while (off < w->len && !w->failed) {
        ssize_t k = write(w->fd, w->buf + off, w->len - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            w->failed = 1;
            return err_set(ERR_OUTPUT, w->name, "cannot write: %s", k < 0 ? strerror(errno) : "no space");
        }
        off += (size_t)k;
    }
    w->written += off;
    w->len = 0;
    return w->failed ? -1 : 0;
}

uint8_t *tfrecord_reserve(tfrecord_writer *w, size_t max)
{
    size_t need = max + TFRECORD_OVERHEAD;
    if (w->len + need > w->cap) {
        if (w->len)
            flush(w);   /* a failure is reported by commit/close */
        w->len = 0;
        if (need > w->cap) {
            w->cap = need;
            w->buf = xrealloc(w->buf, w->cap);
        }
    }
    return w->buf + w->len + 12;
}

int tfrecord_commit(tfrecord_writer *w, size_t len)
{
    frame_around(w->crc, w->buf + w->len, len);
    w->len += len + TFRECORD_OVERHEAD;
    return w->failed ? -1 : 0;
}

int tfrecord_write(tfrecord_writer *w, const void *data, size_t len)
{
    memcpy(tfrecord_reserve(w, len), data, len);
    return tfrecord_commit(w, len);
}

int tfrecord_close(tfrecord_writer *w)
{
    int rc = w->failed ? -1 : 0;
    if (w->fd >= 0) {
        if (rc == 0 && w->len)
            rc = flush(w);
        if (close(w->fd) != 0 && rc == 0)
            rc = err_set(ERR_OUTPUT, w->name, "cannot write: %s", strerror(errno));
    }
    w->fd = -1;
    free(w->buf);
    w->buf = NULL;
    w->len = w->cap = 0;
    return rc;
}

void tfrecord_reader_init(tfrecord_reader *r, const char *name, const void *data, size_t size)
{
    r->data = data;
    r->size = data ? size : 0;
    r->pos = 0;
    r->name = name;
    r->crc = crc32c_best();
}

static uint32_t get32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

int tfrecord_next(tfrecord_reader *r, const uint8_t **rec, size_t *len, size_t *at)
{
    size_t pos = r->pos, left = r->size - pos;
    if (at)
        *at = pos;
    if (left == 0)
        return TFRECORD_END;
    if (left < 12)
        return TFRECORD_TRUNCATED;
    const uint8_t *h = r->data + pos;
    if (crc32c_mask(r->crc(0, h, 8)) != get32(h + 8))
        return err_input(r->name, "the record at byte %zu is damaged: its length's CRC does not match", pos);
    uint64_t n = 0;
    for (int i = 0; i < 8; i++)
        n |= (uint64_t)h[i] << (8 * i);
    if (n >= TFRECORD_MAX_LEN)
        return err_input(r->name, "the record at byte %zu has an impossible length (%llu bytes)", pos,
                         (unsigned long long)n);
    if (n + 4 > left - 12)
        return TFRECORD_TRUNCATED;
    if (crc32c_mask(r->crc(0, h + 12, (size_t)n)) != get32(h + 12 + n))
        return err_input(r->name, "the record at byte %zu is damaged: its data's CRC does not match", pos);
    *rec = h + 12;
    *len = (size_t)n;
    r->pos = pos + 16 + (size_t)n;
    return TFRECORD_RECORD;
}
