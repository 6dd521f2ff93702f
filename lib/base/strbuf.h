/* Growable byte buffer for building output text. */
#ifndef MSP_STRBUF_H
#define MSP_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct {
    char *buf;
    size_t len, cap;
} strbuf;

#define STRBUF_INIT { NULL, 0, 0 }

void sb_grow(strbuf *sb, size_t extra);
void sb_add(strbuf *sb, const void *data, size_t n);
void sb_adds(strbuf *sb, const char *s);
void sb_addc(strbuf *sb, char c);
void sb_addf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_reset(strbuf *sb);
/* NUL-terminated view (the NUL is not counted in len). */
const char *sb_str(strbuf *sb);
/* Hand the buffer over (NUL-terminated) and reset. */
char *sb_detach(strbuf *sb);
void sb_free(strbuf *sb);

#endif
