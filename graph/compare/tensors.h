/* Tensor mode (spec §5.7, compare/tensors.c): the rows of every matched
 * pair form one table, one row per NPU row name; each pair of tensor files
 * is compared once, on every core; then each compared NPU node gets its
 * index from the one-thousandth ratios of its items. */
#ifndef MSP_GRAPH_TENSORS_H
#define MSP_GRAPH_TENSORS_H

#include "graph/compare/gcompare.h"
#include "model/dump.h"
#include "model/metrics.h"

/* A row of the table: the files of the last row of its name and, once
 * computed, their metrics. */
typedef struct gtensor_row {
    const char *name;
    const char *npu_file, *bench_file;   /* data names; "-1" none */
    tensor_metrics m;
} gtensor_row;

/* Add NPU row n, paired with Bench row b (NULL: the Bench side has fewer
 * rows there), to the table. */
void gtensor_add(gcompare *c, const dump_row *n, const dump_row *b);
/* The row named `name`, or NULL. */
const gtensor_row *gtensor_find(const gcompare *c, const char *name);
/* Every row's metrics, on c->o->jobs threads. 0 or -1. */
int gtensor_metrics(gcompare *c);
/* The index of every NPU node queued by the walk. 0 or -1. */
int gtensor_indexes(gcompare *c);

#endif
