/* train_compare's pieces: Python's round(), curves, Megatron golden values,
 * training-log lines, Megatron's sampling, and the checks with the
 * semantics of its checker (the corpus' quirk examples, q01-q13). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "train/check.h"
#include "format/curves.h"
#include "format/golden_values.h"
#include "format/trainlog.h"
#include "model/train_input.h"
#include "py/numfmt.h"
#include "py/pylit.h"
#include "base/err.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "testutil.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* py_round against glibc's exact %.*f read back (what CPython's dtoa
 * gives), on random doubles of every magnitude and on halves. */
static void test_py_round(void **state)
{
    uint64_t x = 88172645463325252ull;
    char buf[512];
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double v;
        if (i % 3 == 0) {
            uint64_t bits = x;
            memcpy(&v, &bits, 8);
            if (!isfinite(v))
                continue;
        } else {
            v = ((double)(x >> 11) / 9007199254740992.0 - 0.5) * pow(10, (double)(i % 23) - 11);
        }
        int nd = i % 9 == 0 ? (int)(x % 18) : 5;
        snprintf(buf, sizeof buf, "%.*f", nd, v);
        double want = strtod(buf, NULL);
        double got = py_round(v, nd);
        if (memcmp(&want, &got, 8) != 0 && !(want == 0 && got == 0 && signbit(want) == signbit(got)))
            fail_msg("py_round(%.17g, %d) = %.17g, want %.17g", v, nd, got, want);
    }
    /* ties on the exact binary value go to even; 2.675 is below its half */
    assert_true(py_round(2.675, 2) == 2.67);
    assert_true(py_round(0.125, 2) == 0.12);
    assert_true(py_round(0.375, 2) == 0.38);
    assert_true(py_round(3e-6, 5) == 0.0);
    assert_true(signbit(py_round(-1e-10, 5)));
    assert_true(py_round(3546770944.0f, 5) == 3546770944.0);
    assert_true(isnan(py_round(NAN, 5)) && py_round(INFINITY, 5) == INFINITY);
}

static curve *mk(curves *c, const char *name, const int64_t *steps, const double *v, size_t n)
{
    curve *s = curves_get(c, name, strlen(name));
    for (size_t i = 0; i < n; i++)
        curve_push(s, steps[i], v[i], CV_FLOAT);
    return s;
}

static void test_curves(void **state)
{
    curves c;
    curves_init(&c);
    static const int64_t st[] = {3, 1, 2, 1, 3};
    static const double v[] = {30, 10, 20, 11, 31};
    curve *s = mk(&c, "x", st, v, 5);
    curve_settle(s, 1);   /* a step given twice keeps the later value */
    assert_int_equal(s->n, 3);
    assert_true(s->step[0] == 1 && s->value[0] == 11 && s->value[2] == 31);
    curve *t = mk(&c, "y", st, v, 5);
    curve_settle(t, 0);
    assert_true(t->value[0] == 10 && t->value[2] == 30);
    /* merging: the earlier source keeps a step both hold */
    curves d;
    curves_init(&d);
    static const int64_t s2[] = {2, 3, 4};
    static const double v2[] = {-2, -3, -4};
    curve *u = mk(&d, "x", s2, v2, 3);
    curve_merge_missing(s, u);
    assert_int_equal(s->n, 4);
    assert_true(s->value[1] == 20 && s->value[3] == -4);
    assert_int_equal(curve_find_step(s, 4), 3);
    assert_int_equal(curve_find_step(s, 5), -1);
    curve_push_text(u, 9, "nan", 3);
    assert_true(u->value[3] == INFINITY && curve_kind_at(u, 3) == CV_STR && !strcmp(u->text[3], "nan"));
    curves_config_set(&d, "lr", 2, "0.1", 3);
    curves_config_set(&d, "lr", 2, "0.2", 3);
    assert_string_equal(curves_config_get(&d, "lr"), "0.2");
    assert_int_equal(d.ncfg, 1);
    curves_free(&c);
    curves_free(&d);
}

static int parse_golden(const char *text, curves *c)
{
    curves_init(c);
    return golden_parse("g.json", text, strlen(text), c);
}

static void test_golden(void **state)
{
    curves c;
    const char *ok = "{\"lm loss\": {\"start_step\": 999, \"end_step\": -5, \"step_interval\": 0, \"extra\": 1,"
                     " \"values\": {\"07\": 2.0, \"1\": 1.0, \"3\": \"nan\", \"5\": 25728}}}";
    assert_int_equal(parse_golden(ok, &c), 0);
    curve *s = curves_find(&c, "lm loss", 7);
    assert_non_null(s);
    assert_int_equal(s->n, 4);
    assert_true(s->step[0] == 1 && s->step[3] == 7);
    assert_true(s->value[1] == INFINITY && curve_kind_at(s, 1) == CV_STR);
    assert_int_equal(curve_kind_at(s, 2), CV_INT);
    /* written as Megatron's CLI writes: ints as ints, strings as strings */
    strbuf sb = STRBUF_INIT;
    golden_format(&sb, &c, 1, 1);
    assert_non_null(strstr(sb_str(&sb), "\"3\": \"nan\""));
    assert_non_null(strstr(sb_str(&sb), "\"5\": 25728,"));
    assert_non_null(strstr(sb_str(&sb), "\"step_interval\": 2,"));   /* gcd of 3-5-7 without step 1 */
    curves back;
    assert_int_equal(parse_golden(sb_str(&sb), &back), 0);
    assert_int_equal(curves_find(&back, "lm loss", 7)->n, 4);
    curves_free(&back);
    sb_free(&sb);
    curves_free(&c);
    static const struct {
        const char *text, *err;
    } bad[] = {
        {"{}", "holds no metric"},
        {"", "is empty"},
        {"[1]", "not a JSON object"},
        {"{\"a\": 1}", "metric 'a' is not an object"},
        {"{\"a\": {\"start_step\": 0, \"end_step\": 10, \"step_interval\": 5, \"values\": [1.0, 2.0]}}",
         "are a list (the old format)"},
        {"{\"a\": {\"start_step\": 0, \"end_step\": 0, \"step_interval\": 1, \"values\": {}}}", "has no values"},
        {"{\"a\": {\"end_step\": 0, \"step_interval\": 1, \"values\": {\"1\": 1}}}", "has no start_step"},
        {"{\"a\": {\"start_step\": 1.5, \"end_step\": 0, \"step_interval\": 1, \"values\": {\"1\": 1}}}",
         "start_step of metric 'a' is not an integer"},
        {"{\"a\": {\"start_step\": 1, \"end_step\": 1, \"step_interval\": 1, \"values\": {\"x\": 1}}}",
         "step 'x' of metric 'a' is not an integer"},
        {"{\"a\": {\"start_step\": 1, \"end_step\": 1, \"step_interval\": 1, \"values\": {\"1\": true}}}",
         "neither a number nor a string"},
        {"{\"a\": {\"start_step\": 1, \"end_step\": 1, \"step_interval\": 1, \"values\": {\"1\": 1.0, \"01\": 2.0}}}",
         "step 1 of metric 'a' is given twice with different values"},
        {"{\"a\": {\"start_step\": 1, \"end_step\": 1, \"step_interval\": 1, \"values\": {\"1\": 1}}, \"a\": {}}",
         "metric 'a' is given twice"},
        {"{\"a\": {\"start_step\": 1, \"end_step\": 1, \"step_interval\": 1, \"values\": {\"1\": 1,}}}", "g.json"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = parse_golden(bad[i].text, &c);
        if (rc != -1)
            fail_msg("accepted: %s", bad[i].text);
        tu_assert_err("g.json", bad[i].err);
        err_clear();
        curves_free(&c);
    }
    /* the same step twice with the same value is no error */
    assert_int_equal(parse_golden("{\"a\": {\"start_step\": 1, \"end_step\": 1, \"step_interval\": 1, \"values\": "
                                  "{\"1\": 1.0, \"01\": 1.0}}}",
                                  &c),
                     0);
    curves_free(&c);
}

static double at(const curves *c, const char *name, int64_t step)
{
    const curve *s = curves_find(c, name, strlen(name));
    if (!s)
        fail_msg("no series %s", name);
    long k = curve_find_step(s, step);
    if (k < 0)
        fail_msg("no step %lld of %s", (long long)step, name);
    return s->value[k];
}

static void test_trainlog(void **state)
{
    const char *log =
        "------------------------ arguments ------------------------\n"
        "  lr .............................................. 0.0001\n"
        "  a_very_long_argument_name_that_has_no_dots_at_all_x  3\n"
        "-------------------- end of arguments ---------------------\n"
        " [2025-01-01 10:00:00.123456] iteration       10/     100 | consumed samples:           80 | elapsed time "
        "per iteration (ms): 622.0 | throughput per GPU (TFLOP/s/GPU): 12.5 | learning rate: 1.000000E-04 | global "
        "batch size:     8 | lm loss: 6.380680E+00 | mtp_1 loss: 6.500000E+00 | loss scale: 1.0 | grad norm: 1.567 "
        "| num zeros: 25728.0 | params norm: 210.123 | number of skipped iterations:   0 | number of nan "
        "iterations:   0 |\r\n"
        " validation loss at iteration 10 | lm loss value: 6.100000E+00 | lm loss PPL: 4.457800E+02 | \n"
        "2024-05-05 10:00:00,123 - mindformers[callback.py:490] - INFO - { Epoch:[  2/  3], step:[    4/  100], "
        "loss:[5.123/5.500], per_step_time: 622ms, lr: [1.e-04], overflow cond: False, loss_scale: 1.0, "
        "global_norm: [1.25], train_throughput_per_npu: 12.3T\n"
        "2024-05-05 10:00:00,124 - mindformers[callback.py:510] - INFO -   4.2% |██      | 12.86000 samples/s/p  "
        "0:01:02 }\n"
        "{ Epoch:[  1/  3], step:[    5/  100], loss: 7.000, per_step_time: 10ms, overflow cond: False, "
        "loss_scale: unavailable, global_norm: 2.0\n"
        "Epoch:[  1/  3], step:[    5/  100] local_norm/w1: 0.1234\n"
        "iteration 11 of something else\n";
    curves c;
    curves_init(&c);
    assert_int_equal(trainlog_parse("train.log", log, strlen(log), &c, NULL, NULL), 0);
    assert_true(at(&c, "lm loss", 10) == 6.38068);
    assert_true(at(&c, "mtp_1 loss", 10) == 6.5);
    assert_true(at(&c, "grad-norm", 10) == 1.567);
    assert_true(at(&c, "num-zeros", 10) == 25728);
    assert_true(at(&c, "iteration-time", 10) == 0.622);
    assert_true(at(&c, "learning-rate", 10) == 1e-4);
    assert_true(at(&c, "batch-size", 10) == 8);
    assert_true(at(&c, "throughput", 10) == 12.5);
    assert_true(at(&c, "consumed samples", 10) == 80);
    assert_true(at(&c, "lm loss validation", 10) == 6.1);
    assert_true(at(&c, "lm loss validation ppl", 10) == 445.78);
    /* MindSpore Transformers: the global step is (epoch - 1) * 100 + step */
    assert_true(at(&c, "loss", 104) == 5.123);
    assert_true(at(&c, "iteration-time", 104) == 622);
    assert_true(at(&c, "learning-rate", 104) == 1e-4);
    assert_true(at(&c, "grad-norm", 104) == 1.25);
    assert_true(at(&c, "model-flops-throughput-per-npu", 104) == 12.3);
    assert_true(at(&c, "throughput", 104) == 12.86);
    assert_true(at(&c, "loss", 5) == 7.0);
    assert_true(at(&c, "grad-norm", 5) == 2.0);
    /* "loss scale" of Megatron and "loss_scale" of MindSpore Transformers
     * both are loss-scale; "unavailable" is no number */
    assert_true(at(&c, "loss-scale", 10) == 1.0 && at(&c, "loss-scale", 104) == 1.0);
    assert_int_equal(curve_find_step(curves_find(&c, "loss-scale", 10), 5), -1);
    assert_true(at(&c, "local_norm/w1", 5) == 0.1234);
    assert_string_equal(curves_config_get(&c, "lr"), "0.0001");
    assert_string_equal(curves_config_get(&c, "a_very_long_argument_name_that_has_no_dots_at_all_x"), "3");
    curves_free(&c);
    assert_true(trainlog_sniff(log, strlen(log)));
    assert_false(trainlog_sniff("{\"lm loss\": {}}", 15));

    /* a step twice with different values names both lines */
    const char *twice = " iteration 1/ 2 | lm loss: 1.0 |\n iteration 1/ 2 | lm loss: 1.5 |\n";
    curves_init(&c);
    assert_int_equal(trainlog_parse("two.log", twice, strlen(twice), &c, NULL, NULL), -1);
    tu_assert_err("two.log", "step 1 of 'lm loss' is given twice with different values (lines 1 and 2)");
    err_clear();
    curves_free(&c);
    curves_init(&c);
    assert_int_equal(trainlog_parse("none.log", "hello\nworld\n", 12, &c, NULL, NULL), -1);
    tu_assert_err("none.log", "is no training log");
    err_clear();
    curves_free(&c);
}

/* q06: steps 0..12, train_iters 10, start 1, step 5: 1, 5, 10; 3e-6 rounds
 * to 0; a tag every 3 steps has nothing on the grid and is dropped. */
static void test_sample(void **state)
{
    curves c;
    curves_init(&c);
    curve *a = curves_get(&c, "lm loss", 7), *b = curves_get(&c, "lr", 2), *e = curves_get(&c, "every3", 6);
    for (int s = 0; s <= 12; s++) {
        curve_push(a, s, 1.0 / 3 + s, CV_FLOAT);
        curve_push(b, s, 3e-6, CV_FLOAT);
        if (s % 3 == 0 && s)
            curve_push(e, s, 1, CV_FLOAT);
    }
    train_sampling sm = {10, 1, 5, 5};
    train_sample(&c, &sm);
    assert_int_equal(c.n, 2);
    a = curves_find(&c, "lm loss", 7);
    assert_int_equal(a->n, 3);
    assert_true(a->step[0] == 1 && a->step[1] == 5 && a->step[2] == 10);
    assert_true(a->value[0] == 1.33333 && a->value[2] == 10.33333);
    assert_true(curves_find(&c, "lr", 2)->value[1] == 0);
    curves_free(&c);
    /* start 0 keeps step 0 (Megatron never does) */
    curves_init(&c);
    a = curves_get(&c, "x", 1);
    for (int s = 0; s < 4; s++)
        curve_push(a, s, s, CV_FLOAT);
    train_sampling z = {0, 0, 1, -1};
    train_sample(&c, &z);
    assert_int_equal(curves_find(&c, "x", 1)->n, 4);
    curves_free(&c);
}

static train_check approx(const char *metric, double rtol)
{
    train_check c = {(char *)metric, {{TEST_APPROXIMATE, rtol, 0}}, 1};
    return c;
}

static const test_result *run1(const train_check *chk, curve *g, curve *a, int approximate_only, metric_result *r)
{
    train_check_metric(chk, g, a, approximate_only, NULL, r);
    return &r->r[0];
}

static void test_checks(void **state)
{
    curves c;
    metric_result r;
    curves_init(&c);
    /* q08: the allowance min(max(n // 100, 1), 50) */
    static const struct {
        int n, fail, pass;
    } allow[] = {{11, 1, 1}, {11, 2, 0}, {100, 1, 1}, {100, 2, 0}, {199, 1, 1}, {199, 2, 0}, {200, 2, 1},
                 {200, 3, 0}, {5000, 50, 1}, {6000, 60, 0}, {3, 1, 0}, {1, 1, 0}};
    for (size_t k = 0; k < sizeof allow / sizeof allow[0]; k++) {
        curve *g = curves_get(&c, "g", 1), *a = curves_get(&c, "a", 1);
        curve_clear(g);
        curve_clear(a);
        for (int s = 1; s <= allow[k].n; s++) {
            curve_push(g, s, 1.0, CV_FLOAT);
            curve_push(a, s, s <= allow[k].fail ? 2.0 : 1.0, CV_FLOAT);
        }
        train_check chk = approx("lm loss", 0.05);
        const test_result *x = run1(&chk, g, a, 1, &r);
        if ((x->verdict == V_PASSED) != allow[k].pass)
            fail_msg("n=%d, %d failing: %s", allow[k].n, allow[k].fail, train_verdict_names[x->verdict]);
        assert_int_equal(x->failing, (size_t)allow[k].fail);
        assert_int_equal(x->first_failing, 1);
    }
    /* q10: the tolerance scales with the golden */
    assert_true(!train_isclose(1.0525, 1.0, 0.05, 0) && train_isclose(1.0, 1.0525, 0.05, 0));
    assert_true(train_isclose(INFINITY, INFINITY, 0, 0) && !train_isclose(NAN, NAN, 0.05, 0));
    /* q01/q02: "nan" strings are inf on both sides and pass; a golden "nan"
     * passes against a missing step (counted); a float NaN never passes */
    curve *g = curves_get(&c, "g2", 2), *a = curves_get(&c, "a2", 2);
    curve_push(g, 1, 2.0, CV_FLOAT);
    curve_push(g, 2, 3.0, CV_FLOAT);
    curve_push_text(g, 3, "nan", 3);
    curve_push(a, 1, 2.0, CV_FLOAT);
    curve_push(a, 2, 3.0, CV_FLOAT);
    train_check det = {"lm loss", {{TEST_DETERMINISTIC, 0, 0}}, 1};
    const test_result *x = run1(&det, g, a, 0, &r);
    assert_int_equal(x->verdict, V_PASSED);
    assert_int_equal(x->masked, 1);
    curve_push(a, 3, NAN, CV_FLOAT);
    assert_int_equal(run1(&det, g, a, 0, &r)->verdict, V_FAILED);
    /* q12: approximate mode skips the deterministic test */
    assert_int_equal(run1(&det, g, a, 1, &r)->verdict, V_SKIPPED);
    /* q11: missing on either side fails */
    x = run1(&det, NULL, a, 0, &r);
    assert_true(x->verdict == V_FAILED && x->why == WHY_MISSING_GOLDEN);
    x = run1(&det, g, NULL, 0, &r);
    assert_true(x->verdict == V_FAILED && x->why == WHY_MISSING_ACTUAL);
    /* q09: iteration-time compares the median over steps 30..45; 7 of its
     * 16 steps missing in the actual, or 99x slower outside it, pass */
    g = curves_get(&c, "gt", 2);
    a = curves_get(&c, "at", 2);
    curve *a2 = curves_get(&c, "at2", 3);
    for (int s = 1; s <= 100; s++) {
        curve_push(g, s, 0.10, CV_FLOAT);
        if (s < 30 || s > 36)
            curve_push(a, s, 0.10, CV_FLOAT);
        curve_push(a2, s, s < 30 || s > 45 ? 9.9 : 0.10, CV_FLOAT);
    }
    train_check it = approx("iteration-time", 0.05);
    x = run1(&it, g, a, 1, &r);
    assert_true(x->verdict == V_PASSED && x->median && x->nwindow == 16 && x->first_window_step == 30);
    assert_int_equal(run1(&it, g, a2, 1, &r)->verdict, V_PASSED);
    /* q09c: a golden ending at step 25 uses the window 5..20 */
    curve *g3 = curves_get(&c, "g3", 2), *a3 = curves_get(&c, "a3", 2);
    static const int64_t s3[] = {1, 5, 10, 15, 20, 25};
    for (int k = 0; k < 6; k++) {
        curve_push(g3, s3[k], k ? 0.1 : 0.5, CV_FLOAT);
        curve_push(a3, s3[k], k == 5 ? 9.0 : k ? 0.1 : 0.5, CV_FLOAT);
    }
    x = run1(&it, g3, a3, 1, &r);
    assert_true(x->verdict == V_PASSED && x->first_window_step == 5 && x->last_window_step == 20);
    /* no step in the window: the first four finite steps from its start */
    curve *g4 = curves_get(&c, "g4", 2), *a4 = curves_get(&c, "a4", 2);
    for (int s = 100; s <= 800; s += 100) {
        curve_push(g4, s, 1.0, CV_FLOAT);
        curve_push(a4, s, s <= 400 ? 1.0 : 5.0, CV_FLOAT);
    }
    x = run1(&it, g4, a4, 1, &r);
    assert_true(x->verdict == V_PASSED && x->nwindow == 4 && x->last_window_step == 400);
    /* the thresholds table */
    train_check t;
    assert_int_equal(train_thresholds("num-zeros", &t), 1);
    assert_true(t.ntests == 2 && t.tests[0].kind == TEST_DETERMINISTIC && t.tests[1].rtol == 0.20);
    assert_int_equal(train_thresholds("iteration-time", &t), 1);
    assert_true(t.ntests == 1 && t.tests[0].kind == TEST_APPROXIMATE);
    assert_int_equal(train_thresholds("loss", &t), 0);
    /* a band widens the tolerance to k standard deviations */
    curve *gb = curves_get(&c, "gb", 2), *ab = curves_get(&c, "ab", 2), *sd = curves_get(&c, "sd", 2);
    curve_push(gb, 1, 1.0, CV_FLOAT);
    curve_push(ab, 1, 1.3, CV_FLOAT);
    curve_push(sd, 1, 0.1, CV_FLOAT);
    train_check ap = approx("lm loss", 0.05);
    train_band band = {sd, 3};
    train_check_metric(&ap, gb, ab, 1, &band, &r);
    assert_int_equal(r.r[0].verdict, V_PASSED);
    band.k = 2;
    train_check_metric(&ap, gb, ab, 1, &band, &r);
    assert_int_equal(r.r[0].verdict, V_FAILED);
    assert_int_equal(r.first_out, 1);
    curves_free(&c);
}

static void leaf(void *ctx, const char *path, size_t pl, const char *value, size_t vl)
{
    strbuf *sb = ctx;
    sb_addf(sb, "%.*s=%.*s;", (int)pl, path, (int)vl, value);
}

/* str(dict) of a configuration, read back key by key */
static void test_pylit(void **state)
{
    strbuf sb = STRBUF_INIT;
    const char *t = "{'lr': 0.001, 'parallel': {'dp': 8, 'tp': 1}, 'name': 'llama \\'7b\\'', 1: None, "
                    "'layers': [1, 2, {'x': 3}], 'cell': <class 'mindspore.nn.Cell'>, 'shape': (4, 5), 'e': {}}";
    assert_int_equal(pylit_dict_leaves(t, strlen(t), leaf, &sb), 8);
    assert_string_equal(sb_str(&sb), "lr=0.001;parallel.dp=8;parallel.tp=1;name=llama '7b';1=None;layers=[1, 2, {'x': "
                                     "3}];cell=<class 'mindspore.nn.Cell'>;shape=(4, 5);");
    sb_reset(&sb);
    static const char *const bad[] = {"", "0.001", "{'a': 1", "{'a' 1}", "{'a': [1, 2}", "{'a': 1} x", "['a']",
                                      "{'a': 'unterminated}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(pylit_dict_leaves(bad[i], strlen(bad[i]), leaf, &sb), -1);
    assert_int_equal(sb.len, 0);
    sb_free(&sb);
}

int main(void)
{
    log_set_prog("test_train");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_py_round), cmocka_unit_test(test_curves),  cmocka_unit_test(test_golden),
        cmocka_unit_test(test_trainlog), cmocka_unit_test(test_sample), cmocka_unit_test(test_checks),
        cmocka_unit_test(test_pylit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
