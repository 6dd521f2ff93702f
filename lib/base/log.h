/* Error and message reporting shared by every subcommand.
 *
 * Library code never prints errors itself: it records one with err_input()
 * (bad input: exit status 2) or err_internal() (our own failure: exit status
 * 1) and returns -1 (or NULL).  The subcommand decides what to do with it;
 * err_report() prints the single line "msprobe <sub>: <message>" on stderr.
 * The record is thread-local, so worker threads can fail independently.
 */
#ifndef MSP_LOG_H
#define MSP_LOG_H

#include <stdarg.h>
#include <stddef.h>

enum { EXIT_OK = 0, EXIT_INTERNAL = 1, EXIT_BADINPUT = 2, EXIT_GATE = 3 };

/* "msprobe compare" etc.; used as the prefix of every message. */
void log_set_prog(const char *prog);
const char *log_prog(void);

/* Quiet mode silences log_info (progress, where results went). */
void log_set_quiet(int quiet);
int log_quiet(void);

/* Record an error about `path` (may be NULL): "path: message". Return -1. */
int err_input(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int err_internal(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Same with a va_list. kind is EXIT_BADINPUT or EXIT_INTERNAL. */
int err_vset(int kind, const char *path, const char *fmt, va_list ap);

/* Copy another thread's error record into this thread's. */
void err_copy(int kind, const char *msg);

const char *err_message(void);   /* "" when none */
int err_kind(void);              /* EXIT_BADINPUT / EXIT_INTERNAL, 0 when none */
void err_clear(void);

/* Print the recorded error as one line on stderr and return its exit status. */
int err_report(void);

/* A usage error of the current subcommand: the message and a pointer to
 * its --help on stderr. Returns -1 (the caller exits with EXIT_BADINPUT). */
int log_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Out-of-memory safe allocators: print one line and exit(EXIT_INTERNAL). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* xmalloc(a * b) with overflow check. */
void *xmalloc_array(size_t a, size_t b);

#endif
