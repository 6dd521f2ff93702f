/* `msprobe nan_analyze` (the newest msprobe's `overflow_check`): the first
 * node that produced NaN/Inf in a distributed run, for each step given. */
#include "nan_analyze/commands.h"
#include "nan_analyze/nan.h"
#include "model/dumptree.h"
#include "model/table.h"
#include "base/err.h"
#include "base/files.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/opts.h"
#include "base/outdir.h"
#include "base/pool.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    const char *input, *out_dir;
    unsigned fail_on;
    int all, format, jobs, quiet;
} cli;

/* --fail-on: compare's "any" means the same here */
static const opt_choice fail_kinds[] = {{"anomaly", 1, NULL}, {"any", 1, NULL}, {NULL, 0, NULL}};

static const opt options[] = {
    OPT_STRING("-i --input_path", cli, input, "DIR",
               "the dump: a step directory (rank0, rank1, ... or proc{PID} inside), a dump root (step0, step1, "
               "...: every step) or a single rank directory",
               .flags = OPT_REQUIRED | OPT_DIR | OPT_INPUT),
    OPT_STRING("-o --output_path", cli, out_dir, "DIR", "output directory, created if needed (a dump root: DIR/stepN/)",
               .def = "./output", .flags = OPT_DIR),
    OPT_BOOL("--all", cli, all,
             "also list every anomalous API of every rank with its scene and level, in the JSON under \"anomalies\""),
    OPT_CHOICE("--format", cli, format, table_formats,
               "also write the --all list as an xlsx or csv table (implies --all)"),
    OPT_FLAGS("--fail-on", cli, fail_on, fail_kinds, "KINDS", "exit with status 3 when an anomaly is found"),
    OPT_INT("-j --jobs", cli, jobs, "N", 1, 4096, "ranks read at once (default: all cores)"),
    OPT_BOOL("-q --quiet", cli, quiet, "print nothing but errors"),
    OPT_END(),
};

static const opts_spec spec = {
    .usage = "-i DIR [-o DIR] [--all] [--format xlsx|csv] [--fail-on anomaly]",
    .about = "Find the node that produced NaN/Inf first in a distributed run, following the communication between "
             "ranks (send/recv, broadcast, all_reduce, all_gather, ...), from the dumps of every rank (dump.json, "
             "construct.json, stack.json), as msprobe's nan_analyze (the newest msprobe's overflow_check) does: "
             "anomaly_analyze_{time_ns}.json with the node's data, module path and stack, and one line on standard "
             "output naming it. msprobe 8.x's -f pytorch may come before 'nan_analyze'.",
    .opts = options,
    .epilog = "Exit status: 0 done (also when nothing is anomalous: then no file is written), 3 an anomaly was found "
              "under --fail-on anomaly, 2 bad input or usage, 1 internal error.",
};

const command nan_analyze_command = {
    "nan_analyze", "overflow_check", "find the first NaN/Inf-producing node across ranks and communication", &spec,
    cmd_nan_analyze,
};

/* One step: read, search, report; the summary line on stdout. */
static int run_step(const char *path, int single_rank, const char *label, const nan_opts *no, const char *out_dir,
                    out_run *outputs, int *found)
{
    nan_step st;
    strbuf line = STRBUF_INIT;
    int rc = nan_step_run(path, single_rank, no, &st);
    int any = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (rc == 0)
        rc = nan_report(&st, no, out_dir, outputs, &line, &any);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (rc == 0 && no->profile)
        log_note("profile: %s: report in %.3f s", path,
                 (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
    if (rc == 0) {
        *found |= any;
        if (label)
            log_info("%s: %s", label, sb_str(&line));
        else
            log_info("%s", sb_str(&line));
    }
    nan_step_free(&st);
    sb_free(&line);
    return rc;
}

int cmd_nan_analyze(int argc, char **argv, const global_opts *g)
{
    cli o;
    memset(&o, 0, sizeof o);
    o.format = -1;
    o.jobs = pool_cpus();
    opts_result pr = opts_parse(&spec, argc, argv, &o, 0, NULL);
    if (pr != OPTS_RUN)
        return opts_exit_status(pr);
    if (o.quiet)
        log_set_quiet(1);
    int gate = o.fail_on != 0;
    if (g->framework == 'm') {
        log_error("nan_analyze reads PyTorch dumps (msprobe -f pytorch nan_analyze); MindSpore has no such analysis");
        return EXIT_BADINPUT;
    }
    nan_opts no = {.all = o.all || o.format >= 0,
                   .table_format = o.format,
                   .jobs = o.jobs,
                   .profile = getenv("MSPROBE_PROFILE") != NULL};
    int kind;
    if (dumptree_classify(o.input, &kind) != 0)
        return err_report();
    if (kind == DUMPTREE_FILE) {
        err_input(o.input, "is a file; nan_analyze takes a step directory (rank0, rank1, ... inside), a dump root "
                           "or a rank directory");
        return err_report();
    }
    out_run *outputs = out_run_new();
    int status = EXIT_OK, found = 0;
    if (kind == DUMPTREE_ROOT) {
        dumptree_list steps;
        if (dumptree_steps(o.input, &steps) != 0) {
            status = err_report();
        } else {
            for (size_t i = 0; i < steps.n && status == EXIT_OK; i++) {
                char *out = path_join(o.out_dir, steps.v[i].name);
                if (run_step(steps.v[i].path, 0, steps.v[i].name, &no, out, outputs, &found) != 0)
                    status = err_report();
                free(out);
            }
            dumptree_list_free(&steps);
        }
    } else if (run_step(o.input, kind == DUMPTREE_RANK, NULL, &no, o.out_dir, outputs, &found) != 0) {
        status = err_report();
    }
    if (status != EXIT_OK)
        out_run_rollback(outputs);
    out_run_free(outputs);
    if (status == EXIT_OK && gate && found)
        status = EXIT_GATE;
    return status;
}
