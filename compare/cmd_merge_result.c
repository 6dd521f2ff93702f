/* `msprobe merge_result`: command line (msprobe 8.x spellings). */
#include "compare/commands.h"
#include "base/log.h"
#include "base/err.h"
#include "compare/merge/merge.h"

#include <stdio.h>
#include <string.h>

void cmd_merge_result_usage(void *stream)
{
    fprintf(stream,
            "usage: msprobe merge_result -i INPUT_DIR -o OUTPUT_DIR -config CONFIG.yaml [-q]\n"
            "       msprobe -f pytorch|mindspore merge_result -i INPUT_DIR -o OUTPUT_DIR -config CONFIG.yaml\n"
            "\n"
            "Collect chosen APIs from the per-rank compare results of INPUT_DIR\n"
            "(compare_result_rank{N}_{timestamp}.xlsx, msprobe's compare_result_rank{N}-rank{N}_{timestamp}.xlsx,\n"
            "or our compare_result_rank{N}_{timestamp}.csv) into OUTPUT_DIR/multi_ranks_compare_merge_{timestamp}.xlsx:\n"
            "one sheet per compare index, a column per rank in rank order.\n"
            "\n"
            "CONFIG.yaml:\n"
            "  api:              # name prefixes: a row is taken when its NPU Name contains PREFIX + \".\"\n"
            "  - Distributed.all_reduce\n"
            "  compare_index:    # optional; default: every index of the results' mode\n"
            "  - Max diff\n"
            "\n"
            "options:\n"
            "  -i, --input_dir DIR              directory of compare results (statistics or tensor mode)\n"
            "  -o, --output_dir DIR             where the merged workbook goes (created if needed)\n"
            "  -config, --config-path FILE      the .yaml (or .yml) config above\n"
            "  -q, --quiet                      print nothing but errors and warnings\n"
            "  -h, --help                       this help\n"
            "\n"
            "Exit status: 0 done, 2 bad input or usage, 1 internal error.\n");
}

int cmd_merge_result(int argc, char **argv, const global_opts *g)
{
    merge_opts o = {NULL, NULL, NULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **dest = NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            cmd_merge_result_usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            log_set_quiet(1);
            continue;
        } else if (!strcmp(a, "-i") || !strcmp(a, "--input_dir")) {
            dest = &o.input_dir;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output_dir")) {
            dest = &o.output_dir;
        } else if (!strcmp(a, "-config") || !strcmp(a, "--config-path")) {
            dest = &o.config;
        } else {
            log_usage(a[0] == '-' ? "unknown option '%s'" : "unexpected argument '%s'", a);
            return EXIT_BADINPUT;
        }
        if (i + 1 >= argc) {
            log_usage("%s needs a value", a);
            return EXIT_BADINPUT;
        }
        *dest = argv[++i];
    }
    if (!o.input_dir || !o.output_dir || !o.config) {
        log_usage("the input directory (-i), the output directory (-o) and the config (-config) are all needed");
        return EXIT_BADINPUT;
    }
    return merge_result_run(&o);
}
