/* The training monitor's anomaly records and msprobe's ranking of them
 * (anomaly_processor, spec/analyzers.md §D): every rank's
 * anomaly_detected/rank{N}/anomaly.json loaded in order, filtered by step,
 * and the K earliest chosen exactly as msprobe 8.1.0 chooses them. */
#ifndef MSP_MONITOR_ANOMALY_H
#define MSP_MONITOR_ANOMALY_H

#include "base/arena.h"
#include "base/files.h"
#include "base/value.h"

#include <stddef.h>

/* Training stages of a tag's last field (MonitorConst.TRAIN_STAGE). */
enum { STAGE_OTHER = -1, STAGE_FORWARD = 0, STAGE_BACKWARD = 1, STAGE_OPTIMIZER = 2 };
int anomaly_stage(const char *tag, size_t n);

/* GradAnomalyData's fields, in its order. */
enum { AF_RANK, AF_STEP, AF_MICRO_STEP, AF_PP_STAGE, AF_VPP_STAGE, AF_CALL_ID, AF_TAG_NAME, AF_MESSAGE,
       AF_GROUP_MATES, AF_COUNT };
extern const char *const anomaly_fields[AF_COUNT];

typedef struct {
    long long rank, step, micro_step, pp_stage, vpp_stage, call_id;
    const char *tag;            /* tag_name */
    size_t tag_len;
    int stage;
    const jval *field[AF_COUNT];   /* as loaded; NULL: msprobe's default */
} anomaly;

typedef struct {
    anomaly *v;
    size_t n, cap;
    arena a;                    /* the parsed files */
    void *data;                 /* their texts (strings point into them) */
    size_t files, skipped;
} anomaly_list;

/* Every directory of `dir` (rank{N} by number, then the others by name)
 * holding anomaly.json: its records in file order. A record msprobe cannot
 * build (an unknown field, a field of the wrong type) is skipped with a
 * warning, as msprobe does; a file that is no JSON object is an error.
 * 0 or -1. */
int anomaly_load(const char *dir, anomaly_list *out);
void anomaly_list_free(anomaly_list *l);

/* GradAnomalyData.__lt__ and its __eq__ (rank, step, micro_step, pp_stage,
 * vpp_stage, call_id). */
int anomaly_lt(const anomaly *a, const anomaly *b);
int anomaly_eq(const anomaly *a, const anomaly *b);

/* msprobe's get_range_top_k: the K first of `in` (n records, load order)
 * in its order: a stable sort when K >= n, else heapq.nsmallest's choice
 * and order (ties between records that compare equal go by their place in
 * the heap, which this reproduces step by step). `out` gets the indices
 * into `in`; returns how many. */
size_t anomaly_top_k(const anomaly *const *in, size_t n, size_t k, size_t *out);

/* get_key(): tag_name + "_step_" + step + "_call_" + call_id. */
void anomaly_key(const anomaly *a, char **out, size_t *len);

#endif
