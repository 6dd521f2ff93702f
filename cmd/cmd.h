/* What cmd/'s files share: the list of commands and the top-level options,
 * for dispatch (main.c) and for the completion scripts (completion.c). */
#ifndef MSP_CMD_H
#define MSP_CMD_H

#include "base/command.h"

#include <stddef.h>

/* Every subcommand, in the order `msprobe --help` lists them. */
const command *const *cmd_list(size_t *n);
/* `msprobe` itself: options before the command (-f), usage, help. */
extern const opts_spec msprobe_spec;
extern const command completion_command;

#endif
