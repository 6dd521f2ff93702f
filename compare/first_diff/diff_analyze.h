/* compare -da: the first diverging op across ranks (spec/analyzers.md §C).
 *
 * The compare of every rank pair has written its first-diff result
 * (compare/pipeline/first_diff.c); this reads them back, describes every
 * API of every rank to the communication-graph engine (lib/commgraph.h) --
 * which ones differ, which ones communicate and with whom -- and writes
 * what it finds as diff_analyze_{time_ns}.json, as msprobe 8.3's
 * find_first does. */
#ifndef MSP_COMPARE_DIFF_ANALYZE_H
#define MSP_COMPARE_DIFF_ANALYZE_H

#include "compare/pipeline/inputs.h"
#include "base/outdir.h"
#include "base/strbuf.h"

typedef struct {
    long rank;
    const char *path;        /* compare_result_rank{N}_{stamp}.json */
} da_input;

/* Analyze the results of one step. *result_path gets the file written
 * (malloc'ed), or NULL when no diverging op was found; `line` the one-line
 * summary. Returns 0, or -1 with an error recorded. */
int diff_analyze(const da_input *in, size_t n, const char *out_dir, char **result_path, strbuf *line);

/* Before the compares of a -da run: refuse inputs that are not step
 * directories (or dump roots), and leave out debug.json pairs. */
int diff_analyze_prepare(const char *npu, job_list *jobs);

/* After the compares of a -da run: one analysis per output directory (per
 * step), each printing its summary line; the files it writes are recorded
 * in `outputs` (may be NULL). Returns an exit status. */
int diff_analyze_jobs(const job_list *jobs, const compare_result *results, out_run *outputs);

#endif
