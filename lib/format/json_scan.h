/* The byte-level scanning the JSON reader (json.c) and its skimmer
 * (json_skim.c) share: whitespace, literals, digits, plain string bytes
 * eight at a time, and the nesting limit. Pointers only, no parser state:
 * internal to format/json. */
#ifndef MSP_JSON_SCAN_H
#define MSP_JSON_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Python's json module recurses once per nesting level; real dumps nest a
 * handful of levels, so this only guards our stack against hostile input.
 * (The text of its message below says the number too.) */
#define JSON_MAX_DEPTH 512
#define JSON_DEPTH_MESSAGE "nesting too deep (more than 512 levels)"
_Static_assert(JSON_MAX_DEPTH == 512, "JSON_DEPTH_MESSAGE states the limit");

/* Python writes dumps with indent=1: a newline and a run of spaces before
 * almost every value, so runs of spaces are skipped eight at a time.
 * Returns the first byte at or after p that is not whitespace (or e). */
static inline const char *json_skip_ws(const char *p, const char *e)
{
    while (p < e) {
        char c = *p;
        if (c == ' ' && e - p >= 8 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
            /* up to the first byte that is not a space (p[0] is one) */
            uint64_t v;
            memcpy(&v, p, 8);
            v ^= 0x2020202020202020ULL;
            p += v ? __builtin_ctzll(v) / 8 : 8;
        } else if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
            p++;
        } else {
            break;
        }
    }
    return p;
}

/* strlen(word) when the bytes at p spell it, else 0. */
static inline size_t json_literal(const char *p, const char *e, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(e - p) >= n && memcmp(p, word, n) == 0 ? n : 0;
}

static inline int json_is_digit(char c) { return c >= '0' && c <= '9'; }

/* The bytes of a word that are '"', '\\' or a control character, as their
 * high bits. Borrows can only mark bytes after a true one, so the lowest
 * marked byte is always real: strings are scanned eight bytes at a time. */
static inline uint64_t json_special_bytes(uint64_t v)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    uint64_t q = v ^ (ones * '"'), b = v ^ (ones * '\\');
    return (((q - ones) & ~q) | ((b - ones) & ~b) | ((v - ones * 0x20) & ~v)) & highs;
}

/* p past plain ASCII, eight bytes at a time: at the first quote, backslash,
 * control character or non-ASCII byte of the word holding one, or fewer
 * than eight bytes before e (the caller goes on byte by byte). On a
 * big-endian host it stops at the word's start. Inlined: the parser's
 * hottest loop (parse_string, skim_string). */
static inline __attribute__((always_inline)) const char *json_skip_plain(const char *p, const char *e)
{
    const uint64_t highs = 0x8080808080808080ULL;
    while (e - p >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        uint64_t m = json_special_bytes(v) | (v & highs);
        if (m) {
            if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
                p += __builtin_ctzll(m) / 8;
            break;
        }
        p += 8;
    }
    return p;
}

#endif
