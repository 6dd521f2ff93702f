/* Comparing two graphs (spec §5, compare/match.c): the task of the two
 * dumps, the set-up, the NPU tree walked and matched node by node with the
 * Bench tree, and the precision index of every compared NPU node. */
#ifndef MSP_GRAPH_MATCH_H
#define MSP_GRAPH_MATCH_H

#include "graph/compare/gcompare.h"
#include "graph/model/rank.h"

/* The task of two dumps (§5.1). 0 or -1 with msprobe's error. */
int gcompare_task(const rankdata *n, const rankdata *b, int *task);
/* c->n, c->b, c->task, c->o and c->pj set: the cross-framework check and
 * the layer mapping (§5.2). 0 or -1; gcompare_free() in either case. */
int gcompare_setup(gcompare *c);
/* Match and compare the graphs (§5.3-§5.7). 0 or -1. */
int gcompare_run(gcompare *c);
void gcompare_free(gcompare *c);

#endif
