/* String-keyed hash map: lookups, first insert wins, borrowed keys that are
 * not NUL-terminated, many keys with long shared prefixes, growth, and
 * keys that collide in the table. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/strmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_basic(void **state)
{
    strmap m;
    strmap_init(&m, 4);
    int added = -1;
    size_t *v = strmap_put(&m, "alpha", 5, 1, &added);
    assert_int_equal(added, 1);
    assert_int_equal(*v, 1);
    /* present: the stored value is kept and returned for update */
    v = strmap_put(&m, "alpha", 5, 2, &added);
    assert_int_equal(added, 0);
    assert_int_equal(*v, 1);
    *v = 42;
    assert_int_equal(*strmap_get(&m, "alpha", 5), 42);
    /* `added` may be left out */
    strmap_put(&m, "beta", 4, 7, NULL);
    assert_int_equal(*strmap_get(&m, "beta", 4), 7);
    assert_int_equal(m.count, 2);
    /* length counts, not the terminator */
    assert_null(strmap_get(&m, "alph", 4));
    assert_null(strmap_get(&m, "alphabet", 8));
    assert_non_null(strmap_get(&m, "alphabet", 5));
    assert_null(strmap_get(&m, "Alpha", 5));
    strmap_free(&m);
    assert_null(m.slots);
    assert_int_equal(m.count, 0);
}

/* An all-zero map needs no init; lookups on it find nothing. */
static void test_zero_map(void **state)
{
    strmap m = {0};
    assert_null(strmap_get(&m, "x", 1));
    int added;
    strmap_put(&m, "x", 1, 3, &added);
    assert_int_equal(added, 1);
    assert_int_equal(*strmap_get(&m, "x", 1), 3);
    strmap_free(&m);
    strmap_free(&m);
}

/* Keys are borrowed: pointer + length into a bigger buffer, no terminator,
 * and the empty key is a key like any other. */
static void test_borrowed_keys(void **state)
{
    const char text[] = "Module.layer.Linear.forward.0Module.layer.Linear.forward.1";
    strmap m;
    strmap_init(&m, 0);
    int added;
    strmap_put(&m, text, 29, 0, &added);
    assert_int_equal(added, 1);
    strmap_put(&m, text + 29, 29, 1, &added);
    assert_int_equal(added, 1);
    strmap_put(&m, text, 0, 2, &added);
    assert_int_equal(added, 1);
    strmap_put(&m, "", 0, 3, &added);
    assert_int_equal(added, 0);
    assert_int_equal(*strmap_get(&m, "Module.layer.Linear.forward.0", 29), 0);
    assert_int_equal(*strmap_get(&m, "Module.layer.Linear.forward.1", 29), 1);
    assert_int_equal(*strmap_get(&m, "", 0), 2);
    /* the map hands back the very key it was given */
    const strmap_slot *found = NULL;
    for (size_t i = 0; i < m.cap; i++)
        if (m.slots[i].key && m.slots[i].len == 29 && m.slots[i].value == 1)
            found = &m.slots[i];
    assert_non_null(found);
    assert_ptr_equal(found->key, text + 29);
    /* embedded NUL bytes are part of a key */
    strmap_put(&m, "a\0b", 3, 9, &added);
    assert_int_equal(added, 1);
    assert_null(strmap_get(&m, "a\0c", 3));
    assert_int_equal(*strmap_get(&m, "a\0b", 3), 9);
    strmap_free(&m);
}

static void test_hash(void **state)
{
    /* deterministic, length-sensitive, and the tail bytes count */
    assert_int_equal(strmap_hash("abc", 3), strmap_hash("abcd", 3));
    assert_int_not_equal(strmap_hash("abc", 3), strmap_hash("abd", 3));
    assert_int_not_equal(strmap_hash("abcdefgh", 8), strmap_hash("abcdefgi", 8));
    assert_int_not_equal(strmap_hash("abcdefghij", 10), strmap_hash("abcdefghik", 10));
    assert_int_not_equal(strmap_hash("", 0), strmap_hash("\0", 1));
    /* names that differ only inside a long common prefix and suffix */
    const char *a = "Module.module.language_model.encoder.layers.17.mlp.dense_h_to_4h.ColumnParallelLinear.forward.0";
    char b[128];
    snprintf(b, sizeof b, "%s", a);
    b[45] = '8';
    assert_int_not_equal(strmap_hash(a, strlen(a)), strmap_hash(b, strlen(b)));
}

/* Many keys shaped like real entry names: every one found with its value
 * after many doublings of the table, none invented. */
static void test_many_keys(void **state)
{
    enum { N = 200000 };
    char **keys = malloc(N * sizeof *keys);
    assert_non_null(keys);
    strmap m;
    strmap_init(&m, 0);
    size_t cap0 = m.cap;
    for (size_t i = 0; i < N; i++) {
        char buf[96];
        int n = snprintf(buf, sizeof buf, "Module.module.encoder.layers.%zu.mlp.Linear.forward.%zu", i % 997, i / 997);
        keys[i] = malloc((size_t)n);
        memcpy(keys[i], buf, (size_t)n);
        int added;
        size_t *v = strmap_put(&m, keys[i], (size_t)n, i, &added);
        assert_int_equal(added, 1);
        assert_int_equal(*v, i);
    }
    assert_int_equal(m.count, N);
    assert_true(m.cap > cap0);
    /* a power of two with room to spare */
    assert_int_equal(m.cap & (m.cap - 1), 0);
    assert_true(m.count * 4 <= m.cap * 3);
    for (size_t i = 0; i < N; i++) {
        char buf[96];
        int n = snprintf(buf, sizeof buf, "Module.module.encoder.layers.%zu.mlp.Linear.forward.%zu", i % 997, i / 997);
        size_t *v = strmap_get(&m, buf, (size_t)n);
        assert_non_null(v);
        assert_int_equal(*v, i);
        int added;
        assert_int_equal(*strmap_put(&m, buf, (size_t)n, 0, &added), i);
        assert_int_equal(added, 0);
        char miss[100];
        n = snprintf(miss, sizeof miss, "Module.module.encoder.layers.%zu.mlp.Linear.backward.%zu", i % 997, i / 997);
        assert_null(strmap_get(&m, miss, (size_t)n));
    }
    assert_int_equal(m.count, N);
    strmap_free(&m);
    for (size_t i = 0; i < N; i++)
        free(keys[i]);
    free(keys);
}

/* Keys whose hashes land in the same slot probe past each other: find
 * such keys by brute force and check they all live side by side. */
static void test_collisions(void **state)
{
    strmap m;
    strmap_init(&m, 100);
    size_t mask = m.cap - 1;
    char keys[24][16];
    int found = 0;
    uint32_t target = strmap_hash("k0", 2) & (uint32_t)mask;
    for (int i = 0; found < 24 && i < 1000000; i++) {
        char buf[16];
        int n = snprintf(buf, sizeof buf, "k%d", i);
        if ((strmap_hash(buf, (size_t)n) & mask) == target) {
            memcpy(keys[found], buf, (size_t)n + 1);
            found++;
        }
    }
    assert_int_equal(found, 24);
    for (int i = 0; i < found; i++) {
        int added;
        strmap_put(&m, keys[i], strlen(keys[i]), (size_t)i, &added);
        assert_int_equal(added, 1);
    }
    for (int i = 0; i < found; i++)
        assert_int_equal(*strmap_get(&m, keys[i], strlen(keys[i])), i);
    assert_null(strmap_get(&m, "k-1", 3));
    /* growth re-places colliding keys too */
    size_t cap = m.cap;
    for (int i = 0; m.cap == cap; i++) {
        char buf[16];
        int n = snprintf(buf, sizeof buf, "fill%d", i);
        char *k = malloc((size_t)n);
        memcpy(k, buf, (size_t)n);
        strmap_put(&m, k, (size_t)n, 1000 + (size_t)i, NULL);
    }
    for (int i = 0; i < found; i++)
        assert_int_equal(*strmap_get(&m, keys[i], strlen(keys[i])), i);
    for (size_t i = 0; i < m.cap; i++)
        if (m.slots[i].key && m.slots[i].value >= 1000)
            free((char *)m.slots[i].key);
    strmap_free(&m);
}

/* init sizes the table for the expected count: no growth below it. */
static void test_presize(void **state)
{
    strmap m;
    strmap_init(&m, 1000);
    size_t cap = m.cap;
    assert_true(cap >= 2000);
    static char names[1000][16];
    for (int i = 0; i < 1000; i++) {
        snprintf(names[i], sizeof names[i], "n%d", i);
        strmap_put(&m, names[i], strlen(names[i]), (size_t)i, NULL);
    }
    assert_int_equal(m.cap, cap);
    assert_int_equal(m.count, 1000);
    strmap_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),
        cmocka_unit_test(test_zero_map),
        cmocka_unit_test(test_borrowed_keys),
        cmocka_unit_test(test_hash),
        cmocka_unit_test(test_many_keys),
        cmocka_unit_test(test_collisions),
        cmocka_unit_test(test_presize),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
