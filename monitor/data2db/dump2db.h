/* data2db's dump importer (the newest msprobe, spec/data2db.md): a dump
 * tree (stepN/rankN or procPID/dump.json) into the trend database
 * dump_data.trend.db. */
#ifndef MSP_MONITOR_DUMP2DB_H
#define MSP_MONITOR_DUMP2DB_H

#include "base/outdir.h"

#include <stddef.h>

typedef struct {
    const char *data;            /* the dump root */
    const char *db_dir;
    int micro_step;
    const char *const *map_from; /* --mapping pairs, in file order */
    const char *const *map_to;
    size_t nmap;
    int quiet;
} dump2db_opts;

/* 0 done, 1 no dump found (*why says what was missing; nothing written),
 * -1 error recorded. */
int dump2db_run(const dump2db_opts *o, out_run *outputs, char **why);

#endif
