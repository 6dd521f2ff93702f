/* Entry point of `msprobe nan_analyze` (alias overflow_check), for cmd/'s
 * list of commands. */
#ifndef MSP_NAN_ANALYZE_COMMANDS_H
#define MSP_NAN_ANALYZE_COMMANDS_H

#include "base/command.h"

extern const command nan_analyze_command;

int cmd_nan_analyze(int argc, char **argv, const global_opts *g);

#endif
