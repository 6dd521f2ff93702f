/* Messages on the terminal, shared by every subcommand: errors (one line,
 * "msprobe <sub>: ..."), warnings, information on stdout, usage errors, and
 * the one status line that progress.h draws.
 *
 * Every line on stderr goes through here, so that a message never shares a
 * line with the status line: the status line is cleared first (it comes
 * back on its next redraw). All output happens under one mutex that is held
 * only around write(2) calls, so no thread can deadlock on it; not for
 * signal handlers (a handler that interrupts a holder would wait forever).
 */
#ifndef MSP_LOG_H
#define MSP_LOG_H

#include <stdarg.h>
#include <stddef.h>


/* "msprobe compare" etc.; used as the prefix of every message. */
void log_set_prog(const char *prog);
const char *log_prog(void);

/* Quiet mode: errors only (no information, no warnings, no progress). */
void log_set_quiet(int quiet);
int log_quiet(void);

/* "msprobe <sub>: <message>" on stderr. */
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same, then exit(EXIT_INTERNAL): for out of memory and the like. */
_Noreturn void log_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A usage error of the current subcommand: the message and a pointer to
 * its --help on stderr. Returns -1 (the caller exits with EXIT_BADINPUT). */
int log_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "msprobe <sub>: warning: <message>" on stderr; nothing under -q. */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "msprobe <sub>: <message>" on stderr, nothing under -q: diagnostics the
 * user asked for (phase times). */
void log_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Warnings that may come by the thousand (one per missing tensor file):
 * `kind` names them in the plural ("tensor files missing") and must live as
 * long as the process (a literal). The first LOG_WARN_SHOWN of each kind are
 * printed like log_warn(), the others only counted; log_warn_totals() then
 * prints "... and 54 more tensor files missing" for each kind over the cap
 * and starts the counts afresh. A subcommand calls it when its run ends. */
#define LOG_WARN_SHOWN 5
void log_warn_as(const char *kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_warn_totals(void);
/* How many warnings of `kind` came since the last log_warn_totals(). */
size_t log_warn_count(const char *kind);

/* The status line (progress.c draws it): `text` replaces what is shown
 * (nothing is written when it is shown already), NULL clears it. Not drawn
 * while another writer has left the cursor in the middle of a line.
 * Returns whether the line is now on the terminal. */
int log_status(const char *text);

/* Called once by main, before any other thread exists: stdio's stderr
 * becomes a stream that writes through here, so that what libraries print
 * with fprintf(stderr, ...) also clears the status line first, and a thread
 * can silence them (log_mute_thread) without touching file descriptor 2,
 * which other threads keep using. Returns 0, or -1 (stderr unchanged). */
int log_own_stderr(void);
/* While on, what this thread prints through stdio's stderr is dropped: for
 * a library call that reports its failure in its return value as well as
 * on stderr (libxlsxwriter). Effective only after log_own_stderr(). */
void log_mute_thread(int on);

#endif
