/* A subcommand as cmd/ dispatches it, and what every subcommand receives.
 *
 * A new subcommand is one descriptor, defined beside its handler:
 *
 *   static const opt options[] = { OPT_STRING("-i --input_path", cli, input, "DIR", "...",
 *                                             .flags = OPT_REQUIRED | OPT_DIR), ..., OPT_END() };
 *   static const opts_spec spec = {.usage = "-i DIR [-o DIR]", .about = "...", .opts = options};
 *   const command nan_analyze_command = {"nan_analyze", "overflow_check", "find the first NaN/Inf ...",
 *                                        &spec, cmd_nan_analyze};
 *
 * declared in its family's commands.h, and one line in cmd/main.c's list of
 * commands. The handler parses its argv with opts_parse(&spec, ...) and
 * stops with opts_exit_status() on anything but OPTS_RUN (help printed: 0;
 * a usage error: 2); --help, the man page check and the completion scripts
 * read the same spec. The whole recipe (man page, msprobe.1, CLI cases,
 * unit test, README), and what checks each item: docs/ARCHITECTURE.md,
 * "Adding a subcommand". */
#ifndef MSP_COMMAND_H
#define MSP_COMMAND_H

#include "base/opts.h"

/* The options given before the subcommand name (msprobe 8.x scripts write
 * `msprobe -f pytorch compare`). */
typedef struct {
    int framework;   /* 0 when not given, 'p' pytorch, 'm' mindspore */
} global_opts;

/* argv[0] is the command's name; returns the exit status. */
typedef int (*cmd_fn)(int argc, char **argv, const global_opts *g);

typedef struct command {
    const char *name;
    const char *aliases;    /* other names, space-separated (overflow_check for nan_analyze); may be NULL */
    const char *summary;    /* one line for `msprobe --help` */
    const opts_spec *spec;  /* usage lines, description, options and positional arguments */
    cmd_fn run;
} command;

#endif
