/* The .vis JSON of msprobe 8.1.0 (write/vis.c), and what the other
 * writers (write/visdb.h, write/page/page.h) take from it: a node's items
 * laid out with their compare columns, the legend and the tool tips. */
#ifndef MSP_GRAPH_VIS_H
#define MSP_GRAPH_VIS_H

#include <stddef.h>

#include "base/outstream.h"
#include "base/strbuf.h"
#include "graph/compare/gcompare.h"
#include "graph/compare/rows.h"
#include "graph/model/graph.h"
#include "graph/model/items.h"

typedef struct {
    const gcompare *cmp;       /* NULL: a build */
    const graph *other;        /* the other graph of a compare */
    unsigned item_flags;       /* ITEM_MD5 in md5 mode */
    gitems it, bit;            /* the node's items; the Bench twin's (columns) */
    gcolumns cols;
    int cols_ok;
    size_t ncols;
    strbuf tmp;
} vis_ctx;

void vis_ctx_init(vis_ctx *w, const gcompare *cmp);
void vis_ctx_free(vis_ctx *w);
/* Read node i's items (and its compare columns) into w. The caller holds
 * guards on the mappings read. 0 or -1. */
int vis_items(vis_ctx *w, const graph *g, long i, int *have);
/* input_data (out = 0) or output_data of that node: indented at `level`
 * (json.dump indent=4), or compact (json.dumps) when `compact`. */
void vis_item_map(vis_ctx *w, strbuf *sb, const graph *g, long i, int out, int level, int compact);

/* Write n (and b, a compare) as a .vis file, rendering on `threads`
 * threads. *path (malloc'ed) is consumed and replaced by the name written
 * (a later one when taken meanwhile). */
int vis_write(char **path, graph *n, graph *b, const gcompare *cmp, int overflow_check, int threads);
/* The same into an open stream (flushed as it goes, not committed). */
int vis_render(out_stream *os, graph *n, graph *b, const gcompare *cmp, int overflow_check, int threads);

/* A legend entry (Colors): [low, high) as written, as numbers, and text. */
typedef struct {
    const char *hex;
    const char *low, *high;    /* NULL: [] (not matched) */
    double lo, hi;
    const char *desc;
} vis_color;
const vis_color *vis_colors(int task, size_t *n);
/* The fill of an NPU node (spec §13): grey when not matched, white without
 * an index, else the first legend entry whose range holds the index
 * (low <= v < high, or v == high == 1, or v == low == 0). */
const char *vis_fill(int task, int px_kind, double px, int matched);
/* The ToolTip object of a task as json.dumps writes it. */
void vis_tool_tip(strbuf *sb, int task);
const char *vis_task_name(int task);
const char *vis_comm_type(int t);
/* precision_index as json.dump writes it */
void vis_px(strbuf *sb, const gnode *nd);

#endif
