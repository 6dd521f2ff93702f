/* TensorBoard event files of scalars, as torch.utils.tensorboard's
 * SummaryWriter writes them (TensorBoard 2.x): TFRecords (tfrecord.h) of
 * tensorflow.Event protobufs,
 *
 *   first:   Event{wall_time, file_version "brain.Event:2",
 *                  source_metadata{writer "tensorboard.summary.writer.event_file_writer"}}
 *   then:    Event{wall_time, step, summary{value[{tag, simple_value}]}}
 *
 * with the proto3 rules: fields in ascending number, a zero step left out,
 * simple_value (a oneof member) written even when 0. Files are named
 * events.out.tfevents.{%010d seconds}.{host}.{pid}.{n}, n counting the
 * writers of the process. */
#ifndef MSP_TFEVENTS_H
#define MSP_TFEVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "format/protobuf.h"
#include "format/tfrecord.h"

/* The first Event; with_source adds source_metadata (recent TensorBoard
 * releases write it, older ones not; readers take both). Returns its size;
 * out needs TFEVENTS_FIRST_MAX bytes. */
enum { TFEVENTS_FIRST_MAX = 96 };
size_t tfevents_first(uint8_t *out, double wall_time, int with_source);

/* A scalar Event: its exact size, and the event written into out. */
size_t tfevents_scalar_size(int64_t step, size_t taglen);
size_t tfevents_scalar(uint8_t *out, double wall_time, int64_t step, const char *tag, size_t taglen, float value);

/* A tag's part of its events, encoded once: the Summary holding one Value
 * with the tag, up to the float (everything after the step but the
 * value). TFEVENTS_TAG_EXTRA bytes more than the tag at most. */
enum { TFEVENTS_TAG_EXTRA = 3 * PB_VARINT_MAX + 4 };
size_t tfevents_tag_encode(uint8_t *out, const char *tag, size_t taglen);

/* "events.out.tfevents.{seconds}.{host}.{pid}.{n}", malloc'ed; n is the
 * next number of a process-wide counter (from 0). */
char *tfevents_file_name(double wall_time);

/* An event file being written: the first event is written by open. */
typedef struct {
    tfrecord_writer rec;
    double wall_time;   /* the time of every event (one per file, set at open) */
    uint8_t wall[9];    /* its field, encoded */
} tfevents_writer;

int tfevents_open(tfevents_writer *w, const char *path, const char *name, double wall_time);
int tfevents_add_scalar(tfevents_writer *w, int64_t step, const char *tag, size_t taglen, float value);
/* The same with the tag encoded by tfevents_tag_encode (faster: many
 * events share a tag). */
int tfevents_add_encoded(tfevents_writer *w, int64_t step, const uint8_t *tag, size_t len, float value);
int tfevents_close(tfevents_writer *w);

#endif
