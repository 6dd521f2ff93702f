/* graph: the text of an exported value (spec/visualization.md §8.3), on the
 * cases of msprobe's test_msprobe_adapter.py (§12), and the fast roundings
 * against snprintf on a million doubles; the legend (§8.5). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "graph/model/values.h"
#include "graph/write/page/page.h"
#include "graph/write/vis.h"
#include "format/json.h"
#include "py/numfmt.h"
#include "testutil.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char out[256];

static const char *fmt_json(const char *json)
{
    arena a;
    arena_init(&a, 4096);
    jval v;
    if (json_parse("t", json, strlen(json), &a, &v) != 0)
        fail_msg("%s", err_message());
    strbuf sb = STRBUF_INIT;
    vis_value_json(&sb, &v);
    snprintf(out, sizeof out, "%s", sb_str(&sb));
    sb_free(&sb);
    arena_free(&a);
    return out;
}

static void test_msprobe_cases(void **state)
{
    (void)state;
    /* _format_decimal_string */
    assert_string_equal(fmt_json("\"0.123456789%\""), "\"0.123457%\"");
    assert_string_equal(fmt_json("\"0.12345678\""), "\"0.123457\"");
    assert_string_equal(fmt_json("\"-1\""), "\"-1\"");
    assert_string_equal(fmt_json("\"0.0.25698548%\""), "\"0.0.25698548%\"");
    assert_string_equal(fmt_json("\"73.29288957533336%\""), "\"73.292890%\"");
    assert_string_equal(fmt_json("\"0.0%\""), "\"0.0%\"");
    assert_string_equal(fmt_json("\"N/A\""), "\"N/A\"");
    assert_string_equal(fmt_json("\"inf%\""), "\"inf%\"");
    assert_string_equal(fmt_json("\"inf\\t\""), "\"inf\\t\"");
    assert_string_equal(fmt_json("\" \""), "\" \"");
    /* _format_data */
    assert_string_equal(fmt_json("0.123456789"), "\"0.123457\"");
    assert_string_equal(fmt_json("null"), "\"null\"");
    assert_string_equal(fmt_json("\"<class 'str'>\""), "\"<class str>\"");
    assert_string_equal(fmt_json("\"None\""), "\"null\"");
    assert_string_equal(fmt_json("\"No'ne\""), "\"null\"");
    assert_string_equal(fmt_json("1.123123123123e-11"), "\"1.123123e-11\"");
    assert_string_equal(fmt_json("Infinity"), "\"inf\"");
    assert_string_equal(fmt_json("-Infinity"), "\"-inf\"");
    assert_string_equal(fmt_json("NaN"), "\"nan\"");
    assert_string_equal(fmt_json("-1"), "\"-1\"");
    assert_string_equal(fmt_json("-0"), "\"0\"");
    assert_string_equal(fmt_json("true"), "\"True\"");
    assert_string_equal(fmt_json("[4, 4096]"), "\"[4, 4096]\"");
    assert_string_equal(fmt_json("[\"a\"]"), "\"['a']\"");
    assert_string_equal(fmt_json("{\"k\": 1}"), "\"{'k': 1}\"");
    assert_string_equal(fmt_json("9.66036224"), "\"9.660362\"");
    assert_string_equal(fmt_json("30119.0"), "\"30119.0\"");
    assert_string_equal(fmt_json("23.25"), "\"23.25\"");
    assert_string_equal(fmt_json("1e-05"), "\"1.000000e-05\"");
    assert_string_equal(fmt_json("1.5e16"), "\"1.500000e+16\"");
    assert_string_equal(fmt_json("-1e-07"), "\"-1.000000e-07\"");
    assert_string_equal(fmt_json("0.0001"), "\"0.0001\"");
    assert_string_equal(fmt_json("-0.0000004"), "\"-4.000000e-07\"");
    assert_string_equal(fmt_json("1234567890.1234567"), "\"1234567890.123457\"");
    /* non-ASCII text as \u escapes, ensure_ascii */
    assert_string_equal(fmt_json("\"\\u00e9\""), "\"\\u00e9\"");
}

/* repr(round(x, 6)) from Python's definition: %.6f rounds the exact value,
 * float() reads it back, repr() writes it */
static void ref_round6(double x, char *buf)
{
    char t[400];
    snprintf(t, sizeof t, "%.6f", x);
    double y = strtod(t, NULL);
    fmt_pyrepr(y, buf);
}

static uint64_t rnd = 0x9E3779B97F4A7C15ull;

static uint64_t next(void)
{
    rnd ^= rnd << 13;
    rnd ^= rnd >> 7;
    rnd ^= rnd << 17;
    return rnd;
}

static void check_one(double x)
{
    char want[400], got[400], r[64];
    snprintf(want, sizeof want, "%.6f", x);
    vis_fixed6(x, got);
    if (strcmp(want, got) != 0)
        fail_msg("%%.6f of %.17g: %s, want %s", x, got, want);
    fmt_pyrepr(x, r);
    if (strchr(r, 'e') || !isfinite(x))
        return;
    ref_round6(x, want);
    vis_round6(x, got);
    if (strcmp(want, got) != 0)
        fail_msg("round(%.17g, 6): %s, want %s", x, got, want);
}

static void test_roundings(void **state)
{
    (void)state;
    /* ties at the seventh decimal in the shortest digits, carries */
    static const double edge[] = {0.0078125, 0.0000005, 0.0000015, 1.0000005, 2.5000005, 0.9999995, 9.9999995,
                                  99999.9999995, 0.1234565, 0.1234575, 1e-7, 5e-7, 4.9999999e-7, 1234567.0000005,
                                  0.5, 123456789012.5, 1e15 + 0.5, 0.3, -0.0000005, -2.5000005};
    for (size_t i = 0; i < sizeof edge / sizeof *edge; i++)
        check_one(edge[i]);
    for (int i = 0; i < 1000000; i++) {
        double x;
        uint64_t u = next();
        switch (i % 4) {
        case 0: /* any finite double of a sensible magnitude */
            x = ldexp((double)(u >> 11) / 9007199254740992.0, (int)(next() % 80) - 40);
            break;
        case 1: /* decimal ties of seven places */
            x = (double)(u % 100000000) / 1e7 + 0.00000005;
            break;
        case 2: /* statistics as float32 values */
            x = (double)(float)((double)(u >> 11) / 9007199254740992.0 * 1000);
            break;
        default: /* bfloat16-like values */
            x = ldexp((double)(u % 256) / 256.0 + 1, (int)(next() % 40) - 20);
            break;
        }
        if (next() & 1)
            x = -x;
        check_one(x);
        char want[64], got[64];
        char r[64];
        fmt_pyrepr(x, r);
        if (strchr(r, 'e')) {
            snprintf(want, sizeof want, "\"%.6e\"", x);
            strbuf sb = STRBUF_INIT;
            vis_float(&sb, x);
            snprintf(got, sizeof got, "%s", sb_str(&sb));
            sb_free(&sb);
            if (strcmp(want, got) != 0)
                fail_msg("%%.6e of %.17g: %s, want %s", x, got, want);
        }
    }
}

/* §8.5: the ranges of each task; summary [0, 0.2) ... [0.8, 1] */
static void test_colors(void **state)
{
    (void)state;
    size_t n;
    const vis_color *c = vis_colors(TASK_SUMMARY, &n);
    assert_int_equal(n, 6);
    assert_string_equal(c[0].hex, "#FFFCF3");
    assert_true(c[0].lo == 0 && c[0].hi == 0.2);
    assert_string_equal(c[4].hex, "#FF704D");
    assert_true(c[4].lo == 0.8 && c[4].hi == 1);
    assert_null(c[5].low);
    c = vis_colors(TASK_REAL, &n);
    assert_true(c[1].lo == 0.05 && c[1].hi == 0.1);
    c = vis_colors(TASK_MD5, &n);
    assert_int_equal(n, 3);
    assert_string_equal(c[0].low, "1");
    assert_string_equal(c[1].high, "0");
    c = vis_colors(TASK_STRUCTURE, &n);
    assert_int_equal(n, 1);
    assert_string_equal(c[0].hex, "#C7C7C7");
    /* the colour a node is filled with */
    assert_string_equal(vis_fill(TASK_SUMMARY, PX_FLOAT, 0.0, 1), "#FFFCF3");
    assert_string_equal(vis_fill(TASK_SUMMARY, PX_FLOAT, 0.2, 1), "#FFEDBE");
    assert_string_equal(vis_fill(TASK_SUMMARY, PX_FLOAT, 0.7329288957533336, 1), "#FFC62E");
    assert_string_equal(vis_fill(TASK_SUMMARY, PX_INT, 1, 1), "#FF704D");
    assert_string_equal(vis_fill(TASK_REAL, PX_FLOAT, 0.80419921875, 1), "#FF704D");
    assert_string_equal(vis_fill(TASK_REAL, PX_FLOAT, 0.15, 1), "#FFC62E");
    assert_string_equal(vis_fill(TASK_MD5, PX_INT, 1, 1), "#FFFCF3");
    assert_string_equal(vis_fill(TASK_MD5, PX_INT, 0, 1), "#FF704D");
    /* unmatched: grey; matched without an index: white */
    assert_string_equal(vis_fill(TASK_SUMMARY, PX_FLOAT, 0.1, 0), "#C7C7C7");
    assert_string_equal(vis_fill(TASK_SUMMARY, PX_NONE, 0, 1), "#FFFFFF");
}

/* graph view's page of a .vis: the file must be one JSON object (text
 * after it could end the page's script element); NaN and -Infinity become
 * strings even where they straddle the 1 MiB chunks the page is written in. */
static void test_view_page(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    char *page = tu_path(dir, "p.html");
    char *bad = tu_write(dir, "bad.vis", "{\"a\": 1}</script><script>alert(1)</script>", (size_t)-1);
    assert_int_equal(page_from_vis_file(bad, &page), -1);
    assert_non_null(strstr(err_message(), "bad.vis: malformed JSON: extra data"));
    err_clear();
    free(page);
    page = tu_path(dir, "p.html");
    assert_int_equal(access(page, F_OK), -1);
    /* JSON that holds no graph (a dump.json given by mistake) is no .vis */
    char *dump = tu_write(dir, "dump.json", "{\"task\": \"statistics\", \"data\": {\"node\": 1}}", (size_t)-1);
    assert_int_equal(page_from_vis_file(dump, &page), -1);
    assert_non_null(strstr(err_message(), "dump.json: not a .vis file: it holds no graph"));
    err_clear();
    free(page);
    free(dump);
    page = tu_path(dir, "p.html");
    assert_int_equal(access(page, F_OK), -1);
    for (size_t at = (1 << 20) - 10; at < (1 << 20) + 2; at++) {
        /* {"node": {}, "p": "xxx...", "v": [NaN, -Infinity]} with the tokens around offset 1 MiB */
        strbuf sb = STRBUF_INIT;
        sb_adds(&sb, "{\"node\": {}, \"p\": \"");
        while (sb.len < at - 15)
            sb_addc(&sb, 'x');
        sb_adds(&sb, "\", \"v\": [NaN, -Infinity]}");
        char *vis = tu_write(dir, "big.vis", sb.buf, sb.len);
        sb_free(&sb);
        assert_int_equal(page_from_vis_file(vis, &page), 0);
        size_t n;
        char *html = tu_read(page, &n);
        assert_non_null(strstr(html, "\"v\":[\"NaN\",\"-Infinity\"]}</script>"));
        free(html);
        free(vis);
    }
    free(page);
    free(bad);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_msprobe_cases),
        cmocka_unit_test(test_roundings),
        cmocka_unit_test(test_colors),
        cmocka_unit_test(test_view_page),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
