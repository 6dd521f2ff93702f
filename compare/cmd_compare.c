/* `msprobe compare`: command line, compare.json, and running the jobs. */
#include "compare/commands.h"
#include "compare/pipeline/compare.h"
#include "compare/first_diff/diff_analyze.h"
#include "base/files.h"
#include "base/outdir.h"
#include "compare/pipeline/inputs.h"
#include "compare/mapping/mapping.h"
#include "base/numlist.h"
#include "compare/pipeline/summary.h"
#include "format/json.h"
#include "base/log.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/pool.h"
#include "base/progress.h"
#include "py/pystr.h"
#include "model/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cmd_compare_usage(void *stream)
{
    fprintf(stream,
            "usage: msprobe compare -n TARGET -b BENCH [-o OUTDIR] [options]\n"
            "       msprobe compare -i compare.json [-o OUTDIR] [options]\n"
            "       msprobe -f pytorch|mindspore compare -i compare.json [-o OUTDIR] [options]\n"
            "\n"
            "Compare a target dump (e.g. NPU) with a bench dump (e.g. GPU) written by msprobe, row by\n"
            "row, and write msprobe's comparison table and advisor file.\n"
            "TARGET and BENCH: a dump.json (or debug.json), a rank directory, a step directory holding\n"
            "rank* directories (one result per rank), or a dump root holding step* directories (one\n"
            "result per step and rank, in OUTDIR/stepN/).\n"
            "\n"
            "options:\n"
            "  -n, -tp, --target_path PATH  target dump (msprobe's npu_path)\n"
            "  -b, -gp, --golden_path PATH  bench dump (msprobe's bench_path)\n"
            "  -i, --input_path FILE        compare.json with npu_path, bench_path[, stack_path]\n"
            "  -o, --output_path [DIR]      output directory (default ./output)\n"
            "  -s, --stack_mode             add the NPU_Stack_Info column (from stack.json)\n"
            "  -c, --compare_only           do not write the advisor file\n"
            "  -da, --diff_analyze          step directories: per-rank first-diff results (JSON), then the\n"
            "                               first diverging op across ranks, following communication\n"
            "                               (diff_analyze_*.json); no table, no advisor\n"
            "  -f, --fuzzy_match            match rows by name without call counters (an API called\n"
            "                               more or fewer times shifts them)\n"
            "  -am, --api_mapping [FILE]    MindSpore target vs PyTorch bench: map API names (built-in\n"
            "                               table, plus the entries of FILE)\n"
            "  -cm, --cell_mapping [FILE]   map Cell.* names to Module.* (plus the dict of FILE)\n"
            "  -dm, --data_mapping FILE     explicit target row name -> bench row name dict\n"
            "  -lm, --layer_mapping [FILE]  MindSpore target: pair rows by their place in the model (FILE:\n"
            "                               class -> sub-path renames); replaces -dm, writes the pairs\n"
            "                               as data_mapping_*.yaml\n"
            "      --format xlsx|csv        result format (default xlsx, like msprobe 8.1.0)\n"
            "  -j, --jobs N                 compare up to N rank pairs at once (default: all cores)\n"
            "      --compat                 reproduce msprobe 8.1.0 byte for byte where it only differs by a\n"
            "                               defect: the 0-d tensor message repeated 16 times\n"
            "      --fail-on KINDS          exit with status 3 when rows fail: warning (statistics\n"
            "                               Result Warning), no (tensors: Accuracy No), different\n"
            "                               (md5 Different), unmatched, any; comma separated\n"
            "      --summary-json FILE      also write the summary (counts per result) as JSON\n"
            "      --ranks LIST             only these ranks of step directories, e.g. 0,2,8-15\n"
            "      --steps LIST             only these steps of a dump root\n"
            "  -q, --quiet                  print nothing but errors\n"
            "  -h, --help                   this help\n"
            "\n"
            "Exit status: 0 done, 3 rows failed the --fail-on gate, 2 bad input or usage,\n"
            "1 internal error.\n");
}

typedef struct {
    const char *target, *bench, *input, *out_dir;
    int stack, compare_only, format, jobs, compat, fuzzy;
    int diff_analyze;
    const char *fail_on, *summary_json, *ranks, *steps;
    mapping_opts mapping;
} cli;

static int is(const char *a, const char *x, const char *y, const char *z)
{
    return !strcmp(a, x) || (y && !strcmp(a, y)) || (z && !strcmp(a, z));
}

static int parse_args(int argc, char **argv, cli *o)
{
    memset(o, 0, sizeof *o);
    o->out_dir = "./output";
    o->format = TABLE_XLSX;
    o->jobs = pool_cpus();
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        const char **dest = NULL;
        if (is(a, "-h", "--help", NULL)) {
            cmd_compare_usage(stdout);
            return -2;
        } else if (is(a, "-n", "-tp", "--target_path") || !strcmp(a, "--npu_path")) {
            dest = &o->target;
        } else if (is(a, "-b", "-gp", "--golden_path") || !strcmp(a, "--bench_path")) {
            dest = &o->bench;
        } else if (is(a, "-i", "--input_path", NULL)) {
            dest = &o->input;
        } else if (is(a, "-o", "--output_path", NULL)) {
            /* msprobe: -o without a value means ./output */
            if (next && next[0] != '-') {
                o->out_dir = next;
                i++;
            }
            continue;
        } else if (is(a, "-s", "--stack_mode", NULL)) {
            o->stack = 1;
            continue;
        } else if (is(a, "-c", "--compare_only", NULL)) {
            o->compare_only = 1;
            continue;
        } else if (is(a, "-am", "--api_mapping", NULL) || is(a, "-cm", "--cell_mapping", NULL)) {
            /* the file is optional: a following option or nothing means none */
            int api = a[1] == 'a' || a[2] == 'a';
            const char *file = next && next[0] != '-' ? next : NULL;
            if (file)
                i++;
            if (api) {
                o->mapping.api = 1;
                o->mapping.api_file = file;
            } else {
                o->mapping.cell = 1;
                o->mapping.cell_file = file;
            }
            continue;
        } else if (is(a, "-lm", "--layer_mapping", NULL)) {
            o->mapping.layer = 1;
            o->mapping.layer_file = next && next[0] != '-' ? next : NULL;
            if (o->mapping.layer_file)
                i++;
            continue;
        } else if (is(a, "-dm", "--data_mapping", NULL)) {
            dest = &o->mapping.data_file;
        } else if (is(a, "-da", "--diff_analyze", NULL)) {
            o->diff_analyze = 1;
            continue;
        } else if (is(a, "-f", "--fuzzy_match", NULL)) {
            o->fuzzy = 1;
            continue;
        } else if (!strcmp(a, "--compat")) {
            o->compat = 1;
            continue;
        } else if (is(a, "-q", "--quiet", NULL)) {
            log_set_quiet(1);
            continue;
        } else if (!strcmp(a, "--format")) {
            if (!next || (strcmp(next, "xlsx") && strcmp(next, "csv")))
                return log_usage("--format needs xlsx or csv");
            o->format = !strcmp(next, "csv") ? TABLE_CSV : TABLE_XLSX;
            i++;
            continue;
        } else if (!strcmp(a, "--fail-on")) {
            dest = &o->fail_on;
        } else if (!strcmp(a, "--summary-json")) {
            dest = &o->summary_json;
        } else if (!strcmp(a, "--ranks")) {
            dest = &o->ranks;
        } else if (!strcmp(a, "--steps")) {
            dest = &o->steps;
        } else if (is(a, "-j", "--jobs", NULL)) {
            char *end;
            long v = next ? strtol(next, &end, 10) : 0;
            if (!next || *end || v < 1 || v > 4096)
                return log_usage("%s needs a number of jobs (1..4096)", a);
            o->jobs = (int)v;
            i++;
            continue;
        } else {
            return log_usage(a[0] == '-' ? "unknown option '%s'" : "unexpected argument '%s'", a);
        }
        if (!next)
            return log_usage("%s needs a value", a);
        *dest = next;
        i++;
    }
    if (o->input && (o->target || o->bench))
        return log_usage("give either -i compare.json or -n/-b, not both");
    if (!o->input && (!o->target || !o->bench))
        return log_usage("both a target (-n) and a bench (-b) dump are needed, or -i compare.json");
    return 0;
}

typedef struct {
    char *npu, *bench, *stack;
    int has_stack;
} compare_json;

/* compare.json as msprobe 8.1.0 reads it (spec/compare.md §2.2). */
static int load_compare_json(const char *path, compare_json *cj)
{
    memset(cj, 0, sizeof *cj);
    mapped_file f;
    if (file_map(path, 0, &f) != 0)
        return -1;
    arena a;
    arena_init(&a, 4096);
    jval root;
    int rc = json_parse(path, f.data, f.size, &a, &root);
    if (rc == 0 && root.type != J_OBJECT)
        rc = err_input(path, "is not a JSON object with npu_path and bench_path");
    static const char *const keys[3] = {"npu_path", "bench_path", "stack_path"};
    char **dest[3] = {&cj->npu, &cj->bench, &cj->stack};
    for (int k = 0; k < 3 && rc == 0; k++) {
        const jval *v = json_get(&root, keys[k]);
        if (k < 2 && !json_truthy(v)) {
            rc = err_input(path, "Missing %s in configuration file %s, please check!", keys[k], path);
        } else if (v && (v->type == J_STRING ? memchr(v->u.str, 0, v->len) != NULL : k < 2 || v->type != J_NULL)) {
            rc = err_input(path, "%s must be a path (a string)", keys[k]);
        } else if (v && v->type == J_STRING) {
            *dest[k] = xstrndup(v->u.str, v->len);
        }
    }
    if (rc == 0) {
        cj->has_stack = json_get(&root, "stack_path") != NULL;
        const jval *log = json_get(&root, "is_print_compare_log");
        const jval *rank_id = json_get(&root, "rank_id");
        if (log && log->type != J_TRUE && log->type != J_FALSE) {
            strbuf sb = STRBUF_INIT;
            py_str_json(&sb, log);
            rc = err_input(path, "Invalid input parameter, %s which should be only bool type.", sb_str(&sb));
            sb_free(&sb);
        } else if ((rank_id && rank_id->type != J_NULL) || json_truthy(json_get(&root, "common"))) {
            rc = err_input(path, "the MindSpore static-graph compare modes (rank_id / common) are not supported");
        }
    }
    arena_free(&a);
    file_unmap(&f);
    if (rc) {
        free(cj->npu);
        free(cj->bench);
        free(cj->stack);
        memset(cj, 0, sizeof *cj);
    }
    return rc;
}

typedef struct {
    job_list *jobs;
    const compare_opts *opts;
    compare_result *results;
} run_state;

static int run_one(void *arg, size_t i)
{
    run_state *s = arg;
    return compare_run_job(&s->jobs->v[i], s->opts, &s->results[i]);
}

/* Everything the options turn into before anything runs. */
typedef struct {
    unsigned fail_mask;
    numlist ranks, steps;
    int have_ranks, have_steps;
} run_opts;

static int prepare(const cli *o, run_opts *r)
{
    memset(r, 0, sizeof *r);
    if (o->fail_on && gate_parse(o->fail_on, &r->fail_mask) != 0)
        return -1;
    if (o->ranks) {
        if (numlist_parse(o->ranks, "--ranks", &r->ranks) != 0)
            return -1;
        r->have_ranks = 1;
    }
    if (o->steps) {
        if (numlist_parse(o->steps, "--steps", &r->steps) != 0)
            return -1;
        r->have_steps = 1;
    }
    return 0;
}

/* Every name a job may write under `stamp`. */
static int job_names_free(const compare_job *j, const compare_opts *o, int layer, const char *stamp)
{
    const char *names[3][2];
    int n = 0;
    if (o->first_diff) {
        names[n][0] = "compare_result", names[n++][1] = "json";
    } else {
        int debug = path_has_suffix(j->npu_json, "/debug.json") || !strcmp(j->npu_json, "debug.json");
        names[n][0] = debug ? "debug_compare_result" : "compare_result";
        names[n++][1] = o->format == TABLE_CSV ? "csv" : "xlsx";
        if (o->auto_analyze)
            names[n][0] = "advisor", names[n++][1] = "txt";
    }
    if (layer)
        names[n][0] = "data_mapping", names[n++][1] = "yaml";
    int free_ = 1;
    for (int k = 0; k < n && free_; k++) {
        char *p = compare_out_name(j, stamp, names[k][0], names[k][1]);
        free_ = !out_name_taken(p);
        free(p);
    }
    return free_;
}

/* The run's stamp: now, or the first later second under which none of its
 * names exists (two runs in the same second would write the same names;
 * msprobe replaces the earlier files). Writing never replaces a file either
 * (base/outdir.h), for a run that takes a name meanwhile. */
static int pick_stamp(const job_list *jobs, const compare_opts *o, int layer, char stamp[15])
{
    time_stamp(stamp);
    for (int tries = 0; tries < 100000; tries++) {
        size_t i = 0;
        while (i < jobs->n && job_names_free(&jobs->v[i], o, layer, stamp))
            i++;
        if (i == jobs->n)
            return 0;
        if (stamp_next(stamp, stamp) != 0)
            break;
    }
    return err_set(ERR_OUTPUT, o->out_dir, "no free time stamp for the names of the results");
}

/* The flow of a run: everything that can be checked -- the option files
 * parsed, the dump trees walked, the output directory made, the summary
 * file and the stamp -- before any dump is read; then the compares; a run
 * that fails removes what it wrote (the results of rank pairs that did
 * succeed included) and the directories it made. */
int cmd_compare(int argc, char **argv, const global_opts *g)
{
    cli o;
    int prc = parse_args(argc, argv, &o);
    if (prc == -2)
        return EXIT_OK;
    if (prc)
        return EXIT_BADINPUT;
    run_opts ro_;
    if (g->framework == 'p' && (o.mapping.api || o.mapping.cell)) {
        fprintf(stderr, "%s: Argument -cm or -am is not supported in PyTorch framework\n", log_prog());
        return EXIT_BADINPUT;
    }
    if (prepare(&o, &ro_) != 0) {
        err_report();
        fprintf(stderr, "Try 'msprobe compare --help'.\n");
        numlist_free(&ro_.ranks);
        numlist_free(&ro_.steps);
        return EXIT_BADINPUT;
    }

    resolve_opts ro = {.out_dir = o.out_dir, .stack_policy = STACK_FLAG, .stack_flag = o.stack,
                       .ranks = ro_.have_ranks ? &ro_.ranks : NULL, .steps = ro_.have_steps ? &ro_.steps : NULL};
    compare_json cj = {0};
    const char *npu = o.target, *bench = o.bench;
    job_list jobs = {0};
    out_run *outputs = out_run_new();
    int status = EXIT_OK;
    if (o.input) {
        if (load_compare_json(o.input, &cj) != 0) {
            status = err_report();
            goto done;
        }
        npu = cj.npu;
        bench = cj.bench;
        ro.stack_policy = cj.has_stack ? STACK_GIVEN : STACK_AUTO;
        ro.stack_path = cj.stack;
        if (cj.has_stack && !cj.stack)
            ro.stack_policy = STACK_NONE;
    }
    /* -da: the stack column whenever stack.json is there, as msprobe 8.3 does */
    if (o.diff_analyze)
        ro.stack_policy = STACK_AUTO;
    compare_opts opts = {.stack_mode = o.stack,
                         .auto_analyze = !o.compare_only,
                         .format = o.format,
                         .framework = g->framework,
                         .out_dir = o.out_dir,
                         .zero_d_repeat = o.compat,
                         .fuzzy = o.fuzzy,
                         .first_diff = o.diff_analyze,
                         .mapping = &o.mapping,
                         .outputs = outputs};
    char stamp[15];
    if (mapping_load(&o.mapping, g->framework) != 0 || jobs_resolve(npu, bench, &ro, &jobs) != 0 ||
        (o.diff_analyze && diff_analyze_prepare(npu, &jobs) != 0) || out_run_mkdir(outputs, o.out_dir) != 0 ||
        (o.summary_json && out_check_replaceable(o.summary_json) != 0) ||
        pick_stamp(&jobs, &opts, o.mapping.layer && g->framework != 'p', stamp) != 0) {
        status = err_report();
        goto done;
    }
    opts.stamp = stamp;
    /* threads left for each compare when several run at once */
    opts.threads = jobs.n >= (size_t)o.jobs ? 1 : o.jobs / (int)(jobs.n ? jobs.n : 1);
    run_state s = {.jobs = &jobs, .opts = &opts};
    s.results = xcalloc(jobs.n, sizeof *s.results);
    progress_run_begin(&(progress_opts){.jobs = jobs.n, .profile = getenv("MSPROBE_PROFILE") != NULL});
    int failed = pool_run(jobs.n, o.jobs, run_one, &s, NULL) != 0;
    progress_run_end();
    log_warn_totals();
    if (failed)
        status = err_report();
    int gate = 0;
    for (size_t i = 0; i < jobs.n && status == EXIT_OK; i++) {
        summary_line(&jobs.v[i], &s.results[i]);
        gate |= gate_fails(ro_.fail_mask, &s.results[i]);
    }
    if (status == EXIT_OK)
        summary_total(s.results, jobs.n);
    if (o.diff_analyze && status == EXIT_OK)
        status = diff_analyze_jobs(&jobs, s.results, outputs);
    if (status == EXIT_OK && gate)
        status = EXIT_GATE;
    if (o.summary_json && (status == EXIT_OK || status == EXIT_GATE) &&
        summary_write_json(o.summary_json, jobs.v, s.results, jobs.n, ro_.fail_mask, status) != 0)
        status = err_report();
    for (size_t i = 0; i < jobs.n; i++)
        compare_result_free(&s.results[i]);
    free(s.results);
done:
    if (status != EXIT_OK && status != EXIT_GATE)
        out_run_rollback(outputs);
    out_run_free(outputs);
    mapping_unload(&o.mapping);
    jobs_free(&jobs);
    numlist_free(&ro_.ranks);
    numlist_free(&ro_.steps);
    free(cj.npu);
    free(cj.bench);
    free(cj.stack);
    return status;
}
