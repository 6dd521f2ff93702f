/* Command-line options from one table per command, in the manner of git's
 * parse-options and Python's argparse (whose command lines msprobe users
 * type): the table gives each option its spellings, value kind, default,
 * metavar and help line, and from it come the parser, --help, the man page
 * check (--help-man) and the shell completion scripts.
 *
 *   typedef struct { const char *out; int stack, jobs; } cli;
 *   static const opt options[] = {
 *       OPT_STRING("-o --output_path", cli, out, "DIR", "output directory", .def = "./output"),
 *       OPT_BOOL("-s --stack_mode", cli, stack, "add the stack column"),
 *       OPT_INT("-j --jobs", cli, jobs, "N", 1, 4096, "jobs at once"),
 *       OPT_END(),
 *   };
 *
 * Spellings: `names` lists them separated by spaces: single-dash ones of
 * any length (-o, -tp, -tensor_log, as argparse allows) and double-dash
 * ones. Those after a '|' are aliases: accepted when typed in full, never
 * shown, completed or abbreviated. A name without a dash is a positional
 * argument (OPT_STRING / OPT_CHOICE only), filled in table order.
 *
 * Parsing follows argparse: `--opt=value` and `--opt value`; a single-letter
 * option takes an attached value (-j4); a unique prefix of a spelling stands
 * for it (--stack for --stack_mode, -tens for -tensor_log; an exact match
 * wins; a prefix of several options is refused naming them); `--` ends the
 * options; a token starting with '-' (but "-" and negative numbers) is
 * never taken as a value; an unknown option gets a "did you mean". Every
 * command also has -h/--help, -V/--version and the hidden --help-man.
 */
#ifndef MSP_OPTS_H
#define MSP_OPTS_H

#include "base/opts_help.h"
#include "base/opts_table.h"
#include "base/strbuf.h"

enum {
    OPTS_STOP_AT_ARG = 1, /* stop at the first argument that is not an option (global options) */
    OPTS_NO_REPORT = 2,   /* leave a usage error recorded (err.h) instead of printing it */
};

/* What opts_parse() found. Every command maps it to its exit status the
 * same way, with opts_exit_status():
 *
 *   opts_result r = opts_parse(&spec, argc, argv, &o, 0, NULL);
 *   if (r != OPTS_RUN)
 *       return opts_exit_status(r);
 *
 * A command that checks more of its command line after opts_parse() (two
 * options given together) reports that as OPTS_USAGE_ERROR too. */
typedef enum {
    OPTS_USAGE_ERROR = -1, /* the command line is wrong: reported (or recorded), exit status 2 */
    OPTS_RUN = 0,          /* the command runs */
    OPTS_DONE = 1,         /* --help, --version or --help-man was printed: exit status 0 */
} opts_result;

/* Parse argv[1..argc) into dest (the table's defaults are set first; other
 * fields are left as the caller set them). A usage error is printed as one
 * line and "Try '<prog> --help'." (or recorded, OPTS_NO_REPORT). With
 * OPTS_STOP_AT_ARG, *next is the index of the first argument (argc when
 * none). Messages and help name log_prog(). */
opts_result opts_parse(const opts_spec *spec, int argc, char **argv, void *dest, int flags, int *next);

/* The exit status of a command whose option parsing ended in r: EXIT_OK
 * (0) for OPTS_DONE, EXIT_BADINPUT (2) for OPTS_USAGE_ERROR; OPTS_RUN is
 * no reason to stop, and gives EXIT_INTERNAL (1). */
int opts_exit_status(opts_result r);

/* How far `typed` is from `cand` for a "did you mean": a small number when
 * one could be a slip for the other, -1 when they are unrelated. */
int opts_similarity(const char *typed, const char *cand);
/* Append "; did you mean 'a' or 'b'?" naming the closest of names[0..n)
 * (at most three, all equally close), or nothing when none is close. */
void opts_did_you_mean(strbuf *sb, const char *typed, const char *const *names, size_t n);

#endif
