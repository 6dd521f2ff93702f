/* A directory of TensorBoard event files read as Megatron's checker reads
 * it (see train_input.h): for train_input.c. */
#ifndef MSP_TB_RUN_H
#define MSP_TB_RUN_H

#include "model/train_input.h"

/* The event files of `dir` (events*tfevents* in it and in dir/results),
 * malloc'ed paths in merge order; *n of them (0: none). -1 on error. */
int tb_run_files(const char *dir, int order, char ***files, size_t *n);
/* Read the event files files[0..n) (in merge order) into out->c, the tags
 * named prefix + tag (prefix may be ""). Records the files used in out. */
int tb_run_read(char **files, size_t n, const char *prefix, const train_read_opts *o, train_input *out);

#endif
