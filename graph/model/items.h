/* The items of a node (spec §4.4): its dump entry read again from the
 * mapping and flattened into rows by model/dump (msprobe's read_op), each
 * row with the leaf it came from, in input_data or output_data; and an item
 * as the export writes it (§8.3). */
#ifndef MSP_GRAPH_ITEMS_H
#define MSP_GRAPH_ITEMS_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "format/json.h"
#include "graph/model/rank.h"
#include "model/dump.h"

/* One flattened leaf: its row (name = item key, dtype, shape, md5,
 * data_name, statistics, state) and the leaf object (NULL: a null item). */
typedef struct {
    uint32_t row;
    const jval *leaf;
} gitem;

/* A reader of entries: one per thread; reused from entry to entry. */
typedef struct {
    arena mem;                /* the parsed entry */
    dump_data rows;           /* its rows */
    gitem *in, *out;          /* input_data / output_data, in order */
    size_t nin, nout, capin, capout;
    const jval **leaves;      /* leaf of each row, while reading */
    size_t nleaves, capleaves;
    strmap seen;
    const rankdata *rd;
    const jval *value;        /* the entry's value */
} gitems;

void gitems_init(gitems *it);
void gitems_free(gitems *it);
/* Read entry `e` of rd (under a guard the caller holds on rd->dump); with
 * e < 0 the node has no entry and no items. 0 or -1. */
int gitems_read(gitems *it, const rankdata *rd, long e);
static inline const dump_row *gitem_row(const gitems *it, const gitem *g) { return &it->rows.rows[g->row]; }

/* The members of an item as the export writes them (§8.3), each
 * `"key": "value"` followed by '\n', then `cols` (the compare columns, in
 * the same form) unless the item collapses to {"value": "null"} or is a
 * torch.ProcessGroup (type, group_ranks, group_id, data_name, nothing
 * else). */
enum { ITEM_MD5 = 1, ITEM_BATCH_P2P = 2 };
void item_render(strbuf *sb, const gitems *it, const gitem *g, unsigned flags, const char *cols, size_t ncols);

#endif
