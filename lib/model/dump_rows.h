/* The rows of a dump file: what dump_load() produces and every consumer
 * (compare, the first-diff analysis) reads. Types only. */
#ifndef MSP_DUMP_ROWS_H
#define MSP_DUMP_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
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
    pyval stat[4];          /* Max, Min, Mean, Norm */
    uint32_t entry;         /* index into dump_data.entries */
    uint8_t state;          /* row_state */
    uint8_t flags;          /* ROW_* */
    uint32_t api_len;       /* length of the "api part" prefix of name (highlight batches) */
    uint32_t p2p;           /* DUMP_FIRST_DIFF: 1 + index into dump_data.p2p; 0: not a P2POp */
} dump_row;

/* requires_grad of the leaf: given (a bool), and its value. */
enum { ROW_RG_SET = 1, ROW_RG_TRUE = 2 };

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
    dump_row *rows;
    size_t nrows, rows_cap;
    dump_entry *entries;      /* in file order (a duplicated name keeps its first place) */
    size_t nentries, entries_cap;
    dump_p2p *p2p;            /* DUMP_FIRST_DIFF only */
    size_t np2p, p2p_cap;
} dump_data;

#endif
