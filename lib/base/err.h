/* Errors as values.
 *
 * Library code never prints an error: it records one — its cause and a
 * one-line message naming the file — and returns -1 (or NULL). The record
 * belongs to the calling thread, so workers fail independently; a worker's
 * error travels to another thread as an err_record (err_take/err_restore),
 * which pool_run() does for parallel work. The subcommand finally prints it
 * with err_report(): "msprobe <sub>: <path>: <message>", exit status 2 for
 * anything wrong with the input or the command line, 1 for our own failure.
 * Messages have no length limit.
 */
#ifndef MSP_ERR_H
#define MSP_ERR_H

#include <stdarg.h>

enum { EXIT_OK = 0, EXIT_INTERNAL = 1, EXIT_BADINPUT = 2, EXIT_GATE = 3 };

/* Why something failed: callers may treat a missing file differently from a
 * corrupt one. Every cause but ERR_INTERNAL is exit status 2. */
enum err_cause {
    ERR_NONE = 0,
    ERR_USAGE,       /* the command line or an option file is wrong */
    ERR_MISSING,     /* a path does not exist */
    ERR_UNREADABLE,  /* it exists but cannot be read: permission, a link, a directory, a device */
    ERR_MALFORMED,   /* it was read and is not what it should be */
    ERR_LIMIT,       /* over a stated limit: size, depth, count, ratio */
    ERR_CHANGED,     /* it changed while we read it (truncated by another process) */
    ERR_OUTPUT,      /* an output cannot be written: full disk, not writable, exists as something else */
    ERR_INTERNAL,    /* our own failure */
};

/* Record an error about `path` (may be NULL): "path: message". Return -1. */
int err_set(int cause, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int err_vset(int cause, const char *path, const char *fmt, va_list ap);
/* Shorthands: bad input (ERR_MALFORMED) and our own failure (ERR_INTERNAL). */
int err_input(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int err_internal(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int err_cause(void);             /* ERR_NONE when no error is recorded */
const char *err_message(void);   /* "" when none */
int err_kind(void);              /* exit status of the recorded error: 0, EXIT_BADINPUT or EXIT_INTERNAL */
/* Whether the recorded error ends a run even where a failure to read is
 * otherwise reported and passed over (a tensor file msprobe shows as "not
 * found or read failed"): the file changed while it was read, so its
 * result would be made of zeros or half a tensor. A file over a stated
 * limit (a zip bomb, 2^48 elements) is one more unreadable file: one bad
 * file is one bad row. */
int err_is_fatal(void);
void err_clear(void);
const char *err_cause_name(int cause);  /* "missing", "malformed", ... */

/* An error moved out of a thread. */
typedef struct {
    int cause;
    char *msg;                   /* malloc'ed; NULL when cause == ERR_NONE */
} err_record;

/* Move this thread's error into *rec (the thread is left without one). */
void err_take(err_record *rec);
/* Make *rec this thread's error (replacing any) and empty *rec. Returns -1. */
int err_restore(err_record *rec);
void err_record_free(err_record *rec);

/* Print the recorded error as one line on stderr (after clearing any
 * progress line) and return its exit status (EXIT_INTERNAL when none). */
int err_report(void);

#endif
