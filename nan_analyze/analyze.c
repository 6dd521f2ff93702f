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

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* The ranks are read by the threads of pool_run; each read takes a set of
 * buffers from here and gives it back. */
typedef struct {
    nan_step *st;
    nan_read_opts ro;
    pthread_mutex_t lock;
    nan_scratch **free_sets;
    size_t nfree;
} read_state;

static int read_one(void *arg, size_t i)
{
    read_state *s = arg;
    nan_rank *rk = &s->st->ranks[i];
    pthread_mutex_lock(&s->lock);
    nan_scratch *scratch = s->nfree ? s->free_sets[--s->nfree] : nan_scratch_new();
    pthread_mutex_unlock(&s->lock);
    progress_job *pj = progress_job_begin(rk->label);
    int rc = nan_read_rank(rk, &s->ro, scratch, pj);
    progress_job_end(pj);
    pthread_mutex_lock(&s->lock);
    s->free_sets[s->nfree++] = scratch;
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static int list_ranks(const char *path, int single_rank, nan_step *st)
{
    dumptree_list dirs = {0}, skipped = {0};
    if (single_rank) {
        char *base = path_basename(path);
        int proc;
        long num = dumptree_rank_name(base, &proc);   /* the rule of every analyzer */
        if (num == -3) {
            free(base);
            return err_input(path, "is named with a rank number beyond the integer range");
        }
        if (num < 0 || proc)
            num = 0;
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

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int nan_step_run(const char *path, int single_rank, const nan_opts *o, nan_step *st)
{
    double t0 = now();
    memset(st, 0, sizeof *st);
    st->step_dir = xstrdup(path);
    if (list_ranks(path, single_rank, st) != 0)
        return -1;
    read_state s = {.st = st, .ro = {.all = o->all}};
    pthread_mutex_init(&s.lock, NULL);
    /* at most one set per rank read at once */
    s.free_sets = xcalloc(st->nranks, sizeof *s.free_sets);
    progress_run_begin(&(progress_opts){.jobs = st->nranks, .profile = o->profile});
    int rc = pool_run(st->nranks, o->jobs, read_one, &s, NULL);
    progress_run_end();
    for (size_t i = 0; i < s.nfree; i++)
        nan_scratch_free(s.free_sets[i]);
    free(s.free_sets);
    pthread_mutex_destroy(&s.lock);
    log_warn_totals();
    if (rc != 0)
        return -1;
    cg_rank *cr = xmalloc_array(st->nranks, sizeof *cr);
    for (size_t i = 0; i < st->nranks; i++)
        cr[i] = (cg_rank){.rank = st->ranks[i].rank, .ops = st->ranks[i].ops, .nops = st->ranks[i].nops};
    double t1 = now();
    cg_search(cr, st->nranks, &params, &st->res);
    free(cr);
    if (o->profile) {
        size_t bytes = 0, ops = 0;
        for (size_t i = 0; i < st->nranks; i++) {
            bytes += st->ranks[i].size;
            ops += st->ranks[i].nops;
        }
        log_note("profile: %s: read %zu ranks, %.1f MB, in %.3f s; searched %zu ops in %.3f s", path, st->nranks,
                 (double)bytes / 1e6, t1 - t0, ops, now() - t1);
    }
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
