/* String-keyed hash map (open addressing). Keys are borrowed (pointer +
 * length), values are size_t. Used for entry names, the compare join and
 * stack lookups, so it is built for millions of keys. */
#ifndef MSP_STRMAP_H
#define MSP_STRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *key;
    uint32_t len;
    uint32_t hash;
    size_t value;
} strmap_slot;

typedef struct {
    strmap_slot *slots;   /* key == NULL means empty */
    size_t cap, count;
} strmap;

void strmap_init(strmap *m, size_t expected);
void strmap_free(strmap *m);
/* Empty the map, keeping its slots for the next use. */
void strmap_clear(strmap *m);
uint32_t strmap_hash(const char *s, size_t n);
/* A 64-bit hash of s[0..n), continuing from seed h (0 to start): for
 * telling millions of keys apart by sorting their hashes. Finish with
 * strmap_hash64_end(). */
uint64_t strmap_hash64(uint64_t h, const char *s, size_t n);
uint64_t strmap_hash64_end(uint64_t h);
/* Pointer to the value of key, or NULL. */
size_t *strmap_get(const strmap *m, const char *key, size_t len);
/* Insert key with value unless present. Returns a pointer to the stored
 * value; *added tells whether it was inserted now. */
size_t *strmap_put(strmap *m, const char *key, size_t len, size_t value, int *added);

#endif
