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
    uint8_t kept, seen;
} node;

typedef struct {
    uint32_t op, sub_layer;
} compute_op;

/* Nodes of one rank with one api, in dump order; cursor skips the front
 * nodes the current rank has already connected. */
typedef struct {
    uint32_t *v;
    size_t cap;
    uint32_t n, cursor;
} node_list;

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
    strmap *apis;                 /* per rank position: api -> index into lists */
    node_list *lists;
    size_t nlists, lcap;
    node_list *all;               /* per rank position: every node (prefix matching) */
    size_t *by_rank;              /* rank positions sorted by rank number */
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

static node_list *api_list(graph *g, size_t r, const char *api)
{
    int added;
    size_t *slot = strmap_put(&g->apis[r], api, strlen(api), g->nlists, &added);
    if (added) {
        GROW(g->lists, g->lcap, g->nlists + 1);
        memset(&g->lists[g->nlists++], 0, sizeof *g->lists);
    }
    return &g->lists[*slot];
}

/* Phase 2a: each rank's chain of comm ops, from its first one; the flagged
 * compute ops between two comm ops belong to the later one. */
static void build_chains(graph *g)
{
    for (size_t r = 0; r < g->nranks; r++) {
        const cg_rank *rk = &g->ranks[r];
        g->first_node[r] = g->nnodes;
        g->after_op[r] = -1;
        strmap_init(&g->apis[r], 16);
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
                list_push(&g->all[r], (uint32_t)g->nnodes);
                list_push(api_list(g, r, o->api ? o->api : ""), (uint32_t)g->nnodes);
                last = (long)g->nnodes++;
                pending = g->ncompute;
                sub = 0;
            } else if (!(o->flags & CG_IGNORED)) {
                if (o->flags & CG_FLAGGED) {
                    GROW(g->compute, g->ccap, g->ncompute + 1);
                    g->compute[g->ncompute++] = (compute_op){.op = (uint32_t)i, .sub_layer = sub};
                }
                sub++;
            }
        }
        if (g->ncompute > pending) {
            g->after_op[r] = g->compute[pending].op;
            g->after_sub[r] = g->compute[pending].sub_layer;
            g->ncompute = pending;   /* they belong to no comm op */
        }
        g->count[r] = g->nnodes - g->first_node[r];
    }
}

static int by_rank_number(const void *a, const void *b, void *arg)
{
    const cg_rank *ranks = arg;
    long x = ranks[*(const size_t *)a].rank, y = ranks[*(const size_t *)b].rank;
    return x < y ? -1 : x > y;
}

/* Position of rank number `rank`, or -1. */
static long rank_pos(const graph *g, long rank)
{
    size_t lo = 0, hi = g->nranks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        long v = g->ranks[g->by_rank[mid]].rank;
        if (v == rank)
            return (long)g->by_rank[mid];
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

static int talks_to(const cg_op *o, long rank)
{
    for (size_t i = 0; i < o->nranks; i++)
        if (o->ranks[i] == rank)
            return 1;
    return 0;
}

/* The partner test of msprobe: an op that names no ranks talks to everybody
 * unless it has a direction (then it must name cur's rank). */
static int is_partner(const cg_op *s, long cur_rank)
{
    return (s->nranks == 0 && !(s->flags & CG_DIRECTED)) || talks_to(s, cur_rank);
}

/* The first node of rank position `cr` that the node `ci` may connect to,
 * among those rank `stamp - 1` has not connected yet. */
static long find_partner(graph *g, uint32_t ci, size_t cr, uint32_t stamp)
{
    const node *cur = &g->nodes[ci];
    const cg_op *co = op_of(g, cur);
    const char *peer = co->peer_api ? co->peer_api : "";
    node_list *l;
    if (g->p->exact_api) {
        size_t *slot = strmap_get(&g->apis[cr], peer, strlen(peer));
        if (!slot)
            return -1;
        l = &g->lists[*slot];
    } else {
        l = &g->all[cr];
    }
    uint8_t want = co->type == CG_SRC ? CG_DST : co->type == CG_DST ? CG_SRC : CG_LINK;
    size_t plen = strlen(peer);
    while (l->cursor < l->n && g->nodes[l->v[l->cursor]].seen_by == stamp)
        l->cursor++;
    for (uint32_t k = l->cursor; k < l->n; k++) {
        const node *s = &g->nodes[l->v[k]];
        if (s->seen_by == stamp)
            continue;
        const cg_op *so = op_of(g, s);
        if (!g->p->exact_api && strncmp(so->name, peer, plen) != 0)
            continue;
        if (so->type == want && is_partner(so, g->ranks[cur->r].rank))
            return (long)l->v[k];
    }
    return -1;
}

/* Phase 2b: connect every comm op with its partners on the ranks after it. */
static void connect(graph *g)
{
    size_t n = g->nranks;
    uint8_t *searched = xcalloc(n ? n : 1, 1);
    size_t nmissing = 0, capmissing = 0;
    long *missing = NULL;
    size_t *all = xmalloc_array(n ? n : 1, sizeof *all);
    for (size_t i = 0; i < n; i++)
        all[i] = i;
    for (size_t r = 0; r + 1 < n; r++) {
        searched[r] = 1;
        uint32_t stamp = (uint32_t)r + 1;
        for (size_t i = 0; i < g->nlists; i++)
            g->lists[i].cursor = 0;
        for (size_t i = 0; i < n; i++)
            g->all[i].cursor = 0;
        long last = -1;
        for (size_t k = 0; k < g->count[r]; k++) {
            uint32_t ci = (uint32_t)(g->first_node[r] + k);
            node *cur = &g->nodes[ci];
            if (g->p->monotonic_layers && last >= 0 && g->nodes[last].layer >= cur->layer)
                cur->layer = g->nodes[last].layer + 1;
            last = ci;
            const cg_op *co = op_of(g, cur);
            int found = 0;
            size_t nt = co->nranks ? co->nranks : n;
            for (size_t t = 0; t < nt; t++) {
                long cr;
                if (co->nranks) {
                    /* a rank listed twice is one partner */
                    int dup = 0;
                    for (size_t u = 0; u < t && !dup; u++)
                        dup = co->ranks[u] == co->ranks[t];
                    if (dup)
                        continue;
                    cr = rank_pos(g, co->ranks[t]);
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
                } else {
                    cr = (long)all[t];
                }
                if (searched[cr])
                    continue;
                long s = find_partner(g, ci, (size_t)cr, stamp);
                if (s < 0)
                    continue;
                node *sn = &g->nodes[s];
                sn->seen_by = stamp;
                /* whichever way the edge points, the partner takes cur's layer */
                sn->layer = g->nodes[ci].layer;
                if (sn->kept && g->nodes[ci].kept) {
                    uint32_t a = uf_find(g, ci), b = uf_find(g, (uint32_t)s);
                    if (a != b)
                        g->nodes[a > b ? a : b].parent = a < b ? a : b;
                }
                found = 1;
            }
            if (!found)
                note(g, g->p->unconnected_level, "Cannot find connected communication node for \"%ld.%s\".",
                     g->ranks[r].rank, co->name);
        }
    }
    free(missing);
    free(all);
    free(searched);
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
    g.apis = xcalloc(n, sizeof *g.apis);
    g.all = xcalloc(n, sizeof *g.all);
    g.by_rank = xmalloc_array(n, sizeof *g.by_rank);
    for (size_t i = 0; i < nranks; i++)
        g.by_rank[i] = i;
    qsort_r(g.by_rank, nranks, sizeof *g.by_rank, by_rank_number, (void *)ranks);
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
    for (size_t r = 0; r < nranks; r++) {
        strmap_free(&g.apis[r]);
        free(g.all[r].v);
    }
    for (size_t i = 0; i < g.nlists; i++)
        free(g.lists[i].v);
    free(g.lists);
    free(g.apis);
    free(g.all);
    free(g.by_rank);
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
