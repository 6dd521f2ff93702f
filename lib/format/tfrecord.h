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
 * (ERR_OUTPUT) naming the file's final name. Not shared between threads.
 *
 * The reader walks the records of a buffer (a mapped file) in place: each
 * record is handed out as a pointer into it, both CRCs checked. A file
 * that ends inside a record is what a writer still running (or killed)
 * leaves: that is told apart from damage, which is a CRC that does not
 * match or a length no record can have, recorded (ERR_MALFORMED) with the
 * file and the record's byte offset. */
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

/* A record longer than this is damage, not data: protocol buffers cannot
 * exceed 2 GiB, and TensorBoard's events are a few bytes to megabytes. */
#define TFRECORD_MAX_LEN ((uint64_t)1 << 31)

typedef struct {
    const uint8_t *data;
    size_t size;
    size_t pos;           /* offset of the next record */
    const char *name;     /* for messages */
    uint32_t (*crc)(uint32_t, const void *, size_t);
} tfrecord_reader;

enum { TFRECORD_END = 0, TFRECORD_RECORD = 1, TFRECORD_TRUNCATED = 2 };

void tfrecord_reader_init(tfrecord_reader *r, const char *name, const void *data, size_t size);
/* The next record: TFRECORD_RECORD with *rec and *len (and r->pos past
 * it); TFRECORD_END after the last one; TFRECORD_TRUNCATED when the rest
 * of the buffer (from r->pos) is the beginning of a record cut short;
 * -1 (error recorded, naming the offset) on a CRC mismatch or an
 * impossible length. *at (may be NULL) gets the record's offset. */
int tfrecord_next(tfrecord_reader *r, const uint8_t **rec, size_t *len, size_t *at);

#endif
