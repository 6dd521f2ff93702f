/* Entry points of the subcommands and the options that come before the
 * subcommand name (msprobe 8.x scripts write `msprobe -f pytorch compare`). */
#ifndef MSP_CMD_H
#define MSP_CMD_H

typedef struct {
    int framework;   /* 0 when not given, 'p' pytorch, 'm' mindspore */
} global_opts;

typedef int (*cmd_fn)(int argc, char **argv, const global_opts *g);

int cmd_compare(int argc, char **argv, const global_opts *g);
int cmd_merge_result(int argc, char **argv, const global_opts *g);
int cmd_parse(int argc, char **argv, const global_opts *g);

/* Help texts, for `msprobe help NAME` and `msprobe NAME --help`. */
void cmd_compare_usage(void *stream);
void cmd_merge_result_usage(void *stream);
void cmd_parse_usage(void *stream);

#endif
