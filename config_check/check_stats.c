/* The dataset and weights checkers (spec/configcheck.md §A.6.4, §A.6.5):
 * the max/min/mean/norm statistics of the first batches and of the weights
 * that ConfigChecker recorded at every step on every rank. */
#include "config_check/pack.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "py/pyeq.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const stat_names[4] = {"max", "min", "mean", "norm"};

static const char *const dataset_header[] = {"step", "rank", "tag", "equal", "max_relative_diff",
                                             "min_relative_diff", "mean_relative_diff", "norm_relative_diff"};
static const char *const weights_header[] = {"step", "rank", "weight_name", "equal", "max_relative_diff",
                                             "min_relative_diff", "mean_relative_diff", "norm_relative_diff"};

/* Rows before the stable sort by (step, rank). */
typedef struct {
    long long step, rank;
    cell c[8];
} srow;

typedef struct {
    srow *v;
    size_t n, cap;
} srows;

static cell empty_cell(void)
{
    cell e = {CELL_EMPTY, 0, NULL, 0};
    return e;
}

static srow *add_row(srows *r, long long step, long long rank)
{
    GROW(r->v, r->cap, r->n + 1);
    srow *x = &r->v[r->n++];
    x->step = step;
    x->rank = rank;
    x->c[0] = cell_num((double)step);
    x->c[1] = cell_num((double)rank);
    for (int i = 2; i < 8; i++)
        x->c[i] = empty_cell();
    return x;
}

/* |b - c| / b with the sign of b, as msprobe writes it; empty when b is 0
 * (or when a statistic is missing or not a number, where msprobe raises). */
static cell rel_diff(const jval *b, const jval *c)
{
    double x, y;
    if (!py_json_number(b, &x) || !py_json_number(c, &y) || x == 0)
        return empty_cell();
    return cc_number(fabs(x - y) / x);
}

static void stat_diffs(const jval *b, const jval *c, srow *r)
{
    for (int k = 0; k < 4; k++)
        r->c[4 + k] = b && c && c->type == J_OBJECT ? rel_diff(json_get(b, stat_names[k]), json_get(c, stat_names[k]))
                                                    : empty_cell();
}

static void sort_rows(srows *r, cc_sheet *out)
{
    /* pandas' sort_values(['step', 'rank']) is stable for several keys */
    for (size_t i = 1; i < r->n; i++)
        for (size_t j = i; j > 0 && (r->v[j - 1].step > r->v[j].step
                                     || (r->v[j - 1].step == r->v[j].step && r->v[j - 1].rank > r->v[j].rank)); j--) {
            srow t = r->v[j];
            r->v[j] = r->v[j - 1];
            r->v[j - 1] = t;
        }
    for (size_t i = 0; i < r->n; i++)
        sheet_row(out, r->v[i].c);
}

/* One file of the bench pack's folder: its rows added to *rows (*fail set
 * when one of them fails). 0, or -1 with the error recorded. */
typedef int stats_file_fn(cc_ctx *c, const zip_entry *e, srows *rows, int *fail);

/* The sheet of a folder both packs have (dataset/, weights/): the rows of
 * every file under it in the bench pack, sorted by (step, rank); it passes
 * when no row failed. 1 with the sheet, 0 when a pack lacks the folder, -1
 * on an error. */
static int stats_sheet(cc_ctx *c, cc_sheet *out, const char *folder, const char *const *header, stats_file_fn *each)
{
    if (!pack_exists(c->bench, folder) || !pack_exists(c->cmp, folder))
        return 0;
    sheet_init(out, folder, header, 8);
    const zip_entry **files;
    size_t n = pack_files_under(c->bench, folder, &files);
    srows rows = {NULL, 0, 0};
    int rc = 1, fail = 0;
    for (size_t i = 0; i < n && rc == 1; i++)
        if (each(c, files[i], &rows, &fail) != 0)
            rc = -1;
    free(files);
    if (rc == 1) {
        sort_rows(&rows, out);
        out->pass = !fail;
    }
    free(rows.v);
    return rc;
}

/* ---- dataset --------------------------------------------------------------- */

/* The value of a key (not NUL-terminated) in an object, or NULL. */
static const jval *member(const jval *obj, const char *key, size_t len)
{
    if (!obj || obj->type != J_OBJECT)
        return NULL;
    for (uint32_t j = 0; j < obj->len; j++)
        if (obj->u.members[j].keylen == len && !memcmp(obj->u.members[j].key, key, len))
            return &obj->u.members[j].val;
    return NULL;
}

/* Is v exactly a {max, min, mean, norm} record? */
static int is_stats(const jval *v)
{
    if (v->type != J_OBJECT || v->len != 4)
        return 0;
    for (int k = 0; k < 4; k++)
        if (!json_get(v, stat_names[k]))
            return 0;
    return 1;
}

static const char *join_tag(cc_ctx *c, const char *tag, const char *key, size_t kl, size_t *len)
{
    strbuf sb = STRBUF_INIT;
    if (tag && *tag) {
        sb_adds(&sb, tag);
        sb_addc(&sb, '.');
    }
    sb_add(&sb, key, kl);
    *len = sb.len;
    const char *s = arena_strndup(c->a, sb.buf ? sb.buf : "", sb.len);
    sb_free(&sb);
    return s;
}

/* msprobe's compare_dataset_dicts: the bench's keys (missing in cmp:
 * deleted, equal False), statistics records compared, other objects
 * recursed into; then the keys only cmp has (added, equal False). */
static void dataset_diff(cc_ctx *c, const jval *d1, const jval *d2, const char *tag, long long step, long long rank,
                         srows *rows, int depth, int *fail)
{
    if (depth > 200)
        return;
    for (uint32_t i = 0; i < d1->len; i++) {
        const jmember *m = &d1->u.members[i];
        size_t tl;
        const char *t = join_tag(c, tag, m->key, m->keylen, &tl);
        const jval *v2 = member(d2, m->key, m->keylen);
        if (!v2) {
            srow *r = add_row(rows, step, rank);
            r->c[2] = cell_str(t, tl);
            r->c[3] = cell_bool(0);
            *fail = 1;
            continue;
        }
        if (m->val.type != J_OBJECT)
            continue;
        if (is_stats(&m->val)) {
            srow *r = add_row(rows, step, rank);
            int eq = py_json_equal(&m->val, v2);
            r->c[2] = cell_str(t, tl);
            r->c[3] = cell_bool(eq);
            stat_diffs(&m->val, v2, r);
            if (!eq)
                *fail = 1;
        } else {
            dataset_diff(c, &m->val, v2, t, step, rank, rows, depth + 1, fail);
        }
    }
    if (!d2 || d2->type != J_OBJECT)
        return;
    for (uint32_t j = 0; j < d2->len; j++) {
        const jmember *m = &d2->u.members[j];
        if (member(d1, m->key, m->keylen))
            continue;
        size_t tl;
        const char *t = join_tag(c, tag, m->key, m->keylen, &tl);
        srow *r = add_row(rows, step, rank);
        r->c[2] = cell_str(t, tl);
        r->c[3] = cell_bool(0);
        *fail = 1;
    }
}

/* "dataset/STEP/RANK/dataset.json": the STEP and RANK parts, or 0. */
static int dataset_parts(const zip_entry *e, const char **step, size_t *sl, const char **rank, size_t *rl)
{
    const char *s = e->name + 8, *end = e->name + e->name_len; /* after "dataset/" */
    const char *a = memchr(s, '/', (size_t)(end - s));
    if (!a)
        return 0;
    const char *b = memchr(a + 1, '/', (size_t)(end - a - 1));
    if (!b || (size_t)(end - b - 1) != 12 || memcmp(b + 1, "dataset.json", 12))
        return 0;
    *step = s, *sl = (size_t)(a - s), *rank = a + 1, *rl = (size_t)(b - a - 1);
    return 1;
}

static int parse_step_rank(cc_ctx *c, pack *p, const zip_entry *e, const char *step, size_t sl, const char *rank,
                           size_t rl, long long *si, long long *ri)
{
    if (cc_int_of(step, sl, "step", si) != 0)
        return err_input(pack_where(p, e->name, e->name_len, c->a), "the folder '%.*s' is not step<N>", (int)sl, step);
    if (cc_int_of(rank, rl, "rank", ri) != 0)
        return err_input(pack_where(p, e->name, e->name_len, c->a), "the folder '%.*s' is not rank<N>", (int)rl, rank);
    return 0;
}

/* One dataset/STEP/RANK/dataset.json of the bench pack against the same
 * file of the other pack (none there: no rows). */
static int dataset_file(cc_ctx *c, const zip_entry *e, srows *rows, int *fail)
{
    const char *step, *rank;
    size_t sl, rl;
    if (!dataset_parts(e, &step, &sl, &rank, &rl))
        return 0;
    char *name = xstrndup(e->name, e->name_len);
    const zip_entry *ce = pack_file(c->cmp, name);
    free(name);
    if (!ce)
        return 0;
    long long si, ri;
    jval d1, d2;
    if (parse_step_rank(c, c->bench, e, step, sl, rank, rl, &si, &ri) != 0 || pack_json(c->bench, e, c->a, &d1) != 0
        || pack_json(c->cmp, ce, c->a, &d2) != 0)
        return -1;
    if (d1.type != J_OBJECT || d2.type != J_OBJECT) {
        pack *p = d1.type != J_OBJECT ? c->bench : c->cmp;
        return err_input(pack_where(p, e->name, e->name_len, c->a), "is not a JSON object");
    }
    dataset_diff(c, &d1, &d2, "", si, ri, rows, 0, fail);
    return 0;
}

int check_dataset(cc_ctx *c, cc_sheet *out) { return stats_sheet(c, out, "dataset", dataset_header, dataset_file); }

/* ---- weights ----------------------------------------------------------------- */

static int name_cmp(const jmember *a, const jmember *b)
{
    size_t n = a->keylen < b->keylen ? a->keylen : b->keylen;
    int r = memcmp(a->key, b->key, n);
    return r ? r : (a->keylen > b->keylen) - (a->keylen < b->keylen);
}

static int member_cmp(const void *x, const void *y) { return name_cmp(*(const jmember *const *)x, *(const jmember *const *)y); }

static void weight_row(cc_ctx *c, srows *rows, long long si, long long ri, const jmember *m, const jval *bv,
                       const jval *cv, int *fail)
{
    srow *r = add_row(rows, si, ri);
    r->c[2] = cc_text(c, m->key, m->keylen);
    if (!cv) {
        r->c[3] = cc_text(c, "only bench have", 15);
        return;
    }
    if (!bv) {
        r->c[3] = cc_text(c, "only cmp have", 13);
        return;
    }
    int eq = bv->type == J_OBJECT && cv->type == J_OBJECT;
    for (int k = 0; k < 4 && eq; k++) {
        const jval *x = json_get(bv, stat_names[k]), *y = json_get(cv, stat_names[k]);
        eq = x && y && py_json_equal(x, y);
    }
    r->c[3] = cell_bool(eq);
    if (!eq)
        *fail = 1;
    if (bv->type == J_OBJECT)
        stat_diffs(bv, cv, r);
}

/* The rows of one weights file of the bench pack: every weight of it and
 * of the same file of the other pack. */
static int weights_rows(cc_ctx *c, const zip_entry *e, long long si, long long ri, srows *rows, int *fail)
{
    jval b;
    if (pack_json(c->bench, e, c->a, &b) != 0)
        return -1;
    if (b.type != J_OBJECT)
        return err_input(pack_where(c->bench, e->name, e->name_len, c->a), "is not a JSON object");
    char *name = xstrndup(e->name, e->name_len);
    const zip_entry *ce = pack_file(c->cmp, name);
    free(name);
    if (!ce) {
        for (uint32_t i = 0; i < b.len; i++)
            weight_row(c, rows, si, ri, &b.u.members[i], &b.u.members[i].val, NULL, fail);
        return 0;
    }
    jval m;
    if (pack_json(c->cmp, ce, c->a, &m) != 0)
        return -1;
    if (m.type != J_OBJECT)
        return err_input(pack_where(c->cmp, ce->name, ce->name_len, c->a), "is not a JSON object");
    /* the union of the names, sorted (msprobe iterates a Python set, whose
     * order changes from run to run) */
    strmap bi, mi;
    strmap_init(&bi, b.len);
    strmap_init(&mi, m.len);
    int added;
    for (uint32_t i = 0; i < b.len; i++)
        strmap_put(&bi, b.u.members[i].key, b.u.members[i].keylen, i, &added);
    for (uint32_t i = 0; i < m.len; i++)
        strmap_put(&mi, m.u.members[i].key, m.u.members[i].keylen, i, &added);
    const jmember **all = xmalloc_array((size_t)b.len + m.len + 1, sizeof *all);
    size_t n = 0;
    for (uint32_t i = 0; i < b.len; i++)
        all[n++] = &b.u.members[i];
    for (uint32_t i = 0; i < m.len; i++)
        if (!strmap_get(&bi, m.u.members[i].key, m.u.members[i].keylen))
            all[n++] = &m.u.members[i];
    qsort(all, n, sizeof *all, member_cmp);
    for (size_t i = 0; i < n; i++) {
        const size_t *x = strmap_get(&bi, all[i]->key, all[i]->keylen), *y = strmap_get(&mi, all[i]->key, all[i]->keylen);
        weight_row(c, rows, si, ri, all[i], x ? &b.u.members[*x].val : NULL, y ? &m.u.members[*y].val : NULL, fail);
    }
    free(all);
    strmap_free(&bi);
    strmap_free(&mi);
    return 0;
}

/* One file under weights/ of the bench pack: a .json file in
 * weights/step<N>/rank<N>/ (or deeper) gets its rows. */
static int weights_file(cc_ctx *c, const zip_entry *e, srows *rows, int *fail)
{
    if (e->name_len < 5 || memcmp(e->name + e->name_len - 5, ".json", 5))
        return 0;
    /* the folders between weights/ and the file: os.walk stops 10 deep */
    const char *s = e->name + 8, *end = e->name + e->name_len;
    const char *parts[12];
    size_t lens[12], np = 0;
    for (const char *p = s; p < end && np < 12;) {
        const char *q = memchr(p, '/', (size_t)(end - p));
        if (!q)
            break;
        parts[np] = p;
        lens[np++] = (size_t)(q - p);
        p = q + 1;
    }
    if (np >= 10)
        return 0;
    if (np < 2)
        return err_input(pack_where(c->bench, e->name, e->name_len, c->a),
                         "Can not compare weights because the extracted file has been corrupted! (not in "
                         "weights/step<N>/rank<N>/)");
    long long si, ri;
    if (parse_step_rank(c, c->bench, e, parts[0], lens[0], parts[1], lens[1], &si, &ri) != 0)
        return -1;
    return weights_rows(c, e, si, ri, rows, fail);
}

int check_weights(cc_ctx *c, cc_sheet *out) { return stats_sheet(c, out, "weights", weights_header, weights_file); }
