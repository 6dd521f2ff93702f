/* model/overflow: msprobe's per-API anomaly scenes (spec/analyzers.md §B),
 * on the cases of msprobe's own tests (core_ut/overflow_check, §B.6) and
 * the corners where msprobe would raise. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model/overflow.h"
#include "format/json.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

static arena mem;

static const jval *parse(const char *text)
{
    jval *v = arena_alloc(&mem, sizeof *v);
    err_clear();
    if (json_parse("test", text, strlen(text), &mem, v) != 0)
        fail_msg("%s", err_message());
    return v;
}

static int scene(const char *entry)
{
    ovf_api api;
    ovf_api_of(parse(entry), &api);
    return ovf_scene_of(&api);
}

static void test_values(void **state)
{
    /* str(x).lower() in ['inf', '-inf', 'nan'] */
    assert_true(ovf_is_nan_inf(parse("NaN"), 0));
    assert_true(ovf_is_nan_inf(parse("-Infinity"), 0));
    assert_true(ovf_is_nan_inf(parse("1e999"), 0));
    assert_true(ovf_is_nan_inf(parse("\"NaN\""), 0));
    assert_true(ovf_is_nan_inf(parse("\"INF\""), 0));
    assert_true(ovf_is_nan_inf(parse("\"-inf\""), 0));
    assert_false(ovf_is_nan_inf(parse("\"Infinity\""), 0));
    assert_false(ovf_is_nan_inf(parse("\"inf\\t\""), 0));
    /* nan_analyze's OVERFLOW_LIST also has the tab variants */
    assert_true(ovf_is_nan_inf(parse("\"inf\\t\""), 1));
    assert_false(ovf_is_nan_inf(parse("1.5"), 0));
    assert_false(ovf_is_nan_inf(parse("null"), 0));
    assert_false(ovf_is_nan_inf(parse("true"), 0));
    assert_false(ovf_is_nan_inf(NULL, 0));

    /* has_nan_inf: Max, Min or Mean of a dict; Norm does not count */
    assert_true(ovf_stats_anomalous(parse("{\"Max\": \"NaN\"}")));
    assert_true(ovf_stats_anomalous(parse("{\"Mean\": Infinity}")));
    assert_false(ovf_stats_anomalous(parse("{\"Norm\": NaN}")));
    assert_false(ovf_stats_anomalous(parse("[{\"Max\": NaN}]")));
    /* _has_anomaly: lists recursively, 10 levels at most */
    assert_true(ovf_value_anomalous(parse("[[{\"Min\": -Infinity}]]")));
    assert_true(ovf_value_anomalous(parse("[[[[[[[[[[{\"Max\": NaN}]]]]]]]]]]")));
    assert_false(ovf_value_anomalous(parse("[[[[[[[[[[[{\"Max\": NaN}]]]]]]]]]]]")));
    assert_false(ovf_value_anomalous(parse("\"nan\"")));
}

static void test_scenes(void **state)
{
    /* the four APIs of test_overflow_checker.py */
    assert_int_equal(scene("{\"input_args\": [{\"Max\": 1}], \"output\": [{\"Max\": \"inf\"}]}"),
                     OVF_INPUT_NORMAL_OUTPUT_ANOMALY);
    assert_int_equal(scene("{\"input_args\": [{\"Max\": \"nan\"}], \"output\": [{\"Max\": \"inf\"}]}"),
                     OVF_INPUT_ANOMALY_OUTPUT_ANOMALY);
    assert_int_equal(scene("{\"input_args\": [{\"Max\": \"nan\"}], \"output\": [{\"Max\": 1}]}"),
                     OVF_INPUT_ANOMALY_OUTPUT_NORMAL);
    assert_int_equal(scene("{\"input_args\": [{\"type\": \"torch.Tensor\", \"Max\": 1, \"Norm\": 1.0}], "
                           "\"output\": [{\"type\": \"torch.Tensor\", \"Max\": 9, \"Norm\": 200000.0}]}"),
                     OVF_NUMERICAL_MUTATION);
    assert_int_equal(ovf_scene_level(OVF_INPUT_NORMAL_OUTPUT_ANOMALY), OVF_CRITICAL);
    assert_int_equal(ovf_scene_level(OVF_INPUT_ANOMALY_OUTPUT_ANOMALY), OVF_HIGH);
    assert_int_equal(ovf_scene_level(OVF_INPUT_ANOMALY_OUTPUT_NORMAL), OVF_MEDIUM);
    assert_int_equal(ovf_scene_level(OVF_NUMERICAL_MUTATION), OVF_HIGH);
    assert_string_equal(ovf_level_name(OVF_CRITICAL), "critical");
    assert_string_equal(ovf_scene_name(OVF_NUMERICAL_MUTATION), "NumericalMutationScene");
    /* kwargs alone make the input anomalous */
    assert_int_equal(scene("{\"input_args\": [], \"input_kwargs\": {\"bias\": {\"Max\": \"-inf\"}}, \"output\": []}"),
                     OVF_INPUT_ANOMALY_OUTPUT_NORMAL);
    /* backward entries: "input" when there is no input_args */
    assert_int_equal(scene("{\"input\": [{\"Max\": NaN}], \"output\": [{\"Max\": NaN}]}"),
                     OVF_INPUT_ANOMALY_OUTPUT_ANOMALY);
    /* an output dict is iterated by its keys: never anomalous */
    assert_int_equal(scene("{\"input_args\": [], \"output\": {\"a\": {\"Max\": NaN}}}"), OVF_NONE);
    assert_int_equal(scene("{\"input_args\": [{\"Max\": 1}], \"output\": [{\"Max\": 2}]}"), OVF_NONE);
}

static void test_mutation(void **state)
{
    const char *t = "{\"input_args\": [{\"type\": \"torch.Tensor\", \"Norm\": %s}, {\"type\": \"torch.Tensor\", "
                    "\"Norm\": %s}], \"input_kwargs\": {\"w\": {\"type\": \"torch.Tensor\", \"Norm\": %s}}, "
                    "\"output\": [{\"type\": \"torch.Tensor\", \"Norm\": %s}]}";
    char buf[512];
    /* the largest input norm (args and kwargs) against the largest output */
    snprintf(buf, sizeof buf, t, "1.0", "NaN", "3.0", "301.0");
    assert_int_equal(scene(buf), OVF_NUMERICAL_MUTATION);
    snprintf(buf, sizeof buf, t, "1.0", "2.0", "3.0", "299.0");
    assert_int_equal(scene(buf), OVF_NONE);
    /* a zero input: the output alone above 100 */
    snprintf(buf, sizeof buf, t, "0", "0", "0", "100.5");
    assert_int_equal(scene(buf), OVF_NUMERICAL_MUTATION);
    /* inf / inf is nan: no */
    snprintf(buf, sizeof buf, t, "Infinity", "1", "1", "Infinity");
    assert_int_equal(scene(buf), OVF_NONE);
    /* a text Norm (np.isnan raises in msprobe) is no norm */
    snprintf(buf, sizeof buf, t, "\"x\"", "null", "0.5", "1000");
    assert_int_equal(scene(buf), OVF_NUMERICAL_MUTATION);
    /* only torch.Tensor dicts count */
    assert_int_equal(scene("{\"input_args\": [{\"type\": \"mindspore.Tensor\", \"Norm\": 1}], "
                           "\"output\": [{\"type\": \"torch.Tensor\", \"Norm\": 1000}]}"),
                     OVF_NONE);
}

static void test_filter(void **state)
{
    /* torch.empty's output may be anything */
    assert_int_equal(ovf_classify("Torch.empty.0.forward", parse("{\"input_args\": [], \"output\": [{\"Max\": Infinity}]}")),
                     OVF_NONE);
    /* ... but only output 0 */
    assert_int_equal(ovf_classify("Torch.empty.0.forward",
                                  parse("{\"input_args\": [], \"output\": [{\"Max\": 1}, {\"Max\": Infinity}]}")),
                     OVF_INPUT_NORMAL_OUTPUT_ANOMALY);
    /* recv: input 0 and kwarg tensor are buffers; outputs are not constrained */
    const char *recv = "{\"input_args\": [{\"Max\": NaN}, {\"Max\": 0}], \"input_kwargs\": {\"tensor\": {\"Max\": NaN}},"
                       " \"output\": [{\"Max\": 1}, {\"Max\": Infinity}]}";
    assert_int_equal(ovf_classify("Distributed.recv.0.forward", parse(recv)), OVF_NONE);
    assert_int_equal(ovf_classify("Torch.add.0.forward", parse(recv)), OVF_INPUT_ANOMALY_OUTPUT_ANOMALY);
    /* a NaN input at an index the rule does not ignore keeps the scene */
    assert_int_equal(ovf_classify("Distributed.recv.0.forward",
                                  parse("{\"input_args\": [{\"Max\": 1}, {\"Max\": NaN}], \"output\": []}")),
                     OVF_INPUT_ANOMALY_OUTPUT_NORMAL);
    assert_int_equal(ovf_classify("Distributed.recv.0.forward",
                                  parse("{\"input_args\": [], \"input_kwargs\": {\"src\": {\"Max\": NaN}}, "
                                        "\"output\": []}")),
                     OVF_INPUT_ANOMALY_OUTPUT_NORMAL);
    /* the rule's api is the name's first two fields, lower-cased */
    assert_int_equal(ovf_classify("Tensor.masked_fill_.3.forward",
                                  parse("{\"input_args\": [{\"Max\": NaN}], \"output\": [{\"Max\": 1}]}")),
                     OVF_NONE);
    assert_int_equal(ovf_classify("Tensor.masked_fill.3.forward",
                                  parse("{\"input_args\": [{\"Max\": NaN}], \"output\": [{\"Max\": 1}]}")),
                     OVF_INPUT_ANOMALY_OUTPUT_NORMAL);
    /* a list argument is not looked into by the rules (has_nan_inf is flat) */
    assert_int_equal(ovf_classify("Distributed.all_gather.0.forward",
                                  parse("{\"input_args\": [[{\"Max\": NaN}], {\"Max\": 1}], \"output\": []}")),
                     OVF_NONE);
}

int main(void)
{
    arena_init(&mem, 4096);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_scenes),
        cmocka_unit_test(test_mutation),
        cmocka_unit_test(test_filter),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    arena_free(&mem);
    return rc;
}
