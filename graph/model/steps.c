/* What a built graph gets afterwards: micro steps (spec §4.8), overflow
 * levels (§6), and the paths matched_node_link lists (§5.3). */
#include "graph/model/steps.h"
#include "base/log.h"
#include "base/mem.h"
#include "model/overflow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int has_forward(const gnode *nd)
{
    return memmem(nd->id, nd->idlen, ".forward.", 9) != NULL;
}

/* msprobe's split_nodes_by_micro_step(): a module forward after a
 * backward starts the next micro step; APIs and collections join the
 * current one. Returns the number of steps; ids[k] for root child k. */
static long split(const graph *g, int32_t *ids)
{
    const gnode *root = &g->nodes[0];
    long m = 0;
    int backward = 0;
    for (uint32_t k = 0; k < root->nsub; k++) {
        const gnode *nd = &g->nodes[root->sub[k]];
        if (nd->op == GOP_MODULE) {
            if (has_forward(nd)) {
                if (backward) {
                    m++;
                    backward = 0;
                }
            } else {
                backward = 1;
            }
        }
        ids[k] = (int32_t)m;
    }
    return m + 1;
}

/* int() of a node id's last '.'-separated part, 0 when Python's int()
 * would refuse it (blanks around, a sign, '_' between digits allowed). */
static int32_t call_counter(const gnode *nd)
{
    const char *dot = memrchr(nd->id, '.', nd->idlen);
    const char *s = dot ? dot + 1 : nd->id, *e = nd->id + nd->idlen;
    while (s < e && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\v' || *s == '\f'))
        s++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r' || e[-1] == '\v' || e[-1] == '\f'))
        e--;
    int neg = s < e && *s == '-';
    if (s < e && (*s == '-' || *s == '+'))
        s++;
    long long v = 0;
    int digits = 0;
    for (const char *p = s; p < e; p++) {
        if (*p >= '0' && *p <= '9') {
            if (v < 100000000000LL)
                v = v * 10 + (*p - '0');
            digits++;
        } else if (!(*p == '_' && p > s && p + 1 < e && p[-1] != '_' && p[1] >= '0' && p[1] <= '9')) {
            return 0;
        }
    }
    if (!digits || v > INT32_MAX)
        return 0;
    return (int32_t)(neg ? -v : v);
}

/* The id matched_node_link ends with: the counterpart's name. */
static const char *link_last(const graph *n, const graph *b, const gnode *nd, size_t *len)
{
    const graph *lg = nd->link_side == 1 ? n : b;
    const gnode *t = &lg->nodes[nd->link_node];
    *len = t->idlen;
    return t->id;
}

void graph_micro_steps(graph *n, graph *b)
{
    /* the newest msprobe takes a Megatron run's micro steps from its
     * construct.json: its count is the last one's number + 1, its nodes
     * keep theirs (the others none, 0), on both sides */
    if (n->newest && n->rd->megatron && n->rd->megatron_has_steps) {
        n->micro_steps = n->rd->megatron_steps + 1;
        n->micro_inherit = 0;
        if (b)
            b->micro_inherit = 0;
        return;
    }
    gnode *root = &n->nodes[0];
    int32_t *ids = xmalloc_array(root->nsub + 1, sizeof *ids);
    n->micro_steps = split(n, ids);
    for (uint32_t k = 0; k < root->nsub; k++) {
        gnode *nd = &n->nodes[root->sub[k]];
        nd->micro = ids[k];
        nd->has_micro = 1;
        if (b && nd->link_side) {
            size_t len;
            const char *id = link_last(n, b, nd, &len);
            long o = graph_find(b, id, len);
            if (o >= 0) {
                b->nodes[o].micro = ids[k];
                b->nodes[o].has_micro = 1;
            }
        }
    }
    free(ids);
    if (!b)
        return;
    /* Bench root children left without one: msprobe takes their call
     * counter for a micro step (spec §10 #2); the .vis splits them as the
     * NPU's, the .vis.db, the newest msprobe's file, keeps its numbers. */
    gnode *broot = &b->nodes[0];
    ids = xmalloc_array(broot->nsub + 1, sizeof *ids);
    b->micro_steps = split(b, ids);
    for (uint32_t k = 0; k < broot->nsub; k++) {
        gnode *nd = &b->nodes[broot->sub[k]];
        if (!nd->has_micro) {
            nd->micro = b->newest ? call_counter(nd) : ids[k];
            nd->has_micro = 1;
        }
    }
    free(ids);
}

void graph_overflow(graph *g)
{
    for (size_t i = 0; i < g->n; i++) {
        gnode *nd = &g->nodes[i];
        if (nd->entry >= 0)
            nd->overflow = g->rd->entries[nd->entry].overflow;
    }
}

static const char CYCLES[] = "cycles in the node structure";

void graph_path(const graph *g, long i, const char ***out, size_t *n)
{
    size_t cap = 8, k = 0;
    const char **v = xmalloc_array(cap, sizeof *v);
    v[k++] = g->nodes[i].id;
    long p = g->nodes[i].up;
    while (p >= 0) {
        if (k > g->n) {
            log_warn_as(CYCLES, "Detected a cycle in the node structure and cannot get node ancestors, current node "
                                "is %s.", g->nodes[i].id);
            k = 1;
            break;
        }
        GROW(v, cap, k + 1);
        v[k++] = g->nodes[p].id;
        p = g->nodes[p].up;
    }
    /* root first */
    for (size_t a = 0, z = k - 1; a < z; a++, z--) {
        const char *t = v[a];
        v[a] = v[z];
        v[z] = t;
    }
    *out = v;
    *n = k;
}

/* Children before their parent, depth first from the root (get_sorted_nodes):
 * orphans are left out. */
size_t graph_sorted_nodes(const graph *g, uint32_t *order)
{
    size_t n = 0, top = 0;
    uint8_t *seen = xcalloc(g->n, 1);
    typedef struct {
        uint32_t node;
        uint8_t processed;
    } item;
    item *stack = xmalloc_array(g->n * 2 + 2, sizeof *stack);
    size_t cap = g->n * 2 + 2;
    stack[top++] = (item){0, 0};
    while (top) {
        item it = stack[--top];
        if (seen[it.node])
            continue;
        if (it.processed) {
            seen[it.node] = 1;
            order[n++] = it.node;
            continue;
        }
        const gnode *nd = &g->nodes[it.node];
        if (top + nd->nsub + 1 > cap) {
            cap = (top + nd->nsub + 1) * 2;
            stack = xrealloc(stack, cap * sizeof *stack);
        }
        stack[top++] = (item){it.node, 1};
        for (uint32_t k = nd->nsub; k-- > 0;)
            if (!seen[nd->sub[k]])
                stack[top++] = (item){nd->sub[k], 0};
    }
    free(stack);
    free(seen);
    return n;
}
