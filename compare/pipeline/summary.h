/* Reporting a compare run: summary lines, summary JSON, the CI gate. */
#ifndef MSP_COMPARE_SUMMARY_H
#define MSP_COMPARE_SUMMARY_H

#include "compare/pipeline/compare.h"

/* --fail-on kinds (the option table of compare/cmd_compare.c names them);
 * the bit order is the order in the summary JSON. red and yellow are the
 * rows the result highlights (what a user sees). */
enum {
    FAIL_WARNING = 1u << 0, FAIL_NO = 1u << 1, FAIL_DIFFERENT = 1u << 2, FAIL_UNMATCHED = 1u << 3,
    FAIL_RED = 1u << 4, FAIL_YELLOW = 1u << 5,
    FAIL_ERROR = 1u << 6,   /* the newest dialect's Result "error" (its "warning" is FAIL_WARNING) */
};

/* Does this result have rows of a kind in mask? */
int gate_fails(unsigned mask, const compare_result *r);

/* The line of one result (its highlighted rows counted unless the run
 * highlights nothing: -da), and the total of several. */
void summary_line(const compare_job *job, const compare_result *r, int highlighted);
void summary_total(const compare_result *rs, size_t n, int highlighted);
int summary_write_json(const char *path, const compare_job *jobs, const compare_result *rs, size_t n, unsigned mask,
                       int exit_status);

#endif
