/* monitor2tb: every rank's csv files of a data type into one TensorBoard
 * event file, {out}/rank{R}/{type}/events.out.tfevents.*, as msprobe
 * 8.1.0's csv2tensorboard_by_step writes it (spec/analyzers.md §E.5):
 * scalar tags "vp{vpp_stage}:{name}[:micro{micro_step}]/{op}", the value
 * as float32, one event per value, a file's series in order of first
 * appearance, each series' steps ascending, ops in column order.
 *
 * A file's rows are held until it has been read whole (conv_read_file), so
 * memory follows the largest file; files go in step order, so each tag's
 * steps still ascend across files. The ranks' data types are converted on
 * all threads at once; event files are written under temporary names and
 * renamed into place when every one is complete. */
#include "monitor/convert/convert_run.h"
#include "base/err.h"
#include "base/files.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/outdir.h"
#include "base/pool.h"
#include "base/progress.h"
#include "base/strbuf.h"
#include "format/tfevents.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

/* msprobe's MonitorConst.OP_LIST without shape and dtype */
static const char *const TB_OPS[] = {"norm", "min", "max", "zeros", "nans", "id", "mean"};
enum { NTB_OPS = sizeof TB_OPS / sizeof TB_OPS[0] };

typedef struct {
    char *dir;          /* {out}/rank{R}/{type} */
    char *final;        /* the event file's name */
    char *tmp;          /* its temporary name while written */
    uint64_t scalars, rows, bytes_in, bytes_out;
    size_t skipped;
} tb_result;

typedef struct {
    const conv_opts *o;
    const conv_plan *p;
    const char *out;
    out_run *outputs;
    tb_result *res;
    double wall_time;
} tb_run;

/* Row order of a file: by series (first appearance), then step; stable. */
static size_t *file_order(const conv_rows *rows)
{
    size_t ns = rows->nseries, n = rows->nrows;
    size_t *start = xcalloc(ns + 1, sizeof *start), *order = xmalloc_array(n ? n : 1, sizeof *order);
    for (size_t i = 0; i < n; i++)
        start[rows->row_series[i] + 1]++;
    for (size_t s = 0; s < ns; s++)
        start[s + 1] += start[s];
    for (size_t i = 0; i < n; i++)
        order[start[rows->row_series[i]]++] = i;
    /* each series' rows are in file order, almost always ascending steps:
     * insertion sort is linear then */
    for (size_t s = 0; s < ns; s++) {
        size_t b = s ? start[s - 1] : 0;
        for (size_t i = b + 1; i < start[s]; i++) {
            size_t x = order[i], j = i;
            while (j > b && rows->row_step[order[j - 1]] > rows->row_step[x]) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = x;
        }
    }
    free(start);
    return order;
}

static int open_writer(tb_run *t, const conv_task *task, tb_result *r, tfevents_writer *w)
{
    char sub[64];
    snprintf(sub, sizeof sub, "rank%ld", task->run->rank);
    char *rank_dir = path_join(t->out, sub);
    r->dir = path_join(rank_dir, monitor_type_names[task->type]);
    free(rank_dir);
    if (out_run_mkdir(t->outputs, r->dir) != 0)
        return -1;
    char *name = tfevents_file_name(t->wall_time);
    r->final = path_join(r->dir, name);
    free(name);
    r->tmp = out_tmp_create(r->final);
    if (!r->tmp)
        return -1;
    return tfevents_open(w, r->tmp, r->final, t->wall_time);
}

static int write_file(tfevents_writer *w, const conv_rows *rows, tb_result *r)
{
    size_t nv = rows->h.nfile_ops;
    /* the encoded tag of every series and op of this file */
    strbuf tags = STRBUF_INIT, tag = STRBUF_INIT;
    size_t *off = xmalloc_array(rows->nseries * nv + 1, sizeof *off);
    for (size_t s = 0; s < rows->nseries; s++) {
        const mcsv_series *se = &rows->series[s];
        for (size_t i = 0; i < nv; i++) {
            sb_reset(&tag);
            sb_addf(&tag, "vp%lld:%s", se->vpp, se->name);
            if (rows->h.has_micro)
                sb_addf(&tag, ":micro%lld", se->micro);
            sb_addf(&tag, "/%s", TB_OPS[rows->h.file_ops[i]]);
            off[s * nv + i] = tags.len;
            sb_grow(&tags, tag.len + TFEVENTS_TAG_EXTRA);
            tags.len += tfevents_tag_encode((uint8_t *)tags.buf + tags.len, tag.buf, tag.len);
        }
    }
    off[rows->nseries * nv] = tags.len;
    size_t *order = file_order(rows);
    int rc = 0;
    for (size_t k = 0; k < rows->nrows && rc == 0; k++) {
        size_t i = order[k], s = rows->row_series[i];
        const double *v = rows->values + i * nv;
        const size_t *o = off + s * nv;
        for (size_t c = 0; c < nv && rc == 0; c++)
            rc = tfevents_add_encoded(w, rows->row_step[i], (const uint8_t *)tags.buf + o[c], o[c + 1] - o[c],
                                      (float)v[c]);
    }
    r->scalars += rows->nrows * nv;
    r->rows += rows->nrows;
    free(order);
    free(off);
    sb_free(&tags);
    sb_free(&tag);
    return rc;
}

static int convert_task(void *arg, size_t i)
{
    tb_run *t = arg;
    const conv_task *task = &t->p->tasks[i];
    tb_result *r = &t->res[i];
    char label[96];
    snprintf(label, sizeof label, "rank%ld %s", task->run->rank, monitor_type_names[task->type]);
    progress_job *pj = progress_job_begin(label);
    progress_phase(pj, "convert", task->bytes, PROGRESS_BYTES);
    conv_rows rows;
    conv_rows_init(&rows);
    tfevents_writer w;
    int open = 0, rc = 0;
    for (size_t f = 0; f < task->nfiles && rc == 0; f++) {
        uint64_t bytes;
        int got = conv_read_file(t->o, t->p, &task->files[f], TB_OPS, NTB_OPS, &rows, &bytes);
        r->bytes_in += bytes;
        progress_add(pj, bytes);
        if (got < 0) {
            rc = -1;
        } else if (got > 0) {
            r->skipped++;
        } else if (rows.nrows) {
            /* msprobe writes no file for a data type without rows */
            if (!open) {
                if (open_writer(t, task, r, &w) != 0) {
                    rc = -1;
                    break;
                }
                open = 1;
            }
            rc = write_file(&w, &rows, r);
        }
    }
    if (open) {
        r->bytes_out = tfrecord_size(&w.rec);
        if (tfevents_close(&w) != 0)
            rc = -1;
    }
    conv_rows_free(&rows);
    progress_job_end(pj);
    return rc;
}

/* msprobe removes the rank's data type directory before writing it again:
 * the event files already there go, anything else stays. */
static void remove_old_events(const char *dir)
{
    char **names;
    long n = dir_list(dir, &names);
    size_t removed = 0;
    for (long i = 0; i < n; i++) {
        if (strncmp(names[i], "events.out.tfevents.", 20) != 0)
            continue;
        char *p = path_join(dir, names[i]);
        if (path_kind(p) == PATH_FILE && unlink(p) == 0)
            removed++;
        free(p);
    }
    if (removed)
        log_warn("%s: %zu existing event file%s replaced", dir, removed, removed == 1 ? "" : "s");
    if (n > 0)
        names_free(names, n);
}

int conv_tb(const conv_opts *o, const conv_plan *p, const char *out, out_run *outputs)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    tb_run t = {o, p, out, outputs, xcalloc(p->ntasks ? p->ntasks : 1, sizeof *t.res),
                tv.tv_sec + tv.tv_usec / 1e6};
    progress_run_begin(&(progress_opts){.jobs = p->ntasks, .profile = getenv("MSPROBE_PROFILE") != NULL});
    int rc = pool_run(p->ntasks, o->jobs, convert_task, &t, NULL);
    progress_run_end();
    size_t nskipped = 0;
    for (size_t i = 0; i < p->ntasks; i++)
        nskipped += t.res[i].skipped;
    if (rc == 0 && nskipped == p->nfiles)
        rc = err_input(o->monitor_dir, "no csv file could be read (all were malformed)");
    log_warn_totals();
    uint64_t scalars = 0, rows = 0, bytes_out = 0;
    size_t files_out = 0, skipped = 0;
    for (size_t i = 0; i < p->ntasks; i++) {
        tb_result *r = &t.res[i];
        if (rc == 0 && r->tmp) {
            remove_old_events(r->dir);
            if (out_tmp_commit(r->tmp, r->final) != 0)
                rc = -1;
            else
                out_run_add(outputs, r->final);
            r->tmp = NULL;
            files_out++;
        }
        out_tmp_discard(r->tmp);
        scalars += r->scalars;
        rows += r->rows;
        bytes_out += r->bytes_out;
        skipped += r->skipped;
        free(r->dir);
        free(r->final);
    }
    free(t.res);
    if (rc != 0)
        return -1;
    char in_text[32], out_text[32];
    conv_size_text(p->bytes, in_text, sizeof in_text);
    conv_size_text(bytes_out, out_text, sizeof out_text);
    if (!o->quiet)
        printf("%zu rank%s, %zu csv files (%s, %llu rows%s) -> %zu event files, %llu scalars (%s) in %s\n",
               p->runs.n, p->runs.n == 1 ? "" : "s", p->nfiles, in_text, (unsigned long long)rows,
               skipped ? ", malformed ones skipped" : "", files_out, (unsigned long long)scalars, out_text, out);
    return 0;
}
