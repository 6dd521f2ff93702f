/* A training run's curves: named scalar series, each a value per step
 * ("lm loss" at steps 1..100), and the run's configuration as key/values
 * where its files carry one (TensorBoard text summaries, the argument dump
 * of a log). Every reader of training curves fills one: TensorBoard event
 * files, Megatron golden-values JSON, training logs, the training
 * monitor's csv series.
 *
 * A value is a double, remembered as an int or a float as the file wrote
 * it (golden values keep 25728 and 25728.0 apart), or a string (golden
 * files hold "nan"): a string's number is +inf, since Megatron's checker
 * compares every string as np.inf, and its text is kept for writing it
 * back. Series keep the order in which they first appeared. */
#ifndef MSP_CURVES_H
#define MSP_CURVES_H

#include <stddef.h>
#include <stdint.h>

#include "base/strmap.h"

enum curve_kind { CV_FLOAT = 0, CV_INT = 1, CV_STR = 2 };

typedef struct {
    char *name;
    size_t n, cap;
    int64_t *step;
    double *value;
    uint8_t *kind;          /* per value; NULL while every value is CV_FLOAT */
    char **text;            /* per value: a CV_STR's text (malloc'ed); NULL while there is none */
} curve;

typedef struct {
    char *key, *value;
} curve_config;

typedef struct {
    curve *v;
    size_t n, cap;
    strmap index;           /* name -> position in v */
    curve_config *cfg;      /* in order of first appearance; a key set again keeps its last value */
    size_t ncfg, cfgcap;
    strmap cfg_index;
} curves;

void curves_init(curves *c);
void curves_free(curves *c);
/* The series called name[0..len), or NULL. */
curve *curves_find(const curves *c, const char *name, size_t len);
/* The same, made (empty) when absent. The pointer is good until the next
 * series is added. */
curve *curves_get(curves *c, const char *name, size_t len);
/* Remove the series without values (keeping the order of the others). */
void curves_drop_empty(curves *c);

/* Append a value (steps in any order: see curve_settle). */
void curve_push(curve *s, int64_t step, double value, int kind);
void curve_push_text(curve *s, int64_t step, const char *text, size_t len);
static inline int curve_kind_at(const curve *s, size_t i) { return s->kind ? s->kind[i] : CV_FLOAT; }
/* Order by step. Of values given for the same step, keep the last one
 * pushed (keep_last) or the first. Stable. */
void curve_settle(curve *s, int keep_last);
/* The position of `step` in a settled series, or -1. */
long curve_find_step(const curve *s, int64_t step);
/* Keep the values i for which keep[i] is set. */
void curve_filter(curve *s, const uint8_t *keep);
/* dst gets the steps of src it does not have (both settled): the earlier
 * source keeps a step both hold. */
void curve_merge_missing(curve *dst, const curve *src);
void curve_clear(curve *s);

/* A configuration key/value; a key given again takes the new value. */
void curves_config_set(curves *c, const char *key, size_t keylen, const char *value, size_t valuelen);
const char *curves_config_get(const curves *c, const char *key);

#endif
