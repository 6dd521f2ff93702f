/* The JSON writer of gen_dump: json.dump(..., indent=1) spelling streamed
 * into a large buffer, flushed with write(2). Only gen_dump.c includes this
 * file (see gen_model.h for why it is apart).
 */
#ifndef GEN_JSON_H
#define GEN_JSON_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"

#include "gen_model.h"
#include "pyrepr.h"

#define JW_CAP (8u << 20)
#define JW_SLACK 4096   /* room every single token write may use unchecked */

static const char SPACES[64] = "                                                               ";

static void jw_init(jw *w, const char *path)
{
    memset(w, 0, sizeof *w);
    w->path = xstrdup(path);
    w->buf = xmalloc(JW_CAP);
    w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0) {
        fprintf(stderr, "gen_dump: %s: %s\n", path, strerror(errno));
        exit(1);
    }
}

static void jw_flush(jw *w)
{
    size_t off = 0;
    while (off < w->len) {
        ssize_t n = write(w->fd, w->buf + off, w->len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            fprintf(stderr, "gen_dump: %s: %s\n", w->path, strerror(errno));
            exit(1);
        }
        off += (size_t)n;
    }
    w->total += w->len;
    w->len = 0;
}

static void jw_close_file(jw *w)
{
    jw_flush(w);
    if (close(w->fd) != 0) {
        fprintf(stderr, "gen_dump: %s: %s\n", w->path, strerror(errno));
        exit(1);
    }
    free(w->buf);
    free(w->path);
}

static inline void jw_need(jw *w, size_t n)
{
    if (w->len + n > JW_CAP)
        jw_flush(w);
}

static inline void jw_put(jw *w, const char *s, size_t n)
{
    if (n > JW_SLACK) {
        jw_flush(w);
        for (size_t off = 0; off < n; off += JW_CAP / 2) {
            size_t k = n - off < JW_CAP / 2 ? n - off : JW_CAP / 2;
            memcpy(w->buf + w->len, s + off, k);
            w->len += k;
            jw_flush(w);
        }
        return;
    }
    jw_need(w, n);
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

/* Comma and indentation before a value in the current container. */
static inline void jw_sep(jw *w)
{
    jw_need(w, JW_SLACK);
    char *p = w->buf + w->len;
    if (w->first[w->depth]) {
        w->first[w->depth] = 0;
        *p++ = '\n';
    } else {
        *p++ = ',';
        *p++ = '\n';
    }
    memcpy(p, SPACES, (size_t)w->depth);
    w->len = (size_t)(p - w->buf) + (size_t)w->depth;
}

static inline void jw_key(jw *w, const char *k, size_t n)
{
    jw_sep(w);
    char *p = w->buf + w->len;
    *p++ = '"';
    memcpy(p, k, n);
    p += n;
    memcpy(p, "\": ", 3);
    w->len = (size_t)(p - w->buf) + 3;
}

#define JW_KEY(w, s) jw_key((w), (s), sizeof(s) - 1)

static inline void jw_open(jw *w, char c)
{
    w->buf[w->len++] = c;
    w->first[++w->depth] = 1;
}

static inline void jw_close(jw *w, char c)
{
    jw_need(w, JW_SLACK);
    if (!w->first[w->depth]) {
        w->buf[w->len++] = '\n';
        memcpy(w->buf + w->len, SPACES, (size_t)w->depth - 1);
        w->len += (size_t)w->depth - 1;
    }
    w->buf[w->len++] = c;
    w->depth--;
}

static inline void jw_str(jw *w, const char *s)
{
    size_t n = strlen(s);
    char *p = w->buf + w->len;
    *p++ = '"';
    memcpy(p, s, n);
    p[n] = '"';
    w->len += n + 2;
}

static inline void jw_int(jw *w, long long v)
{
    w->len += (size_t)sprintf(w->buf + w->len, "%lld", v);
}

/* json.dump spelling of a float: repr, or the NaN/Infinity tokens. */
static inline void jw_num(jw *w, double v)
{
    if (v != v)
        JW_LIT(w, "NaN");
    else if (v > 1.7976931348623157e308)
        JW_LIT(w, "Infinity");
    else if (v < -1.7976931348623157e308)
        JW_LIT(w, "-Infinity");
    else
        w->len += (size_t)pyrepr(w->buf + w->len, v);
}

#endif
