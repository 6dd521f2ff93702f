/* One training run's curves, from whatever it left: a directory of
 * TensorBoard event files, a Megatron golden-values JSON, a training log
 * (Megatron-LM, MindSpeed, MindSpore Transformers) or the output directory
 * of msprobe's training monitor -- recognised by content, read into curves
 * (format/curves.h).
 *
 * A TensorBoard directory is read as Megatron's checker reads it
 * (common.py's read_tb_logs_as_list): the event files events*tfevents* in
 * it and in its results/ folder, ordered by modification time, those
 * without any scalar dropped, one of them (tb_file_index) or all merged, a
 * step both files hold keeping the earlier file's value, and within a
 * file a step logged twice keeping the later value. A directory without
 * event files of its own but with folders that have some (monitor2tb's
 * rank0/actv/, TensorBoard's runs) is read folder by folder, each
 * folder's tags named "folder/tag". The training monitor's csv series are
 * named as monitor2tb names their tags, under "rank{R}/{type}/" for a
 * monitor output directory and "{type}/" for one rank's run directory, so
 * that the directory and its monitor2tb conversion give the same series.
 *
 * Then every input but golden values is sampled and rounded as the checker
 * samples TensorBoard scalars for its golden values (train_sample). */
#ifndef MSP_TRAIN_INPUT_H
#define MSP_TRAIN_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "format/curves.h"
#include "model/tb_run.h"

enum train_kind { TRAIN_TENSORBOARD, TRAIN_GOLDEN, TRAIN_LOG, TRAIN_MONITOR };
extern const char *const train_kind_names[];   /* "TensorBoard event files", ... */

typedef struct {
    int kind;               /* enum train_kind */
    curves c;
    char **files;           /* the event files used, in merge order (TRAIN_TENSORBOARD) */
    size_t nfiles;
    uint64_t bytes;         /* bytes read */
} train_input;

/* Read `path` into *out (initialised here; free with train_input_free,
 * also after a failure). 0 or -1 (error recorded, naming the file). */
int train_input_read(const char *path, const train_read_opts *o, train_input *out);
void train_input_free(train_input *in);

/* The sampling of Megatron's golden values: keep step s when
 * s <= train_iters (when > 0) and (s == start or (s > start and s %
 * interval == 0)), s >= 1 -- or s == 0 too when start is 0 (Megatron's
 * reader never keeps step 0; a training monitor's steps start there) --
 * then round each float to round_digits decimals (Python's round(); < 0:
 * not rounded; strings and ints as they are). Series left without values
 * are removed, as the checker skips them. */
typedef struct {
    int64_t train_iters;    /* <= 0: no limit */
    int64_t start;          /* Megatron's start_idx, 1 */
    int64_t interval;       /* its step_size, 1 (>= 1) */
    int round_digits;       /* 5; -1 none */
} train_sampling;

void train_sample(curves *c, const train_sampling *s);

#endif
