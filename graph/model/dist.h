/* Links between the communication nodes of the ranks of a step (spec §7,
 * model/dist.c): each Distributed.* node matched with its peer's in the
 * ranks it talks to, as matched_distributed. */
#ifndef MSP_GRAPH_DIST_H
#define MSP_GRAPH_DIST_H

#include <stddef.h>

#include "graph/model/graph.h"

/* Link the communication nodes of the graphs of one step (sorted by rank).
 * `newest`: as the newest msprobe links them in its .vis.db -- only the
 * nodes of the tree, in its order, by the texts the file holds, a send and
 * its recv whatever their outputs, no batch_isend_irecv. */
void graph_distributed(graph **graphs, size_t n, int overflow_check, int newest);

#endif
