/* The rows of a dump file: what dump_load() produces and every consumer
 * (compare, the first-diff analysis) reads. Types only. */
#ifndef MSP_DUMP_ROWS_H
#define MSP_DUMP_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/strmap.h"
#include "base/value.h"
#include "py/pyvalue.h"

/* Row states in msprobe's terms; kwargs count as inputs. */
enum row_state { ST_INPUT, ST_KWARGS, ST_OUTPUT, ST_PARAMS, ST_PARAMS_GRAD, ST_DEBUG,
                 ST_UNKNOWN /* dump_entry_rows(): a name without a state */ };

typedef struct {
    const char *name;       /* row name */
    const char *dtype;      /* str() of the dtype, e.g. "torch.float32", "<class 'int'>", "None" */
    const char *shape;      /* str() of the shape, e.g. "[4, 8]", "[]", "(3,)", "None" */
    const char *md5;        /* str() of md5 (CRC-32 of str(value) for scalars); NULL: None */
    const char *data_name;  /* tensor file name, "-1" when none */
    /* Max, Min, Mean, Norm: read them with dump_stat(). A row holds them
     * packed (the kind and the number) when all four are None, bools or
     * floats -- the bulk of a dump --, else as Python values in stat_ext. */
    double stat_num[4];
    const pyval *stat_ext;  /* the four values; NULL: packed */
    uint8_t stat_kind[4];   /* pv_kind of the packed values */
    uint32_t entry;         /* index into dump_data.entries */
    uint8_t state;          /* row_state */
    uint8_t flags;          /* ROW_* */
    uint32_t api_len;       /* length of the "api part" prefix of name (highlight batches) */
    uint32_t p2p;           /* DUMP_FIRST_DIFF: 1 + index into dump_data.p2p; 0: not a P2POp */
} dump_row;

/* requires_grad of the leaf: given (a bool), and its value. ROW_VALUE_STATS:
 * the statistics are the leaf's "value" (a scalar argument), not the
 * leaf's Max/Min/Mean/Norm (the newest msprobe keeps a bool value a bool
 * there, and turns the bools of a leaf into texts). */
enum { ROW_RG_SET = 1, ROW_RG_TRUE = 2, ROW_VALUE_STATS = 4 };

/* The op and peer of a torch.distributed.P2POp argument (batch_isend_irecv). */
typedef struct {
    pyval op, peer;
} dump_p2p;

typedef struct {
    const char *name;
    size_t first_row, nrows;   /* rows in order, already re-ordered by state */
} dump_entry;

enum dump_file_type { DUMP_JSON, DEBUG_JSON };

typedef struct {
    char *path;
    int file_type;            /* DUMP_JSON or DEBUG_JSON */
    char *task, *framework;   /* top-level strings; NULL when absent or not a string */
    int task_present;         /* the key exists and is truthy */
    int has_md5;              /* msprobe's md5_find() on `data` */
    int framework_hint;       /* 'm' mindspore / 'p' pytorch / 0 from scanning leaf types */
    arena mem;                /* row names and strings */
    strmap interned;          /* dtype and shape texts, held once in mem */
    dump_row *rows;
    size_t nrows, rows_cap;
    dump_entry *entries;      /* in file order (a duplicated name keeps its first place) */
    size_t nentries, entries_cap;
    dump_p2p *p2p;            /* DUMP_FIRST_DIFF only */
    size_t np2p, p2p_cap;
    int p2pop_rows;           /* dump_entry_rows(): a P2POp argument is one row, named after its
                               * position (the newest msprobe's graph items) */
} dump_data;

/* Statistic k (0 Max, 1 Min, 2 Mean, 3 Norm) of a row as a Python value. */
static inline pyval dump_stat(const dump_row *r, int k)
{
    if (r->stat_ext)
        return r->stat_ext[k];
    pyval v = {.kind = r->stat_kind[k], .num = r->stat_num[k]};
    if (v.kind == PV_FLOAT) {
        v.pd_num = v.num;
        v.pd_ok = 1;
    }
    return v;
}

/* Store a row's four statistics (packed when they allow it; `mem` holds
 * the values when not). */
void dump_set_stats(dump_row *r, const pyval st[4], arena *mem);

#endif
