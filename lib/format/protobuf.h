/* The few pieces of the protocol-buffers wire format that writing
 * TensorBoard events needs (proto3: varints, fixed 32/64-bit numbers,
 * length-delimited strings and messages), written straight into a byte
 * buffer. No library: the messages are tiny and fixed, and an encoder
 * this small is faster than building message objects.
 *
 * Each writer returns the position after what it wrote; the caller makes
 * sure there is room (at most PB_VARINT_MAX bytes for a varint). A nested
 * message is written as its key, its length (computed beforehand with the
 * *_size helpers) and its fields. */
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

#endif
