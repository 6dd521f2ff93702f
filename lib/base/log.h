/* Messages on the terminal, shared by every subcommand: errors (one line,
 * "msprobe <sub>: ..."), warnings, information on stdout, usage errors.
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

void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
