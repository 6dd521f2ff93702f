/* `msprobe merge_result`: command line (msprobe 8.x spellings). */
#include "compare/commands.h"
#include "base/log.h"
#include "base/err.h"
#include "base/opts.h"
#include "compare/merge/merge.h"

#include <string.h>

typedef struct {
    const char *input_dir, *output_dir, *config;
    int quiet;
} cli;

static const opt options[] = {
    OPT_STRING("-i --input_dir", cli, input_dir, "DIR", "the directory of per-rank compare results",
               .flags = OPT_REQUIRED | OPT_DIR | OPT_INPUT),
    OPT_STRING("-o --output_dir", cli, output_dir, "DIR", "where the merged workbook goes (created if needed)",
               .flags = OPT_REQUIRED | OPT_DIR),
    OPT_STRING("-config --config-path", cli, config, "FILE", "the .yaml (or .yml) config described above",
               .flags = OPT_REQUIRED | OPT_FILE),
    OPT_BOOL("-q --quiet", cli, quiet, "print nothing but errors and warnings"),
    OPT_END(),
};

static const opts_spec spec = {
    .usage = "-i INPUT_DIR -o OUTPUT_DIR -config FILE [-q]",
    .about = "Collect chosen APIs from the per-rank compare results of INPUT_DIR "
             "(compare_result_rank{N}_{timestamp}.xlsx, msprobe's compare_result_rank{N}-rank{N}_{timestamp}.xlsx, "
             "or our compare_result_rank{N}_{timestamp}.csv) into "
             "OUTPUT_DIR/multi_ranks_compare_merge_{timestamp}.xlsx: one sheet per compare index, a column per "
             "rank in rank order.\n"
             "\n"
             "The config (YAML) lists in api the name prefixes of the APIs to take (a row is taken when its "
             "NPU Name contains a prefix followed by \".\") and in compare_index, optionally, the indexes to merge "
             "(default: every index of the results' mode):\n"
             "\n"
             "  api:\n"
             "  - Distributed.all_reduce\n"
             "  compare_index:\n"
             "  - Max diff",
    .opts = options,
    .epilog = "Exit status: 0 done, 2 bad input or usage, 1 internal error.",
};

const command merge_result_command = {
    "merge_result", NULL, "merge chosen APIs of per-rank compare results into one workbook", &spec, cmd_merge_result,
};

int cmd_merge_result(int argc, char **argv, const global_opts *g)
{
    cli o;
    memset(&o, 0, sizeof o);
    opts_result pr = opts_parse(&spec, argc, argv, &o, 0, NULL);
    if (pr != OPTS_RUN)
        return opts_exit_status(pr);
    if (o.quiet)
        log_set_quiet(1);
    merge_opts m = {o.input_dir, o.output_dir, o.config};
    return merge_result_run(&m);
}
