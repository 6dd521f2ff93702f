/* SQLite output: the insert batches through the rows virtual table (order,
 * conflicts, batch boundaries, types), and the schema monitor2db writes (msprobe 8.3.3's
 * csv2db: tables, partition tables with their CHECK and key, metric_stats,
 * global_stats, NaN as NULL) checked by querying the database, and the
 * tables it shares with the trend database of data2db. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "format/sqlite_write.h"
#include "monitor/convert/convert_run.h"
#include "monitor/convert/db_tables.h"
#include "monitor/data2db/trend_db.h"
#include "base/files.h"
#include "base/log.h"
#include "testutil.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

static sqlite3 *open_ro(const char *path)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    return db;
}

/* The first column of the first row of a query, as text ("" when NULL, "-" when no row). */
static char *one(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    char *r;
    if (sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        r = strdup(t ? (const char *)t : "");
    } else {
        r = strdup("-");
    }
    sqlite3_finalize(st);
    return r;
}

static void assert_query(sqlite3 *db, const char *sql, const char *want)
{
    char *got = one(db, sql);
    if (strcmp(got, want) != 0)
        fail_msg("%s: got '%s', expected '%s'", sql, got, want);
    free(got);
}

static void test_batch(void **state)
{
    char *dir = tu_mkdtemp();
    char *path = tu_write(dir, "b.db", "", 0);
    sqlw w;
    assert_int_equal(sqlw_open(&w, path, "b.db"), 0);
    assert_int_equal(sqlw_exec(&w, "CREATE TABLE t (k INTEGER PRIMARY KEY, v REAL, s TEXT)"), 0);
    assert_int_equal(sqlw_begin(&w), 0);
    sqlw_batch b;
    assert_int_equal(sqlw_batch_init(&b, &w, "INSERT OR IGNORE INTO t", 3), 0);
    /* two full batches and a part of one; keys repeat from 3000 on: the
     * first row of a key stays */
    int n = 2 * SQLW_ROWS + 1000;
    for (int i = 0; i < n; i++) {
        sqlw_value *v = sqlw_batch_row(&b);
        sqlw_set_int(&v[0], i < 3000 ? i : i - 3000);
        sqlw_set_double(&v[1], i == 7 ? NAN : i * 0.5);
        char s[16];
        snprintf(s, sizeof s, "r%d", i);
        sqlw_set_text(&b, &v[2], s, strlen(s));
        assert_int_equal(sqlw_batch_end_row(&b), 0);
    }
    assert_int_equal(sqlw_batch_flush(&b), 0);
    assert_int_equal(b.rows, (uint64_t)n);
    sqlw_batch_free(&b);
    assert_int_equal(sqlw_close(&w), 0);
    sqlite3 *db = open_ro(path);
    assert_query(db, "SELECT count(*) FROM t", "3000");
    assert_query(db, "SELECT s FROM t WHERE k = 3", "r3");
    assert_query(db, "SELECT s FROM t WHERE k = 2999", "r2999");
    assert_query(db, "SELECT v IS NULL FROM t WHERE k = 7", "1");
    assert_query(db, "SELECT v FROM t WHERE k = 2048", "1024.0");
    assert_query(db, "SELECT typeof(k) || typeof(v) || typeof(s) FROM t WHERE k = 5", "integerrealtext");
    sqlite3_close(db);
    free(path);
    tu_rmtree(dir);
    free(dir);
}

static void write_file(const char *dir, const char *name, const char *text)
{
    free(tu_write(dir, name, text, (size_t)-1));
}

static void test_schema(void **state)
{
    char *dir = tu_mkdtemp();
    char *mon = tu_path(dir, "mon"), *run = tu_path(dir, "mon/Nov25_01-23-20-rank3-0000abcd");
    char *out = tu_path(dir, "out");
    mkdir(mon, 0700);
    mkdir(run, 0700);
    write_file(run, "actv_0-7.csv",
               "vpp_stage,name,step,micro_step,norm,max,nans,shape,dtype\n"
               "0,fc.input,0,0,1.5,nan,0,[2],f\n0,fc.input,0,1,2.5,1,0,[2],f\n0,fc.input,7,0,3.5,-0.0,2,[2],f\n");
    write_file(run, "grad_reduced_8-15.csv",
               "vpp_stage,name,step,min,mean,shape,dtype\n0,fc.weight,12,-1,inf,[2],f\n");
    conv_opts o = {.monitor_dir = mon, .jobs = 2, .quiet = 1};
    conv_plan p;
    assert_int_equal(conv_plan_make(&o, (1u << MT_COUNT) - 1, &p), 0);
    assert_int_equal(p.nfiles, 2);
    out_run *outputs = out_run_new();
    assert_int_equal(conv_db(&o, &p, out, 10, outputs), 0);
    out_run_free(outputs);
    conv_plan_free(&p);
    char *path = tu_path(out, "monitor_metrics.db");
    sqlite3 *db = open_ro(path);
    assert_query(db,
                 "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master WHERE type = 'table' "
                 "ORDER BY name)",
                 "global_stats metric_1_step_0_9 metric_1_step_10_19 metric_2_step_0_9 metric_2_step_10_19 "
                 "metric_stats monitoring_metrics monitoring_targets sqlite_sequence");
    assert_query(db, "SELECT group_concat(metric_name) FROM monitoring_metrics", "actv,grad_reduced");
    /* stats in msprobe's order, whatever the csv's */
    assert_query(db, "SELECT group_concat(name) FROM pragma_table_info('metric_1_step_0_9')",
                 "rank,step,target_id,norm,max,nans");
    assert_query(db, "SELECT group_concat(name) FROM pragma_table_info('metric_2_step_10_19')",
                 "rank,step,target_id,min,mean");
    assert_query(db, "SELECT group_concat(stat_name) FROM metric_stats WHERE metric_id = 2", "mean,min");
    assert_query(db, "SELECT instr(replace(sql, char(10), ' '), 'CHECK(step BETWEEN 10 AND 19)') > 0 FROM "
                     "sqlite_master WHERE name = 'metric_2_step_10_19'",
                 "1");
    assert_query(db, "SELECT count(*) FROM pragma_index_list('metric_1_step_0_9')", "1");
    assert_query(db, "SELECT group_concat(stat_name || '=' || stat_value) FROM global_stats",
                 "max_rank=3,max_step=15,min_step=0,step_partition_size=10");
    assert_query(db, "SELECT count(*) FROM monitoring_targets", "3");
    assert_query(db, "SELECT group_concat(rank || ':' || step || ':' || norm || ':' || quote(max) || ':' || nans) "
                     "FROM metric_1_step_0_9",
                 "3:0:1.5:NULL:0.0,3:0:2.5:1.0:0.0,3:7:3.5:0.0:2.0");
    assert_query(db, "SELECT t.micro_step FROM metric_1_step_0_9 d JOIN monitoring_targets t USING (target_id) "
                     "WHERE d.norm = 2.5",
                 "1");
    assert_query(db, "SELECT mean FROM metric_2_step_10_19", "Inf");
    assert_query(db, "SELECT count(*) FROM metric_2_step_0_9", "0");
    /* the trend database (data2db) holds targets and metrics in the same
     * two tables, created by the same statements */
    static const char *const stats[] = {"norm", "max"};
    char *tpath = tu_path(dir, "t.trend.db");
    trend_db t;
    assert_int_equal(trend_open(&t, tpath, stats, 2), 0);
    assert_int_equal(trend_finish(&t, 0, NULL), 0);
    sqlite3 *tdb = open_ro(tpath);
    static const char *const shared[] = {"monitoring_targets", "monitoring_metrics"};
    for (int i = 0; i < 2; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT sql FROM sqlite_master WHERE name = '%s'", shared[i]);
        char *a = one(db, sql), *b = one(tdb, sql);
        assert_non_null(strstr(a, shared[i]));
        assert_string_equal(a, b);
        free(a);
        free(b);
    }
    assert_query(tdb, "SELECT group_concat(name) FROM pragma_table_info('trend_data')",
                 "rank,step,target_id,metric_id,norm,max");
    sqlite3_close(tdb);
    free(tpath);
    sqlite3_close(db);
    free(path);
    free(out);
    free(run);
    free(mon);
    tu_rmtree(dir);
    free(dir);
}

/* The stat columns both databases declare. */
static void test_stat_columns(void **state)
{
    static const char *const names[] = {"norm", "min", "max"};
    strbuf sb = STRBUF_INIT;
    monitor_db_stat_columns(&sb, names, 0);
    assert_int_equal(sb.len, 0);
    monitor_db_stat_columns(&sb, names, 1);
    assert_string_equal(sb_str(&sb), "norm REAL DEFAULT NULL");
    sb_reset(&sb);
    monitor_db_stat_columns(&sb, names, 3);
    assert_string_equal(sb_str(&sb), "norm REAL DEFAULT NULL, min REAL DEFAULT NULL, max REAL DEFAULT NULL");
    sb_free(&sb);
}

int main(void)
{
    log_set_prog("test_monitor_db");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_batch), cmocka_unit_test(test_schema),
                                       cmocka_unit_test(test_stat_columns)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
