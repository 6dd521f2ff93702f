/* `msprobe monitor2tb` and `msprobe monitor2db`: the options of msprobe's
 * csv2tensorboard_by_step (8.1.0) and csv2db (8.3.3) Python functions as a
 * command line, then the conversion (monitor/convert/). */
#include "monitor/commands.h"
#include "monitor/convert/convert_run.h"
#include "base/err.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/opts.h"
#include "base/outdir.h"
#include "base/pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    conv_opts c;
    int partition;
} cli;

#define OPT_MONITOR_DIR                                                                                         \
    OPT_STRING("-m --monitor_path | --monitor-path", cli, c.monitor_dir, "MONITOR_DIR",                        \
               "the monitor's output directory (MONITOR_OUTPUT_DIR): one {time}-rank{R}-{id} directory per rank", \
               .flags = OPT_REQUIRED | OPT_DIR)
#define OPT_TIME_WINDOW                                                                                            \
    OPT_STRING("--time-start | --time_start", cli, c.time_start, "STAMP",                                         \
               "only run directories whose time stamp is this one or later, e.g. Dec03_21-34-40"),                \
        OPT_STRING("--time-end | --time_end", cli, c.time_end, "STAMP",                                           \
                   "only run directories whose time stamp is this one or earlier")
#define OPT_COMMON                                                                                                 \
    OPT_STRING("--steps", cli, c.steps, "LIST", "only these steps, e.g. 0-99 or 10,20,30-40"),                      \
        OPT_INT("-j --jobs | --process_num", cli, c.jobs, "N", 1, 128,                                              \
                "threads (msprobe's process_num; default: all cores)"),                                             \
        OPT_BOOL("--skip-bad", cli, c.skip_bad,                                                                     \
                 "skip a malformed csv file with a warning naming it and the line, instead of stopping"),           \
        OPT_BOOL("-q --quiet", cli, c.quiet, "print nothing but errors")

static const opt tb_options[] = {
    OPT_MONITOR_DIR,
    OPT_STRING("-o --output_dirpath | --output", cli, c.out_dir, "OUT_DIR",
               "where rank{R}/{type}/events.out.tfevents.* go (default: "
               "MONITOR_DIR/{time}-csv2tensorboard_by_step)",
               .flags = OPT_DIR),
    OPT_STRING("--types | --data_type_list", cli, c.types, "LIST",
               "data types, comma-separated: actv, actv_grad, exp_avg, exp_avg_sq, grad_unreduced, grad_reduced, "
               "param_origin, param_updated (default: all)"),
    OPT_TIME_WINDOW,
    OPT_COMMON,
    OPT_END(),
};

static const opt db_options[] = {
    OPT_MONITOR_DIR,
    OPT_STRING("-o --output_dirpath | --output", cli, c.out_dir, "OUT_DIR",
               "where monitor_metrics.db goes (default: MONITOR_DIR/{time}-csv2db)", .flags = OPT_DIR),
    OPT_STRING("--types | --data_type_list", cli, c.types, "LIST",
               "data types, comma-separated: actv, actv_grad, exp_avg, exp_avg_sq, grad_unreduced, grad_reduced, "
               "param_origin, param_updated, other (default: all)"),
    OPT_INT("--partition | --step_partition", cli, partition, "N", 10, 10000000,
            "steps per partition table, 10 to 10,000,000", .def = "500"),
    OPT_TIME_WINDOW,
    OPT_COMMON,
    OPT_END(),
};

#define POLICY                                                                                                    \
    "A malformed csv file (a header without vpp_stage, name or step, a row with more or fewer fields than the "   \
    "header, a step that is not an integer, a value that is not a number, a step twice for one name, a step "     \
    "outside the file name's range) stops the run with one line naming the file and line, and nothing is "        \
    "written; with --skip-bad the file is left out with a warning instead."

static const opts_spec tb_spec = {
    .usage = "-m MONITOR_DIR [-o OUT_DIR] [--types LIST] [--time-start STAMP] [--time-end STAMP] [--steps LIST] "
             "[-j N]",
    .about = "Convert the csv files of msprobe's training monitor into TensorBoard event files, as msprobe 8.1.0's "
             "csv2tensorboard_by_step does: one event file per rank and data type, "
             "OUT_DIR/rank{R}/{type}/events.out.tfevents.*, with one scalar per value tagged "
             "vp{vpp_stage}:{name}[:micro{micro_step}]/{op}.\n\n" POLICY,
    .opts = tb_options,
    .epilog = "Exit status: 0 done, 2 bad input or usage (nothing written), 1 internal error.",
};

static const opts_spec db_spec = {
    .usage = "-m MONITOR_DIR [-o OUT_DIR] [--types LIST] [--partition N] [--time-start STAMP] [--time-end STAMP] "
             "[--steps LIST] [-j N]",
    .about = "Convert the csv files of msprobe's training monitor into one SQLite database, "
             "OUT_DIR/monitor_metrics.db, with the schema of msprobe 8.3.3's csv2db: monitoring_targets, "
             "monitoring_metrics, metric_stats, global_stats and one table per metric and partition of steps, "
             "metric_{id}_step_{first}_{last}.\n\n" POLICY,
    .opts = db_options,
    .epilog = "Exit status: 0 done, 2 bad input or usage (nothing written), 1 internal error.",
};

const command monitor2tb_command = {
    "monitor2tb", "csv2tb", "monitor csv files to TensorBoard event files (csv2tensorboard_by_step)", &tb_spec,
    cmd_monitor2tb,
};
const command monitor2db_command = {
    "monitor2db", "csv2db", "monitor csv files to a SQLite database (csv2db)", &db_spec, cmd_monitor2db,
};

static int run(int argc, char **argv, const opts_spec *spec, int db)
{
    cli o;
    memset(&o, 0, sizeof o);
    o.c.jobs = pool_cpus();
    int prc = opts_parse(spec, argc, argv, &o, 0, NULL);
    if (prc)
        return prc > 0 ? EXIT_OK : EXIT_BADINPUT;
    if (o.c.quiet)
        log_set_quiet(1);
    unsigned allowed = db ? (1u << MT_COUNT) - 1 : ((1u << MT_COUNT) - 1) & ~(1u << MT_OTHER);
    conv_plan p;
    if (conv_plan_make(&o.c, allowed, &p) != 0)
        return err_report();
    int status = EXIT_OK;
    char *out = NULL;
    out_run *outputs = out_run_new();
    if (p.nfiles == 0) {
        err_input(o.c.monitor_dir, "%s",
                  p.runs.n ? "the run directories hold no csv files of the chosen data types and steps"
                           : "holds no monitor run directory ({time}-rank{R}-{id}) in the chosen time window");
        status = err_report();
        goto done;
    }
    out = o.c.out_dir ? xstrdup(o.c.out_dir)
                      : conv_default_out(o.c.monitor_dir, db ? "csv2db" : "csv2tensorboard_by_step");
    if (out_run_mkdir(outputs, out) != 0 ||
        (db ? conv_db(&o.c, &p, out, o.partition, outputs) : conv_tb(&o.c, &p, out, outputs)) != 0)
        status = err_report();
done:
    if (status != EXIT_OK)
        out_run_rollback(outputs);
    out_run_free(outputs);
    free(out);
    conv_plan_free(&p);
    return status;
}

int cmd_monitor2tb(int argc, char **argv, const global_opts *g) { return run(argc, argv, &tb_spec, 0); }
int cmd_monitor2db(int argc, char **argv, const global_opts *g) { return run(argc, argv, &db_spec, 1); }
