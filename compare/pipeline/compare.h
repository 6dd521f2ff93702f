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

/* Whose result table a compare writes (dialect.h): msprobe 8.1.0's, or the
 * newest msprobe's (python/ of Ascend/msprobe). One compare either way; the
 * dialect picks the columns, the cell texts, a few rules of matching and
 * the Result analysis. */
enum dialect_id { DIALECT_81, DIALECT_NEWEST };
#define COLS_MAX 32

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
    int dialect;             /* enum dialect_id */
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
    int dialect;             /* enum dialect_id of the table */
    char *advisor_path;
    int mode;
    size_t rows, matched, unmatched;
    size_t warning, different, accuracy_no;
    size_t error;            /* the newest msprobe's Result "error" (its "warning" counts as warning) */
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
    const stack_info **entry_stack;  /* per target entry, set by render_stacks() (NULL: none) */
    /* newest: the bench's keys (backward calls renumbered; NULL: the names)
     * and the target rows left out (entry name without a direction) */
    const char **bench_keys;
    arena bench_key_mem;
    uint8_t *npu_dropped;
    match_pair *pairs;
    size_t npairs;
    /* pandas holds a statistics column as float64 when every value is a
     * number or None (None then reads back as NaN); otherwise as objects. */
    uint8_t npu_numeric[4], bench_numeric[4];
    /* newest: pandas reads a statistics column back as int64 when every
     * value's text is an integer (differences are then ints too) */
    uint8_t npu_int_col[4], bench_int_col[4];
    /* newest: the four statistics of a side went through one pandas frame
     * whose values came out float64 (every column numbers, one of them not
     * all ints): an int statistic is then a float (3 prints "3.0") */
    uint8_t npu_float_stats, bench_float_stats;
    /* newest: fillna() on the unmatched rows turns a target statistics
     * column of numbers only, one a float, into float64 there */
    uint8_t unmatched_float[4];
    stat_diffs *diffs;       /* SUMMARY: per row */
    real_result *real;       /* ALL: per row */
    char *npu_tensor_dir, *bench_tensor_dir;
    uint8_t *fill;           /* per row: FILL_NONE/RED/YELLOW */
    hl_message *msgs;
    size_t nmsgs;
    uint8_t *level;          /* newest: per row, enum check_level (Result) */
    uint16_t *checks;        /* newest: per row, the check_msg bits of Err_message */
    uint8_t cols[COLS_MAX];  /* the table's columns (dialect.h's col_id), set by write_result() */
    int ncols;
} compare_ctx;

/* match.c */
int match_rows(compare_ctx *c);
/* call_order.c: the newest msprobe's keys (backward calls renumbered) and
 * the target rows it leaves out; after the mappings, before the join. */
int newest_keys(compare_ctx *c);
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

/* cells_newest.c: the newest msprobe's statistics cells (None as "None",
 * NaN as "Nan", ...; "N/A" on the bench side of an unmatched row) and the
 * texts of a statistic's difference and relative error (buffers of
 * NEWEST_DIFF_BUFSZ bytes); newest_column_types() first. */
#define NEWEST_DIFF_BUFSZ 48
void newest_stat(const compare_ctx *c, size_t i, int k, int bench, pyval *out);
void newest_stat_diff(const compare_ctx *c, int k, const pyval *vn, const pyval *vb, char *diff, char *rel);
void newest_column_types(compare_ctx *c);

/* checks.c: the newest msprobe's Result and Err_message (its
 * indicator_analysis): per API, rules over its input and output rows. */
enum check_level { LEVEL_PASS, LEVEL_WARNING, LEVEL_ERROR };
/* Err_message parts, one bit each, in the order msprobe's checkers run. */
enum check_msg {
    CK_INF_NAN = 1u << 0,
    CK_REL_ERR = 1u << 1,
    CK_ONE_THOUSANDTH = 1u << 2,
    CK_REQUIRES_GRAD = 1u << 3,
    CK_PARAMETERS = 1u << 4,
    CK_DTYPE = 1u << 5,
    CK_SHAPE = 1u << 6,
    CK_REL_WARN = 1u << 7,
    CK_COSINE_WARN = 1u << 8,
    CK_CRC = 1u << 9,
    CK_PARAM_UNMATCHED = 1u << 10,
};
int check_rows(compare_ctx *c);
const char *check_level_text(int level);
/* Err_message: the JSON list of the row's messages ("[]" for none). */
void check_message(uint16_t bits, strbuf *sb);
/* The requires_grad cell: "True", "False" or "N/A". */
const char *requires_grad_text(const dump_row *r);

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
    char rel[4][NEWEST_DIFF_BUFSZ];   /* relative-error texts */
    char diff[4][NEWEST_DIFF_BUFSZ];  /* newest: difference texts */
    strbuf err;              /* Err_message */
    strbuf data_name;        /* Data_name (tensor mode) */
} row_text;

/* What the rows of a part of the table add up to (merged in order). */
typedef struct {
    size_t rows, matched, unmatched, warning, different, accuracy_no, error, red, yellow;
    size_t first_failing;
} row_counts;

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
