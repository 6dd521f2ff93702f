/* `msprobe config_check` (and `msprobe ckpt_compare`): command line and
 * dispatch (spec/configcheck.md §A.1, §B.1). */
#include "config_check/commands.h"
#include "config_check/cc.h"
#include "base/err.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/pool.h"
#include "model/table.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    opt_list dump, compare;
    const char *out, *first, *second;
    int format, jobs, quiet, force;
} cli;

/* the tables' formats, and checkpoints' json */
static const opt_choice formats[] = {TABLE_FORMAT_CHOICES, {"json", CC_FMT_JSON, NULL}, {NULL, 0, NULL}};

#define NOT_VERL "the newest msprobe's verl log compare (-vc/-vv) is not offered here"

static const opt options[] = {
    OPT_LIST("-d --dump", cli, dump, "[FILE ...]", 0, -1,
             "pack: the environment, the installed packages and the hyper-parameters of these launch scripts "
             "(.sh) and yaml files into a zip (default ./config_check_pack.zip)",
             .flags = OPT_FILE),
    OPT_LIST("-c --compare", cli, compare, "BENCH CMP", 2, 2,
             "compare two packs (the first path ends in 'zip': result.xlsx in the directory -o, default "
             "./config_check_result) or two checkpoints (ckpt_similarity.json)",
             .flags = OPT_FILE),
    OPT_STRING("-o --output", cli, out, "PATH", "output: the pack (-d), the result directory (packs) or file "
               "(checkpoints)", .flags = OPT_FILE),
    OPT_CHOICE("--format", cli, format, formats,
               "packs: xlsx (default) or csv (one file per sheet); checkpoints: json (default), csv or xlsx, the "
               "largest differences first"),
    OPT_BOOL("--force", cli, force, "replace an existing pack (-d) or checkpoint result (msprobe refuses it)"),
    OPT_INT("-j --jobs", cli, jobs, "N", 1, 4096, "threads comparing checkpoint tensors (default: all cores)"),
    OPT_BOOL("-q --quiet", cli, quiet, "print nothing but errors"),
    OPT_REFUSE("-vc --verl-compare", NOT_VERL),
    OPT_REFUSE("-vv --verl-verify", NOT_VERL),
    OPT_END(),
};

static const opts_spec spec = {
    .usage = "-d [FILE ...] [-o OUT.zip]\n"
             "-c BENCH.zip CMP.zip [-o DIR] [--format xlsx|csv]\n"
             "-c CKPT1 CKPT2 [-o OUT.json] [--format csv|xlsx]",
    .about = "Were two training runs set up alike? A pack (a zip) holds a run's environment variables, installed "
             "packages, hyper-parameters, and -- packed by msprobe's ConfigChecker during training -- its first "
             "batches, weights and random calls. -c compares two packs into result.xlsx: one sheet per checker "
             "and a summary, as msprobe writes it.\n"
             "\n"
             "Do two checkpoints hold the same weights? -c with two checkpoint directories compares them "
             "parameter by parameter (l2 distance, cosine, element count, shape) into ckpt_similarity.json: "
             "Megatron-LM / MindSpeed checkpoints (tensor-, pipeline-, virtual-pipeline- and expert-parallel "
             "shards taken as the full tensors), Megatron's torch_dist checkpoints and Hugging Face safetensors. "
             "Also 'msprobe ckpt_compare CKPT1 CKPT2'. msprobe 8.x's -f pytorch|mindspore may come before "
             "'config_check'.",
    .opts = options,
    .epilog = "Exit status: 0 done, 2 bad input or usage, 1 internal error.",
};

const command config_check_command = {
    "config_check", NULL, "pack a run's configuration, compare two packs, or compare two checkpoints", &spec,
    cmd_config_check,
};

static const opt ckpt_options[] = {
    OPT_STRING("CKPT1", cli, first, "CKPT1", "the first checkpoint (a directory, or a .safetensors file)",
               .flags = OPT_FILE),
    OPT_STRING("CKPT2", cli, second, "CKPT2", "the second one", .flags = OPT_FILE),
    OPT_LIST("-c --compare", cli, compare, "CKPT1 CKPT2", 2, 2, "the two checkpoints, as config_check -c takes them",
             .flags = OPT_FILE),
    OPT_STRING("-o --output", cli, out, "FILE", "the result (default ./ckpt_similarity.json, .csv or .xlsx)",
               .flags = OPT_FILE),
    OPT_CHOICE("--format", cli, format, formats, "json (default, msprobe's), csv or xlsx (the largest differences "
               "first)"),
    OPT_BOOL("--force", cli, force, "replace an existing result (msprobe refuses it)"),
    OPT_INT("-j --jobs", cli, jobs, "N", 1, 4096, "threads comparing tensors (default: all cores)"),
    OPT_BOOL("-q --quiet", cli, quiet, "print nothing but errors"),
    OPT_END(),
};

static const opts_spec ckpt_spec = {
    .usage = "CKPT1 CKPT2 [-o OUT.json] [--format json|csv|xlsx] [-j N]\n"
             "-c CKPT1 CKPT2 [-o OUT.json]",
    .about = "Compare two checkpoints parameter by parameter: l2 distance, cosine similarity, element count and "
             "shape, as msprobe's checkpoint compare writes them (ckpt_similarity.json). Megatron-LM / MindSpeed "
             "checkpoints (mp_rank_* directories, TP/PP/VPP/EP shards taken as full tensors), Megatron's "
             "torch_dist checkpoints (.metadata + .distcp) and Hugging Face safetensors (one file, or sharded "
             "with model.safetensors.index.json). The same as 'msprobe config_check -c CKPT1 CKPT2'.",
    .opts = ckpt_options,
    .epilog = "Exit status: 0 done, 2 bad input or usage, 1 internal error.",
};

const command ckpt_compare_command = {
    "ckpt_compare", NULL, "compare two checkpoints parameter by parameter (Megatron, torch_dist, safetensors)",
    &ckpt_spec, cmd_ckpt_compare,
};

static opts_result parse(const opts_spec *s, int argc, char **argv, cli *o)
{
    memset(o, 0, sizeof *o);
    o->format = CC_FMT_AUTO;
    o->jobs = pool_cpus();
    opts_result pr = opts_parse(s, argc, argv, o, 0, NULL);
    if (pr == OPTS_RUN && o->quiet)
        log_set_quiet(1);
    return pr;
}

static int report(int rc) { return rc == 0 ? EXIT_OK : err_report(); }

static int compare_ckpt(cli *o, const char *a, const char *b)
{
    if (o->format == CC_FMT_AUTO)
        o->format = CC_FMT_JSON;
    cc_opts co = {o->out, o->format, 'p', o->jobs, o->force};
    char out[32];
    if (!co.out) {
        snprintf(out, sizeof out, "./ckpt_similarity.%s", o->format == CC_FMT_JSON ? "json" : table_ext(o->format));
        co.out = out;
    }
    return report(cc_compare_ckpt(&co, a, b));
}

int cmd_config_check(int argc, char **argv, const global_opts *g)
{
    cli o;
    opts_result pr = parse(&spec, argc, argv, &o);
    if (pr != OPTS_RUN)
        return opts_exit_status(pr);
    if (o.dump.given && o.compare.given) {
        log_usage("give either -d (make a pack) or -c (compare), not both");
        return EXIT_BADINPUT;
    }
    if (!o.dump.given && !o.compare.given) {
        log_usage("The param is not correct, you need to give '-d' for dump or '-c' for compare.");
        return EXIT_BADINPUT;
    }
    cc_opts co = {o.out, o.format, g && g->framework == 'm' ? 'm' : 'p', o.jobs, o.force};
    if (o.dump.given) {
        if (o.format != CC_FMT_AUTO) {
            log_usage("--format is for -c; -d writes a zip");
            return EXIT_BADINPUT;
        }
        if (!co.out)
            co.out = "./config_check_pack.zip";
        return report(cc_pack(&co, o.dump.v, o.dump.n));
    }
    const char *a = o.compare.v[0], *b = o.compare.v[1];
    size_t la = strlen(a);
    /* msprobe's rule: the first path ending in "zip" means packs */
    if (la >= 3 && !strcmp(a + la - 3, "zip")) {
        if (o.format == CC_FMT_JSON) {
            log_usage("--format json is for checkpoints; packs give xlsx or csv");
            return EXIT_BADINPUT;
        }
        if (co.format == CC_FMT_AUTO)
            co.format = TABLE_XLSX;
        if (!co.out)
            co.out = "./config_check_result";
        return report(cc_compare_packs(&co, a, b));
    }
    return compare_ckpt(&o, a, b);
}

int cmd_ckpt_compare(int argc, char **argv, const global_opts *g)
{
    (void)g;
    cli o;
    opts_result pr = parse(&ckpt_spec, argc, argv, &o);
    if (pr != OPTS_RUN)
        return opts_exit_status(pr);
    if (o.compare.given && (o.first || o.second)) {
        log_usage("give the two checkpoints either with -c or as arguments, not both");
        return EXIT_BADINPUT;
    }
    if (o.compare.given)
        return compare_ckpt(&o, o.compare.v[0], o.compare.v[1]);
    if (!o.first || !o.second) {
        log_usage("two checkpoints are needed: ckpt_compare CKPT1 CKPT2");
        return EXIT_BADINPUT;
    }
    return compare_ckpt(&o, o.first, o.second);
}
