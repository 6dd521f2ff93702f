/* stack.json: both layouts (spec/compare.md §1.7), the NPU_Stack_Info text
 * (Python's str() of the stack list, checked against CPython), msprobe's
 * checks when a stack is looked up, and malformed files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/err.h"
#include "model/stack.h"
#include "base/strbuf.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *cur_path;

static int load(const char *json, stack_map *s)
{
    free(cur_path);
    cur_path = tu_write(tu_dir, "stack.json", json, (size_t)-1);
    err_clear();
    return stack_load(cur_path, s);
}

/* The stack of `name` must be found, pass the checks, and read `repr`. */
static void expect_stack(stack_map *s, const char *name, const char *repr)
{
    int bad = 7;
    err_clear();
    const stack_info *si = stack_get(s, name, &bad);
    if (!si)
        fail_msg("no stack for %s (%s)", name, err_message());
    assert_int_equal(bad, 0);
    assert_string_equal(stack_repr((stack_info *)si), repr);
    assert_int_equal(err_kind(), 0);
}

static void expect_none(stack_map *s, const char *name)
{
    int bad = 7;
    err_clear();
    assert_null(stack_get(s, name, &bad));
    assert_int_equal(bad, 0);
    assert_int_equal(err_kind(), 0);
}

static const char old_layout[] =
    "{\"Functional.conv2d.0.forward\": [\"File a.py, line 5, in f, \\n x = g()\", \"File b.py, line 9, in <module>, \\n "
    "main()\"],\n"
    " \"Tensor.add.0.forward\": [\"it's\", \"say \\\"hi\\\"\", \"tab\\there\", \"\\u4e2d\\u6587\", \"\\\\path\"],\n"
    " \"Torch.mixed.0.forward\": [1, null, true, 2.5, \"s\"],\n"
    " \"Torch.empty.0.forward\": [],\n"
    " \"Torch.none.0.forward\": null,\n"
    " \"Torch.str.0.forward\": \"File x.py\",\n"
    " \"Torch.int.0.forward\": 3,\n"
    " \"Torch.float.0.forward\": 3.5,\n"
    " \"Torch.bool.0.forward\": false,\n"
    " \"Torch.dict.0.forward\": {\"a\": 1},\n"
    " \"Torch.bad.0.forward\": [\"File ok.py\", \"=HYPERLINK(x)\"],\n"
    " \"Torch.bad2.0.forward\": [\"x;@y\"],\n"
    " \"Torch.fine.0.forward\": [\"a-b\", \"a;b\", \" =x\"],\n"
    " \"Torch.twice.0.forward\": [\"first\"],\n"
    " \"Torch.twice.0.forward\": [\"second\"]}";

static void test_old_layout(void **state)
{
    stack_map s;
    assert_int_equal(load(old_layout, &s), 0);
    expect_stack(&s, "Functional.conv2d.0.forward",
                 "['File a.py, line 5, in f, \\n x = g()', 'File b.py, line 9, in <module>, \\n main()']");
    expect_stack(&s, "Tensor.add.0.forward",
                 "[\"it's\", 'say \"hi\"', 'tab\\there', '\xe4\xb8\xad\xe6\x96\x87', '\\\\path']");
    expect_stack(&s, "Torch.mixed.0.forward", "[1, None, True, 2.5, 's']");
    expect_stack(&s, "Torch.empty.0.forward", "[]");
    /* a name given twice: the last value, as in a Python dict */
    expect_stack(&s, "Torch.twice.0.forward", "['second']");
    /* strings that only contain blacklisted characters later are fine */
    expect_stack(&s, "Torch.fine.0.forward", "['a-b', 'a;b', ' =x']");
    expect_none(&s, "Torch.none.0.forward");
    expect_none(&s, "Absent.0.forward");
    expect_none(&s, "");
    expect_none(&s, "Functional.conv2d.0");
    stack_free(&s);
}

static void test_not_a_list(void **state)
{
    static const struct {
        const char *name, *type;
    } cases[] = {
        {"Torch.str.0.forward", "str"},     {"Torch.int.0.forward", "int"},   {"Torch.float.0.forward", "float"},
        {"Torch.bool.0.forward", "bool"},   {"Torch.dict.0.forward", "dict"},
    };
    stack_map s;
    assert_int_equal(load(old_layout, &s), 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int bad = 0;
        err_clear();
        assert_null(stack_get(&s, cases[i].name, &bad));
        assert_int_equal(bad, 1);
        char want[200];
        snprintf(want, sizeof want, "Expected stack_info to be a list, but got %s for '%s'", cases[i].type, cases[i].name);
        tu_assert_err(cur_path, want);
    }
    stack_free(&s);
}

static void test_blacklisted_lines(void **state)
{
    stack_map s;
    assert_int_equal(load(old_layout, &s), 0);
    static const char *const names[] = {"Torch.bad.0.forward", "Torch.bad2.0.forward"};
    for (int i = 0; i < 2; i++) {
        int bad = 0;
        err_clear();
        assert_null(stack_get(&s, names[i], &bad));
        assert_int_equal(bad, 1);
        char want[200];
        snprintf(want, sizeof want, "stack info of %s contains special characters, please check!", names[i]);
        tu_assert_err(cur_path, ": ", want);
    }
    /* a failed lookup does not spoil the next one */
    expect_stack(&s, "Torch.empty.0.forward", "[]");
    stack_free(&s);
}

static const char new_layout[] =
    "{\"0\": [[\"Functional.linear.0.forward\", \"Functional.relu.0.forward\"], [\"File m.py, line 1, in <module>, \\n "
    "x\"]],\n"
    " \"1\": [[\"Functional.linear.0.backward\"], [\"File t.py, line 7, in step, \\n loss.backward()\", \"File m.py\"]],\n"
    " \"2\": [[\"Functional.relu.0.forward\"], [\"override\"]],\n"
    " \"3\": [[\"Too.many.0.forward\"], [\"a\"], [\"b\"]],\n"
    " \"4\": [[\"Too.few.0.forward\"]],\n"
    " \"5\": \"not a list\",\n"
    " \"6\": [[], [\"orphan\"]],\n"
    " \"7\": [[\"Null.0.forward\"], null],\n"
    " \"8\": [[\"Str.0.forward\"], \"text\"],\n"
    " \"9\": [[\"Bad.0.forward\"], [\"+1\"]]}";

/* stack_find() looks up without msprobe's checks and records nothing. */
static void test_find_unchecked(void **state)
{
    stack_map s;
    assert_int_equal(load(old_layout, &s), 0);
    err_clear();
    const stack_info *si = stack_find(&s, "Torch.str.0.forward");
    assert_non_null(si);
    assert_string_equal(stack_repr((stack_info *)si), "File x.py");
    si = stack_find(&s, "Torch.bad.0.forward");
    assert_non_null(si);
    assert_string_equal(stack_repr((stack_info *)si), "['File ok.py', '=HYPERLINK(x)']");
    assert_int_equal(err_kind(), 0);
    assert_null(stack_find(&s, "Torch.none.0.forward"));
    assert_null(stack_find(&s, "Absent.0.forward"));
    /* the same record as the checked lookup */
    int bad;
    assert_ptr_equal(stack_find(&s, "Functional.conv2d.0.forward"), stack_get(&s, "Functional.conv2d.0.forward", &bad));
    stack_free(&s);
}

static void test_new_layout(void **state)
{
    stack_map s;
    assert_int_equal(load(new_layout, &s), 0);
    expect_stack(&s, "Functional.linear.0.forward", "['File m.py, line 1, in <module>, \\n x']");
    expect_stack(&s, "Functional.linear.0.backward", "['File t.py, line 7, in step, \\n loss.backward()', 'File m.py']");
    /* a name listed again later takes the later stack */
    expect_stack(&s, "Functional.relu.0.forward", "['override']");
    /* values that are not [names, stack] pairs are skipped */
    expect_none(&s, "Too.many.0.forward");
    expect_none(&s, "Too.few.0.forward");
    expect_none(&s, "0");
    expect_none(&s, "5");
    expect_none(&s, "Null.0.forward");
    int bad = 0;
    err_clear();
    assert_null(stack_get(&s, "Str.0.forward", &bad));
    assert_int_equal(bad, 1);
    tu_assert_err("Expected stack_info to be a list, but got str for 'Str.0.forward'");
    err_clear();
    assert_null(stack_get(&s, "Bad.0.forward", &bad));
    assert_int_equal(bad, 1);
    tu_assert_err("stack info of Bad.0.forward contains special characters, please check!");

    /* one text per distinct stack, rendered once */
    const stack_info *a = stack_get(&s, "Functional.linear.0.forward", &bad);
    const char *r1 = stack_repr((stack_info *)a);
    assert_ptr_equal(stack_repr((stack_info *)a), r1);
    stack_free(&s);

    assert_int_equal(load("{\"0\": [[\"A.0.forward\", \"B.0.forward\"], [\"shared\"]]}", &s), 0);
    const stack_info *x = stack_get(&s, "A.0.forward", &bad), *y = stack_get(&s, "B.0.forward", &bad);
    assert_ptr_equal(x, y);
    assert_ptr_equal(stack_repr((stack_info *)x), stack_repr((stack_info *)y));
    stack_free(&s);
}

/* The new layout is recognised by a truthy "0", as msprobe does. */
static void test_layout_detection(void **state)
{
    stack_map s;
    /* "0" falsy: the old layout, where "0" is just a name */
    assert_int_equal(load("{\"0\": [], \"A.0.forward\": [[\"x\"], [\"y\"]]}", &s), 0);
    expect_stack(&s, "0", "[]");
    expect_stack(&s, "A.0.forward", "[['x'], ['y']]");
    stack_free(&s);
    assert_int_equal(load("{\"1\": [[\"A.0.forward\"], [\"y\"]], \"0\": null}", &s), 0);
    expect_none(&s, "A.0.forward");
    stack_free(&s);
    /* no "0" at all */
    assert_int_equal(load("{\"1\": [[\"A.0.forward\"], [\"y\"]]}", &s), 0);
    expect_stack(&s, "1", "[['A.0.forward'], ['y']]");
    expect_none(&s, "A.0.forward");
    stack_free(&s);
    /* any truthy "0" switches, even one that is not a pair itself */
    assert_int_equal(load("{\"0\": \"x\", \"1\": [[\"A.0.forward\"], [\"y\"]]}", &s), 0);
    expect_stack(&s, "A.0.forward", "['y']");
    expect_none(&s, "0");
    stack_free(&s);
    /* an empty file object: nothing is found */
    assert_int_equal(load("{}", &s), 0);
    expect_none(&s, "A.0.forward");
    stack_free(&s);
}

static void test_many_names(void **state)
{
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "{");
    for (int g = 0; g < 500; g++) {
        sb_addf(&sb, "%s\"%d\": [[", g ? ", " : "", g);
        for (int k = 0; k < 8; k++)
            sb_addf(&sb, "%s\"Torch.op%d.%d.forward\"", k ? ", " : "", g, k);
        sb_addf(&sb, "], [\"File g%d.py\"]]", g);
    }
    sb_adds(&sb, "}");
    stack_map s;
    assert_int_equal(load(sb_str(&sb), &s), 0);
    for (int g = 0; g < 500; g += 7) {
        char name[64], want[64];
        snprintf(name, sizeof name, "Torch.op%d.%d.forward", g, g % 8);
        snprintf(want, sizeof want, "['File g%d.py']", g);
        expect_stack(&s, name, want);
    }
    expect_none(&s, "Torch.op500.0.forward");
    stack_free(&s);
    sb_free(&sb);
}

static void test_malformed_files(void **state)
{
    static const struct {
        const char *json, *what;
    } cases[] = {
        {"", "is empty"},
        {"[1, 2]", "is not a JSON object"},
        {"null", "is not a JSON object"},
        {"{\"A.0.forward\": [\"x\"]", "malformed JSON"},
        {"{\"A.0.forward\": [\"x\",]}", "malformed JSON"},
        {"{\"A.0.forward\": [\"x\"]} []", "extra data"},
        {"{\"0\": [\"names\", [\"x\"]]}", "malformed stack.json: the names of stack \"0\" are not a list"},
        {"{\"0\": [[\"A.0.forward\", 5], [\"x\"]]}", "malformed stack.json: a name of stack \"0\" is not a string"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        stack_map s;
        if (load(cases[i].json, &s) != -1)
            fail_msg("accepted: %s", cases[i].json);
        tu_assert_err(cur_path, cases[i].what);
        stack_free(&s);
    }

    stack_map s;
    char *missing = tu_path(tu_dir, "missing.json");
    err_clear();
    assert_int_equal(stack_load(missing, &s), -1);
    tu_assert_err(missing, "no such file");
    stack_free(&s);

    char *real = tu_write(tu_dir, "real.json", "{}", (size_t)-1);
    char *link = tu_path(tu_dir, "link.json");
    assert_int_equal(symlink(real, link), 0);
    err_clear();
    assert_int_equal(stack_load(link, &s), -1);
    tu_assert_err(link, "symbolic link");
    stack_free(&s);

    err_clear();
    assert_int_equal(stack_load(tu_dir, &s), -1);
    tu_assert_err(tu_dir, "is a directory");
    stack_free(&s);
    free(missing);
    free(real);
    free(link);
}

/* Every prefix of a stack.json is refused without a leak. */
static void test_truncated(void **state)
{
    size_t n = strlen(new_layout);
    for (size_t len = 0; len < n; len++) {
        free(cur_path);
        cur_path = tu_write(tu_dir, "stack.json", new_layout, len);
        stack_map s;
        err_clear();
        if (stack_load(cur_path, &s) != -1)
            fail_msg("prefix of %zu bytes accepted", len);
        tu_assert_err(cur_path, len ? "malformed JSON" : "is empty");
        stack_free(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_old_layout),
        cmocka_unit_test(test_not_a_list),
        cmocka_unit_test(test_blacklisted_lines),
        cmocka_unit_test(test_find_unchecked),
        cmocka_unit_test(test_new_layout),
        cmocka_unit_test(test_layout_detection),
        cmocka_unit_test(test_many_names),
        cmocka_unit_test(test_malformed_files),
        cmocka_unit_test(test_truncated),
    };
    int rc = cmocka_run_group_tests(tests, tu_dir_setup, tu_dir_teardown);
    free(cur_path);
    return rc;
}
