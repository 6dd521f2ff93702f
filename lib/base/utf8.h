/* UTF-8 as Python's strict codec reads it: no overlong forms, no encoded
 * surrogates (U+D800..U+DFFF), nothing above U+10FFFF. Every text we write
 * (csv, xlsx, JSON, file names) must be valid UTF-8, and Python refuses to
 * read a file that is not, so the readers check every string with these. */
#ifndef MSP_UTF8_H
#define MSP_UTF8_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Length (2..4) of the valid multi-byte sequence at p, where p < end and
 * *p >= 0x80; 0 when the bytes there are not valid UTF-8. */
static inline size_t utf8_seq_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0], lo = 0x80, hi = 0xBF;
    size_t n;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0;       /* overlong */
        else if (c == 0xED)
            hi = 0x9F;       /* a surrogate */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90;       /* overlong */
        else if (c == 0xF4)
            hi = 0x8F;       /* above U+10FFFF */
    } else {
        return 0;
    }
    if ((size_t)(end - p) < n || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
    return n;
}

/* Offset of the first byte of s[0..n) that does not start valid UTF-8, or
 * n when all of it is valid. */
static inline size_t utf8_invalid_at(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    while (p < end) {
        /* ASCII eight bytes at a time: big files are mostly ASCII */
        uint64_t w;
        if ((size_t)(end - p) >= 8 && (memcpy(&w, p, 8), (w & 0x8080808080808080ULL) == 0)) {
            p += 8;
            continue;
        }
        if (*p < 0x80) {
            p++;
            continue;
        }
        size_t k = utf8_seq_len(p, end);
        if (!k)
            return (size_t)(p - (const unsigned char *)s);
        p += k;
    }
    return n;
}

/* Code point cp (below 0x110000) written as UTF-8 at d (room for 4 bytes);
 * returns the bytes written. */
static inline size_t utf8_put(char *d, uint32_t cp)
{
    if (cp < 0x80) {
        d[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        d[0] = (char)(0xC0 | cp >> 6);
        d[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        d[0] = (char)(0xE0 | cp >> 12);
        d[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        d[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    d[0] = (char)(0xF0 | cp >> 18);
    d[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    d[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    d[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

#endif
