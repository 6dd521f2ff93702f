/* graph: matching (exact, fuzzy, layer mapping), precision indexes
 * (statistics, md5, tensor), the collections' indexes, Bench micro steps,
 * and distributed links with batch p2p (spec/visualization.md §5, §7, the
 * examples of §9 and msprobe's unit-test cases of §12). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "graph/model/dist.h"
#include "graph/model/graph.h"
#include "npy_write.h"
#include "testutil.h"
#include "graph_harness.h"

#include <math.h>
#include <string.h>

/* §9 example B: Float16Module, summary compare */
#define B_I64(mx, mn, mean, norm)                                                                                  \
    "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.int64\", \"shape\": [4, 4096], \"Max\": " mx ", \"Min\": " mn \
    ", \"Mean\": " mean ", \"Norm\": " norm ", \"requires_grad\": false}"
#define B_DUMP(out)                                                                                                \
    "{\"task\": \"statistics\", \"level\": \"mix\", \"framework\": \"pytorch\", \"dump_data_dir\": null, "       \
    "\"data\": {\"Module.module.Float16Module.forward.0\": {\"input_args\": ["                                     \
    B_I64("30119.0", "1.0", "8466.25", "1786889.625") ", " B_I64("4095.0", "0.0", "2047.5", "302642.375")       \
    ", {\"type\": \"torch.Tensor\", \"dtype\": \"torch.bool\", \"shape\": [1, 1, 4096, 4096], \"Max\": true, "    \
    "\"Min\": false, \"Mean\": null, \"Norm\": null, \"requires_grad\": false}], \"input_kwargs\": {\"labels\": "   \
    B_I64("30119.0", "1.0", "8460.7685546875", "1786117.625") "}, \"output\": [" out "]}}}"
#define B_OUT(mx, mn, mean, norm)                                                                                  \
    "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [4, 4096], \"Max\": " mx ", \"Min\": " \
    mn ", \"Mean\": " mean ", \"Norm\": " norm ", \"requires_grad\": true}"
#define B_CONSTRUCT "{\"Module.module.Float16Module.forward.0\": null}"

static const graph_opts plain = {.jobs = 2};

static void test_example_b(void **state)
{
    (void)state;
    gh_pair p;
    gh_make(&p.n, B_CONSTRUCT,
            B_DUMP(B_OUT("18.41936683654785", "5.781723499298096", "12.240598678588867", "1584.7476806640625")),
            "{\"0\": [[\"Module.module.Float16Module.forward.0\"], [\"File train.py, line 10, in step, \\n out = "
            "self.model(x)\", \"File model.py, line 5, in forward, \\n y = self.module(x)\"]]}");
    gh_make(&p.b, B_CONSTRUCT,
            B_DUMP(B_OUT("10.629037857055664", "10.119558334350586", "10.378374099731445", "1328.4659423828125")),
            "{}");
    gh_compare(&p, &plain);
    assert_int_equal(p.c.task, TASK_SUMMARY);
    const gnode *m = gh_node(&p.n.g, "Module.module.Float16Module.forward.0");
    assert_int_equal(m->px_kind, PX_FLOAT);
    assert_true(m->px == 0.7329288957533336);
    gh_pair_expect(&p, "\"precision_index\": 0.7329288957533336", 1);
    gh_pair_expect(&p, "\"Max diff\": \"7.790329\"", 1);
    gh_pair_expect(&p, "\"Min diff\": \"-4.337835\"", 1);
    gh_pair_expect(&p, "\"MaxRelativeErr\": \"73.292890%\"", 1);
    gh_pair_expect(&p, "\"NormRelativeErr\": \"19.291555%\"", 1);
    /* bench Min 0: no relative error; the bool input: N/A everywhere */
    gh_pair_expect(&p, "\"MinRelativeErr\": \"N/A\"", 1);
    gh_pair_expect(&p, "\"Mean\": \"null\"", 1);
    gh_pair_expect(&p, "\"Max\": \"True\"", 1);
    /* the kwarg is named .input.labels */
    gh_pair_expect(&p, "\"Module.module.Float16Module.forward.0.input.labels\": {", 1);
    gh_pair_expect(&p, "\"File model.py, line 5, in forward, \\n y = self.module(x)\"", 1);
    gh_pair_expect(&p, "\"task\": \"summary\"", 1);
    gh_pair_expect(&p, "\"#FFC62E\": {", 1);
    /* the Bench twin: the same link, the micro step of the match, no data */
    const gnode *bm = gh_node(&p.b.g, "Module.module.Float16Module.forward.0");
    assert_int_equal(bm->link_side, 1);
    assert_true(bm->has_micro);
    assert_int_equal(bm->px_kind, PX_NONE);
    gh_pair_free(&p);
}

/* §9 example C: md5 compare with -oc */
static void test_example_c(void **state)
{
    (void)state;
    const char *construct = "{\"Tensor.__imul__.0.forward\": null, \"Torch.add.0.forward\": null}";
    graph_opts o = {.jobs = 2, .overflow_check = 1};
    gh_pair p;
    gh_make_opts(&p.n, construct, GH_EXAMPLE_C_NPU, "{}", RANK_NEED_MD5 | RANK_NEED_OVERFLOW, &o);
    gh_make_opts(&p.b, construct, GH_EXAMPLE_C_BENCH, "{}", RANK_NEED_MD5 | RANK_NEED_OVERFLOW, &o);
    gh_compare(&p, &o);
    assert_int_equal(p.c.task, TASK_MD5);
    const gnode *imul = gh_node(&p.n.g, "Tensor.__imul__.0.forward");
    assert_int_equal(imul->px_kind, PX_INT);
    assert_true(imul->px == 0);
    assert_int_equal(imul->md5_result, 2);
    assert_int_equal(imul->overflow, 2);
    const gnode *add = gh_node(&p.n.g, "Torch.add.0.forward");
    assert_true(add->px == 1);
    assert_int_equal(add->md5_result, 1);
    assert_int_equal(add->overflow, 3);
    /* the collection: the worst of its APIs, 0 */
    const gnode *col = gh_node(&p.n.g, "Apis_Between_Modules.0");
    assert_int_equal(col->px_kind, PX_INT);
    assert_true(col->px == 0);
    /* Bench nodes carry the levels of their own data */
    assert_int_equal(gh_node(&p.b.g, "Tensor.__imul__.0.forward")->overflow, 2);
    assert_int_equal(gh_node(&p.b.g, "Torch.add.0.forward")->overflow, 0);
    gh_pair_expect(&p,
                   "\"data\": {\n                    \"precision_index\": 0,\n                    \"Result\": "
                   "\"Different\",\n                    \"overflow_level\": \"high\"\n",
                   1);
    gh_pair_expect(&p, "\"md5\": \"ce564339\",\n                        \"data_name\": \"-1\",\n"
                       "                        \"Result\": \"Different\"",
                   1);
    /* the scalar: md5 = CRC-32 of "2" */
    gh_pair_expect(&p, "\"md5\": \"1ad5be0d\",\n                        \"Result\": \"pass\"", 1);
    gh_pair_expect(&p, "\"Max\": \"nan\"", 1);
    gh_pair_expect(&p, "\"OverflowCheck\": true", 1);
    gh_pair_expect(&p, "\"#FF704D\": {\n            \"value\": [\n                0,\n                0\n", 1);
    gh_pair_free(&p);
}

/* Default matching needs equal structure and ancestors; -f matches by
 * shapes and re-keys APIs; -lm by place */
#define M_T(shape) "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": " shape ", \"Max\": 1.0, " \
                   "\"Min\": 0.0, \"Mean\": 0.5, \"Norm\": 1.0}"
#define M_ENTRY(shape) "{\"input_args\": [" M_T(shape) "], \"output\": [" M_T(shape) "]}"

static void make_models(gh_pair *p, const graph_opts *o)
{
    /* NPU: module a holds matmul.2 and matmul.3; Bench: the same module
     * holds matmul.5 and matmul.6 (other call counters) and b has another
     * shape */
    gh_make_opts(&p->n,
                 "{\"Module.a.A.forward.0\": null, \"Torch.matmul.2.forward\": \"Module.a.A.forward.0\","
                 " \"Torch.matmul.3.forward\": \"Module.a.A.forward.0\", \"Module.b.B.forward.0\": null}",
                 "{\"task\": \"statistics\", \"data\": {\"Module.a.A.forward.0\": " M_ENTRY("[2]")
                 ", \"Torch.matmul.2.forward\": " M_ENTRY("[2]") ", \"Torch.matmul.3.forward\": " M_ENTRY("[3]")
                 ", \"Module.b.B.forward.0\": " M_ENTRY("[2]") "}}",
                 "{}", RANK_NEED_MD5, o);
    gh_make_opts(&p->b,
                 "{\"Module.a.A.forward.0\": null, \"Torch.matmul.5.forward\": \"Module.a.A.forward.0\","
                 " \"Torch.matmul.6.forward\": \"Module.a.A.forward.0\", \"Module.b.B.forward.0\": null}",
                 "{\"task\": \"statistics\", \"data\": {\"Module.a.A.forward.0\": " M_ENTRY("[2]")
                 ", \"Torch.matmul.5.forward\": " M_ENTRY("[2]") ", \"Torch.matmul.6.forward\": " M_ENTRY("[3]")
                 ", \"Module.b.B.forward.0\": " M_ENTRY("[5]") "}}",
                 "{}", RANK_NEED_MD5, o);
}

static void test_matching(void **state)
{
    (void)state;
    gh_pair p;
    make_models(&p, &plain);
    gh_compare(&p, &plain);
    assert_int_equal(gh_node(&p.n.g, "Module.a.A.forward.0")->link_side, 1);
    assert_int_equal(gh_node(&p.n.g, "Torch.matmul.2.forward")->link_side, 0);   /* no such Bench node */
    assert_int_equal(gh_node(&p.n.g, "Module.b.B.forward.0")->link_side, 0);     /* other shapes */
    assert_int_equal(gh_node(&p.n.g, "DefaultModel")->link_side, 1);
    gh_pair_free(&p);

    graph_opts fz = plain;
    fz.fuzzy = 1;
    make_models(&p, &fz);
    gh_compare(&p, &fz);
    /* "Torch.matmul.forward1": the first matmul of each module */
    const gnode *m2 = gh_node(&p.n.g, "Torch.matmul.2.forward");
    assert_int_equal(m2->link_side, 2);
    assert_string_equal(p.b.g.nodes[m2->link_node].id, "Torch.matmul.5.forward");
    assert_string_equal(p.b.g.nodes[gh_node(&p.n.g, "Torch.matmul.3.forward")->link_node].id,
                        "Torch.matmul.6.forward");
    assert_int_equal(gh_node(&p.n.g, "Module.b.B.forward.0")->link_side, 0);
    /* the links: the other side's path */
    gh_pair_expect(&p, "\"matched_node_link\": [\n                    \"DefaultModel\",\n                    "
                       "\"Module.a.A.forward.0\",\n                    \"Torch.matmul.5.forward\"\n",
                   1);
    gh_pair_free(&p);

    graph_opts lm = plain;
    lm.layer_mapping = 1;
    make_models(&p, &lm);
    gh_compare(&p, &lm);
    /* without stack.json scopes every node maps to N/A: only the nodes
     * without an entry match, by name */
    assert_int_equal(gh_node(&p.n.g, "DefaultModel")->link_side, 2);
    assert_int_equal(gh_node(&p.n.g, "Module.a.A.forward.0")->link_side, 2);
    assert_int_equal(gh_node(&p.n.g, "Module.b.B.forward.0")->link_side, 2);
    gh_pair_free(&p);
}

/* §4.8 and spec §10 #2: an unmatched Bench root child gets its micro step
 * from the split, not from its call counter */
static void test_bench_micro_steps(void **state)
{
    (void)state;
    gh_pair p;
    const char *c_n = "{\"Module.a.A.forward.0\": null, \"Module.a.A.backward.0\": null, \"Module.a.A.forward.1\": null}";
    const char *c_b = "{\"Module.a.A.forward.0\": null, \"Module.a.A.backward.0\": null, \"Module.b.B.forward.3\": null}";
    gh_make(&p.n, c_n, "{}", "{}");
    gh_make(&p.b, c_b, "{}", "{}");
    gh_compare(&p, &plain);
    assert_int_equal(p.n.g.micro_steps, 2);
    assert_int_equal(gh_node(&p.b.g, "Module.b.B.forward.3")->micro, 1);
    gh_pair_free(&p);
}

/* tensor mode: the one-thousandth ratios of real .npy files */
static void write_npy(const char *dir, const char *name, const float *v, int n)
{
    char *sub = tu_path(dir, "dump_tensor_data");
    mkdir(sub, 0755);
    char *path = tu_path(sub, name);
    int64_t shape[1] = {n};
    assert_int_equal(npy_save(path, DT_F32, 1, shape, v), 0);
    free(path);
    free(sub);
}

#define R_T(name) "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [4], \"Max\": 1.0, " \
                  "\"Min\": 0.0, \"Mean\": 0.5, \"Norm\": 1.0, \"data_name\": \"" name "\"}"
#define R_DUMP "{\"task\": \"tensor\", \"data\": {\"Torch.mul.0.forward\": {\"input_args\": [" \
               R_T("Torch.mul.0.forward.input.0.npy") "], \"output\": [" R_T("Torch.mul.0.forward.output.0.npy") \
               "]}, \"Torch.add.0.forward\": {\"input_args\": [" R_T("Torch.add.0.forward.input.0.npy") "]}}}"

static void test_tensor_index(void **state)
{
    (void)state;
    const char *construct = "{\"Torch.mul.0.forward\": null, \"Torch.add.0.forward\": null}";
    gh_pair p;
    gh_make(&p.n, construct, R_DUMP, "{}");
    gh_make(&p.b, construct, R_DUMP, "{}");
    static const float same[4] = {1, 2, 3, 4}, off[4] = {1, 2, 3, 4.5f};
    write_npy(p.n.dir, "Torch.mul.0.forward.input.0.npy", same, 4);
    write_npy(p.b.dir, "Torch.mul.0.forward.input.0.npy", same, 4);
    write_npy(p.n.dir, "Torch.mul.0.forward.output.0.npy", off, 4);
    write_npy(p.b.dir, "Torch.mul.0.forward.output.0.npy", same, 4);
    write_npy(p.n.dir, "Torch.add.0.forward.input.0.npy", same, 4);
    write_npy(p.b.dir, "Torch.add.0.forward.input.0.npy", same, 4);
    gh_compare(&p, &plain);
    assert_int_equal(p.c.task, TASK_REAL);
    /* inputs 1.0, output 0.75: 0.25 */
    const gnode *mul = gh_node(&p.n.g, "Torch.mul.0.forward");
    assert_int_equal(mul->px_kind, PX_FLOAT);
    assert_true(mul->px == 0.25);
    /* no outputs: 0 */
    assert_int_equal(gh_node(&p.n.g, "Torch.add.0.forward")->px_kind, PX_INT);
    /* the collection gets the largest of its APIs' indexes (spec §10 #1:
     * msprobe leaves it 0 in tensor mode) */
    assert_true(gh_node(&p.n.g, "Apis_Between_Modules.0")->px == 0.25);
    gh_pair_expect(&p, "\"One Thousandth Err Ratio\": \"0.75\"", 1);
    gh_pair_expect(&p, "\"Cosine\": \"0.998295\"", 1);
    gh_pair_free(&p);
}

/* §7: two ranks, send/recv and a broadcast, and a batch_isend_irecv each;
 * a null group_id counts as "" (spec §10 #5) */
#define D_INT(v) "{\"type\": \"int\", \"value\": " v "}"
#define D_GROUP "{\"type\": \"torch.ProcessGroup\", \"group_ranks\": [0, 1], \"group_id\": \"g1\"}"
#define D_OUT "[{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], \"Max\": 1.0, \"Min\": " \
              "0.0, \"Mean\": 0.5, \"Norm\": 1.0}]"
#define D_P2P(op, peer) "{\"class_type\": \"torch.distributed.P2POp\", \"op\": \"" op "\", \"peer\": " peer \
                        ", \"tag\": 0, \"group_id\": null}"

static void dist_rank(gh_side *s, int rank)
{
    char dump[4096];
    snprintf(dump, sizeof dump,
             "{\"task\": \"statistics\", \"data\": {"
             "\"Distributed.broadcast.0.forward\": {\"input_args\": [" GH_TENSOR ", " D_INT("0") "], "
             "\"input_kwargs\": {\"group\": " D_GROUP "}, \"output\": " D_OUT "},"
             "\"Distributed.%s.0.forward\": {\"input_args\": [" GH_TENSOR "], \"input_kwargs\": {\"%s\": "
             D_INT("%d") "}, \"output\": " D_OUT "},"
             "\"Distributed.batch_isend_irecv.0.forward\": {\"input_args\": [], \"output\": [[" D_P2P("isend", "%d")
             ", " D_P2P("irecv", "%d") "]]}}}",
             rank ? "recv" : "send", rank ? "src" : "dst", 1 - rank, 1 - rank, 1 - rank);
    gh_make(s, "{\"Distributed.broadcast.0.forward\": null, \"Distributed.send.0.forward\": null,"
               " \"Distributed.recv.0.forward\": null, \"Distributed.batch_isend_irecv.0.forward\": null}",
            dump, "{}");
    s->g.rank = rank;
}

static void test_distributed(void **state)
{
    (void)state;
    gh_side r0, r1;
    dist_rank(&r0, 0);
    dist_rank(&r1, 1);
    graph *gs[2] = {&r0.g, &r1.g};
    graph_distributed(gs, 2, 0, 0);
    const gnode *send = gh_node(&r0.g, "Distributed.send.0.forward");
    assert_non_null(send->dist);
    assert_int_equal(send->dist->v[0].type, 0);
    assert_string_equal(send->dist->v[0].rank[0], "1");
    assert_string_equal(send->dist->v[0].index[0], "Nan");
    assert_string_equal(send->dist->v[0].node[0], "Distributed.recv.0.forward");
    const gnode *recv = gh_node(&r1.g, "Distributed.recv.0.forward");
    assert_int_equal(recv->dist->v[0].type, 1);
    assert_string_equal(recv->dist->v[0].rank[0], "0");
    /* the broadcast from rank 0: send there, receive on rank 1 */
    assert_int_equal(gh_node(&r0.g, "Distributed.broadcast.0.forward")->dist->v[0].type, 0);
    assert_int_equal(gh_node(&r1.g, "Distributed.broadcast.0.forward")->dist->v[0].type, 1);
    /* batch p2p: a list of its two P2POps */
    const gnode *b0 = gh_node(&r0.g, "Distributed.batch_isend_irecv.0.forward");
    assert_non_null(b0->dist);
    assert_true(b0->dist->is_list);
    assert_int_equal(b0->dist->n, 2);
    assert_int_equal(b0->dist->v[0].type, 0);
    assert_int_equal(b0->dist->v[1].type, 1);
    gh_expect_vis(&r0, NULL, "\"matched_distributed\": [\n                {\n                    "
                             "\"communications_type\": \"send\",");
    /* the P2POp fields are not written */
    gh_expect_no_vis(&r0, NULL, "\"peer\"");
    gh_free(&r0);
    gh_free(&r1);
}

/* A p2p pair whose output.0 is missing on one side matches nothing
 * (msprobe crashes, spec §10 #4) */
static void test_p2p_no_output(void **state)
{
    (void)state;
    gh_side r0, r1;
    gh_make(&r0, "{\"Distributed.send.0.forward\": null}",
            "{\"task\": \"statistics\", \"data\": {\"Distributed.send.0.forward\": {\"input_args\": [" GH_TENSOR
            "], \"input_kwargs\": {\"dst\": " D_INT("1") "}}}}",
            "{}");
    gh_make(&r1, "{\"Distributed.recv.0.forward\": null}",
            "{\"task\": \"statistics\", \"data\": {\"Distributed.recv.0.forward\": {\"input_args\": [" GH_TENSOR
            "], \"input_kwargs\": {\"src\": " D_INT("0") "}, \"output\": " D_OUT "}}}",
            "{}");
    r1.g.rank = 1;
    graph *gs[2] = {&r0.g, &r1.g};
    graph_distributed(gs, 2, 0, 0);
    assert_null(gh_node(&r0.g, "Distributed.send.0.forward")->dist);
    assert_null(gh_node(&r1.g, "Distributed.recv.0.forward")->dist);
    gh_free(&r0);
    gh_free(&r1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example_b),      cmocka_unit_test(test_example_c),
        cmocka_unit_test(test_matching),       cmocka_unit_test(test_bench_micro_steps),
        cmocka_unit_test(test_tensor_index),   cmocka_unit_test(test_distributed),
        cmocka_unit_test(test_p2p_no_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
