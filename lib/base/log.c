#include "base/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *prog = "msprobe";
static int quiet;

void log_set_prog(const char *p) { prog = p; }
const char *log_prog(void) { return prog; }
void log_set_quiet(int q) { quiet = q; }
int log_quiet(void) { return quiet; }

static void vline(const char *kind, const char *fmt, va_list ap)
{
    flockfile(stderr);
    fprintf(stderr, "%s: %s", prog, kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    funlockfile(stderr);
}

void log_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline("", fmt, ap);
    va_end(ap);
}

void log_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline("", fmt, ap);
    va_end(ap);
    exit(1); /* EXIT_INTERNAL */
}

int log_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    flockfile(stderr);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry '%s --help'.\n", prog);
    funlockfile(stderr);
    va_end(ap);
    return -1;
}

void log_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline("warning: ", fmt, ap);
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
