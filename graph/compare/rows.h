/* The rows of a matched pair (spec §5.4, compare/rows.c) and what they give
 * the NPU node (§5.5): its precision index, and the compare columns of its
 * items, which the writers append to each item. */
#ifndef MSP_GRAPH_ROWS_H
#define MSP_GRAPH_ROWS_H

#include <stddef.h>

#include "base/strbuf.h"
#include "graph/compare/gcompare.h"
#include "graph/model/items.h"

/* Compare the rows of NPU node n (items ni) with its Bench twin's (bi):
 * set its index (statistics, md5) or add its rows to the tensor table. */
int gcompare_rows(gcompare *c, long n, const gitems *ni, const gitems *bi);

/* The compare columns of NPU node i's items (§5.5), for the writer: per
 * item of `in` and `out` of the NPU node's gitems, the columns (name,
 * value) pairs to append, as JSON member text without indentation,
 * separated by '\n'. */
typedef struct {
    strbuf text;
    size_t *in_off, *out_off;    /* [i]..[i+1] in text; equal: none */
    size_t capin, capout;
} gcolumns;
void gcolumns_free(gcolumns *c);
/* ni: the node's items; bi: a reader for its Bench twin's (read only when
 * the walk kept no cells for the node). 0 or -1. */
int gcompare_columns(const gcompare *c, long i, const gitems *ni, gitems *bi, gcolumns *cols);

#endif
