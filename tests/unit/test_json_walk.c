/* format/json's walks: an object member by member (jp_object_begin/next,
 * jp_value, jp_skip, jp_peek, jp_end) and an array item by item
 * (jp_array_begin/next, jp_scalar), each failing cleanly where jp_value
 * would. Every document is copied into a buffer of exactly its length, so
 * that AddressSanitizer catches any read past the end of the input. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/arena.h"
#include "format/json.h"
#include "base/err.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

static char *exact_copy(const char *s, size_t n)
{
    char *b = malloc(n ? n : 1);
    assert_non_null(b);
    memcpy(b, s, n);
    return b;
}

static void assert_str(const jval *v, const char *want, size_t n)
{
    assert_non_null(v);
    assert_int_equal(v->type, J_STRING);
    assert_int_equal(v->len, n);
    assert_memory_equal(v->u.str, want, n);
}

static void test_streaming_walk(void **state)
{
    const char *text = "{\"task\": \"statistics\", \"data\": {\"a\": {\"x\": [1, {\"y\": NaN}]}, \"b\\u0021\": [1, 2],"
                       " \"c\": {}}, \"z\": null }  \n";
    char *buf = exact_copy(text, strlen(text));
    jparser jp;
    arena a;
    arena_init(&a, 1024);
    jp_init(&jp, "walk.json", buf, strlen(text));
    const char *key;
    size_t kl;
    jval v;

    assert_int_equal(jp_peek(&jp), '{');
    assert_int_equal(jp_object_begin(&jp), 0);
    assert_int_equal(jp_object_next(&jp, &a, &key, &kl), 1);
    assert_int_equal(kl, 4);
    assert_memory_equal(key, "task", 4);
    assert_int_equal(jp_peek(&jp), '"');
    assert_int_equal(jp_value(&jp, &a, &v), 0);
    assert_str(&v, "statistics", 10);

    assert_int_equal(jp_object_next(&jp, &a, &key, &kl), 1);
    assert_memory_equal(key, "data", 4);
    assert_int_equal(jp_object_begin(&jp), 0);
    assert_int_equal(jp_object_next(&jp, &a, &key, &kl), 1);
    assert_memory_equal(key, "a", 1);
    assert_int_equal(jp_skip(&jp), 0);
    assert_int_equal(jp_object_next(&jp, &a, &key, &kl), 1);
    assert_int_equal(kl, 2);
    assert_memory_equal(key, "b!", 2);
    assert_int_equal(jp_peek(&jp), '[');
    assert_int_equal(jp_value(&jp, &a, &v), 0);
    assert_int_equal(v.type, J_ARRAY);
    assert_int_equal(v.len, 2);
    assert_int_equal(v.u.items[1].u.num, 2);
    assert_int_equal(jp_object_next(&jp, &a, &key, &kl), 1);
    assert_memory_equal(key, "c", 1);
    assert_int_equal(jp_value(&jp, &a, &v), 0);
    assert_int_equal(v.type, J_OBJECT);
    assert_int_equal(v.len, 0);
    assert_int_equal(jp_object_next(&jp, &a, &key, &kl), 0);

    assert_int_equal(jp_object_next(&jp, &a, &key, &kl), 1);
    assert_memory_equal(key, "z", 1);
    assert_int_equal(jp_peek(&jp), 'n');
    assert_int_equal(jp_value(&jp, &a, &v), 0);
    assert_int_equal(v.type, J_NULL);
    assert_int_equal(jp_object_next(&jp, &a, &key, &kl), 0);
    assert_int_equal(jp_end(&jp), 0);
    assert_int_equal(jp_peek(&jp), -1);
    jp_free(&jp);
    arena_free(&a);
    free(buf);

    /* an empty object, and a walk that meets extra data at the end */
    const char *t2 = " { } x";
    buf = exact_copy(t2, strlen(t2));
    arena_init(&a, 1024);
    jp_init(&jp, "walk.json", buf, strlen(t2));
    assert_int_equal(jp_object_begin(&jp), 0);
    assert_int_equal(jp_object_next(&jp, &a, &key, &kl), 0);
    err_clear();
    assert_int_equal(jp_end(&jp), -1);
    tu_assert_err("walk.json: ", "extra data");
    jp_free(&jp);
    arena_free(&a);
    free(buf);
}

/* jp_skip validates what it skips, and jp_object_next checks separators. */
static void test_streaming_errors(void **state)
{
    static const struct {
        const char *text;
        int skip_fails; /* the first member's value is bad, else the layout */
        const char *what;
    } cases[] = {
        {"{\"a\": [1, 2, }", 1, "unexpected character"},
        {"{\"a\": tru}", 1, "invalid literal"},
        {"{\"a\": \"x}", 1, "unterminated string"},
        {"{\"a\": 1 \"b\": 2}", 0, "expected ',' or '}'"},
        {"{\"a\": 1,}", 0, "expected a string key"},
        {"{\"a\" 1}", 0, "expected ':'"},
        {"{1: 2}", 0, "expected a string key"},
        {"{,\"a\": 1}", 0, "expected a string key"},
        {"{\"a\": 1", 0, "truncated"},
        {"[1]", 0, "expected an object"},
        {"", 0, "expected an object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = strlen(cases[i].text);
        char *buf = exact_copy(cases[i].text, n);
        jparser jp;
        arena a;
        arena_init(&a, 1024);
        jp_init(&jp, "walk.json", buf, n);
        err_clear();
        int rc = jp_object_begin(&jp);
        const char *key;
        size_t kl;
        for (int guard = 0; rc == 0 && guard < 10; guard++) {
            int m = jp_object_next(&jp, &a, &key, &kl);
            if (m < 0) {
                rc = -1;
                break;
            }
            if (m == 0) {
                rc = jp_end(&jp);
                break;
            }
            if (jp_skip(&jp) != 0) {
                assert_true(cases[i].skip_fails);
                rc = -1;
            }
        }
        if (rc != -1)
            fail_msg("walk accepted: %s", cases[i].text);
        tu_assert_err("walk.json: ", "malformed JSON", cases[i].what);
        jp_free(&jp);
        arena_free(&a);
        free(buf);
    }
}

/* jp_array_begin/next and jp_scalar: items one by one, a container left
 * alone, errors where jp_value would report them. */
static void test_array_walk(void **state)
{
    (void)state;
    const char *text = "[ 1, \"a\" ,[2], {\"k\": 3}, null ]";
    jparser jp;
    jp_init(&jp, "walk.json", text, strlen(text));
    arena a;
    arena_init(&a, 4096);
    jval v;
    assert_int_equal(jp_array_begin(&jp), 0);
    assert_int_equal(jp_array_next(&jp), 1);
    assert_int_equal(jp_scalar(&jp, &a, &v), 0);
    assert_int_equal(v.type, J_NUMBER);
    assert_int_equal(jp_array_next(&jp), 1);
    assert_int_equal(jp_scalar(&jp, &a, &v), 0);
    assert_int_equal(v.type, J_STRING);
    assert_int_equal(jp_array_next(&jp), 1);
    assert_int_equal(jp_scalar(&jp, &a, &v), 1);   /* a list: not consumed */
    assert_int_equal(jp_array_begin(&jp), 0);
    assert_int_equal(jp_array_next(&jp), 1);
    assert_int_equal(jp_scalar(&jp, &a, &v), 0);
    assert_int_equal(jp_array_next(&jp), 0);
    assert_int_equal(jp_array_next(&jp), 1);
    assert_int_equal(jp_scalar(&jp, &a, &v), 1);   /* an object */
    assert_int_equal(jp_skip(&jp), 0);
    assert_int_equal(jp_array_next(&jp), 1);
    assert_int_equal(jp_scalar(&jp, &a, &v), 0);
    assert_int_equal(v.type, J_NULL);
    assert_int_equal(jp_array_next(&jp), 0);
    assert_int_equal(jp_end(&jp), 0);
    assert_int_equal(jp.depth, 0);
    jp_free(&jp);

    static const char *const bad[] = {"[1 2]", "[,1]", "[1,]", "[1", "[", "{}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        jp_init(&jp, "bad.json", bad[i], strlen(bad[i]));
        int rc = jp_array_begin(&jp);
        for (int k = 0; rc == 0 && k < 4; k++) {
            int more = jp_array_next(&jp);
            if (more <= 0) {
                rc = more < 0 ? -1 : (jp_end(&jp) != 0 ? -1 : 1);
                break;
            }
            rc = jp_scalar(&jp, &a, &v) != 0 ? -1 : 0;
        }
        assert_int_equal(rc, -1);
        jp_free(&jp);
    }
    arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_streaming_walk),
        cmocka_unit_test(test_streaming_errors),
        cmocka_unit_test(test_array_walk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
