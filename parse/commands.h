/* Entry point of `msprobe parse`, for cmd/'s dispatch table. */
#ifndef MSP_PARSE_COMMANDS_H
#define MSP_PARSE_COMMANDS_H

#include "base/command.h"

int cmd_parse(int argc, char **argv, const global_opts *g);
void cmd_parse_usage(void *stream);

#endif
