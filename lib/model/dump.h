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
/* DUMP_NEWER_ROWS: the rows of msprobe 8.2 and later (the newest msprobe's
 * too) without 8.3's statistics texts: the src/dst, ProcessGroup and
 * P2POp rules above (a P2POp: PyTorch's class only, as the newest msprobe
 * knows it; DUMP_FIRST_DIFF takes MindSpore's too).
 * DUMP_TREE_WALK: every entry parsed into a tree and walked, none read
 * straight from the text (the tests hold the two ways to the same rows). */
enum { DUMP_FIRST_DIFF = 1, DUMP_TREE_WALK = 2, DUMP_NEWER_ROWS = 4 };
int dump_load_ex(const char *path, unsigned flags, dump_data *d);
/* The same, reporting to `pj` (may be NULL) the bytes of the file parsed;
 * the file's size is added to the current phase's total. */
int dump_load_progress(const char *path, unsigned flags, progress_job *pj, dump_data *d);

/* A dump.json read entry by entry by its caller (graph walks the file
 * itself and keeps only an index of its entries): dump_init() prepares an
 * empty d (`path` names the file in messages), dump_entry_rows() appends
 * the rows msprobe's read_op() makes of one parsed entry value, as a new
 * entry, and dump_clear() forgets entries and rows again (free with
 * dump_free()). The rows are in read order -- input_args, input_kwargs,
 * input, output, parameters -- not re-ordered by state, and the values are
 * not checked the way compare checks them; a row whose name has no state
 * gets ST_UNKNOWN. `leaf`, when not NULL, is called as each row is made
 * with the leaf object it comes from (NULL for a null item). 0, or -1 with
 * the error recorded (nesting deeper than 10 levels, a data_name that is
 * not text, a ragged slice). */
typedef void (*dump_leaf_fn)(void *ctx, const jval *leaf);
void dump_init(dump_data *d, const char *path);
int dump_entry_rows(dump_data *d, const char *name, size_t namelen, const jval *value, dump_leaf_fn leaf, void *ctx);
void dump_clear(dump_data *d);
/* dump_entry_rows with the checks compare's reading makes of an entry
 * (the same messages): an api name with special characters, an entry that
 * is not an object, msprobe's check_dump_json_str() of its values, a row
 * name that cannot be split by forward/backward. For a reader that makes
 * rows of its own (data2db) but must refuse what compare refuses. 0 or -1. */
int dump_entry_check(dump_data *d, const char *name, size_t namelen, const jval *value);
/* msprobe's md5_find() on one entry value of dump.json. */
int dump_entry_has_md5(const jval *entry);

/* msprobe's detect_framework_by_dump_json() for a reader of its own: the
 * "framework" value (NULL when absent or not a string), else the scan of
 * the file's text buf[0..len) for a "type" naming mindspore or torch;
 * 'p', 'm' or 0. */
int dump_framework_text(const char *framework, const void *buf, size_t len);

/* 'p' (PyTorch), 'm' (MindSpore) or 0: the "framework" key, else msprobe's
 * scan of the leaf types. */
int dump_framework(const dump_data *d);

/* msprobe's get_name_and_state(): state of a row name and the length of its
 * "api part" (`Functional.pad.0.backward.`, `Module.l.Linear.forward.0.`).
 * Returns -1 for a name that cannot be split by forward/backward. */
int row_name_state(const char *name, size_t *api_len, int *state);

#endif
