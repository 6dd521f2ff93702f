/* The two converters of a monitor tree, after the plan is made: each
 * writes its outputs under temporary names, renames them into place when
 * all are complete, records them in `outputs` (rolled back by the caller on
 * failure) and prints its summary line. 0 or -1 (error recorded). */
#ifndef MSP_MONITOR_CONVERT_RUN_H
#define MSP_MONITOR_CONVERT_RUN_H

#include "monitor/convert/convert.h"
#include "base/outdir.h"

int conv_tb(const conv_opts *o, const conv_plan *p, const char *out, out_run *outputs);

/* step_partition: rows per partition table (10..10,000,000). */
int conv_db(const conv_opts *o, const conv_plan *p, const char *out, int step_partition, out_run *outputs);

#endif
