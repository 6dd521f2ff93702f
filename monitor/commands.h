/* The training-monitor and trend commands, for cmd/'s list of commands:
 * anomaly (msprobe's anomaly_processor), monitor2tb (csv2tensorboard_by_step),
 * monitor2db (csv2db), data2db (the newest msprobe's) and monitor summary. */
#ifndef MSP_MONITOR_COMMANDS_H
#define MSP_MONITOR_COMMANDS_H

#include "base/command.h"

extern const command anomaly_command;
extern const command monitor2tb_command;
extern const command monitor2db_command;
extern const command data2db_command;
extern const command monitor_command;

int cmd_anomaly(int argc, char **argv, const global_opts *g);
int cmd_monitor2tb(int argc, char **argv, const global_opts *g);
int cmd_monitor2db(int argc, char **argv, const global_opts *g);
int cmd_data2db(int argc, char **argv, const global_opts *g);
int cmd_monitor(int argc, char **argv, const global_opts *g);

#endif
