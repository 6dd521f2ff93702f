/* compare -da, per rank pair: the compare's rows written as msprobe 8.3's
 * first-diff result (API batches, each with its rows' cells and whether
 * they are the same on both sides) instead of the table, highlights and
 * advisor file. first_diff/ reads these files back across the ranks. */
#ifndef MSP_COMPARE_FIRST_DIFF_H
#define MSP_COMPARE_FIRST_DIFF_H

#include "compare/pipeline/compare.h"

/* compare_result_rank{N}_{stamp}.json; *path as the other writers of a job
 * (compare.h). */
int write_first_diff(compare_ctx *c, char **path, compare_result *res);

#endif
