#include "base/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *prog = "msprobe";
static int quiet;

static _Thread_local char err_buf[2048];
static _Thread_local int err_code;

void log_set_prog(const char *p) { prog = p; }
const char *log_prog(void) { return prog; }
void log_set_quiet(int q) { quiet = q; }
int log_quiet(void) { return quiet; }

int err_vset(int kind, const char *path, const char *fmt, va_list ap)
{
    size_t n = 0;
    if (path && *path)
        n = (size_t)snprintf(err_buf, sizeof err_buf, "%s: ", path);
    if (n < sizeof err_buf)
        vsnprintf(err_buf + n, sizeof err_buf - n, fmt, ap);
    /* One line only: a message quoting file content must not break it. */
    for (char *c = err_buf; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    err_code = kind;
    return -1;
}

int err_input(const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(EXIT_BADINPUT, path, fmt, ap);
    va_end(ap);
    return -1;
}

int err_internal(const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(EXIT_INTERNAL, path, fmt, ap);
    va_end(ap);
    return -1;
}

void err_copy(int kind, const char *msg)
{
    snprintf(err_buf, sizeof err_buf, "%s", msg);
    err_code = kind;
}

const char *err_message(void) { return err_buf; }
int err_kind(void) { return err_code; }

void err_clear(void)
{
    err_buf[0] = 0;
    err_code = 0;
}

int err_report(void)
{
    int code = err_code ? err_code : EXIT_INTERNAL;
    fprintf(stderr, "%s: %s\n", prog, err_buf[0] ? err_buf : "unknown error");
    return code;
}

int log_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry '%s --help'.\n", prog);
    va_end(ap);
    return -1;
}

void log_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: warning: ", prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void log_info(const char *fmt, ...)
{
    if (quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
}

static void out_of_memory(size_t n)
{
    fprintf(stderr, "%s: out of memory (allocating %zu bytes)\n", prog, n);
    exit(EXIT_INTERNAL);
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        out_of_memory(n);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        out_of_memory(n * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        out_of_memory(n);
    return q;
}

void *xmalloc_array(size_t a, size_t b)
{
    if (b && a > (size_t)-1 / b)
        out_of_memory((size_t)-1);
    return xmalloc(a * b);
}

char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }
