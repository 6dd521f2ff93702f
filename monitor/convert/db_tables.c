/* The tables the monitor's two databases share (db_tables.h). */
#include "monitor/convert/db_tables.h"

const char MONITOR_DB_TARGETS_AND_METRICS[] =
    "CREATE TABLE IF NOT EXISTS monitoring_targets (\n"
    "    target_id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
    "    target_name TEXT NOT NULL,\n"
    "    vpp_stage INTEGER NOT NULL,\n"
    "    micro_step INTEGER NOT NULL DEFAULT 0,\n"
    "    UNIQUE(target_name, vpp_stage, micro_step)\n"
    ");\n"
    "CREATE TABLE IF NOT EXISTS monitoring_metrics (\n"
    "    metric_id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
    "    metric_name TEXT UNIQUE NOT NULL\n"
    ");\n";

void monitor_db_stat_columns(strbuf *sb, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        sb_addf(sb, "%s%s REAL DEFAULT NULL", i ? ", " : "", names[i]);
}
