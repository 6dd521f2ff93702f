/* Unit tests of py/difflib: the spec's golden ratios (spec/configcheck.md
 * §A.6.7) and cases computed by CPython's difflib, long ones included
 * (autojunk of popular elements). */
#include "py/difflib.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "difflib_cases.h"

static double ratio(const char *a, const char *b) { return py_difflib_ratio(a, strlen(a), b, strlen(b)); }

static void spec_goldens(void **state)
{
    (void)state;
    assert_true(ratio("optimize", "optimizer") == 0.9411764705882353);
    assert_true(ratio("micro_batch_size", "micro-batch-size") == 0.875);
    assert_true(ratio("global_batch_size", "global-batch-size") == 0.8823529411764706);
    assert_true(ratio("lr", "learning_rate") == 0.26666666666666666);
    assert_true(ratio("seq_length", "seq-len") == 0.7058823529411765);
    assert_true(ratio("train_iters", "train_epochs") == 0.6956521739130435);
    assert_true(ratio("calculate_sum(a, b)", "calculate_sum(x, y)") == 0.8947368421052632);
    assert_true(ratio("result = calculate_sum(a, b)", "print('Hello, world!')") == 0.28);
    assert_true(ratio("", "") == 1.0);
    assert_true(ratio("abc", "") == 0.0);
}

static void cpython_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof difflib_cases / sizeof difflib_cases[0]; i++) {
        const char *a = difflib_cases[i].a, *b = difflib_cases[i].b;
        size_t m = py_difflib_matches(a, strlen(a), b, strlen(b));
        if (m != difflib_cases[i].matches || ratio(a, b) != difflib_cases[i].ratio)
            fail_msg("case %zu: %zu matches (CPython %u), ratio %.17g (CPython %.17g)", i, m,
                     difflib_cases[i].matches, ratio(a, b), difflib_cases[i].ratio);
    }
}

/* Order matters: ratio(a, b) indexes b, so it is not symmetric in general,
 * but a string always matches itself completely. */
static void identity(void **state)
{
    (void)state;
    char s[600];
    for (int i = 0; i < 599; i++)
        s[i] = "ab c"[i % 4];
    s[599] = 0;
    /* 600 elements of four kinds are all popular: nothing is indexed, but
     * the empty longest match at the start extends over equal elements,
     * as in CPython */
    assert_true(ratio(s, s) == 1.0);
    assert_true(ratio(s + 1, s) == 0.0);
    assert_true(ratio("abc", "abc") == 1.0);
}

/* A byte that is not UTF-8 counts as one element. */
static void invalid_utf8(void **state)
{
    (void)state;
    assert_true(py_difflib_ratio("a\xff", 2, "a\xff", 2) == 1.0);
    assert_true(py_difflib_ratio("\xe6\x97", 2, "x", 1) == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spec_goldens),
        cmocka_unit_test(cpython_cases),
        cmocka_unit_test(identity),
        cmocka_unit_test(invalid_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
