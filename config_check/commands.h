/* Entry points of the config_check family, for cmd/'s list of commands. */
#ifndef MSP_CONFIG_CHECK_COMMANDS_H
#define MSP_CONFIG_CHECK_COMMANDS_H

#include "base/command.h"

extern const command config_check_command;
extern const command ckpt_compare_command;

int cmd_config_check(int argc, char **argv, const global_opts *g);
int cmd_ckpt_compare(int argc, char **argv, const global_opts *g);

#endif
