/* `msprobe compare`: command line, compare.json, and running the jobs. */
#include "compare/commands.h"
#include "compare/pipeline/compare.h"
#include "compare/pipeline/dialect.h"
#include "compare/first_diff/diff_analyze.h"
#include "base/files.h"
#include "base/outdir.h"
#include "compare/pipeline/inputs.h"
#include "compare/mapping/mapping.h"
#include "base/numlist.h"
#include "compare/pipeline/summary.h"
#include "format/json.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/pool.h"
#include "base/progress.h"
#include "py/pystr.h"
#include "model/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *target, *bench, *input, *out_dir;
    const char *target_new, *bench_new;  /* -tp, -gp: the newest msprobe's spelling */
    int dialect;                         /* --dialect, -1: by the spelling */
    int stack, compare_only, format, jobs, compat, fuzzy;
    int diff_analyze;
    unsigned fail_on;
    const char *summary_json, *ranks, *steps;
    mapping_opts mapping;
    int quiet, mode, tensor_log, force;
} cli;

static const opt_choice dialects[] = {
    {"8.1", DIALECT_81, NULL}, {"newest", DIALECT_NEWEST, NULL}, {NULL, 0, NULL}};

/* msprobe's compare modes (compare_cli.py MODE_DISPATCHER): auto is ours. */
static const opt_choice modes[] = {
    {"auto", 0, NULL},
    {"torchair", 0, "msprobe's compare of torchair graph dumps is not offered here; only -m auto"},
    {"offline_data", 0, "msprobe's compare of offline (msaccucmp) dump data is not offered here; only -m auto"},
    {"offline_model", 0, "msprobe's one-step compare of offline models is not offered here; only -m auto"},
    {"atb", 0, "msprobe's compare of ATB dumps is not offered here; only -m auto"},
    {NULL, 0, NULL},
};

/* --fail-on: the bits of the summary JSON's fail_on (compare/pipeline/summary.h) */
static const opt_choice fail_kinds[] = {
    {"warning", FAIL_WARNING, NULL}, {"no", FAIL_NO, NULL},   {"different", FAIL_DIFFERENT, NULL},
    {"unmatched", FAIL_UNMATCHED, NULL}, {"red", FAIL_RED, NULL}, {"yellow", FAIL_YELLOW, NULL},
    {"error", FAIL_ERROR, NULL}, {"any", FAIL_WARNING | FAIL_NO | FAIL_DIFFERENT | FAIL_ERROR, NULL},
    {NULL, 0, NULL},
};

#define NOT_OFFLINE_DATA "an option of msprobe's -m offline_data, which is not offered here"
#define NOT_OFFLINE_MODEL "an option of msprobe's -m offline_model, which is not offered here"
#define NOT_CONSISTENT "msprobe's compare of training with inference data is not offered here"

static const opt options[] = {
    OPT_GROUP("dumps"),
    OPT_STRING("-n | --npu_path", cli, target, "TARGET", "the target dump (msprobe 8.1.0's npu_path)",
               .flags = OPT_FILE | OPT_INPUT),
    OPT_STRING("-b | --bench_path", cli, bench, "BENCH", "the bench dump (msprobe 8.1.0's bench_path)",
               .flags = OPT_FILE | OPT_INPUT),
    OPT_STRING("-tp --target_path", cli, target_new, "TARGET",
               "the target dump, as the newest msprobe spells it: the table in its dialect (see --dialect)",
               .flags = OPT_FILE | OPT_INPUT),
    OPT_STRING("-gp --golden_path", cli, bench_new, "BENCH", "the bench dump, as the newest msprobe spells it",
               .flags = OPT_FILE | OPT_INPUT),
    OPT_STRING("-i --input_path", cli, input, "compare.json",
               "msprobe 8.1.0's compare.json (npu_path, bench_path, optionally stack_path) instead of -n and -b",
               .flags = OPT_FILE),
    OPT_CHOICE("-m --mode", cli, mode, modes,
               "comparison mode: auto, the dumps' task chooses statistics, md5 or tensor; msprobe's torchair, "
               "offline_data, offline_model and atb modes are not offered",
               .def = "auto"),
    OPT_STRING("--ranks --rank", cli, ranks, "LIST", "only these ranks of step directories, e.g. 0,2,8-15"),
    OPT_STRING("--steps --step", cli, steps, "LIST", "only these steps of a dump root, e.g. 0,4-7"),
    OPT_GROUP("matching rows"),
    OPT_BOOL("-f -fm --fuzzy_match", cli, fuzzy,
             "match rows by name without call counters (an API called more or fewer times shifts them)"),
    OPT_OPTSTRING("-am --api_mapping", cli, mapping.api_file, "FILE",
                  "MindSpore target vs PyTorch bench: map API names (built-in table, plus FILE's entries)",
                  OPT_ALSO_SETS(cli, mapping.api), .flags = OPT_FILE),
    OPT_OPTSTRING("-cm --cell_mapping", cli, mapping.cell_file, "FILE",
                  "compare Cell.* rows with Module.* rows (plus FILE's dict of cell paths)",
                  OPT_ALSO_SETS(cli, mapping.cell), .flags = OPT_FILE),
    OPT_STRING("-dm --data_mapping", cli, mapping.data_file, "FILE", "a dict of target row name: bench row name",
               .flags = OPT_FILE),
    OPT_OPTSTRING("-lm --layer_mapping", cli, mapping.layer_file, "FILE",
                  "MindSpore target: pair rows by their place in the model (FILE renames sub-paths per class); "
                  "replaces -dm, writes the pairs as data_mapping_*.yaml",
                  OPT_ALSO_SETS(cli, mapping.layer), .flags = OPT_FILE),
    OPT_GROUP("output"),
    OPT_OPTSTRING("-o --output_path", cli, out_dir, "DIR", "output directory, created if needed", .def = "./output",
                  .flags = OPT_DIR),
    OPT_CHOICE("--dialect", cli, dialect, dialects,
               "whose table: 8.1 (msprobe 8.1.0's columns and texts) or newest (the newest msprobe's); by default "
               "-tp/-gp write the newest's, -n/-b, -i and '-f FRAMEWORK compare' 8.1.0's"),
    OPT_CHOICE("--format", cli, format, table_formats,
               "result format; by default xlsx in the 8.1 dialect, csv in the newest (as each msprobe writes)"),
    OPT_SET_INT("--xlsx", cli, format, TABLE_XLSX, "the newest msprobe's switch to xlsx (same as --format xlsx)"),
    OPT_BOOL("-s --stack_mode", cli, stack,
             "add the NPU_Stack_Info column (from the stack.json beside the target); the newest dialect adds it "
             "whenever that file exists"),
    OPT_BOOL("-c --compare_only", cli, compare_only, "do not write the advisor file (the newest dialect writes none)"),
    OPT_BOOL("-da --diff_analyze", cli, diff_analyze,
             "step directories: find the first op that diverges across ranks, following communication "
             "(compare_result_rank*.json, diff_analyze_*.json); no table, no advisor"),
    OPT_BOOL("--zero-d-repeat | --compat", cli, compat,
             "repeat the 0-d tensor message 16 times in Err_message, as msprobe 8.1.0 does"),
    OPT_BOOL("-tensor_log --is_print_compare_log", cli, tensor_log,
             "accepted, no effect: msprobe logs each tensor it compares, we print a summary line per result"),
    OPT_GROUP("running"),
    OPT_FLAGS("--fail-on", cli, fail_on, fail_kinds, "KINDS",
              "exit with status 3 when rows fail -- warning (statistics), no (tensors: Accuracy No), different "
              "(md5), error (the newest dialect's Result), any of those four -- or are unmatched, or highlighted red "
              "or yellow"),
    OPT_STRING("--summary-json", cli, summary_json, "FILE", "also write the counts of every result as JSON",
               .flags = OPT_FILE),
    OPT_BOOL("--force", cli, force, "replace an existing --summary-json FILE"),
    OPT_INT("-j --jobs", cli, jobs, "N", 1, 4096,
            "rank pairs compared at once, and threads of a tensor compare (default: all cores)"),
    OPT_BOOL("-q --quiet", cli, quiet, "print nothing but errors"),
    OPT_REFUSE("-fr --fusion_rule_file", NOT_OFFLINE_DATA),
    OPT_REFUSE("-qfr --quant_fusion_rule_file", NOT_OFFLINE_DATA),
    OPT_REFUSE("-cfr --close_fusion_rule_file", NOT_OFFLINE_DATA),
    OPT_REFUSE("--input_data", NOT_OFFLINE_MODEL),
    OPT_REFUSE("--input_shape", NOT_OFFLINE_MODEL),
    OPT_REFUSE("--output_size", NOT_OFFLINE_MODEL),
    OPT_REFUSE("--dym_shape_range", NOT_OFFLINE_MODEL),
    OPT_REFUSE("-ofs --onnx_fusion_switch", NOT_OFFLINE_MODEL),
    OPT_REFUSE("--consistent_check", NOT_CONSISTENT),
    OPT_REFUSE("--backend", NOT_CONSISTENT),
    OPT_END(),
};

static const opts_spec spec = {
    .usage = "-n TARGET -b BENCH [-o [DIR]] [options]\n"
             "-tp TARGET -gp BENCH [-o [DIR]] [--xlsx] [options]\n"
             "-i compare.json [-o [DIR]] [options]",
    .about = "Compare a target dump (e.g. NPU) with a bench dump (e.g. GPU) written by msprobe, row by row, and "
             "write msprobe's comparison table (xlsx or csv) and advisor file. The dumps' task sets the mode: "
             "statistics, md5, or tensor (the tensor files compared element by element).\n"
             "\n"
             "TARGET and BENCH: a dump.json (or debug.json), a rank directory, a step directory holding rank* "
             "directories (one result per rank pair), or a dump root holding step* directories (one result per "
             "step and rank, in DIR/stepN/). msprobe 8.x's -f pytorch|mindspore may come before 'compare'.",
    .opts = options,
    .epilog = "Exit status: 0 done, 3 rows failed the --fail-on gate, 2 bad input or usage, 1 internal error.",
};

const command compare_command = {
    "compare", NULL, "compare two dumps row by row: statistics, md5 or tensors; mappings, first diff (-da), CI gate",
    &spec, cmd_compare,
};

static opts_result parse_args(int argc, char **argv, const global_opts *g, cli *o)
{
    memset(o, 0, sizeof *o);
    o->jobs = pool_cpus();
    o->dialect = -1;
    o->format = -1;
    opts_result pr = opts_parse(&spec, argc, argv, o, 0, NULL);
    if (pr != OPTS_RUN)
        return pr;
    if (o->quiet)
        log_set_quiet(1);
    if ((o->target && o->target_new) || (o->bench && o->bench_new)) {
        log_usage("give the target once (-n or -tp) and the bench once (-b or -gp)");
        return OPTS_USAGE_ERROR;
    }
    /* the dialect follows the spelling: the newest msprobe's -tp/-gp write
     * its table, 8.1.0's spellings (-n/-b, -i, -f FRAMEWORK first) 8.1.0's;
     * and so does the format, unless given */
    int newest_spelling = (o->target_new || o->bench_new) && !g->framework;
    if (o->dialect < 0)
        o->dialect = newest_spelling ? DIALECT_NEWEST : DIALECT_81;
    if (o->format < 0)
        o->format = dialect_of(o->dialect)->default_format;
    if (!o->target)
        o->target = o->target_new;
    if (!o->bench)
        o->bench = o->bench_new;
    if (o->input && (o->target || o->bench)) {
        log_usage("give either -i compare.json or -n/-b (-tp/-gp), not both");
        return OPTS_USAGE_ERROR;
    }
    if (!o->input && (!o->target || !o->bench)) {
        log_usage("both a target (-n or -tp) and a bench (-b or -gp) dump are needed, or -i compare.json");
        return OPTS_USAGE_ERROR;
    }
    return OPTS_RUN;
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
    arena a;
    arena_init(&a, 4096);
    jval root;
    int rc = json_load_file(path, 0, &f, &a, &root, "is not a JSON object with npu_path and bench_path");
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

/* One rank pair; its line as soon as it is done, not after the slowest. */
static int run_one(void *arg, size_t i)
{
    run_state *s = arg;
    int rc = compare_run_job(&s->jobs->v[i], s->opts, &s->results[i]);
    if (rc == 0)
        summary_line(&s->jobs->v[i], &s->results[i], !s->opts->first_diff && s->opts->dialect != DIALECT_NEWEST);
    return rc;
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
    r->fail_mask = o->fail_on;
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
    char *names[3];
    int n = 0;
    if (o->first_diff) {
        names[n++] = compare_out_name(j, stamp, "compare_result", "json");
    } else {
        names[n++] = compare_result_name(j, o->format, stamp);
        if (o->auto_analyze && dialect_of(o->dialect)->advisor)
            names[n++] = compare_out_name(j, stamp, "advisor", "txt");
    }
    if (layer)
        names[n++] = compare_out_name(j, stamp, "data_mapping", "yaml");
    int free_ = 1;
    for (int k = 0; k < n; k++) {
        free_ = free_ && !out_name_taken(names[k]);
        free(names[k]);
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
    opts_result pr = parse_args(argc, argv, g, &o);
    if (pr != OPTS_RUN)
        return opts_exit_status(pr);
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
    char *summary = NULL; /* --summary-json, resolved (out_named) */
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
    /* -da: the stack column whenever stack.json is there, as msprobe 8.3
     * does; and so does the newest msprobe, which has no -s */
    if (o.diff_analyze || (o.dialect == DIALECT_NEWEST && !o.input))
        ro.stack_policy = STACK_AUTO;
    compare_opts opts = {.stack_mode = o.stack,
                         .auto_analyze = !o.compare_only,
                         .format = o.format,
                         .framework = g->framework,
                         .out_dir = o.out_dir,
                         .zero_d_repeat = o.compat,
                         .fuzzy = o.fuzzy,
                         .first_diff = o.diff_analyze,
                         .dialect = o.dialect,
                         .mapping = &o.mapping,
                         .outputs = outputs};
    char stamp[15];
    if (mapping_load(&o.mapping, g->framework) != 0 || jobs_resolve(npu, bench, &ro, &jobs) != 0 ||
        (o.diff_analyze && diff_analyze_prepare(npu, &jobs) != 0) || out_run_mkdir(outputs, o.out_dir) != 0 ||
        (o.summary_json && !(summary = out_named(outputs, o.summary_json, "summary.json", OUT_REFUSES, o.force))) ||
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
    for (size_t i = 0; i < jobs.n && status == EXIT_OK; i++)
        gate |= gate_fails(ro_.fail_mask, &s.results[i]);
    if (status == EXIT_OK)
        summary_total(s.results, jobs.n, !o.diff_analyze && o.dialect != DIALECT_NEWEST);
    if (o.diff_analyze && status == EXIT_OK)
        status = diff_analyze_jobs(&jobs, s.results, outputs);
    if (status == EXIT_OK && gate)
        status = EXIT_GATE;
    if (summary && (status == EXIT_OK || status == EXIT_GATE)) {
        if (path_kind(summary) != PATH_MISSING)
            log_warn("%s: the existing summary is replaced (--force)", summary);
        if (summary_write_json(summary, jobs.v, s.results, jobs.n, ro_.fail_mask, status) != 0)
            status = err_report();
    }
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
    free(summary);
    return status;
}
