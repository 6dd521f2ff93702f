/* Entry points of the compare family, for cmd/'s dispatch table. */
#ifndef MSP_COMPARE_COMMANDS_H
#define MSP_COMPARE_COMMANDS_H

#include "base/command.h"

int cmd_compare(int argc, char **argv, const global_opts *g);
int cmd_merge_result(int argc, char **argv, const global_opts *g);
void cmd_compare_usage(void *stream);
void cmd_merge_result_usage(void *stream);

#endif
