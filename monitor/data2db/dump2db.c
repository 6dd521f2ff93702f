/* The dump importer of data2db (dump2db.h): every dump.json of the tree,
 * entry by entry (streamed, one entry in memory at a time), each accepted
 * tensor slot one row of trend_data with its norm, max, min and mean. */
#include "monitor/data2db/dump2db.h"
#include "monitor/data2db/micro.h"
#include "monitor/data2db/tags.h"
#include "monitor/data2db/trend_db.h"
#include "format/json.h"
#include "model/dump.h"
#include "model/dump_walk.h"
#include "model/dumptree.h"
#include "base/err.h"
#include "base/files.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/progress.h"
#include "base/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M_FORWARD, M_BACKWARD, M_RECOMPUTE, M_PARAMETERS_GRAD, NMETRICS };
static const char *const METRICS[NMETRICS] = {"forward", "backward", "recompute", "parameters_grad"};
static const char *const STATS[] = {"norm", "max", "min", "mean"};
static const char *const STAT_KEYS[] = {"Norm", "Max", "Min", "Mean"};
enum { NSTATS = 4, BATCH = 5000 };

/* One rank of one step, in processing order. */
typedef struct {
    long step;
    long rank;
    char *dir;
} item;

typedef struct {
    item *v;
    size_t n, cap;
    long min_step, max_step;
    size_t nsteps;
} plan;

static void plan_free(plan *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->v[i].dir);
    free(p->v);
}

/* ---- scan (§4) -------------------------------------------------------- */

static int scan(const dump2db_opts *o, plan *p, char **why)
{
    memset(p, 0, sizeof *p);
    if (path_require(o->data, 1) != 0)
        return -1;
    dumptree_list steps;
    if (dumptree_scan(o->data, 0, &steps, NULL, NULL) != 0)
        return -1;
    strbuf reasons = STRBUF_INIT;
    int rc = 0;
    for (size_t s = 0; s < steps.n && rc == 0; s++) {
        dumptree_list items;
        char **skipped;
        size_t nskipped;
        if (dumptree_scan(steps.v[s].path, 1, &items, &skipped, &nskipped) != 0) {
            rc = -1;
            break;
        }
        /* rank directories by number, then the procs (and a bare rank, read
         * as msprobe reads a proc) numbered after the largest rank */
        long max_rank = 0;
        int have_ranks = 0;
        for (size_t i = 0; i < items.n && rc == 0; i++) {
            /* a dump.json that is a FIFO, a link, a directory: the error
             * compare and nan_analyze make, not "no dump.json" */
            char *json = path_join(items.v[i].path, "dump.json");
            enum path_kind k = path_kind(json);
            if (k != PATH_FILE && k != PATH_MISSING)
                rc = path_require(json, 0);
            free(json);
            if (k != PATH_FILE) {
                if (k == PATH_MISSING)
                    log_warn("%s: no dump.json; skipped", items.v[i].path);
                items.v[i].naming = -1;
                continue;
            }
            if (items.v[i].naming == DUMPTREE_NUMBERED && (!have_ranks || items.v[i].number > max_rank)) {
                max_rank = items.v[i].number;
                have_ranks = 1;
            }
        }
        if (rc != 0) {
            names_free(skipped, (long)nskipped);
            dumptree_list_free(&items);
            break;
        }
        long next = have_ranks ? max_rank + 1 : 0;
        size_t before = p->n;
        for (int pass = 0; pass < 2; pass++)
            for (size_t i = 0; i < items.n; i++) {
                const dumptree_dir *d = &items.v[i];
                if (d->naming < 0 || (d->naming == DUMPTREE_NUMBERED) != (pass == 0))
                    continue;
                long rank = d->number;
                if (pass == 1) {
                    rank = next++;
                    log_note("%s: read as rank %ld", d->path, rank);
                }
                GROW(p->v, p->cap, p->n + 1);
                p->v[p->n++] = (item){steps.v[s].number, rank, xstrdup(d->path)};
            }
        if (p->n > before) {
            if (p->nsteps == 0 || steps.v[s].number < p->min_step)
                p->min_step = steps.v[s].number;
            if (p->nsteps == 0 || steps.v[s].number > p->max_step)
                p->max_step = steps.v[s].number;
            p->nsteps++;
        } else {
            sb_addf(&reasons, "%s%s holds no rank or proc directory with a dump.json", reasons.len ? "; " : "",
                    steps.v[s].path);
        }
        names_free(skipped, (long)nskipped);
        dumptree_list_free(&items);
    }
    if (rc == 0 && p->n == 0) {
        if (steps.n == 0)
            *why = xstrdup("holds no step* directory (step0, step1, ...): not a dump tree");
        else
            *why = sb_detach(&reasons);
        rc = 1;
    }
    sb_free(&reasons);
    dumptree_list_free(&steps);
    return rc;
}

/* ---- values (§5.7) ---------------------------------------------------- */

/* Python's float() of a stripped string: NaN when it is no number. */
static double text_value(const char *s, size_t n)
{
    while (n && (*s == ' ' || (*s >= '\t' && *s <= '\r'))) {
        s++;
        n--;
    }
    while (n && (s[n - 1] == ' ' || (s[n - 1] >= '\t' && s[n - 1] <= '\r')))
        n--;
    char buf[64];
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < sizeof buf; i++) {
        /* an underscore between digits groups them */
        if (s[i] == '_' && i > 0 && i + 1 < n && s[i - 1] >= '0' && s[i - 1] <= '9' && s[i + 1] >= '0' &&
            s[i + 1] <= '9')
            continue;
        buf[k++] = s[i];
    }
    if (!n || k + 1 >= sizeof buf)
        return NAN;
    buf[k] = 0;
    /* strtod takes hex and "nan(...)", Python does not */
    const char *q = buf + (buf[0] == '+' || buf[0] == '-');
    if ((q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) || strchr(buf, '('))
        return NAN;
    char *end;
    double v = strtod(buf, &end);
    return *end ? NAN : v;
}

/* process_tensor_value: NaN stands for NULL. */
static double stat_value(const jval *v)
{
    double x;
    if (!v)
        return NAN;
    switch (v->type) {
    case J_TRUE: return 1.0;
    case J_FALSE: return 0.0;
    case J_NUMBER: x = v->u.num; break;
    case J_STRING: x = text_value(v->u.str, v->len); break;
    default: return NAN;
    }
    if (isnan(x))
        return NAN;
    if (isinf(x))
        return x > 0 ? 1e9 + 1 : -1e9 - 1;
    if (x > 1e9)
        return 1e9;
    if (x < -1e9)
        return -1e9;
    return x;
}

/* ---- entries (§5) ------------------------------------------------------- */

typedef struct {
    const dump2db_opts *o;
    trend_db t;
    int metric[NMETRICS];        /* trend metric index */
    long rank;
    long long step;
    strbuf key, tmp, target;
    size_t file_rows;            /* buffered since the last flush */
    uint64_t rows, entries;
} importer;

static int is_tensor(const jval *v)
{
    static const char *const types[] = {"torch.Tensor", "mindspore.Tensor", "mindtorch.Tensor"};
    static const char *const dtypes[] = {"torch.float16", "torch.float32", "torch.bfloat16",
                                         "Float16",       "Float32",       "BFloat16"};
    if (!v || v->type != J_OBJECT)
        return 0;
    int ok = 0;
    for (int i = 0; i < 3 && !ok; i++)
        ok = json_str_eq(json_get(v, "type"), types[i]);
    if (!ok)
        return 0;
    for (int i = 0; i < 6; i++)
        if (json_str_eq(json_get(v, "dtype"), dtypes[i]))
            return 1;
    return 0;
}

static void add_row(importer *im, int metric, const char *prefix, size_t plen, const char *suffix, size_t slen,
                    long long call, const jval *tensor)
{
    sb_reset(&im->target);
    sb_add(&im->target, prefix, plen);
    sb_add(&im->target, suffix, slen);
    int mi = im->metric[metric];
    size_t tg = trend_target_of(&im->t, mi, im->target.buf, im->target.len, 0, call);
    trend_row *r = trend_add_row(&im->t);
    r->rank = (uint64_t)im->rank;
    r->step = im->step;
    r->target = tg;
    r->metric = mi;
    for (int i = 0; i < NSTATS; i++)
        r->value[i] = stat_value(json_get(tensor, STAT_KEYS[i]));
    im->file_rows++;
    im->rows++;
}

/* The tensors of a slot list: lists only (msprobe crashes on null or a
 * number there, and finds nothing in an object or a string). */
static void add_list(importer *im, int metric, const char *prefix, size_t plen, const jval *list, const char *what,
                     long long call)
{
    if (!list || list->type != J_ARRAY)
        return;
    char suffix[64];
    for (uint32_t i = 0; i < list->len; i++)
        if (is_tensor(&list->u.items[i])) {
            int n = snprintf(suffix, sizeof suffix, ".%s.%u", what, i);
            add_row(im, metric, prefix, plen, suffix, (size_t)n, call, &list->u.items[i]);
        }
}

/* A parameter value: a non-empty list whose first item is the tensor. */
static const jval *first_tensor(const jval *v)
{
    if (!v || v->type != J_ARRAY || !v->len || v->u.items[0].type != J_OBJECT)
        return NULL;
    return is_tensor(&v->u.items[0]) ? &v->u.items[0] : NULL;
}

/* s.replace(a, b) of Python, a possibly empty. */
static void py_replace(strbuf *out, const char *s, size_t n, const char *a, size_t an, const char *b, size_t bn)
{
    sb_reset(out);
    if (!an) {
        sb_add(out, b, bn);
        for (size_t i = 0; i < n; i++) {
            sb_addc(out, s[i]);
            sb_add(out, b, bn);
        }
        return;
    }
    for (size_t i = 0; i < n;) {
        if (i + an <= n && !memcmp(s + i, a, an)) {
            sb_add(out, b, bn);
            i += an;
        } else {
            sb_addc(out, s[i++]);
        }
    }
}

static int contains(const char *s, size_t n, const char *w)
{
    size_t k = strlen(w);
    for (size_t i = 0; i + k <= n; i++)
        if (!memcmp(s + i, w, k))
            return 1;
    return 0;
}

static int ends(const char *s, size_t n, const char *w)
{
    size_t k = strlen(w);
    return n >= k && !memcmp(s + n - k, w, k);
}

/* key -> im->key with the metric's token removed; the metric or -1 (§5.3). */
static int classify(importer *im, const jval *entry)
{
    strbuf *k = &im->key, *t = &im->tmp;
    const char *s = k->buf ? k->buf : "";
    size_t n = k->len;
    int metric = -1;
    const char *tok = NULL;
    if (contains(s, n, ".forward.") || ends(s, n, ".forward")) {
        metric = json_truthy(json_get(entry, "is_recompute")) ? M_RECOMPUTE : M_FORWARD;
        tok = "forward";
    } else if (contains(s, n, ".backward.") || ends(s, n, ".backward")) {
        metric = M_BACKWARD;
        tok = "backward";
    }
    if (tok) {
        char mid[16], tail[16];
        int mn = snprintf(mid, sizeof mid, ".%s.", tok), tn = snprintf(tail, sizeof tail, ".%s", tok);
        py_replace(t, s, n, mid, (size_t)mn, ".", 1);
        py_replace(k, t->buf ? t->buf : "", t->len, tail, (size_t)tn, "", 0);
        return metric;
    }
    if (ends(s, n, "parameters_grad")) {
        py_replace(t, s, n, ".parameters_grad", 16, "", 0);
        sb_reset(k);
        sb_add(k, t->buf ? t->buf : "", t->len);
        return M_PARAMETERS_GRAD;
    }
    /* FSDP: X.parameters_grad.N */
    const char *d1 = memrchr(s, '.', n);
    const char *d2 = d1 ? memrchr(s, '.', (size_t)(d1 - s)) : NULL;
    if (d2 && (size_t)(d1 - d2 - 1) == 15 && !memcmp(d2 + 1, "parameters_grad", 15)) {
        k->len = (size_t)(d2 - s);
        return M_PARAMETERS_GRAD;
    }
    return -1;
}

static void entry_rows(importer *im, const char *name, size_t namelen, const jval *entry, const micro_map *mm,
                       long long base_step)
{
    if (entry->type != J_OBJECT)
        return;
    long long micro = 0;
    sb_reset(&im->key);
    if (mm && mm->n) {
        const char *renamed;
        size_t rlen;
        if (!micro_lookup(mm, name, namelen, &renamed, &rlen, &micro))
            return;
        sb_add(&im->key, renamed, rlen);
    } else {
        sb_add(&im->key, name, namelen);
    }
    for (size_t i = 0; i < im->o->nmap; i++) {
        py_replace(&im->tmp, im->key.buf ? im->key.buf : "", im->key.len, im->o->map_from[i],
                   strlen(im->o->map_from[i]), im->o->map_to[i], strlen(im->o->map_to[i]));
        sb_reset(&im->key);
        sb_add(&im->key, im->tmp.buf ? im->tmp.buf : "", im->tmp.len);
    }
    int metric = classify(im, entry);
    if (metric < 0)
        return;
    im->entries++;
    im->step = base_step + micro;
    /* the call index: a last part of digits */
    const char *s = im->key.buf ? im->key.buf : "";
    size_t n = im->key.len, plen = n;
    long long call = 0;
    const char *dot = memrchr(s, '.', n);
    const char *last = dot ? dot + 1 : s;
    size_t llen = n - (size_t)(last - s);
    int digits = llen > 0;
    for (size_t i = 0; i < llen && digits; i++)
        digits = last[i] >= '0' && last[i] <= '9';
    if (digits) {
        call = strtoll(last, NULL, 10);
        plen = dot ? (size_t)(dot - s) : 0;
    }
    if (metric == M_FORWARD || metric == M_RECOMPUTE) {
        add_list(im, metric, s, plen, json_get(entry, "input_args"), "input", call);
        add_list(im, metric, s, plen, json_get(entry, "output"), "output", call);
        const jval *params = json_get(entry, "parameters");
        if (params && params->type == J_OBJECT)
            for (uint32_t i = 0; i < params->len; i++) {
                const jval *tensor = first_tensor(json_member_value(params, i));
                if (!tensor)
                    continue;
                strbuf suffix = STRBUF_INIT;
                sb_adds(&suffix, ".parameters.");
                sb_add(&suffix, params->u.members[i].key, params->u.members[i].keylen);
                add_row(im, metric, s, plen, suffix.buf, suffix.len, call, tensor);
                sb_free(&suffix);
            }
    } else if (metric == M_BACKWARD) {
        add_list(im, metric, s, plen, json_get(entry, "input"), "input", call);
        add_list(im, metric, s, plen, json_get(entry, "output"), "output", call);
    } else {
        for (uint32_t i = 0; i < entry->len; i++) {
            const jval *tensor = first_tensor(json_member_value(entry, i));
            if (!tensor)
                continue;
            strbuf suffix = STRBUF_INIT;
            sb_addc(&suffix, '.');
            sb_add(&suffix, entry->u.members[i].key, entry->u.members[i].keylen);
            add_row(im, metric, s, plen, suffix.buf, suffix.len, call, tensor);
            sb_free(&suffix);
        }
    }
}

typedef struct {
    importer *im;
    const micro_map *mm;
    long long base_step;
    arena *entry_mem;
    dump_data checked;   /* compare's checks of each entry (its rows dropped) */
} file_reading;

/* Of the top level only "data" gives rows; it must be an object, and each
 * entry passes compare's checks (model/dump's dump_entry_check: the same
 * refusals and messages as compare and nan_analyze) before it is imported. */
static int file_member(void *ctx, jparser *jp, const char *key, size_t keylen, arena *scratch)
{
    file_reading *r = ctx;
    importer *im = r->im;
    if (!dump_key_is(key, keylen, "data"))
        return jp_skip(jp);
    if (dump_data_begin(jp, r->checked.path) != 0)
        return -1;
    for (;;) {
        const char *name;
        size_t namelen;
        jval value;
        int m = jp_object_next(jp, r->entry_mem, &name, &namelen);
        if (m > 0 && jp_value(jp, r->entry_mem, &value) != 0)
            m = -1;
        if (m > 0 && dump_entry_check(&r->checked, name, namelen, &value) != 0)
            m = -1;
        dump_clear(&r->checked);
        if (m <= 0)
            return m;
        entry_rows(im, name, namelen, &value, r->mm, r->base_step);
        arena_reset(r->entry_mem);
        /* msprobe flushes when its buffer holds a multiple of 5000 rows */
        if (im->file_rows && im->file_rows % BATCH == 0) {
            if (trend_flush(&im->t) != 0)
                return -1;
            im->file_rows = 0;
        }
    }
}

/* One dump.json, its "data" object walked entry by entry. */
static int import_file(importer *im, const char *path, const micro_map *mm, long long base_step, progress_job *pj)
{
    mapped_file f;
    if (file_map(path, 0, &f) != 0)
        return -1;
    file_guard g;
    file_guard_begin(&g, &f);
    jparser jp;
    jp_init(&jp, path, f.data ? (const void *)f.data : "", f.size);
    arena scratch, entry_mem;
    arena_init(&scratch, 1 << 16);
    arena_init(&entry_mem, 1 << 18);
    im->file_rows = 0;
    file_reading r = {.im = im, .mm = mm, .base_step = base_step, .entry_mem = &entry_mem};
    dump_init(&r.checked, path);
    int rc = dump_walk_members(&jp, path, &scratch, file_member, &r);
    dump_free(&r.checked);
    progress_add(pj, f.size);
    jp_free(&jp);
    arena_free(&scratch);
    arena_free(&entry_mem);
    if (file_guard_end(&g) != 0)
        rc = -1;
    file_unmap(&f);
    if (rc == 0)
        rc = trend_flush(&im->t);
    return rc;
}

int dump2db_run(const dump2db_opts *o, out_run *outputs, char **why)
{
    *why = NULL;
    plan p;
    int rc = scan(o, &p, why);
    if (rc != 0) {
        plan_free(&p);
        return rc;
    }
    char *final = path_join(o->db_dir, "dump_data.trend.db");
    importer im;
    memset(&im, 0, sizeof im);
    im.o = o;
    if (out_run_mkdir(outputs, o->db_dir) != 0 || trend_open(&im.t, final, STATS, NSTATS) != 0)
        rc = -1;
    for (int m = 0; m < NMETRICS && rc == 0; m++)
        if ((im.metric[m] = trend_add_metric(&im.t, METRICS[m])) < 0)
            rc = -1;
    progress_run_begin(&(progress_opts){.jobs = 1});
    progress_job *pj = progress_job_begin("dump_data.trend.db");
    progress_phase(pj, "import", 0, PROGRESS_BYTES);
    long long start = 0, step_max_micro = 0;
    long max_rank = 0;
    for (size_t i = 0; i < p.n && rc == 0; i++) {
        const item *it = &p.v[i];
        im.rank = it->rank;
        if (it->rank > max_rank)
            max_rank = it->rank;
        char *json = path_join(it->dir, "dump.json");
        micro_map mm;
        memset(&mm, 0, sizeof mm);
        if (o->micro_step) {
            char *construct = path_join(it->dir, "construct.json");
            if (path_kind(construct) == PATH_MISSING)
                rc = err_input(it->dir, "has no construct.json, which micro steps need (--micro_step false reads the "
                                        "dump without it)");
            else if (micro_load(construct, &mm) != 0)
                rc = -1;
            free(construct);
        }
        if (rc == 0)
            rc = import_file(&im, json, o->micro_step ? &mm : NULL, o->micro_step ? start : it->step, pj);
        if (o->micro_step && mm.count > step_max_micro)
            step_max_micro = mm.count;
        micro_free(&mm);
        free(json);
        /* the next step directory starts after this one's micro steps */
        if (o->micro_step && (i + 1 == p.n || p.v[i + 1].step != it->step)) {
            start += step_max_micro;
            step_max_micro = 0;
        }
    }
    progress_job_end(pj);
    progress_run_end();
    if (rc == 0) {
        char values[512];
        long long min_step = o->micro_step ? 0 : p.min_step, max_step = o->micro_step ? start - 1 : p.max_step;
        snprintf(values, sizeof values,
                 "%ld, %lld, %lld, 'norm,max,min,mean', 'norm,max,min,mean', 'norm,max,min,mean', "
                 "'norm,max,min,mean'",
                 max_rank, min_step, max_step);
        if (trend_global_stats(&im.t,
                               "max_rank INTEGER DEFAULT 0, min_step INTEGER DEFAULT 0, max_step INTEGER DEFAULT 0, "
                               "forward TEXT DEFAULT NULL, backward TEXT DEFAULT NULL, recompute TEXT DEFAULT NULL, "
                               "parameters_grad TEXT DEFAULT NULL",
                               values) != 0 ||
            trend_write_tags(&im.t, dump_tags) != 0)
            rc = -1;
    }
    uint64_t rows = im.t.rows_written;
    size_t ntargets = im.t.ntargets;
    rc = trend_finish(&im.t, rc, outputs);
    if (rc == 0 && !o->quiet)
        printf("dump: %zu rank files of %zu step%s, %llu rows, %zu targets -> %s\n", p.n, p.nsteps,
               p.nsteps == 1 ? "" : "s", (unsigned long long)rows, ntargets, final);
    sb_free(&im.key);
    sb_free(&im.tmp);
    sb_free(&im.target);
    plan_free(&p);
    free(final);
    return rc;
}
