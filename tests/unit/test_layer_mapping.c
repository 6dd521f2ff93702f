/* compare/layer_mapping (-lm, spec/compare.md §4.7): the generated data
 * mapping on msprobe's own test dumps and on testdata/layer_mapping (the
 * expected texts are msprobe 8.1.0's data_mapping yaml, byte for byte), the
 * new stack.json layout (read, unlike 8.1.0), the renumbering of layers,
 * stack lines, the yaml rules, what -lm does through mapping_apply, and
 * every refused input. Run from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "compare/mapping/layer_mapping.h"
#include "compare/mapping/mapping.h"
#include "base/err.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#define T "testdata/layer_mapping"
#define G "tests/cli/golden"
#define STAMP "20250102030405"

typedef struct {
    dump_data npu, bench;
    mapping_dumps d;
    mapping_keys keys;
    arena a;
    char *out, *yaml;
} fixture;

/* Load target and bench dumps (directories holding dump.json) for a
 * mapping whose yaml goes to a fresh directory, named as a compare names it. */
static void open_pair(fixture *f, const char *target, const char *bench, const char *suffix)
{
    memset(f, 0, sizeof *f);
    static int n;
    char name[64];
    snprintf(name, sizeof name, "out%d", n++);
    f->out = tu_path(tu_dir, name);
    snprintf(name, sizeof name, "data_mapping%s_" STAMP ".yaml", suffix);
    f->yaml = tu_path(f->out, name);
    f->d = (mapping_dumps){.npu = &f->npu, .bench = &f->bench, .target_ms = 1, .yaml_path = f->yaml,
                           .out_dir = f->out};
    char *tp = tu_path(target, "dump.json"), *bp = tu_path(bench, "dump.json");
    err_clear();
    if (dump_load(tp, &f->npu) != 0 || dump_load(bp, &f->bench) != 0)
        fail_msg("cannot load %s / %s: %s", tp, bp, err_message());
    free(tp);
    free(bp);
    arena_init(&f->a, 4096);
}

static void close_pair(fixture *f)
{
    dump_free(&f->npu);
    dump_free(&f->bench);
    mapping_keys_free(&f->keys);
    arena_free(&f->a);
    free(f->out);
    free(f->yaml);
}

static const jval *build(fixture *f, const char *yaml)
{
    err_clear();
    lm_rules *r = layer_rules_load(yaml);
    if (!r)
        fail_msg("layer mapping rules: %s", err_message());
    const jval *m = layer_mapping_build(&f->d, r, &f->a);
    layer_rules_free(r);
    if (!m)
        fail_msg("layer mapping failed: %s", err_message());
    assert_int_equal(m->type, J_OBJECT);
    return m;
}

/* The yaml written must be the golden file (msprobe's). */
static void expect_yaml(fixture *f, const char *suffix, const char *golden)
{
    char name[64];
    snprintf(name, sizeof name, "data_mapping%s_" STAMP ".yaml", suffix);
    char *path = tu_path(f->out, name);
    char *got = tu_read(path, NULL), *want = tu_read(golden, NULL);
    if (strcmp(got, want) != 0)
        fail_msg("%s differs from %s", path, golden);
    free(got);
    free(want);
    free(path);
}

static const char *mapped(const jval *m, const char *row)
{
    const jval *v = json_get(m, row);
    if (!v)
        fail_msg("no key %s", row);
    assert_int_equal(v->type, J_STRING);
    static char buf[512];
    snprintf(buf, sizeof buf, "%.*s", (int)v->len, v->u.str);
    return buf;
}

/* msprobe's test dumps with its layer_mapping.yaml (spec §11 C). */
static void test_repo_dumps(void **state)
{
    fixture f;
    open_pair(&f, T "/repo/target", T "/repo/bench", "");
    const jval *m = build(&f, T "/repo/layer_mapping.yaml");
    assert_int_equal(m->len, 44);
    assert_string_equal(mapped(m, "Mint.logical_or.0.forward.input.0"), "Tensor.__or__.0.forward.input.0");
    assert_string_equal(mapped(m, "Primitive.norm.RmsNorm.0.forward.output.1"), "NPU.npu_rms_norm.0.forward.output.1");
    assert_string_equal(
        mapped(m, "Cell.network_with_loss.module.language_model.encoder.layers.0.attention.ParallelAttention.forward.0."
                  "output.0"),
        "Module.module.module.language_model.encoder.layers.0.self_attention.ParallelAttention.forward.0.output.0");
    assert_string_equal(mapped(m, "Functional.flash_attention_score.0.forward.input.3"),
                        "NPU.npu_fusion_attention.0.forward.input.3");
    assert_string_equal(mapped(m, "Functional.flash_attention_score.0.forward.input.attn_mask"), "N/A");
    assert_string_equal(mapped(m, "Tensor.__add__.1.forward.output.0"), "Tensor.__add__.0.forward.output.0");
    assert_string_equal(mapped(m, "Tensor.__add__.0.forward.input.0"), "N/A");
    expect_yaml(&f, "", G "/lm_repo.yaml");
    close_pair(&f);
}

/* Every rule of the synthetic pair; the same stacks in the new layout of
 * stack.json give the same mapping (msprobe 8.1.0 loses them). */
static void test_synth_both_layouts(void **state)
{
    static const char *const pairs[2][2] = {{T "/synth/target", T "/synth/bench"},
                                            {T "/synth_new/target", T "/synth_new/bench"}};
    for (int i = 0; i < 2; i++) {
        fixture f;
        open_pair(&f, pairs[i][0], pairs[i][1], "");
        const jval *m = build(&f, T "/layer_mapping.yaml");
        /* a framework function from the stack decides these two */
        assert_string_equal(mapped(m, "Functional.gather.0.forward.input.1"), "Functional.embedding.0.forward.input.1");
        assert_string_equal(mapped(m, "Functional.bmm.1.forward.output.0"), "Torch.baddbmm.1.forward.output.0");
        assert_string_equal(mapped(m, "Functional.dropout.1.forward.input.p"), "N/A");
        /* layers 2 and 3 of the target are 0 and 1 of the bench */
        assert_string_equal(mapped(m, "Cell.net.encoder.layers.3.attention.Attn.forward.0.output.0"),
                            "Module.module.encoder.layers.1.self_attention.Attention.forward.0.output.0");
        assert_string_equal(mapped(m, "Cell.net.embedding.Embedding.parameters_grad.weight"),
                            "Module.module.embedding.Embedding.parameters_grad.weight");
        expect_yaml(&f, "", G "/lm_synth.yaml");
        close_pair(&f);
    }
}

static void test_without_yaml(void **state)
{
    fixture f;
    open_pair(&f, T "/synth/target", T "/synth/bench", "_rank3");
    const jval *m = build(&f, NULL);
    assert_string_equal(mapped(m, "Cell.net.Net.forward.0.input.0"), "N/A");
    /* each rank of a multi-rank compare writes its own file */
    expect_yaml(&f, "_rank3", G "/lm_synth_bare.yaml");
    close_pair(&f);
}

/* A side without construct information: msprobe builds no items there. */
static void test_empty_construct(void **state)
{
    fixture f;
    open_pair(&f, T "/empty_construct", T "/synth/bench", "");
    const jval *m = build(&f, T "/layer_mapping.yaml");
    assert_int_equal(m->len, 0);
    char *p = tu_path(f.out, "data_mapping_" STAMP ".yaml");
    char *text = tu_read(p, NULL);
    assert_string_equal(text, "{}\n");
    free(text);
    free(p);
    close_pair(&f);

    open_pair(&f, T "/synth/target", T "/empty_construct", "");
    m = build(&f, T "/layer_mapping.yaml");
    assert_int_equal(m->len, f.npu.nrows);
    for (uint32_t i = 0; i < m->len; i++)
        assert_true(json_str_eq(&m->u.members[i].val, "N/A"));
    close_pair(&f);
}

static char *write_yaml(const char *name, const char *text) { return tu_write(tu_dir, name, text, (size_t)-1); }

static void test_rules(void **state)
{
    /* Cell stands for TopLayer and replaces a TopLayer given as well */
    char *y = write_yaml("cell.yaml", "TopLayer:\n  net: wrong\n"
                                      "Cell:\n  net: module\n"
                                      "gather_outer:\n  gather: embedding\n"
                                      "ParallelTransformerLayer:\n  attention: self_attention\n"
                                      "  RmsNorm: npu_rms_norm(fused in torch_npu)\n"
                                      "Attn:\n  dropout.bmm: core.baddbmm\n  dropout: never_used\n");
    fixture f;
    open_pair(&f, T "/synth/target", T "/synth/bench", "");
    build(&f, y);
    expect_yaml(&f, "", G "/lm_synth.yaml");
    close_pair(&f);
    free(y);

    /* Cell: null is dropped, TopLayer stays */
    y = write_yaml("null_cell.yaml", "Cell:\nTopLayer:\n  net: module\n");
    open_pair(&f, T "/synth/target", T "/synth/bench", "");
    const jval *m = build(&f, y);
    assert_string_equal(mapped(m, "Cell.net.Net.forward.0.input.0"), "Module.module.Net.forward.0.input.0");
    /* without the multi-part rule bmm stays unpaired */
    assert_string_equal(mapped(m, "Functional.bmm.0.forward.input.0"), "N/A");
    close_pair(&f);
    free(y);

    /* an empty file has no rules */
    y = write_yaml("empty.yaml", "");
    open_pair(&f, T "/synth/target", T "/synth/bench", "");
    build(&f, y);
    expect_yaml(&f, "", G "/lm_synth_bare.yaml");
    close_pair(&f);
    free(y);
}

static void put_dump(const char *sub, const char *framework, const char *data, const char *construct,
                     const char *stack)
{
    char *d = tu_path(tu_dir, sub);
    mkdir(d, 0700);
    char *json = malloc(strlen(data) + 200);
    sprintf(json, "{\"task\": \"statistics\", \"level\": \"mix\", \"framework\": \"%s\", \"data\": %s}", framework,
            data);
    free(tu_write(d, "dump.json", json, (size_t)-1));
    free(tu_write(d, "construct.json", construct, (size_t)-1));
    free(tu_write(d, "stack.json", stack, (size_t)-1));
    free(json);
    free(d);
}

#define TENSOR "{\"type\": \"mindspore.Tensor\", \"dtype\": \"Float32\", \"shape\": [2], \"Max\": 1.0, \"Min\": 0.0, " \
               "\"Mean\": 0.5, \"Norm\": 1.0}"
#define ENTRY "{\"input_args\": [" TENSOR "], \"output\": [" TENSOR "]}"

/* `layers` under a ParallelTransformer count from their smallest number
 * (the last number in the part); a part without a number becomes "nan" when
 * no layer has one, and stays as it is otherwise (msprobe 8.1.0 output). */
static void test_renumbering(void **state)
{
    put_dump("rn_t", "mindspore",
             "{\"Cell.net.encoder.ParallelTransformer.forward.0\": " ENTRY ","
             " \"Cell.net.encoder.layers.first.Block.forward.0\": " ENTRY ","
             " \"Cell.net.decoder.ParallelTransformer.forward.0\": " ENTRY ","
             " \"Cell.net.decoder.layers.7.Block.forward.0\": " ENTRY ","
             " \"Cell.net.decoder.layers.x9y12.Block.forward.0\": " ENTRY ","
             " \"Cell.net.decoder.layers.odd.Block.forward.0\": " ENTRY ","
             " \"Functional.relu.0.forward\": " ENTRY "}",
             "{\"Functional.relu.0.forward\": \"Cell.net.decoder.layers.007.Block.forward.0\"}",
             "{\"x\": [\"File a.py, line 1, in f, \\n x\"]}");
    put_dump("rn_b", "mindspore",
             "{\"Module.net.encoder.ParallelTransformer.forward.0\": " ENTRY ","
             " \"Module.net.encoder.layers.nan.Block.forward.0\": " ENTRY ","
             " \"Module.net.decoder.ParallelTransformer.forward.0\": " ENTRY ","
             " \"Module.net.decoder.layers.0.Block.forward.0\": " ENTRY ","
             " \"Module.net.decoder.layers.5.Block.forward.0\": " ENTRY ","
             " \"Module.net.decoder.layers.odd.Block.forward.0\": " ENTRY ","
             " \"Functional.relu.0.forward\": " ENTRY "}",
             "{\"Functional.relu.0.forward\": \"Module.net.decoder.layers.0.Block.forward.0\"}",
             "{\"x\": [\"File a.py, line 1, in f, \\n x\"]}");
    char *t = tu_path(tu_dir, "rn_t"), *b = tu_path(tu_dir, "rn_b");
    fixture f;
    open_pair(&f, t, b, "");
    const jval *m = build(&f, NULL);
    assert_string_equal(mapped(m, "Cell.net.encoder.layers.first.Block.forward.0.input.0"),
                        "Module.net.encoder.layers.nan.Block.forward.0.input.0");
    assert_string_equal(mapped(m, "Cell.net.decoder.layers.7.Block.forward.0.output.0"),
                        "Module.net.decoder.layers.0.Block.forward.0.output.0");
    assert_string_equal(mapped(m, "Cell.net.decoder.layers.x9y12.Block.forward.0.output.0"),
                        "Module.net.decoder.layers.5.Block.forward.0.output.0");
    assert_string_equal(mapped(m, "Cell.net.decoder.layers.odd.Block.forward.0.input.0"),
                        "Module.net.decoder.layers.odd.Block.forward.0.input.0");
    assert_string_equal(mapped(m, "Functional.relu.0.forward.input.0"), "Functional.relu.0.forward.input.0");
    close_pair(&f);
    free(t);
    free(b);
}

/* The framework function: Python's split() of " in FUNC" (any Unicode
 * space); lines too short to hold one give none instead of failing. */
static void test_stack_lines(void **state)
{
    put_dump("st_t", "mindspore", "{\"Functional.a.0.forward\": " ENTRY ", \"Functional.b.0.forward\": " ENTRY "}",
             "{}",
             "{\"Functional.a.0.forward\": [\"File /x/Template.py, line 1, in w, \\n\","
             " \"File /x/site-packages/mindspore/y.py\", \"File /m.py, line 2, in construct, \\n\"],"
             " \"Functional.b.0.forward\": [\"File /x/Template.py, line 1, in w, \\n\","
             " \"File /p/site-packages/mindspore/z.py, line 1, in\\u00a0fnb, \\n code\","
             " \"File /m.py, line 2, in construct, \\n\"]}");
    /* msprobe builds nothing from an empty construct.json: give it one entry */
    char *tc = tu_path(tu_dir, "st_t");
    free(tu_write(tc, "construct.json", "{\"Functional.a.0.forward\": \"\"}", (size_t)-1));
    put_dump("st_b", "pytorch", "{\"Functional.a.0.forward\": " ENTRY ", \"Functional.b.0.forward\": " ENTRY "}",
             "{\"Functional.b.0.forward\": \"\"}",
             "{\"Functional.b.0.forward\": [\"File /x/Template.py, line 1, in w, \\n\","
             " \"File /p/site-packages/torch/z.py, line 1, in fnb, \\n c\", \"File /m.py, line 2, in forward, \\n\"]}");
    char *tb = tu_path(tu_dir, "st_b");
    fixture f;
    open_pair(&f, tc, tb, "");
    const jval *m = build(&f, NULL);
    assert_string_equal(mapped(m, "Functional.a.0.forward.input.0"), "Functional.a.0.forward.input.0");
    assert_string_equal(mapped(m, "Functional.b.0.forward.output.0"), "Functional.b.0.forward.output.0");
    close_pair(&f);
    free(tc);
    free(tb);
}

static void expect_refused(const char *target, const char *yaml, const char *frag1, const char *frag2)
{
    fixture f;
    open_pair(&f, target, T "/synth/bench", "");
    err_clear();
    /* a bad yaml is found when it is parsed, before any dump is read */
    lm_rules *r = layer_rules_load(yaml);
    if (r) {
        assert_null(layer_mapping_build(&f.d, r, &f.a));
        layer_rules_free(r);
    }
    tu_assert_err(frag1, frag2);
    /* nothing written */
    char *p = tu_path(f.out, "data_mapping_" STAMP ".yaml");
    assert_int_equal(path_kind(p), PATH_MISSING);
    free(p);
    close_pair(&f);
}

static void test_refused(void **state)
{
    expect_refused(T "/bad/noconstruct", NULL, "noconstruct/construct.json: not found", "beside");
    expect_refused(T "/bad/nostack", NULL, "nostack/stack.json: not found", "construct.json");
    expect_refused(T "/bad/shortname", NULL, "no less than four fields", "Functional.relu.forward");
    expect_refused(T "/bad/parent_type", NULL, "construct.json: the parent of Mint.matmul.0.forward", "not a string");
    expect_refused(T "/bad/parent_short", NULL, "construct.json", "no less than four fields. The current data is "
                                                                  "Cell.net.Attn");
    expect_refused(T "/bad/stack_type", NULL, "stack.json: stack is invalid", "Mint.matmul.0.forward");
    expect_refused(T "/bad/noframework", NULL, "noframework/dump.json", "MindSpore or PyTorch framework");
    expect_refused(T "/synth/target", T "/bad/rules_list.yaml", "rules_list.yaml", "dict of class name");
    expect_refused(T "/synth/target", T "/bad/rules_value.yaml", "layer mapping of Cell: net", "a string");
    expect_refused(T "/synth/target", T "/bad/rules_type.yaml", "layer mapping of TopLayer", "must be a dict");
    expect_refused(T "/synth/target", T "/bad/missing.yaml", "missing.yaml", NULL);
}

/* Through mapping_apply: -lm replaces -dm (not even read), joins on the key
 * alone when it has pairs, compares as usual when it is empty, and is left
 * out for a PyTorch target. */
static void test_apply(void **state)
{
    mapping_opts mo = {.layer = 1, .layer_file = T "/layer_mapping.yaml", .data_file = T "/bad/missing.yaml"};
    fixture f;
    open_pair(&f, T "/synth/target", T "/synth/bench", "");
    err_clear();
    /* with -f mindspore the -dm file is not read at all */
    if (mapping_load(&mo, 'm') != 0)
        fail_msg("%s", err_message());
    if (mapping_apply(&f.d, &mo, &f.keys) != 0)
        fail_msg("%s", err_message());
    assert_int_equal(f.keys.mapped, 1);
    assert_string_equal(f.keys.npu_keys[0], "Module.module.Net.forward.0.input.0");
    close_pair(&f);

    open_pair(&f, T "/empty_construct", T "/synth/bench", "");
    assert_int_equal(mapping_apply(&f.d, &mo, &f.keys), 0);
    assert_int_equal(f.keys.mapped, 0);
    assert_string_equal(f.keys.npu_keys[0], f.npu.rows[0].name);
    close_pair(&f);

    /* (there the -dm file would be read) */
    mo.data_file = NULL;
    open_pair(&f, T "/synth/target", T "/synth/bench", "");
    f.d.target_ms = 0;
    assert_int_equal(mapping_apply(&f.d, &mo, &f.keys), 0);
    assert_int_equal(f.keys.mapped, 0);
    assert_string_equal(f.keys.npu_keys[0], f.npu.rows[0].name);
    assert_int_equal(path_kind(f.out), PATH_MISSING);
    close_pair(&f);
    mapping_unload(&mo);
    assert_null(mo.files);

    /* without -f the target decides per dump whether -lm applies: the -dm
     * file is parsed up front, and a missing one refused; so is a bad -lm
     * yaml, but not with -f pytorch, which ignores -lm */
    mo.data_file = T "/bad/missing.yaml";
    err_clear();
    assert_int_equal(mapping_load(&mo, 0), -1);
    tu_assert_err("missing.yaml");
    assert_null(mo.files);
    mo.data_file = NULL;
    mo.layer_file = T "/bad/rules_list.yaml";
    err_clear();
    assert_int_equal(mapping_load(&mo, 'm'), -1);
    tu_assert_err("rules_list.yaml", "dict of class name");
    assert_int_equal(mapping_load(&mo, 'p'), 0);
    mapping_unload(&mo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_repo_dumps),    cmocka_unit_test(test_synth_both_layouts),
        cmocka_unit_test(test_without_yaml),  cmocka_unit_test(test_empty_construct),
        cmocka_unit_test(test_rules),         cmocka_unit_test(test_renumbering),
        cmocka_unit_test(test_stack_lines),   cmocka_unit_test(test_refused),
        cmocka_unit_test(test_apply),
    };
    return cmocka_run_group_tests(tests, tu_dir_setup, tu_dir_teardown);
}
