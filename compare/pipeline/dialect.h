/* The result tables of the two msprobe versions a compare can write
 * (spec/compare.md §5 for 8.1.0; the newest msprobe's acc_compare.py,
 * stats_diff_calc.py and indicator_analysis/ for the other).
 *
 * A dialect is a table: per mode, the columns in order, each a column id
 * whose cell the row renderer (render.c) fills with the dialect's
 * formatter. The compare under it is one: the same rows, matching, metrics
 * and batches of rows; the few rules that differ are named here and read
 * where they apply.
 *
 *                         8.1.0                     newest
 *   format by default     xlsx                      csv (--xlsx for xlsx)
 *   join key              name and shape            name (backward calls renumbered)
 *   statistics cells      pandas' float64 columns   the dump's values, None as "None"
 *   differences           numbers, Nan, N/A         texts: 0, numbers, Nan, inf, Diff, N/A
 *   Result / Err_message  Warning, highlights       pass / warning / error, a JSON list
 *   row fills, advisor    red / yellow, advisor_*   none
 *   numbers in csv        %.16g                     Python's repr
 */
#ifndef MSP_COMPARE_DIALECT_H
#define MSP_COMPARE_DIALECT_H

#include <stdint.h>

#include "compare/pipeline/compare.h"

/* Every column either table has. */
enum col_id {
    COL_NPU_NAME, COL_BENCH_NAME, COL_NPU_DTYPE, COL_BENCH_DTYPE, COL_NPU_SHAPE, COL_BENCH_SHAPE,
    COL_NPU_RG, COL_BENCH_RG,                 /* NPU / Bench Requires_grad */
    COL_DIFF,                                 /* + k: Max diff, Min diff, Mean diff, L2norm diff */
    COL_REL = COL_DIFF + 4,                   /* + k: MaxRelativeErr ... NormRelativeErr */
    COL_METRIC = COL_REL + 4,                 /* + k: Cosine ... Five Thousandths Err Ratio */
    COL_NPU_STAT = COL_METRIC + MET_COUNT,    /* + k: NPU max, min, mean, l2norm */
    COL_BENCH_STAT = COL_NPU_STAT + 4,        /* + k: Bench max ... */
    COL_NPU_MD5 = COL_BENCH_STAT + 4,
    COL_BENCH_MD5,
    COL_RG_CONSISTENT,                        /* Requires_grad Consistent */
    COL_RESULT,
    COL_ACCURACY,                             /* Accuracy Reached or Not */
    COL_ERR,                                  /* Err_message */
    COL_STACK,                                /* NPU_Stack_Info: only with a stack */
    COL_DATA_NAME,
    COL_COUNT
};

typedef struct {
    const char *name;           /* "8.1" or "newest", as --dialect spells it */
    const uint8_t *cols[3];     /* per enum cmp_mode, COL_STACK included */
    uint8_t ncols[3];
    uint8_t join_on_shape;      /* the exact join's key holds the shape */
    uint8_t renumber_backward;  /* backward calls numbered by their order of calls */
    uint8_t default_format;     /* TABLE_XLSX / TABLE_CSV */
    uint8_t advisor;            /* writes advisor_*.txt (unless -c) */
    uint8_t fills;              /* highlights rows red / yellow */
} dialect;

const dialect *dialect_of(int id);
/* "8.1" -> DIALECT_81, "newest" -> DIALECT_NEWEST; -1 for anything else. */
int dialect_parse(const char *name);

/* The columns of c's table (its dialect and mode, the stack column only
 * with a stack) into ids[COLS_MAX] and their header names into
 * names[COLS_MAX]; returns how many. */
int dialect_columns(const compare_ctx *c, uint8_t *ids, const char **names);

#endif
