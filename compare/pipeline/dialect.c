/* The column tables of the two dialects (dialect.h). */
#include "compare/pipeline/dialect.h"
#include "model/table.h"

#include <string.h>

#define BASIC COL_NPU_NAME, COL_BENCH_NAME, COL_NPU_DTYPE, COL_BENCH_DTYPE, COL_NPU_SHAPE, COL_BENCH_SHAPE
#define DIFFS COL_DIFF, COL_DIFF + 1, COL_DIFF + 2, COL_DIFF + 3, COL_REL, COL_REL + 1, COL_REL + 2, COL_REL + 3
#define METRICS COL_METRIC, COL_METRIC + 1, COL_METRIC + 2, COL_METRIC + 3, COL_METRIC + 4, COL_METRIC + 5
#define STATS                                                                                                     \
    COL_NPU_STAT, COL_NPU_STAT + 1, COL_NPU_STAT + 2, COL_NPU_STAT + 3, COL_BENCH_STAT, COL_BENCH_STAT + 1,       \
        COL_BENCH_STAT + 2, COL_BENCH_STAT + 3

/* msprobe 8.1.0 (spec/compare.md §5.1) */
static const uint8_t all_81[] = {BASIC, METRICS, STATS, COL_ACCURACY, COL_ERR, COL_STACK, COL_DATA_NAME};
static const uint8_t summary_81[] = {BASIC, DIFFS, STATS, COL_RESULT, COL_ERR, COL_STACK};
static const uint8_t md5_81[] = {BASIC, COL_NPU_MD5, COL_BENCH_MD5, COL_RESULT, COL_STACK};

/* the newest msprobe: CompareConst.HEAD_OF_COMPARE_MODE, then the stack
 * and Data_name (make_result_df) */
static const uint8_t all_new[] = {BASIC,          COL_NPU_RG, COL_BENCH_RG, METRICS,   STATS,
                                  COL_RG_CONSISTENT, COL_RESULT, COL_ERR,   COL_STACK, COL_DATA_NAME};
static const uint8_t summary_new[] = {BASIC, COL_NPU_RG, COL_BENCH_RG, DIFFS, STATS, COL_RG_CONSISTENT, COL_RESULT,
                                      COL_ERR, COL_STACK};
static const uint8_t md5_new[] = {BASIC,      COL_NPU_RG, COL_BENCH_RG, COL_NPU_MD5, COL_BENCH_MD5, COL_RG_CONSISTENT,
                                  COL_RESULT, COL_ERR,    COL_STACK};

#define N(a) (uint8_t)(sizeof(a) / sizeof(a)[0])

static const dialect dialects[2] = {
    [DIALECT_81] = {.name = "8.1",
                    .cols = {[MODE_ALL] = all_81, [MODE_SUMMARY] = summary_81, [MODE_MD5] = md5_81},
                    .ncols = {[MODE_ALL] = N(all_81), [MODE_SUMMARY] = N(summary_81), [MODE_MD5] = N(md5_81)},
                    .join_on_shape = 1,
                    .default_format = TABLE_XLSX,
                    .advisor = 1,
                    .fills = 1},
    [DIALECT_NEWEST] = {.name = "newest",
                        .cols = {[MODE_ALL] = all_new, [MODE_SUMMARY] = summary_new, [MODE_MD5] = md5_new},
                        .ncols = {[MODE_ALL] = N(all_new), [MODE_SUMMARY] = N(summary_new), [MODE_MD5] = N(md5_new)},
                        .renumber_backward = 1,
                        .default_format = TABLE_CSV},
};

const dialect *dialect_of(int id) { return &dialects[id == DIALECT_NEWEST ? DIALECT_NEWEST : DIALECT_81]; }

int dialect_parse(const char *name)
{
    for (int i = 0; i < 2; i++)
        if (!strcmp(name, dialects[i].name))
            return i;
    return -1;
}

static const char *col_name(int id)
{
    static const char *const diff[4] = {"Max diff", "Min diff", "Mean diff", "L2norm diff"};
    static const char *const rel[4] = {"MaxRelativeErr", "MinRelativeErr", "MeanRelativeErr", "NormRelativeErr"};
    static const char *const npu[4] = {"NPU max", "NPU min", "NPU mean", "NPU l2norm"};
    static const char *const bench[4] = {"Bench max", "Bench min", "Bench mean", "Bench l2norm"};
    if (id >= COL_DIFF && id < COL_DIFF + 4)
        return diff[id - COL_DIFF];
    if (id >= COL_REL && id < COL_REL + 4)
        return rel[id - COL_REL];
    if (id >= COL_METRIC && id < COL_METRIC + MET_COUNT)
        return metric_names[id - COL_METRIC];
    if (id >= COL_NPU_STAT && id < COL_NPU_STAT + 4)
        return npu[id - COL_NPU_STAT];
    if (id >= COL_BENCH_STAT && id < COL_BENCH_STAT + 4)
        return bench[id - COL_BENCH_STAT];
    switch (id) {
    case COL_NPU_NAME: return "NPU Name";
    case COL_BENCH_NAME: return "Bench Name";
    case COL_NPU_DTYPE: return "NPU Dtype";
    case COL_BENCH_DTYPE: return "Bench Dtype";
    case COL_NPU_SHAPE: return "NPU Tensor Shape";
    case COL_BENCH_SHAPE: return "Bench Tensor Shape";
    case COL_NPU_RG: return "NPU Requires_grad";
    case COL_BENCH_RG: return "Bench Requires_grad";
    case COL_NPU_MD5: return "NPU MD5";
    case COL_BENCH_MD5: return "BENCH MD5";
    case COL_RG_CONSISTENT: return "Requires_grad Consistent";
    case COL_RESULT: return "Result";
    case COL_ACCURACY: return "Accuracy Reached or Not";
    case COL_ERR: return "Err_message";
    case COL_STACK: return "NPU_Stack_Info";
    case COL_DATA_NAME: return "Data_name";
    }
    return "";
}

int dialect_columns(const compare_ctx *c, uint8_t *ids, const char **names)
{
    const dialect *d = dialect_of(c->opts->dialect);
    int n = 0;
    for (int j = 0; j < d->ncols[c->mode]; j++) {
        uint8_t id = d->cols[c->mode][j];
        if (id == COL_STACK && !c->have_stack)
            continue;
        ids[n] = id;
        names[n++] = col_name(id);
    }
    return n;
}
