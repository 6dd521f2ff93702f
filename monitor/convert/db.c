/* monitor2db: a monitor tree into one SQLite database,
 * {out}/monitor_metrics.db, with the schema of msprobe 8.3.3's csv2db
 * (spec/analyzers.md §E.7): dimension tables (targets, metrics, the stats
 * of each metric), global_stats, and for every metric one table per step
 * partition, metric_{id}_step_{s}_{e}, holding (rank, step, target_id,
 * stats...) rows.
 *
 * Like msprobe: partition tables cover the steps the file names span
 * (every metric, the whole range, empty ones too); a metric's columns are
 * the ops its files have, in msprobe's order; a missing value (nan) is
 * NULL; global_stats rows with value 0 keep their initial 0. Unlike it, the
 * data are read once: the headers first (the columns of each metric), then
 * the rows, on all threads, handed in a fixed order to the one thread that
 * writes the database, so ids are the same run after run (msprobe's depend
 * on Python's set order and on the file system's listing). */
#include "monitor/convert/convert_run.h"
#include "monitor/convert/db_tables.h"
#include "base/err.h"
#include "base/files.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/progress.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "format/sqlite_write.h"

#include <sqlite3.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* msprobe's MonitorConst.OP_MONVIS_SUPPORTED: the stats a table may hold, in
 * this column order */
static const char *const DB_OPS[] = {"norm", "min", "max", "zeros", "nans", "mean", "entropy", "softmax_max",
                                     "sr", "kernel_norm", "std_x", "jacobian", "proxy", "token_similarity"};
enum { NDB_OPS = sizeof DB_OPS / sizeof DB_OPS[0] };

/* csv2db's own tables, after the ones it shares with the trend database */
static const char CSV2DB_TABLES[] =
    "CREATE TABLE IF NOT EXISTS metric_stats (\n"
    "    metric_id INTEGER NOT NULL,\n"
    "    stat_name TEXT NOT NULL,\n"
    "    PRIMARY KEY (metric_id, stat_name),\n"
    "    FOREIGN KEY (metric_id) REFERENCES monitoring_metrics(metric_id)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE IF NOT EXISTS global_stats (\n"
    "    stat_name TEXT PRIMARY KEY,\n"
    "    stat_value INTEGER NOT NULL\n"
    ") WITHOUT ROWID;\n";

/* Rows per transaction. */
enum { TX_ROWS = 1 << 21, CACHED_TABLES = 16 };
/* A file of more rows than this is not prepared on its reading thread (a
 * table row as SQLite reads it is 16 bytes a column, twice what the rows
 * themselves take, and a slot keeps its buffer): the writing thread fills
 * the insert batches from the rows itself, so memory follows the csv, not
 * twice and a half of it. */
enum { PREPARE_MAX_ROWS = 1 << 16 };

typedef struct {
    long long part;      /* partition number: step / P */
    int type;
    sqlw_batch batch;
    unsigned long long used;
} table_slot;

typedef struct {
    const conv_plan *p;
    int P;
    sqlw db;
    int metric_id[MT_COUNT];            /* 0: the metric has no files */
    int stats[MT_COUNT][NDB_OPS];       /* the metric's columns */
    int nstats[MT_COUNT];
    strmap targets;                     /* key bytes -> target id */
    arena keys;
    strbuf key;
    sqlite3_stmt *insert_target;
    long long next_target;
    size_t *series_target;              /* of the file being written */
    size_t series_cap;
    table_slot cache[CACHED_TABLES];
    unsigned long long tick;
    uint64_t rows, tx_rows, bytes;
    size_t skipped;
    progress_job *pj;
} db_run;

/* ---- the header pass ------------------------------------------------------ */

static int read_headers(const conv_opts *o, const conv_plan *p, db_run *d, unsigned char *skip)
{
    mcsv_reader r = {DB_OPS, NDB_OPS, NULL, NULL, NULL, NULL};
    size_t k = 0;
    for (size_t t = 0; t < p->ntasks; t++)
        for (size_t f = 0; f < p->tasks[t].nfiles; f++, k++) {
            const monitor_file *mf = &p->tasks[t].files[f];
            mapped_file m;
            if (file_map(mf->path, 0, &m) != 0)
                return -1;
            mcsv_header h;
            file_guard g;
            file_guard_begin(&g, &m);
            int rc = mcsv_read_header(mf->path, m.data ? (const void *)m.data : "", m.size, &r, &h);
            if (file_guard_end(&g) != 0)
                rc = -1;
            file_unmap(&m);
            if (rc != 0) {
                if (!o->skip_bad || err_cause() != ERR_MALFORMED)
                    return -1;
                log_warn_as("malformed csv files skipped", "%s (skipped)", err_message());
                err_clear();
                skip[k] = 1;
                continue;
            }
            int type = p->tasks[t].type;
            for (int i = 0; i < NDB_OPS; i++)
                d->stats[type][i] |= h.present[i];
        }
    return 0;
}

/* ---- schema --------------------------------------------------------------- */

static void table_name(char *buf, size_t cap, int metric_id, long long part, int P)
{
    snprintf(buf, cap, "metric_%d_step_%lld_%lld", metric_id, part * P, part * P + P - 1);
}

static int create_schema(db_run *d, long long min_step, long long max_step, long max_rank)
{
    sqlw *w = &d->db;
    if (sqlw_exec(w, MONITOR_DB_TARGETS_AND_METRICS) != 0 || sqlw_exec(w, CSV2DB_TABLES) != 0 ||
        sqlw_execf(w, "INSERT OR IGNORE INTO global_stats (stat_name, stat_value) VALUES ('max_rank', 0), "
                      "('min_step', 0), ('max_step', 0), ('step_partition_size', %d)",
                   d->P) != 0)
        return -1;
    int id = 0;
    for (int t = 0; t < MT_COUNT; t++) {
        if (!d->metric_id[t])
            continue;
        d->metric_id[t] = ++id;
        if (sqlw_execf(w, "INSERT INTO monitoring_metrics (metric_id, metric_name) VALUES (%d, '%s')", id,
                       monitor_type_names[t]) != 0)
            return -1;
        for (int i = 0; i < NDB_OPS; i++)
            if (d->stats[t][i]) {
                d->stats[t][d->nstats[t]++] = i;
                if (sqlw_execf(w, "INSERT OR IGNORE INTO metric_stats (metric_id, stat_name) VALUES (%d, '%s')", id,
                               DB_OPS[i]) != 0)
                    return -1;
            }
    }
    /* every metric gets every partition of the steps the file names span */
    for (int t = 0; t < MT_COUNT; t++) {
        if (!d->metric_id[t])
            continue;
        const char *names[NDB_OPS];
        for (int i = 0; i < d->nstats[t]; i++)
            names[i] = DB_OPS[d->stats[t][i]];
        strbuf cols = STRBUF_INIT;
        monitor_db_stat_columns(&cols, names, d->nstats[t]);
        if (d->nstats[t])
            sb_adds(&cols, ", ");
        for (long long part = min_step / d->P; part <= max_step / d->P; part++) {
            char name[96];
            table_name(name, sizeof name, d->metric_id[t], part, d->P);
            int rc = sqlw_execf(w,
                                "CREATE TABLE IF NOT EXISTS %s (\n"
                                "    rank INTEGER NOT NULL,\n"
                                "    step INTEGER NOT NULL CHECK(step BETWEEN %lld AND %lld),\n"
                                "    target_id INTEGER NOT NULL,\n"
                                "    %s\n"
                                "    PRIMARY KEY (rank, step, target_id),\n"
                                "    FOREIGN KEY (target_id) REFERENCES monitoring_targets(target_id)\n"
                                ") WITHOUT ROWID",
                                name, part * d->P, part * d->P + d->P - 1, sb_str(&cols));
            if (rc != 0) {
                sb_free(&cols);
                return -1;
            }
        }
        sb_free(&cols);
    }
    /* msprobe updates a global stat only when its value is truthy */
    const struct {
        const char *name;
        long long v;
    } g[] = {{"max_rank", max_rank}, {"min_step", min_step}, {"max_step", max_step}};
    for (int i = 0; i < 3; i++)
        if (g[i].v && sqlw_execf(w, "UPDATE global_stats SET stat_value = %lld WHERE stat_name = '%s'", g[i].v,
                                 g[i].name) != 0)
            return -1;
    return sqlw_prepare(w,
                        "INSERT INTO monitoring_targets (target_id, target_name, vpp_stage, micro_step) "
                        "VALUES (?, ?, ?, ?)",
                        &d->insert_target);
}

/* ---- rows ----------------------------------------------------------------- */

static long long target_of(db_run *d, const mcsv_series *s)
{
    sb_reset(&d->key);
    sb_add(&d->key, &s->vpp, sizeof s->vpp);
    sb_add(&d->key, &s->micro, sizeof s->micro);
    sb_add(&d->key, s->name, s->name_len);
    size_t *v = strmap_get(&d->targets, d->key.buf, d->key.len);
    if (v)
        return (long long)*v;
    long long id = ++d->next_target;
    sqlite3_stmt *st = d->insert_target;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, s->name, (int)s->name_len, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, s->vpp);
    sqlite3_bind_int64(st, 4, s->micro);
    if (sqlw_step(&d->db, st) != 0)
        return -1;
    char *k = arena_alloc(&d->keys, d->key.len);
    memcpy(k, d->key.buf, d->key.len);
    int added;
    strmap_put(&d->targets, k, d->key.len, (size_t)id, &added);
    return id;
}

/* The insert batch of a partition table: a few stay prepared (a file's
 * rows meet one or two), the least recently used one is flushed and
 * replaced. */
static sqlw_batch *table_batch(db_run *d, int type, long long part)
{
    table_slot *lru = &d->cache[0];
    for (int i = 0; i < CACHED_TABLES; i++) {
        table_slot *s = &d->cache[i];
        if (s->batch.insert && s->type == type && s->part == part) {
            s->used = ++d->tick;
            return &s->batch;
        }
        if (!s->batch.insert || s->used < lru->used)
            lru = s;
    }
    if (lru->batch.insert) {
        if (sqlw_batch_flush(&lru->batch) != 0)
            return NULL;
        sqlw_batch_free(&lru->batch);
    }
    char name[96], head[128];
    table_name(name, sizeof name, d->metric_id[type], part, d->P);
    snprintf(head, sizeof head, "INSERT OR IGNORE INTO %s", name);
    if (sqlw_batch_init(&lru->batch, &d->db, head, 3 + d->nstats[type]) != 0)
        return NULL;
    lru->type = type;
    lru->part = part;
    lru->used = ++d->tick;
    return &lru->batch;
}

/* On a reading thread: the file's rows as the metric's table rows
 * (rank, step, series for now, stats in the table's order; NaN is NULL),
 * so that the writing thread only puts in the target ids. */
static int prepare(void *ctx, const conv_task *t, const conv_rows *rows, conv_buffer *out)
{
    const db_run *d = ctx;
    int type = t->type, ncols = 3 + d->nstats[type], col[NDB_OPS];
    for (int i = 0; i < d->nstats[type]; i++) {
        col[i] = -1;
        for (size_t k = 0; k < rows->h.nfile_ops; k++)
            if ((int)rows->h.file_ops[k] == d->stats[type][i])
                col[i] = (int)k;
    }
    size_t nv = rows->h.nfile_ops, bytes = rows->nrows * (size_t)ncols * sizeof(sqlw_value);
    if (rows->nrows > PREPARE_MAX_ROWS) {
        out->len = 0;   /* consume fills the batches from the rows */
        return 0;
    }
    sqlw_value *v = conv_buffer_room(out, bytes);
    memset(v, 0, bytes);
    for (size_t r = 0; r < rows->nrows; r++, v += ncols) {
        sqlw_set_int(&v[0], t->run->rank);
        sqlw_set_int(&v[1], rows->row_step[r]);
        sqlw_set_int(&v[2], (int64_t)rows->row_series[r]);
        const double *x = rows->values + r * nv;
        for (int i = 0; i < d->nstats[type]; i++)
            if (col[i] >= 0)
                sqlw_set_double(&v[3 + i], x[col[i]]);
    }
    out->len = bytes;
    return 0;
}

/* One transaction per batch of rows. */
static int count_rows(db_run *d, size_t n)
{
    d->rows += n;
    d->tx_rows += n;
    if (d->tx_rows >= TX_ROWS) {
        d->tx_rows = 0;
        return sqlw_commit_begin(&d->db);
    }
    return 0;
}

/* A file too big to be prepared: its rows into the batches one by one. */
static int consume_rows(db_run *d, const conv_task *t, const conv_rows *rows)
{
    int type = t->type, col[NDB_OPS];
    for (int i = 0; i < d->nstats[type]; i++) {
        col[i] = -1;
        for (size_t k = 0; k < rows->h.nfile_ops; k++)
            if ((int)rows->h.file_ops[k] == d->stats[type][i])
                col[i] = (int)k;
    }
    size_t nv = rows->h.nfile_ops;
    sqlw_batch *batch = NULL;
    long long part = 0;
    for (size_t r = 0; r < rows->nrows; r++) {
        long long p = rows->row_step[r] / d->P;
        if (!batch || p != part) {
            part = p;
            if (!(batch = table_batch(d, type, part)))
                return -1;
        }
        sqlw_value *v = sqlw_batch_row(batch);
        sqlw_set_int(&v[0], t->run->rank);
        sqlw_set_int(&v[1], rows->row_step[r]);
        sqlw_set_int(&v[2], (int64_t)d->series_target[rows->row_series[r]]);
        const double *x = rows->values + r * nv;
        for (int i = 0; i < d->nstats[type]; i++)
            if (col[i] >= 0)
                sqlw_set_double(&v[3 + i], x[col[i]]);
        if (sqlw_batch_end_row(batch) != 0)
            return -1;
    }
    return count_rows(d, rows->nrows);
}

static int consume(void *ctx, const conv_task *t, const conv_rows *rows, conv_buffer *in, int skipped,
                   uint64_t bytes)
{
    db_run *d = ctx;
    d->bytes += bytes;
    progress_add(d->pj, bytes);
    if (skipped) {
        d->skipped++;
        return 0;
    }
    if (rows->nseries > d->series_cap) {
        d->series_cap = rows->nseries * 2;
        d->series_target = xrealloc(d->series_target, d->series_cap * sizeof *d->series_target);
    }
    for (size_t s = 0; s < rows->nseries; s++) {
        long long id = target_of(d, &rows->series[s]);
        if (id < 0)
            return -1;
        d->series_target[s] = (size_t)id;
    }
    int type = t->type, ncols = 3 + d->nstats[type];
    size_t n = rows->nrows;
    if (n && !in->len)
        return consume_rows(d, t, rows);
    sqlw_value *v = in->data;
    for (size_t r = 0; r < n; r++)
        v[r * (size_t)ncols + 2].u.i = (int64_t)d->series_target[v[r * (size_t)ncols + 2].u.i];
    /* the rows of one partition go in one piece */
    for (size_t a = 0; a < n;) {
        long long part = v[a * (size_t)ncols + 1].u.i / d->P;
        size_t b = a + 1;
        while (b < n && v[b * (size_t)ncols + 1].u.i / d->P == part)
            b++;
        sqlw_batch *batch = table_batch(d, type, part);
        if (!batch || sqlw_batch_insert(batch, v + a * (size_t)ncols, b - a) != 0)
            return -1;
        a = b;
    }
    return count_rows(d, n);
}

static int flush_tables(db_run *d)
{
    int rc = 0;
    for (int i = 0; i < CACHED_TABLES; i++)
        if (d->cache[i].batch.insert) {
            if (rc == 0 && sqlw_batch_flush(&d->cache[i].batch) != 0)
                rc = -1;
            sqlw_batch_free(&d->cache[i].batch);
        }
    return rc;
}

int conv_db(const conv_opts *o, const conv_plan *p, const char *out, int step_partition, out_run *outputs)
{
    db_run d;
    memset(&d, 0, sizeof d);
    d.p = p;
    d.P = step_partition;
    strmap_init(&d.targets, 1024);
    arena_init(&d.keys, 1 << 16);
    unsigned char *skip = xcalloc(p->nfiles ? p->nfiles : 1, 1);
    char *final = path_join(out, "monitor_metrics.db");
    char *tmp = NULL;
    int rc = read_headers(o, p, &d, skip);
    /* the global stats come from the names of the files read */
    long long min_step = -1, max_step = 0;
    long max_rank = 0;
    size_t k = 0;
    for (size_t t = 0; t < p->ntasks; t++)
        for (size_t f = 0; f < p->tasks[t].nfiles; f++, k++) {
            if (skip[k])
                continue;
            const monitor_file *mf = &p->tasks[t].files[f];
            d.metric_id[mf->type] = 1;
            if (min_step < 0 || mf->start < min_step)
                min_step = mf->start;
            if (mf->end > max_step)
                max_step = mf->end;
            if (p->tasks[t].run->rank > max_rank)
                max_rank = p->tasks[t].run->rank;
        }
    if (rc == 0 && min_step < 0)
        rc = err_input(o->monitor_dir, "no csv file could be read (all were malformed)");
    if (rc == 0 && out_run_mkdir(outputs, out) != 0)
        rc = -1;
    if (rc == 0 && !(tmp = out_tmp_create(final)))
        rc = -1;
    /* every row goes to the partition its step belongs to, so the tables'
     * CHECK (step BETWEEN ...) holds by construction: SQLite need not
     * evaluate it row by row (the schema keeps it) */
    if (rc == 0 && (sqlw_open(&d.db, tmp, final) != 0 || sqlw_exec(&d.db, "PRAGMA ignore_check_constraints=ON") != 0 ||
                    sqlw_begin(&d.db) != 0 ||
                    create_schema(&d, min_step, max_step, max_rank) != 0))
        rc = -1;
    if (rc == 0) {
        progress_run_begin(&(progress_opts){.jobs = 1, .profile = getenv("MSPROBE_PROFILE") != NULL});
        d.pj = progress_job_begin("monitor_metrics.db");
        progress_phase(d.pj, "import", p->bytes, PROGRESS_BYTES);
        progress_watch_file(d.pj, tmp);
        struct timespec w0, c0, w1, c1;
        clock_gettime(CLOCK_MONOTONIC, &w0);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
        rc = conv_read_ordered_prepared(o, p, DB_OPS, NDB_OPS, skip, prepare, consume, &d);
        clock_gettime(CLOCK_MONOTONIC, &w1);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
        /* MSPROBE_PROFILE: is the one writing thread the bottleneck? */
        if (getenv("MSPROBE_PROFILE"))
            log_note("import: %.3f s, the writing thread busy %.3f s of it", (double)(w1.tv_sec - w0.tv_sec) +
                     (w1.tv_nsec - w0.tv_nsec) / 1e9, (double)(c1.tv_sec - c0.tv_sec) + (c1.tv_nsec - c0.tv_nsec) / 1e9);
        if (rc == 0 && d.skipped == p->nfiles)
            rc = err_input(o->monitor_dir, "no csv file could be read (all were malformed)");
        if (flush_tables(&d) != 0)
            rc = -1;
        progress_job_end(d.pj);
        progress_run_end();
        log_warn_totals();
    }
    if (d.insert_target)
        sqlite3_finalize(d.insert_target);
    flush_tables(&d);
    if (sqlw_close(&d.db) != 0)
        rc = -1;
    if (rc == 0)
        rc = out_run_replace(outputs, tmp, final, "database");
    else
        out_tmp_discard(tmp);
    if (rc == 0 && !o->quiet) {
        char in_text[32];
        conv_size_text(d.bytes, in_text, sizeof in_text);
        int metrics = 0;
        for (int t = 0; t < MT_COUNT; t++)
            metrics += d.metric_id[t] != 0;
        printf("%zu rank%s, %zu csv files (%s%s) -> %llu rows, %d metrics, %lld targets, partitions of %d steps "
               "in %s\n",
               p->runs.n, p->runs.n == 1 ? "" : "s", p->nfiles, in_text, d.skipped ? ", malformed ones skipped" : "",
               (unsigned long long)d.rows, metrics, d.next_target, d.P, final);
    }
    free(d.series_target);
    sb_free(&d.key);
    strmap_free(&d.targets);
    arena_free(&d.keys);
    free(skip);
    free(final);
    return rc;
}
