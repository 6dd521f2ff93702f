/* The passes of the newest msprobe's graph builder that msprobe 8.1.0 does
 * not have (its graph_builder.py), for the .vis.db: a backward node's
 * parent repaired when an in-place module confused its backward hooks, and
 * the layers recomputed during the backward (activation checkpointing)
 * moved from the root under the backward of their first forward's parent.
 * The .vis keeps 8.1.0's tree. */
#ifndef MSP_GRAPH_NEWEST_H
#define MSP_GRAPH_NEWEST_H

#include <stddef.h>

#include "base/strbuf.h"
#include "base/strmap.h"
#include "graph/model/graph.h"

/* _handle_backward_inplace(): the parent of construct.json member `sub`
 * (`up`, not empty) or its repair. A module backward (`...backward.N`)
 * whose path, less its class and call, is not its parent's path less its
 * class and call, takes the backward twin of its forward twin's parent
 * when construct.json has both; the root (NULL) when that forward sits at
 * the root. `keys`: construct.json's keys -> member index; t1, t2 scratch. */
const char *graph_inplace_parent(const rankdata *rd, const strmap *keys, const char *sub, size_t n, const char *up,
                                 size_t uplen, size_t *outlen, strbuf *t1, strbuf *t2);

/* _handle_recompute(): the root's children that are a recomputed layer's
 * forward and backward (a module named deeper than a model's first level,
 * whose twin of the other direction is a root child too and, for PyTorch,
 * whose forward's stack runs in torch's recompute_fn or in a backward
 * called by torch.autograd) moved, in the root's order, under the backward
 * twin of the parent of that layer's next first forward (one per
 * recomputation, forwards and backwards counted apart). */
void graph_recompute(graph *g);

/* ".backward.<digits>" at the end of s: the length before it, else 0. */
size_t graph_backward_numbered(const char *s, size_t n);

#endif
