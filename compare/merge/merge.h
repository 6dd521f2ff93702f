/* merge_result: the chosen APIs' compare indexes from many per-rank compare
 * results, one sheet per index, one column per rank (spec/compare.md §8).
 *
 * msprobe reads each result with pandas.read_excel(keep_default_na=False),
 * so what a cell *is* (a number, a string, which str() it prints) is pandas'
 * view of the whole column: merge_read.c reproduces that view while it
 * streams a file, and keeps only the rows of the chosen APIs.
 * merge_result.c finds the files, reads the config, combines the ranks in
 * rank order and writes the workbook.
 */
#ifndef MSP_MERGE_H
#define MSP_MERGE_H

#include <stddef.h>

#include "base/arena.h"
#include "base/strbuf.h"
#include "py/pyvalue.h"

/* The newest msprobe's results (compare -tp/-gp) have their own headers and
 * one more index, Requires_grad Consistent. */
enum merge_mode { MM_SUMMARY, MM_ALL, MM_SUMMARY_NEW, MM_ALL_NEW, MM_MD5, MM_NMODES };
enum rank_status { RANK_OK, RANK_EMPTY, RANK_MD5, RANK_UNKNOWN };

/* Cell values are Python values (py/pyvalue.h) as msprobe holds them after
 * read_excel; a missing value is pandas' NaN, a PV_FLOAT. */

/* The compare indexes a mode can merge (SUMMARY: 8, ALL: 6; the newest's
 * one more each). */
size_t merge_mode_indexes(int mode, const char *const **names);
/* Room for every distinct index name of all modes (8 + 6 - 1 + 1). */
#define MERGE_MAX_INDEXES 16

/* The API name prefixes of the config. */
typedef struct {
    const char **api;
    size_t *len;
    size_t n;
} merge_apis;

/* One rank's compare result, reduced to what the merge needs. */
typedef struct {
    char *path;
    unsigned long long rank;
    int status;            /* rank_status */
    int mode;              /* RANK_OK: MM_SUMMARY, MM_ALL, MM_SUMMARY_NEW or MM_ALL_NEW */
    size_t nnames;         /* the chosen rows, in msprobe's order */
    const char **names;
    size_t *name_lens;
    /* values by column: the mode's indexes, then NPU max, then Bench max;
     * vals[k * nnames + i] for row i */
    pyval *vals;
    size_t *api_rows;      /* per API: rows that matched it */
    arena a;
} merge_rank;

/* Read r->path (xlsx: its first sheet; csv: as our compare writes it).
 * 0, or -1 with the error recorded. */
int merge_read_rank(merge_rank *r, const merge_apis *apis);
void merge_rank_free(merge_rank *r);

/* The whole command: exit status (messages printed). */
typedef struct {
    const char *input_dir, *output_dir, *config;
} merge_opts;
int merge_result_run(const merge_opts *o);

/* Python's float(s) would succeed (msprobe lets such text through its
 * formula-injection check). */
int py_float_text(const char *s, size_t n);

#endif
