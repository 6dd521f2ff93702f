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
    size_t from, to;
    strbuf text;
    row_counts counts;
} csv_part;

static void csv_format(const compare_ctx *c, int ncols, csv_part *part)
{
    cell cells[32];
    row_text t = {.err = STRBUF_INIT, .data_name = STRBUF_INIT};
    size_t cursor = msgs_from(c, part->from);
    memset(&part->counts, 0, sizeof part->counts);
    part->counts.first_failing = (size_t)-1;
    sb_reset(&part->text);
    for (size_t i = part->from; i < part->to; i++) {
        render_row(c, i, cells, &t, &cursor, &part->counts);
        csv_append_row(&part->text, cells, ncols);
    }
    sb_free(&t.err);
    sb_free(&t.data_name);
}

/* Rows are cut into parts of CSV_PART_ROWS; the formatting threads take the
 * next part as soon as they are free and the calling thread writes the parts
 * in order. Parts live in a ring of CSV_SLOTS, so memory stays bounded and
 * formatting runs up to CSV_SLOTS parts ahead of the writer. There is no
 * barrier between batches: while the writer is in the kernel copying text
 * into the page cache (as long as the formatting itself, and longer on
 * ext4), the formatters never wait for each other, only for a free slot. */
#define CSV_PART_ROWS 4096
#define CSV_SLOTS 16

typedef struct {
    const compare_ctx *c;
    int ncols;
    size_t nparts;
    csv_part slot[CSV_SLOTS];
    unsigned char ready[CSV_SLOTS];  /* part in the slot formatted, not written */
    size_t next;                     /* next part to hand out */
    size_t written;                  /* parts written */
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} csv_pipe;

static void csv_part_range(const csv_pipe *p, size_t i, csv_part *part)
{
    part->from = i * CSV_PART_ROWS;
    part->to = part->from + CSV_PART_ROWS < p->c->npairs ? part->from + CSV_PART_ROWS : p->c->npairs;
}

static void *csv_formatter(void *arg)
{
    csv_pipe *p = arg;
    pthread_mutex_lock(&p->mu);
    while (!p->stop && p->next < p->nparts) {
        size_t i = p->next;
        if (i >= p->written + CSV_SLOTS) {   /* the slot still holds part i - CSV_SLOTS */
            pthread_cond_wait(&p->cv, &p->mu);
            continue;
        }
        p->next++;
        pthread_mutex_unlock(&p->mu);
        csv_part *part = &p->slot[i % CSV_SLOTS];
        csv_part_range(p, i, part);
        csv_format(p->c, p->ncols, part);
        pthread_mutex_lock(&p->mu);
        p->ready[i % CSV_SLOTS] = 1;
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static int csv_put(const compare_ctx *c, table_writer *t, const csv_part *part, row_counts *total)
{
    add_counts(total, &part->counts);
    progress_add(c->progress, part->to - part->from);
    return table_append_csv(t, part->text.buf, part->text.len);
}

static int write_csv(const compare_ctx *c, table_writer *t, int ncols, int threads, row_counts *total)
{
    csv_pipe p = {.c = c, .ncols = ncols, .nparts = (c->npairs + CSV_PART_ROWS - 1) / CSV_PART_ROWS};
    int rc = 0;
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);
    pthread_t tids[64];
    int started = 0;
    if (p.nparts > 1)
        for (int k = 0; k < threads && k < 64; k++)
            if (pthread_create(&tids[started], NULL, csv_formatter, &p) == 0)
                started++;
    if (started == 0) {
        /* one part (nothing to overlap), or no thread to be had */
        for (size_t i = 0; i < p.nparts && rc == 0; i++) {
            csv_part_range(&p, i, &p.slot[0]);
            csv_format(c, ncols, &p.slot[0]);
            rc = csv_put(c, t, &p.slot[0], total);
        }
    } else {
        for (size_t i = 0; i < p.nparts && rc == 0; i++) {
            size_t s = i % CSV_SLOTS;
            pthread_mutex_lock(&p.mu);
            while (!p.ready[s])
                pthread_cond_wait(&p.cv, &p.mu);
            pthread_mutex_unlock(&p.mu);
            rc = csv_put(c, t, &p.slot[s], total);
            pthread_mutex_lock(&p.mu);
            p.ready[s] = 0;
            p.written++;
            p.stop = rc != 0;
            pthread_cond_broadcast(&p.cv);
            pthread_mutex_unlock(&p.mu);
        }
        for (int k = 0; k < started; k++)
            pthread_join(tids[k], NULL);
    }
    pthread_cond_destroy(&p.cv);
    pthread_mutex_destroy(&p.mu);
    for (int s = 0; s < CSV_SLOTS; s++)
        sb_free(&p.slot[s].text);
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
    /* libxlsxwriter zips the sheet only at the close: seconds for a big table */
    if (rc == 0) {
        progress_phase(c->progress, "compress", 0, PROGRESS_BYTES);
        progress_watch_file(c->progress, table_partial_path(t));
    }
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
    return table_close_new(t, path) < 0 ? -1 : 0;
}
