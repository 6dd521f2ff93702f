/* A graph run (spec §2.3-§2.5): what the paths are (a rank directory, a
 * step directory, a dump root), their ranks and steps paired, each step
 * built (and compared) rank by rank in parallel, its ranks linked (§7), its
 * results written; one time stamp for every name of the run; a failed run
 * takes back what it wrote. */
#include "graph/run.h"
#include "graph/compare/match.h"
#include "graph/model/dist.h"
#include "graph/model/graph.h"
#include "graph/model/rank.h"
#include "graph/model/steps.h"
#include "graph/write/page/page.h"
#include "graph/write/vis.h"
#include "graph/write/visdb.h"
#include "base/err.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/outdir.h"
#include "base/pool.h"
#include "base/progress.h"
#include "model/dumptree.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the paths -------------------------------------------------------------- */

enum { LEVEL_RANK, LEVEL_STEP, LEVEL_ROOT };

static int classify(const char *path, int *level)
{
    if (path_kind(path) == PATH_FILE)
        return err_input(path, "is a file; graph takes a directory: a rank directory (dump.json, construct.json, "
                               "stack.json), a step directory (rank0, rank1, ...) or a dump root (step0, step1, ...)");
    if (path_kind(path) == PATH_DIR) {
        char **names;
        long n = dir_list(path, &names);
        if (n < 0)
            return -1;
        names_free(names, n);
        if (n == 0)
            return err_input(path, "is empty");
    }
    int kind;
    if (dumptree_classify(path, &kind) != 0)
        return -1;
    *level = kind == DUMPTREE_ROOT ? LEVEL_ROOT : kind == DUMPTREE_STEP ? LEVEL_STEP : LEVEL_RANK;
    return 0;
}

static const char *level_name(int level)
{
    return level == LEVEL_ROOT ? "a dump root" : level == LEVEL_STEP ? "a step directory" : "a rank directory";
}

/* rank -> 0, rank12 -> 12, proc{PID} -> 0 (a run of one process) */
static long rank_number(const dumptree_dir *d) { return d->naming == DUMPTREE_NUMBERED ? d->number : 0; }

/* One rank (pair) of one step. */
typedef struct {
    char *label;            /* "rank0", "step1/rank0" */
    char *npu_dir, *bench_dir;
    long rank, step;
    char *out_path;         /* the .vis of this rank (GF_VIS), and its page */
    char *page_path;
    rankdata n, b;
    graph gn, gb;
    gcompare cmp;
    int have_n, have_b, have_gn, have_gb, have_cmp;
    progress_job *pj;
} rank_job;

typedef struct {
    rank_job *v;
    size_t n;
} step_jobs;

typedef struct {
    const graph_opts *o;
    int compare;
    int threads_per_job;
    step_jobs *steps;
    size_t nsteps;
    char stamp[15];
    out_run *outputs;
    const char *out_dir;
    visdb *db;              /* the .vis.db being written (GF_DB) */
    int ranks_given;        /* a step directory or a dump root, not a rank directory */
} run_ctx;

static void job_release(rank_job *j)
{
    if (j->have_cmp)
        gcompare_free(&j->cmp);
    if (j->have_gn)
        graph_free(&j->gn);
    if (j->have_gb)
        graph_free(&j->gb);
    if (j->have_n)
        rank_free(&j->n);
    if (j->have_b)
        rank_free(&j->b);
    j->have_cmp = j->have_gn = j->have_gb = j->have_n = j->have_b = 0;
}

static void rank_job_free(rank_job *j)
{
    job_release(j);
    free(j->label);
    free(j->npu_dir);
    free(j->bench_dir);
    free(j->out_path);
    free(j->page_path);
}

/* Keep in a and b the names both hold (in a's order, b's entries at the
 * same places). 0. */
static int common_names(dumptree_list *a, dumptree_list *b)
{
    size_t w = 0;
    for (size_t i = 0; i < a->n; i++) {
        size_t j = 0;
        while (j < b->n && strcmp(a->v[i].name, b->v[j].name) != 0)
            j++;
        if (j == b->n) {
            free(a->v[i].name);
            free(a->v[i].path);
            continue;
        }
        /* b's match goes to place w (swapped, so nothing is lost) */
        dumptree_dir t = b->v[w];
        b->v[w] = b->v[j];
        b->v[j] = t;
        a->v[w++] = a->v[i];
    }
    for (size_t j = w; j < b->n; j++) {
        free(b->v[j].name);
        free(b->v[j].path);
    }
    a->n = b->n = w;
    return 0;
}

/* The pairs of rank directories of two step directories: by name; one
 * rank/proc directory on each side pairs whatever its name. */
static int pair_ranks(const char *npu, const char *bench, const char *step, long stepno, run_ctx *rc,
                      step_jobs *sj)
{
    dumptree_list nr, br;
    memset(&br, 0, sizeof br);
    if (dumptree_ranks(npu, &nr) != 0)
        return -1;
    if (bench && dumptree_ranks(bench, &br) != 0) {
        dumptree_list_free(&nr);
        return -1;
    }
    int res = 0;
    if (nr.n == 0)
        res = err_input(npu, "holds no rank directory");
    int single = bench && nr.n == 1 && br.n == 1 && nr.v[0].naming != DUMPTREE_NUMBERED &&
                 br.v[0].naming != DUMPTREE_NUMBERED;
    if (res == 0 && bench && !single && graph_newest_rules(rc->o)) {
        /* the newest msprobe compares the ranks both runs have */
        res = common_names(&nr, &br);
        if (res == 0 && nr.n == 0)
            res = err_input(bench, "has none of the ranks of %s: The ranks in the two runs are completely "
                                   "different. Unable to match the ranks.",
                            npu);
    }
    if (res == 0 && bench && !single) {
        int same = nr.n == br.n;
        for (size_t i = 0; i < nr.n && same; i++)
            same = !strcmp(nr.v[i].name, br.v[i].name);
        if (!same)
            res = err_input(bench, "has other ranks than %s: The number of ranks in the two runs are different. Unable "
                                   "to match the ranks.",
                            npu);
    }
    if (res == 0) {
        sj->v = xcalloc(nr.n, sizeof *sj->v);
        sj->n = nr.n;
        for (size_t i = 0; i < nr.n; i++) {
            rank_job *j = &sj->v[i];
            j->npu_dir = xstrdup(nr.v[i].path);
            j->bench_dir = bench ? xstrdup(br.v[i].path) : NULL;
            j->rank = rank_number(&nr.v[i]);
            j->step = stepno;
            strbuf l = STRBUF_INIT;
            if (step)
                sb_addf(&l, "%s/", step);
            sb_adds(&l, nr.v[i].name);
            j->label = sb_detach(&l);
            /* build_{step}_{rank}_{ts}.vis */
            strbuf base = STRBUF_INIT;
            sb_addf(&base, "%s_", rc->compare ? "compare" : "build");
            if (step)
                sb_addf(&base, "%s_", step);
            sb_adds(&base, nr.v[i].name);
            j->out_path = sb_detach(&base);
        }
    }
    dumptree_list_free(&nr);
    dumptree_list_free(&br);
    return res;
}

static int plan(const char *npu, const char *bench, run_ctx *rc)
{
    int ln, lb = -1;
    if (classify(npu, &ln) != 0)
        return -1;
    if (bench) {
        if (classify(bench, &lb) != 0)
            return -1;
        if (ln != lb)
            return err_input(bench, "is %s, %s is %s: The directory structures of npu_path and bench_path are "
                                    "inconsistent.",
                             level_name(lb), npu, level_name(ln));
    }
    rc->ranks_given = ln != LEVEL_RANK;
    if (ln == LEVEL_RANK) {
        rc->steps = xcalloc(1, sizeof *rc->steps);
        rc->nsteps = 1;
        rank_job *j = rc->steps[0].v = xcalloc(1, sizeof *j);
        rc->steps[0].n = 1;
        j->npu_dir = xstrdup(npu);
        j->bench_dir = bench ? xstrdup(bench) : NULL;
        j->label = xstrdup("rank");
        j->out_path = xstrdup(rc->compare ? "compare" : "build");
        return 0;
    }
    if (ln == LEVEL_STEP) {
        rc->steps = xcalloc(1, sizeof *rc->steps);
        rc->nsteps = 1;
        return pair_ranks(npu, bench, NULL, 0, rc, &rc->steps[0]);
    }
    dumptree_list ns, bs;
    memset(&bs, 0, sizeof bs);
    if (dumptree_steps(npu, &ns) != 0)
        return -1;
    if (bench && dumptree_steps(bench, &bs) != 0) {
        dumptree_list_free(&ns);
        return -1;
    }
    int res = 0;
    if (bench && graph_newest_rules(rc->o)) {
        /* the newest msprobe compares the steps both runs have */
        common_names(&ns, &bs);
        if (ns.n == 0)
            res = err_input(bench, "has none of the steps of %s: Two steps cannot obtain intersection.", npu);
    }
    if (bench && res == 0) {
        int same = ns.n == bs.n;
        for (size_t i = 0; i < ns.n && same; i++)
            same = !strcmp(ns.v[i].name, bs.v[i].name);
        if (!same)
            res = err_input(bench, "has other steps than %s: The number of steps in the two runs is different. Unable "
                                   "to match the steps.",
                            npu);
    }
    if (res == 0 && ns.n == 0)
        res = err_input(npu, "holds no step directory");
    if (res == 0) {
        rc->steps = xcalloc(ns.n, sizeof *rc->steps);
        for (size_t i = 0; i < ns.n && res == 0; i++) {
            res = pair_ranks(ns.v[i].path, bench ? bs.v[i].path : NULL, ns.v[i].name, ns.v[i].number, rc,
                             &rc->steps[i]);
            rc->nsteps = i + 1;
        }
    }
    dumptree_list_free(&ns);
    dumptree_list_free(&bs);
    return res;
}

/* ---- names: one stamp for the run, none taken ---------------------------- */

static char *final_name(const run_ctx *rc, const char *base, const char *stamp, const char *ext)
{
    strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "%s_%s%s", base, stamp, ext);
    char *name = sb_detach(&sb);
    char *p = path_join(rc->out_dir, name);
    free(name);
    return p;
}

static int any_taken(const run_ctx *rc, const char *stamp)
{
    const char *exts[2] = {rc->o->format == GF_DB ? NULL : ".vis", rc->o->html ? ".html" : NULL};
    if (rc->o->format == GF_DB) {
        char *p = final_name(rc, rc->compare ? "compare" : "build", stamp, ".vis.db");
        int t = out_name_taken(p);
        free(p);
        if (t)
            return 1;
    }
    for (size_t s = 0; s < rc->nsteps; s++)
        for (size_t k = 0; k < rc->steps[s].n; k++)
            for (int e = 0; e < 2; e++) {
                if (!exts[e])
                    continue;
                char *p = final_name(rc, rc->steps[s].v[k].out_path, stamp, exts[e]);
                int t = out_name_taken(p);
                free(p);
                if (t)
                    return 1;
            }
    return 0;
}

static void choose_stamp(run_ctx *rc)
{
    time_stamp(rc->stamp);
    for (int i = 0; i < 100000 && any_taken(rc, rc->stamp); i++) {
        char next[15];
        if (stamp_next(rc->stamp, next) != 0)
            break;
        memcpy(rc->stamp, next, 15);
    }
    for (size_t s = 0; s < rc->nsteps; s++)
        for (size_t k = 0; k < rc->steps[s].n; k++) {
            rank_job *j = &rc->steps[s].v[k];
            char *base = j->out_path;
            j->out_path = final_name(rc, base, rc->stamp, ".vis");
            j->page_path = final_name(rc, base, rc->stamp, ".html");
            free(base);
        }
}

/* ---- one rank (pair) -------------------------------------------------------- */

typedef struct {
    run_ctx *rc;
    step_jobs *sj;
    int threads;            /* threads of one rank job: the cores the ranks leave */
} step_arg;

/* Loading and building one side of a rank job. */
typedef struct {
    rank_job *j;
    const graph_opts *o;
    unsigned need;
} side_arg;

static int load_build(void *arg, size_t i)
{
    side_arg *s = arg;
    rank_job *j = s->j;
    rankdata *rd = i ? &j->b : &j->n;
    graph *g = i ? &j->gb : &j->gn;
    if (rank_load(rd, i ? j->bench_dir : j->npu_dir, s->need, j->pj) != 0 || graph_build(g, rd, s->o) != 0)
        return -1;
    g->side = (int)i + 1;
    g->rank = j->rank;
    return 0;
}

static int build_job(void *arg, size_t i)
{
    step_arg *sa = arg;
    run_ctx *rc = sa->rc;
    rank_job *j = &sa->sj->v[i];
    const graph_opts *o = rc->o;
    unsigned need = (o->overflow_check ? RANK_NEED_OVERFLOW : 0) | (rc->compare ? RANK_NEED_MD5 : 0);
    j->pj = progress_job_begin(j->label);
    progress_phase(j->pj, "load", 0, PROGRESS_BYTES);
    /* both sides at once when there are threads to spare */
    j->have_n = j->have_gn = 1;
    j->have_b = j->have_gb = rc->compare;
    side_arg s = {j, o, need};
    if (pool_run(rc->compare ? 2 : 1, sa->threads, load_build, &s, NULL) != 0)
        return -1;
    if (rc->compare) {
        progress_phase(j->pj, "compare", 0, PROGRESS_ITEMS);
        memset(&j->cmp, 0, sizeof j->cmp);
        j->have_cmp = 1;
        j->cmp.n = &j->gn;
        j->cmp.b = &j->gb;
        j->cmp.o = o;
        j->cmp.pj = j->pj;
        if (gcompare_task(&j->n, &j->b, &j->cmp.task) != 0 || gcompare_setup(&j->cmp) != 0 ||
            gcompare_run(&j->cmp) != 0)
            return -1;
    }
    graph_micro_steps(&j->gn, rc->compare ? &j->gb : NULL);
    if (o->overflow_check) {
        graph_overflow(&j->gn);
        if (rc->compare)
            graph_overflow(&j->gb);
    }
    return 0;
}

/* One line on standard output per result, as soon as it is written; the
 * compare is named as a user knows it (the .vis says summary and all). */
static void result_line(const run_ctx *rc, const rank_job *j)
{
    static const char *const task_words[] = {[TASK_SUMMARY] = "statistics", [TASK_MD5] = "md5",
                                             [TASK_REAL] = "tensor", [TASK_STRUCTURE] = "structure"};
    strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "%s: %zu nodes", j->label, j->gn.n);
    if (rc->compare) {
        size_t matched = 0;
        for (size_t i = 0; i < j->gn.n; i++)
            matched += j->gn.nodes[i].link_side != 0;
        sb_addf(&sb, " (Bench %zu), %zu matched, %s", j->gb.n, matched, task_words[j->cmp.task]);
    }
    if (rc->o->format == GF_VIS)
        sb_addf(&sb, " -> %s", j->out_path);
    if (rc->o->html)
        sb_addf(&sb, "%s%s", rc->o->format == GF_VIS ? ", " : " -> ", j->page_path);
    log_info("%s", sb_str(&sb));
    sb_free(&sb);
}

static int write_job(void *arg, size_t i)
{
    step_arg *sa = arg;
    run_ctx *rc = sa->rc;
    rank_job *j = &sa->sj->v[i];
    progress_phase(j->pj, "write", 0, PROGRESS_ITEMS);
    int res = 0;
    if (rc->o->format == GF_VIS) {
        char *path = j->out_path;
        j->out_path = NULL;
        res = vis_write(&path, &j->gn, rc->compare ? &j->gb : NULL, rc->compare ? &j->cmp : NULL,
                        rc->o->overflow_check, sa->threads);
        j->out_path = path;
        if (res == 0)
            out_run_add(rc->outputs, j->out_path);
    }
    if (res == 0 && rc->o->html) {
        char *path = j->page_path;
        j->page_path = NULL;
        res = page_write(&path, rc->o->format == GF_VIS ? j->out_path : NULL, &j->gn, rc->compare ? &j->gb : NULL,
                         rc->compare ? &j->cmp : NULL, rc->o->overflow_check, sa->threads);
        j->page_path = path;
        if (res == 0)
            out_run_add(rc->outputs, j->page_path);
    }
    if (res == 0)
        result_line(rc, j);
    progress_job_end(j->pj);
    return res;
}

static int run_step(run_ctx *rc, step_jobs *sj)
{
    int jobs = rc->o->jobs > 0 ? rc->o->jobs : 1;
    size_t at_once = sj->n < (size_t)jobs ? sj->n : (size_t)jobs;
    step_arg sa = {rc, sj, (int)((size_t)jobs / (at_once ? at_once : 1))};
    if (pool_run(sj->n, rc->o->jobs, build_job, &sa, NULL) != 0)
        return -1;
    /* 8.1.0 links the ranks of a step when there are several; the newest
     * msprobe those of every step and rank directory it was given */
    int newest = graph_newest_rules(rc->o);
    if (sj->n > 1 || (newest && rc->ranks_given)) {
        graph **gs = xmalloc_array(sj->n, sizeof *gs);
        for (size_t k = 0; k < sj->n; k++)
            gs[k] = &sj->v[k].gn;
        graph_distributed(gs, sj->n, rc->o->overflow_check, newest);
        if (rc->compare) {
            for (size_t k = 0; k < sj->n; k++)
                gs[k] = &sj->v[k].gb;
            graph_distributed(gs, sj->n, rc->o->overflow_check, newest);
        }
        free(gs);
    }
    if (rc->o->format == GF_DB)
        for (size_t k = 0; k < sj->n; k++)
            if (visdb_add(rc->db, &sj->v[k].gn, rc->compare ? &sj->v[k].gb : NULL,
                          rc->compare ? &sj->v[k].cmp : NULL, sj->v[k].step, sj->v[k].rank) != 0)
                return -1;
    int res = pool_run(sj->n, rc->o->jobs, write_job, &sa, NULL);
    return res;
}

int graph_run(const char *npu, const char *bench, const char *out_dir, const graph_opts *o)
{
    run_ctx rc;
    memset(&rc, 0, sizeof rc);
    rc.o = o;
    rc.compare = bench != NULL;
    rc.out_dir = out_dir;
    rc.outputs = out_run_new();
    int status = EXIT_OK;
    size_t total = 0;
    if (plan(npu, bench, &rc) != 0)
        goto fail;
    for (size_t s = 0; s < rc.nsteps; s++)
        total += rc.steps[s].n;
    if (out_run_mkdir(rc.outputs, out_dir) != 0)
        goto fail;
    choose_stamp(&rc);
    if (o->format == GF_DB) {
        char *p = final_name(&rc, rc.compare ? "compare" : "build", rc.stamp, ".vis.db");
        rc.db = visdb_open(p, rc.compare);
        free(p);
        if (!rc.db)
            goto fail;
    }
    progress_run_begin(&(progress_opts){.jobs = total, .profile = o->profile});
    int failed = 0;
    for (size_t s = 0; s < rc.nsteps && !failed; s++) {
        if (run_step(&rc, &rc.steps[s]) != 0)
            failed = 1;
        for (size_t k = 0; k < rc.steps[s].n; k++)
            job_release(&rc.steps[s].v[k]);
    }
    if (!failed && rc.db) {
        char *path = NULL;
        if (visdb_finish(rc.db, &path, o->overflow_check) != 0) {
            failed = 1;
        } else {
            out_run_add(rc.outputs, path);
            log_info("%s", path);
        }
        rc.db = NULL;
        free(path);
    }
    progress_run_end();
    log_warn_totals();
    if (!failed)
        goto done;
fail:
    status = err_report();
    if (rc.db)
        visdb_abort(rc.db);
    out_run_rollback(rc.outputs);
done:
    for (size_t s = 0; s < rc.nsteps; s++) {
        for (size_t k = 0; k < rc.steps[s].n; k++)
            rank_job_free(&rc.steps[s].v[k]);
        free(rc.steps[s].v);
    }
    free(rc.steps);
    out_run_free(rc.outputs);
    return status;
}
