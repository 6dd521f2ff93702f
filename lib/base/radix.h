/* Sorting records by a 64-bit key: LSD radix sort, stable (records of equal
 * keys keep their order). For joining millions of rows by hashes of their
 * keys, where a hash map costs a cache miss a lookup. */
#ifndef MSP_RADIX_H
#define MSP_RADIX_H

#include <stddef.h>
#include <stdint.h>

/* Sort n records of `size` bytes (a multiple of 8, at most 64) whose first
 * 8 bytes are a uint64_t key, ascending. */
void radix_sort_u64(void *items, size_t n, size_t size);

#endif
