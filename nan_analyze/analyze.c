/* One step of a run: its rank directories, read in parallel, then the
 * search over the communication graph (model/commgraph.h) with nan_analyze's
 * rules: msprobe 8.1.0's, with its defects fixed (README, Differences) --
 * ranks in numeric order instead of readdir order, every candidate kept by
 * the grouping (§A.7.4), partners by their exact API, and a rank that a
 * communication op names without a directory skipped with a warning
 * instead of a KeyError. */
#include "nan_analyze/nan.h"
#include "model/dumptree.h"
#include "base/err.h"
#include "base/files.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/pool.h"

#include <stdlib.h>
#include <string.h>

static void engine_log(void *arg, int level, const char *msg)
{
    (void)arg;
    if (level >= CG_WARN)
        log_warn("%s", msg);
}

static const cg_params params = {
    .skip_ignored_first = 0,
    .monotonic_layers = 0,
    .exact_api = 1,
    .grouping_defect = 0,
    .all_compute_ops = 0,
    .keep_all_minima = 0,
    .unconnected_level = CG_INFO,
    .log = engine_log,
    .log_level = CG_WARN,
};

typedef struct {
    nan_step *st;
    nan_read_opts ro;
} read_state;

static int read_one(void *arg, size_t i)
{
    read_state *s = arg;
    nan_rank *rk = &s->st->ranks[i];
    progress_job *pj = progress_job_begin(rk->label);
    int rc = nan_read_rank(rk, &s->ro, pj);
    progress_job_end(pj);
    return rc;
}

static int list_ranks(const char *path, int single_rank, nan_step *st)
{
    dumptree_list dirs = {0}, skipped = {0};
    if (single_rank) {
        char *base = path_basename(path);
        long num = 0;
        if (!strncmp(base, "rank", 4) && base[4]) {
            char *end;
            num = strtol(base + 4, &end, 10);
            if (*end || num < 0)
                num = 0;
        }
        GROW(dirs.v, dirs.cap, 1);
        dirs.v[0] = (dumptree_dir){.name = base, .path = xstrdup(path), .number = num};
        dirs.n = 1;
    } else if (dumptree_ranks_loose(path, &dirs, &skipped) != 0) {
        return -1;
    }
    for (size_t i = 0; i < skipped.n; i++)
        log_warn_as("entries skipped", "%s: '%s' is not a rank directory (rank, rank<N> or proc<PID>): skipped", path,
                    skipped.v[i].name);
    dumptree_list_free(&skipped);
    int rc = 0;
    if (!dirs.n)
        rc = err_input(path, "holds no rank directory (rank, rank0, rank1, ... or proc{PID})");
    st->ranks = xcalloc(dirs.n ? dirs.n : 1, sizeof *st->ranks);
    for (size_t i = 0; i < dirs.n && rc == 0; i++) {
        nan_rank *rk = &st->ranks[st->nranks++];
        /* "rank" and proc{PID}: the one process of a run, rank 0 */
        rk->rank = dirs.v[i].number < 0 ? 0 : dirs.v[i].number;
        rk->label = xstrdup(dirs.v[i].name);
        rk->dir = xstrdup(dirs.v[i].path);
        rk->dump_path = dumptree_file(rk->dir, "dump.json");
        /* every dump.json is there before any is read */
        if (!rk->dump_path)
            rc = err_input(rk->dir, "holds no dump.json");
    }
    dumptree_list_free(&dirs);
    return rc;
}

int nan_step_run(const char *path, int single_rank, const nan_opts *o, nan_step *st)
{
    memset(st, 0, sizeof *st);
    st->step_dir = xstrdup(path);
    if (list_ranks(path, single_rank, st) != 0)
        return -1;
    read_state s = {.st = st, .ro = {.all = o->all}};
    progress_run_begin(&(progress_opts){.jobs = st->nranks});
    int rc = pool_run(st->nranks, o->jobs, read_one, &s, NULL);
    progress_run_end();
    log_warn_totals();
    if (rc != 0)
        return -1;
    cg_rank *cr = xmalloc_array(st->nranks, sizeof *cr);
    for (size_t i = 0; i < st->nranks; i++)
        cr[i] = (cg_rank){.rank = st->ranks[i].rank, .ops = st->ranks[i].ops, .nops = st->ranks[i].nops};
    cg_search(cr, st->nranks, &params, &st->res);
    free(cr);
    return 0;
}

void nan_step_free(nan_step *st)
{
    for (size_t i = 0; i < st->nranks; i++)
        nan_rank_free(&st->ranks[i]);
    free(st->ranks);
    free(st->step_dir);
    cg_result_free(&st->res);
    memset(st, 0, sizeof *st);
}
