/* A directory of TensorBoard event files read as Megatron's checker reads
 * it (train_input.h tells how), and the options of reading a run's files. */
#ifndef MSP_TB_RUN_H
#define MSP_TB_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "format/curves.h"

enum { TB_ORDER_MTIME, TB_ORDER_NAME };

typedef struct {
    int tb_file_index;      /* -1: merge every file with scalars; i: the i-th of them */
    int tb_order;           /* TB_ORDER_MTIME (Megatron's) or TB_ORDER_NAME (the writer's time stamp) */
    int jobs;               /* event files read at once */
    /* series to keep (NULL: all): called once per name */
    int (*want)(void *ctx, const char *name, size_t len);
    void *want_ctx;
} train_read_opts;

/* The event files of `dir` (events*tfevents* in it and in dir/results),
 * malloc'ed paths in merge order; *n of them (0: none). -1 on error. */
int tb_run_files(const char *dir, int order, char ***files, size_t *n);
/* Read the event files files[0..n) (in merge order) into out, the tags
 * named prefix + tag (prefix may be ""); the files used (those with
 * scalars, or the one asked for) are appended to *used (malloc'ed copies,
 * *nused of them) and the bytes read added to *bytes. 0 or -1. */
int tb_run_read(char **files, size_t n, const char *prefix, const train_read_opts *o, curves *out, char ***used,
                size_t *nused, uint64_t *bytes);

#endif
