/* TFRecord files (what TensorBoard's event files are): a sequence of
 * records, each
 *
 *     uint64 length (little-endian)
 *     uint32 masked CRC-32C of those 8 bytes
 *     byte   data[length]
 *     uint32 masked CRC-32C of data
 *
 * The writer fills a buffer and writes it out in large blocks to a file
 * the caller created (a temporary output, committed by the caller), so a
 * record's bytes are encoded in place, never copied. Errors are recorded
 * (ERR_OUTPUT) naming the file's final name. Not shared between threads. */
#ifndef MSP_TFRECORD_H
#define MSP_TFRECORD_H

#include <stddef.h>
#include <stdint.h>

enum { TFRECORD_OVERHEAD = 16 };

typedef struct {
    int fd;
    const char *name;     /* for messages (the final name) */
    uint8_t *buf;
    size_t len, cap;
    uint64_t written;     /* bytes handed to the file so far */
    int failed;
    uint32_t (*crc)(uint32_t, const void *, size_t);   /* crc32c_best() */
} tfrecord_writer;

/* Open `path` (existing, e.g. from out_tmp_create) for writing; `name` is
 * what error messages call it and must outlive the writer. 0 or -1. */
int tfrecord_open(tfrecord_writer *w, const char *path, const char *name);
/* Room for a record of up to `max` data bytes: where its data goes. */
uint8_t *tfrecord_reserve(tfrecord_writer *w, size_t max);
/* The record whose `len` data bytes were written at the reserved place:
 * frame it. 0, or -1 when writing the buffer out failed. */
int tfrecord_commit(tfrecord_writer *w, size_t len);
/* A whole record from data elsewhere. */
int tfrecord_write(tfrecord_writer *w, const void *data, size_t len);
/* Flush and close; 0 or -1 (error recorded). Safe after a failure. */
int tfrecord_close(tfrecord_writer *w);
/* Bytes written so far, buffered ones included. */
static inline uint64_t tfrecord_size(const tfrecord_writer *w) { return w->written + w->len; }

/* Frame one record into out (len + TFRECORD_OVERHEAD bytes). */
void tfrecord_frame(uint8_t *out, const void *data, size_t len);

#endif
