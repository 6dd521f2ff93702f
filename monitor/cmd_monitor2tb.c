/* `msprobe monitor2tb`: the options of msprobe 8.1.0's csv2tensorboard_by_step
 * as a command line, then the conversion (monitor/convert/). */
#include "monitor/commands.h"
#include "monitor/convert/convert_cli.h"

static const opt tb_options[] = {
    OPT_MONITOR_DIR,
    OPT_STRING("-o --output_dirpath | --output", conv_cli, c.out_dir, "OUT_DIR",
               "where rank{R}/{type}/events.out.tfevents.* go (default: "
               "MONITOR_DIR/{time}-csv2tensorboard_by_step)",
               .flags = OPT_DIR),
    OPT_STRING("--types | --data_type_list", conv_cli, c.types, "LIST",
               "data types, comma-separated: actv, actv_grad, exp_avg, exp_avg_sq, grad_unreduced, grad_reduced, "
               "param_origin, param_updated (default: all)"),
    OPT_TIME_WINDOW,
    OPT_CONV_COMMON,
    OPT_END(),
};

static const opts_spec tb_spec = {
    .usage = "-m MONITOR_DIR [-o OUT_DIR] [--types LIST] [--time-start STAMP] [--time-end STAMP] [--steps LIST] "
             "[-j N]",
    .about = "Convert the csv files of msprobe's training monitor into TensorBoard event files, as msprobe 8.1.0's "
             "csv2tensorboard_by_step does: one event file per rank and data type, "
             "OUT_DIR/rank{R}/{type}/events.out.tfevents.*, with one scalar per value tagged "
             "vp{vpp_stage}:{name}[:micro{micro_step}]/{op}.\n\n" CONV_BAD_FILE_POLICY,
    .opts = tb_options,
    .epilog = "Exit status: 0 done, 2 bad input or usage (nothing written), 1 internal error.",
};

const command monitor2tb_command = {
    "monitor2tb", "csv2tb", "monitor csv files to TensorBoard event files (csv2tensorboard_by_step)", &tb_spec,
    cmd_monitor2tb,
};
int cmd_monitor2tb(int argc, char **argv, const global_opts *g) { return conv_cli_run(argc, argv, &tb_spec, 0); }
