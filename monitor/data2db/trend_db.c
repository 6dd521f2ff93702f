/* Trend database writer (trend_db.h). */
#include "monitor/data2db/trend_db.h"
#include "monitor/convert/db_tables.h"
#include "base/err.h"
#include "base/files.h"
#include "base/mem.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The DDL of the newest msprobe (TrendSql) after the tables it shares with
 * csv2db, tag_target_mapping's reference to a table that does not exist
 * included (harmless: no foreign keys are enforced). */
static const char TREND_TABLES[] =
    "CREATE TABLE IF NOT EXISTS monitoring_tags (\n"
    "    tag_id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
    "    tag_name TEXT NOT NULL,\n"
    "    category TEXT NOT NULL,\n"
    "    metric_id INTEGER NOT NULL,\n"
    "    UNIQUE(tag_name, category, metric_id),\n"
    "    FOREIGN KEY (metric_id) REFERENCES monitoring_metrics(metric_id)\n"
    ");\n"
    "CREATE TABLE IF NOT EXISTS tag_target_mapping (\n"
    "    tag_id INTEGER NOT NULL,\n"
    "    target_id INTEGER NOT NULL,\n"
    "    PRIMARY KEY (tag_id, target_id),\n"
    "    FOREIGN KEY (tag_id) REFERENCES monitoring_tags(tag_id),\n"
    "    FOREIGN KEY (target_id) REFERENCES monitoring_target(target_id)\n"
    ");\n";

int trend_open(trend_db *t, const char *final, const char *const *stats, int nstats)
{
    memset(t, 0, sizeof *t);
    t->nstats = nstats;
    strmap_init(&t->ids, 1024);
    arena_init(&t->a, 1 << 16);
    t->final = xstrdup(final);
    if (!(t->tmp = out_tmp_create(final)) || sqlw_open(&t->db, t->tmp, t->final) != 0 || sqlw_begin(&t->db) != 0 ||
        sqlw_exec(&t->db, MONITOR_DB_TARGETS_AND_METRICS) != 0 || sqlw_exec(&t->db, TREND_TABLES) != 0)
        return -1;
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "CREATE TABLE IF NOT EXISTS trend_data (\n"
                 "    rank INTEGER NOT NULL,\n"
                 "    step INTEGER NOT NULL,\n"
                 "    target_id INTEGER NOT NULL,\n"
                 "    metric_id INTEGER NOT NULL,\n    ");
    monitor_db_stat_columns(&sb, stats, nstats);
    sb_adds(&sb, ",\n    PRIMARY KEY (rank, step, target_id, metric_id),\n"
                 "    FOREIGN KEY (target_id) REFERENCES monitoring_targets(target_id),\n"
                 "    FOREIGN KEY (metric_id) REFERENCES monitoring_metrics(metric_id)\n"
                 ") WITHOUT ROWID");
    int rc = sqlw_exec(&t->db, sb_str(&sb));
    sb_free(&sb);
    if (rc != 0 ||
        sqlw_prepare(&t->db,
                     "INSERT OR IGNORE INTO monitoring_targets (target_name, vpp_stage, micro_step) VALUES (?, ?, ?)",
                     &t->ins_target) != 0 ||
        sqlw_prepare(&t->db, "INSERT OR IGNORE INTO monitoring_tags (tag_name, category, metric_id) VALUES (?, ?, ?)",
                     &t->ins_tag) != 0 ||
        sqlw_prepare(&t->db, "SELECT tag_id FROM monitoring_tags WHERE tag_name = ? AND category = ? AND metric_id = ?",
                     &t->get_tag) != 0 ||
        sqlw_prepare(&t->db, "INSERT OR IGNORE INTO tag_target_mapping (target_id, tag_id) VALUES (?, ?)",
                     &t->ins_map) != 0 ||
        sqlw_batch_init(&t->data, &t->db, "INSERT OR IGNORE INTO trend_data", 4 + nstats) != 0)
        return -1;
    return 0;
}

int trend_add_metric(trend_db *t, const char *name)
{
    if (t->nmetrics == TREND_MAX_METRICS)
        return err_internal(t->db.name, "too many metrics");
    sqlite3_stmt *st;
    if (sqlw_prepare(&t->db, "INSERT OR IGNORE INTO monitoring_metrics (metric_name) VALUES (?)", &st) != 0)
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int rc = sqlw_step(&t->db, st);
    sqlite3_finalize(st);
    if (rc != 0)
        return -1;
    trend_metric *m = &t->metric[t->nmetrics];
    memset(m, 0, sizeof *m);
    m->id = (int)sqlite3_last_insert_rowid(t->db.db);
    strmap_init(&m->known, 256);
    return t->nmetrics++;
}

static void key_of(trend_db *t, const char *name, size_t n, long long vpp, long long micro)
{
    sb_reset(&t->key);
    sb_add(&t->key, &vpp, sizeof vpp);
    sb_add(&t->key, &micro, sizeof micro);
    sb_add(&t->key, name, n);
}

static void list_add(trend_index_list *l, size_t v)
{
    GROW(l->v, l->cap, l->n + 1);
    l->v[l->n++] = v;
}

size_t trend_target_of(trend_db *t, int metric, const char *name, size_t n, long long vpp, long long micro)
{
    trend_metric *m = &t->metric[metric];
    key_of(t, name, n, vpp, micro);
    size_t *hit = strmap_get(&m->known, t->key.buf, t->key.len);
    if (hit)
        return *hit;
    /* a new target of this metric: one record per distinct key overall */
    size_t *any = strmap_get(&t->ids, t->key.buf, t->key.len);
    size_t idx;
    if (any) {
        idx = *any;
    } else {
        GROW(t->targets, t->targets_cap, t->ntargets + 1);
        char *k = arena_alloc(&t->a, t->key.len + 1);
        memcpy(k, t->key.buf, t->key.len);
        k[t->key.len] = 0;
        idx = t->ntargets++;
        t->targets[idx] = (trend_target){k + 2 * sizeof(long long), n, vpp, micro, 0};
        int added;
        strmap_put(&t->ids, k, t->key.len, idx, &added);
    }
    const trend_target *tg = &t->targets[idx];
    int added;
    strmap_put(&m->known, tg->name - 2 * sizeof(long long), t->key.len, idx, &added);
    list_add(&m->order, idx);
    list_add(&m->pending, idx);
    if (!m->seen)
        m->seen = ++t->nseen;
    return idx;
}

trend_row *trend_add_row(trend_db *t)
{
    GROW(t->rows, t->rows_cap, t->nrows + 1);
    return &t->rows[t->nrows++];
}

int trend_flush(trend_db *t)
{
    /* targets, metric by metric in id order, each in first-seen order; an
     * ignored insert (the name is another metric's already) uses up an id */
    int order[TREND_MAX_METRICS];
    for (int i = 0; i < t->nmetrics; i++)
        order[i] = i;
    for (int i = 1; i < t->nmetrics; i++)
        for (int j = i; j > 0 && t->metric[order[j]].id < t->metric[order[j - 1]].id; j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    for (int oi = 0; oi < t->nmetrics; oi++) {
        trend_metric *m = &t->metric[order[oi]];
        for (size_t i = 0; i < m->pending.n; i++) {
            trend_target *tg = &t->targets[m->pending.v[i]];
            sqlite3_bind_text(t->ins_target, 1, tg->name, (int)tg->name_len, SQLITE_STATIC);
            sqlite3_bind_int64(t->ins_target, 2, tg->vpp);
            sqlite3_bind_int64(t->ins_target, 3, tg->micro);
            if (sqlw_step(&t->db, t->ins_target) != 0)
                return -1;
            if (sqlite3_changes(t->db.db) == 1)
                tg->id = sqlite3_last_insert_rowid(t->db.db);
        }
        m->pending.n = 0;
    }
    for (size_t r = 0; r < t->nrows; r++) {
        const trend_row *row = &t->rows[r];
        sqlw_value *v = sqlw_batch_row(&t->data);
        sqlw_set_int(&v[0], (int64_t)row->rank);
        sqlw_set_int(&v[1], row->step);
        sqlw_set_int(&v[2], t->targets[row->target].id);
        sqlw_set_int(&v[3], t->metric[row->metric].id);
        for (int i = 0; i < t->nstats; i++)
            sqlw_set_double(&v[4 + i], row->value[i]);
        if (sqlw_batch_end_row(&t->data) != 0)
            return -1;
    }
    t->rows_written += t->nrows;
    t->nrows = 0;
    return sqlw_batch_flush(&t->data);
}

static long long tag_id(trend_db *t, const char *tag, size_t tn, const char *cat, size_t cn, int metric_id)
{
    sqlite3_stmt *st = t->get_tag;
    sqlite3_bind_text(st, 1, tag, (int)tn, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, cat, (int)cn, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, metric_id);
    long long id = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    return id;
}

int trend_write_tags(trend_db *t, trend_tags_fn tags)
{
    int rc = 0;
    for (int s = 1; s <= t->nseen && rc == 0; s++) {
        int mi = 0;
        while (mi < t->nmetrics && t->metric[mi].seen != s)
            mi++;
        trend_metric *m = &t->metric[mi];
        /* every target's tags, then the union in first-seen order */
        strbuf all = STRBUF_INIT, one = STRBUF_INIT;
        size_t *starts = xmalloc_array(m->order.n + 1, sizeof *starts);
        for (size_t i = 0; i < m->order.n; i++) {
            const trend_target *tg = &t->targets[m->order.v[i]];
            starts[i] = all.len;
            sb_reset(&one);
            tags(tg->name, tg->name_len, &one);
            sb_add(&all, one.buf ? one.buf : "", one.len);
        }
        starts[m->order.n] = all.len;
        strmap seen;
        strmap_init(&seen, 64);
        for (size_t p = 0; p < all.len && rc == 0;) {
            const char *line = all.buf + p, *nl = memchr(line, '\x1e', all.len - p);
            size_t len = (size_t)(nl - line);
            int added;
            strmap_put(&seen, line, len, 0, &added);
            if (added) {
                const char *tab = memchr(line, '\x1f', len);
                sqlite3_bind_text(t->ins_tag, 1, line, (int)(tab - line), SQLITE_STATIC);
                sqlite3_bind_text(t->ins_tag, 2, tab + 1, (int)(len - (size_t)(tab - line) - 1), SQLITE_STATIC);
                sqlite3_bind_int(t->ins_tag, 3, m->id);
                rc = sqlw_step(&t->db, t->ins_tag);
            }
            p += len + 1;
        }
        for (size_t i = 0; i < m->order.n && rc == 0; i++) {
            const trend_target *tg = &t->targets[m->order.v[i]];
            for (size_t p = starts[i]; p < starts[i + 1] && rc == 0;) {
                const char *line = all.buf + p, *nl = memchr(line, '\x1e', starts[i + 1] - p);
                size_t len = (size_t)(nl - line);
                const char *tab = memchr(line, '\x1f', len);
                long long id = tag_id(t, line, (size_t)(tab - line), tab + 1, len - (size_t)(tab - line) - 1, m->id);
                if (id && tg->id) {
                    sqlite3_bind_int64(t->ins_map, 1, tg->id);
                    sqlite3_bind_int64(t->ins_map, 2, id);
                    rc = sqlw_step(&t->db, t->ins_map);
                }
                p += len + 1;
            }
        }
        strmap_free(&seen);
        free(starts);
        sb_free(&all);
        sb_free(&one);
    }
    return rc;
}

int trend_global_stats(trend_db *t, const char *columns, const char *values)
{
    return sqlw_execf(&t->db, "CREATE TABLE IF NOT EXISTS global_stats (\n    %s\n)", columns) != 0 ||
                   sqlw_execf(&t->db, "INSERT INTO global_stats VALUES (%s)", values) != 0
               ? -1
               : 0;
}

static int trend_close(trend_db *t)
{
    sqlite3_finalize(t->ins_target);
    sqlite3_finalize(t->ins_tag);
    sqlite3_finalize(t->get_tag);
    sqlite3_finalize(t->ins_map);
    t->ins_target = t->ins_tag = t->get_tag = t->ins_map = NULL;
    sqlw_batch_free(&t->data);
    return sqlw_close(&t->db);
}

static void trend_free(trend_db *t)
{
    trend_close(t);
    out_tmp_discard(t->tmp);
    free(t->final);
    for (int i = 0; i < t->nmetrics; i++) {
        strmap_free(&t->metric[i].known);
        free(t->metric[i].order.v);
        free(t->metric[i].pending.v);
    }
    strmap_free(&t->ids);
    arena_free(&t->a);
    sb_free(&t->key);
    free(t->targets);
    free(t->rows);
    memset(t, 0, sizeof *t);
}

int trend_finish(trend_db *t, int rc, out_run *outputs)
{
    if (trend_close(t) != 0)
        rc = -1;
    if (rc == 0) {
        rc = out_run_replace(outputs, t->tmp, t->final, "database");
        t->tmp = NULL;
    }
    trend_free(t);
    return rc == 0 ? 0 : -1;
}
