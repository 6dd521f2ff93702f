/* A dump file (dump.json or debug.json) as the ordered list of its rows.
 *
 * msprobe compare turns every API/module entry of `data` into rows, one per
 * tensor or scalar leaf (spec/compare.md §3): names like
 * `Functional.conv2d.0.forward.input.0`, dtype and shape strings, the four
 * statistics, md5 and data_name. This module does that flattening, while
 * streaming the file entry by entry, so only the rows stay in memory.
 */
#ifndef MSP_DUMP_H
#define MSP_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "base/progress.h"
#include "model/dump_rows.h"

/* Load and flatten a dump.json/debug.json. The file type comes from the
 * base name. Errors (file, JSON, layout, msprobe's validity checks) are
 * recorded and -1 returned. */
int dump_load(const char *path, dump_data *d);
void dump_free(dump_data *d);

/* The rows msprobe 8.3's compare builds for the first-diff analysis
 * (spec/analyzers.md §C.2), where they differ from 8.1.0's:
 *   - an int argument named src, dst, group_src or group_dst: dtype is its
 *     "type", statistics and md5 are str(value);
 *   - a ProcessGroup's md5 is str(group_ranks);
 *   - a P2POp (class_type torch.distributed.P2POp, or MindSpore's) is one row
 *     named after its position, with its tensor's fields and its op and peer;
 *   - a missing statistic is the text "None"; a bool statistic of a tensor the
 *     text "True"/"False". */
enum { DUMP_FIRST_DIFF = 1 };
int dump_load_ex(const char *path, unsigned flags, dump_data *d);
/* The same, reporting to `pj` (may be NULL) the bytes of the file parsed;
 * the file's size is added to the current phase's total. */
int dump_load_progress(const char *path, unsigned flags, progress_job *pj, dump_data *d);

/* 'p' (PyTorch), 'm' (MindSpore) or 0: the "framework" key, else msprobe's
 * scan of the leaf types. */
int dump_framework(const dump_data *d);

/* msprobe's get_name_and_state(): state of a row name and the length of its
 * "api part" (`Functional.pad.0.backward.`, `Module.l.Linear.forward.0.`).
 * Returns -1 for a name that cannot be split by forward/backward. */
int row_name_state(const char *name, size_t *api_len, int *state);

#endif
