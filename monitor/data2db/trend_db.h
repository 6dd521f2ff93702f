/* The trend database of the newest msprobe's data2db (what its TensorBoard
 * trend plugin reads; spec/data2db.md §8-§10): monitoring_targets,
 * monitoring_metrics, monitoring_tags, tag_target_mapping, trend_data and
 * a one-row global_stats, written through libsqlite3 into a temporary
 * file that trend_finish() puts in place.
 *
 * Targets are cached per metric and inserted at each flush, metric by
 * metric, with INSERT OR IGNORE on an AUTOINCREMENT key, as msprobe does,
 * so ids come out as msprobe's (an ignored insert still uses up an id).
 * Rows wait in a buffer until the flush, which resolves their target ids;
 * duplicate rows keep the first. Errors are recorded, naming the file. */
#ifndef MSP_MONITOR_TREND_DB_H
#define MSP_MONITOR_TREND_DB_H

#include "base/arena.h"
#include "base/outdir.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "format/sqlite_write.h"

#include <stddef.h>
#include <stdint.h>

enum { TREND_MAX_STATS = 16, TREND_MAX_METRICS = 16 };

typedef struct {
    const char *name;            /* in the writer's arena */
    size_t name_len;
    long long vpp, micro;
    long long id;                /* 0 until flushed */
} trend_target;

typedef struct {
    size_t *v;                   /* indices into the writer's targets */
    size_t n, cap;
} trend_index_list;

typedef struct {
    int id;                      /* metric_id */
    strmap known;                /* target key -> index into targets */
    trend_index_list order;      /* first-seen order */
    trend_index_list pending;    /* not inserted yet */
    int seen;                    /* order in which metrics first got a target (1-based; 0 none) */
} trend_metric;

typedef struct {
    uint64_t rank;
    int64_t step;
    size_t target;
    int metric;                  /* index into metrics */
    double value[TREND_MAX_STATS];
} trend_row;

typedef struct {
    sqlw db;
    char *tmp, *final;           /* the file written, the name it gets */
    int nstats;
    trend_metric metric[TREND_MAX_METRICS];
    int nmetrics, nseen;
    trend_target *targets;
    size_t ntargets, targets_cap;
    strmap ids;                  /* target key -> index, across metrics: whose id an ignored insert takes */
    arena a;
    strbuf key;
    trend_row *rows;
    size_t nrows, rows_cap;
    uint64_t rows_written;
    sqlite3_stmt *ins_target, *ins_tag, *get_tag, *ins_map;
    sqlw_batch data;
} trend_db;

/* Start the database that will replace `final` (in a temporary file
 * beside it) and create the tables (trend_data with the stat columns
 * given, in order); no metrics yet. trend_finish() follows, whatever the
 * result. */
int trend_open(trend_db *t, const char *final, const char *const *stats, int nstats);
/* Insert a metric (INSERT OR IGNORE INTO monitoring_metrics) and make it
 * the next metric index (returned, or -1). */
int trend_add_metric(trend_db *t, const char *name);
/* The metric index's target (name, vpp, micro): cached, marked for the next
 * flush when new to this metric. Returns its index into t->targets. */
size_t trend_target_of(trend_db *t, int metric, const char *name, size_t n, long long vpp, long long micro);
/* A row to insert at the next flush; its values NaN for NULL. */
trend_row *trend_add_row(trend_db *t);
/* Insert the pending targets (metrics in id order) and the buffered rows. */
int trend_flush(trend_db *t);
/* For each metric that got targets, in the order it got its first, the
 * tags of its targets (tag_fn gives a target name's (tag, category)
 * pairs), then one mapping row per target and tag. */
/* tags_fn appends "tag\x1fcategory\x1e" per tag of a name */
typedef void (*trend_tags_fn)(const char *name, size_t n, strbuf *out);
int trend_write_tags(trend_db *t, trend_tags_fn tags);
/* global_stats: CREATE TABLE with `columns` ("max_rank INTEGER DEFAULT 0,
 * ...") and one row of `values` (SQL literals). */
int trend_global_stats(trend_db *t, const char *columns, const char *values);
/* Close the database and free t; when rc is 0, put the file in place
 * under its final name (out_run_replace(): a warning when it replaces one,
 * remembered by outputs), otherwise remove it. Returns 0, or -1 when rc was
 * not 0 or the database could not be finished (error recorded). */
int trend_finish(trend_db *t, int rc, out_run *outputs);

#endif
