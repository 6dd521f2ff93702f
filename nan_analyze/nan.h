/* msprobe nan_analyze (overflow_check): the first NaN/Inf-producing node of
 * a distributed run (spec/analyzers.md §A).
 *
 *   rules.c    what one dump.json entry is: a communication op, ignored,
 *              anomalous; a comm op's role and partner ranks (§A.4, §A.5)
 *   read.c     one rank's dump.json, streamed entry by entry into the ops
 *              the communication-graph engine needs (model/commgraph.h)
 *   analyze.c  a step: its rank directories, read in parallel, searched
 *   report.c   anomaly_analyze_{time_ns}.json (§A.9), the --all list and
 *              its table, the summary line
 *   cmd_nan_analyze.c  the command line, steps of a dump root, exit status
 */
#ifndef MSP_NAN_ANALYZE_NAN_H
#define MSP_NAN_ANALYZE_NAN_H

#include "base/arena.h"
#include "base/outdir.h"
#include "base/progress.h"
#include "base/strbuf.h"
#include "base/value.h"
#include "model/commgraph.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- rules.c ------------------------------------------------------------ */

/* check_item_anomaly(): an item of a list (or a value of a dict) whose Max
 * or Min is NaN/Inf -- looked for also inside nested lists and dicts (a
 * tensor_list argument, a P2POp's tensor), which msprobe 8.1.0 misses. */
int nan_item_anomaly(const jval *param);
/* "Distributed." and one of msprobe's communication keywords. */
int nan_is_comm_op(const char *name);
/* Torch.empty / Torch.fill anywhere in the name. */
int nan_is_ignored(const char *name);

/* The engine's description of entry `name` of rank `rank`: flags, and for a
 * communication op its api, peer api, role and partner ranks (§A.5; the
 * strings and rank lists in `a`, rank lists shared through `sets` when
 * equal). 0, or -1 with an error naming `path` (an op name of fewer than
 * four fields). */
typedef struct rank_sets rank_sets;
int nan_describe(const char *path, const char *name, const jval *entry, long rank, arena *a, rank_sets *sets,
                 cg_op *op);
rank_sets *rank_sets_new(void);
void rank_sets_free(rank_sets *s);

/* How the output of a candidate is bad, for the summary line: "inf",
 * "nan, -inf", ... from the Max/Min of its output items. */
void nan_output_kinds(const jval *entry, strbuf *sb);

/* ---- read.c ------------------------------------------------------------- */

/* Where an entry's value is in dump.json, to read it again for the report. */
typedef struct {
    uint64_t off;
    uint64_t len;
} nan_span;

/* An API of --all: its scene (model/overflow.h) and where it is. */
typedef struct {
    const char *name;
    nan_span at;
    uint8_t scene;
} nan_api;

typedef struct {
    long rank;
    char *label;             /* "rank3", "proc4242" */
    char *dir;               /* the rank directory */
    char *dump_path;
    /* dump.json as read, to find it unchanged when reading it again */
    dev_t dev;
    ino_t ino;
    long long mtime_ns;
    size_t size;
    size_t entries;          /* entries of data */
    cg_op *ops;              /* what the engine sees: runs of plain ops folded */
    nan_span *at;            /* per op: its entry's value (folded runs: unused) */
    size_t nops;
    nan_api *apis;           /* --all: every entry with a scene, dump order */
    size_t napis;
    arena mem;               /* names, apis, rank lists */
} nan_rank;

typedef struct {
    int all;                 /* --all: classify every entry (§B) */
} nan_read_opts;

/* A reading thread's buffers, kept from one rank to the next (a new rank
 * would otherwise fault in megabytes of fresh pages). */
typedef struct nan_scratch nan_scratch;
nan_scratch *nan_scratch_new(void);
void nan_scratch_free(nan_scratch *s);

/* Read rk->dump_path (rk->rank set) with the buffers of `s`. Progress in
 * bytes to `pj`. 0 or -1. */
int nan_read_rank(nan_rank *rk, const nan_read_opts *o, nan_scratch *s, progress_job *pj);
void nan_rank_free(nan_rank *rk);

/* ---- analyze.c ---------------------------------------------------------- */

typedef struct {
    int all;                 /* --all */
    int table_format;        /* -1: none; TABLE_CSV or TABLE_XLSX (model/table.h) */
    int jobs;                /* threads */
    int profile;             /* MSPROBE_PROFILE: the time of each phase on stderr */
} nan_opts;

typedef struct {
    char *step_dir;
    nan_rank *ranks;         /* by rank number */
    size_t nranks;
    cg_result res;
} nan_step;

/* The ranks of `path` (a step directory, or a single rank directory when
 * `single_rank`), read in parallel, and the search. 0 or -1. */
int nan_step_run(const char *path, int single_rank, const nan_opts *o, nan_step *st);
void nan_step_free(nan_step *st);

/* ---- report.c ----------------------------------------------------------- */

/* Write what the step found into out_dir (created; recorded in `outputs`):
 * anomaly_analyze_{time_ns}.json and, with a table format, the --all list as
 * a table; nothing when nothing is anomalous. `line` gets the summary line;
 * *found whether anything anomalous was found. 0 or -1. */
int nan_report(nan_step *st, const nan_opts *o, const char *out_dir, out_run *outputs, strbuf *line, int *found);

#endif
