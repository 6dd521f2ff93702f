/* Growable byte buffer for building output text. */
#ifndef MSP_STRBUF_H
#define MSP_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

typedef struct {
    char *buf;
    size_t len, cap;
} strbuf;

#define STRBUF_INIT { NULL, 0, 0 }

/* Room for `extra` more bytes and the NUL. The appends below are inline:
 * writers of big outputs (graph's .vis) call them for every token. */
void sb_grow_slow(strbuf *sb, size_t extra);
static inline void sb_grow(strbuf *sb, size_t extra)
{
    if (sb->len + extra + 1 > sb->cap)
        sb_grow_slow(sb, extra);
}
static inline void sb_add(strbuf *sb, const void *data, size_t n)
{
    sb_grow(sb, n);
    memcpy(sb->buf + sb->len, data, n);
    sb->len += n;
    sb->buf[sb->len] = 0;
}
static inline void sb_addc(strbuf *sb, char c)
{
    sb_grow(sb, 1);
    sb->buf[sb->len++] = c;
    sb->buf[sb->len] = 0;
}
void sb_adds(strbuf *sb, const char *s);
void sb_addf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_reset(strbuf *sb);
/* NUL-terminated view (the NUL is not counted in len). */
const char *sb_str(strbuf *sb);
/* Hand the buffer over (NUL-terminated) and reset. */
char *sb_detach(strbuf *sb);
void sb_free(strbuf *sb);

#endif
