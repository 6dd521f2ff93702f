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

/* ---- reading (tfevents_read.c) ----
 *
 * An event file is walked record by record over its mapping, nothing
 * copied: every scalar and every text is handed to the caller with
 * pointers into the file. A scalar is a Summary.Value's simple_value
 * (what torch's SummaryWriter, tensorboardX and TF1 write) or its tensor
 * holding one element of float, double, half or bfloat16 (what TF2's
 * tf.summary and TensorBoard's own writers write); a text is a tensor of
 * strings (add_text: plugin "text", its first string). A value whose
 * tensor has no tag is named by its node_name, as TensorBoard does. The
 * plugin of a value is given when the value carries metadata (writers
 * send it with a tag's first value only). SessionLog START events (a
 * restarted TF1 session) are handed over too: TensorBoard then forgets
 * every value at or after their step.
 *
 * A file cut inside its last record (a training still writing) is read
 * up to there and reported in the stats, not as an error; a damaged
 * record (CRC, length) or an Event that is no valid protocol buffer is an
 * error naming the file and the record's byte offset. */
enum { TFEV_SIMPLE = 1, TFEV_TENSOR = 2 };
/* TensorFlow's DataType numbers of the tensors read */
enum { TF_DT_FLOAT = 1, TF_DT_DOUBLE = 2, TF_DT_STRING = 7, TF_DT_BFLOAT16 = 14, TF_DT_HALF = 19 };

typedef struct {
    const char *tag;
    size_t taglen;
    int64_t step;
    double wall_time;
    int kind;                /* TFEV_SIMPLE or TFEV_TENSOR */
    int dtype;               /* a tensor's TF_DT_* */
    double value;            /* a scalar's value (a float32's exactly) */
    const char *text;        /* a text's first string */
    size_t textlen;
    const char *plugin;      /* the metadata's plugin name, NULL when the value has no metadata */
    size_t pluginlen;
} tfevents_value;

typedef struct {
    void *ctx;
    /* each returns 0 to go on; anything else stops the reading and is returned */
    int (*scalar)(void *ctx, const tfevents_value *v);
    int (*text)(void *ctx, const tfevents_value *v);      /* may be NULL */
    int (*restart)(void *ctx, int64_t step);              /* may be NULL */
    /* every TFEVENTS_PROGRESS bytes: the records before `offset` are done
     * (a mapped file's pages there may be let go); may be NULL */
    void (*progress)(void *ctx, size_t offset);
} tfevents_sink;

enum { TFEVENTS_PROGRESS = 32 << 20 };

typedef struct {
    uint64_t records, scalars, texts;
    int truncated;           /* the file ends inside a record */
    size_t truncated_at;     /* that record's offset */
} tfevents_stats;

/* Read the event file data[0..size) (called `path` in messages). 0, a
 * sink's non-zero value, or -1 with the error recorded. */
int tfevents_read(const char *path, const void *data, size_t size, const tfevents_sink *sink, tfevents_stats *st);

#endif
