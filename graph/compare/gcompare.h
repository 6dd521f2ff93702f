/* A compare of two graphs (spec §5): the two graphs, the task, and what it
 * keeps for the writers -- the table of tensor rows (compare/tensors.h) and
 * the cells of every compared NPU node's items (compare/rows.h). The files
 * of graph/compare/ fill it; compare/match.h runs it; the writers read it. */
#ifndef MSP_GRAPH_GCOMPARE_H
#define MSP_GRAPH_GCOMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/progress.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "graph/model/graph.h"

enum cmp_task { TASK_SUMMARY, TASK_MD5, TASK_REAL, TASK_STRUCTURE };

struct gtensor_row;   /* compare/tensors.h */
struct scell;         /* compare/rows.c */

typedef struct {
    graph *n, *b;
    int task;
    int cross_frame;
    const graph_opts *o;
    const char *const *mapping;  /* -lm: per NPU entry, the Bench entry name or NULL (N/A); NULL: none */
    arena mem;
    /* task tensor: one row per distinct NPU row name (compare/tensors.h) */
    struct gtensor_row *tensors;
    size_t ntensors, tensor_cap;
    strmap tensor_by_name;
    int32_t *queued;             /* tensor mode: NPU nodes compared, in order */
    size_t nqueued, qcap;
    progress_job *pj;
    /* statistics and md5: the compare cells of each compared NPU node's
     * items, kept from the walk for the writer (which then need not read
     * the Bench entry again): node_items[node] is the first of its items in
     * item_cells (inputs, then outputs; UINT32_MAX: not compared), and
     * item_cells[item] the first of its cells (UINT32_MAX: none) */
    uint32_t *node_items;
    uint32_t *item_cells;
    size_t nitem_cells, item_cap;
    struct scell *cells;
    size_t ncells, cell_cap;
    strbuf cell_text;            /* the digits of integers beyond 2**53 */
} gcompare;

#endif
