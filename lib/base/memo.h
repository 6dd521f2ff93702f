/* A memo of a pure, costly conversion, kept per thread: the last answer for
 * each of 4,096 slots, chosen by a hash of the key (direct-mapped: a new key
 * replaces what its slot held). Dumps repeat their numbers (an op's output
 * statistics are the next op's inputs), so number parsing and formatting
 * find most of their answers here.
 *
 * Keys and values are byte strings of at most 24 bytes (a double's bits, a
 * number's text); longer ones are simply not memoised. Declare one memo per
 * conversion as `static _Thread_local memo name;`: no locks, no
 * initialisation (zeroed storage is an empty memo).
 */
#ifndef MSP_MEMO_H
#define MSP_MEMO_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { MEMO_SLOTS = 4096, MEMO_MAX = 24 };

typedef struct {
    unsigned char key_len;    /* 0: an empty slot */
    unsigned char value_len;
    char key[MEMO_MAX];
    char value[MEMO_MAX];
} memo_slot;

typedef struct {
    memo_slot slot[MEMO_SLOTS];
} memo;

static inline memo_slot *memo_slot_of(memo *m, const void *key, size_t n)
{
    uint64_t h = n * UINT64_C(0x9E3779B97F4A7C15);
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w = 0;
        memcpy(&w, (const char *)key + i, n - i < 8 ? n - i : 8);
        h = (h ^ w) * UINT64_C(0x9E3779B97F4A7C15);
    }
    return &m->slot[h >> 52];   /* 12 bits: MEMO_SLOTS */
}

/* The value remembered for key[0..n), or NULL. */
static inline const memo_slot *memo_get(memo *m, const void *key, size_t n)
{
    if (n == 0 || n > MEMO_MAX)
        return NULL;
    const memo_slot *s = memo_slot_of(m, key, n);
    return s->key_len == n && !memcmp(s->key, key, n) ? s : NULL;
}

static inline void memo_put(memo *m, const void *key, size_t n, const void *value, size_t vn)
{
    if (n == 0 || n > MEMO_MAX || vn > MEMO_MAX)
        return;
    memo_slot *s = memo_slot_of(m, key, n);
    s->key_len = (unsigned char)n;
    s->value_len = (unsigned char)vn;
    memcpy(s->key, key, n);
    memcpy(s->value, value, vn);
}

#endif
