/* The growth helpers of base/mem.h: arrays (GROW, GROW_ZEROED) keep their
 * elements and zero only what is new; an open-addressing table (GROW_TABLE)
 * doubles and keeps every used slot findable by the caller's probe, also
 * when keys collide and probe runs wrap around the end. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void test_grow(void **state)
{
    (void)state;
    int *v = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < 1000; i++) {
        GROW(v, cap, n + 1);
        assert_true(cap >= n + 1);
        v[n++] = i;
    }
    for (int i = 0; i < 1000; i++)
        assert_int_equal(v[i], i);
    /* enough room: nothing moves */
    size_t before = cap;
    int *same = v;
    GROW(v, cap, n);
    assert_int_equal(cap, before);
    assert_ptr_equal(v, same);
    /* a big need is met at once */
    GROW(v, cap, 100000);
    assert_true(cap >= 100000);
    assert_int_equal(v[999], 999);
    free(v);
}

static void test_grow_zeroed(void **state)
{
    (void)state;
    long *v = NULL;
    size_t cap = 0;
    GROW_ZEROED(v, cap, 3);
    for (size_t i = 0; i < cap; i++)
        assert_int_equal(v[i], 0);
    v[0] = 7;
    size_t old = cap;
    GROW_ZEROED(v, cap, old + 1);
    assert_int_equal(v[0], 7);
    for (size_t i = 1; i < cap; i++)
        assert_int_equal(v[i], 0);
    free(v);
}

typedef struct {
    uint64_t key;   /* 0: empty */
    uint32_t value, pad;
} slot;

/* A poor hash on purpose: keys collide and probe runs wrap around. */
static uint64_t key_hash(uint64_t k) { return k % 5; }
static int slot_used(const void *s) { return ((const slot *)s)->key != 0; }
static uint64_t slot_hash(const void *s) { return key_hash(((const slot *)s)->key); }

static slot *find(slot *t, size_t cap, uint64_t key)
{
    size_t j = key_hash(key) & (cap - 1);
    while (t[j].key && t[j].key != key)
        j = (j + 1) & (cap - 1);
    return &t[j];
}

static void test_grow_table(void **state)
{
    (void)state;
    slot *t = NULL;
    size_t cap = 0, count = 0;
    GROW_TABLE(t, cap, 8, slot_used, slot_hash);
    assert_int_equal(cap, 8);
    for (uint64_t k = 1; k <= 500; k++) {
        if ((count + 1) * 2 > cap) {
            size_t old = cap;
            GROW_TABLE(t, cap, 8, slot_used, slot_hash);
            assert_int_equal(cap, 2 * old);
        }
        slot *s = find(t, cap, k * 977);
        assert_int_equal(s->key, 0);
        *s = (slot){k * 977, (uint32_t)k, 0};
        count++;
    }
    assert_int_equal(cap, 1024);
    size_t used = 0;
    for (size_t i = 0; i < cap; i++)
        used += t[i].key != 0;
    assert_int_equal(used, 500);
    for (uint64_t k = 1; k <= 500; k++)
        assert_int_equal(find(t, cap, k * 977)->value, k);
    assert_int_equal(find(t, cap, 3)->key, 0);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grow),
        cmocka_unit_test(test_grow_zeroed),
        cmocka_unit_test(test_grow_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
