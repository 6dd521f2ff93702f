#include "base/radix.h"
#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

/* Few records: six passes of 11 bits (the 16 KB count table is cleared
 * six times, not 512 KB four times). Many: four passes of 16 bits (each
 * pass streams the records once more through memory). An even number of
 * passes leaves the result where it started. Records of 8 and 16 bytes
 * (the callers') are copied by a constant-size copy. */
#define SMALL_SORT (1u << 17)

#define RADIX_PASS(TYPE)                                                                 \
    for (size_t i = 0; i < n; i++) {                                                     \
        const unsigned char *rec = src + i * sizeof(TYPE);                               \
        memcpy(dst + count[(key_of(rec) >> shift) & mask]++ * sizeof(TYPE), rec, sizeof(TYPE)); \
    }

typedef struct {
    uint64_t w[2];
} rec16;

static uint64_t key_of(const unsigned char *rec)
{
    uint64_t k;
    memcpy(&k, rec, sizeof k);
    return k;
}

void radix_sort_u64(void *items, size_t n, size_t size)
{
    if (n < 2)
        return;
    int bits = n < SMALL_SORT ? 11 : 16, passes = n < SMALL_SORT ? 6 : 4;
    size_t buckets = (size_t)1 << bits;
    uint64_t mask = buckets - 1;
    unsigned char *src = items, *dst = xmalloc_array(n, size), *tmp = dst;
    size_t *count = xmalloc_array(buckets, sizeof *count);
    for (int pass = 0; pass < passes; pass++) {
        int shift = pass * bits;
        memset(count, 0, buckets * sizeof *count);
        for (size_t i = 0; i < n; i++)
            count[(key_of(src + i * size) >> shift) & mask]++;
        size_t sum = 0;
        for (size_t b = 0; b < buckets; b++) {
            size_t c = count[b];
            count[b] = sum;
            sum += c;
        }
        if (size == sizeof(uint64_t)) {
            RADIX_PASS(uint64_t)
        } else if (size == sizeof(rec16)) {
            RADIX_PASS(rec16)
        } else {
            for (size_t i = 0; i < n; i++) {
                const unsigned char *rec = src + i * size;
                memcpy(dst + count[(key_of(rec) >> shift) & mask]++ * size, rec, size);
            }
        }
        unsigned char *t = src;
        src = dst;
        dst = t;
    }
    free(count);
    free(tmp);
}
