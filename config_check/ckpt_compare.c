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

typedef struct {
    size_t param;            /* result index (W_SUMS) or side param index (W_ALLCLOSE) */
    int kind;
    const ck_side *sa, *sb;  /* where a and b lie */
    size_t fa, fb;
    tensor a, b;
    size_t start, count;
    tensor_sums sums;
    int close;
} work;

typedef struct {
    const ck_param *pa, *pb;
    int same_shape;
    tensor_sums sums;
    double l2, cos;
    int cos_null;
} result;

typedef struct {
    work *v;
    size_t n, cap;
    progress_job *pj;
} plan;

/* The part of piece x inside the box [lo, hi) of the full tensor. */
static int sub_view(const ck_piece *x, const int64_t *lo, const int64_t *hi, int ndim, const char *path, tensor *out)
{
    *out = x->t;
    out->map = (mapped_file){0};
    out->owned = NULL;
    int64_t shape[TENSOR_MAX_DIMS];
    for (int d = 0; d < ndim; d++) {
        out->offset += (lo[d] - x->off[d]) * x->t.stride[d];
        shape[d] = hi[d] - lo[d];
    }
    int64_t stride[TENSOR_MAX_DIMS];
    memcpy(stride, x->t.stride, (size_t)ndim * sizeof *stride);
    const unsigned char *storage = x->t.storage;
    size_t ssize = x->t.storage_size;
    int64_t offset = out->offset;
    if (tensor_set_shape(out, path, ndim, shape, 0) != 0)
        return -1;
    memcpy(out->stride, stride, (size_t)ndim * sizeof *stride);
    out->offset = offset;
    out->storage = storage;
    out->storage_size = ssize;
    return tensor_check_view(out, path);
}

static void add_work(plan *p, const work *w)
{
    size_t n = w->count;
    for (size_t s = 0; s < n || (n == 0 && s == 0); s += SPLIT) {
        GROW(p->v, p->cap, p->n + 1);
        p->v[p->n] = *w;
        p->v[p->n].start = s;
        p->v[p->n].count = n - s < SPLIT ? n - s : SPLIT;
        p->n++;
        if (n == 0)
            break;
    }
}

/* Every overlap of a piece of pa with a piece of pb. */
static int plan_param(plan *p, size_t r, const ck_side *a, const ck_param *pa, const ck_side *b, const ck_param *pb)
{
    for (size_t i = 0; i < pa->npieces; i++)
        for (size_t k = 0; k < pb->npieces; k++) {
            const ck_piece *x = &pa->pieces[i], *y = &pb->pieces[k];
            int64_t lo[TENSOR_MAX_DIMS], hi[TENSOR_MAX_DIMS];
            int empty = 0;
            for (int d = 0; d < pa->ndim && !empty; d++) {
                lo[d] = x->off[d] > y->off[d] ? x->off[d] : y->off[d];
                int64_t ex = x->off[d] + x->t.shape[d], ey = y->off[d] + y->t.shape[d];
                hi[d] = ex < ey ? ex : ey;
                empty = lo[d] >= hi[d];
            }
            if (empty)
                continue;
            work w;
            memset(&w, 0, sizeof w);
            w.param = r;
            w.kind = W_SUMS;
            w.sa = a;
            w.sb = b;
            w.fa = x->src;
            w.fb = y->src;
            if (sub_view(x, lo, hi, pa->ndim, a->files[x->src].path, &w.a) != 0
                || sub_view(y, lo, hi, pa->ndim, b->files[y->src].path, &w.b) != 0)
                return -1;
            w.count = w.a.numel;
            add_work(p, &w);
        }
    return 0;
}

static void plan_replicas(plan *p, const ck_side *s)
{
    for (size_t i = 0; i < s->n; i++) {
        const ck_param *prm = &s->params[i];
        for (size_t k = 0; k < prm->nreplicas; k++) {
            work w;
            memset(&w, 0, sizeof w);
            w.param = i;
            w.kind = W_ALLCLOSE;
            w.sa = w.sb = s;
            w.a = prm->pieces[0].t;
            w.b = prm->replicas[k].t;
            w.fa = prm->pieces[0].src;
            w.fb = prm->replicas[k].src;
            w.close = w.a.ndim == w.b.ndim && w.a.numel == w.b.numel;
            for (int d = 0; w.close && d < w.a.ndim; d++)
                w.close = w.a.shape[d] == w.b.shape[d];
            w.count = w.close ? w.a.numel : 0;
            GROW(p->v, p->cap, p->n + 1);
            p->v[p->n++] = w;
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
    file_guard ga, gb;
    file_guard_begin(&ga, &w->sa->files[w->fa]);
    file_guard_begin(&gb, &w->sb->files[w->fb]);
    if (w->kind == W_SUMS)
        tensor_sums_add(&w->a, &w->b, w->start, w->count, 0, &w->sums);
    else
        w->close = tensor_allclose(&w->a, &w->b, 0, w->count);
    int rc = 0;
    if (file_guard_end(&gb) != 0)
        rc = -1;
    if (file_guard_end(&ga) != 0)
        rc = -1;
    progress_add(p->pj, (uint64_t)w->count * (dtype_size(w->a.dtype) + dtype_size(w->b.dtype)));
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
static void finish(result *r)
{
    float dd = (float)r->sums.dd, aa = (float)r->sums.aa, bb = (float)r->sums.bb, dot = (float)r->sums.dot;
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
static void write_json(strbuf *sb, const result *r, size_t n)
{
    if (!n) {
        sb_adds(sb, "{}");
        return;
    }
    sb_addc(sb, '{');
    for (size_t i = 0; i < n; i++) {
        if (i)
            sb_addc(sb, ',');
        jsonw_newline(sb, 4, 1);
        jsonw_str_ascii(sb, r[i].pa->name, strlen(r[i].pa->name));
        sb_adds(sb, ": ");
        json_result(sb, &r[i]);
    }
    sb_adds(sb, "\n}");
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
    size_t nr = 0;
    plan p = {NULL, 0, 0, pj};
    int rc = 0;
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
        else
            log_warn_as("parameters of different shapes", "%s: shapes differ, l2 and cos are null", r->pa->name);
        nr++;
    }
    size_t first_replica = p.n;
    plan_replicas(&p, a);
    plan_replicas(&p, b);
    uint64_t bytes = 0;
    for (size_t i = 0; i < p.n; i++)
        bytes += (uint64_t)p.v[i].count * (dtype_size(p.v[i].a.dtype) + dtype_size(p.v[i].b.dtype));
    progress_phase(pj, "compare", bytes, PROGRESS_BYTES);
    if (rc == 0)
        rc = pool_run(p.n, o->jobs, run_work, &p, NULL);
    for (size_t i = 0; i < first_replica && rc == 0; i++) {
        tensor_sums *s = &res[p.v[i].param].sums;
        s->dot += p.v[i].sums.dot;
        s->aa += p.v[i].sums.aa;
        s->bb += p.v[i].sums.bb;
        s->dd += p.v[i].sums.dd;
    }
    for (size_t i = first_replica; i < p.n && rc == 0; i++)
        if (!p.v[i].close)
            log_warn_as("parameters inconsistent across TP ranks", "Inconsistent values for %s across TP ranks (%s)",
                        p.v[i].sa->params[p.v[i].param].name, p.v[i].sa->path);
    size_t differ = 0, shapes = 0;
    for (size_t i = 0; i < nr && rc == 0; i++) {
        if (res[i].same_shape) {
            finish(&res[i]);
            differ += res[i].l2 != 0;
        } else {
            shapes++;
        }
    }
    only_in(a, b, "CKPT1");
    only_in(b, a, "CKPT2");
    if (rc == 0) {
        progress_phase(pj, "write", 0, PROGRESS_ITEMS);
        char *dir = path_dirname(o->out);
        rc = out_run_mkdir(run, dir);
        free(dir);
    }
    if (rc == 0 && o->format == CC_FMT_JSON) {
        strbuf sb = STRBUF_INIT;
        write_json(&sb, res, nr);
        const void *data = sb.buf;
        size_t len = sb.len;
        char *tmp = out_tmp_write(o->out, &data, &len, 1);
        rc = tmp ? out_run_replace(run, tmp, o->out, "result") : -1;
        sb_free(&sb);
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
