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

#include "base/strbuf.h"

#include <stddef.h>
#include <stdio.h>

enum opt_type {
    OPT_T_END = 0,
    OPT_T_GROUP,     /* a heading in --help */
    OPT_T_SET,       /* int = value */
    OPT_T_STRING,    /* const char * = the value */
    OPT_T_OPTSTRING, /* const char * = the value, or def when none follows (argparse nargs='?') */
    OPT_T_INT,       /* int in [lo, hi] */
    OPT_T_CHOICE,    /* int = the value of the chosen name */
    OPT_T_REFUSE,    /* an option of msprobe's we do not offer: fails with `help` as the reason */
    OPT_T_HELP,      /* built in */
    OPT_T_VERSION,
    OPT_T_HELP_MAN,
};

enum {
    OPT_REQUIRED = 1, /* must be given (argparse required=True) */
    OPT_HIDDEN = 2,   /* accepted when typed in full, not shown */
    OPT_FILE = 4,     /* the value is a path: complete file names */
    OPT_DIR = 8,      /* the value is a directory: complete directory names */
};

/* One name an OPT_CHOICE takes; `refusal`, when set, is why we refuse it. */
typedef struct {
    const char *name;
    int value;
    const char *refusal;
} opt_choice;

typedef struct opt {
    int type;
    int flags;
    const char *names;
    size_t off;          /* where the value goes in the caller's struct */
    size_t set_off;      /* OPT_T_OPTSTRING: offset + 1 of an int set to 1 when given; 0: none */
    const char *metavar; /* "PATH"; choices are shown as "a|b" */
    const char *help;    /* one line (wrapped by --help); OPT_T_REFUSE: the reason */
    const char *def;     /* default, as text: set before parsing and shown by --help */
    long long value, lo, hi;
    const opt_choice *choices; /* ends with a NULL name */
} opt;

/* Compile-time check that `field` of `st` has type `type`. */
#define OPT_TYPED_(st, field, type) (offsetof(st, field) + 0 * sizeof(_Generic(&((st *)0)->field, type *: 1)))

#define OPT_GROUP(title) {.type = OPT_T_GROUP, .help = (title)}
#define OPT_END() {.type = OPT_T_END}
/* Flags: int field set to 1 (OPT_BOOL) or to a value. */
#define OPT_BOOL(n, st, field, h, ...) \
    {.type = OPT_T_SET, .names = (n), .off = OPT_TYPED_(st, field, int), .value = 1, .help = (h), __VA_ARGS__}
#define OPT_SET_INT(n, st, field, v, h, ...) \
    {.type = OPT_T_SET, .names = (n), .off = OPT_TYPED_(st, field, int), .value = (v), .help = (h), __VA_ARGS__}
/* const char * field; the strings are argv's own. */
#define OPT_STRING(n, st, field, meta, h, ...)                                                                     \
    {.type = OPT_T_STRING, .names = (n), .off = OPT_TYPED_(st, field, const char *), .metavar = (meta), .help = (h), \
     __VA_ARGS__}
#define OPT_OPTSTRING(n, st, field, meta, h, ...)                                                            \
    {.type = OPT_T_OPTSTRING, .names = (n), .off = OPT_TYPED_(st, field, const char *), .metavar = (meta), \
     .help = (h), __VA_ARGS__}
/* With OPT_OPTSTRING: an int field that becomes 1 when the option is given. */
#define OPT_ALSO_SETS(st, field) .set_off = OPT_TYPED_(st, field, int) + 1
#define OPT_INT(n, st, field, meta, min, max, h, ...)                                                              \
    {.type = OPT_T_INT, .names = (n), .off = OPT_TYPED_(st, field, int), .metavar = (meta), .lo = (min), .hi = (max), \
     .help = (h), __VA_ARGS__}
#define OPT_CHOICE(n, st, field, ch, h, ...) \
    {.type = OPT_T_CHOICE, .names = (n), .off = OPT_TYPED_(st, field, int), .choices = (ch), .help = (h), __VA_ARGS__}
#define OPT_REFUSE(n, why) {.type = OPT_T_REFUSE, .names = (n), .flags = OPT_HIDDEN, .help = (why)}

/* What --help shows besides the options. */
typedef struct opts_spec {
    const char *usage;  /* lines ('\n'-separated) shown after "usage: <prog> " */
    const char *about;  /* paragraphs ("\n\n"); lines starting with a space are kept as they are */
    const opt *opts;
    const char *epilog; /* a last paragraph, e.g. the exit statuses */
    void (*more)(FILE *out); /* printed after `about`: e.g. the list of commands */
} opts_spec;

enum {
    OPTS_STOP_AT_ARG = 1, /* stop at the first argument that is not an option (global options) */
    OPTS_NO_REPORT = 2,   /* leave a usage error recorded (err.h) instead of printing it */
};

/* Parse argv[1..argc) into dest (the table's defaults are set first; other
 * fields are left as the caller set them). Returns 0 when the command
 * should run, 1 when --help or --version was printed (exit 0), -1 on a
 * usage error, printed as one line and "Try '<prog> --help'." (or recorded,
 * OPTS_NO_REPORT). With OPTS_STOP_AT_ARG, *next is the index of the first
 * argument (argc when none). Messages and help name log_prog(). */
int opts_parse(const opts_spec *spec, int argc, char **argv, void *dest, int flags, int *next);

/* Help text, at most OPTS_WIDTH columns; option help starts in column
 * OPTS_HELP_COL. */
enum { OPTS_WIDTH = 80, OPTS_HELP_COL = 30 };
void opts_help(const opts_spec *spec, FILE *out);
/* "  TAG   TEXT", TEXT wrapped from column `col` on (TAG alone on its line
 * when it is too long); for lists like the commands. */
void opts_item(FILE *out, const char *tag, const char *text, int col);
/* TEXT wrapped to OPTS_WIDTH columns, every line indented by `indent`. */
void opts_wrap(FILE *out, const char *text, int indent);
void opts_version(FILE *out);
/* The tag lines (.TP) a man page's OPTIONS section must have, in order. */
void opts_man_tags(const opts_spec *spec, FILE *out);

/* Walking a table: the shown spellings of o, one per call ("-o", then
 * "--output_path"); returns 0 when there are no more. *pos starts at 0. */
int opts_next_name(const opt *o, size_t *pos, char *buf, size_t cap);
/* Every entry of spec: its own, then the built-in ones (-h, -V, --help-man);
 * a malloc'ed array of *n pointers. */
const opt **opts_entries(const opts_spec *spec, size_t *n);
int opts_takes_value(const opt *o);
int opts_is_positional(const opt *o);
/* An option (not a positional argument, not a group heading). */
int opts_is_option(const opt *o);
/* The choices of a table entry a user may give, "a, b or c" style. */
void opts_choice_list(strbuf *sb, const opt_choice *c, const char *sep, const char *last);
/* Room for one spelling of an option name. */
enum { OPTS_NAME_MAX = 128 };

/* How far `typed` is from `cand` for a "did you mean": a small number when
 * one could be a slip for the other, -1 when they are unrelated. */
int opts_similarity(const char *typed, const char *cand);
/* Append "; did you mean 'a' or 'b'?" naming the closest of names[0..n)
 * (at most three, all equally close), or nothing when none is close. */
void opts_did_you_mean(strbuf *sb, const char *typed, const char *const *names, size_t n);

#endif
