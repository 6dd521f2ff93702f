/* Entry point of `msprobe train_compare` (a training run gated on its
 * curves, as Megatron-LM's functional tests gate theirs), for cmd/'s list
 * of commands. */
#ifndef MSP_TRAIN_COMMANDS_H
#define MSP_TRAIN_COMMANDS_H

#include "base/command.h"

extern const command train_compare_command;

int cmd_train_compare(int argc, char **argv, const global_opts *g);

#endif
