/* Allocation that cannot fail (out of memory prints one line and exits with
 * status 1: nothing sensible remains to do), and one way to grow arrays
 * (and hash tables). */
#ifndef MSP_MEM_H
#define MSP_MEM_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* xmalloc(a * b) with overflow check. */
void *xmalloc_array(size_t a, size_t b);

/* Make room for `need` elements of `size` bytes in *items (capacity *cap),
 * growing by half again (at least to 16): amortised O(1) appends. */
void grow_array(void **items, size_t *cap, size_t need, size_t size);
/* The same, the new elements zeroed. */
void grow_array_zeroed(void **items, size_t *cap, size_t need, size_t size);
/* The usual calls: GROW(v, cap, n + 1) before v[n++] = x; GROW_ZEROED when
 * the elements between the old and the new capacity must read as zero. */
#define GROW(items, cap, need) grow_array((void **)&(items), &(cap), (need), sizeof *(items))
#define GROW_ZEROED(items, cap, need) grow_array_zeroed((void **)&(items), &(cap), (need), sizeof *(items))

/* The growth of an open-addressing hash table (linear probing, a
 * power-of-two number of slots of `size` bytes): a new zeroed table of
 * twice the slots (`first` when *cap is 0), every used slot of the old one
 * put back at the first free place from hash(slot) & (cap - 1), in slot
 * order. The caller decides when (its load factor) and probes the same
 * way. GROW_TABLE(t, cap, first, used, hash) is the usual call. */
static inline void grow_table(void **slots, size_t *cap, size_t first, size_t size, int (*used)(const void *slot),
                              uint64_t (*hash)(const void *slot))
{
    /* inline, so that the compiler inlines `used` and `hash` too: called
     * through pointers, the re-filling of monitor_csv's table cost
     * monitor2tb 1.5% of its CPU time */
    size_t n = !*cap ? first : *cap <= SIZE_MAX / 2 ? *cap * 2 : SIZE_MAX;   /* SIZE_MAX: xcalloc fails */
    unsigned char *old = (unsigned char *)*slots, *t = (unsigned char *)xcalloc(n, size);
    for (size_t i = 0; i < *cap; i++) {
        const unsigned char *s = old + i * size;
        if (!used(s))
            continue;
        size_t j = (size_t)hash(s) & (n - 1);
        while (used(t + j * size))
            j = (j + 1) & (n - 1);
        memcpy(t + j * size, s, size);
    }
    free(old);
    *slots = t;
    *cap = n;
}
#define GROW_TABLE(slots, cap, first, used, hash) \
    grow_table((void **)&(slots), &(cap), (first), sizeof *(slots), (used), (hash))

#endif
