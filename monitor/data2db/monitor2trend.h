/* data2db's monitor importer (the newest msprobe's csv2db, spec/analyzers.md
 * §E.8): a training monitor's csv files into the trend database
 * monitor_data.trend.db. */
#ifndef MSP_MONITOR_MONITOR2TREND_H
#define MSP_MONITOR_MONITOR2TREND_H

#include "base/outdir.h"

#include <stddef.h>

typedef struct {
    const char *data;
    const char *db_dir;
    int micro_step;
    const char *const *map_from;
    const char *const *map_to;
    size_t nmap;
    int jobs;
    int quiet;
} monitor2trend_opts;

/* 0 done, 1 nothing to import (*why says why; nothing written), -1 error. */
int monitor2trend_run(const monitor2trend_opts *o, out_run *outputs, char **why);

#endif
