/* Option tables: the types and macros a command declares its options with
 * (see base/opts.h for the whole story), and the walk over a table that the
 * parser, --help, the man page check and the completion scripts share. */
#ifndef MSP_OPTS_TABLE_H
#define MSP_OPTS_TABLE_H

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
    OPT_T_FLAGS,     /* unsigned = the OR of the values of the names given, comma-separated */
    OPT_T_LIST,      /* opt_list = the values that follow (argparse nargs='*', '+' or a number) */
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
    OPT_APPEND = 16,  /* OPT_LIST given again adds its values (argparse action='append'): opts_list_free() */
    OPT_INPUT = 32,   /* a main input: a path typed without an option is pointed to it */
};

/* The values of an OPT_LIST option: v[0..n) point into argv (the parser
 * points argv[i] past the '=' of --opt=value, the only form of a single
 * value in the same word); given is 1 once the option appeared, even with
 * no value (argparse: -d alone gives []). Given twice, the last one counts
 * -- unless the option has OPT_APPEND: then the values of every time add
 * up, in an array of their own (alloc) that opts_list_free() releases. */
typedef struct {
    char **v;
    int n;
    int given;
    char **alloc;
} opt_list;

void opts_list_free(opt_list *l);

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
/* unsigned field: words of `ch` separated by commas (--fail-on warning,red),
 * the OR of their values; --help lists the words. */
#define OPT_FLAGS(n, st, field, ch, meta, h, ...)                                                                    \
    {.type = OPT_T_FLAGS, .names = (n), .off = OPT_TYPED_(st, field, unsigned), .choices = (ch), .metavar = (meta), \
     .help = (h), __VA_ARGS__}
/* opt_list field: between min and max values (max -1: no limit) follow the
 * option, up to the next word that looks like an option; the metavar is
 * shown as it is ("[FILE ...]", "BENCH CMP"). */
#define OPT_LIST(n, st, field, meta, min, max, h, ...)                                                            \
    {.type = OPT_T_LIST, .names = (n), .off = OPT_TYPED_(st, field, opt_list), .metavar = (meta), .lo = (min),      \
     .hi = (max), .help = (h), __VA_ARGS__}
#define OPT_REFUSE(n, why) {.type = OPT_T_REFUSE, .names = (n), .flags = OPT_HIDDEN, .help = (why)}

/* What --help shows besides the options. */
typedef struct opts_spec {
    const char *usage;  /* lines ('\n'-separated) shown after "usage: <prog> " */
    const char *about;  /* paragraphs ("\n\n"); lines starting with a space are kept as they are */
    const opt *opts;
    const char *epilog; /* a last paragraph, e.g. the exit statuses */
    void (*more)(FILE *out); /* printed after `about`: e.g. the list of commands */
} opts_spec;

/* The next spelling of `names` from *pos (start 0): its start and length,
 * and whether it is an alias (after '|'; *alias starts at 0). Returns 0 at
 * the end. */
int opts_next_token(const char *names, size_t *pos, const char **s, size_t *len, int *alias);
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

#endif
