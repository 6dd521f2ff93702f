/* Writing the result table: rows are rendered (render.c) and handed to the
 * table writer. csv rows are formatted on all threads, a batch at a time,
 * and written in order; for xlsx one thread renders the next chunk of rows
 * while libxlsxwriter writes the current one, so our work hides behind
 * libxlsxwriter's. */
#include "compare/pipeline/compare.h"
#include "base/mem.h"
#include "base/pool.h"
#include "base/strbuf.h"
#include "model/table.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define ROW_CHUNK 1024

/* A chunk of rendered rows: cells point into `text` (and into the dumps). */
typedef struct {
    size_t from, to;
    cell *cells;             /* ROW_CHUNK * ncols */
    row_text *text;          /* ROW_CHUNK */
    row_counts counts;
    strbuf csv;
} chunk;

static void chunk_init(chunk *k, int ncols)
{
    memset(k, 0, sizeof *k);
    k->cells = xmalloc_array((size_t)ROW_CHUNK * (size_t)ncols, sizeof *k->cells);
    k->text = xcalloc(ROW_CHUNK, sizeof *k->text);
}

static void chunk_free(chunk *k)
{
    for (size_t i = 0; i < ROW_CHUNK; i++) {
        sb_free(&k->text[i].err);
        sb_free(&k->text[i].data_name);
    }
    free(k->text);
    free(k->cells);
    sb_free(&k->csv);
}

static void chunk_render(const compare_ctx *c, chunk *k, size_t from, int ncols)
{
    k->from = from;
    k->to = from + ROW_CHUNK < c->npairs ? from + ROW_CHUNK : c->npairs;
    memset(&k->counts, 0, sizeof k->counts);
    k->counts.first_failing = (size_t)-1;
    size_t cursor = msgs_from(c, from);
    for (size_t i = k->from; i < k->to; i++)
        render_row(c, i, k->cells + (i - k->from) * (size_t)ncols, &k->text[i - k->from], &cursor, &k->counts);
}

/* ---- csv: format on all threads ---------------------------------------- */

/* A contiguous range of rows formatted by one thread into its own text. */
typedef struct {
    const compare_ctx *c;
    int ncols;
    size_t from, to;
    strbuf text;
    row_counts counts;
} csv_part;

static void csv_format(void *arg, size_t k)
{
    csv_part *part = (csv_part *)arg + k;
    const compare_ctx *c = part->c;
    cell cells[32];
    row_text t = {.err = STRBUF_INIT, .data_name = STRBUF_INIT};
    size_t cursor = msgs_from(c, part->from);
    memset(&part->counts, 0, sizeof part->counts);
    part->counts.first_failing = (size_t)-1;
    sb_reset(&part->text);
    for (size_t i = part->from; i < part->to; i++) {
        render_row(c, i, cells, &t, &cursor, &part->counts);
        csv_append_row(&part->text, cells, part->ncols);
    }
    sb_free(&t.err);
    sb_free(&t.data_name);
}

/* Rows go out in batches: each thread formats one slice of the batch, the
 * slices are written in order; memory stays bounded by two batches of text.
 * The calling thread writes batch k (the kernel's copy into the page cache
 * is as long as the formatting) while a formatting thread, with the pool
 * under it, formats batch k + 1. */
#define CSV_ROWS_PER_THREAD 16384

typedef struct {
    csv_part *parts;         /* threads per slot */
    int used;
    size_t rows;             /* 0: the end */
} csv_batch;

typedef struct {
    const compare_ctx *c;
    int ncols, threads;
    csv_batch slot[2];
    int ready[2];            /* formatted, not yet written */
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} csv_pipe;

static void csv_fill(csv_pipe *p, csv_batch *b, size_t first)
{
    const compare_ctx *c = p->c;
    size_t batch = (size_t)p->threads * CSV_ROWS_PER_THREAD;
    size_t rows = first < c->npairs ? (c->npairs - first < batch ? c->npairs - first : batch) : 0;
    size_t per = (rows + (size_t)p->threads - 1) / (size_t)p->threads;
    b->rows = rows;
    b->used = 0;
    for (int k = 0; k < p->threads && (size_t)k * per < rows; k++, b->used++) {
        b->parts[k].c = c;
        b->parts[k].ncols = p->ncols;
        b->parts[k].from = first + (size_t)k * per;
        b->parts[k].to = b->parts[k].from + per < first + rows ? b->parts[k].from + per : first + rows;
    }
    if (rows)
        pool_for((size_t)b->used, p->threads, csv_format, b->parts);
}

static void *csv_format_ahead(void *arg)
{
    csv_pipe *p = arg;
    size_t batch = (size_t)p->threads * CSV_ROWS_PER_THREAD;
    for (size_t n = 0, first = 0;; n++, first += batch) {
        int s = (int)(n & 1);
        pthread_mutex_lock(&p->mu);
        while (p->ready[s] && !p->stop)
            pthread_cond_wait(&p->cv, &p->mu);
        int stop = p->stop;
        pthread_mutex_unlock(&p->mu);
        if (stop)
            break;
        csv_fill(p, &p->slot[s], first);
        pthread_mutex_lock(&p->mu);
        p->ready[s] = 1;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        if (!p->slot[s].rows)
            break;
    }
    return NULL;
}

static int csv_put(const compare_ctx *c, table_writer *t, const csv_batch *b, row_counts *total)
{
    int rc = 0;
    for (int k = 0; k < b->used && rc == 0; k++) {
        rc = table_append_csv(t, b->parts[k].text.buf, b->parts[k].text.len);
        add_counts(total, &b->parts[k].counts);
        progress_add(c->progress, b->parts[k].to - b->parts[k].from);
    }
    return rc;
}

static int write_csv(const compare_ctx *c, table_writer *t, int ncols, int threads, row_counts *total)
{
    csv_pipe p = {.c = c, .ncols = ncols, .threads = threads};
    for (int s = 0; s < 2; s++)
        p.slot[s].parts = xcalloc((size_t)threads, sizeof *p.slot[s].parts);
    size_t batch = (size_t)threads * CSV_ROWS_PER_THREAD;
    int rc = 0;
    pthread_t tid;
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);
    if (c->npairs <= batch || pthread_create(&tid, NULL, csv_format_ahead, &p) != 0) {
        /* one batch (nothing to overlap), or no thread to be had */
        for (size_t first = 0; first < c->npairs && rc == 0; first += batch) {
            csv_fill(&p, &p.slot[0], first);
            rc = csv_put(c, t, &p.slot[0], total);
        }
    } else {
        for (size_t n = 0;; n++) {
            int s = (int)(n & 1);
            pthread_mutex_lock(&p.mu);
            while (!p.ready[s])
                pthread_cond_wait(&p.cv, &p.mu);
            pthread_mutex_unlock(&p.mu);
            if (!p.slot[s].rows)
                break;
            rc = csv_put(c, t, &p.slot[s], total);
            pthread_mutex_lock(&p.mu);
            p.ready[s] = 0;
            p.stop = rc != 0;
            pthread_cond_broadcast(&p.cv);
            pthread_mutex_unlock(&p.mu);
            if (rc)
                break;
        }
        pthread_join(tid, NULL);
    }
    pthread_cond_destroy(&p.cv);
    pthread_mutex_destroy(&p.mu);
    for (int s = 0; s < 2; s++) {
        for (int k = 0; k < threads; k++)
            sb_free(&p.slot[s].parts[k].text);
        free(p.slot[s].parts);
    }
    return rc;
}

/* ---- xlsx: render one chunk ahead of libxlsxwriter ---------------------- */

typedef struct {
    const compare_ctx *c;
    int ncols;
    chunk slot[2];
    int ready[2];            /* rendered, not yet written */
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} pipeline;

static void *render_ahead(void *arg)
{
    pipeline *p = arg;
    size_t n = 0;
    for (size_t from = 0; from < p->c->npairs; from += ROW_CHUNK, n++) {
        int s = (int)(n & 1);
        pthread_mutex_lock(&p->mu);
        while (p->ready[s] && !p->stop)
            pthread_cond_wait(&p->cv, &p->mu);
        int stop = p->stop;
        pthread_mutex_unlock(&p->mu);
        if (stop)
            break;
        chunk_render(p->c, &p->slot[s], from, p->ncols);
        pthread_mutex_lock(&p->mu);
        p->ready[s] = 1;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
    return NULL;
}

static int write_chunk_rows(const compare_ctx *c, table_writer *t, const chunk *k, int ncols)
{
    for (size_t i = k->from; i < k->to; i++)
        if (table_row(t, k->cells + (i - k->from) * (size_t)ncols, c->fill[i]) != 0)
            return -1;
    progress_add(c->progress, k->to - k->from);
    return 0;
}

static int write_xlsx(const compare_ctx *c, table_writer *t, int ncols, int threads, row_counts *total)
{
    pipeline p = {.c = c, .ncols = ncols};
    chunk_init(&p.slot[0], ncols);
    chunk_init(&p.slot[1], ncols);
    int rc = 0;
    pthread_t tid;
    /* the lock and condition exist before the thread that waits on them */
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);
    if (threads < 2 || pthread_create(&tid, NULL, render_ahead, &p) != 0) {
        for (size_t from = 0; from < c->npairs && rc == 0; from += ROW_CHUNK) {
            chunk_render(c, &p.slot[0], from, ncols);
            rc = write_chunk_rows(c, t, &p.slot[0], ncols);
            add_counts(total, &p.slot[0].counts);
        }
    } else {
        size_t n = 0;
        for (size_t from = 0; from < c->npairs && rc == 0; from += ROW_CHUNK, n++) {
            int s = (int)(n & 1);
            pthread_mutex_lock(&p.mu);
            while (!p.ready[s])
                pthread_cond_wait(&p.cv, &p.mu);
            pthread_mutex_unlock(&p.mu);
            rc = write_chunk_rows(c, t, &p.slot[s], ncols);
            add_counts(total, &p.slot[s].counts);
            pthread_mutex_lock(&p.mu);
            p.ready[s] = 0;
            p.stop = rc != 0;
            pthread_cond_broadcast(&p.cv);
            pthread_mutex_unlock(&p.mu);
        }
        pthread_join(tid, NULL);
    }
    pthread_cond_destroy(&p.cv);
    pthread_mutex_destroy(&p.mu);
    chunk_free(&p.slot[0]);
    chunk_free(&p.slot[1]);
    return rc;
}

int write_result(compare_ctx *c, char **path, compare_result *res)
{
    const char *const *header;
    int ncols = result_header(c, &header);
    table_writer *t = table_open(*path, c->opts->format, header, ncols);
    if (!t)
        return -1;
    render_stacks(c);
    progress_phase(c->progress, "write", c->npairs, PROGRESS_ITEMS);
    row_counts total = {.first_failing = (size_t)-1};
    int threads = c->opts->threads > 0 ? c->opts->threads : 1;
    int rc = c->opts->format == TABLE_CSV ? write_csv(c, t, ncols, threads, &total)
                                          : write_xlsx(c, t, ncols, threads, &total);
    res->rows = total.rows;
    res->matched = total.matched;
    res->unmatched = total.unmatched;
    res->warning = total.warning;
    res->different = total.different;
    res->accuracy_no = total.accuracy_no;
    res->red = total.red;
    res->yellow = total.yellow;
    res->first_failing = total.first_failing;
    if (rc != 0) {
        table_abort(t);
        return -1;
    }
    /* libxlsxwriter zips the sheet only now: seconds for a big table */
    if (c->opts->format == TABLE_XLSX) {
        progress_phase(c->progress, "compress", 0, PROGRESS_BYTES);
        progress_watch_file(c->progress, table_partial_path(t));
    }
    return table_close_new(t, path) < 0 ? -1 : 0;
}
