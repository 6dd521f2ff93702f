/* What every subcommand receives: the options given before the subcommand
 * name (msprobe 8.x scripts write `msprobe -f pytorch compare`). */
#ifndef MSP_COMMAND_H
#define MSP_COMMAND_H

typedef struct {
    int framework;   /* 0 when not given, 'p' pytorch, 'm' mindspore */
} global_opts;

typedef int (*cmd_fn)(int argc, char **argv, const global_opts *g);

#endif
