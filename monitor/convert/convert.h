/* What monitor2tb and monitor2db share: choosing the run directories and
 * csv files of a monitor tree (time window, data types, steps), reading a
 * csv file under a mapping guard, the policy for malformed files, and the
 * default output directory. */
#ifndef MSP_MONITOR_CONVERT_H
#define MSP_MONITOR_CONVERT_H

#include "base/numlist.h"
#include "format/monitor_csv.h"
#include "model/monitor_tree.h"
#include "base/arena.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *monitor_dir;
    const char *out_dir;         /* NULL: the default */
    const char *types;           /* comma-separated, NULL: all the command takes */
    const char *time_start, *time_end;
    const char *steps;           /* NULL: all */
    int jobs;
    int skip_bad;
    int quiet;
} conv_opts;

/* The files of one rank and data type, in step order. */
typedef struct {
    const monitor_run *run;
    int type;
    const monitor_file *files;
    size_t nfiles;
    uint64_t bytes;
} conv_task;

typedef struct {
    monitor_runs runs;
    monitor_files *files;        /* per run */
    conv_task *tasks;            /* by rank, then type */
    size_t ntasks, nfiles;
    uint64_t bytes;
    unsigned types;              /* bits of enum monitor_type */
    numlist steps;               /* empty: all */
    int has_steps;
} conv_plan;

/* The types a --types list names (all of `allowed` when NULL), or -1 with a
 * usage error recorded: `cmd_types` lists what the command accepts. */
int conv_types(const char *list, unsigned allowed, unsigned *out);

/* Check the options, find the run directories (warning about ones skipped)
 * and their csv files of the chosen types, keeping the files whose step
 * range meets --steps. Two files of one rank and type whose step ranges
 * overlap are refused (their rows could repeat each other). 0 or -1. */
int conv_plan_make(const conv_opts *o, unsigned allowed, conv_plan *p);
void conv_plan_free(conv_plan *p);
/* Is the step selected (--steps)? */
int conv_step_wanted(const conv_plan *p, long long step);

/* The rows of one csv file, held until the whole file has been read, so
 * that a malformed file contributes nothing. Values are kept for the wanted
 * columns the file has, in its column order (h.file_ops). */
typedef struct {
    mcsv_header h;
    mcsv_series *series;         /* names live in `names` */
    size_t nseries, series_cap;
    uint32_t *row_series;
    int64_t *row_step;
    double *values;              /* nrows * h.nfile_ops */
    size_t nrows, rows_cap, values_cap;
    arena names;
} conv_rows;

void conv_rows_init(conv_rows *r);
void conv_rows_free(conv_rows *r);

/* Read one csv file into *out (emptied first): the rows of the steps
 * --steps selects; a step outside the file's name range is an error.
 * Returns 0, -1 (error recorded), or 1 when the file was malformed and is
 * skipped under --skip-bad (a warning printed, *out empty). `bytes` gets
 * the file's size. */
int conv_read_file(const conv_opts *o, const conv_plan *p, const monitor_file *f, const char *const *wanted,
                   size_t nwanted, conv_rows *out, uint64_t *bytes);

/* Every file of the plan, read on o->jobs threads ahead of the caller and
 * handed to `consume` on the calling thread in plan order (rank, type,
 * steps), so that what the caller builds from them does not depend on
 * timing. At most a few files wait read; a skipped file (--skip-bad, or
 * skip[i] set for the i-th file of the plan) is handed over empty with
 * skipped set. Stops at the first failure, in plan
 * order, and returns -1 with its error recorded. */
typedef int (*conv_consume_fn)(void *ctx, const conv_task *t, const monitor_file *f, conv_rows *rows, int skipped,
                               uint64_t bytes);
int conv_read_ordered(const conv_opts *o, const conv_plan *p, const char *const *wanted, size_t nwanted,
                      const unsigned char *skip, conv_consume_fn consume, void *ctx);

/* The same, with a step run on the reading thread right after each file
 * is read: `prepare` turns its rows into what the consumer needs (into
 * `out`, a buffer kept per reading slot and reused: grow it with
 * conv_buffer_room), so that the consuming thread, the one that cannot be
 * parallel, does as little as possible. A file skipped or empty is handed
 * over with out->len 0. */
typedef struct {
    void *data;
    size_t len, cap;   /* bytes */
} conv_buffer;
void *conv_buffer_room(conv_buffer *b, size_t bytes);
typedef int (*conv_prepare_fn)(void *ctx, const conv_task *t, const conv_rows *rows, conv_buffer *out);
typedef int (*conv_consume_prepared_fn)(void *ctx, const conv_task *t, const conv_rows *rows, conv_buffer *in,
                                        int skipped, uint64_t bytes);
int conv_read_ordered_prepared(const conv_opts *o, const conv_plan *p, const char *const *wanted, size_t nwanted,
                               const unsigned char *skip, conv_prepare_fn prepare,
                               conv_consume_prepared_fn consume, void *ctx);

/* The default output directory: MONITOR_DIR/{%b%d_%H-%M-%S}-{suffix}, the
 * time in Asia/Shanghai as msprobe takes it, a second later while that
 * name exists. malloc'ed. */
char *conv_default_out(const char *monitor_dir, const char *suffix);

/* "1.2 MB" style sizes for the summary lines. */
void conv_size_text(uint64_t bytes, char *buf, size_t cap);

#endif
