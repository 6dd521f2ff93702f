/* dump.json / debug.json loading (spec/compare.md §1): every refusal of a
 * file or of its contents gives one line naming the file and the problem,
 * and what msprobe does not check is not refused either. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model/dump.h"
#include "base/err.h"
#include "testutil.h"
#include "dump_harness.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Refusals of file contents: one line naming the file and the problem. */
static void test_content_errors(void **state)
{
    static const struct {
        const char *json, *base, *what;
    } cases[] = {
        {"[1, 2]", "dump.json", "is not a JSON object"},
        {"  \n", "dump.json", "is not a JSON object"},
        {"\"data\"", "dump.json", "is not a JSON object"},
        {"[1, 2", "dump.json", "malformed JSON"},
        {"{\"task\": \"statistics\"}", "dump.json", "has no 'data' object"},
        {"{}", "debug.json", "has no 'data' object"},
        {"{\"task\": \"statistics\", \"data\": [1]}", "dump.json", "'data' is not an object"},
        {"{\"data\": \"x\"}", "dump.json", "'data' is not an object"},
        {"{\"data\": null}", "dump.json", "'data' is not an object"},
        {"{\"data\": [1, }", "dump.json", "malformed JSON"},
        {"{\"data\": {}} x", "dump.json", "extra data after the JSON value"},
        {"{\"data\": {}, }", "dump.json", "malformed JSON"},
        {"{\"data\": {\"A.0.forward\": {}, }}", "dump.json", "malformed JSON"},
        {"{\"data\": {\"A.0.forward\": 5}}", "dump.json", "entry A.0.forward of 'data' is not an object"},
        {"{\"data\": {\"A.0.forward\": null}}", "dump.json", "entry A.0.forward of 'data' is not an object"},
        {"{\"data\": {\"A.0.forward\": [{\"type\": \"int\"}]}}", "dump.json", "entry A.0.forward of 'data' is not an object"},
        {"{\"data\": {\"Foo.bar\": {\"input_args\": [{\"type\": \"int\", \"value\": 1}]}}}", "dump.json",
         "Invalid name string: Foo.bar.input.0, can not be split by forward/backward, please check."},
        {"{\"data\": {\"A.forward.b.forward.0\": {\"output\": [null]}}}", "dump.json",
         "Invalid name string: A.forward.b.forward.0.output.0, can not be split"},
        {"{\"data\": {\"A.0.forward\": {\"output\": [{\"type\": \"int\", \"data_name\": \"file.pt\"}]}}}", "dump.json",
         "Invalid name string: file, can not be split"},
        {"{\"data\": {\"x.0.debugger\": [null]}}", "debug.json", "entry x.0.debugger of 'data' is not an object"},
        {"{\"data\": {\"A.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"x\", \"shape\": 5}]}}}",
         "dump.json", "shape of input or output of A.0.forward is not list or tuple, please check!"},
        {"{\"data\": {\"A.0.forward\": {\"input_kwargs\": {\"k\": {\"type\": \"torch.Tensor\", \"shape\": \"[1]\"}}}}}",
         "dump.json", "shape of input or output of A.0.forward is not list or tuple"},
        {"{\"data\": {\"A.0.forward\": {\"output\": [{\"type\": \"torch.Tensor\", \"dtype\": \"x\", \"shape\": [1], "
         "\"requires_grad\": \"yes\"}]}}}",
         "dump.json", "requires_grad of input or output of A.0.forward is not bool, please check!"},
        {"{\"data\": {\"A.0.forward\": {\"output\": [{\"type\": \"torch.Tensor\", \"requires_grad\": 1}]}}}", "dump.json",
         "requires_grad of input or output of A.0.forward is not bool"},
        {"{\"data\": {\"=A.0.forward\": {\"output\": []}}}", "dump.json", "api name contains special characters, please check!"},
        {"{\"data\": {\"A.0.forward;@x\": {\"output\": []}}}", "dump.json", "api name contains special characters"},
        {"{\"data\": {\"\xef\xbc\x8b" "A.0.forward\": {\"output\": []}}}", "dump.json", "api name contains special characters"},
        {"{\"data\": {\"-x.0.debug\": {\"type\": \"int\"}}}", "debug.json", "api name contains special characters"},
        {"{\"data\": {\"A.0.forward\": {\"input_kwargs\": {\"s\": {\"type\": \"str\", \"value\": \"-1\"}}}}}", "dump.json",
         "data info of A.0.forward contains special characters, please check!"},
        {"{\"data\": {\"A.0.forward\": {\"output\": [{\"type\": \"str\", \"value\": \"ok;+1\"}]}}}", "dump.json",
         "data info of A.0.forward contains special characters"},
        /* "input" is checked when input_args is empty */
        {"{\"data\": {\"A.0.backward\": {\"input_args\": [], \"input\": [{\"type\": \"str\", \"value\": \"@x\"}]}}}", "dump.json",
         "data info of A.0.backward contains special characters"},
        {"{\"data\": {\"A.0.forward\": {\"output\": [{\"type\": \"torch.Tensor\", \"dtype\": \"x\", \"shape\": [1], \"data_name\": "
         "5}]}}}",
         "dump.json", "entry A.0.forward: data_name is not a string"},
        {"{\"data\": {\"A.0.forward\": {\"input_args\": [{\"type\": \"slice\", \"value\": [[1], [1, 2]]}]}}}", "dump.json",
         "entry A.0.forward: the value of a slice has an inhomogeneous shape"},
        {"{\"data\": {\"A.0.forward\": {\"input_args\": [{\"type\": \"slice\", \"value\": [1, [2]]}]}}}", "dump.json",
         "the value of a slice has an inhomogeneous shape"},
        {"{\"data\": {\"A.0.forward\": {\"input_args\": [{\"type\": \"slice\", \"value\": [[1, 2], [3, [4]]]}]}}}", "dump.json",
         "the value of a slice has an inhomogeneous shape"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dump_data d;
        if (load_as(cases[i].json, (size_t)-1, cases[i].base, &d) != -1)
            fail_msg("accepted: %s", cases[i].json);
        /* "<path>: <what>" */
        tu_assert_err(cur_path, cases[i].what);
        assert_memory_equal(err_message(), cur_path, strlen(cur_path));
        dump_free(&d);
    }
}

/* What msprobe does not check, we do not refuse either. */
static void test_not_checked(void **state)
{
    static const char *const ok[] = {
        /* parameters are not validated */
        "{\"data\": {\"A.0.forward\": {\"parameters\": {\"w\": {\"type\": \"torch.Tensor\", \"dtype\": \"x\", \"shape\": 5, "
        "\"requires_grad\": 1, \"s\": \"=1\"}}}}}",
        /* a list value is not looked into */
        "{\"data\": {\"A.0.forward\": {\"output\": [[\"=x\"]], \"input_args\": [\"=y\", \"-1\"]}}}",
        /* "input" is not checked when input_args has items */
        "{\"data\": {\"A.0.forward\": {\"input_args\": [{\"type\": \"int\", \"value\": 1}], \"input\": [{\"type\": \"str\", "
        "\"value\": \"@x\"}]}}}",
        /* a shape that is a dict is looked into, not refused */
        "{\"data\": {\"A.0.forward\": {\"output\": [{\"type\": \"torch.Tensor\", \"dtype\": \"x\", \"shape\": {\"a\": 1}}]}}}",
        /* debug.json values are not validated */
        "{\"data\": {\"x.0.debug\": {\"type\": \"str\", \"value\": \"=1\", \"shape\": 3}}}",
        /* blacklisted characters elsewhere in a name */
        "{\"data\": {\"A+B.0.forward\": {\"output\": [{\"type\": \"str\", \"value\": \"a-b;c\"}]}}}",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        dump_data d;
        const char *base = strstr(ok[i], "debug") ? "debug.json" : "dump.json";
        if (load_as(ok[i], (size_t)-1, base, &d) != 0)
            fail_msg("%s: %s", ok[i], err_message());
        dump_free(&d);
    }
}

static void test_file_errors(void **state)
{
    dump_data d;
    char *missing = tu_path(tu_dir, "nope/dump.json");
    err_clear();
    assert_int_equal(dump_load(missing, &d), -1);
    tu_assert_err(missing, "no such file");
    dump_free(&d);
    free(missing);

    char *sub = tu_path(tu_dir, "sub");
    assert_int_equal(mkdir(sub, 0700), 0);
    char *real = tu_write(sub, "real.json", fx_basic, (size_t)-1);
    char *link = tu_path(sub, "dump.json");
    assert_int_equal(symlink(real, link), 0);
    err_clear();
    assert_int_equal(dump_load(link, &d), -1);
    tu_assert_err(link, "symbolic link");
    dump_free(&d);
    assert_int_equal(unlink(link), 0);

    assert_int_equal(mkdir(link, 0700), 0);
    err_clear();
    assert_int_equal(dump_load(link, &d), -1);
    tu_assert_err(link, "is a directory");
    dump_free(&d);
    assert_int_equal(rmdir(link), 0);

    assert_int_equal(mkfifo(link, 0600), 0);
    err_clear();
    assert_int_equal(dump_load(link, &d), -1);
    tu_assert_err(link, "not a regular file");
    dump_free(&d);
    assert_int_equal(unlink(link), 0);

    assert_int_equal(load_as("", 0, "dump.json", &d), -1);
    tu_assert_err(cur_path, ": is empty");
    dump_free(&d);

    if (geteuid() != 0) {
        char *p = tu_write(sub, "dump.json", fx_basic, (size_t)-1);
        assert_int_equal(chmod(p, 0), 0);
        err_clear();
        assert_int_equal(dump_load(p, &d), -1);
        tu_assert_err(p, "permission denied");
        dump_free(&d);
        free(p);
    }
    free(link);
    free(real);
    free(sub);
}

/* Every prefix of a dump fails cleanly (and without leaks, under ASan). */
static void test_truncated_dump(void **state)
{
    size_t n = strlen(fx_basic);
    while (fx_basic[n - 1] != '}')
        n--;
    dump_data d;
    assert_int_equal(load_as(fx_basic, n, "dump.json", &d), 0);
    dump_free(&d);
    for (size_t len = 0; len < n; len++) {
        if (load_as(fx_basic, len, "dump.json", &d) != -1)
            fail_msg("prefix of %zu bytes accepted", len);
        tu_assert_err(cur_path, len ? "malformed JSON" : "is empty");
        dump_free(&d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_content_errors),
        cmocka_unit_test(test_not_checked),
        cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_truncated_dump),
    };
    int rc = cmocka_run_group_tests(tests, tu_dir_setup, tu_dir_teardown);
    free(cur_path);
    return rc;
}
