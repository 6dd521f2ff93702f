/* Radix sort of records by a 64-bit key: the order against qsort on random
 * keys (every byte of the key matters), stability on equal keys, records of
 * 8, 16 and 24 bytes, lengths 0, 1 and around the pass sizes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/radix.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t key;
    uint64_t seq;      /* the record's first position */
    uint64_t pad;
} rec;

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int cmp_rec(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void check(size_t n, int few_keys)
{
    uint64_t s = 0x9E3779B97F4A7C15ULL ^ n;
    rec *a = malloc((n ? n : 1) * sizeof *a), *b = malloc((n ? n : 1) * sizeof *b);
    for (size_t i = 0; i < n; i++) {
        uint64_t k = rng(&s);
        /* few keys: many equal ones, differing in the top bits only too */
        a[i] = (rec){.key = few_keys ? (k % 5) << 61 | (k % 3) : k, .seq = i, .pad = ~k};
    }
    memcpy(b, a, n * sizeof *a);
    radix_sort_u64(a, n, sizeof *a);
    qsort(b, n, sizeof *b, cmp_rec);   /* by key, then first position: the stable order */
    assert_memory_equal(a, b, n * sizeof *a);
    free(a);
    free(b);
}

static void test_records(void **state)
{
    static const size_t sizes[] = {0, 1, 2, 3, 100, 2047, 2048, 2049, 100000, 131072, 300000};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        check(sizes[i], 0);
        check(sizes[i], 1);
    }
}

/* 16-byte records (the join's), both pass sizes */
static void test_pairs(void **state)
{
    for (size_t n = 1000; n <= 200000; n *= 200) {
        uint64_t s = 7;
        uint64_t(*a)[2] = malloc(n * sizeof *a);
        for (size_t i = 0; i < n; i++) {
            a[i][0] = rng(&s) % (n / 2);   /* repeated keys */
            a[i][1] = i;
        }
        radix_sort_u64(a, n, sizeof *a);
        for (size_t i = 1; i < n; i++)
            assert_true(a[i - 1][0] < a[i][0] || (a[i - 1][0] == a[i][0] && a[i - 1][1] < a[i][1]));
        free(a);
    }
}

static void test_plain_keys(void **state)
{
    uint64_t k[6] = {UINT64_MAX, 0, 1ULL << 63, 5, 1ULL << 33, 5};
    radix_sort_u64(k, 6, sizeof *k);
    uint64_t want[6] = {0, 5, 5, 1ULL << 33, 1ULL << 63, UINT64_MAX};
    assert_memory_equal(k, want, sizeof want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_records),
        cmocka_unit_test(test_pairs),
        cmocka_unit_test(test_plain_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
