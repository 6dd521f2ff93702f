/* What monitor2tb and monitor2db share as commands (monitor/cmd_monitor2tb.c,
 * monitor/cmd_monitor2db.c): the options of msprobe's csv2tensorboard_by_step
 * and csv2db they both take, the policy on malformed files, and the run
 * from parsed options to outputs. */
#ifndef MSP_MONITOR_CONVERT_CLI_H
#define MSP_MONITOR_CONVERT_CLI_H

#include "monitor/convert/convert.h"
#include "base/opts.h"

typedef struct {
    conv_opts c;
    int partition;           /* monitor2db: steps per partition table */
} conv_cli;

#define OPT_MONITOR_DIR                                                                                         \
    OPT_STRING("-m --monitor_path | --monitor-path", conv_cli, c.monitor_dir, "MONITOR_DIR",                        \
               "the monitor's output directory (MONITOR_OUTPUT_DIR): one {time}-rank{R}-{id} directory per rank", \
               .flags = OPT_REQUIRED | OPT_DIR | OPT_INPUT)
#define OPT_TIME_WINDOW                                                                                            \
    OPT_STRING("--time-start | --time_start", conv_cli, c.time_start, "STAMP",                                         \
               "only run directories whose time stamp is this one or later, e.g. Dec03_21-34-40"),                \
        OPT_STRING("--time-end | --time_end", conv_cli, c.time_end, "STAMP",                                           \
                   "only run directories whose time stamp is this one or earlier")
#define OPT_CONV_COMMON                                                                                                 \
    OPT_STRING("--steps", conv_cli, c.steps, "LIST", "only these steps, e.g. 0-99 or 10,20,30-40"),                      \
        OPT_INT("-j --jobs | --process_num", conv_cli, c.jobs, "N", 1, 128,                                              \
                "threads (msprobe's process_num; default: all cores)"),                                             \
        OPT_BOOL("--skip-bad", conv_cli, c.skip_bad,                                                                     \
                 "skip a malformed csv file with a warning naming it and the line, instead of stopping"),           \
        OPT_BOOL("-q --quiet", conv_cli, c.quiet, "print nothing but errors")

#define CONV_BAD_FILE_POLICY                                                                                                    \
    "A malformed csv file (a header without vpp_stage, name or step, a row with more or fewer fields than the "   \
    "header, a step that is not an integer, a value that is not a number, a step twice for one name, a step "     \
    "outside the file name's range) stops the run with one line naming the file and line, and nothing is "        \
    "written; with --skip-bad the file is left out with a warning instead."

/* Parses argv by spec, plans the conversion and writes event files (db 0)
 * or the database (db 1); nothing is left behind on failure. The exit
 * status. */
int conv_cli_run(int argc, char **argv, const opts_spec *spec, int db);

#endif
