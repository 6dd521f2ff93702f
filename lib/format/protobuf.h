/* The few pieces of the protocol-buffers wire format that TensorBoard
 * events need (proto3: varints, fixed 32/64-bit numbers, length-delimited
 * strings and messages), written straight into a byte buffer and read
 * straight from one. No library: the messages are tiny and fixed, and an
 * encoder and a field walker this small are faster than building message
 * objects.
 *
 * Each writer returns the position after what it wrote; the caller makes
 * sure there is room (at most PB_VARINT_MAX bytes for a varint). A nested
 * message is written as its key, its length (computed beforehand with the
 * *_size helpers) and its fields.
 *
 * Reading walks a message's fields in order (pb_next), handing out each
 * one's number, wire type and value -- a length-delimited field as a
 * pointer into the buffer, never a copy; a nested message is walked by a
 * reader over those bytes. Groups (wire types 3 and 4, gone from proto3)
 * and field number 0 are malformed. */
#ifndef MSP_PROTOBUF_H
#define MSP_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { PB_VARINT = 0, PB_FIXED64 = 1, PB_LEN = 2, PB_FIXED32 = 5, PB_VARINT_MAX = 10 };

/* Bytes of v as a varint (1..10). */
static inline size_t pb_varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static inline uint8_t *pb_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* A field's key: number and wire type. */
static inline uint8_t *pb_key(uint8_t *p, unsigned field, unsigned wire)
{
    return pb_varint(p, (uint64_t)field << 3 | wire);
}
static inline size_t pb_key_size(unsigned field) { return pb_varint_size((uint64_t)field << 3); }

/* int64 fields: negative numbers take ten bytes (two's complement). */
static inline uint8_t *pb_int64(uint8_t *p, unsigned field, int64_t v)
{
    return pb_varint(pb_key(p, field, PB_VARINT), (uint64_t)v);
}
static inline size_t pb_int64_size(unsigned field, int64_t v) { return pb_key_size(field) + pb_varint_size((uint64_t)v); }

/* Little-endian whatever the host: the wire format is. */
static inline uint8_t *pb_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

static inline uint8_t *pb_double(uint8_t *p, unsigned field, double d)
{
    uint64_t bits;
    memcpy(&bits, &d, 8);
    return pb_le(pb_key(p, field, PB_FIXED64), bits, 8);
}

static inline uint8_t *pb_float(uint8_t *p, unsigned field, float f)
{
    uint32_t bits;
    memcpy(&bits, &f, 4);
    return pb_le(pb_key(p, field, PB_FIXED32), bits, 4);
}

/* The key and length of a length-delimited field (a string, bytes, or a
 * nested message whose `len` bytes follow). */
static inline uint8_t *pb_len(uint8_t *p, unsigned field, size_t len)
{
    return pb_varint(pb_key(p, field, PB_LEN), len);
}
static inline size_t pb_len_size(unsigned field, size_t len) { return pb_key_size(field) + pb_varint_size(len) + len; }

static inline uint8_t *pb_bytes(uint8_t *p, unsigned field, const void *s, size_t n)
{
    p = pb_len(p, field, n);
    memcpy(p, s, n);
    return p + n;
}

/* ---- reading ---- */

typedef struct {
    const uint8_t *p, *end;
} pb_reader;

typedef struct {
    unsigned field, wire;
    uint64_t u;            /* PB_VARINT: the value; PB_FIXED64 / PB_FIXED32: the bits */
    const uint8_t *data;   /* PB_LEN: the bytes (inside the reader's buffer) */
    size_t len;
} pb_field;

static inline pb_reader pb_reader_of(const void *data, size_t len)
{
    pb_reader r = {(const uint8_t *)data, (const uint8_t *)data + len};
    return r;
}

/* A varint at *p (before end): 1 with *p moved past it, 0 when it is cut
 * short or longer than ten bytes. */
static inline int pb_get_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    const uint8_t *p = *pp;
    uint64_t x = 0;
    for (int shift = 0; shift < 70 && p < end; shift += 7) {
        uint8_t b = *p++;
        x |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            *v = x;
            *pp = p;
            return 1;
        }
    }
    return 0;
}

static inline uint64_t pb_get_le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* The next field of the message: 1 with it in *f, 0 at the message's end,
 * -1 when the bytes are no valid field (the reader is then left at it). */
static inline int pb_next(pb_reader *r, pb_field *f)
{
    if (r->p >= r->end)
        return 0;
    const uint8_t *p = r->p;
    uint64_t key;
    if (!pb_get_varint(&p, r->end, &key) || key >> 3 == 0 || key >> 3 > 0x1FFFFFFF)
        return -1;
    f->field = (unsigned)(key >> 3);
    f->wire = (unsigned)(key & 7);
    switch (f->wire) {
    case PB_VARINT:
        if (!pb_get_varint(&p, r->end, &f->u))
            return -1;
        break;
    case PB_FIXED64:
        if (r->end - p < 8)
            return -1;
        f->u = pb_get_le(p, 8);
        p += 8;
        break;
    case PB_FIXED32:
        if (r->end - p < 4)
            return -1;
        f->u = pb_get_le(p, 4);
        p += 4;
        break;
    case PB_LEN: {
        uint64_t n;
        if (!pb_get_varint(&p, r->end, &n) || n > (uint64_t)(r->end - p))
            return -1;
        f->data = p;
        f->len = (size_t)n;
        p += n;
        break;
    }
    default:
        return -1;
    }
    r->p = p;
    return 1;
}

static inline double pb_as_double(const pb_field *f)
{
    double d;
    memcpy(&d, &f->u, 8);
    return d;
}

static inline float pb_as_float(const pb_field *f)
{
    uint32_t bits = (uint32_t)f->u;
    float x;
    memcpy(&x, &bits, 4);
    return x;
}

#endif
