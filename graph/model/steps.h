/* What a built graph gets afterwards (model/steps.c): micro steps (spec
 * §4.8), overflow levels (§6), and the path of a node, which
 * matched_node_link lists (§5.3). */
#ifndef MSP_GRAPH_STEPS_H
#define MSP_GRAPH_STEPS_H

#include <stddef.h>

#include "graph/model/graph.h"

/* Micro steps (§4.8): the NPU (or only) graph, and with a Bench graph the
 * propagation along the matched links. */
void graph_micro_steps(graph *n, graph *b);
/* -oc (§6): overflow levels from the entries' scenes. */
void graph_overflow(graph *g);
/* The path of node i (ancestors root first, then i): ids into *out (an
 * array of *n pointers, malloc'ed). A cycle gives just the node (after a
 * warning), as msprobe's empty ancestor list does. */
void graph_path(const graph *g, long i, const char ***out, size_t *n);
/* The nodes reachable from the root, each child before its parent, depth
 * first (msprobe's get_sorted_nodes(), the order of the .vis.db): their
 * indexes into order (room for g->n); returns their number. */
size_t graph_sorted_nodes(const graph *g, uint32_t *order);

#endif
