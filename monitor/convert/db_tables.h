/* What the training monitor's two SQLite databases have in common, written
 * once: csv2db's monitor_metrics.db (monitor2db, msprobe 8.3.3;
 * convert/db.c) and the newest msprobe's trend databases (data2db;
 * data2db/trend_db.c).
 *
 * Both keep their targets and metrics in the same two tables,
 * monitoring_targets and monitoring_metrics, with the same DDL, and a
 * row's stats as nullable REAL columns named after the stats. The rest
 * differs on purpose, because each copies what its msprobe writes and its
 * viewer reads: csv2db puts the rows of each metric in one table per step
 * partition (metric_{id}_step_{s}_{e}, with a CHECK on the step) and the
 * stats a metric has in metric_stats, and keeps global_stats as name/value
 * rows; the trend database puts every row in one trend_data table with a
 * metric_id column, adds tags (monitoring_tags, tag_target_mapping) and
 * keeps global_stats as one row of columns. SQLite keeps the text of each
 * CREATE statement in the file, so the texts here are msprobe's, byte for
 * byte. */
#ifndef MSP_MONITOR_DB_TABLES_H
#define MSP_MONITOR_DB_TABLES_H

#include "base/strbuf.h"

/* CREATE TABLE IF NOT EXISTS monitoring_targets (target_id, target_name,
 * vpp_stage, micro_step) and monitoring_metrics (metric_id, metric_name):
 * statements for sqlw_exec(). */
extern const char MONITOR_DB_TARGETS_AND_METRICS[];

/* Append the stat columns "norm REAL DEFAULT NULL, max REAL DEFAULT NULL"
 * for names[0..n), separated by ", " (nothing when n is 0). */
void monitor_db_stat_columns(strbuf *sb, const char *const *names, int n);

#endif
