/* `msprobe graph` (msprobe 8.1.0's spelling, -i INPUT.json), `msprobe
 * graph_visualize` (the newest msprobe's, -tp/-gp) and `msprobe graph view`
 * (a .vis as a page): command lines, the input JSON, then graph_run(). */
#include "graph/commands.h"
#include "graph/run.h"
#include "graph/write/page/page.h"
#include "base/err.h"
#include "base/files.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/opts.h"
#include "base/outdir.h"
#include "base/pool.h"
#include "base/strbuf.h"
#include "format/json.h"
#include "model/layer_map.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *input, *target, *golden, *out_dir, *lm_file;
    int lm, oc, fuzzy, cs, format, html, jobs, quiet, tensor_log, progress_log, file_type;
    opt_list rank_size, tp, pp, vpp, order;
} cli;

static const opt_choice formats[] = {{"vis", GF_VIS, NULL}, {"db", GF_DB, NULL}, {NULL, 0, NULL}};
static const opt_choice file_types[] = {
    {"db", GF_DB, NULL},
    {"json", GF_VIS,
     "--file_type json writes the merged dump trees of a parallel-merge build in the newest msprobe, which is not "
     "offered here (--format vis writes msprobe 8.1.0's .vis)"},
    {NULL, 0, NULL}};

#define NO_MERGE "the newest msprobe's parallel merge of TP/PP ranks into one graph is not offered here"

#define COMMON_OPTIONS                                                                                              \
    OPT_OPTSTRING("-lm --layer_mapping", cli, lm_file, "FILE",                                                     \
                  "match nodes by their place in the model (the compare's layer mapping; FILE renames sub-paths "   \
                  "per class); needed to compare MindSpore with PyTorch",                                           \
                  OPT_ALSO_SETS(cli, lm), .flags = OPT_FILE),                                                       \
        OPT_BOOL("-oc --overflow_check", cli, oc,                                                                   \
                 "mark nodes with msprobe's overflow levels (medium, high, critical) from NaN/Inf and norm jumps"), \
        OPT_BOOL("--html", cli, html,                                                                               \
                 "also write a self-contained page per result (.html beside it): the tree, both runs side by "      \
                 "side, search, filters, no server")

#define FUZZY_HELP "match modules by name and shapes, and their APIs by name and order without call counters"

#define OUTPUT_DIR_OPTION                                                                                           \
    OPT_STRING("-o --output_path", cli, out_dir, "DIR", "output directory, created if needed",                     \
               .flags = OPT_REQUIRED | OPT_DIR)

#define RUNNING_OPTIONS                                                                                             \
    OPT_GROUP("running"),                                                                                           \
        OPT_INT("-j --jobs", cli, jobs, "N", 1, 4096,                                                               \
                "ranks built at once, threads of a tensor compare (default: all cores)"),                           \
        OPT_BOOL("-q --quiet", cli, quiet, "print nothing but errors")

static const opt graph_options[] = {
    OPT_GROUP("dumps"),
    OPT_STRING("-i --input_path", cli, input, "INPUT.json",
               "msprobe 8.1.0's input: {\"npu_path\": DIR, \"bench_path\": DIR} (without bench_path: a build)",
               .flags = OPT_FILE),
    OPT_STRING("-tp -n --target_path | --npu_path", cli, target, "TARGET", "the target dump instead of -i (npu_path)",
               .flags = OPT_DIR | OPT_INPUT),
    OPT_STRING("-gp -b --golden_path | --bench_path", cli, golden, "BENCH",
               "the bench dump (bench_path): compare with the target", .flags = OPT_DIR | OPT_INPUT),
    OPT_GROUP("matching"),
    OPT_BOOL("-f -fm --fuzzy_match", cli, fuzzy, FUZZY_HELP),
    COMMON_OPTIONS,
    OPT_GROUP("output"),
    OUTPUT_DIR_OPTION,
    OPT_CHOICE("--format", cli, format, formats,
               "vis: msprobe 8.1.0's .vis JSON per step and rank (default); db: the newest msprobe's .vis.db "
               "(SQLite, one per run)",
               .def = "vis"),
    OPT_BOOL("-cs --complete_stack", cli, cs, "keep every stack line (msprobe keeps the line that calls the node)"),
    RUNNING_OPTIONS,
    OPT_END(),
};

static const opt visualize_options[] = {
    OPT_GROUP("dumps"),
    OPT_STRING("-tp -n --target_path | --npu_path", cli, target, "TARGET",
               "the target dump: a rank directory, a step directory or a dump root",
               .flags = OPT_REQUIRED | OPT_DIR | OPT_INPUT),
    OPT_STRING("-gp -b --golden_path | --bench_path", cli, golden, "BENCH",
               "the golden (bench) dump: compare with the target", .flags = OPT_DIR | OPT_INPUT),
    OPT_GROUP("matching"),
    OPT_BOOL("-fm --fuzzy_match", cli, fuzzy, FUZZY_HELP),
    COMMON_OPTIONS,
    OPT_GROUP("output"),
    OUTPUT_DIR_OPTION,
    OPT_CHOICE("--format", cli, format, formats,
               "db: one .vis.db for the run (default, as the newest msprobe); vis: msprobe 8.1.0's .vis per step "
               "and rank",
               .def = "db"),
    OPT_CHOICE("--file_type", cli, file_type, file_types, "the newest msprobe's output type: db"),
    OPT_BOOL("-tensor_log --is_print_compare_log", cli, tensor_log,
             "accepted, no effect: one summary line per result is printed"),
    OPT_BOOL("-progress_log --is_print_progress_log", cli, progress_log,
             "accepted, no effect: a status line is shown on a terminal"),
    RUNNING_OPTIONS,
    OPT_LIST("--rank_size", cli, rank_size, "N [N ...]", 1, -1, NO_MERGE, .flags = OPT_HIDDEN),
    OPT_LIST("--tp", cli, tp, "N [N ...]", 1, -1, NO_MERGE, .flags = OPT_HIDDEN),
    OPT_LIST("--pp", cli, pp, "N [N ...]", 1, -1, NO_MERGE, .flags = OPT_HIDDEN),
    OPT_LIST("--vpp", cli, vpp, "N [N ...]", 1, -1, NO_MERGE, .flags = OPT_HIDDEN),
    OPT_LIST("--order", cli, order, "S [S ...]", 1, -1, NO_MERGE, .flags = OPT_HIDDEN),
    OPT_END(),
};

static const opts_spec graph_spec = {
    .usage = "-i INPUT.json -o DIR [-lm [FILE]] [-oc] [-f] [-cs] [--format vis|db] [--html]\n"
             "-tp TARGET [-gp BENCH] -o DIR [options]\n"
             "view FILE.vis -o PAGE.html",
    .about = "The model as a tree of modules, from the dumps msprobe writes (construct.json, dump.json, "
             "stack.json): every node with its inputs and outputs, as msprobe's graph command builds it. With a "
             "bench run the two trees are matched node by node and each matched node gets a precision index "
             "(statistics, md5 or tensor compare); the communication nodes of the ranks of a step are linked. "
             "Writes msprobe 8.1.0's .vis files (build_{ts}.vis, compare_{rank}_{ts}.vis, ...; for the "
             "TensorBoard plugin tb-graph-ascend), or the newest msprobe's .vis.db, and with --html a page a "
             "browser opens without a server.\n"
             "\n"
             "INPUT.json: npu_path (a rank directory, a step directory holding rank* directories, or a dump root "
             "holding step* directories) and optionally bench_path of the same kind. msprobe 8.x's "
             "-f pytorch|mindspore may come before 'graph'. 'graph view FILE.vis -o PAGE.html' writes the page of "
             "a .vis file.",
    .opts = graph_options,
    .epilog = "Exit status: 0 done, 2 bad input or usage, 1 internal error.",
};

static const opts_spec visualize_spec = {
    .usage = "-tp TARGET [-gp BENCH] -o DIR [-lm [FILE]] [-oc] [-fm] [--format db|vis] [--html]",
    .about = "The newest msprobe's spelling of 'msprobe graph': the model tree of the target dump, compared "
             "with the golden (bench) dump when given, written as one .vis.db (SQLite) for the run, which the current "
             "TensorBoard plugin opens. TARGET and BENCH: a rank directory, a step directory (rank* or one "
             "proc{PID} inside) or a dump root (step* inside).",
    .opts = visualize_options,
    .epilog = "Exit status: 0 done, 2 bad input or usage, 1 internal error.",
};

const command graph_command = {"graph", NULL, "the model as a tree of modules, one run or two side by side (.vis, "
                                              ".vis.db, a page)",
                               &graph_spec, cmd_graph};
const command graph_visualize_command = {"graph_visualize", NULL,
                                         "the newest msprobe's graph: the model tree as a .vis.db", &visualize_spec,
                                         cmd_graph_visualize};

/* ---- msprobe's input JSON ------------------------------------------------- */

typedef struct {
    char *npu, *bench;
} input_json;

static int read_path(const char *file, const jval *root, const char *key, int required, char **out)
{
    const jval *v = json_get(root, key);
    if (!json_truthy(v)) {
        if (required)
            return err_input(file, "has no %s: expected {\"npu_path\": DIR, \"bench_path\": DIR}", key);
        return 0;
    }
    if (v->type != J_STRING || memchr(v->u.str, 0, v->len))
        return err_input(file, "%s must be a path (a string)", key);
    *out = xstrndup(v->u.str, v->len);
    return 0;
}

static int load_input(const char *path, input_json *in)
{
    memset(in, 0, sizeof *in);
    mapped_file f;
    arena a;
    arena_init(&a, 4096);
    jval root;
    int rc = json_load_file(path, 0, &f, &a, &root, "is not a JSON object with npu_path (and bench_path)");
    if (rc == 0)
        rc = read_path(path, &root, "npu_path", 1, &in->npu);
    if (rc == 0)
        rc = read_path(path, &root, "bench_path", 0, &in->bench);
    arena_free(&a);
    file_unmap(&f);
    return rc;
}

/* ---- running --------------------------------------------------------------- */

static int run(cli *o, const global_opts *g, int newest)
{
    if (o->quiet)
        log_set_quiet(1);
    graph_opts go;
    memset(&go, 0, sizeof go);
    go.layer_mapping = o->lm;
    go.lm_file = o->lm_file;
    go.overflow_check = o->oc;
    go.fuzzy = o->fuzzy;
    go.complete_stack = o->cs;
    go.format = o->format;
    go.html = o->html;
    go.jobs = o->jobs;
    go.profile = getenv("MSPROBE_PROFILE") != NULL;
    go.need_construct = newest;
    (void)g;
    input_json in;
    memset(&in, 0, sizeof in);
    if (o->input) {
        if (o->target || o->golden)
            return log_usage("give either -i INPUT.json or -tp/-gp, not both"), EXIT_BADINPUT;
        if (load_input(o->input, &in) != 0)
            return err_report();
    } else if (!o->target) {
        return log_usage("the dump to draw is needed: -i INPUT.json or -tp DIR"), EXIT_BADINPUT;
    } else {
        in.npu = xstrdup(o->target);
        in.bench = o->golden ? xstrdup(o->golden) : NULL;
    }
    /* the layer mapping file is read before any dump; msprobe goes on
     * without it (matching by name) when it cannot be read */
    if (go.layer_mapping && in.bench && !(go.lm_rules = layer_rules_load(go.lm_file))) {
        log_warn("%s; The layer mapping file parsing failed, please check file format, mapping is not effective.",
                 err_message());
        err_clear();
    }
    int status = graph_run(in.npu, in.bench, o->out_dir, &go);
    layer_rules_free(go.lm_rules);
    free(in.npu);
    free(in.bench);
    return status;
}

static opts_result parse(const opts_spec *spec, int argc, char **argv, cli *o)
{
    memset(o, 0, sizeof *o);
    o->jobs = pool_cpus();
    o->file_type = -1;
    opts_result pr = opts_parse(spec, argc, argv, o, 0, NULL);
    if (pr != OPTS_RUN)
        return pr;
    if (o->rank_size.given || o->tp.given || o->pp.given || o->vpp.given || o->order.given) {
        log_usage("--rank_size, --tp, --pp, --vpp, --order: %s", NO_MERGE);
        return OPTS_USAGE_ERROR;
    }
    if (o->file_type >= 0)
        o->format = o->file_type;
    return OPTS_RUN;
}

/* ---- graph view ------------------------------------------------------------- */

typedef struct {
    const char *vis, *out;
    int quiet, force;
} view_cli;

static const opt view_options[] = {
    OPT_STRING("FILE.vis", view_cli, vis, "FILE.vis", "a .vis file (ours or msprobe's)", .flags = OPT_FILE),
    OPT_STRING("-o --output_path", view_cli, out, "PAGE.html",
               "the page to write (default: FILE.html beside it; a directory: FILE.html in it)", .flags = OPT_FILE),
    OPT_BOOL("--force", view_cli, force, "replace an existing page"),
    OPT_BOOL("-q --quiet", view_cli, quiet, "print nothing but errors"),
    OPT_END(),
};

static const opts_spec view_spec = {
    .usage = "FILE.vis [-o PAGE.html] [--force]",
    .about = "Write the self-contained page of a .vis file: the model tree expanding on click, both runs side "
             "by side, search, filters, details; no server, nothing fetched.",
    .opts = view_options,
    .epilog = "Exit status: 0 done, 2 bad input or usage, 1 internal error.",
};

static int cmd_view(int argc, char **argv)
{
    /* its messages and --help name it as typed */
    log_set_prog("msprobe graph view");
    view_cli o;
    memset(&o, 0, sizeof o);
    opts_result pr = opts_parse(&view_spec, argc, argv, &o, 0, NULL);
    if (pr != OPTS_RUN)
        return opts_exit_status(pr);
    if (o.quiet)
        log_set_quiet(1);
    if (!o.vis)
        return log_usage("the .vis file to show is needed"), EXIT_BADINPUT;
    /* FILE.html: beside FILE.vis, or in the directory -o names */
    strbuf name = STRBUF_INIT;
    size_t n = strlen(o.vis);
    sb_add(&name, o.vis, n > 4 && !strcmp(o.vis + n - 4, ".vis") ? n - 4 : n);
    sb_adds(&name, ".html");
    char *base = path_basename(sb_str(&name));
    out_run *made = out_run_new();
    char *page = out_named(made, o.out ? o.out : sb_str(&name), base, OUT_REFUSES, o.force);
    int status;
    if (!page) {
        status = err_report();
    } else {
        int existed = path_kind(page) != PATH_MISSING;
        status = page_view(o.vis, page);
        if (status == EXIT_OK && existed)
            log_warn("%s: the existing page was replaced (--force)", page);
    }
    if (status != EXIT_OK)
        out_run_rollback(made);   /* the directories out_named made */
    out_run_free(made);
    free(page);
    free(base);
    sb_free(&name);
    return status;
}

/* Both spellings: their own options, one run; newest: graph_visualize. */
static int parse_and_run(const opts_spec *spec, int argc, char **argv, const global_opts *g, int newest)
{
    cli o;
    opts_result pr = parse(spec, argc, argv, &o);
    if (pr != OPTS_RUN)
        return opts_exit_status(pr);
    return run(&o, g, newest);
}

int cmd_graph(int argc, char **argv, const global_opts *g)
{
    if (argc > 1 && !strcmp(argv[1], "view"))
        return cmd_view(argc - 1, argv + 1);
    return parse_and_run(&graph_spec, argc, argv, g, 0);
}

int cmd_graph_visualize(int argc, char **argv, const global_opts *g)
{
    return parse_and_run(&visualize_spec, argc, argv, g, 1);
}
