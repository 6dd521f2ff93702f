/* Unit tests of the newest msprobe's dialect of compare: the join on the
 * name alone with backward calls renumbered, entries without a direction
 * left out, its statistics cells and difference rules, its Result checks
 * and Err_message. The expected values were checked against the newest
 * msprobe's own compare of the same dumps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare/pipeline/compare.h"
#include "compare/pipeline/dialect.h"
#include "base/strbuf.h"

static char tmpdir[] = "/tmp/msprobe_test_newest_XXXXXX";

static char *write_dump(const char *name, const char *task, const char *data)
{
    char *path = malloc(strlen(tmpdir) + strlen(name) + 2);
    sprintf(path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"task\": \"%s\", \"level\": \"mix\", \"framework\": \"pytorch\", \"data\": {%s}}", task, data);
    fclose(f);
    return path;
}

typedef struct {
    compare_ctx c;
    compare_opts o;
} fixture;

static fixture *load(const char *npu_data, const char *bench_data, int mode)
{
    fixture *f = calloc(1, sizeof *f);
    char *n = write_dump("npu.json", "statistics", npu_data);
    char *b = write_dump("bench.json", "statistics", bench_data);
    f->o.dialect = DIALECT_NEWEST;
    f->o.threads = 2;
    f->c.opts = &f->o;
    assert_int_equal(dump_load_ex(n, DUMP_NEWER_ROWS, &f->c.npu), 0);
    assert_int_equal(dump_load_ex(b, DUMP_NEWER_ROWS, &f->c.bench), 0);
    f->c.mode = mode;
    f->c.file_type = DUMP_JSON;
    assert_int_equal(match_rows(&f->c), 0);
    newest_column_types(&f->c);
    assert_int_equal(highlight_rows(&f->c), 0);
    free(n);
    free(b);
    return f;
}

static void unload(fixture *f)
{
    dump_free(&f->c.npu);
    dump_free(&f->c.bench);
    mapping_keys_free(&f->c.keys);
    if (f->c.bench_keys)
        arena_free(&f->c.bench_key_mem);
    free((void *)f->c.bench_keys);
    free(f->c.npu_dropped);
    free(f->c.pairs);
    free(f->c.level);
    free(f->c.checks);
    free(f);
}

#define T(dtype, shape, mx, mn, mean, norm)                                                              \
    "{\"type\": \"torch.Tensor\", \"dtype\": \"" dtype "\", \"shape\": " shape ", \"Max\": " mx ", \"Min\": " mn \
    ", \"Mean\": " mean ", \"Norm\": " norm "}"
#define F32(mx, mn, mean, norm) T("torch.float32", "[2]", mx, mn, mean, norm)
#define ONE F32("1", "0", "0.5", "1")

static const char *name_of(const fixture *f, size_t i) { return f->c.pairs[i].n->name; }
static const char *bench_of(const fixture *f, size_t i)
{
    return f->c.pairs[i].b ? f->c.pairs[i].b->name : "N/A";
}

/* ---- matching ---------------------------------------------------------- */

static void test_join_on_name(void **state)
{
    (void)state;
    /* shapes differ: 8.1.0 leaves the row unmatched, the newest pairs it
     * (and its shape check says error) */
    fixture *f = load("\"Functional.a.0.forward\": {\"input_args\": [" T("torch.float32", "[3]", "1", "0", "0.5", "1")
                      "]}",
                      "\"Functional.a.0.forward\": {\"input_args\": [" T("torch.float32", "[4]", "1", "0", "0.5", "1")
                      "]}",
                      MODE_SUMMARY);
    assert_int_equal(f->c.npairs, 1);
    assert_non_null(f->c.pairs[0].b);
    assert_int_equal(f->c.level[0], LEVEL_ERROR);
    assert_int_equal(f->c.checks[0], CK_SHAPE);
    unload(f);
}

static void test_backward_renumbered(void **state)
{
    (void)state;
    /* the target ran linear 1 then 0 backward, the bench 3 then 2: paired
     * by their order of calls; a forward keeps its number; an entry without
     * a direction is left out */
    fixture *f = load("\"Functional.linear.0.forward\": {\"output\": [" ONE "]}, "
                      "\"Functional.linear.1.backward\": {\"input\": [" ONE "]}, "
                      "\"Functional.linear.0.backward\": {\"input\": [" ONE "]}, "
                      "\"Module.m.Linear.backward.4\": {\"input\": [" ONE "]}, "
                      "\"Module.odd\": {\"input_args\": [" ONE "]}",
                      "\"Functional.linear.0.forward\": {\"output\": [" ONE "]}, "
                      "\"Functional.linear.3.backward\": {\"input\": [" ONE "]}, "
                      "\"Functional.linear.2.backward\": {\"input\": [" ONE "]}, "
                      "\"Module.m.Linear.backward.9\": {\"input\": [" ONE "]}, "
                      "\"Module.odd\": {\"input_args\": [" ONE "]}",
                      MODE_SUMMARY);
    assert_int_equal(f->c.npairs, 4);
    assert_string_equal(bench_of(f, 0), "Functional.linear.0.forward.output.0");
    assert_string_equal(name_of(f, 1), "Functional.linear.1.backward.input.0");
    assert_string_equal(bench_of(f, 1), "Functional.linear.3.backward.input.0");
    assert_string_equal(bench_of(f, 2), "Functional.linear.2.backward.input.0");
    assert_string_equal(bench_of(f, 3), "Module.m.Linear.backward.9.input.0");
    unload(f);
}

/* ---- cells and differences ---------------------------------------------- */

static pyval text(const char *s) { return (pyval){.kind = PV_STR, .len = (uint32_t)strlen(s), .text = s}; }
static pyval num(double x) { return (pyval){.kind = PV_FLOAT, .num = x}; }
static pyval integer(double x) { return (pyval){.kind = PV_INT, .num = x}; }
static pyval boolean(int b) { return (pyval){.kind = PV_BOOL, .num = b}; }

static void diff_is(const compare_ctx *c, pyval n, pyval b, const char *diff, const char *rel)
{
    char d[NEWEST_DIFF_BUFSZ], r[NEWEST_DIFF_BUFSZ];
    newest_stat_diff(c, 0, &n, &b, d, r);
    assert_string_equal(d, diff);
    assert_string_equal(r, rel);
}

static void test_difference_rules(void **state)
{
    (void)state;
    compare_opts o = {.dialect = DIALECT_NEWEST};
    compare_ctx c = {.opts = &o};
    diff_is(&c, num(1.5), num(1.5), "0", "0");                      /* same text */
    diff_is(&c, text("None"), text("None"), "0", "0");
    diff_is(&c, num(1.5), num(1.0), "0.5", "50.0%");
    diff_is(&c, num(-1.0), num(0.0), "-1.0", "inf");                /* bench 0 */
    diff_is(&c, integer(1), num(1.0), "0.0", "0.0%");               /* "1" is not "1.0" */
    diff_is(&c, text("Nan"), num(1.0), "Nan", "Nan");
    diff_is(&c, num(INFINITY), num(1.0), "inf", "inf");
    diff_is(&c, num(1.0), num(INFINITY), "-inf", "-inf");
    diff_is(&c, num(-INFINITY), num(INFINITY), "-inf", "-inf");
    diff_is(&c, num(1.0), text("N/A"), "N/A", "N/A");
    diff_is(&c, text("npu:0"), text("cuda:0"), "N/A", "N/A");      /* two devices */
    diff_is(&c, text("npu:0"), num(1.0), "Diff", "Diff");
    diff_is(&c, text("abc"), text("abd"), "Diff", "Diff");
    diff_is(&c, boolean(1), boolean(0), "Diff", "Diff");            /* bools are not numbers */
    diff_is(&c, text("1.5"), num(1.0), "0.5", "50.0%");             /* a numeric text counts */
    /* pandas reads both columns as int64: an int difference */
    c.npu_int_col[0] = c.bench_int_col[0] = 1;
    diff_is(&c, integer(3), integer(1), "2", "200.0%");
}

static void test_message_json(void **state)
{
    (void)state;
    strbuf sb = STRBUF_INIT;
    check_message(0, &sb);
    assert_string_equal(sb_str(&sb), "[]");
    sb_reset(&sb);
    check_message(CK_DTYPE | CK_REL_WARN, &sb);
    assert_string_equal(sb_str(&sb), "[\"error: The dtype of NPU and Bench are inconsistent.\", \"warning: The norm "
                                     "relative error of output is 10 times that of input.\"]");
    sb_free(&sb);
    assert_string_equal(check_level_text(LEVEL_PASS), "pass");
    assert_string_equal(check_level_text(LEVEL_WARNING), "warning");
    assert_string_equal(check_level_text(LEVEL_ERROR), "error");
}

/* ---- the checks -------------------------------------------------------- */

static void test_checks_statistics(void **state)
{
    (void)state;
    fixture *f = load(
        /* NaN/inf in the target's max */
        "\"Torch.exp.0.forward\": {\"input_args\": [" ONE "], \"output\": [" F32("Infinity", "0", "1", "1") "]}, "
        /* equal inputs, an output far off: NormRelativeErr > 0.5 */
        "\"Torch.mul.0.forward\": {\"input_args\": [" ONE ", {\"type\": \"float\", \"value\": 2.5}], "
        "\"output\": [" F32("5", "0", "1", "4") "]}, "
        /* a scalar argument differs (its relative error then keeps the
         * output check quiet) */
        "\"Torch.div.0.forward\": {\"input_args\": [" ONE ", {\"type\": \"int\", \"value\": 3}], "
        "\"output\": [" F32("5", "0", "1", "4") "]}, "
        /* a dtype float16 vs float32 (paired: same family) */
        "\"Torch.add.0.forward\": {\"input_args\": [" T("torch.float16", "[2]", "1", "0", "0.5", "1") "]}, "
        /* requires_grad differs */
        "\"Torch.sub.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", "
        "\"shape\": [2], \"Max\": 1, \"Min\": 0, \"Mean\": 0.5, \"Norm\": 1, \"requires_grad\": true}]}, "
        /* an API whose checks are all skipped */
        "\"Tensor.to.0.forward\": {\"input_args\": [" T("torch.float16", "[2]", "1", "0", "0.5", "1") "]}",
        "\"Torch.exp.0.forward\": {\"input_args\": [" ONE "], \"output\": [" F32("2", "0", "1", "1") "]}, "
        "\"Torch.mul.0.forward\": {\"input_args\": [" ONE ", {\"type\": \"float\", \"value\": 2.5}], "
        "\"output\": [" F32("2", "0", "1", "2") "]}, "
        "\"Torch.div.0.forward\": {\"input_args\": [" ONE ", {\"type\": \"int\", \"value\": 2}], "
        "\"output\": [" F32("2", "0", "1", "2") "]}, "
        "\"Torch.add.0.forward\": {\"input_args\": [" ONE "]}, "
        "\"Torch.sub.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", "
        "\"shape\": [2], \"Max\": 1, \"Min\": 0, \"Mean\": 0.5, \"Norm\": 1, \"requires_grad\": false}]}, "
        "\"Tensor.to.0.forward\": {\"input_args\": [" ONE "]}",
        MODE_SUMMARY);
    assert_int_equal(f->c.npairs, 11);
    /* Torch.exp: output 1 has inf */
    assert_string_equal(name_of(f, 1), "Torch.exp.0.forward.output.0");
    assert_int_equal(f->c.checks[1], CK_INF_NAN);
    assert_int_equal(f->c.checks[0], 0);
    /* Torch.mul: the output's norm is off by 100%, the inputs agree */
    assert_string_equal(name_of(f, 4), "Torch.mul.0.forward.output.0");
    assert_int_equal(f->c.checks[3], 0);
    assert_int_equal(f->c.checks[4], CK_REL_ERR | CK_REL_WARN); /* and 10 times the inputs (0) */
    assert_int_equal(f->c.level[4], LEVEL_ERROR);
    /* Torch.div: the scalar argument 3 vs 2 */
    assert_string_equal(name_of(f, 6), "Torch.div.0.forward.input.1");
    assert_int_equal(f->c.checks[6], CK_PARAMETERS);
    assert_int_equal(f->c.checks[7], 0);
    /* Torch.add: dtype; Torch.sub: requires_grad; Tensor.to: nothing */
    assert_int_equal(f->c.checks[8], CK_DTYPE);
    assert_int_equal(f->c.checks[9], CK_REQUIRES_GRAD);
    assert_int_equal(f->c.checks[10], 0);
    assert_int_equal(f->c.level[10], LEVEL_PASS);
    /* the statistics as the newest msprobe holds them */
    pyval v;
    newest_stat(&f->c, 1, 0, 0, &v);
    assert_int_equal(v.kind, PV_FLOAT);
    assert_true(isinf(v.num));
    /* the bench's statistics are numbers only: pandas made them floats */
    newest_stat(&f->c, 6, 0, 1, &v);
    assert_int_equal(v.kind, PV_FLOAT);
    assert_true(v.num == 2);
    unload(f);
}

static void test_checks_md5(void **state)
{
    (void)state;
    fixture *f = load(
        "\"Torch.a.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", "
        "\"shape\": [2], \"Max\": 1, \"Min\": 0, \"Mean\": 0.5, \"Norm\": 1, \"md5\": \"00000001\"}, null, "
        "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], \"Max\": 1, \"Min\": 0, "
        "\"Mean\": 0.5, \"Norm\": 1, \"md5\": \"00000003\"}]}, "
        "\"Torch.b.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", "
        "\"shape\": [2], \"Max\": 1, \"Min\": 0, \"Mean\": 0.5, \"Norm\": 1, \"md5\": \"00000004\"}]}",
        "\"Torch.a.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", "
        "\"shape\": [2], \"Max\": 1, \"Min\": 0, \"Mean\": 0.5, \"Norm\": 1, \"md5\": \"00000002\"}, null, "
        "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], \"Max\": 1, \"Min\": 0, "
        "\"Mean\": 0.5, \"Norm\": 1, \"md5\": \"00000003\"}]}",
        MODE_MD5);
    assert_int_equal(f->c.npairs, 4);
    assert_int_equal(f->c.checks[0], CK_CRC);            /* differs */
    assert_int_equal(f->c.checks[1], 0);                 /* null: N/A == N/A */
    assert_int_equal(f->c.checks[2], 0);                 /* equal */
    assert_int_equal(f->c.checks[3], CK_PARAM_UNMATCHED); /* no bench: a warning */
    assert_int_equal(f->c.level[3], LEVEL_WARNING);
    unload(f);
}

/* pandas' typing of the statistics: a side whose four columns hold numbers
 * only, one a float, comes out float64 (an int 3 is 3.0); otherwise the
 * unmatched rows' numbers-only columns do (fillna() converts them). */
static void test_int_statistics(void **state)
{
    (void)state;
    const char *scalar3 = "{\"type\": \"int\", \"value\": 3}";
    char npu[1024], bench[1024];
    snprintf(npu, sizeof npu, "\"Torch.a.0.forward\": {\"input_args\": [" ONE ", %s]}", scalar3);
    snprintf(bench, sizeof bench, "\"Torch.a.0.forward\": {\"input_args\": [" ONE ", %s]}", scalar3);
    fixture *f = load(npu, bench, MODE_SUMMARY);
    pyval v;
    newest_stat(&f->c, 1, 0, 0, &v);
    assert_int_equal(v.kind, PV_FLOAT);
    assert_true(v.num == 3);
    unload(f);
    /* a null row makes the side's frame objects: the matched int stays an
     * int, the unmatched one (its column numbers only) becomes a float */
    snprintf(npu, sizeof npu,
             "\"Torch.a.0.forward\": {\"input_args\": [" ONE ", %s, null]}, "
             "\"Torch.b.0.forward\": {\"input_args\": [" ONE ", %s]}",
             scalar3, scalar3);
    snprintf(bench, sizeof bench, "\"Torch.a.0.forward\": {\"input_args\": [" ONE ", %s, null]}", scalar3);
    f = load(npu, bench, MODE_SUMMARY);
    assert_int_equal(f->c.npairs, 5);
    newest_stat(&f->c, 1, 0, 0, &v);
    assert_int_equal(v.kind, PV_INT);
    assert_null(f->c.pairs[4].b);
    newest_stat(&f->c, 4, 0, 0, &v);  /* Max: 1 and 3, ints only */
    assert_int_equal(v.kind, PV_INT);
    newest_stat(&f->c, 4, 2, 0, &v);  /* Mean: 0.5 and 3 */
    assert_int_equal(v.kind, PV_FLOAT);
    assert_true(v.num == 3);
    unload(f);
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_join_on_name),
        cmocka_unit_test(test_backward_renumbered),
        cmocka_unit_test(test_difference_rules),
        cmocka_unit_test(test_message_json),
        cmocka_unit_test(test_checks_statistics),
        cmocka_unit_test(test_checks_md5),
        cmocka_unit_test(test_int_statistics),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
