/* The stable sort of records by their first 8 bytes (radix.h). Below 2^17
 * records: six LSD counting passes of 11 bits, whose count table (16 KB)
 * stays in the cache. Above: one pass spreads the records by the top 16
 * bits of their keys and each bucket is then sorted where it lies
 * (insertion sort for the few records a bucket of hashes holds, the LSD
 * sort for a crowded one), which moves the records through memory twice
 * instead of once per digit.
 */
#include "base/radix.h"
#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

/* Few records: six LSD passes of 11 bits (a 16 KB count table). Records
 * of 8 and 16 bytes (the callers') are copied by a constant-size copy. */
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

/* One stable counting pass: the records of src into dst by the `bits`
 * bits of their keys from `shift` up. count (1 << bits entries) ends as
 * the end of each bucket in dst. */
static void spread(const unsigned char *src, unsigned char *dst, size_t n, size_t size, int shift, int bits,
                   size_t *count)
{
    size_t buckets = (size_t)1 << bits;
    uint64_t mask = buckets - 1;
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
}

/* The LSD sort: `passes` passes of `bits` bits from the lowest. */
static void lsd_sort(unsigned char *items, size_t n, size_t size, int bits, int passes)
{
    unsigned char *src = items, *dst = xmalloc_array(n, size), *tmp = dst;
    size_t *count = xmalloc_array((size_t)1 << bits, sizeof *count);
    for (int pass = 0; pass < passes; pass++) {
        spread(src, dst, n, size, pass * bits, bits, count);
        unsigned char *t = src;
        src = dst;
        dst = t;
    }
    if (src != items)
        memcpy(items, src, n * size);
    free(count);
    free(tmp);
}

/* Stable insertion sort of a few records (a bucket of the top bits). */
static void insertion_sort(unsigned char *items, size_t n, size_t size)
{
    unsigned char rec[64];
    for (size_t i = 1; i < n; i++) {
        uint64_t k = key_of(items + i * size);
        size_t j = i;
        while (j > 0 && key_of(items + (j - 1) * size) > k)
            j--;
        if (j == i)
            continue;
        memcpy(rec, items + i * size, size);
        memmove(items + (j + 1) * size, items + j * size, (i - j) * size);
        memcpy(items + j * size, rec, size);
    }
}

/* Many records: one pass spreads them by the top 16 bits of their keys
 * (stable), then each bucket -- a few dozen records for hashes -- is sorted
 * where it lies, in the cache: two passes over memory instead of four. A
 * crowded bucket (equal or skewed keys) gets the LSD sort. */
#define TOP_BITS 16
#define SMALL_BUCKET 64

void radix_sort_u64(void *items, size_t n, size_t size)
{
    if (n < 2)
        return;
    if (n < SMALL_SORT) {
        lsd_sort(items, n, size, 11, 6);
        return;
    }
    size_t buckets = (size_t)1 << TOP_BITS;
    unsigned char *src = xmalloc_array(n, size), *dst = items;
    memcpy(src, items, n * size);
    size_t *count = xmalloc_array(buckets, sizeof *count);
    spread(src, dst, n, size, 64 - TOP_BITS, TOP_BITS, count);
    /* count[b] is now the end of bucket b */
    for (size_t b = 0, start = 0; b < buckets; b++) {
        size_t end = count[b], len = end - start;
        if (len > SMALL_BUCKET)
            lsd_sort(dst + start * size, len, size, 11, 6);
        else if (len > 1)
            insertion_sort(dst + start * size, len, size);
        start = end;
    }
    free(count);
    free(src);
}
