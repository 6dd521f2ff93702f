/* Checkpoint compare (spec/configcheck.md §B.8, §B.9): for every parameter
 * both checkpoints have, l2 = ||a - b||, cos = a.b / (|a| |b|), numel and
 * shape, in float32 as msprobe computes them after tensor.float().
 *
 * Nothing is merged or copied: each piece of one side (a tensor-parallel
 * shard, a torch_dist chunk) is streamed against the overlapping part of
 * each piece of the other side, as views into the mapped files, through the
 * sums kernel of model/tensor_sums.h. The work -- piece overlaps cut into
 * ranges of at most SPLIT elements -- runs on every core; the sums of a
 * parameter are added in a fixed order, so the results do not depend on
 * the threads. */
#include "config_check/cc.h"
#include "config_check/ckpt.h"
#include "base/err.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/outdir.h"
#include "base/outstream.h"
#include "base/pool.h"
#include "base/progress.h"
#include "base/strbuf.h"
#include "format/jsonw.h"
#include "model/metrics.h"
#include "model/table.h"
#include "model/tensor_sums.h"
#include "py/numfmt.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { SPLIT = 1 << 22 };

enum { W_SUMS, W_ALLCLOSE };

/* A range of one overlap of a piece x of side a with a piece y of side b
 * (W_SUMS), or a replica y checked against x (W_ALLCLOSE). The views are
 * made when the work runs: a `tensor` is 1 KB of fixed arrays, and a
 * checkpoint of many small tensors has a work item for each. */
typedef struct {
    const ck_side *sa, *sb;
    const ck_piece *x, *y;
    size_t start, count;
    tensor_sums sums;
    uint32_t param;          /* result index (W_SUMS) or side param index (W_ALLCLOSE) */
    uint8_t kind, close;
} work;

typedef struct {
    const ck_param *pa, *pb;
    double l2, cos;
    uint8_t same_shape, cos_null;
} result;

typedef struct {
    work *v;                 /* NULL while the items are only counted */
    size_t n;
    progress_job *pj;
} plan;

/* The box [lo, hi) where pieces x and y overlap in the full tensor; 0
 * when they do not. */
static int overlap(const ck_piece *x, const ck_piece *y, int ndim, int64_t *lo, int64_t *hi)
{
    for (int d = 0; d < ndim; d++) {
        lo[d] = CK_AT(x, d) > CK_AT(y, d) ? CK_AT(x, d) : CK_AT(y, d);
        int64_t ex = CK_AT(x, d) + CK_SIZE(x, d), ey = CK_AT(y, d) + CK_SIZE(y, d);
        hi[d] = ex < ey ? ex : ey;
        if (lo[d] >= hi[d])
            return 0;
    }
    return 1;
}

/* The part of piece x inside the box [lo, hi) of the full tensor. */
static int sub_view(const ck_piece *x, const int64_t *lo, const int64_t *hi, int ndim, const char *path, tensor *out)
{
    ck_piece_view(x, out);
    int64_t shape[TENSOR_MAX_DIMS], offset = out->offset;
    for (int d = 0; d < ndim; d++) {
        offset += (lo[d] - CK_AT(x, d)) * CK_STRIDE(x, d);
        shape[d] = hi[d] - lo[d];
    }
    if (tensor_set_shape(out, path, ndim, shape, 0) != 0)
        return -1;
    for (int d = 0; d < ndim; d++)
        out->stride[d] = CK_STRIDE(x, d);
    out->offset = offset;
    return tensor_check_view(out, path);
}

/* The two views a work item reads. */
static int work_views(const work *w, tensor *a, tensor *b)
{
    if (w->kind == W_ALLCLOSE) {
        ck_piece_view(w->x, a);
        ck_piece_view(w->y, b);
        return 0;
    }
    int64_t lo[TENSOR_MAX_DIMS], hi[TENSOR_MAX_DIMS];
    overlap(w->x, w->y, w->x->ndim, lo, hi);
    if (sub_view(w->x, lo, hi, w->x->ndim, w->sa->files[w->x->src].path, a) != 0
        || sub_view(w->y, lo, hi, w->x->ndim, w->sb->files[w->y->src].path, b) != 0)
        return -1;
    return 0;
}

/* (When p->v is NULL, the items are counted: the plan is made twice, so
 * that its array is allocated once, at its size.) */
static void add_work(plan *p, const work *w)
{
    size_t n = w->count;
    for (size_t s = 0; s < n || (n == 0 && s == 0); s += SPLIT) {
        if (!p->v) {
            p->n++;
            if (n == 0)
                break;
            continue;
        }
        p->v[p->n] = *w;
        p->v[p->n].start = s;
        p->v[p->n].count = n - s < SPLIT ? n - s : SPLIT;
        p->n++;
        if (n == 0)
            break;
    }
}

/* Every overlap of a piece of pa with a piece of pb (its views checked
 * here, made again when the work runs). */
static int plan_param(plan *p, size_t r, const ck_side *a, const ck_param *pa, const ck_side *b, const ck_param *pb)
{
    for (size_t i = 0; i < pa->npieces; i++)
        for (size_t k = 0; k < pb->npieces; k++) {
            work w = {.sa = a, .sb = b, .x = &pa->pieces[i], .y = &pb->pieces[k], .param = (uint32_t)r,
                      .kind = W_SUMS};
            int64_t lo[TENSOR_MAX_DIMS], hi[TENSOR_MAX_DIMS];
            if (!overlap(w.x, w.y, pa->ndim, lo, hi))
                continue;
            w.count = 1;
            for (int d = 0; d < pa->ndim; d++)
                w.count *= (size_t)(hi[d] - lo[d]);
            if (p->v) {
                tensor va, vb;
                if (work_views(&w, &va, &vb) != 0)
                    return -1;
            }
            add_work(p, &w);
        }
    return 0;
}

static void plan_replicas(plan *p, const ck_side *s)
{
    for (size_t i = 0; i < s->n; i++) {
        const ck_param *prm = &s->params[i];
        for (size_t k = 0; k < prm->nreplicas; k++) {
            const ck_piece *x = &prm->pieces[0], *y = &prm->replicas[k];
            work w = {.sa = s, .sb = s, .x = x, .y = y, .param = (uint32_t)i, .kind = W_ALLCLOSE};
            w.close = x->ndim == y->ndim && x->numel == y->numel;
            for (int d = 0; w.close && d < x->ndim; d++)
                w.close = CK_SIZE(x, d) == CK_SIZE(y, d);
            w.count = w.close ? x->numel : 0;
            if (p->v)
                p->v[p->n] = w;
            p->n++;
        }
    }
}

static int run_work(void *arg, size_t i)
{
    plan *p = arg;
    work *w = &p->v[i];
    if (!w->count && w->kind == W_SUMS)
        return 0;
    if (w->kind == W_ALLCLOSE && !w->close)
        return 0;
    tensor a, b;
    if (work_views(w, &a, &b) != 0)
        return -1;
    file_guard ga, gb;
    file_guard_begin(&ga, &w->sa->files[w->x->src]);
    file_guard_begin(&gb, &w->sb->files[w->y->src]);
    if (w->kind == W_SUMS)
        tensor_sums_add(&a, &b, w->start, w->count, 0, &w->sums);
    else
        w->close = (uint8_t)tensor_allclose(&a, &b, 0, w->count);
    int rc = 0;
    if (file_guard_end(&gb) != 0)
        rc = -1;
    if (file_guard_end(&ga) != 0)
        rc = -1;
    progress_add(p->pj, (uint64_t)w->count * (dtype_size(a.dtype) + dtype_size(b.dtype)));
    return rc;
}

static uint64_t numel(const ck_param *p)
{
    uint64_t n = 1;
    for (int d = 0; d < p->ndim; d++)
        n *= (uint64_t)p->shape[d];
    return n;
}

/* msprobe's float32 arithmetic on the sums: norms and dot rounded to
 * float32, their quotient too. */
static void finish(result *r, const tensor_sums *sums)
{
    float dd = (float)sums->dd, aa = (float)sums->aa, bb = (float)sums->bb, dot = (float)sums->dot;
    r->l2 = sqrtf(dd);
    float na = sqrtf(aa), nb = sqrtf(bb);
    r->cos_null = 0;
    if (na == 0 && nb == 0) {
        r->cos = 1.0;
    } else if (na == 0 || nb == 0) {
        r->cos_null = 1;
        log_warn_as("parameters with one zero norm", "One tensor norm is zero: %s (cos is null)", r->pa->name);
    } else {
        float denom = na * nb;
        r->cos = (float)(dot / denom);
    }
}

/* ---- output ------------------------------------------------------------------- */

static void json_dims(strbuf *sb, const ck_param *p, int level)
{
    if (!p->ndim) {
        sb_adds(sb, "[]");
        return;
    }
    sb_addc(sb, '[');
    for (int d = 0; d < p->ndim; d++) {
        if (d)
            sb_addc(sb, ',');
        jsonw_newline(sb, 4, level + 1);
        sb_addf(sb, "%lld", (long long)p->shape[d]);
    }
    jsonw_newline(sb, 4, level);
    sb_addc(sb, ']');
}

static void json_result(strbuf *sb, const result *r)
{
    sb_adds(sb, "{");
    jsonw_newline(sb, 4, 2);
    sb_adds(sb, "\"l2\": ");
    if (r->same_shape)
        jsonw_double(sb, r->l2);
    else
        sb_adds(sb, "null");
    sb_addc(sb, ',');
    jsonw_newline(sb, 4, 2);
    sb_adds(sb, "\"cos\": ");
    if (r->same_shape && !r->cos_null)
        jsonw_double(sb, r->cos);
    else
        sb_adds(sb, "null");
    sb_addc(sb, ',');
    jsonw_newline(sb, 4, 2);
    sb_adds(sb, "\"numel\": ");
    uint64_t na = numel(r->pa), nb = numel(r->pb);
    if (na == nb) {
        sb_addf(sb, "%llu", (unsigned long long)na);
    } else {
        sb_addc(sb, '[');
        jsonw_newline(sb, 4, 3);
        sb_addf(sb, "%llu,", (unsigned long long)na);
        jsonw_newline(sb, 4, 3);
        sb_addf(sb, "%llu", (unsigned long long)nb);
        jsonw_newline(sb, 4, 2);
        sb_addc(sb, ']');
    }
    sb_addc(sb, ',');
    jsonw_newline(sb, 4, 2);
    sb_adds(sb, "\"shape\": ");
    if (r->same_shape) {
        json_dims(sb, r->pa, 2);
    } else {
        sb_addc(sb, '[');
        jsonw_newline(sb, 4, 3);
        json_dims(sb, r->pa, 3);
        sb_addc(sb, ',');
        jsonw_newline(sb, 4, 3);
        json_dims(sb, r->pb, 3);
        jsonw_newline(sb, 4, 2);
        sb_addc(sb, ']');
    }
    jsonw_newline(sb, 4, 1);
    sb_addc(sb, '}');
}

/* json.dump(results, indent=4): parameters in name order (msprobe: the
 * order of a Python set). */
static int write_json(const char *path, const result *r, size_t n, out_run *run)
{
    out_stream os;
    if (out_stream_open(&os, xstrdup(path)) != 0) {
        out_stream_close(&os);
        free(os.path);
        return -1;
    }
    strbuf *sb = &os.sb;
    int rc = 0;
    sb_addc(sb, '{');
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (i)
            sb_addc(sb, ',');
        jsonw_newline(sb, 4, 1);
        jsonw_str_ascii(sb, r[i].pa->name, strlen(r[i].pa->name));
        sb_adds(sb, ": ");
        json_result(sb, &r[i]);
        rc = out_stream_flush(&os, OUT_STREAM_CHUNK);
    }
    sb_adds(sb, n ? "\n}" : "}");
    /* replaced only with --force: out_named refused it otherwise */
    if (rc == 0)
        rc = out_stream_commit_replace(&os, run, "result");
    out_stream_close(&os);
    free(os.path);
    return rc;
}

static void dims_text(strbuf *sb, const ck_param *p)
{
    sb_addc(sb, '[');
    for (int d = 0; d < p->ndim; d++)
        sb_addf(sb, "%s%lld", d ? ", " : "", (long long)p->shape[d]);
    sb_addc(sb, ']');
}

/* The largest differences first: shapes that differ, then l2 from the
 * largest (NaN first), then cos from the smallest, then by name. */
static int rank_of(const result *r) { return !r->same_shape ? 0 : isnan(r->l2) ? 1 : 2; }

static int diff_cmp(const void *x, const void *y)
{
    const result *a = x, *b = y;
    int ra = rank_of(a), rb = rank_of(b);
    if (ra != rb)
        return ra - rb;
    if (ra == 2 && a->l2 != b->l2)
        return a->l2 > b->l2 ? -1 : 1;
    if (ra == 2) {
        double ca = a->cos_null ? -INFINITY : a->cos, cb = b->cos_null ? -INFINITY : b->cos;
        if (ca != cb && !(isnan(ca) && isnan(cb)))
            return isnan(ca) ? -1 : isnan(cb) ? 1 : ca < cb ? -1 : 1;
    }
    return strcmp(a->pa->name, b->pa->name);
}

static int write_table(const char *path, int fmt, result *r, size_t n, out_run *run)
{
    static const char *const header[] = {"name", "l2", "cos", "numel", "shape"};
    result *sorted = xmalloc_array(n ? n : 1, sizeof *sorted);
    memcpy(sorted, r, n * sizeof *r);
    qsort(sorted, n, sizeof *sorted, diff_cmp);
    table_writer *t = table_open_opts(path, fmt, "ckpt_similarity", header, 5, TABLE_PANDAS_HEADER);
    int rc = t ? 0 : -1;
    strbuf ne = STRBUF_INIT, sh = STRBUF_INIT;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const result *x = &sorted[i];
        sb_reset(&ne);
        sb_reset(&sh);
        uint64_t na = numel(x->pa), nb = numel(x->pb);
        if (na == nb) {
            sb_addf(&ne, "%llu", (unsigned long long)na);
        } else {
            sb_addf(&ne, "[%llu, %llu]", (unsigned long long)na, (unsigned long long)nb);
        }
        if (x->same_shape) {
            dims_text(&sh, x->pa);
        } else {
            sb_addc(&sh, '[');
            dims_text(&sh, x->pa);
            sb_adds(&sh, ", ");
            dims_text(&sh, x->pb);
            sb_addc(&sh, ']');
        }
        cell row[5] = {cell_str(x->pa->name, strlen(x->pa->name)), {CELL_EMPTY, 0, NULL, 0}, {CELL_EMPTY, 0, NULL, 0},
                       na == nb ? cell_num((double)na) : cell_str(sb_str(&ne), ne.len), cell_str(sb_str(&sh), sh.len)};
        if (x->same_shape)
            row[1] = cell_num(x->l2);
        if (x->same_shape && !x->cos_null)
            row[2] = cell_num(x->cos);
        rc = table_row(t, row, FILL_NONE);
    }
    sb_free(&ne);
    sb_free(&sh);
    free(sorted);
    if (rc != 0) {
        if (t)
            table_abort(t);
        return -1;
    }
    return table_close_replace(t, run, "result");
}

/* ---- the run ---------------------------------------------------------------- */

static void only_in(const ck_side *s, const ck_side *other, const char *label)
{
    size_t n = 0, j = 0;
    strbuf names = STRBUF_INIT;
    for (size_t i = 0; i < s->n; i++) {
        while (j < other->n && strcmp(other->params[j].name, s->params[i].name) < 0)
            j++;
        if (j < other->n && !strcmp(other->params[j].name, s->params[i].name))
            continue;
        if (n < 5)
            sb_addf(&names, "%s%s", n ? ", " : "", s->params[i].name);
        n++;
    }
    if (n)
        log_warn("%zu parameters only in %s (%s): %s%s", n, label, s->path, sb_str(&names), n > 5 ? ", ..." : "");
    sb_free(&names);
}

static int compare_loaded(const cc_opts *o, ck_side *a, ck_side *b, progress_job *pj, out_run *run)
{
    result *res = xcalloc(a->n + 1, sizeof *res);
    size_t nr = 0, first_replica = 0;
    plan p = {NULL, 0, pj};
    int rc = 0;
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        if (pass) {
            p.v = xmalloc_array(p.n ? p.n : 1, sizeof *p.v);
            p.n = 0;
        }
        nr = 0;
        for (size_t i = 0, j = 0; i < a->n && rc == 0; i++) {
            while (j < b->n && strcmp(b->params[j].name, a->params[i].name) < 0)
                j++;
            if (j == b->n || strcmp(b->params[j].name, a->params[i].name))
                continue;
            result *r = &res[nr];
            r->pa = &a->params[i];
            r->pb = &b->params[j];
            r->same_shape = shape_equal(r->pa->ndim, r->pa->shape, r->pb->ndim, r->pb->shape);
            if (r->same_shape)
                rc = plan_param(&p, nr, a, r->pa, b, r->pb);
            else if (pass)
                log_warn_as("parameters of different shapes", "%s: shapes differ, l2 and cos are null", r->pa->name);
            nr++;
        }
        first_replica = p.n;
        plan_replicas(&p, a);
        plan_replicas(&p, b);
    }
    uint64_t bytes = 0;
    for (size_t i = 0; i < p.n; i++)
        bytes += (uint64_t)p.v[i].count * (dtype_size((dtype_id)p.v[i].x->dtype) + dtype_size((dtype_id)p.v[i].y->dtype));
    progress_phase(pj, "compare", bytes, PROGRESS_BYTES);
    if (rc == 0)
        rc = pool_run(p.n, o->jobs, run_work, &p, NULL);
    for (size_t i = first_replica; i < p.n && rc == 0; i++)
        if (!p.v[i].close)
            log_warn_as("parameters inconsistent across TP ranks", "Inconsistent values for %s across TP ranks (%s)",
                        p.v[i].sa->params[p.v[i].param].name, p.v[i].sa->path);
    /* each result's sums: its work items, in plan order (so the sums do
     * not depend on the threads) */
    size_t differ = 0, shapes = 0;
    for (size_t i = 0, w = 0; i < nr && rc == 0; i++) {
        tensor_sums sums = {0};
        for (; w < first_replica && p.v[w].param == i; w++) {
            sums.dot += p.v[w].sums.dot;
            sums.aa += p.v[w].sums.aa;
            sums.bb += p.v[w].sums.bb;
            sums.dd += p.v[w].sums.dd;
        }
        if (res[i].same_shape) {
            finish(&res[i], &sums);
            differ += res[i].l2 != 0;
        } else {
            shapes++;
        }
    }
    if (rc == 0 && nr == 0)
        rc = err_input(a->path, "has no parameter in common with %s (%zu parameters against %zu, named as msprobe "
                                "maps them): nothing to compare", b->path, a->n, b->n);
    if (rc == 0) {
        only_in(a, b, "CKPT1");
        only_in(b, a, "CKPT2");
    }
    if (rc == 0) {
        progress_phase(pj, "write", 0, PROGRESS_ITEMS);
        char *dir = path_dirname(o->out);
        rc = out_run_mkdir(run, dir);
        free(dir);
    }
    if (rc == 0 && o->format == CC_FMT_JSON) {
        rc = write_json(o->out, res, nr, run);
    } else if (rc == 0) {
        rc = write_table(o->out, o->format, res, nr, run);
    }
    if (rc == 0)
        log_info("%zu parameters compared (%s vs %s), %zu differ, %zu of different shapes -> %s", nr, a->kind,
                 b->kind, differ, shapes, o->out);
    free(p.v);
    free(res);
    return rc;
}

int cc_compare_ckpt(const cc_opts *given, const char *ckpt1, const char *ckpt2)
{
    /* msprobe refuses a result that exists ("already exist"): so do we,
     * unless --force */
    char name[32];
    snprintf(name, sizeof name, "ckpt_similarity.%s", given->format == CC_FMT_JSON ? "json" : table_ext(given->format));
    out_run *run = out_run_new();
    char *out = out_named(run, given->out, name, OUT_REFUSES, given->force);
    if (!out) {
        out_run_abandon(run);
        return -1;
    }
    cc_opts opts = *given;
    opts.out = out;
    const cc_opts *o = &opts;
    progress_run_begin(&(progress_opts){.jobs = 1});
    progress_job *pj = progress_job_begin("checkpoints");
    ck_side a, b;
    memset(&b, 0, sizeof b);
    int rc = ck_load(ckpt1, o->jobs, pj, &a);
    if (rc == 0)
        rc = ck_load(ckpt2, o->jobs, pj, &b);
    if (rc == 0)
        rc = compare_loaded(o, &a, &b, pj, run);
    if (rc != 0) {
        err_record e;
        err_take(&e);
        out_run_rollback(run);
        err_restore(&e);
    }
    progress_job_end(pj);
    progress_run_end();
    log_warn_totals();
    out_run_free(run);
    ck_free(&b);
    ck_free(&a);
    free(out);
    return rc;
}
