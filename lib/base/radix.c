#include "base/radix.h"
#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

/* Six passes of 11 bits: the count table (16 KB) stays in the L1 cache, and
 * an even number of passes leaves the result where it started. */
#define RADIX_BITS 11
#define RADIX_PASSES 6
#define RADIX_SIZE (1u << RADIX_BITS)

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
    unsigned char *src = items, *dst = xmalloc_array(n, size), *tmp = dst;
    size_t *count = xmalloc_array(RADIX_SIZE, sizeof *count);
    for (int pass = 0; pass < RADIX_PASSES; pass++) {
        int shift = pass * RADIX_BITS;
        memset(count, 0, RADIX_SIZE * sizeof *count);
        for (size_t i = 0; i < n; i++)
            count[(key_of(src + i * size) >> shift) & (RADIX_SIZE - 1)]++;
        size_t sum = 0;
        for (size_t b = 0; b < RADIX_SIZE; b++) {
            size_t c = count[b];
            count[b] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) {
            const unsigned char *rec = src + i * size;
            memcpy(dst + count[(key_of(rec) >> shift) & (RADIX_SIZE - 1)]++ * size, rec, size);
        }
        unsigned char *t = src;
        src = dst;
        dst = t;
    }
    free(count);
    free(tmp);
}
