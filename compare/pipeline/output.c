/* Writing the result table: rows are rendered (render.c) and handed to the
 * table writer. csv rows are formatted on all threads, a batch at a time,
 * and written in order; for xlsx one thread renders the next chunk of rows
 * while libxlsxwriter writes the current one, so our work hides behind
 * libxlsxwriter's. */
#include "compare/pipeline/compare.h"
#include "compare/pipeline/dialect.h"
#include "base/outdir.h"
#include "base/mem.h"
#include "base/pool.h"
#include "base/strbuf.h"
#include "model/table.h"

#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ROW_CHUNK 1024

/* The newest msprobe's limits: rows of one csv file (FileCheckConst.
 * MAX_ROWS_PER_CSV_FILE) and of one sheet (CompareConst.MAX_EXCEL_LENGTH). */
#define NEWEST_CSV_ROWS 1000000
#define NEWEST_XLSX_ROWS 1048500

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
    size_t file_rows;                /* rows per csv file (the newest msprobe's split) */
    size_t file_parts;               /* parts per full file */
    csv_part slot[CSV_SLOTS];
    unsigned char ready[CSV_SLOTS];  /* part in the slot formatted, not written */
    size_t next;                     /* next part to hand out */
    size_t written;                  /* parts written */
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} csv_pipe;

/* Parts never straddle two files: part i is part i % file_parts of file
 * i / file_parts. */
static void csv_part_range(const csv_pipe *p, size_t i, csv_part *part)
{
    size_t file = i / p->file_parts, end = (file + 1) * p->file_rows;
    part->from = file * p->file_rows + (i % p->file_parts) * CSV_PART_ROWS;
    part->to = part->from + CSV_PART_ROWS;
    if (part->to > end)
        part->to = end;
    if (part->to > p->c->npairs)
        part->to = p->c->npairs;
}

static size_t csv_parts(size_t rows, size_t file_rows, size_t file_parts)
{
    size_t rest = rows % file_rows;
    return rows / file_rows * file_parts + (rest + CSV_PART_ROWS - 1) / CSV_PART_ROWS;
}

/* The files of one csv result: one, or (the newest msprobe, over a million
 * rows) NAME_part_1.csv, NAME_part_2.csv, ... each with the header. */
typedef struct {
    const char *base;            /* the result's name */
    const char *const *header;
    int ncols;
    size_t nfiles, file;         /* files in all, the one being written */
    table_writer *t;
    char *path;                  /* the one being written */
    char **done;                 /* committed, in order */
    size_t ndone;
} csv_files;

static char *part_name(const char *base, size_t k)
{
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, base);
    size_t n = sb.len, stem = n;
    while (stem > 0 && sb.buf[stem - 1] != '.' && sb.buf[stem - 1] != '/')
        stem--;
    stem = stem > 0 && sb.buf[stem - 1] == '.' ? stem - 1 : n;
    char *ext = xstrdup(sb.buf + stem);
    sb.len = stem;
    sb_addf(&sb, "_part_%zu%s", k + 1, ext);
    free(ext);
    return sb_detach(&sb);
}

static int csv_files_open(csv_files *f, size_t k)
{
    f->file = k;
    f->path = f->nfiles > 1 ? part_name(f->base, k) : xstrdup(f->base);
    f->t = table_open(f->path, TABLE_CSV, f->header, f->ncols);
    return f->t ? 0 : -1;
}

static int csv_files_close(csv_files *f)
{
    int rc = table_close_new(f->t, &f->path) < 0 ? -1 : 0;
    f->t = NULL;
    if (rc == 0) {
        f->done = xrealloc(f->done, (f->ndone + 1) * sizeof *f->done);
        f->done[f->ndone++] = f->path;
    } else {
        free(f->path);
    }
    f->path = NULL;
    return rc;
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

static int csv_put(const csv_pipe *p, csv_files *f, const csv_part *part, row_counts *total)
{
    add_counts(total, &part->counts);
    progress_add(p->c->progress, part->to - part->from);
    size_t file = part->from / p->file_rows;
    if (file != f->file && (csv_files_close(f) != 0 || csv_files_open(f, file) != 0))
        return -1;
    return table_append_csv(f->t, part->text.buf, part->text.len);
}

static int write_csv(const compare_ctx *c, csv_files *f, int ncols, int threads, row_counts *total)
{
    size_t file_rows = c->opts->dialect == DIALECT_NEWEST ? NEWEST_CSV_ROWS : (size_t)-1;
    size_t file_parts = (file_rows + CSV_PART_ROWS - 1) / CSV_PART_ROWS;
    if (file_rows == (size_t)-1)
        file_parts = (size_t)-1 / CSV_PART_ROWS;
    csv_pipe p = {.c = c,
                  .ncols = ncols,
                  .file_rows = file_rows,
                  .file_parts = file_parts,
                  .nparts = csv_parts(c->npairs, file_rows, file_parts)};
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
            rc = csv_put(&p, f, &p.slot[0], total);
        }
    } else {
        for (size_t i = 0; i < p.nparts && rc == 0; i++) {
            size_t s = i % CSV_SLOTS;
            pthread_mutex_lock(&p.mu);
            while (!p.ready[s])
                pthread_cond_wait(&p.cv, &p.mu);
            pthread_mutex_unlock(&p.mu);
            rc = csv_put(&p, f, &p.slot[s], total);
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

/* The newest msprobe writes a table of MAX_EXCEL_LENGTH rows or more as
 * sheets part_0, part_1, ... of equal size (save_excel). */
typedef struct {
    const char *const *header;
    size_t slice;                /* rows per sheet; 0: one sheet */
} xlsx_sheets;

static int write_chunk_rows(const compare_ctx *c, table_writer *t, const chunk *k, int ncols, const xlsx_sheets *sh)
{
    for (size_t i = k->from; i < k->to; i++) {
        if (sh->slice && i && i % sh->slice == 0) {
            char name[32];
            snprintf(name, sizeof name, "part_%zu", i / sh->slice);
            if (table_next_sheet(t, name, sh->header, ncols) != 0)
                return -1;
        }
        if (table_row(t, k->cells + (i - k->from) * (size_t)ncols, c->fill ? c->fill[i] : FILL_NONE) != 0)
            return -1;
    }
    progress_add(c->progress, k->to - k->from);
    return 0;
}

static int write_xlsx(const compare_ctx *c, table_writer *t, int ncols, int threads, row_counts *total,
                      const xlsx_sheets *sh)
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
            rc = write_chunk_rows(c, t, &p.slot[0], ncols, sh);
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
            rc = write_chunk_rows(c, t, &p.slot[s], ncols, sh);
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

static void set_counts(compare_result *res, const row_counts *total)
{
    res->rows = total->rows;
    res->matched = total->matched;
    res->unmatched = total->unmatched;
    res->warning = total->warning;
    res->different = total->different;
    res->accuracy_no = total->accuracy_no;
    res->error = total->error;
    res->red = total->red;
    res->yellow = total->yellow;
    res->first_failing = total->first_failing;
}

static int write_result_csv(compare_ctx *c, char **path, compare_result *res, const char *const *header)
{
    csv_files f = {.base = *path,
                   .header = header,
                   .ncols = c->ncols,
                   .nfiles = c->opts->dialect == DIALECT_NEWEST ? (c->npairs + NEWEST_CSV_ROWS - 1) / NEWEST_CSV_ROWS : 1};
    if (f.nfiles == 0)
        f.nfiles = 1;
    if (csv_files_open(&f, 0) != 0)
        return -1;
    render_stacks(c);
    progress_phase(c->progress, "write", c->npairs, PROGRESS_ITEMS);
    row_counts total = {.first_failing = (size_t)-1};
    int threads = c->opts->threads > 0 ? c->opts->threads : 1;
    int rc = write_csv(c, &f, c->ncols, threads, &total);
    set_counts(res, &total);
    if (rc == 0)
        rc = csv_files_close(&f);
    else
        table_abort(f.t), free(f.path);
    if (rc == 0) {
        /* the first file is the result; the rest are the run's outputs too */
        free(*path);
        *path = f.done[0];
        for (size_t k = 1; k < f.ndone; k++) {
            out_run_add(c->opts->outputs, f.done[k]);
            free(f.done[k]);
        }
    } else {
        for (size_t k = 0; k < f.ndone; k++) {
            unlink(f.done[k]);
            free(f.done[k]);
        }
    }
    free(f.done);
    return rc;
}

int write_result(compare_ctx *c, char **path, compare_result *res)
{
    const char *header[COLS_MAX];
    c->ncols = dialect_columns(c, c->cols, header);
    res->dialect = c->opts->dialect;
    if (c->opts->format == TABLE_CSV)
        return write_result_csv(c, path, res, header);
    int newest = c->opts->dialect == DIALECT_NEWEST;
    xlsx_sheets sh = {.header = header};
    if (newest && c->npairs >= NEWEST_XLSX_ROWS) {
        size_t slices = (c->npairs + NEWEST_XLSX_ROWS - 1) / NEWEST_XLSX_ROWS;
        sh.slice = (c->npairs + slices - 1) / slices;
    }
    /* pandas' to_excel(): sheet "Sheet1" (or part_0 ...), its header style */
    table_writer *t = newest ? table_open_opts(*path, TABLE_XLSX, sh.slice ? "part_0" : "Sheet1", header, c->ncols,
                                               TABLE_PANDAS_HEADER)
                             : table_open(*path, TABLE_XLSX, header, c->ncols);
    if (!t)
        return -1;
    render_stacks(c);
    progress_phase(c->progress, "write", c->npairs, PROGRESS_ITEMS);
    row_counts total = {.first_failing = (size_t)-1};
    int threads = c->opts->threads > 0 ? c->opts->threads : 1;
    int rc = write_xlsx(c, t, c->ncols, threads, &total, &sh);
    set_counts(res, &total);
    if (rc != 0) {
        table_abort(t);
        return -1;
    }
    return table_close_new(t, path) < 0 ? -1 : 0;
}
