/* Pairing target rows with bench rows (spec/compare.md §4).
 *
 * Every target row has a compare key: its name, or what a mapping made of it
 * (mapping.c); bench rows are keyed by their names.
 *   exact  (§4.2): full outer join on (key, shape) in pandas' order — keys in
 *          order of first appearance on the target side, several rows with
 *          one key give their cartesian product there, bench-only rows dropped;
 *   mapped (§4.3): with a data mapping, a left join on the key alone, in
 *          target order, without the dtype rule;
 *   fuzzy  (§4.4): msprobe's greedy walk over both row lists, matching names
 *          without their call counters.
 * Then pairs with incompatible dtypes become unmatched (§4.5).
 */
#include "compare/pipeline/compare.h"
#include "compare/pipeline/dialect.h"
#include "base/mem.h"
#include "base/pool.h"
#include "base/radix.h"
#include "base/strmap.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static const char *const float_group_ms[] = {"Float16", "Float32", "BFloat16", NULL};
static const char *const float_group_pt[] = {"torch.float16", "torch.float32", "torch.bfloat16", NULL};

static int in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(s, *list))
            return 1;
    return 0;
}

/* MindSpore target vs PyTorch bench: both sides' dtypes are reduced to
 * int / float / bool / complex before comparing. */
static const char *cross_dtype(const char *d)
{
    static const char *const ints[] = {"Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64",
                                       "torch.int8", "torch.uint8", "torch.int16", "torch.uint16", "torch.int32",
                                       "torch.uint32", "torch.int64", "torch.uint64", NULL};
    static const char *const floats[] = {"Float16", "Float32", "Float64", "BFloat16", "torch.float16",
                                         "torch.float32", "torch.float64", "torch.bfloat16", NULL};
    static const char *const bools[] = {"Bool", "torch.bool", NULL};
    static const char *const complexes[] = {"Complex64", "Complex128", "torch.complex64", "torch.complex128", NULL};
    if (in_list(d, ints))
        return "int";
    if (in_list(d, floats))
        return "float";
    if (in_list(d, bools))
        return "bool";
    if (in_list(d, complexes))
        return "complex";
    return d;
}

int dtype_compatible(const char *a, const char *b, int cross_frame)
{
    if (a == b)   /* interned texts: the common case */
        return 1;
    if (cross_frame) {
        a = cross_dtype(a);
        b = cross_dtype(b);
    }
    if (!strcmp(a, b))
        return 1;
    return (in_list(a, float_group_ms) && in_list(b, float_group_ms)) ||
           (in_list(a, float_group_pt) && in_list(b, float_group_pt));
}

const char *npu_key(const compare_ctx *c, size_t i)
{
    return c->keys.npu_keys ? c->keys.npu_keys[i] : c->npu.rows[i].name;
}

static const char *bench_key(const compare_ctx *c, size_t i)
{
    return c->bench_keys ? c->bench_keys[i] : c->bench.rows[i].name;
}

/* The exact join's key holds the shape (8.1.0) or not (the newest msprobe). */
static int on_shape(const compare_ctx *c) { return dialect_of(c->opts->dialect)->join_on_shape; }

static int dropped(const compare_ctx *c, size_t i) { return c->npu_dropped && c->npu_dropped[i]; }

/* "key\x1fshape", the join key. */
static const char *join_key(arena *a, const char *key, const char *shape, size_t *len)
{
    size_t lk = strlen(key), ls = strlen(shape);
    char *k = arena_alloc(a, lk + ls + 2);
    memcpy(k, key, lk);
    k[lk] = 0x1f;
    memcpy(k + lk + 1, shape, ls + 1);
    *len = lk + ls + 1;
    return k;
}

typedef struct {
    compare_ctx *c;
    size_t cap;
    int check_dtype;
} pair_sink;

static void push(pair_sink *s, const dump_row *n, const dump_row *b)
{
    compare_ctx *c = s->c;
    if (b && s->check_dtype && !dtype_compatible(n->dtype, b->dtype, c->cross_frame))
        b = NULL;
    GROW(c->pairs, s->cap, c->npairs + 1);
    c->pairs[c->npairs].n = n;
    c->pairs[c->npairs].b = b;
    c->npairs++;
}

/* Bench rows grouped by a key: first row per key and a chain to the next. */
typedef struct {
    strmap first;
    size_t *next, *tail;
} bench_index;

static void bench_index_build(bench_index *bi, const compare_ctx *c, arena *keys, int with_shape)
{
    const dump_data *B = &c->bench;
    strmap_init(&bi->first, B->nrows);
    bi->next = xmalloc_array(B->nrows + 1, sizeof *bi->next);
    bi->tail = xmalloc_array(B->nrows + 1, sizeof *bi->tail);
    for (size_t i = 0; i < B->nrows; i++) {
        size_t len;
        const char *k = with_shape ? join_key(keys, bench_key(c, i), B->rows[i].shape, &len) : bench_key(c, i);
        if (!with_shape)
            len = strlen(k);
        int added;
        size_t *first = strmap_put(&bi->first, k, len, i, &added);
        bi->next[i] = (size_t)-1;
        bi->tail[i] = i;
        if (!added) {
            bi->next[bi->tail[*first]] = i;
            bi->tail[*first] = i;
        }
    }
}

static void bench_index_free(bench_index *bi)
{
    strmap_free(&bi->first);
    free(bi->next);
    free(bi->tail);
}

/* ---- the exact join by sorting ------------------------------------------
 *
 * A hash table over a million keys costs a cache miss or two per lookup;
 * instead every row gets a 64-bit hash of (key, shape), computed in order on
 * all threads, and both sides' (hash, row) lists are radix-sorted (stable,
 * so rows of one hash stay in row order) and merged. Rows of one hash are
 * then told apart by their texts, so a collision costs time, never a wrong
 * pair. */

typedef struct {
    uint64_t h;
    size_t row;
} keyed_row;

static uint64_t join_hash(const char *key, const char *shape)
{
    uint64_t h = strmap_hash64(0, key, strlen(key));
    return strmap_hash64_end(shape ? strmap_hash64(h, shape, strlen(shape)) : h);
}

typedef struct {
    const compare_ctx *c;
    const dump_data *d;
    int npu;                 /* keys from npu_key() */
    keyed_row *out;
} hash_job;

#define HASH_CHUNK 65536

static void hash_chunk(void *arg, size_t chunk)
{
    hash_job *j = arg;
    size_t from = chunk * HASH_CHUNK, to = from + HASH_CHUNK < j->d->nrows ? from + HASH_CHUNK : j->d->nrows;
    int shape = on_shape(j->c);
    for (size_t i = from; i < to; i++) {
        const char *k = j->npu ? npu_key(j->c, i) : bench_key(j->c, i);
        j->out[i].h = join_hash(k, shape ? j->d->rows[i].shape : NULL);
        j->out[i].row = i;
    }
}

/* Both sides hashed and sorted, each side's sort on its own thread. */
typedef struct {
    compare_ctx *c;
    int threads;
    keyed_row *keys[2];
} sort_job;

static int sort_side(void *arg, size_t side)
{
    sort_job *j = arg;
    const dump_data *d = side == 0 ? &j->c->npu : &j->c->bench;
    keyed_row *k = xmalloc_array(d->nrows ? d->nrows : 1, sizeof *k);
    hash_job h = {.c = j->c, .d = d, .npu = side == 0, .out = k};
    size_t chunks = (d->nrows + HASH_CHUNK - 1) / HASH_CHUNK;
    for (size_t i = 0; i < chunks; i++)
        hash_chunk(&h, i);
    radix_sort_u64(k, d->nrows, sizeof *k);
    j->keys[side] = k;
    return 0;
}

static void sorted_keys(compare_ctx *c, int threads, keyed_row **nk, keyed_row **bk)
{
    sort_job j = {.c = c, .threads = threads};
    pool_run(2, threads, sort_side, &j, NULL);
    *nk = j.keys[0];
    *bk = j.keys[1];
}

static int same_key(const compare_ctx *c, int npu_a, size_t a, int npu_b, size_t b)
{
    const char *ka = npu_a ? npu_key(c, a) : bench_key(c, a);
    const char *kb = npu_b ? npu_key(c, b) : bench_key(c, b);
    const char *sa = (npu_a ? &c->npu : &c->bench)->rows[a].shape;
    const char *sb = (npu_b ? &c->npu : &c->bench)->rows[b].shape;
    return (ka == kb || !strcmp(ka, kb)) && (!on_shape(c) || sa == sb || !strcmp(sa, sb));
}

/* The pairs of a join, in target order: each key's target rows at its
 * first one's place (8.1.0: pandas' merge order), or each target row at
 * its own (the newest msprobe re-sorts the merge by target order), each
 * with every bench row of the key (or none). nfirst/nnext: a target row's
 * key group and the next row in it; bhead: per group, its first bench row;
 * bnext: the next bench row of the key. */
static void push_groups(pair_sink *s, const size_t *nfirst, const size_t *nnext, const size_t *bhead,
                        const size_t *bnext)
{
    const dump_data *N = &s->c->npu, *B = &s->c->bench;
    const size_t none = (size_t)-1;
    if (s->c->opts->dialect == DIALECT_NEWEST) {
        for (size_t n = 0; n < N->nrows; n++) {
            if (dropped(s->c, n))
                continue;
            size_t g = nfirst[n];
            if (bhead[g] == none)
                push(s, &N->rows[n], NULL);
            for (size_t b = bhead[g]; b != none; b = bnext[b])
                push(s, &N->rows[n], &B->rows[b]);
        }
        return;
    }
    for (size_t i = 0; i < N->nrows; i++) {
        if (nfirst[i] != i)
            continue;
        for (size_t n = i; n != none; n = nnext[n]) {
            if (bhead[i] == none)
                push(s, &N->rows[n], NULL);
            for (size_t b = bhead[i]; b != none; b = bnext[b])
                push(s, &N->rows[n], &B->rows[b]);
        }
    }
}

/* The links made by hash, checked against the texts: each link compares two
 * rows' names (a cache miss or two each), so the rows are checked in chunks
 * on all threads. */
#define CHECK_CHUNK 65536

typedef struct {
    const compare_ctx *c;
    const size_t *nfirst, *bhead, *bnext;
    size_t nchunks;          /* target chunks; bench chunks follow */
    atomic_int collision;
} link_check;

static void check_chunk(void *arg, size_t k)
{
    link_check *lc = arg;
    const compare_ctx *c = lc->c;
    const size_t none = (size_t)-1;
    int npu = k < lc->nchunks;
    size_t n = npu ? c->npu.nrows : c->bench.nrows;
    size_t from = (npu ? k : k - lc->nchunks) * CHECK_CHUNK, to = from + CHECK_CHUNK < n ? from + CHECK_CHUNK : n;
    int collision = 0;
    for (size_t r = from; r < to && !collision; r++) {
        if (npu)
            collision = lc->nfirst[r] == r ? lc->bhead[r] != none && !same_key(c, 1, r, 0, lc->bhead[r])
                                           : !same_key(c, 1, lc->nfirst[r], 1, r);
        else
            collision = lc->bnext[r] != none && !same_key(c, 0, r, 0, lc->bnext[r]);
    }
    if (collision)
        atomic_store(&lc->collision, 1);
}

/* The join by hash: rows of one hash are taken for rows of one key, and the
 * links made are then checked against the texts in row order (where both
 * sides are mostly in step, so the reads are sequential). Returns 1 when a
 * link joins different keys (two keys share a hash): the caller then joins
 * by the texts. */
static int match_sorted(compare_ctx *c)
{
    const dump_data *N = &c->npu, *B = &c->bench;
    const size_t none = (size_t)-1;
    int threads = c->opts->threads > 0 ? c->opts->threads : 1;
    keyed_row *nk, *bk;
    sorted_keys(c, threads, &nk, &bk);
    /* nfirst: the first target row of a row's key; nnext/bnext: the next row
     * of the same key on that side; bhead: per first target row, the first
     * bench row of its key. */
    size_t *nfirst = xmalloc_array(N->nrows + 1, sizeof *nfirst);
    size_t *nnext = xmalloc_array(N->nrows + 1, sizeof *nnext);
    size_t *bhead = xmalloc_array(N->nrows + 1, sizeof *bhead);
    size_t *bnext = xmalloc_array(B->nrows + 1, sizeof *bnext);
    for (size_t b = 0; b < B->nrows; b++)
        bnext[bk[b].row] = b + 1 < B->nrows && bk[b + 1].h == bk[b].h ? bk[b + 1].row : none;
    size_t j = 0;
    for (size_t i = 0; i < N->nrows;) {
        uint64_t h = nk[i].h;
        while (j < B->nrows && bk[j].h < h)
            j++;
        size_t first = nk[i].row;
        bhead[first] = j < B->nrows && bk[j].h == h ? bk[j].row : none;
        for (; i < N->nrows && nk[i].h == h; i++) {
            size_t r = nk[i].row;
            nfirst[r] = first;
            nnext[r] = i + 1 < N->nrows && nk[i + 1].h == h ? nk[i + 1].row : none;
        }
    }
    free(nk);
    free(bk);
    link_check lc = {.c = c, .nfirst = nfirst, .bhead = bhead, .bnext = bnext};
    atomic_init(&lc.collision, 0);
    size_t nchunks = (N->nrows + CHECK_CHUNK - 1) / CHECK_CHUNK, bchunks = (B->nrows + CHECK_CHUNK - 1) / CHECK_CHUNK;
    lc.nchunks = nchunks;
    pool_for(nchunks + bchunks, threads, check_chunk, &lc);
    int collision = atomic_load(&lc.collision);
    if (!collision) {
        pair_sink s = {.c = c, .check_dtype = 1, .cap = N->nrows};
        c->pairs = xmalloc_array(s.cap ? s.cap : 1, sizeof *c->pairs);
        push_groups(&s, nfirst, nnext, bhead, bnext);
    }
    free(nfirst);
    free(nnext);
    free(bhead);
    free(bnext);
    return collision;
}

/* The join by the texts through a hash map (rows whose keys share a
 * 64-bit hash: in practice never). */
static int match_exact_map(compare_ctx *c)
{
    const dump_data *N = &c->npu;
    const size_t none = (size_t)-1;
    arena keys;
    arena_init(&keys, 1 << 20);
    bench_index bi;
    bench_index_build(&bi, c, &keys, on_shape(c));

    /* target rows grouped by key at their first occurrence */
    strmap nmap;
    strmap_init(&nmap, N->nrows);
    size_t *nfirst = xmalloc_array(N->nrows + 1, sizeof *nfirst);
    size_t *nnext = xmalloc_array(N->nrows + 1, sizeof *nnext);
    size_t *ntail = xmalloc_array(N->nrows + 1, sizeof *ntail);
    size_t *bhead = xmalloc_array(N->nrows + 1, sizeof *bhead);
    for (size_t i = 0; i < N->nrows; i++) {
        size_t len;
        const char *k = on_shape(c) ? join_key(&keys, npu_key(c, i), N->rows[i].shape, &len) : npu_key(c, i);
        if (!on_shape(c))
            len = strlen(k);
        int added;
        size_t *first = strmap_put(&nmap, k, len, i, &added);
        nfirst[i] = *first;
        nnext[i] = none;
        ntail[i] = i;
        if (!added) {
            nnext[ntail[*first]] = i;
            ntail[*first] = i;
        } else {
            size_t *b = strmap_get(&bi.first, k, len);
            bhead[i] = b ? *b : none;
        }
    }
    pair_sink s = {.c = c, .check_dtype = 1};
    push_groups(&s, nfirst, nnext, bhead, bi.next);
    free(nfirst);
    free(nnext);
    free(ntail);
    free(bhead);
    strmap_free(&nmap);
    bench_index_free(&bi);
    arena_free(&keys);
    return 0;
}

int match_by_map;

static int match_exact(compare_ctx *c)
{
    if (!match_by_map && match_sorted(c) == 0)
        return 0;
    return match_exact_map(c);
}

/* With a data mapping: pandas' left merge on the key, back in target order;
 * no dtype rule. */
static int match_mapped(compare_ctx *c)
{
    const dump_data *N = &c->npu, *B = &c->bench;
    bench_index bi;
    bench_index_build(&bi, c, NULL, 0);
    pair_sink s = {.c = c, .check_dtype = 0};
    for (size_t i = 0; i < N->nrows; i++) {
        if (dropped(c, i))
            continue;
        const char *k = npu_key(c, i);
        size_t *b = strmap_get(&bi.first, k, strlen(k));
        if (!b)
            push(&s, &N->rows[i], NULL);
        for (size_t j = b ? *b : (size_t)-1; j != (size_t)-1; j = bi.next[j])
            push(&s, &N->rows[i], &B->rows[j]);
    }
    bench_index_free(&bi);
    return 0;
}

/* msprobe's rename_api(): the name without the call counter of an API
 * (Functional.conv2d.0.forward.input.0 -> Functional.conv2d.forward.input.0)
 * or without the class of a module (Module.l1.Linear.forward.0.input.0 ->
 * Module.l1.forward.0.input.0). */
static void fuzzy_name(const char *name, strbuf *out)
{
    const char *word = strstr(name, "forward") ? "forward" : strstr(name, "backward") ? "backward" : NULL;
    sb_reset(out);
    if (!word) {
        sb_adds(out, name);
        return;
    }
    size_t wl = strlen(word);
    const char *w1 = strstr(name, word);
    const char *w2 = strstr(w1 + wl, word);
    const char *b_end = w2 ? w2 : name + strlen(name);
    /* A.rsplit('.', 2)[0]: A up to its second-to-last '.' */
    size_t alen = (size_t)(w1 - name), cut = alen;
    int dots = 0;
    for (size_t i = alen; i-- > 0;)
        if (name[i] == '.' && ++dots == 2) {
            cut = i;
            break;
        }
    sb_add(out, name, cut);
    sb_addc(out, '.');
    sb_add(out, word, wl);
    sb_add(out, w1 + wl, (size_t)(b_end - (w1 + wl)));
}

/* Fuzzy keys of both sides as small integers (equal name and shape ->
 * equal id), with each id's row positions in ascending order per side. */
typedef struct {
    uint32_t *id;          /* per row */
    size_t *start, *pos;   /* rows of id k: pos[start[k] .. start[k+1]) */
} fuzzy_side;

static void fuzzy_ids(compare_ctx *c, const dump_data *d, int npu, strmap *ids, arena *a, uint32_t *id)
{
    strbuf name = STRBUF_INIT, key = STRBUF_INIT;
    /* the newest msprobe's fuzzy match compares the names alone */
    int shape = on_shape(c);
    for (size_t i = 0; i < d->nrows; i++) {
        fuzzy_name(npu ? npu_key(c, i) : bench_key(c, i), &name);
        sb_reset(&key);
        sb_add(&key, name.buf, name.len);
        sb_addc(&key, 0x1f);
        if (shape)
            sb_adds(&key, d->rows[i].shape);
        int added;
        size_t *v = strmap_get(ids, key.buf, key.len);
        if (!v) {
            char *k = arena_strndup(a, key.buf, key.len);
            v = strmap_put(ids, k, key.len, ids->count, &added);
        }
        id[i] = (uint32_t)*v;
    }
    sb_free(&name);
    sb_free(&key);
}

static void fuzzy_positions(fuzzy_side *s, size_t nrows, size_t nids)
{
    s->start = xcalloc(nids + 2, sizeof *s->start);
    s->pos = xmalloc_array(nrows + 1, sizeof *s->pos);
    for (size_t i = 0; i < nrows; i++)
        s->start[s->id[i] + 1]++;
    for (size_t k = 0; k < nids; k++)
        s->start[k + 1] += s->start[k];
    size_t *fill = xmalloc_array(nids + 1, sizeof *fill);
    memcpy(fill, s->start, (nids + 1) * sizeof *fill);
    for (size_t i = 0; i < nrows; i++)
        s->pos[fill[s->id[i]]++] = i;
    free(fill);
}

/* First row of id k in [lo, hi), or (size_t)-1. */
static size_t first_in(const fuzzy_side *s, uint32_t k, size_t lo, size_t hi)
{
    size_t a = s->start[k], b = s->start[k + 1];
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (s->pos[m] < lo)
            a = m + 1;
        else
            b = m;
    }
    return a < s->start[k + 1] && s->pos[a] < hi ? s->pos[a] : (size_t)-1;
}

static int match_fuzzy(compare_ctx *c)
{
    const dump_data *N = &c->npu, *B = &c->bench;
    strmap ids;
    strmap_init(&ids, N->nrows + B->nrows);
    arena keys;
    arena_init(&keys, 1 << 20);
    fuzzy_side n = {.id = xmalloc_array(N->nrows + 1, sizeof(uint32_t))};
    fuzzy_side b = {.id = xmalloc_array(B->nrows + 1, sizeof(uint32_t))};
    fuzzy_ids(c, N, 1, &ids, &keys, n.id);
    fuzzy_ids(c, B, 0, &ids, &keys, b.id);
    fuzzy_positions(&n, N->nrows, ids.count);
    fuzzy_positions(&b, B->nrows, ids.count);

    /* Both queues are always contiguous ranges of the row lists: rows are
     * appended in order and removed from the front. */
    size_t nlo = 0, nhi = 0, blo = 0, bhi = 0;
    size_t len = N->nrows > B->nrows ? N->nrows : B->nrows;
    pair_sink s = {.c = c, .check_dtype = 1};
    const size_t none = (size_t)-1;
    for (size_t i = 0; i < len; i++) {
        if (i < N->nrows)
            nhi = i + 1;
        if (i < B->nrows)
            bhi = i + 1;
        if ((nlo == nhi) != (blo == bhi))
            break;
        if (nlo == nhi)
            continue;
        size_t pn = none, pb = none;
        size_t ln = nhi - 1, lb = bhi - 1;
        if ((pb = first_in(&b, n.id[ln], blo, lb)) != none)
            pn = ln;
        else if (n.id[ln] == b.id[lb])
            pn = ln, pb = lb;
        else if ((pn = first_in(&n, b.id[lb], nlo, ln)) != none)
            pb = lb;
        if (pn == none || pb == none)
            continue;
        for (size_t k = nlo; k < pn; k++)
            if (!dropped(c, k))
                push(&s, &N->rows[k], NULL);
        if (!dropped(c, pn))
            push(&s, &N->rows[pn], &B->rows[pb]);
        nlo = pn + 1;
        blo = pb + 1;
    }
    /* msprobe stops when one side runs dry and drops the target rows it has
     * not queued yet; we keep them, unmatched. */
    for (size_t k = nlo; k < N->nrows; k++)
        if (!dropped(c, k))
            push(&s, &N->rows[k], NULL);

    free(n.id);
    free(n.start);
    free(n.pos);
    free(b.id);
    free(b.start);
    free(b.pos);
    strmap_free(&ids);
    arena_free(&keys);
    return 0;
}

int match_rows(compare_ctx *c)
{
    c->pairs = NULL;
    c->npairs = 0;
    if (c->opts->dialect == DIALECT_NEWEST && newest_keys(c) != 0)
        return -1;
    if (c->keys.mapped)
        return match_mapped(c);
    if (c->opts->fuzzy)
        return match_fuzzy(c);
    return match_exact(c);
}
