/* graph: names, the tree and its collections, parameters_grad, stacks,
 * micro steps (spec/visualization.md §4), on msprobe's own unit-test cases
 * (§12) and the examples of §9. Matching, indexes and distributed links are
 * in test_graph_compare.c, value formatting in test_graph_format.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/log.h"
#include "graph/model/graph.h"
#include "graph/model/steps.h"
#include "testutil.h"
#include "graph_harness.h"

#include <string.h>

static void test_name_op(void **state)
{
    (void)state;
    /* re.match with an unescaped '.': "Tensor." is "Tensor" and any character */
    assert_int_equal(graph_name_op("TensorTest", 10), GOP_API);
    assert_int_equal(graph_name_op("Tensor1", 7), GOP_API);
    assert_int_equal(graph_name_op("Tensor", 6), GOP_MODULE);
    assert_int_equal(graph_name_op("ModuleTest", 10), GOP_MODULE);
    assert_int_equal(graph_name_op("Module.a.A.forward.0", 20), GOP_MODULE);
    assert_int_equal(graph_name_op("Cell.a.A.construct.0", 20), GOP_MODULE);
    assert_int_equal(graph_name_op("optimizer", 9), GOP_MODULE);
    assert_int_equal(graph_name_op("clip_grad", 9), GOP_MODULE);
    assert_int_equal(graph_name_op("Distributed.send.0.forward", 26), GOP_API);
    assert_int_equal(graph_name_op("MintFunctional.relu.0.forward", 29), GOP_API);
    assert_int_equal(graph_name_op("Aten.add.0", 10), GOP_API);
    assert_int_equal(graph_name_op("something", 9), GOP_MODULE);
}

/* the newest msprobe's patterns: DefaultModel a module, MindSpeed an API */
static void test_name_op_newest(void **state)
{
    (void)state;
    assert_int_equal(graph_name_op_newest("MindSpeed.npu_swiglu.0.forward", 30), GOP_API);
    assert_int_equal(graph_name_op("MindSpeed.npu_swiglu.0.forward", 30), GOP_MODULE);
    assert_int_equal(graph_name_op_newest("DefaultModelX", 13), GOP_MODULE);
    assert_int_equal(graph_name_op_newest("Tensor1", 7), GOP_API);
    assert_int_equal(graph_name_op_newest("Module.a.A.forward.0", 20), GOP_MODULE);
    assert_int_equal(graph_name_op_newest("something", 9), GOP_MODULE);
}

/* The newest msprobe's test_handle_backward_inplace(): a backward whose
 * parent is not at its own path takes its forward twin's parent's backward
 * (the .vis.db); 8.1.0 keeps the parent (the .vis). */
static void test_inplace_parent(void **state)
{
    (void)state;
    static const char construct[] =
        "{\"Module.module.Float16Model.forward.0\": null,"
        " \"Module.module.layer1.BasicBlock.forward.0\": \"Module.module.Float16Model.forward.0\","
        " \"Module.module.layer2.BasicBlock.forward.0\": \"Module.module.Float16Model.forward.0\","
        " \"Module.module.conv.Conv2d.forward.0\": \"Module.module.Float16Model.forward.0\","
        " \"Module.module.Float16Model.backward.0\": null,"
        " \"Module.module.layer1.BasicBlock.backward.0\": \"Module.module.Float16Model.backward.0\","
        " \"Module.module.layer2.BasicBlock.backward.0\": \"Module.module.conv.Conv2d.backward.0\","
        " \"Module.module.conv.Conv2d.backward.0\": \"Module.module.Float16Model.backward.0\","
        " \"Module.top.Top.forward.0\": null,"
        " \"Module.x.X.backward.0\": \"Module.module.conv.Conv2d.backward.0\", \"Module.x.X.forward.0\": null}";
    graph_opts db = {.format = GF_DB};
    gh_side s;
    gh_make_opts(&s, construct, "{}", "{}", 0, &db);
    assert_string_equal(gh_parent(&s.g, "Module.module.layer2.BasicBlock.backward.0"),
                        "Module.module.Float16Model.backward.0");
    assert_string_equal(gh_parent(&s.g, "Module.module.layer1.BasicBlock.backward.0"),
                        "Module.module.Float16Model.backward.0");
    /* its forward at the root: the root */
    assert_string_equal(gh_parent(&s.g, "Module.x.X.backward.0"), "DefaultModel");
    gh_free(&s);
    gh_make(&s, construct, "{}", "{}");
    assert_string_equal(gh_parent(&s.g, "Module.module.layer2.BasicBlock.backward.0"),
                        "Module.module.conv.Conv2d.backward.0");
    assert_string_equal(gh_parent(&s.g, "Module.x.X.backward.0"), "Module.module.conv.Conv2d.backward.0");
    gh_free(&s);
}

/* A layer recomputed in the backward: its forward and backward at the root
 * move under the backward of its first forward's parent when its stack
 * shows torch's recompute_fn (the newest msprobe's unit-test stack), and
 * stay with a stack that does not (its stack_list2, abridged). */
#define RC_TORCH "File /usr/lib/python3/site-packages/torch/"
#define RC_STACK_RECOMPUTE                                                                                         \
    "[\"" RC_TORCH "nn/modules/module.py, line 1829, in inner, \\n result = forward_call(*args, **kwargs)\", "      \
    "\"File /root/mova_train.py, line 1105, in _fn, \\n return module(*inputs)\", "                                \
    "\"" RC_TORCH "utils/checkpoint.py, line 1555, in recompute_fn, \\n fn(*args, **kwargs)\", "                  \
    "\"" RC_TORCH "utils/checkpoint.py, line 1154, in unpack_hook, \\n _run_fn(frame.recompute_fn, *args)\"]"
#define RC_STACK_PLAIN                                                                                             \
    "[\"" RC_TORCH "nn/modules/module.py, line 1840, in inner, \\n hook_result = hook(self, args, kwargs, result)\", " \
    "\"File /root/autoencoder_kl_wan.py, line 1142, in _encode, \\n out_ = self.encoder(\", "                       \
    "\"File /root/mova_train.py, line 1279, in forward, \\n return self.training_step(*args)\"]"
#define RC_CONSTRUCT                                                                                               \
    "{\"Module.0.module.GPT.forward.0\": null,"                                                                     \
    " \"Module.0.module.layers.0.Layer.forward.0\": \"Module.0.module.GPT.forward.0\","                            \
    " \"Module.0.module.GPT.backward.0\": null,"                                                                    \
    " \"Module.0.module.layers.0.Layer.forward.1\": null, \"Module.0.module.layers.0.Layer.backward.1\": null}"

static void test_recompute(void **state)
{
    (void)state;
    graph_opts db = {.format = GF_DB};
    gh_side s;
    gh_make_opts(&s, RC_CONSTRUCT, "{}", "{\"Module.0.module.layers.0.Layer.forward.1\": " RC_STACK_RECOMPUTE "}", 0,
                 &db);
    assert_string_equal(gh_parent(&s.g, "Module.0.module.layers.0.Layer.forward.1"), "Module.0.module.GPT.backward.0");
    assert_string_equal(gh_parent(&s.g, "Module.0.module.layers.0.Layer.backward.1"),
                        "Module.0.module.GPT.backward.0");
    assert_int_equal(s.g.nodes[0].nsub, 2);
    gh_free(&s);
    gh_make_opts(&s, RC_CONSTRUCT, "{}", "{\"Module.0.module.layers.0.Layer.forward.1\": " RC_STACK_PLAIN "}", 0, &db);
    assert_string_equal(gh_parent(&s.g, "Module.0.module.layers.0.Layer.forward.1"), "DefaultModel");
    gh_free(&s);
    /* 8.1.0 (the .vis) has no such pass */
    gh_make(&s, RC_CONSTRUCT, "{}", "{\"Module.0.module.layers.0.Layer.forward.1\": " RC_STACK_RECOMPUTE "}");
    assert_string_equal(gh_parent(&s.g, "Module.0.module.layers.0.Layer.forward.1"), "DefaultModel");
    gh_free(&s);
}

/* Example A of §9: {"Tensor1": "Module1", "Module1": null} */
static void test_example_a(void **state)
{
    (void)state;
    gh_side s;
    gh_make(&s, "{\"Tensor1\": \"Module1\", \"Module1\": null}", "{}", "{}");
    assert_int_equal(s.g.n, 3);
    gh_expect_order(&s.g, "DefaultModel Module1 Tensor1");
    assert_string_equal(gh_parent(&s.g, "Module1"), "DefaultModel");
    assert_string_equal(gh_parent(&s.g, "Tensor1"), "Module1");
    assert_int_equal(s.g.nodes[graph_find(&s.g, "Tensor1", 7)].op, GOP_API);
    graph_micro_steps(&s.g, NULL);
    assert_int_equal(s.g.micro_steps, 1);
    assert_true(s.g.nodes[graph_find(&s.g, "Module1", 7)].has_micro);
    assert_false(s.g.nodes[graph_find(&s.g, "Tensor1", 7)].has_micro);
    gh_expect_vis(&s, NULL, "\"subnodes\": [\n                \"Tensor1\"\n            ]");
    gh_free(&s);
}

/* A parent is set once; a node never keyed is an orphan; a node naming
 * itself has none. */
static void test_parents(void **state)
{
    (void)state;
    gh_side s;
    log_set_quiet(1);
    gh_make(&s,
            "{\"Module.b.B.forward.0\": \"Module.a.A.forward.0\", \"Module.b.B.forward.0\": \"Module.x.X.forward.0\","
            " \"Module.c.C.forward.0\": null, \"Module.d.D.backward.0\": null}",
            "{}", "{}");
    log_set_quiet(0);
    /* a repeated key: its first place, its last value (Module.x...) */
    gh_expect_order(&s.g, "DefaultModel Module.x.X.forward.0 Module.b.B.forward.0 Module.c.C.forward.0 "
                          "Module.d.D.backward.0");
    assert_string_equal(gh_parent(&s.g, "Module.b.B.forward.0"), "Module.x.X.forward.0");
    /* Module.x is an orphan: never a key (a warning says so) */
    assert_null(gh_parent(&s.g, "Module.x.X.forward.0"));
    gh_free(&s);
    /* its own parent, two nodes each other's parent, a longer loop: refused
     * naming the file and the nodes (msprobe builds nodes it never draws) */
    static const struct {
        const char *construct, *why;
    } bad[] = {
        {"{\"Module.c.C.forward.0\": \"Module.c.C.forward.0\"}", "construct.json: Module.c.C.forward.0 is its own parent"},
        {"{\"Module.a.A.forward.0\": \"Module.b.B.forward.0\", \"Module.b.B.forward.0\": \"Module.a.A.forward.0\"}",
         "Module.b.B.forward.0 and Module.a.A.forward.0 are each other's parent"},
        {"{\"Module.a.A.forward.0\": \"Module.b.B.forward.0\", \"Module.b.B.forward.0\": \"Module.c.C.forward.0\","
         " \"Module.c.C.forward.0\": \"Module.a.A.forward.0\", \"Module.d.D.forward.0\": \"Module.a.A.forward.0\"}",
         "lead back to it"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *dir = tu_mkdtemp();
        free(tu_write(dir, "construct.json", bad[i].construct, (size_t)-1));
        free(tu_write(dir, "dump.json", "{\"task\": \"statistics\", \"data\": {}}", (size_t)-1));
        free(tu_write(dir, "stack.json", "{}", (size_t)-1));
        rankdata rd;
        graph g;
        graph_opts o;
        memset(&o, 0, sizeof o);
        memset(&g, 0, sizeof g);
        err_clear();
        assert_int_equal(rank_load(&rd, dir, 0, NULL), 0);
        assert_int_equal(graph_build(&g, &rd, &o), -1);
        if (!strstr(err_message(), bad[i].why))
            fail_msg("%s: %s", bad[i].construct, err_message());
        err_clear();
        graph_free(&g);
        rank_free(&rd);
        tu_rmtree(dir);
        free(dir);
    }
}

/* §4.3 step 1: a backward node without a parent takes the backward twin of
 * its forward twin's parent */
static void test_backward_parent(void **state)
{
    (void)state;
    gh_side s;
    gh_make(&s,
            "{\"Module.p.P.forward.0\": null, \"Module.a.A.forward.3\": \"Module.p.P.forward.0\","
            " \"Module.p.P.backward.0\": null, \"Module.a.A.backward.3\": null,"
            " \"Tensor.add.0.forward\": \"Module.p.P.forward.0\", \"Tensor.add.0.backward\": null,"
            " \"Module.q.Q.backward.1\": null}",
            "{}", "{}");
    assert_string_equal(gh_parent(&s.g, "Module.a.A.backward.3"), "Module.p.P.backward.0");
    assert_string_equal(gh_parent(&s.g, "Tensor.add.0.backward"), "Module.p.P.backward.0");
    /* no forward twin: the root */
    assert_string_equal(gh_parent(&s.g, "Module.q.Q.backward.1"), "DefaultModel");
    gh_free(&s);
}

/* §12: [api, module, module, api, api, module] gives 5 root children with
 * Apis_Between_Modules.0 at index 3 */
static void test_collections(void **state)
{
    (void)state;
    gh_side s;
    gh_make(&s,
            "{\"Torch.a.0.forward\": null, \"Module.m.M.forward.0\": null, \"Module.n.N.forward.0\": null,"
            " \"Torch.b.0.forward\": null, \"Torch.c.0.forward\": null, \"Module.o.O.forward.0\": null,"
            " \"Module.p.P.forward.0\": null, \"Torch.d.0.forward\": null, \"Torch.e.0.forward\": null,"
            " \"Torch.f.0.forward\": null}",
            "{}", "{}");
    const gnode *root = &s.g.nodes[0];
    assert_int_equal(root->nsub, 7);
    assert_string_equal(s.g.nodes[root->sub[0]].id, "Torch.a.0.forward");
    assert_string_equal(s.g.nodes[root->sub[3]].id, "Apis_Between_Modules.0");
    assert_string_equal(s.g.nodes[root->sub[6]].id, "Apis_Between_Modules.1");
    long c = graph_find(&s.g, "Apis_Between_Modules.0", 22);
    assert_int_equal(s.g.nodes[c].op, GOP_COLLECTION);
    assert_int_equal(s.g.nodes[c].nsub, 2);
    assert_string_equal(gh_parent(&s.g, "Torch.c.0.forward"), "Apis_Between_Modules.0");
    assert_int_equal(s.g.nodes[graph_find(&s.g, "Apis_Between_Modules.1", 22)].nsub, 3);
    /* collections come after every construct node */
    assert_string_equal(s.g.nodes[s.g.n - 2].id, "Apis_Between_Modules.0");
    gh_free(&s);
}

/* §4.7: parameters_grad under the last backward call, as its last child */
static void test_parameters_grad(void **state)
{
    (void)state;
    gh_side s;
    gh_make(&s,
            "{\"Module.a.A.backward.0\": null, \"Module.a.A.backward.2\": null, \"Torch.x.0.backward\":"
            " \"Module.a.A.backward.2\", \"Module.b.B.backward.0\": null}",
            "{\"task\": \"statistics\", \"data\": {\"Module.a.A.parameters_grad\": {\"weight\": [" GH_TENSOR "]},"
            " \"Module.z.Z.parameters_grad\": {\"weight\": [" GH_TENSOR "]},"
            " \"Module.a.A.backward.x\": {}}}",
            "{}");
    long pg = graph_find(&s.g, "Module.a.A.parameters_grad", 26);
    assert_true(pg >= 0);
    assert_string_equal(gh_parent(&s.g, "Module.a.A.parameters_grad"), "Module.a.A.backward.2");
    const gnode *b2 = &s.g.nodes[graph_find(&s.g, "Module.a.A.backward.2", 21)];
    assert_string_equal(s.g.nodes[b2->sub[b2->nsub - 1]].id, "Module.a.A.parameters_grad");
    /* Module.z has no backward node: dropped */
    assert_true(graph_find(&s.g, "Module.z.Z.parameters_grad", 26) < 0);
    /* its items all land in input_data, named without a list index */
    gh_expect_vis(&s, NULL, "\"Module.a.A.parameters_grad.weight\": {");
    gh_free(&s);
}

/* §4.5: the module's line calling it, the line after an API's template,
 * backward nodes borrow their forward twin's stack */
static void test_stacks(void **state)
{
    (void)state;
    gh_side s;
    gh_make(&s,
            "{\"Module.layer1.0.bn1.BatchNorm2d.forward.0\": null, \"Tensor.add.0.forward\": null,"
            " \"Module.layer1.0.bn1.BatchNorm2d.backward.0\": null, \"Tensor.add.0.backward\": null,"
            " \"Tensor.sub.0.backward\": null}",
            "{}",
            "{\"0\": [[\"Module.layer1.0.bn1.BatchNorm2d.forward.0\"], [\"File a.py, line 1, in f, \\n x = g(y)\","
            " \"File r.py, line 2, in forward, \\n out = self.bn1(out)\"]],"
            " \"1\": [[\"Tensor.add.0.forward\"], [\"File w.py, line 3, in f, \\n return TensorOPTemplate(op)(x)\","
            " \"File r.py, line 4, in forward, \\n out += identity\"]]}");
    const gnode *m = &s.g.nodes[graph_find(&s.g, "Module.layer1.0.bn1.BatchNorm2d.forward.0", 41)];
    assert_int_equal(m->stack_kind, STACK_LIST);
    assert_int_equal(m->stack_line, 1);
    const gnode *a = &s.g.nodes[graph_find(&s.g, "Tensor.add.0.forward", 20)];
    assert_int_equal(a->stack_line, 1);
    const gnode *mb = &s.g.nodes[graph_find(&s.g, "Module.layer1.0.bn1.BatchNorm2d.backward.0", 42)];
    assert_int_equal(mb->stack_kind, STACK_LIST);
    assert_int_equal(mb->stack_line, 1);
    assert_int_equal(s.g.nodes[graph_find(&s.g, "Tensor.add.0.backward", 21)].stack_line, 1);
    assert_int_equal(s.g.nodes[graph_find(&s.g, "Tensor.sub.0.backward", 21)].stack_kind, STACK_NO_FORWARD);
    gh_expect_vis(&s, NULL, "\"stack_info\": [\n                \"File r.py, line 2, in forward, \\n out = self.bn1(out)\"");
    gh_free(&s);
}

/* §12 (test_graph.py): [a.forward.0, a.backward.0, apis, a.forward.1,
 * b.forward.0, b.backward.0, a.backward.1, apis] -> 2 steps, 3 in step 0 */
static void test_micro_steps(void **state)
{
    (void)state;
    gh_side s;
    gh_make(&s,
            "{\"Module.a.A.forward.0\": null, \"Module.a.A.backward.0\": null, \"Torch.x.0.forward\": null,"
            " \"Torch.y.0.forward\": null, \"Module.a.A.forward.1\": null, \"Module.b.B.forward.0\": null,"
            " \"Module.b.B.backward.0\": null, \"Module.a.A.backward.1\": null, \"Torch.z.0.forward\": null,"
            " \"Torch.w.0.forward\": null}",
            "{}", "{}");
    graph_micro_steps(&s.g, NULL);
    assert_int_equal(s.g.micro_steps, 2);
    const gnode *root = &s.g.nodes[0];
    assert_int_equal(root->nsub, 8);
    static const int want[8] = {0, 0, 0, 1, 1, 1, 1, 1};
    for (int k = 0; k < 8; k++)
        assert_int_equal(s.g.nodes[root->sub[k]].micro, want[k]);
    gh_free(&s);
}

/* §6 example C: the __imul__ mutation is high, the NaN add critical */
static void test_overflow(void **state)
{
    (void)state;
    gh_side s;
    gh_make_need(&s, "{\"Tensor.__imul__.0.forward\": null, \"Torch.add.0.forward\": null}", GH_EXAMPLE_C_NPU,
                 "{}", RANK_NEED_OVERFLOW);
    graph_overflow(&s.g);
    assert_int_equal(s.g.nodes[graph_find(&s.g, "Tensor.__imul__.0.forward", 25)].overflow, 2);
    assert_int_equal(s.g.nodes[graph_find(&s.g, "Torch.add.0.forward", 19)].overflow, 3);
    assert_int_equal(s.g.nodes[graph_find(&s.g, "Apis_Between_Modules.0", 22)].overflow, 0);
    gh_free(&s);
}

/* The items of a node: leaf keys in order, then gen_op_item's additions;
 * a null argument collapses to {"value": "null"}; kwargs named .input.KEY */
static void test_items(void **state)
{
    (void)state;
    gh_side s;
    gh_make(&s, "{\"Torch.add.0.forward\": null}",
            "{\"task\": \"statistics\", \"data\": {\"Torch.add.0.forward\": {\"input_args\": [" GH_TENSOR
            ", {\"type\": \"int\", \"value\": 2}, null, {\"type\": \"torch.Size\", \"value\": [2, 3]}],"
            " \"input_kwargs\": {\"alpha\": {\"type\": \"float\", \"value\": 1e-05}}, \"output\": [" GH_TENSOR "]}}}",
            "{}");
    gh_expect_vis(&s, NULL,
                  "\"Torch.add.0.forward.input.1\": {\n"
                  "                    \"type\": \"int\",\n"
                  "                    \"value\": \"2\",\n"
                  "                    \"data_name\": \"-1\",\n"
                  "                    \"Max\": \"2\",\n"
                  "                    \"Min\": \"2\",\n"
                  "                    \"Mean\": \"2\",\n"
                  "                    \"Norm\": \"2\",\n"
                  "                    \"dtype\": \"<class int>\",\n"
                  "                    \"shape\": \"[]\"\n"
                  "                }");
    gh_expect_vis(&s, NULL, "\"Torch.add.0.forward.input.2\": {\n                    \"value\": \"null\"\n");
    gh_expect_vis(&s, NULL, "\"Torch.add.0.forward.input.3\": {\n                    \"value\": \"null\"\n");
    gh_expect_vis(&s, NULL, "\"Torch.add.0.forward.input.alpha\": {");
    gh_expect_vis(&s, NULL, "\"value\": \"1.000000e-05\"");
    /* requires_grad and md5 are not written in a build */
    gh_expect_no_vis(&s, NULL, "requires_grad");
    gh_expect_no_vis(&s, NULL, "\"md5\"");
    gh_free(&s);
}

/* md5_find() in the index: a key "md5" anywhere in an item makes the dump an
 * md5 one; the text "md5" as a value does not; an entry with escapes
 * (not skimmed) is parsed. */
static void test_md5_index(void **state)
{
    (void)state;
    static const struct {
        const char *data;
        int want;
    } cases[] = {
        {"{\"A.a.0.forward\": {\"input_args\": [{\"type\": \"str\", \"value\": \"md5\"}]}}", 0},
        {"{\"A.a.0.forward\": {\"input_args\": [{\"type\": \"int\", \"value\": 1}]}, "
         "\"A.b.0.forward\": {\"output\": [{\"type\": \"torch.Tensor\", \"md5\": \"00000000\"}]}}", 1},
        {"{\"A.a.0.forward\": {\"input_args\": [{\"type\": \"str\", \"value\": \"\\u00e9\", "
         "\"md5\": \"1\"}]}}", 1},
        {"{\"A.a.0.forward\": {\"input_args\": [{\"type\": \"str\", \"value\": \"\\u006dd5\"}]}}", 0},
        {"{\"A.a.0.forward\": {\"input_args\": [{\"type\": \"str\", \"\\u006dd5\": \"1\"}]}}", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        strbuf dump = STRBUF_INIT;
        sb_addf(&dump, "{\"task\": \"statistics\", \"level\": \"L1\", \"data\": %s}", cases[i].data);
        gh_side s;
        gh_make(&s, "{}", sb_str(&dump), "{}");
        if (s.rd.has_md5 != cases[i].want)
            fail_msg("case %zu: has_md5 %d", i, s.rd.has_md5);
        gh_free(&s);
        sb_free(&dump);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_name_op),     cmocka_unit_test(test_name_op_newest), cmocka_unit_test(test_inplace_parent),
        cmocka_unit_test(test_recompute),   cmocka_unit_test(test_example_a),    cmocka_unit_test(test_parents),
        cmocka_unit_test(test_backward_parent), cmocka_unit_test(test_collections),
        cmocka_unit_test(test_parameters_grad), cmocka_unit_test(test_stacks),   cmocka_unit_test(test_micro_steps),
        cmocka_unit_test(test_overflow),    cmocka_unit_test(test_items),       cmocka_unit_test(test_md5_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
