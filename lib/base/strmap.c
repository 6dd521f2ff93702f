/* The string map of strmap.h: open addressing with linear probing over a
 * power-of-two table kept at most three-quarters full, doubled and
 * re-filled when it would pass that. Each slot keeps the key's 32-bit hash,
 * so a probe compares keys only when the hashes agree and a growth never
 * hashes a key again. The same hash, in 64 bits, serves callers that sort
 * millions of keys by hash instead of looking them up (radix.h).
 */
#include "base/strmap.h"
#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

/* Multiply-xorshift over 8-byte words, then a full avalanche: the slot is
 * taken from the low bits, and names differ mostly in their middle and end
 * ("Module.layers.17.mlp...output.0"). Both steps are inlined into the
 * hashes below, which sit on every map look-up. */
static inline __attribute__((always_inline)) uint64_t mix_words(uint64_t h, const char *s, size_t n)
{
    const uint64_t k = 0x9E3779B97F4A7C15ULL;
    h ^= n * k;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * k;
        h ^= h >> 29;
    }
    if (i < n) {
        uint64_t w = 0;
        memcpy(&w, s + i, n - i);
        h = (h ^ w) * k;
        h ^= h >> 29;
    }
    return h;
}

static inline __attribute__((always_inline)) uint64_t avalanche(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

uint32_t strmap_hash(const char *s, size_t n) { return (uint32_t)avalanche(mix_words(0, s, n)); }

uint64_t strmap_hash64(uint64_t h, const char *s, size_t n) { return mix_words(h, s, n); }

uint64_t strmap_hash64_end(uint64_t h) { return avalanche(h); }

void strmap_init(strmap *m, size_t expected)
{
    size_t cap = 16;
    while (cap < expected * 2)
        cap *= 2;
    m->slots = xcalloc(cap, sizeof *m->slots);
    m->cap = cap;
    m->count = 0;
}

void strmap_free(strmap *m)
{
    free(m->slots);
    m->slots = NULL;
    m->cap = m->count = 0;
}

void strmap_clear(strmap *m)
{
    if (m->slots)
        memset(m->slots, 0, m->cap * sizeof *m->slots);
    m->count = 0;
}

static strmap_slot *find(const strmap *m, const char *key, size_t len, uint32_t h)
{
    size_t mask = m->cap - 1, i = h & mask;
    for (;;) {
        strmap_slot *s = &m->slots[i];
        if (!s->key || (s->hash == h && s->len == len && memcmp(s->key, key, len) == 0))
            return s;
        i = (i + 1) & mask;
    }
}

static void grow(strmap *m)
{
    strmap old = *m;
    m->cap *= 2;
    m->slots = xcalloc(m->cap, sizeof *m->slots);
    for (size_t i = 0; i < old.cap; i++)
        if (old.slots[i].key)
            *find(m, old.slots[i].key, old.slots[i].len, old.slots[i].hash) = old.slots[i];
    free(old.slots);
}

size_t *strmap_get(const strmap *m, const char *key, size_t len)
{
    if (!m->cap)
        return NULL;
    strmap_slot *s = find(m, key, len, strmap_hash(key, len));
    return s->key ? &s->value : NULL;
}

size_t *strmap_put(strmap *m, const char *key, size_t len, size_t value, int *added)
{
    if (!m->cap)
        strmap_init(m, 8);
    if ((m->count + 1) * 4 > m->cap * 3)
        grow(m);
    uint32_t h = strmap_hash(key, len);
    strmap_slot *s = find(m, key, len, h);
    if (s->key) {
        if (added)
            *added = 0;
        return &s->value;
    }
    s->key = key;
    s->len = (uint32_t)len;
    s->hash = h;
    s->value = value;
    m->count++;
    if (added)
        *added = 1;
    return &s->value;
}
