/* Anomaly records: loading and msprobe's ordering (anomaly.h). */
#include "monitor/anomaly/anomaly.h"
#include "format/json.h"
#include "base/err.h"
#include "base/files.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const anomaly_fields[AF_COUNT] = {"rank",     "step",     "micro_step", "pp_stage",   "vpp_stage",
                                              "call_id",  "tag_name", "message",    "group_mates"};

int anomaly_stage(const char *tag, size_t n)
{
    size_t i = n;
    while (i && tag[i - 1] != '/')
        i--;
    const char *k = tag + i;
    size_t kn = n - i;
#define IS(w) (kn == sizeof(w) - 1 && !memcmp(k, w, kn))
    if (IS("actv"))
        return STAGE_FORWARD;
    if (IS("actv_grad") || IS("pre_grad") || IS("post_grad") || IS("acc_grad"))
        return STAGE_BACKWARD;
    if (IS("exp_avg") || IS("exp_avg_sq"))
        return STAGE_OPTIMIZER;
#undef IS
    return STAGE_OTHER;
}

/* ---- loading -------------------------------------------------------------- */

typedef struct {
    char *name;
    long number;     /* rank{N}: N; else -1 */
} subdir;

static int by_rank_then_name(const void *a, const void *b)
{
    const subdir *x = a, *y = b;
    if ((x->number >= 0) != (y->number >= 0))
        return x->number >= 0 ? -1 : 1;
    if (x->number != y->number)
        return x->number < y->number ? -1 : 1;
    return strcmp(x->name, y->name);
}

static long rank_number(const char *name)
{
    if (strncmp(name, "rank", 4) != 0 || !name[4] || strlen(name) > 12)
        return -1;
    long v = 0;
    for (const char *p = name + 4; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        v = v * 10 + (*p - '0');
    }
    return v;
}

/* A record as GradAnomalyData(**values) takes it: 0, or 1 with the reason
 * msprobe would refuse it in *why. */
static int build(const jval *rec, anomaly *a, const char **why, char *buf, size_t cap)
{
    memset(a, 0, sizeof *a);
    if (rec->type != J_OBJECT) {
        *why = "is not an object";
        return 1;
    }
    long long *num[6] = {&a->rank, &a->step, &a->micro_step, &a->pp_stage, &a->vpp_stage, &a->call_id};
    for (uint32_t i = 0; i < rec->len; i++) {
        const jmember *m = &rec->u.members[i];
        const jval *v = json_member_value(rec, i);
        int f = 0;
        while (f < AF_COUNT && !json_key_is(m, anomaly_fields[f]))
            f++;
        if (f == AF_COUNT) {
            snprintf(buf, cap, "has the unexpected field '%.*s'", (int)(m->keylen > 60 ? 60 : m->keylen), m->key);
            *why = buf;
            return 1;
        }
        a->field[f] = v;
    }
    for (int f = 0; f < 6; f++) {
        const jval *v = a->field[f];
        if (!v)
            continue;   /* the default, 0 */
        if (v->type != J_NUMBER || !v->is_int || v->len > 18) {
            snprintf(buf, cap, "has a '%s' that is not an integer", anomaly_fields[f]);
            *why = buf;
            return 1;
        }
        *num[f] = strtoll(v->text, NULL, 10);
    }
    const jval *tag = a->field[AF_TAG_NAME];
    if (!tag || tag->type != J_STRING) {
        /* msprobe's sort would fail on it (None.split) */
        *why = "has no tag_name string";
        return 1;
    }
    a->tag = tag->u.str;
    a->tag_len = tag->len;
    a->stage = anomaly_stage(a->tag, a->tag_len);
    return 0;
}

typedef struct {
    mapped_file *v;
    size_t n, cap;
} texts;

static int load_file(const char *path, anomaly_list *out)
{
    texts *t = out->data;
    GROW(t->v, t->cap, t->n + 1);
    jval doc;
    int rc = json_load_file(path, 0, &t->v[t->n], &out->a, &doc, "is not a JSON object of anomaly records");
    t->n++;   /* released with the list, read or not */
    for (uint32_t i = 0; rc == 0 && i < doc.len; i++) {
        anomaly a;
        const char *why;
        char buf[128];
        const jval *rec = json_member_value(&doc, i);
        if (build(rec, &a, &why, buf, sizeof buf)) {
            const jmember *mem = &doc.u.members[i];
            log_warn_as("anomaly records skipped", "%s: record '%.*s' %s; skipped, as msprobe does", path,
                        (int)(mem->keylen > 120 ? 120 : mem->keylen), mem->key, why);
            out->skipped++;
            continue;
        }
        GROW(out->v, out->cap, out->n + 1);
        out->v[out->n++] = a;
    }
    return rc;
}

int anomaly_load(const char *dir, anomaly_list *out)
{
    memset(out, 0, sizeof *out);
    arena_init(&out->a, 1 << 16);
    out->data = xcalloc(1, sizeof(texts));
    if (path_require(dir, 1) != 0)
        return -1;
    char **names;
    long n = dir_list(dir, &names);
    if (n < 0)
        return -1;
    subdir *subs = xcalloc(n ? (size_t)n : 1, sizeof *subs);
    size_t ns = 0;
    for (long i = 0; i < n; i++) {
        char *p = path_join(dir, names[i]);
        if (path_kind(p) == PATH_DIR)
            subs[ns++] = (subdir){names[i], rank_number(names[i])};
        free(p);
    }
    qsort(subs, ns, sizeof *subs, by_rank_then_name);
    int rc = 0;
    for (size_t i = 0; i < ns && rc == 0; i++) {
        char *sub = path_join(dir, subs[i].name);
        char *json = path_join(sub, "anomaly.json");
        enum path_kind k = path_kind(json);
        if (k == PATH_FILE) {
            out->files++;
            rc = load_file(json, out);
        } else if (k != PATH_MISSING) {
            rc = path_require(json, 0);
        }
        free(json);
        free(sub);
    }
    free(subs);
    names_free(names, n);
    return rc;
}

void anomaly_list_free(anomaly_list *l)
{
    texts *t = l->data;
    for (size_t i = 0; t && i < t->n; i++)
        file_unmap(&t->v[i]);
    if (t)
        free(t->v);
    free(t);
    free(l->v);
    arena_free(&l->a);
    memset(l, 0, sizeof *l);
}

/* ---- ordering ------------------------------------------------------------- */

int anomaly_lt(const anomaly *a, const anomaly *b)
{
    /* vpp and pp count down outside the forward stage; chosen by a's stage,
     * which only matters when both stages are equal */
    int fwd = a->stage == STAGE_FORWARD;
    long long x[6] = {a->step, a->micro_step, a->stage, fwd ? a->vpp_stage : -a->vpp_stage,
                      fwd ? a->pp_stage : -a->pp_stage, a->call_id};
    long long y[6] = {b->step, b->micro_step, b->stage, fwd ? b->vpp_stage : -b->vpp_stage,
                      fwd ? b->pp_stage : -b->pp_stage, b->call_id};
    for (int i = 0; i < 6; i++)
        if (x[i] != y[i])
            return x[i] < y[i];
    return 0;
}

int anomaly_eq(const anomaly *a, const anomaly *b)
{
    return a->rank == b->rank && a->step == b->step && a->micro_step == b->micro_step && a->pp_stage == b->pp_stage &&
           a->vpp_stage == b->vpp_stage && a->call_id == b->call_id;
}

/* heapq.nsmallest works on (record, order) pairs: Python compares two
 * pairs by their records when those differ by __eq__, else by order. */
typedef struct {
    const anomaly *a;
    size_t index;     /* into `in` */
    size_t order;
} pair;

static int pair_lt(const pair *x, const pair *y)
{
    if (x->a != y->a && !anomaly_eq(x->a, y->a))
        return anomaly_lt(x->a, y->a);
    if (x->a == y->a)
        return 0;
    return x->order < y->order;
}

/* heapq's max-heap helpers (_siftdown_max, _siftup_max). */
static void siftdown_max(pair *h, size_t start, size_t pos)
{
    pair item = h[pos];
    while (pos > start) {
        size_t parent = (pos - 1) >> 1;
        if (!pair_lt(&h[parent], &item))
            break;
        h[pos] = h[parent];
        pos = parent;
    }
    h[pos] = item;
}

static void siftup_max(pair *h, size_t n, size_t pos)
{
    size_t start = pos;
    pair item = h[pos];
    size_t child = 2 * pos + 1;
    while (child < n) {
        size_t right = child + 1;
        if (right < n && !pair_lt(&h[right], &h[child]))
            child = right;
        h[pos] = h[child];
        pos = child;
        child = 2 * pos + 1;
    }
    h[pos] = item;
    siftdown_max(h, start, pos);
}

/* list.sort() of CPython 3.11 on fewer than 64 items: the leading run
 * (reversed when strictly descending), then binary insertion. */
static void small_sort(pair *v, size_t n)
{
    if (n < 2)
        return;
    size_t run = 2;
    if (pair_lt(&v[1], &v[0])) {
        while (run < n && pair_lt(&v[run], &v[run - 1]))
            run++;
        for (size_t i = 0, j = run - 1; i < j; i++, j--) {
            pair t = v[i];
            v[i] = v[j];
            v[j] = t;
        }
    } else {
        while (run < n && !pair_lt(&v[run], &v[run - 1]))
            run++;
    }
    for (size_t s = run; s < n; s++) {
        pair pivot = v[s];
        size_t l = 0, r = s;
        do {
            size_t p = l + ((r - l) >> 1);
            if (pair_lt(&pivot, &v[p]))
                r = p;
            else
                l = p + 1;
        } while (l < r);
        memmove(v + l + 1, v + l, (s - l) * sizeof *v);
        v[l] = pivot;
    }
}

/* A stable merge sort by a comparison: msprobe's sorted() (a consistent
 * order, so any stable sort agrees), and the pairs of a large top K. */
typedef int (*less_fn)(const pair *, const pair *);

static void merge_sort(pair *v, pair *tmp, size_t n, less_fn lt)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    merge_sort(v, tmp, h, lt);
    merge_sort(v + h, tmp, n - h, lt);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = lt(&v[j], &v[i]) ? v[j++] : v[i++];
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

static int record_lt(const pair *x, const pair *y) { return anomaly_lt(x->a, y->a); }

size_t anomaly_top_k(const anomaly *const *in, size_t n, size_t k, size_t *out)
{
    if (n == 0 || k == 0)
        return 0;
    if (k >= n) {
        pair *v = xmalloc_array(n, sizeof *v), *tmp = xmalloc_array(n, sizeof *tmp);
        for (size_t i = 0; i < n; i++)
            v[i] = (pair){in[i], i, i};
        merge_sort(v, tmp, n, record_lt);
        for (size_t i = 0; i < n; i++)
            out[i] = v[i].index;
        free(v);
        free(tmp);
        return n;
    }
    /* heapq.nsmallest(k, in): a max-heap of the first k, each later record
     * smaller than the top replacing it; then result.sort() */
    pair *h = xmalloc_array(k, sizeof *h);
    for (size_t i = 0; i < k; i++)
        h[i] = (pair){in[i], i, i};
    for (size_t i = k / 2; i-- > 0;)
        siftup_max(h, k, i);
    size_t order = k;
    for (size_t i = k; i < n; i++)
        if (anomaly_lt(in[i], h[0].a)) {
            h[0] = (pair){in[i], i, order++};
            siftup_max(h, k, 0);
        }
    if (k < 64) {
        small_sort(h, k);
    } else {
        /* beyond 64 items CPython merges runs with galloping; with
         * consistent comparisons any stable sort agrees with it */
        pair *tmp = xmalloc_array(k, sizeof *tmp);
        merge_sort(h, tmp, k, pair_lt);
        free(tmp);
    }
    for (size_t i = 0; i < k; i++)
        out[i] = h[i].index;
    free(h);
    return k;
}

void anomaly_key(const anomaly *a, char **out, size_t *len)
{
    strbuf sb = STRBUF_INIT;
    sb_add(&sb, a->tag, a->tag_len);
    sb_addf(&sb, "_step_%lld_call_%lld", a->step, a->call_id);
    *len = sb.len;
    *out = sb_detach(&sb);
}


