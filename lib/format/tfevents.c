/* TensorBoard scalar event files (tfevents.h). Field numbers are those of
 * tensorflow/core/util/event.proto and summary.proto:
 *   Event: 1 wall_time (double), 2 step (int64), 3 file_version (string),
 *          5 summary (Summary), 10 source_metadata (SourceMetadata)
 *   Summary: 1 value (repeated Value);  Value: 1 tag (string), 2 simple_value (float)
 *   SourceMetadata: 1 writer (string) */
#include "format/tfevents.h"
#include "format/protobuf.h"
#include "base/mem.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { EV_WALL = 1, EV_STEP = 2, EV_VERSION = 3, EV_SUMMARY = 5, EV_SOURCE = 10 };
enum { SUM_VALUE = 1, VAL_TAG = 1, VAL_SIMPLE = 2, SRC_WRITER = 1 };

static const char FILE_VERSION[] = "brain.Event:2";
static const char WRITER[] = "tensorboard.summary.writer.event_file_writer";

size_t tfevents_first(uint8_t *out, double wall_time, int with_source)
{
    uint8_t *p = pb_double(out, EV_WALL, wall_time);
    p = pb_bytes(p, EV_VERSION, FILE_VERSION, sizeof FILE_VERSION - 1);
    if (with_source) {
        p = pb_len(p, EV_SOURCE, pb_len_size(SRC_WRITER, sizeof WRITER - 1));
        p = pb_bytes(p, SRC_WRITER, WRITER, sizeof WRITER - 1);
    }
    return (size_t)(p - out);
}

static size_t value_size(size_t taglen) { return pb_len_size(VAL_TAG, taglen) + 1 + 4; }

size_t tfevents_scalar_size(int64_t step, size_t taglen)
{
    size_t summary = pb_len_size(SUM_VALUE, value_size(taglen));
    return 1 + 8 + (step ? pb_int64_size(EV_STEP, step) : 0) + pb_len_size(EV_SUMMARY, summary);
}

size_t tfevents_scalar(uint8_t *out, double wall_time, int64_t step, const char *tag, size_t taglen, float value)
{
    size_t vsize = value_size(taglen);
    uint8_t *p = pb_double(out, EV_WALL, wall_time);
    if (step)
        p = pb_int64(p, EV_STEP, step);
    p = pb_len(p, EV_SUMMARY, pb_len_size(SUM_VALUE, vsize));
    p = pb_len(p, SUM_VALUE, vsize);
    p = pb_bytes(p, VAL_TAG, tag, taglen);
    p = pb_float(p, VAL_SIMPLE, value);
    return (size_t)(p - out);
}

size_t tfevents_tag_encode(uint8_t *out, const char *tag, size_t taglen)
{
    size_t vsize = value_size(taglen);
    uint8_t *p = pb_len(out, EV_SUMMARY, pb_len_size(SUM_VALUE, vsize));
    p = pb_len(p, SUM_VALUE, vsize);
    p = pb_bytes(p, VAL_TAG, tag, taglen);
    p = pb_key(p, VAL_SIMPLE, PB_FIXED32);
    return (size_t)(p - out);
}

static atomic_uint writers;

char *tfevents_file_name(double wall_time)
{
    char host[256];
    if (gethostname(host, sizeof host) != 0 || !host[0])
        strcpy(host, "localhost");
    host[sizeof host - 1] = 0;
    unsigned n = atomic_fetch_add(&writers, 1);
    char buf[400];
    snprintf(buf, sizeof buf, "events.out.tfevents.%010lld.%s.%ld.%u", (long long)wall_time, host, (long)getpid(), n);
    return xstrdup(buf);
}

int tfevents_open(tfevents_writer *w, const char *path, const char *name, double wall_time)
{
    w->wall_time = wall_time;
    pb_double(w->wall, EV_WALL, wall_time);
    if (tfrecord_open(&w->rec, path, name) != 0)
        return -1;
    uint8_t *p = tfrecord_reserve(&w->rec, TFEVENTS_FIRST_MAX);
    return tfrecord_commit(&w->rec, tfevents_first(p, wall_time, 1));
}

int tfevents_add_scalar(tfevents_writer *w, int64_t step, const char *tag, size_t taglen, float value)
{
    uint8_t *p = tfrecord_reserve(&w->rec, tfevents_scalar_size(step, taglen));
    return tfrecord_commit(&w->rec, tfevents_scalar(p, w->wall_time, step, tag, taglen, value));
}

int tfevents_add_encoded(tfevents_writer *w, int64_t step, const uint8_t *tag, size_t len, float value)
{
    size_t size = 9 + (step ? pb_int64_size(EV_STEP, step) : 0) + len + 4;
    uint8_t *p = tfrecord_reserve(&w->rec, size);
    memcpy(p, w->wall, 9);
    p += 9;
    if (step)
        p = pb_int64(p, EV_STEP, step);
    memcpy(p, tag, len);
    uint32_t bits;
    memcpy(&bits, &value, 4);
    pb_le(p + len, bits, 4);
    return tfrecord_commit(&w->rec, size);
}

int tfevents_close(tfevents_writer *w) { return tfrecord_close(&w->rec); }
