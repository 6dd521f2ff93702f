/* The engine of commgraph.h, in the phases its header lists: the ops
 * before each rank's first comm op (phase 1); each rank's chain of comm
 * ops as nodes, the flagged compute ops hung on the comm op after them
 * (2a); partners connected, every comm op looking only at the ranks after
 * its own (2b); connected groups, by union-find, searched in layer order
 * (2c); and the ops after the last comm op (3). Only comm ops become
 * nodes. The partner search, R^2 per collective, is kept to array reads:
 * API names are numbered, each rank's nodes of one API sit in a list with
 * a cursor that only moves forward, rank numbers map to positions by a
 * table, and a big rank set becomes a bitmap shared by every op that uses
 * the same array.
 */
#include "model/commgraph.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "base/strmap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A comm op of some rank. Nodes are created rank by rank in dump order, so
 * node index order is (rank position, dump order) -- the determinism the
 * Python sets lack. */
typedef struct {
    uint32_t r, op;
    long layer;
    uint32_t sub_layer;       /* non-ignored compute ops since the previous comm op */
    uint32_t cfirst, ccount;  /* its flagged compute ops, in g->compute */
    uint32_t parent;          /* union-find over kept nodes */
    uint32_t comp;            /* component id (kept nodes) */
    uint32_t seen_by;         /* 1 + the rank position that connected it last */
    uint32_t round;           /* search round that put it in a group */
    uint32_t api, peer;       /* interned API names; peer NO_API when no rank has it */
    uint32_t bits;            /* 1 + its rank set's bitmap in g->bitmaps; 0 none yet */
    uint8_t kept, seen, connected;
    /* the op's, here for the partner test (which reads them R^2 times) */
    uint8_t type, directed;
    uint32_t nranks;
    const long *ranks;
} node;

#define NO_API UINT32_MAX
/* Rank sets up to this size are searched; bigger ones get a bitmap. */
#define SMALL_SET 16

typedef struct {
    uint32_t op, sub_layer;
} compute_op;

/* Nodes of one rank with one api, in dump order; cursor skips the front
 * nodes the current rank has already connected (reset when `stamp`, the
 * current rank, changes). */
typedef struct {
    uint32_t *v;
    size_t cap;
    uint32_t n, cursor, stamp;
} node_list;

/* The bitmap (over rank positions) of a rank set, keyed by its array. */
typedef struct {
    const long *ranks;
    size_t n;
    uint32_t bits;            /* 1 + index in g->bitmaps */
} set_slot;

typedef struct {
    const cg_rank *ranks;
    size_t nranks;
    const cg_params *p;
    node *nodes;
    size_t nnodes, cap;
    compute_op *compute;
    size_t ncompute, ccap;
    size_t *first_node, *count;   /* per rank position */
    long *first_comm;             /* per rank position: op index, -1 none */
    long *after_op;               /* per rank position: first flagged op after the last comm op */
    uint32_t *after_sub;
    strmap api_ids;               /* api name -> number */
    uint32_t napis;
    uint32_t *lookup;             /* [rank position][api]: 1 + index into lists; 0 none */
    node_list *lists;
    size_t nlists, lcap;
    uint32_t *cursor, *cursor_stamp;  /* per rank position: prefix search over all its nodes */
    size_t *by_rank;              /* rank positions sorted by rank number */
    long *pos_of;                 /* rank number - pos_lo -> position, -1 none (dense numbers) */
    long pos_lo;
    size_t pos_n;
    uint32_t *visit;              /* per rank position: 1 + the node that looked at it last */
    uint64_t **bitmaps;
    size_t nbitmaps, bcap;
    set_slot *sets;
    size_t set_cap, nsets;
    cg_result *out;
    size_t hcap;
} graph;

static void note(const graph *g, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(const graph *g, int level, const char *fmt, ...)
{
    if (!g->p->log || level < g->p->log_level)
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    g->p->log(g->p->log_arg, level, buf);
}

static const cg_op *op_of(const graph *g, const node *n) { return &g->ranks[n->r].ops[n->op]; }

static void hit(graph *g, size_t r, size_t op, long layer, size_t sub)
{
    cg_result *o = g->out;
    GROW(o->hits, g->hcap, o->nhits + 1);
    o->hits[o->nhits++] = (cg_hit){.rank = r, .op = op, .layer = layer, .sub_layer = sub};
}

static void list_push(node_list *l, uint32_t v)
{
    GROW(l->v, l->cap, l->n + 1);
    l->v[l->n++] = v;
}

/* Phase 1: before the first comm op of each rank. */
static void pre_analyze(graph *g)
{
    for (size_t r = 0; r < g->nranks; r++) {
        const cg_rank *rk = &g->ranks[r];
        g->first_comm[r] = -1;
        if (!rk->nops) {
            note(g, CG_WARN, "Rank %ld has no dump data!", rk->rank);
            continue;
        }
        for (size_t i = 0; i < rk->nops; i++) {
            uint32_t f = rk->ops[i].flags;
            if (g->p->skip_ignored_first && (f & CG_IGNORED))
                continue;
            if (f & CG_COMM) {
                g->first_comm[r] = (long)i;
                break;
            }
            if ((f & CG_FLAGGED) && !(f & CG_IGNORED)) {
                hit(g, r, i, 0, 0);
                break;
            }
        }
    }
}

static uint32_t api_number(graph *g, const char *api)
{
    int added;
    size_t *slot = strmap_put(&g->api_ids, api, strlen(api), g->napis, &added);
    if (added)
        g->napis++;
    return (uint32_t)*slot;
}

/* Phase 2a: each rank's chain of comm ops, from its first one; the flagged
 * compute ops between two comm ops belong to the later one. */
static void build_chains(graph *g)
{
    strmap_init(&g->api_ids, 32);
    for (size_t r = 0; r < g->nranks; r++) {
        const cg_rank *rk = &g->ranks[r];
        g->first_node[r] = g->nnodes;
        g->after_op[r] = -1;
        if (g->first_comm[r] < 0)
            continue;
        size_t pending = g->ncompute;
        uint32_t sub = 0;
        long last = -1;
        for (size_t i = (size_t)g->first_comm[r]; i < rk->nops; i++) {
            const cg_op *o = &rk->ops[i];
            if (o->flags & CG_COMM) {
                GROW(g->nodes, g->cap, g->nnodes + 1);
                node *n = &g->nodes[g->nnodes];
                memset(n, 0, sizeof *n);
                n->r = (uint32_t)r;
                n->op = (uint32_t)i;
                n->layer = last < 0 ? 0 : g->nodes[last].layer + 1;
                n->sub_layer = sub;
                n->cfirst = (uint32_t)pending;
                n->ccount = (uint32_t)(g->ncompute - pending);
                n->kept = (o->flags & CG_KEEP) || n->ccount;
                n->parent = (uint32_t)g->nnodes;
                n->api = api_number(g, o->api ? o->api : "");
                n->type = o->type;
                n->directed = (o->flags & CG_DIRECTED) != 0;
                n->ranks = o->ranks;
                n->nranks = (uint32_t)o->nranks;
                last = (long)g->nnodes++;
                pending = g->ncompute;
                sub = 0;
            } else if (!(o->flags & CG_IGNORED)) {
                if (o->flags & CG_FLAGGED) {
                    GROW(g->compute, g->ccap, g->ncompute + 1);
                    g->compute[g->ncompute++] = (compute_op){.op = (uint32_t)i, .sub_layer = sub};
                }
                sub += 1 + (o->flags ? 0 : o->repeat);
            }
        }
        if (g->ncompute > pending) {
            g->after_op[r] = g->compute[pending].op;
            g->after_sub[r] = g->compute[pending].sub_layer;
            g->ncompute = pending;   /* they belong to no comm op */
        }
        g->count[r] = g->nnodes - g->first_node[r];
    }
    /* the lists of nodes per (rank, api), and every node's partner api */
    size_t napis = g->napis ? g->napis : 1;
    g->lookup = xcalloc(g->nranks ? g->nranks * napis : 1, sizeof *g->lookup);
    for (size_t i = 0; i < g->nnodes; i++) {
        node *n = &g->nodes[i];
        uint32_t *slot = &g->lookup[n->r * napis + n->api];
        if (!*slot) {
            GROW(g->lists, g->lcap, g->nlists + 1);
            memset(&g->lists[g->nlists], 0, sizeof *g->lists);
            *slot = (uint32_t)++g->nlists;
        }
        list_push(&g->lists[*slot - 1], (uint32_t)i);
        const char *peer = op_of(g, n)->peer_api ? op_of(g, n)->peer_api : "";
        size_t *id = strmap_get(&g->api_ids, peer, strlen(peer));
        n->peer = id ? (uint32_t)*id : NO_API;
    }
}

static int by_rank_number(const void *a, const void *b, void *arg)
{
    const cg_rank *ranks = arg;
    long x = ranks[*(const size_t *)a].rank, y = ranks[*(const size_t *)b].rank;
    return x < y ? -1 : x > y;
}

/* Rank numbers to positions: a table when the numbers are dense (they
 * normally are 0..R-1), else a binary search. */
static void index_ranks(graph *g)
{
    size_t n = g->nranks;
    g->by_rank = xmalloc_array(n ? n : 1, sizeof *g->by_rank);
    for (size_t i = 0; i < n; i++)
        g->by_rank[i] = i;
    qsort_r(g->by_rank, n, sizeof *g->by_rank, by_rank_number, (void *)g->ranks);
    if (!n)
        return;
    long lo = g->ranks[g->by_rank[0]].rank, hi = g->ranks[g->by_rank[n - 1]].rank;
    if (hi - lo < 0 || (unsigned long)(hi - lo) >= 4 * n + 64)
        return;
    g->pos_lo = lo;
    g->pos_n = (size_t)(hi - lo) + 1;
    g->pos_of = xmalloc_array(g->pos_n, sizeof *g->pos_of);
    for (size_t i = 0; i < g->pos_n; i++)
        g->pos_of[i] = -1;
    /* a rank given twice: the first position, as the search finds it */
    for (size_t i = n; i-- > 0;)
        g->pos_of[g->ranks[i].rank - lo] = (long)i;
}

/* Position of rank number `rank`, or -1. */
static long rank_pos(const graph *g, long rank)
{
    if (g->pos_of) {
        if (rank < g->pos_lo || (unsigned long)(rank - g->pos_lo) >= g->pos_n)
            return -1;
        return g->pos_of[rank - g->pos_lo];
    }
    size_t lo = 0, hi = g->nranks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        long v = g->ranks[g->by_rank[mid]].rank;
        if (v == rank) {
            /* the first position among equal numbers */
            while (mid > 0 && g->ranks[g->by_rank[mid - 1]].rank == rank)
                mid--;
            return (long)g->by_rank[mid];
        }
        if (v < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static uint32_t uf_find(graph *g, uint32_t x)
{
    while (g->nodes[x].parent != x) {
        g->nodes[x].parent = g->nodes[g->nodes[x].parent].parent;
        x = g->nodes[x].parent;
    }
    return x;
}

/* The bitmap over rank positions of a big rank set, shared by the nodes
 * whose ops share the set's array. */
static uint64_t ranks_hash(const long *ranks) { return ((uintptr_t)ranks >> 3) * 0x9e3779b97f4a7c15ULL; }
static int set_used(const void *slot) { return ((const set_slot *)slot)->ranks != NULL; }
static uint64_t set_hash(const void *slot) { return ranks_hash(((const set_slot *)slot)->ranks); }

static uint32_t set_bits(graph *g, const cg_op *o)
{
    if (g->nsets * 2 >= g->set_cap)
        GROW_TABLE(g->sets, g->set_cap, 64, set_used, set_hash);
    size_t h = ranks_hash(o->ranks) & (g->set_cap - 1);
    while (g->sets[h].ranks && !(g->sets[h].ranks == o->ranks && g->sets[h].n == o->nranks))
        h = (h + 1) & (g->set_cap - 1);
    if (g->sets[h].ranks)
        return g->sets[h].bits;
    size_t words = (g->nranks + 63) / 64;
    uint64_t *b = xcalloc(words ? words : 1, sizeof *b);
    for (size_t i = 0; i < o->nranks; i++) {
        long p = rank_pos(g, o->ranks[i]);
        if (p >= 0)
            b[p / 64] |= 1ULL << (p % 64);
    }
    GROW(g->bitmaps, g->bcap, g->nbitmaps + 1);
    g->bitmaps[g->nbitmaps++] = b;
    g->sets[h] = (set_slot){.ranks = o->ranks, .n = o->nranks, .bits = (uint32_t)g->nbitmaps};
    g->nsets++;
    return (uint32_t)g->nbitmaps;
}

/* Does node s's op name the rank at position `pos`? */
static int talks_to(graph *g, node *s, size_t pos)
{
    if (s->nranks <= SMALL_SET) {
        long rank = g->ranks[pos].rank;
        for (size_t i = 0; i < s->nranks; i++)
            if (s->ranks[i] == rank)
                return 1;
        return 0;
    }
    if (!s->bits)
        s->bits = set_bits(g, op_of(g, s));
    return (g->bitmaps[s->bits - 1][pos / 64] >> (pos % 64)) & 1;
}

/* The partner test of msprobe: an op that names no ranks talks to everybody
 * unless it has a direction (then it must name cur's rank). */
static int is_partner(graph *g, node *s, size_t cur_pos)
{
    return (s->nranks == 0 && !s->directed) || talks_to(g, s, cur_pos);
}

static int partner_ok(graph *g, node *s, uint8_t want, size_t cur_pos)
{
    return s->type == want && is_partner(g, s, cur_pos);
}

/* The first node of rank position `cr` that the node `ci` may connect to,
 * among those rank `stamp - 1` has not connected yet. */
static long find_partner(graph *g, uint32_t ci, size_t cr, uint32_t stamp)
{
    const node *cur = &g->nodes[ci];
    uint8_t want = cur->type == CG_SRC ? CG_DST : cur->type == CG_DST ? CG_SRC : CG_LINK;
    if (g->p->exact_api) {
        if (cur->peer == NO_API)
            return -1;
        uint32_t slot = g->lookup[cr * (g->napis ? g->napis : 1) + cur->peer];
        if (!slot)
            return -1;
        node_list *l = &g->lists[slot - 1];
        if (l->stamp != stamp) {
            l->stamp = stamp;
            l->cursor = 0;
        }
        /* what rank `stamp - 1` cannot take -- nodes it connected, nodes
         * that do not talk to it -- stays so while it looks: skip for good */
        while (l->cursor < l->n && (g->nodes[l->v[l->cursor]].seen_by == stamp ||
                                    !is_partner(g, &g->nodes[l->v[l->cursor]], cur->r)))
            l->cursor++;
        for (uint32_t k = l->cursor; k < l->n; k++) {
            node *s = &g->nodes[l->v[k]];
            if (s->seen_by != stamp && partner_ok(g, s, want, cur->r))
                return (long)l->v[k];
        }
        return -1;
    }
    /* msprobe 8.1.0: the partner's name starts with the peer api */
    const cg_op *co = op_of(g, cur);
    const char *peer = co->peer_api ? co->peer_api : "";
    size_t plen = strlen(peer);
    uint32_t first = (uint32_t)g->first_node[cr], n = (uint32_t)g->count[cr];
    if (g->cursor_stamp[cr] != stamp) {
        g->cursor_stamp[cr] = stamp;
        g->cursor[cr] = 0;
    }
    while (g->cursor[cr] < n && (g->nodes[first + g->cursor[cr]].seen_by == stamp ||
                                 !is_partner(g, &g->nodes[first + g->cursor[cr]], cur->r)))
        g->cursor[cr]++;
    for (uint32_t k = g->cursor[cr]; k < n; k++) {
        node *s = &g->nodes[first + k];
        if (s->seen_by != stamp && !strncmp(op_of(g, s)->name, peer, plen) && partner_ok(g, s, want, cur->r))
            return (long)(first + k);
    }
    return -1;
}

/* Connect node ci (of rank position r) with its partner on rank position
 * cr, if any. */
static int connect_one(graph *g, uint32_t ci, size_t cr, uint32_t stamp)
{
    long s = find_partner(g, ci, cr, stamp);
    if (s < 0)
        return 0;
    node *sn = &g->nodes[s], *cur = &g->nodes[ci];
    sn->seen_by = stamp;
    /* whichever way the edge points, the partner takes cur's layer */
    sn->layer = cur->layer;
    sn->connected = cur->connected = 1;
    if (sn->kept && cur->kept) {
        uint32_t a = uf_find(g, ci), b = uf_find(g, (uint32_t)s);
        if (a != b)
            g->nodes[a > b ? a : b].parent = a < b ? a : b;
    }
    return 1;
}

/* Phase 2b: connect every comm op with its partners on the ranks after it
 * (the ranks before it have connected to it already). */
static void connect(graph *g)
{
    size_t n = g->nranks;
    size_t nmissing = 0, capmissing = 0;
    long *missing = NULL;
    g->visit = xcalloc(n ? n : 1, sizeof *g->visit);
    g->cursor = xcalloc(n ? n : 1, sizeof *g->cursor);
    g->cursor_stamp = xcalloc(n ? n : 1, sizeof *g->cursor_stamp);
    for (size_t r = 0; r + 1 < n; r++) {
        uint32_t stamp = (uint32_t)r + 1;
        long last = -1;
        for (size_t k = 0; k < g->count[r]; k++) {
            uint32_t ci = (uint32_t)(g->first_node[r] + k);
            node *cur = &g->nodes[ci];
            if (g->p->monotonic_layers && last >= 0 && g->nodes[last].layer >= cur->layer)
                cur->layer = g->nodes[last].layer + 1;
            last = ci;
            const cg_op *co = op_of(g, cur);
            int found = cur->connected;
            if (!co->nranks) {
                for (size_t cr = r + 1; cr < n; cr++)
                    found |= connect_one(g, ci, cr, stamp);
            }
            for (size_t t = 0; t < co->nranks; t++) {
                long cr = rank_pos(g, co->ranks[t]);
                if (cr < 0) {
                    int told = 0;
                    for (size_t u = 0; u < nmissing && !told; u++)
                        told = missing[u] == co->ranks[t];
                    if (!told) {
                        GROW(missing, capmissing, nmissing + 1);
                        missing[nmissing++] = co->ranks[t];
                        note(g, CG_WARN, "rank %ld, which %ld.%s communicates with, has no data: skipped",
                             co->ranks[t], g->ranks[r].rank, co->name);
                    }
                    continue;
                }
                /* the ranks before are searched; a rank listed twice is one partner */
                if ((size_t)cr <= r || g->visit[cr] == ci + 1)
                    continue;
                g->visit[cr] = ci + 1;
                found |= connect_one(g, ci, (size_t)cr, stamp);
            }
            if (!found)
                note(g, g->p->unconnected_level, "Cannot find connected communication node for \"%ld.%s\".",
                     g->ranks[r].rank, co->name);
        }
    }
    free(missing);
}

static void log_pruned(graph *g)
{
    if (!g->p->log || g->p->log_level > CG_DEBUG)
        return;
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "After pruning, following nodes are removed: [");
    int any = 0;
    for (size_t i = 0; i < g->nnodes; i++) {
        if (g->nodes[i].kept)
            continue;
        sb_addf(&sb, "%s%ld.%s", any++ ? ", " : "", g->ranks[g->nodes[i].r].rank, op_of(g, &g->nodes[i])->name);
    }
    sb_addc(&sb, ']');
    g->p->log(g->p->log_arg, CG_DEBUG, sb_str(&sb));
    sb_free(&sb);
}

typedef struct {
    uint32_t *members;       /* kept nodes grouped by component, index order inside */
    size_t *start;           /* component c: members[start[c] .. start[c + 1]) */
    size_t ncomp;
} components;

static void build_components(graph *g, components *cs)
{
    uint32_t *id = xmalloc_array(g->nnodes ? g->nnodes : 1, sizeof *id);
    size_t ncomp = 0;
    for (size_t i = 0; i < g->nnodes; i++) {
        if (!g->nodes[i].kept)
            continue;
        uint32_t root = uf_find(g, (uint32_t)i);
        /* a root is the smallest index of its component, so it comes first */
        if (root == i)
            id[i] = (uint32_t)ncomp++;
        g->nodes[i].comp = id[root];
    }
    cs->ncomp = ncomp;
    cs->start = xcalloc(ncomp + 1, sizeof *cs->start);
    for (size_t i = 0; i < g->nnodes; i++)
        if (g->nodes[i].kept)
            cs->start[g->nodes[i].comp + 1]++;
    for (size_t c = 0; c < ncomp; c++)
        cs->start[c + 1] += cs->start[c];
    size_t *fill = xmalloc_array(ncomp ? ncomp : 1, sizeof *fill);
    memcpy(fill, cs->start, ncomp * sizeof *fill);
    cs->members = xmalloc_array(cs->start[ncomp] ? cs->start[ncomp] : 1, sizeof *cs->members);
    for (size_t i = 0; i < g->nnodes; i++)
        if (g->nodes[i].kept)
            cs->members[fill[g->nodes[i].comp]++] = (uint32_t)i;
    free(fill);
    free(id);
}

static int by_layer(const void *a, const void *b, void *arg)
{
    const node *nodes = arg;
    const node *x = &nodes[*(const uint32_t *)a], *y = &nodes[*(const uint32_t *)b];
    if (x->layer != y->layer)
        return x->layer < y->layer ? -1 : 1;
    /* stable: dump order */
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static void group_candidates(graph *g, const components *cs, uint32_t comp)
{
    for (size_t k = cs->start[comp]; k < cs->start[comp + 1]; k++) {
        const node *m = &g->nodes[cs->members[k]];
        const cg_op *o = op_of(g, m);
        if (!g->p->all_compute_ops && !((o->type == CG_SRC || o->type == CG_LINK) && (o->flags & CG_INPUT_FLAGGED)))
            continue;
        for (uint32_t c = 0; c < m->ccount; c++)
            hit(g, m->r, g->compute[m->cfirst + c].op, m->layer, g->compute[m->cfirst + c].sub_layer);
    }
    for (size_t k = cs->start[comp]; k < cs->start[comp + 1]; k++) {
        const node *m = &g->nodes[cs->members[k]];
        if (op_of(g, m)->flags & CG_FLAGGED)
            hit(g, m->r, m->op, m->layer, m->sub_layer);
    }
}

/* Keep the candidates of the smallest (layer, sub_layer). */
static void keep_minima(graph *g)
{
    cg_result *o = g->out;
    size_t best = 0;
    for (size_t i = 1; i < o->nhits; i++)
        if (o->hits[i].layer < o->hits[best].layer ||
            (o->hits[i].layer == o->hits[best].layer && o->hits[i].sub_layer < o->hits[best].sub_layer))
            best = i;
    cg_hit b = o->hits[best];
    size_t k = 0;
    for (size_t i = 0; i < o->nhits; i++)
        if (o->hits[i].layer == b.layer && o->hits[i].sub_layer == b.sub_layer && (i == best || g->p->keep_all_minima))
            o->hits[k++] = o->hits[i];
    o->nhits = k;
}

/* Phase 2c: groups in layer order, round by round. */
static void search(graph *g)
{
    components cs;
    build_components(g, &cs);
    size_t n = g->nranks;
    uint32_t **queue = xcalloc(n ? n : 1, sizeof *queue);
    size_t *qlen = xcalloc(n ? n : 1, sizeof *qlen), *qpos = xcalloc(n ? n : 1, sizeof *qpos);
    for (size_t r = 0; r < n; r++) {
        queue[r] = xmalloc_array(g->count[r] ? g->count[r] : 1, sizeof **queue);
        for (size_t k = 0; k < g->count[r]; k++)
            if (g->nodes[g->first_node[r] + k].kept)
                queue[r][qlen[r]++] = (uint32_t)(g->first_node[r] + k);
        qsort_r(queue[r], qlen[r], sizeof **queue, by_layer, g->nodes);
    }
    uint32_t *groups = xmalloc_array(n ? n : 1, sizeof *groups);
    for (uint32_t round = 1;; round++) {
        int any = 0;
        size_t ngroups = 0;
        for (size_t r = 0; r < n; r++) {
            long pick = -1;
            while (qpos[r] < qlen[r]) {
                uint32_t v = queue[r][qpos[r]++];
                if (!g->nodes[v].seen) {
                    pick = v;
                    break;
                }
            }
            if (pick < 0)
                continue;
            any = 1;
            node *pn = &g->nodes[pick];
            int grouped = pn->round == round;
            if (ngroups && (g->p->grouping_defect ? !grouped : grouped))
                continue;
            groups[ngroups++] = pn->comp;
            for (size_t k = cs.start[pn->comp]; k < cs.start[pn->comp + 1]; k++)
                g->nodes[cs.members[k]].round = round;
        }
        if (!any)
            break;
        for (size_t k = 0; k < ngroups; k++) {
            for (size_t m = cs.start[groups[k]]; m < cs.start[groups[k] + 1]; m++)
                g->nodes[cs.members[m]].seen = 1;
            group_candidates(g, &cs, groups[k]);
        }
        if (g->out->nhits) {
            keep_minima(g);
            break;
        }
    }
    for (size_t r = 0; r < n; r++)
        free(queue[r]);
    free(queue);
    free(qlen);
    free(qpos);
    free(groups);
    free(cs.members);
    free(cs.start);
}

void cg_search(const cg_rank *ranks, size_t nranks, const cg_params *p, cg_result *out)
{
    memset(out, 0, sizeof *out);
    graph g = {.ranks = ranks, .nranks = nranks, .p = p, .out = out};
    size_t n = nranks ? nranks : 1;
    g.first_comm = xmalloc_array(n, sizeof *g.first_comm);
    pre_analyze(&g);
    if (out->nhits) {
        out->phase = 1;
        free(g.first_comm);
        return;
    }
    g.first_node = xcalloc(n, sizeof *g.first_node);
    g.count = xcalloc(n, sizeof *g.count);
    g.after_op = xmalloc_array(n, sizeof *g.after_op);
    g.after_sub = xcalloc(n, sizeof *g.after_sub);
    index_ranks(&g);
    build_chains(&g);
    connect(&g);
    log_pruned(&g);
    search(&g);
    if (out->nhits) {
        out->phase = 2;
    } else {
        for (size_t r = 0; r < nranks; r++)
            if (g.after_op[r] >= 0)
                hit(&g, r, (size_t)g.after_op[r], 0, g.after_sub[r]);
        out->phase = out->nhits ? 3 : 0;
    }
    for (size_t i = 0; i < g.nlists; i++)
        free(g.lists[i].v);
    for (size_t i = 0; i < g.nbitmaps; i++)
        free(g.bitmaps[i]);
    free(g.bitmaps);
    free(g.sets);
    strmap_free(&g.api_ids);
    free(g.lookup);
    free(g.lists);
    free(g.cursor);
    free(g.cursor_stamp);
    free(g.visit);
    free(g.by_rank);
    free(g.pos_of);
    free(g.nodes);
    free(g.compute);
    free(g.first_node);
    free(g.count);
    free(g.first_comm);
    free(g.after_op);
    free(g.after_sub);
}

void cg_result_free(cg_result *r)
{
    free(r->hits);
    memset(r, 0, sizeof *r);
}
