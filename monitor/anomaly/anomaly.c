/* Anomaly records: loading and msprobe's ordering (anomaly.h). */
#include "monitor/anomaly/anomaly.h"
#include "format/json.h"
#include "base/err.h"
#include "base/files.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "model/dumptree.h"

#include <errno.h>
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

/* A record's fields by name into field[]: 0, or 1 with an unknown one
 * named in buf. */
static int fields(const jval *rec, const jval *field[AF_COUNT], const char **why, char *buf, size_t cap)
{
    for (int f = 0; f < AF_COUNT; f++)
        field[f] = NULL;
    for (uint32_t i = 0; i < rec->len; i++) {
        const jmember *m = &rec->u.members[i];
        int f = 0;
        while (f < AF_COUNT && !json_key_is(m, anomaly_fields[f]))
            f++;
        if (f == AF_COUNT) {
            snprintf(buf, cap, "has the unexpected field '%.*s'", (int)(m->keylen > 60 ? 60 : m->keylen), m->key);
            *why = buf;
            return 1;
        }
        field[f] = json_member_value(rec, i);
    }
    return 0;
}

/* A record as GradAnomalyData(**values) takes it: 0, or 1 with the reason
 * msprobe would refuse it in *why, or 2 when a number is beyond what any
 * step or rank can be (an error: never taken as another number). The tag
 * points into the record's text, or into `keep` when it had escapes. */
static int build(const jval *rec, const char *text, size_t text_len, arena *keep, anomaly *a, const char **why,
                 char *buf, size_t cap)
{
    memset(a, 0, sizeof *a);
    if (rec->type != J_OBJECT) {
        *why = "is not an object";
        return 1;
    }
    const jval *field[AF_COUNT];
    if (fields(rec, field, why, buf, cap))
        return 1;
    long long *num[6] = {&a->rank, &a->step, &a->micro_step, &a->pp_stage, &a->vpp_stage, &a->call_id};
    for (int f = 0; f < 6; f++) {
        const jval *v = field[f];
        if (!v)
            continue;   /* the default, 0 */
        if (v->type != J_NUMBER || !v->is_int) {
            snprintf(buf, cap, "has a '%s' that is not an integer", anomaly_fields[f]);
            *why = buf;
            return 1;
        }
        errno = 0;
        *num[f] = strtoll(v->text, NULL, 10);
        if (errno == ERANGE) {
            snprintf(buf, cap, "has a '%s' of %.*s, beyond the integer range", anomaly_fields[f],
                     (int)(v->len > 40 ? 40 : v->len), v->text);
            *why = buf;
            return 2;
        }
    }
    const jval *tag = field[AF_TAG_NAME];
    if (!tag || tag->type != J_STRING) {
        /* msprobe's sort would fail on it (None.split) */
        *why = "has no tag_name string";
        return 1;
    }
    int in_text = tag->u.str >= text && tag->u.str + tag->len <= text + text_len;
    a->tag = in_text ? tag->u.str : arena_strndup(keep, tag->u.str, tag->len);
    a->tag_len = tag->len;
    a->stage = anomaly_stage(a->tag, a->tag_len);
    return 0;
}

typedef struct {
    mapped_file *v;
    size_t n, cap;
} texts;

/* One member of the file: its key and its (last) value's bytes. */
typedef struct {
    const char *key;
    size_t keylen, at, len;
} member_span;

typedef struct {
    const char *text;
    size_t size;
    arena *keys;            /* keys that had escapes */
    strmap seen;            /* key -> its place in v */
    member_span *v;
    size_t n, cap;
} members;

/* A member of the file: its key and its value's bytes; a repeated key
 * keeps its first place and takes the later value. */
static int record_span(void *ctx, jparser *jp, const char *key, size_t keylen, arena *scratch)
{
    members *mb = ctx;
    (void)scratch;
    if (!(key >= mb->text && key + keylen <= mb->text + mb->size))
        key = arena_strndup(mb->keys, key, keylen);
    jp_peek(jp);   /* to the value's first byte */
    size_t at = (size_t)(jp->p - mb->text);
    if (jp_skip(jp) != 0)
        return -1;
    size_t len = (size_t)(jp->p - mb->text) - at;
    int added;
    size_t *slot = strmap_put(&mb->seen, key, keylen, mb->n, &added);
    if (added) {
        GROW(mb->v, mb->cap, mb->n + 1);
        mb->v[mb->n++] = (member_span){key, keylen, at, len};
    } else {
        mb->v[*slot].at = at;
        mb->v[*slot].len = len;
    }
    return 0;
}

/* The records of one anomaly.json. The file is walked once for its
 * members (a repeated key keeps its first place and takes the later
 * value, as json.load's dict does), then each member's value is parsed on
 * its own into a scratch arena, built and dropped. */
static int load_file(const char *path, anomaly_list *out)
{
    texts *t = out->data;
    GROW(t->v, t->cap, t->n + 1);
    mapped_file *m = &t->v[t->n];
    uint32_t file = (uint32_t)t->n;
    int rc = file_load(path, 0, m);
    t->n++;   /* released with the list, read or not */
    if (rc != 0)
        return -1;
    const char *text = m->data ? (const char *)m->data : "";
    jparser jp;
    jp_init(&jp, path, text, m->size);
    arena scratch, keys;
    arena_init(&scratch, 1 << 16);
    arena_init(&keys, 1 << 16);
    members mb = {.text = text, .size = m->size, .keys = &keys};
    strmap_init(&mb.seen, 1024);
    /* an empty file is malformed JSON to json.load, as it always was here */
    rc = jp_peek(&jp) < 0 ? jp_skip(&jp)
                          : json_walk_object(&jp, path, "is not a JSON object of anomaly records", &scratch,
                                             record_span, &mb);
    jp_free(&jp);
    strmap_free(&mb.seen);
    member_span *mv = mb.v;
    size_t nm = mb.n;
    for (size_t i = 0; i < nm && rc == 0; i++) {
        jparser one;
        jp_init(&one, path, text + mv[i].at, mv[i].len);
        jval rec;
        rc = jp_value(&one, &scratch, &rec);
        jp_free(&one);
        anomaly a;
        const char *why;
        char buf[128];
        int refused = rc == 0 ? build(&rec, text, m->size, &out->a, &a, &why, buf, sizeof buf) : 0;
        arena_reset(&scratch);
        int kl = (int)(mv[i].keylen > 120 ? 120 : mv[i].keylen);
        if (refused == 2) {
            rc = err_input(path, "record '%.*s' %s", kl, mv[i].key, why);
        } else if (refused) {
            log_warn_as("anomaly records skipped", "%s: record '%.*s' %s; skipped, as msprobe does", path, kl,
                        mv[i].key, why);
            out->skipped++;
        } else if (rc == 0) {
            a.file = file;
            a.at = mv[i].at;
            a.len = mv[i].len;
            GROW(out->v, out->cap, out->n + 1);
            out->v[out->n++] = a;
        }
    }
    free(mv);
    arena_free(&scratch);
    arena_free(&keys);
    return rc;
}

int anomaly_fields_of(const anomaly_list *l, const anomaly *r, arena *a, const jval *field[AF_COUNT])
{
    const texts *t = l->data;
    const mapped_file *m = &t->v[r->file];
    jparser jp;
    jp_init(&jp, m->path, m->data + r->at, r->len);
    jval rec;
    int rc = jp_value(&jp, a, &rec);
    jp_free(&jp);
    const char *why;
    char buf[128];
    if (rc == 0 && (rec.type != J_OBJECT || fields(&rec, field, &why, buf, sizeof buf)))
        rc = err_internal(m->path, "an anomaly record changed between two readings");
    return rc;
}

int anomaly_load(const char *dir, anomaly_list *out)
{
    memset(out, 0, sizeof *out);
    arena_init(&out->a, 1 << 16);
    out->data = xcalloc(1, sizeof(texts));
    if (path_require(dir, 1) != 0)
        return -1;
    /* the rank directories every analyzer reads (model/dumptree's rule):
     * rank0 and rank00 are two dumps of rank 0, refused, not read twice */
    dumptree_list ranks, skipped;
    if (dumptree_ranks_loose(dir, &ranks, &skipped) != 0)
        return -1;
    for (size_t i = 0; i < skipped.n; i++) {
        char *json = dumptree_file(skipped.v[i].path, "anomaly.json");
        if (json)
            log_warn_as("directories skipped", "%s: '%s' is not a rank directory (rank<N>): its anomaly.json is "
                        "skipped", dir, skipped.v[i].name);
        free(json);
    }
    int rc = 0;
    for (size_t i = 0; i < ranks.n && rc == 0; i++) {
        char *json = path_join(ranks.v[i].path, "anomaly.json");
        enum path_kind k = path_kind(json);
        if (k == PATH_FILE) {
            out->files++;
            rc = load_file(json, out);
        } else if (k != PATH_MISSING) {
            rc = path_require(json, 0);
        }
        free(json);
    }
    dumptree_list_free(&ranks);
    dumptree_list_free(&skipped);
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


