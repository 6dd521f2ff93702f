/* `msprobe monitor2db`: the options of msprobe 8.3.3's csv2db as a command
 * line, then the conversion (monitor/convert/). */
#include "monitor/commands.h"
#include "monitor/convert/convert_cli.h"

static const opt db_options[] = {
    OPT_MONITOR_DIR,
    OPT_STRING("-o --output_dirpath | --output", conv_cli, c.out_dir, "OUT_DIR",
               "where monitor_metrics.db goes (default: MONITOR_DIR/{time}-csv2db)", .flags = OPT_DIR),
    OPT_STRING("--types | --data_type_list", conv_cli, c.types, "LIST",
               "data types, comma-separated: actv, actv_grad, exp_avg, exp_avg_sq, grad_unreduced, grad_reduced, "
               "param_origin, param_updated, other (default: all)"),
    OPT_INT("--partition | --step_partition", conv_cli, partition, "N", 10, 10000000,
            "steps per partition table, 10 to 10,000,000", .def = "500"),
    OPT_TIME_WINDOW,
    OPT_CONV_COMMON,
    OPT_END(),
};

static const opts_spec db_spec = {
    .usage = "-m MONITOR_DIR [-o OUT_DIR] [--types LIST] [--partition N] [--time-start STAMP] [--time-end STAMP] "
             "[--steps LIST] [-j N]",
    .about = "Convert the csv files of msprobe's training monitor into one SQLite database, "
             "OUT_DIR/monitor_metrics.db, with the schema of msprobe 8.3.3's csv2db: monitoring_targets, "
             "monitoring_metrics, metric_stats, global_stats and one table per metric and partition of steps, "
             "metric_{id}_step_{first}_{last}.\n\n" CONV_BAD_FILE_POLICY,
    .opts = db_options,
    .epilog = "Exit status: 0 done, 2 bad input or usage (nothing written), 1 internal error.",
};

const command monitor2db_command = {
    "monitor2db", "csv2db", "monitor csv files to a SQLite database (csv2db)", &db_spec, cmd_monitor2db,
};

int cmd_monitor2db(int argc, char **argv, const global_opts *g) { return conv_cli_run(argc, argv, &db_spec, 1); }
