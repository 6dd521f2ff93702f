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
#include <stdint.h>

/* Training stages of a tag's last field (MonitorConst.TRAIN_STAGE). */
enum { STAGE_OTHER = -1, STAGE_FORWARD = 0, STAGE_BACKWARD = 1, STAGE_OPTIMIZER = 2 };
int anomaly_stage(const char *tag, size_t n);

/* GradAnomalyData's fields, in its order. */
enum { AF_RANK, AF_STEP, AF_MICRO_STEP, AF_PP_STAGE, AF_VPP_STAGE, AF_CALL_ID, AF_TAG_NAME, AF_MESSAGE,
       AF_GROUP_MATES, AF_COUNT };
extern const char *const anomaly_fields[AF_COUNT];

/* A record: what ranking needs, and where its JSON text is (its other
 * fields, message and group_mates, are read again from there for the few
 * records written out: the records of a monitor run can be a hundred MB,
 * and a parsed tree takes several times its text). */
typedef struct {
    long long rank, step, micro_step, pp_stage, vpp_stage, call_id;
    const char *tag;            /* tag_name */
    size_t tag_len;
    int stage;
    uint32_t file;              /* the text it is in (anomaly_list.data) */
    size_t at, len;             /* its value's bytes there */
} anomaly;

typedef struct {
    anomaly *v;
    size_t n, cap;
    arena a;                    /* tag names that had escapes */
    void *data;                 /* the files' texts */
    size_t files, skipped;
} anomaly_list;

/* The rank directories of `dir` (model/dumptree's rule of every analyzer:
 * rank{N} by number; two directories of one rank are refused, any other
 * directory skipped with a warning) holding anomaly.json: their records in
 * the order Python's json.load gives them (a repeated key keeps its first
 * place and its last value). A record msprobe cannot build (an unknown
 * field, a field of the wrong type) is skipped with a warning, as msprobe
 * does; a file that is no JSON object, or a number beyond the integer
 * range, is an error. Memory: the files' texts and ~100 bytes a record.
 * 0 or -1. */
int anomaly_load(const char *dir, anomaly_list *out);
void anomaly_list_free(anomaly_list *l);

/* A record's fields (NULL: absent, msprobe's default), parsed again from
 * its text into `a` (the caller resets it). 0 or -1. */
int anomaly_fields_of(const anomaly_list *l, const anomaly *r, arena *a, const jval *field[AF_COUNT]);

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
