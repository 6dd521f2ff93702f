/* The parts of a graph compare (compare.c: matching; rows.c: the rows of a
 * matched pair, their cells and the precision index; real.c: tensor
 * metrics). Internal to graph/. */
#ifndef MSP_GRAPH_COMPARE_H
#define MSP_GRAPH_COMPARE_H

#include "graph/graph.h"
#include "py/pyvalue.h"

/* A row of msprobe's compare table for a matched pair: an NPU row and the
 * Bench row at its place (-1: the Bench side has fewer rows there). */
typedef struct {
    uint32_t n;
    int32_t b;
} rowpair;

/* get_accuracy()'s pairing: rows by position within the groups input
 * (args, kwargs, input), parameters, output, parameters_grad, in this
 * order. 0, or -1 for a row without a state (msprobe raises). */
int item_pair_rows(const gitems *ni, const gitems *bi, rowpair **v, size_t *n, size_t *cap);

/* A cell as msprobe's code holds it (a Python int, float or str). */
typedef struct {
    pyval v;
    char buf[48];
} gcell;

/* A compare cell kept for the writer. */
enum { SC_NA, SC_NAN, SC_INF, SC_NINF, SC_PASS, SC_DIFFERENT, SC_FLOAT, SC_INT, SC_BIGINT, SC_REL };
typedef struct scell {
    double num;              /* SC_FLOAT, SC_INT, SC_REL (abs of the relative error) */
    uint32_t text;           /* SC_BIGINT: offset of its digits in cell_text */
    uint8_t kind;
} scell;

/* Compare the rows of NPU node n (items ni) with its Bench twin's (bi):
 * set its index (statistics, md5) or add its rows to the tensor table. */
int compare_pair(gcompare *c, long n, const gitems *ni, const gitems *bi);

/* layermap.c: c->mapping from the layer mapping (-lm). 0 or -1. */
int compare_layer_mapping(gcompare *c);

/* real.c */
void real_add(gcompare *c, const gitems *ni, const gitems *bi, const rowpair *p, size_t np);
int real_metrics(gcompare *c);
int real_indexes(gcompare *c);
/* The six cells of the tensor row named `name`, or NULL. */
const real_row *real_find(const gcompare *c, const char *name);
void real_cells(const real_row *r, gcell out[MET_COUNT]);
extern const char *const REAL_COLUMNS[MET_COUNT];

#endif
