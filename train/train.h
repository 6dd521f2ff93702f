/* What one train_compare run holds, shared by its parts: the checks
 * (check.h), the report on standard output and in files (report.c), the
 * page (page.c). */
#ifndef MSP_TRAIN_H
#define MSP_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "train/check.h"
#include "model/train_input.h"
#include "base/strbuf.h"

/* One metric as compared: its check, the golden curve (the mean of the
 * golden runs with a band), the actual curve, each cut to the compared
 * steps, and the result. */
typedef struct {
    train_check check;
    const curve *golden;        /* NULL: missing in the golden */
    const curve *actual;        /* NULL: missing in the actual */
    const curve *std;           /* the band's standard deviation per golden step, or NULL */
    curve *runs_golden;         /* with a band: each golden run's curve (nruns), for the page */
    metric_result res;
} train_metric;

/* A configuration key whose values differ (or are on one side only). */
typedef struct {
    const char *key, *golden, *actual;   /* NULL: absent on that side */
} train_config_diff;

typedef struct {
    const char *actual_path;
    const char *const *golden_paths;
    size_t ngolden;
    int approximate_only;
    int64_t steps_lo, steps_hi;         /* --steps; 0, INT64_MAX when not given */
    double band_k;                      /* 0: no band */
    train_metric *m;
    size_t nm;
    train_input actual;
    train_input *golden;                /* ngolden of them */
    train_config_diff *cfg;
    size_t ncfg;
    int have_config;                    /* both sides carry a configuration */
    int overall_failed;
} train_run;

/* report.c: the table on standard output (appended to sb), the summary
 * JSON, the step table (csv or xlsx). */
void train_report_text(const train_run *r, strbuf *sb);
void train_report_json(const train_run *r, strbuf *sb);
/* Write the step table to `path` (format TABLE_CSV / TABLE_XLSX); the name
 * may move to a later free one (*path replaced). 0 or -1. */
int train_report_steps(const train_run *r, char **path, int format);

/* page.c: the self-contained page, appended to sb. */
void train_page(const train_run *r, strbuf *sb);

#endif
