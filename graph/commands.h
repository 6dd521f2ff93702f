/* Entry points of `msprobe graph` (with `graph view`) and `msprobe
 * graph_visualize`, for cmd/'s list of commands. */
#ifndef MSP_GRAPH_COMMANDS_H
#define MSP_GRAPH_COMMANDS_H

#include "base/command.h"

extern const command graph_command;
extern const command graph_visualize_command;

int cmd_graph(int argc, char **argv, const global_opts *g);
int cmd_graph_visualize(int argc, char **argv, const global_opts *g);

#endif
