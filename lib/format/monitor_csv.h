/* The csv files of msprobe's training monitor (TrainerMon, PyTorch and
 * MindSpore alike, spec/analyzers.md §E.3):
 *
 *   vpp_stage,name,step[,micro_step],<ops...>[,shape,dtype]
 *   0,0.fc1.input,12,1,-2.4,1.9,10.3,0.0,0,-0.04,"[16, 8]",torch.float32
 *
 * read the way the Python converters read them (pandas.read_csv with its
 * defaults): pandas' missing-value words are NaN, numbers are parsed by
 * pandas' own rules (py/pdnum.h), integers in vpp_stage, step and
 * micro_step. The caller names the numeric columns it wants (the ops) and
 * gets, row by row, the series the row belongs to — (vpp_stage, name,
 * micro_step), numbered in order of first appearance in the file — its
 * step and the wanted values.
 *
 * What pandas would read into something unusable is refused, naming the
 * file and line: a header without vpp_stage, name or step; a row with more
 * or fewer fields than the header (a truncated last line); a step,
 * vpp_stage or micro_step that is not an integer; a wanted cell that is
 * neither a number nor a missing value; the same series and step twice.
 * Thread-safe; memory grows with the series of one file, not its rows. */
#ifndef MSP_MONITOR_CSV_H
#define MSP_MONITOR_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"

enum { MCSV_MAX_OPS = 32 };

/* One series of a file: what its rows share. */
typedef struct {
    long long vpp;
    long long micro;        /* 0 when the file has no micro_step column */
    const char *name;       /* NUL-terminated; "nan" for an empty or missing-value name, as pandas reads it */
    size_t name_len;
} mcsv_series;

typedef struct {
    /* the wanted columns: in the caller's order, and in the file's */
    int has_micro;
    int present[MCSV_MAX_OPS];          /* wanted[i] is a column of the file */
    size_t nfile_ops;
    size_t file_ops[MCSV_MAX_OPS];      /* indices into wanted, in file column order */
    size_t ncols;                       /* columns of the header */
} mcsv_header;

typedef struct {
    size_t line;                        /* 1-based; the header is line 1 */
    size_t series;                      /* index of its series in the file (first appearance) */
    const mcsv_series *s;
    long long step;
    const double *value;                /* [nwanted]; NaN for a missing value or an absent column */
} mcsv_row;

/* Called once after the header (may be NULL), then per row. A non-zero
 * return stops the reading and is returned. */
typedef int (*mcsv_header_fn)(void *ctx, const mcsv_header *h);
typedef int (*mcsv_row_fn)(void *ctx, const mcsv_row *r);

typedef struct {
    const char *const *wanted;          /* op column names */
    size_t nwanted;                     /* <= MCSV_MAX_OPS */
    mcsv_header_fn on_header;
    mcsv_row_fn on_row;
    void *ctx;
    arena *names;                       /* where the series' names go, to outlive the reading (a reader
                                           that keeps them then needs no copy); NULL: freed with it */
} mcsv_reader;

/* Read buf[0..len) (the file `path`, for messages). 0, a callback's value,
 * or -1 with the error recorded. */
int mcsv_read(const char *path, const void *buf, size_t len, const mcsv_reader *r);

/* Only the header: the first line of buf. 0 or -1. */
int mcsv_read_header(const char *path, const void *buf, size_t len, const mcsv_reader *r, mcsv_header *h);

#endif
