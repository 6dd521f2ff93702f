/* The checks of a train_compare run: which metrics, with which tests.
 *
 * The metrics are the METRICS of a Megatron model_config.yaml (absent:
 * lm loss and num-zeros, its default) or the names of --metrics, each with
 * the tests of Megatron's table (check.h); --check 'METRIC:TEST,...'
 * replaces a metric's tests or adds the metric (alone, the --check metrics
 * are all there is, as Megatron's pipeline() takes explicit checks). A
 * name with *, ? or [ is a shell pattern, expanded against the golden
 * run's metrics once it is read. Errors of the command line are recorded
 * as ERR_USAGE, those of the model config naming the file. */
#ifndef MSP_TRAIN_CHECK_LIST_H
#define MSP_TRAIN_CHECK_LIST_H

#include <stddef.h>

#include "train/check.h"
#include "format/curves.h"

typedef struct {
    train_check *v;
    size_t n, cap;
} check_list;

void checks_free(check_list *l);
/* The check of `metric` (made, without tests, when absent). */
train_check *check_add(check_list *l, const char *metric, size_t len);
/* The list from the command line (model_config and metrics may be NULL;
 * checks[0..nchecks) the --check values). 0 or -1. */
int build_checks(const char *model_config, const char *metrics, char *const *checks, int nchecks, check_list *l);
int is_pattern(const char *s);
/* A reader's filter (train_read_opts.want): is `name` checked (by name or
 * pattern)? ctx is the check_list. */
int want_metric(void *ctx, const char *name, size_t len);
/* Replace every pattern by the golden's metrics it matches (in its
 * order), each with the pattern's tests, or the table's when the pattern
 * came from --metrics. 0 or -1 (none matched, or no thresholds). */
int expand_patterns(check_list *l, const curves *golden, const char *golden_path);

#endif
