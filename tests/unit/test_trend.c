/* data2db's pieces: the tags of target names (the table of spec/data2db.md
 * §9.1 and csv2db's get_tags_from_target), and the micro steps of a
 * construct.json with the renumbering within each micro step (§6.2). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "monitor/data2db/micro.h"
#include "monitor/data2db/tags.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

/* "tag/category tag/category ..." */
static char *tags_of(void (*fn)(const char *, size_t, strbuf *), const char *name)
{
    strbuf raw = STRBUF_INIT, out = STRBUF_INIT;
    fn(name, strlen(name), &raw);
    for (size_t i = 0; i < raw.len; i++) {
        char c = raw.buf[i];
        if (c == '\x1f')
            sb_addc(&out, '/');
        else if (c == '\x1e')
            sb_addc(&out, ' ');
        else
            sb_addc(&out, c);
    }
    if (out.len)
        out.len--;
    sb_free(&raw);
    char *r = sb_detach(&out);
    return r ? r : strdup("");
}

static void test_dump_tags(void **state)
{
    static const struct {
        const char *name, *tags;
    } cases[] = {
        {"Functional.linear.input.2", "input.2/index Functional.linear/function"},
        {"Aten.add.Tensor.input.0", "input.0/index Aten.add.Tensor/function"},
        {"Module.fc1.Linear.input.0", "input.0/index Module/default fc1.Linear/module"},
        {"Cell.net.Dense.output.0", "output.0/index Cell/default net.Dense/module"},
        {"Module.layers.1.attn.Linear.input.0",
         "input.0/index Module/default layers.1/layer attn.Linear/module"},
        {"Module.model.layers.0.mlp.experts.3.fc1.Linear.input.0",
         "input.0/index Module/default layers.0/layer model/module experts.3/layer mlp/module fc1.Linear/module"},
        {"Module.layers.0.1.fc.Linear.input.0", "input.0/index Module/default layers.0/layer fc.Linear/module"},
        {"Module.0.fc.Linear.input.0", "input.0/index Module/default fc.Linear/module"},
        {"Module.fc1.Linear.weight", "Linear.weight/index Module/default fc1/module"},
        {"Module.Linear.w", ""},
        {"a.b", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = tags_of(dump_tags, cases[i].name);
        if (strcmp(got, cases[i].tags) != 0)
            fail_msg("%s: got '%s', expected '%s'", cases[i].name, got, cases[i].tags);
        free(got);
    }
}

static void test_monitor_tags(void **state)
{
    char *got = tags_of(monitor_tags, "layers.22.self_attention.linear_qkv.layer_norm_weight");
    assert_string_equal(got, "layer_norm_weight/module linear_qkv/module self_attention/module layers.22/layer "
                             "layers/module");
    free(got);
    got = tags_of(monitor_tags, "0.1.fc");
    assert_string_equal(got, "fc/module");
    free(got);
}

static micro_map load(const char *json)
{
    char *dir = tu_mkdtemp();
    char *p = tu_write(dir, "construct.json", json, (size_t)-1);
    micro_map m;
    assert_int_equal(micro_load(p, &m), 0);
    free(p);
    tu_rmtree(dir);
    free(dir);
    return m;
}

static void expect(const micro_map *m, const char *key, const char *renamed, long long micro)
{
    const char *r;
    size_t rl;
    long long mi;
    if (!renamed) {
        assert_int_equal(micro_lookup(m, key, strlen(key), &r, &rl, &mi), 0);
        return;
    }
    assert_int_equal(micro_lookup(m, key, strlen(key), &r, &rl, &mi), 1);
    assert_int_equal(rl, strlen(renamed));
    assert_memory_equal(r, renamed, rl);
    assert_int_equal(mi, micro);
}

/* nan4's two roots: fc1 and fc2 (§6.4) */
static void test_micro(void **state)
{
    micro_map m = load("{\"Module.fc1.Linear.forward.0\": null, \"Functional.linear.0.forward\": "
                       "\"Module.fc1.Linear.forward.0\", \"Module.fc2.Linear.forward.0\": null, "
                       "\"Functional.linear.1.forward\": \"Module.fc2.Linear.forward.0\", "
                       "\"Functional.linear.1.backward\": \"Module.fc2.Linear.backward.0\", "
                       "\"Tensor.__mul__.0.forward\": null, \"Tensor.__mul__.1.forward\": \"Module.fc1.Linear.backward.0\", "
                       "\"Module.fc1.Linear.backward.0\": null}");
    assert_int_equal(m.count, 2);
    expect(&m, "Module.fc1.Linear.forward.0", "Module.fc1.Linear.forward.0", 0);
    expect(&m, "Functional.linear.0.forward", "Functional.linear.0.forward", 0);
    expect(&m, "Functional.linear.1.forward", "Functional.linear.0.forward", 1);   /* renumbered in its step */
    expect(&m, "Functional.linear.1.backward", "Functional.linear.0.backward", 1);
    expect(&m, "Tensor.__mul__.1.forward", "Tensor.__mul__.0.forward", 0);        /* via the fc1 root */
    expect(&m, "Tensor.__mul__.0.forward", NULL, 0);                                /* a null parent, no root */
    /* a backward key takes its forward twin's micro step, even with a null parent */
    expect(&m, "Module.fc1.Linear.backward.0", "Module.fc1.Linear.backward.0", 0);
    micro_free(&m);
    /* L1 dumps: no roots, nothing indexed, one micro step */
    m = load("{}");
    assert_int_equal(m.count, 1);
    assert_int_equal(m.n, 0);
    micro_free(&m);
    /* msprobe's own Megatron numbers are dropped; a cycle resolves to nothing */
    m = load("{\"megatron_micro_step_number\": 2, \"Module.m.forward.0\": [null, 0], \"Functional.a.3.forward\": "
             "[\"Module.m.forward.0\", 1], \"x\": \"y\", \"y\": \"x\"}");
    assert_int_equal(m.count, 1);
    expect(&m, "Functional.a.3.forward", "Functional.a.0.forward", 0);
    expect(&m, "x", NULL, 0);
    micro_free(&m);
}

static void test_micro_errors(void **state)
{
    char *dir = tu_mkdtemp();
    char *p = tu_write(dir, "construct.json", "{\"megatron_micro_step_number\": 1, \"a\": [1, 2, 3]}", (size_t)-1);
    micro_map m;
    assert_int_equal(micro_load(p, &m), -1);
    tu_assert_err("a Megatron entry is [parent, micro step]");
    micro_free(&m);
    free(p);
    p = tu_write(dir, "construct.json", "[1]", (size_t)-1);
    assert_int_equal(micro_load(p, &m), -1);
    tu_assert_err("is not a JSON object");
    micro_free(&m);
    free(p);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    log_set_prog("test_trend");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_dump_tags), cmocka_unit_test(test_monitor_tags),
                                       cmocka_unit_test(test_micro), cmocka_unit_test(test_micro_errors)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
