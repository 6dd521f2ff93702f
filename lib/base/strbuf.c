/* The out-of-line half of strbuf.h: growth (doubling, from 64 bytes),
 * formatted appends, and handing the buffer over. The appends a writer
 * calls per token stay inline in the header.
 */
#include "base/strbuf.h"
#include "base/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_grow_slow(strbuf *sb, size_t extra)
{
    if (sb->len + extra + 1 <= sb->cap)
        return;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < sb->len + extra + 1)
        cap *= 2;
    sb->buf = xrealloc(sb->buf, cap);
    sb->cap = cap;
}

void sb_adds(strbuf *sb, const char *s) { sb_add(sb, s, strlen(s)); }

void sb_addf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[256];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        sb_add(sb, tmp, (size_t)n);
        return;
    }
    sb_grow(sb, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

void sb_reset(strbuf *sb)
{
    sb->len = 0;
    if (sb->buf)
        sb->buf[0] = 0;
}

const char *sb_str(strbuf *sb)
{
    if (!sb->buf)
        sb_grow(sb, 0);
    sb->buf[sb->len] = 0;
    return sb->buf;
}

char *sb_detach(strbuf *sb)
{
    sb_str(sb);
    char *p = sb->buf;
    sb->buf = NULL;
    sb->len = sb->cap = 0;
    return p;
}

void sb_free(strbuf *sb)
{
    free(sb->buf);
    sb->buf = NULL;
    sb->len = sb->cap = 0;
}
