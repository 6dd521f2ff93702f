/* Little-endian integer fields of binary file formats (zip headers, .npy
 * header lengths, UTF-16 text), read and written byte by byte so that they
 * need no alignment and mean the same on any host. */
#ifndef MSP_LE_H
#define MSP_LE_H

#include <stdint.h>

#define HOST_BIG_ENDIAN (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

static inline uint16_t le_get16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t le_get32(const unsigned char *p) { return (uint32_t)le_get16(p) | (uint32_t)le_get16(p + 2) << 16; }
static inline uint64_t le_get64(const unsigned char *p) { return (uint64_t)le_get32(p) | (uint64_t)le_get32(p + 4) << 32; }

static inline void le_put16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static inline void le_put32(unsigned char *p, uint32_t v)
{
    le_put16(p, (uint16_t)v);
    le_put16(p + 2, (uint16_t)(v >> 16));
}

static inline void le_put64(unsigned char *p, uint64_t v)
{
    le_put32(p, (uint32_t)v);
    le_put32(p + 4, (uint32_t)(v >> 32));
}

#endif
