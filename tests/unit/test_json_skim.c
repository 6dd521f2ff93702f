/* format/json's jp_skim: the plain values it skims end where jp_value's
 * parse ends, the kinds of non-finite values it is asked to stop at stop
 * it, and everything else -- invalid text, escapes, non-ASCII, deep
 * nesting -- is left unconsumed for jp_value (checked on random token soup
 * too). Every document is copied into a buffer of exactly its length, so
 * that AddressSanitizer catches a read past its end. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/arena.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "format/json.h"
#include "testutil.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static char *exact_copy(const char *s, size_t n)
{
    char *b = malloc(n ? n : 1);
    assert_non_null(b);
    memcpy(b, s, n);
    return b;
}

/* jp_skim on `text` (copied exactly): its result, and where it left p
 * (-1: not moved); with `stop`. */
static int skim(const char *text, unsigned stop, long *end)
{
    size_t n = strlen(text);
    char *b = exact_copy(text, n);
    jparser jp;
    jp_init(&jp, "t", b, n);
    int rc = jp_skim(&jp, stop);
    *end = jp.p == b ? -1 : (long)(jp.p - b);
    jp_free(&jp);
    free(b);
    return rc;
}

/* Where jp_value ends on `text`, or -1 when it fails. */
static long value_end(const char *text)
{
    size_t n = strlen(text);
    char *b = exact_copy(text, n);
    jparser jp;
    jp_init(&jp, "t", b, n);
    arena a;
    arena_init(&a, 1024);
    jval v;
    err_clear();
    long end = jp_value(&jp, &a, &v) == 0 ? (long)(jp.p - b) : -1;
    err_clear();
    arena_free(&a);
    jp_free(&jp);
    free(b);
    return end;
}

static void test_skim(void **state)
{
    long end;
    const char *plain = "{\"a\": [1, -2.5e-3, 0, 12.0E+2, true, false, null, \"x y\"], \"b\": {}, \"c\": [[]]} tail";
    assert_int_equal(skim(plain, JSKIM_NONFINITE | JSKIM_NONFINITE_TEXT, &end), 1);
    assert_int_equal(end, value_end(plain));
    /* the kinds asked for stop it; others do not */
    static const struct {
        const char *text;
        unsigned kind;
    } kinds[] = {
        {"[1, NaN]", JSKIM_NONFINITE},       {"{\"Max\": -Infinity}", JSKIM_NONFINITE},
        {"[Infinity]", JSKIM_NONFINITE},     {"[1e999]", JSKIM_NONFINITE},
        {"[1.5e-300]", JSKIM_NONFINITE},     {"[\"nan\"]", JSKIM_NONFINITE_TEXT},
        {"[\"-INF\"]", JSKIM_NONFINITE_TEXT}, {"{\"Min\": \"Inf\"}", JSKIM_NONFINITE_TEXT},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        assert_int_equal(skim(kinds[i].text, kinds[i].kind, &end), 0);
        assert_int_equal(end, -1);
        assert_int_equal(skim(kinds[i].text, kinds[i].kind ^ (JSKIM_NONFINITE | JSKIM_NONFINITE_TEXT), &end), 1);
        assert_int_equal(end, value_end(kinds[i].text));
    }
    char digits[400];
    memset(digits, '7', sizeof digits - 1);
    digits[sizeof digits - 1] = 0;
    assert_int_equal(skim(digits, JSKIM_NONFINITE, &end), 0);
    /* neither kind: "-nan", "infinity", "nan" as a key, a number text */
    assert_int_equal(skim("[\"-nan\", \"infinity\", {\"nan\": 1}, \"1e999\", 1e99]", 3, &end), 1);
    /* not plain, though valid: nothing consumed, jp_value reads them */
    static const char *const other[] = {"\"caf\xc3\xa9\"", "\"a\\nb\"", "[\"inf\\t\"]", "\"\\u006ean\""};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        assert_int_equal(skim(other[i], 0, &end), 0);
        assert_int_equal(end, -1);
        assert_true(value_end(other[i]) > 0);
    }
    /* invalid: nothing consumed (jp_value says what is wrong) */
    static const char *const bad[] = {"[1, 2,]", "{\"a\" 1}", "[01]", "[1.]", "[-]", "{\"a\": tru}", "[1 2]", "[1",
                                      "\"abc", "{\"a\": 1,}", "{1: 2}", "[NaN1]", "-Inf", "[1e]", "", "]",
                                      "\"a\tb\""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(skim(bad[i], 0, &end), 0);
        assert_int_equal(end, -1);
    }
    /* deep nesting is left to jp_value */
    strbuf deep = STRBUF_INIT;
    for (int i = 0; i < 70; i++)
        sb_addc(&deep, '[');
    for (int i = 0; i < 70; i++)
        sb_addc(&deep, ']');
    assert_int_equal(skim(sb_str(&deep), 0, &end), 0);
    assert_int_equal(value_end(sb_str(&deep)), 140);
    sb_free(&deep);
}

/* Random token soup: whatever jp_skim takes, jp_value takes and ends at the
 * same place; whatever jp_value refuses, jp_skim refuses. */
static void test_skim_differential(void **state)
{
    static const char *const tokens[] = {"{", "}", "[", "]", ",", ":", "\"a\"", "\"nan\"", "1", "-", ".", "e", "0",
                                         "NaN", "Infinity", "true", "nul", " ", "\n", "\"", "x", "2.5", "\\"};
    uint64_t seed = 12345;
    char text[128];
    int taken = 0, refused_valid = 0;
    for (int it = 0; it < 200000; it++) {
        size_t len = 0;
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        int ntok = 1 + (int)((seed >> 33) % 14);
        for (int k = 0; k < ntok; k++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            const char *t = tokens[(seed >> 33) % (sizeof tokens / sizeof tokens[0])];
            size_t tl = strlen(t);
            if (len + tl >= sizeof text)
                break;
            memcpy(text + len, t, tl);
            len += tl;
        }
        text[len] = 0;
        long end, want = value_end(text);
        int rc = skim(text, 0, &end);
        if (rc == 1 && end != want)
            fail_msg("skim took '%s' up to %ld, jp_value: %ld", text, end, want);
        if (rc == 0 && end != -1)
            fail_msg("skim refused '%s' but moved", text);
        taken += rc == 1;
        refused_valid += rc == 0 && want >= 0;
    }
    /* the soup is not all garbage: both outcomes are common */
    assert_true(taken > 5000);
    assert_true(refused_valid > 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_skim),
        cmocka_unit_test(test_skim_differential),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
