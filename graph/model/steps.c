/* What a built graph gets afterwards: micro steps (spec §4.8), overflow
 * levels (§6), and the paths matched_node_link lists (§5.3). */
#include "graph/model/steps.h"
#include "base/log.h"
#include "base/mem.h"
#include "model/overflow.h"

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
     * counter for a micro step (spec §10 #2); we split them as the NPU's. */
    gnode *broot = &b->nodes[0];
    ids = xmalloc_array(broot->nsub + 1, sizeof *ids);
    b->micro_steps = split(b, ids);
    for (uint32_t k = 0; k < broot->nsub; k++) {
        gnode *nd = &b->nodes[broot->sub[k]];
        if (!nd->has_micro) {
            nd->micro = ids[k];
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
