/* compare: match the rows of a target (NPU) dump with a bench dump and write
 * msprobe's comparison table (spec/compare.md).
 *
 * Flow of one compare of two dump.json files:
 *   dump_load (both sides, in parallel) -> mode (statistics / md5 / tensor)
 *   -> match (exact join on name and shape, dtype rules) -> column typing
 *   (how pandas would hold each statistics column) -> per-row results
 *   -> highlight rules -> table writer (xlsx/csv) -> advisor file.
 */
#ifndef MSP_COMPARE_H
#define MSP_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "compare/mapping/mapping.h"
#include "model/dump.h"
#include "model/metrics.h"
#include "model/stack.h"
#include "base/progress.h"
#include "base/strbuf.h"
#include "model/table.h"

enum cmp_mode { MODE_ALL, MODE_SUMMARY, MODE_MD5 };

typedef struct {
    int stack_mode;          /* add the NPU_Stack_Info column */
    int auto_analyze;        /* write advisor_*.txt */
    int format;              /* TABLE_XLSX or TABLE_CSV */
    int framework;           /* 0 (detect), 'p' pytorch, 'm' mindspore */
    const char *out_dir;
    const char *stamp;       /* %Y%m%d%H%M%S used in every file name of a run */
    int threads;             /* threads one compare may use */
    int zero_d_repeat;       /* tensor mode: repeat the 0-d message 16 times like 8.1.0 */
    int fuzzy;               /* -f: match names without call counters (§4.4) */
    const mapping_opts *mapping;  /* -am, -cm, -dm, -lm (mapping.h) */
    struct out_run *outputs;  /* directories and files the run made, for a rollback (NULL: none kept) */
    int first_diff;          /* -da: msprobe 8.3's first-diff result (JSON) instead of the table */
} compare_opts;

/* One pair of files to compare and where its results go. */
typedef struct {
    char *npu_json, *bench_json;
    char *stack_json;        /* NULL: no stack column */
    char *out_dir;           /* OUT or OUT/stepN */
    char *suffix;            /* "" or "_rank0" ... */
    char *label;             /* "rank0", "step1/rank0" for messages */
} compare_job;

/* What one compare produced, for the summary line and the CI gate. */
typedef struct {
    char *result_path;       /* NULL when no row could be produced */
    char *advisor_path;
    int mode;
    size_t rows, matched, unmatched;
    size_t warning, different, accuracy_no;
    size_t red, yellow;
    size_t unreadable;       /* tensor mode: rows whose tensor files could not be read */
    size_t first_failing;    /* table index of the first failing row, or (size_t)-1 */
} compare_result;

int compare_run_job(const compare_job *job, const compare_opts *opts, compare_result *res);
void compare_result_free(compare_result *r);

/* ---- internals shared by the files of compare/ -------------------------- */

typedef struct {
    const dump_row *n;       /* target row */
    const dump_row *b;       /* bench row; NULL when unmatched */
} match_pair;

/* Highlight messages attached to a row (in order, red before yellow). */
typedef struct {
    uint32_t row;
    uint8_t code;            /* hl_code */
} hl_message;

enum hl_code {
    HL_RED_OVERFLOW, HL_RED_MAX_DIFF, HL_RED_ONE_THOUSAND, HL_RED_MAX_RELATIVE,
    HL_YELLOW_ORDER, HL_YELLOW_ONE_THOUSAND, HL_YELLOW_COSINE, HL_YELLOW_MAX_RELATIVE,
};
#define HL_IS_RED(c) ((c) <= HL_RED_MAX_RELATIVE)
const char *hl_text(int code);

/* ALL (tensor) mode: the outcome of one row's real-data comparison. */
enum real_flag { RD_COMPARED, RD_NO_NPU_FILE, RD_NO_BENCH_FILE, RD_UNMATCHED, RD_READ_FAILED };
typedef struct {
    tensor_metrics m;        /* all six "unsupported" when flag != RD_COMPARED */
    uint8_t flag;
} real_result;
#define REAL_CHUNK 16

/* SUMMARY: the four statistic differences of a row, computed once. */
enum { DIFF_NA, DIFF_NAN, DIFF_NUM };
typedef struct {
    double diff[4];          /* for DIFF_NUM */
    uint8_t kind[4];
    uint8_t warn;            /* bit k: statistic k has a magnitude warning */
} stat_diffs;
#define DIFF_CHUNK 4096

typedef struct {
    int mode;
    int file_type;           /* DUMP_JSON / DEBUG_JSON */
    int cross_frame;         /* MindSpore target vs PyTorch bench (§4.5) */
    int target_ms;           /* the target is a MindSpore dump */
    const compare_opts *opts;
    progress_job *progress;  /* this compare's slot on the status line (may be NULL) */
    dump_data npu, bench;
    stack_map stack;
    int have_stack;
    mapping_keys keys;       /* compare key per target row under a mapping (npu_keys NULL: the names) */
    match_pair *pairs;
    size_t npairs;
    /* pandas holds a statistics column as float64 when every value is a
     * number or None (None then reads back as NaN); otherwise as objects. */
    uint8_t npu_numeric[4], bench_numeric[4];
    stat_diffs *diffs;       /* SUMMARY: per row */
    real_result *real;       /* ALL: per row */
    char *npu_tensor_dir, *bench_tensor_dir;
    uint8_t *fill;           /* per row: FILL_NONE/RED/YELLOW */
    hl_message *msgs;
    size_t nmsgs;
} compare_ctx;

/* match.c */
int match_rows(compare_ctx *c);
/* Tests: the exact join through the hash map, the way it goes when two keys
 * share a 64-bit hash (0: by sorted hashes). */
extern int match_by_map;
int dtype_compatible(const char *a, const char *b, int cross_frame);
const char *npu_key(const compare_ctx *c, size_t i);

/* cells.c: the Python value of a cell of the result table. */
void cell_npu_stat(const compare_ctx *c, size_t i, int k, pyval *out);
void cell_bench_stat(const compare_ctx *c, size_t i, int k, pyval *out);
/* SUMMARY: compute every row's differences (on `threads` threads; -da
 * reads them more than once), then read them: diff and relative error of
 * statistic k (the text goes into relbuf, 40 bytes); returns whether
 * statistic k has a magnitude warning. Without compute_diffs(),
 * cell_stat_diff() computes statistic k of the row itself. */
void compute_diffs(compare_ctx *c, int threads);
int cell_stat_diff(const compare_ctx *c, size_t i, int k, pyval *diff, pyval *rel, char *relbuf);
/* The same, given the row's two cells of statistic k (cell_npu_stat,
 * cell_bench_stat), which the table shows too: read once, not three times. */
int cell_stat_diff_of(const compare_ctx *c, size_t i, int k, const pyval *vn, const pyval *vb, pyval *diff,
                      pyval *rel, char *relbuf);
/* ALL mode: metric k of row i (a float, or the text saying why not). */
void real_metric_cell(const compare_ctx *c, size_t i, int k, pyval *out);
void stats_column_types(compare_ctx *c);

/* real_data.c: tensor mode */
int compute_real_data(compare_ctx *c, int threads);
const char *real_data_name(const match_pair *p, int bench);
void real_message(const compare_ctx *c, size_t i, strbuf *sb);
size_t real_unreadable(const compare_ctx *c);
void data_name_cell(const match_pair *p, strbuf *sb);

/* highlight.c */
int highlight_rows(compare_ctx *c);

/* render.c: the cells of one row of the result table. */
typedef struct {
    char rel[4][40];         /* relative-error texts */
    strbuf err;              /* Err_message */
    strbuf data_name;        /* Data_name (tensor mode) */
} row_text;

/* What the rows of a part of the table add up to (merged in order). */
typedef struct {
    size_t rows, matched, unmatched, warning, different, accuracy_no, red, yellow;
    size_t first_failing;
} row_counts;

int result_header(const compare_ctx *c, const char *const **header);
void render_stacks(compare_ctx *c);
/* Cells of row i (pointing into t and into the dumps); *cursor walks the
 * highlight messages (start it with msgs_from(c, i)). Thread-safe once
 * render_stacks() has run. */
void render_row(const compare_ctx *c, size_t i, cell *cells, row_text *t, size_t *cursor, row_counts *k);
size_t msgs_from(const compare_ctx *c, size_t i);
void add_counts(row_counts *to, const row_counts *k);

/* The writers of a job's files. *path (malloc'ed) is the name to write; it
 * is never replaced: when it exists (another run took it meanwhile) the
 * file gets a later stamp and *path that name (base/outdir.h). */

/* output.c */
int write_result(compare_ctx *c, char **path, compare_result *res);

/* advisor.c */
int write_advisor(compare_ctx *c, char **path, compare_result *res);

/* run.c: OUT_DIR/{prefix}{suffix}_{stamp}.{ext}, the name of every file of a
 * job (compare_result_rank0_20250101120000.xlsx); malloc'ed. */
char *compare_out_name(const compare_job *job, const char *stamp, const char *prefix, const char *ext);
/* inputs.c: the job's result table, {debug_}compare_result{suffix}_{stamp}.{csv|xlsx}
 * (debug_ when the target is a debug.json, as msprobe names it); the one
 * place its name and extension come from. malloc'ed. */
char *compare_result_name(const compare_job *job, int format, const char *stamp);

#endif
