/* From the paths given on the command line to the list of compare jobs. */
#ifndef MSP_COMPARE_INPUTS_H
#define MSP_COMPARE_INPUTS_H

#include "compare/pipeline/compare.h"
#include "base/numlist.h"

typedef struct {
    compare_job *v;
    size_t n, cap;
} job_list;

enum stack_policy {
    STACK_FLAG,   /* -n/-b: the stack column with -s, from stack.json beside the target dump */
    STACK_AUTO,   /* compare.json without stack_path: shown when that stack.json exists (msprobe) */
    STACK_GIVEN,  /* compare.json with stack_path: shown with -s (msprobe) */
    STACK_NONE,
};

typedef struct {
    const char *out_dir;
    int stack_policy;
    int stack_flag;          /* -s given */
    const char *stack_path;  /* STACK_GIVEN */
    const numlist *ranks;    /* compare only these ranks (NULL: all) */
    const numlist *steps;    /* compare only these steps (NULL: all) */
} resolve_opts;

int jobs_resolve(const char *npu, const char *bench, const resolve_opts *o, job_list *jl);
void job_free(compare_job *j);
void jobs_free(job_list *jl);

#endif
