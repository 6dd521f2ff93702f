/* One compare of a pair of dump files, from loading to the advisor file. */
#include "compare/pipeline/compare.h"
#include "compare/pipeline/dialect.h"
#include "compare/pipeline/first_diff.h"
#include "compare/mapping/mapping.h"
#include "base/files.h"
#include "base/outdir.h"
#include "base/log.h"
#include "base/err.h"
#include "base/pool.h"
#include "base/strbuf.h"
#include "model/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *path[2];
    dump_data *out[2];
    unsigned flags;
    progress_job *progress;
} load_task;

static int load_one(void *arg, size_t i)
{
    load_task *t = arg;
    return dump_load_progress(t->path[i], t->flags, t->progress, t->out[i]);
}

/* Both sides are parsed at the same time: each is a single-threaded stream. */
static int load_both(compare_ctx *c, const compare_job *job)
{
    progress_phase(c->progress, "load", 0, PROGRESS_BYTES);
    load_task t = {.path = {job->npu_json, job->bench_json},
                   .out = {&c->npu, &c->bench},
                   .flags = c->opts->first_diff                   ? DUMP_FIRST_DIFF
                            : c->opts->dialect == DIALECT_NEWEST ? DUMP_NEWER_ROWS
                                                                 : 0,
                   .progress = c->progress};
    return pool_run(2, 2, load_one, &t, NULL);
}

static const char *task_text(const dump_data *d) { return d->task ? d->task : d->task_present ? "?" : "None"; }

/* msprobe's get_dump_mode(). */
static int dump_mode(compare_ctx *c)
{
    const dump_data *n = &c->npu, *b = &c->bench;
    if (!n->task_present || !b->task_present)
        return err_input(n->path, "Please check the dump task is correct, npu's task is %s, bench's task is %s.",
                         task_text(n), task_text(b));
    if (!n->task || !b->task || strcmp(n->task, b->task) != 0)
        return err_input(n->path, "Please check the dump task is consistent (npu's task is %s, bench's task is %s).",
                         task_text(n), task_text(b));
    if (!strcmp(n->task, "statistics")) {
        if (n->has_md5 != b->has_md5)
            return err_input(n->path, "Please check the dump task is consistent, dump mode of npu and bench should "
                                      "both be statistics or md5.");
        c->mode = n->has_md5 ? MODE_MD5 : MODE_SUMMARY;
        return 0;
    }
    if (!strcmp(n->task, "tensor")) {
        /* the first-diff analysis compares tensors by their statistics */
        c->mode = c->opts->first_diff ? MODE_SUMMARY : MODE_ALL;
        return 0;
    }
    if (!strcmp(n->task, "structure"))
        return err_input(n->path, "dumps of task 'structure' hold no data to compare");
    return err_input(n->path, "Compare applies only to task is tensor or statistics (task is %s)", n->task);
}

/* Tensor files are looked up in dump_tensor_data beside each dump.json;
 * msprobe requires both directories. */
static int tensor_dirs(compare_ctx *c)
{
    const char *json[2] = {c->npu.path, c->bench.path};
    char **dir[2] = {&c->npu_tensor_dir, &c->bench_tensor_dir};
    for (int i = 0; i < 2; i++) {
        char *parent = path_dirname(json[i]);
        *dir[i] = path_join(parent, "dump_tensor_data");
        free(parent);
        if (path_require(*dir[i], 1) != 0)
            return -1;
    }
    return 0;
}

/* Validate every stack the table will show before anything is written. */
static int check_stacks(compare_ctx *c)
{
    for (size_t e = 0; e < c->npu.nentries; e++) {
        if (!c->npu.entries[e].nrows)
            continue;
        int bad;
        stack_get(&c->stack, c->npu.entries[e].name, &bad);
        if (bad)
            return -1;
    }
    return 0;
}

/* The compare keys of the target rows under -am, -cm, -dm or -lm; -lm
 * writes the mapping it generates beside the job's results. */
static int map_keys(compare_ctx *c, const compare_job *job)
{
    const mapping_opts *m = c->opts->mapping;
    char *yaml = m && m->layer ? compare_out_name(job, c->opts->stamp, "data_mapping", "yaml") : NULL;
    mapping_dumps d = {.npu = &c->npu,
                       .bench = &c->bench,
                       .target_ms = c->target_ms,
                       .yaml_path = yaml,
                       .out_dir = job->out_dir,
                       .outputs = c->opts->outputs,
                       .newest = c->opts->dialect == DIALECT_NEWEST};
    int rc = mapping_apply(&d, m, &c->keys);
    free(yaml);
    return rc;
}

static void ctx_free(compare_ctx *c)
{
    dump_free(&c->npu);
    dump_free(&c->bench);
    if (c->have_stack)
        stack_free(&c->stack);
    free((void *)c->entry_stack);
    free(c->pairs);
    free(c->diffs);
    free(c->real);
    free(c->npu_tensor_dir);
    mapping_keys_free(&c->keys);
    if (c->bench_keys)
        arena_free(&c->bench_key_mem);
    free((void *)c->bench_keys);
    free(c->npu_dropped);
    free(c->bench_tensor_dir);
    free(c->fill);
    free(c->msgs);
    free(c->level);
    free(c->checks);
}

/* -da: one JSON of API batches instead of the table, highlights and advisor.
 * msprobe 8.3 names it compare_result for dump.json and debug.json alike. */
static int first_diff_result(compare_ctx *c, const compare_job *job, compare_result *res)
{
    if (out_run_mkdir(c->opts->outputs, job->out_dir) != 0)
        return -1;
    progress_phase(c->progress, "write", 0, PROGRESS_ITEMS);
    res->result_path = compare_out_name(job, c->opts->stamp, "compare_result", "json");
    if (write_first_diff(c, &res->result_path, res) != 0) {
        free(res->result_path);
        res->result_path = NULL;
        return -1;
    }
    out_run_add(c->opts->outputs, res->result_path);
    return 0;
}

int compare_run_job(const compare_job *job, const compare_opts *opts, compare_result *res)
{
    memset(res, 0, sizeof *res);
    compare_ctx c;
    memset(&c, 0, sizeof c);
    c.opts = opts;
    /* phase times (MSPROBE_PROFILE) come from the progress reporter too */
    progress_job *pj = progress_job_begin(job->label);
    c.progress = pj;
    int rc = -1;
    if (load_both(&c, job) != 0)
        goto out;
    progress_phase(c.progress, "match", 0, PROGRESS_ITEMS);
    c.file_type = c.npu.file_type;
    if (c.npu.file_type != c.bench.file_type) {
        err_input(job->npu_json, "cannot compare a dump.json with a debug.json (%s)", job->bench_json);
        goto out;
    }
    if (dump_mode(&c) != 0)
        goto out;
    c.target_ms = opts->framework ? opts->framework == 'm' : dump_framework(&c.npu) == 'm';
    c.cross_frame = c.target_ms && dump_framework(&c.bench) == 'p';
    res->mode = c.mode;
    if (c.mode == MODE_ALL && tensor_dirs(&c) != 0)
        goto out;
    if (job->stack_json) {
        if (stack_load(job->stack_json, &c.stack) != 0) {
            stack_free(&c.stack);
            goto out;
        }
        c.have_stack = 1;
        if (check_stacks(&c) != 0)
            goto out;
    }
    if (map_keys(&c, job) != 0)
        goto out;
    if (match_rows(&c) != 0)
        goto out;
    if (c.npairs == 0) {
        log_warn("%s: Can`t match any op: the target dump has no data rows; no result written.", job->npu_json);
        rc = 0;
        goto out;
    }
    if (opts->dialect == DIALECT_NEWEST)
        newest_column_types(&c);
    else
        stats_column_types(&c);
    if (c.mode == MODE_SUMMARY && opts->first_diff) {
        /* the table computes each row's differences as it formats the row */
        progress_phase(c.progress, "statistics", 0, PROGRESS_ITEMS);
        compute_diffs(&c, opts->threads);
    }
    if (opts->first_diff) {
        rc = first_diff_result(&c, job, res);
        goto out;
    }
    if (c.mode == MODE_ALL) {
        if (compute_real_data(&c, opts->threads) != 0)
            goto out;
        res->unreadable = real_unreadable(&c);
    }
    progress_phase(c.progress, "highlight", 0, PROGRESS_ITEMS);
    if (highlight_rows(&c) != 0)
        goto out;
    if (out_run_mkdir(opts->outputs, job->out_dir) != 0)
        goto out;
    res->result_path = compare_result_name(job, opts->format, opts->stamp);
    if (write_result(&c, &res->result_path, res) != 0) {
        free(res->result_path);
        res->result_path = NULL;
        goto out;
    }
    out_run_add(opts->outputs, res->result_path);
    if (opts->auto_analyze && dialect_of(opts->dialect)->advisor) {
        progress_phase(c.progress, "advisor", 0, PROGRESS_ITEMS);
        res->advisor_path = compare_out_name(job, opts->stamp, "advisor", "txt");
        if (write_advisor(&c, &res->advisor_path, res) != 0) {
            free(res->advisor_path);
            res->advisor_path = NULL;
            goto out;
        }
        out_run_add(opts->outputs, res->advisor_path);
    }
    rc = 0;
out:
    progress_phase(pj, "finish", 0, PROGRESS_ITEMS);
    ctx_free(&c);
    progress_job_end(pj);
    return rc;
}

void compare_result_free(compare_result *r)
{
    free(r->result_path);
    free(r->advisor_path);
    memset(r, 0, sizeof *r);
}
