/* Turning the two paths a user gives into pairs of dump files to compare.
 *
 * A path is a dump.json/debug.json file, a rank directory (holding the
 * file), a step directory (holding rank, rank0, rank1, ... or one
 * proc{PID} directory) or a dump root (holding step0, step1, ...), as the
 * dump-tree walker (model/dumptree.h) finds them. Both sides must be of the
 * same kind. Ranks are sorted by number and paired in order (msprobe pairs
 * them by position); steps are paired by number; each pair of rank
 * directories compares its dump.json (and debug.json when both have one).
 *
 * The one process of a run that is not distributed -- "rank" (msprobe 8.x)
 * or proc{PID} (the newest msprobe; the PIDs of two runs differ) -- pairs
 * with the other side's, whichever way each side names it; the result is
 * named after the target's directory, compare_result_proc{PID}_{stamp}.xlsx
 * as the newest msprobe names it (suffix "_" + the target's name).
 */
#include "compare/pipeline/inputs.h"
#include "base/files.h"
#include "model/dumptree.h"
#include "base/log.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/strbuf.h"

#include <stdlib.h>
#include <string.h>

static void add_job(job_list *jl, const char *npu, const char *bench, const char *stack, const char *out_dir,
                    const char *suffix, const char *label)
{
    GROW(jl->v, jl->cap, jl->n + 1);
    compare_job *j = &jl->v[jl->n++];
    j->npu_json = xstrdup(npu);
    j->bench_json = xstrdup(bench);
    j->stack_json = stack ? xstrdup(stack) : NULL;
    j->out_dir = xstrdup(out_dir);
    j->suffix = xstrdup(suffix);
    j->label = xstrdup(label);
}

/* Where the stack of a target dump.json comes from, per policy. */
static int stack_for(const char *npu_json, const resolve_opts *o, char **stack)
{
    *stack = NULL;
    if (o->stack_policy == STACK_GIVEN) {
        if (o->stack_flag) {
            if (path_require(o->stack_path, 0) != 0)
                return -1;
            *stack = xstrdup(o->stack_path);
        }
        return 0;
    }
    if (o->stack_policy == STACK_NONE || (o->stack_policy == STACK_FLAG && !o->stack_flag))
        return 0;
    char *dir = path_dirname(npu_json);
    char *p = path_join(dir, "stack.json");
    free(dir);
    enum path_kind k = path_kind(p);
    if (k == PATH_FILE) {
        *stack = p;
        return 0;
    }
    if (k != PATH_MISSING && o->stack_policy == STACK_FLAG) {
        /* there, but a link, a directory, a FIFO...: say which */
        path_require(p, 0);
        free(p);
        return -1;
    }
    if (o->stack_policy == STACK_FLAG) {
        err_input(p, "not found: -s shows the NPU_Stack_Info column from the stack.json beside the target dump");
        free(p);
        return -1;
    }
    free(p);
    return 0;
}

static int file_pair(const char *npu, const char *bench, const resolve_opts *o, const char *out_dir,
                     const char *suffix, const char *label, job_list *jl)
{
    char *nb = path_basename(npu), *bb = path_basename(bench);
    int n_debug = !strcmp(nb, "debug.json"), b_debug = !strcmp(bb, "debug.json");
    free(nb);
    free(bb);
    if (n_debug != b_debug)
        return err_input(npu, "cannot be compared with %s: one is a debug.json, the other a dump.json", bench);
    char *stack;
    if (stack_for(npu, o, &stack) != 0)
        return -1;
    add_job(jl, npu, bench, stack, out_dir, suffix, label);
    free(stack);
    return 0;
}

static int rank_pair(const char *npu, const char *bench, const resolve_opts *o, const char *out_dir,
                     const char *suffix, const char *label, job_list *jl)
{
    int found = 0;
    static const char *const files[2] = {"dump.json", "debug.json"};
    for (int f = 0; f < 2; f++) {
        char *a = path_join(npu, files[f]), *b = path_join(bench, files[f]);
        int ha = path_kind(a) == PATH_FILE, hb = path_kind(b) == PATH_FILE;
        int rc = 0;
        if (ha && hb) {
            rc = file_pair(a, b, o, out_dir, suffix, label, jl);
            found = 1;
        } else if (ha != hb && f == 0) {
            rc = path_require(ha ? b : a, 0);
        }
        free(a);
        free(b);
        if (rc)
            return -1;
    }
    if (!found)
        return err_input(npu, "no dump.json or debug.json to compare with %s", bench);
    return 0;
}

static int step_pair(const char *npu, const char *bench, const resolve_opts *o, const char *out_dir,
                     const char *step_label, job_list *jl)
{
    dumptree_list nr, br;
    if (dumptree_ranks(npu, &nr) != 0)
        return -1;
    if (dumptree_ranks(bench, &br) != 0) {
        dumptree_list_free(&nr);
        return -1;
    }
    int rc = 0;
    if (nr.n != br.n) {
        rc = err_input(npu, "has %zu rank directories but %s has %zu: the number of ranks in the two runs are "
                            "different, unable to match the ranks",
                       nr.n, bench, br.n);
    } else if (nr.n == 0) {
        rc = err_input(npu, "holds no rank directory to compare");
    }
    for (size_t i = 0; i < nr.n && rc == 0; i++) {
        const dumptree_dir *a = &nr.v[i], *b = &br.v[i];
        /* the one process of a run that is not distributed is rank 0 for --ranks */
        if (o->ranks && !numlist_has(o->ranks, a->number < 0 ? 0 : a->number))
            continue;
        strbuf suffix = STRBUF_INIT, label = STRBUF_INIT;
        sb_addf(&suffix, "_%s", a->name);
        if (step_label)
            sb_addf(&label, "%s/%s", step_label, a->name);
        else
            sb_adds(&label, a->name);
        /* "rank" and proc{PID} both stand for the one process (number -1) */
        if (a->number != b->number)
            log_warn("pairing target %s with bench %s (ranks are paired in numeric order)", a->path, b->path);
        rc = rank_pair(a->path, b->path, o, out_dir, sb_str(&suffix), sb_str(&label), jl);
        sb_free(&suffix);
        sb_free(&label);
    }
    dumptree_list_free(&nr);
    dumptree_list_free(&br);
    return rc;
}

static int root_pair(const char *npu, const char *bench, const resolve_opts *o, job_list *jl)
{
    dumptree_list ns, bs;
    if (dumptree_steps(npu, &ns) != 0)
        return -1;
    if (dumptree_steps(bench, &bs) != 0) {
        dumptree_list_free(&ns);
        return -1;
    }
    int rc = 0;
    size_t i = 0, k = 0;
    while (rc == 0 && (i < ns.n || k < bs.n)) {
        if (k >= bs.n || (i < ns.n && ns.v[i].number < bs.v[k].number)) {
            rc = err_input(npu, "has %s but %s has not: the steps of the two runs differ", ns.v[i].name, bench);
        } else if (i >= ns.n || bs.v[k].number < ns.v[i].number) {
            rc = err_input(bench, "has %s but %s has not: the steps of the two runs differ", bs.v[k].name, npu);
        } else {
            if (!o->steps || numlist_has(o->steps, ns.v[i].number)) {
                char *out = path_join(o->out_dir, ns.v[i].name);
                rc = step_pair(ns.v[i].path, bs.v[k].path, o, out, ns.v[i].name, jl);
                free(out);
            }
            i++;
            k++;
        }
    }
    dumptree_list_free(&ns);
    dumptree_list_free(&bs);
    return rc;
}

int jobs_resolve(const char *npu, const char *bench, const resolve_opts *o, job_list *jl)
{
    memset(jl, 0, sizeof *jl);
    int kn, kb;
    if (dumptree_classify(npu, &kn) != 0 || dumptree_classify(bench, &kb) != 0)
        return -1;
    if (kn != kb)
        return err_input(npu, "is %s but %s is %s: the target and bench paths need to be of the same kind",
                         dumptree_kind_name(kn), bench, dumptree_kind_name(kb));
    if (o->ranks && kn != DUMPTREE_STEP && kn != DUMPTREE_ROOT)
        return err_input(npu, "is %s: --ranks selects ranks of step directories or dump roots",
                         dumptree_kind_name(kn));
    if (o->steps && kn != DUMPTREE_ROOT)
        return err_input(npu, "is %s: --steps selects steps of a dump root", dumptree_kind_name(kn));
    int rc;
    switch (kn) {
    case DUMPTREE_FILE:
        rc = file_pair(npu, bench, o, o->out_dir, "", "", jl);
        break;
    case DUMPTREE_RANK:
        rc = rank_pair(npu, bench, o, o->out_dir, "", "", jl);
        break;
    case DUMPTREE_STEP:
        rc = step_pair(npu, bench, o, o->out_dir, NULL, jl);
        break;
    default:
        rc = root_pair(npu, bench, o, jl);
        break;
    }
    if (rc == 0 && jl->n == 0)
        rc = err_input(npu, "no rank or step is left to compare after --ranks/--steps");
    if (rc)
        jobs_free(jl);
    return rc;
}

void job_free(compare_job *j)
{
    free(j->npu_json);
    free(j->bench_json);
    free(j->stack_json);
    free(j->out_dir);
    free(j->suffix);
    free(j->label);
}

void jobs_free(job_list *jl)
{
    for (size_t i = 0; i < jl->n; i++)
        job_free(&jl->v[i]);
    free(jl->v);
    memset(jl, 0, sizeof *jl);
}

/* OUT_DIR/PREFIX{suffix}_{stamp}.EXT: every file a job writes is named so. */
char *compare_out_name(const compare_job *job, const char *stamp, const char *prefix, const char *ext)
{
    strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "%s%s_%s.%s", prefix, job->suffix, stamp, ext);
    char *full = path_join(job->out_dir, sb_str(&sb));
    sb_free(&sb);
    return full;
}

char *compare_result_name(const compare_job *job, int format, const char *stamp)
{
    const char *base = strrchr(job->npu_json, '/');
    int debug = !strcmp(base ? base + 1 : job->npu_json, "debug.json");
    return compare_out_name(job, stamp, debug ? "debug_compare_result" : "compare_result", table_ext(format));
}
