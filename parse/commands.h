/* Entry point of `msprobe parse`, for cmd/'s list of commands. */
#ifndef MSP_PARSE_COMMANDS_H
#define MSP_PARSE_COMMANDS_H

#include "base/command.h"

extern const command parse_command;

int cmd_parse(int argc, char **argv, const global_opts *g);

#endif
