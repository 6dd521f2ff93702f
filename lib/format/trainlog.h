/* Training logs: the per-iteration lines trainers print, read into curves
 * named as the same trainers name their TensorBoard scalars, so that a log
 * and an event file of one run give the same series.
 *
 * Megatron-LM and MindSpeed (training.py's training_log):
 *   [2025-01-01 10:00:00.123456] iteration       10/     100 | consumed samples:   80 |
 *   elapsed time per iteration (ms): 622.0 | learning rate: 1.000000E-04 |
 *   global batch size:     8 | lm loss: 6.380680E+00 | loss scale: 1.0 |
 *   grad norm: 1.567 | num zeros: 25728 | params norm: 210.123 |
 *   number of skipped iterations:   0 | number of nan iterations:   0 |
 * each "key: number" field a series at the iteration: "lm loss" (and every
 * loss) as printed, "grad norm" as grad-norm, "num zeros" num-zeros,
 * "params norm" params-norm, "learning rate" learning-rate, "loss scale"
 * loss-scale, "global batch size" batch-size, "throughput per GPU
 * (TFLOP/s/GPU)" throughput, "elapsed time per iteration (ms)"
 * iteration-time in seconds (what its TensorBoard holds); other fields
 * under their printed names. Validation lines ("validation loss at
 * iteration 25 | lm loss value: ... | lm loss PPL: ... |") give
 * "<key> validation" and "<key> validation ppl". The argument dump
 * ("------ arguments ------", "  lr ....... 0.0001", "---- end of
 * arguments ----") is the configuration.
 *
 * MindSpore Transformers (MFLossMonitor.print_output_info):
 *   { Epoch:[  1/  2], step:[    1/  100], loss:[6.381/6.381], per_step_time: 622ms,
 *   lr: 0.0001, overflow cond: False, loss_scale: 1.0, global_norm: [1.567],
 *   train_throughput_per_npu: 12.3T
 *     4.2% |██     | 12.86000 samples/s/p  0:01:02 }
 * the step being (epoch - 1) * steps per epoch + step (its global_step):
 * loss, learning-rate, loss-scale, grad-norm, iteration-time (ms, as its
 * TensorBoard holds it), model-flops-throughput-per-npu, and throughput
 * from the line after; TrainingStateMonitor's "Epoch:[..], step:[..] TAG:
 * VALUE" lines give TAG.
 *
 * Numbers are read as Python prints them (nan, inf, NAN, 1.0E+00). A step
 * given twice with different values of a series is refused naming the
 * file and both lines (a log of two attempts at the same iterations must
 * be cut first); a file without any such line is refused. */
#ifndef MSP_TRAINLOG_H
#define MSP_TRAINLOG_H

#include <stddef.h>

#include "format/curves.h"
#include "base/files.h"

/* Does the text look like a training log (a recognised line within its
 * first lines)? */
int trainlog_sniff(const void *data, size_t n);

/* Read the log data[0..n) (the file `path`) into out, the series for
 * which want(ctx, name) holds (want NULL: all). 0 or -1. */
int trainlog_parse(const char *path, const void *data, size_t n, curves *out,
                   int (*want)(void *ctx, const char *name, size_t len), void *ctx);

/* The same over a mapped file (read under the caller's guard), whose
 * pages are let go as the reading moves on. */
int trainlog_parse_mapped(const char *path, const mapped_file *f, curves *out,
                          int (*want)(void *ctx, const char *name, size_t len), void *ctx);

/* Line by line: trainlog_line() reads one line (no line break) and
 * returns 1 when it recognised it, 0 when not. */
typedef struct trainlog_state trainlog_state;
trainlog_state *trainlog_begin(const char *path, curves *out, int (*want)(void *ctx, const char *name, size_t len),
                               void *ctx);
int trainlog_line(trainlog_state *st, const char *s, size_t n);
/* Settle the series (order by step, refuse repeats): 0 or -1; frees st. */
int trainlog_end(trainlog_state *st);

#endif
