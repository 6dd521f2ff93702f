/* Entry points of the compare family, for cmd/'s list of commands. */
#ifndef MSP_COMPARE_COMMANDS_H
#define MSP_COMPARE_COMMANDS_H

#include "base/command.h"

extern const command compare_command;
extern const command merge_result_command;

int cmd_compare(int argc, char **argv, const global_opts *g);
int cmd_merge_result(int argc, char **argv, const global_opts *g);

#endif
