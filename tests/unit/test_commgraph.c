/* lib/commgraph: the communication-graph search shared by nan_analyze and
 * compare -da (spec/analyzers.md §A.5-A.9, §C.3).
 *
 * The 8.1.0 scenarios are msprobe's own unit test (test_nan_analyzer.py:
 * four ranks, p2p and collective ops, §A.13) with the results observed by
 * running 8.1.0; the ops are described here the way nan_analyze's caller
 * will: NaN/Inf flags from the tensors, type and partner ranks by §A.5. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model/commgraph.h"
#include "base/strbuf.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "a13.h"

typedef struct {
    cg_op ops[4][14];
    cg_rank ranks[4];
    long partner[4][14][6];
    char names[4][14][48];
    char api[4][14][48], peer[4][14][48];
} world;

static int directed(const char *api)
{
    static const char *const d[] = {"send", "recv", "broadcast", "gather"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(api, d[i]))
            return 1;
    return 0;
}

/* nan_analyze's reading of the generated dumps (§A.4, §A.5). */
static void build(world *w, enum scenario s)
{
    memset(w, 0, sizeof *w);
    for (int r = 0; r < 4; r++) {
        int counter[8] = {0}, start = 999;
        static const char *const kinds[] = {"compute", "send", "recv", "broadcast", "all_gather", "gather"};
        for (int i = 0; i < 14; i++) {
            const spec *sp = &a13_order[r][i];
            cg_op *o = &w->ops[r][i];
            health h = a13_health(s, r, i, &start);
            int k = 0;
            while (strcmp(kinds[k], sp->name ? sp->name : "compute"))
                k++;
            if (!sp->name) {
                snprintf(w->names[r][i], 48, "Torch.operator.%d.forward", counter[k]++);
                o->name = w->names[r][i];
                if (!h.normal)
                    o->flags |= CG_FLAGGED;
                continue;
            }
            snprintf(w->names[r][i], 48, "Distributed.%s.%d.forward", sp->name, counter[k]++);
            o->name = w->names[r][i];
            o->flags = CG_COMM;
            if (!h.in_ok)
                o->flags |= CG_INPUT_FLAGGED | CG_KEEP;
            if (!h.out_ok)
                o->flags |= CG_KEEP;
            if (h.in_ok && !h.out_ok)
                o->flags |= CG_FLAGGED;
            if (directed(sp->name))
                o->flags |= CG_DIRECTED;
            const char *peer = !strcmp(sp->name, "send") ? "recv" : !strcmp(sp->name, "recv") ? "send" : sp->name;
            snprintf(w->api[r][i], 48, "Distributed.%s", sp->name);
            snprintf(w->peer[r][i], 48, "Distributed.%s", peer);
            o->api = w->api[r][i];
            o->peer_api = w->peer[r][i];
            long *pr = w->partner[r][i];
            size_t n = 0;
            if (!strcmp(sp->kind, "p2p_src")) {
                /* kwargs dst: "dst" if it names me, else I send */
                o->type = sp->dst == r ? CG_DST : CG_SRC;
                pr[n++] = sp->dst;
            } else if (!strcmp(sp->kind, "p2p_dst")) {
                o->type = sp->src == r ? CG_SRC : CG_DST;
                pr[n++] = sp->src;
            } else if (!strcmp(sp->kind, "p2g_src")) {
                /* positional int of a directed api: broadcast's root is src */
                o->type = sp->src == r ? CG_SRC : CG_DST;
                pr[n++] = sp->src;
            } else if (!strcmp(sp->kind, "p2g_dst")) {
                o->type = sp->dst == r ? CG_DST : CG_SRC;
                pr[n++] = sp->dst;
            } else {
                o->type = CG_LINK;
            }
            for (int g = 0; g < 4 && sp->group; g++)
                pr[n++] = g;
            o->ranks = pr;
            o->nranks = n;
        }
        w->ranks[r] = (cg_rank){.rank = r, .ops = w->ops[r], .nops = 14};
    }
}

static const cg_params nan_analyze_810 = {.unconnected_level = CG_INFO, .grouping_defect = 1};
static const cg_params find_first = {.skip_ignored_first = 1,
                                     .monotonic_layers = 1,
                                     .exact_api = 1,
                                     .all_compute_ops = 1,
                                     .keep_all_minima = 1,
                                     .unconnected_level = CG_DEBUG};

static const char *hit_name(const world *w, const cg_result *res, size_t k)
{
    return w->ops[res->hits[k].rank][res->hits[k].op].name;
}

static void test_a13_normal(void **state)
{
    static world w;
    build(&w, NORMAL);
    cg_result res;
    cg_search(w.ranks, 4, &nan_analyze_810, &res);
    assert_int_equal(res.phase, 0);
    assert_int_equal(res.nhits, 0);
    cg_result_free(&res);
}

static void test_a13_pre(void **state)
{
    static world w;
    build(&w, PRE);
    cg_result res;
    cg_search(w.ranks, 4, &nan_analyze_810, &res);
    /* rank 1's first op is a comm op: only rank 0 reports */
    assert_int_equal(res.phase, 1);
    assert_int_equal(res.nhits, 1);
    assert_int_equal(res.hits[0].rank, 0);
    assert_string_equal(hit_name(&w, &res, 0), "Torch.operator.0.forward");
    cg_result_free(&res);
}

static void test_a13_anomaly(void **state)
{
    static world w;
    build(&w, ANOMALY);
    cg_result res;
    cg_search(w.ranks, 4, &nan_analyze_810, &res);
    /* c5 before rank 0's broadcast (whose input is bad) and the broadcasts
     * that received bad data all sit at (layer 2, sub_layer 0); 8.1.0 keeps
     * the first candidate, the compute op */
    assert_int_equal(res.phase, 2);
    assert_int_equal(res.nhits, 1);
    assert_int_equal(res.hits[0].rank, 0);
    assert_string_equal(hit_name(&w, &res, 0), "Torch.operator.5.forward");
    assert_int_equal(res.hits[0].layer, 2);
    assert_int_equal(res.hits[0].sub_layer, 0);
    cg_result_free(&res);

    /* find_first's rules on the same graph: the monotonic fix lifts the
     * broadcasts of ranks 1 and 2 (connected while walking their chains) to
     * layers 4 and 5; rank 3 is never walked and keeps layer 2. Every
     * candidate of the minimum is reported. */
    cg_search(w.ranks, 4, &find_first, &res);
    assert_int_equal(res.phase, 2);
    assert_int_equal(res.nhits, 2);
    assert_int_equal(res.hits[0].rank, 0);
    assert_string_equal(hit_name(&w, &res, 0), "Torch.operator.5.forward");
    assert_int_equal(res.hits[1].rank, 3);
    assert_string_equal(hit_name(&w, &res, 1), "Distributed.broadcast.0.forward");
    assert_int_equal(res.hits[1].layer, 2);
    cg_result_free(&res);
}

static void test_a13_after(void **state)
{
    static world w;
    build(&w, AFTER);
    cg_result res;
    cg_search(w.ranks, 4, &nan_analyze_810, &res);
    assert_int_equal(res.phase, 3);
    assert_int_equal(res.nhits, 2);
    assert_int_equal(res.hits[0].rank, 2);
    assert_string_equal(hit_name(&w, &res, 0), "Torch.operator.6.forward");
    assert_int_equal(res.hits[1].rank, 3);
    assert_string_equal(hit_name(&w, &res, 1), "Torch.operator.6.forward");
    cg_result_free(&res);
}

/* §A.7.4: 8.1.0 drops a rank's front node that is outside the round's
 * first group; the fixed rule (find_first's) makes a group of it. */
static void test_grouping_defect(void **state)
{
    static const long one[] = {1};
    cg_op r0[] = {{.name = "Distributed.all_reduce.0.forward", .flags = CG_COMM | CG_KEEP | CG_INPUT_FLAGGED,
                   .type = CG_LINK, .api = "Distributed.all_reduce", .peer_api = "Distributed.all_reduce"}};
    cg_op r1[] = {{.name = "Distributed.broadcast.0.forward", .flags = CG_COMM | CG_KEEP | CG_FLAGGED | CG_DIRECTED,
                   .type = CG_SRC, .api = "Distributed.broadcast", .peer_api = "Distributed.broadcast", .ranks = one,
                   .nranks = 1},
                  {.name = "Distributed.all_reduce.0.forward", .flags = CG_COMM | CG_KEEP | CG_INPUT_FLAGGED,
                   .type = CG_LINK, .api = "Distributed.all_reduce", .peer_api = "Distributed.all_reduce"}};
    cg_rank ranks[] = {{0, r0, 1}, {1, r1, 2}};
    cg_result res;
    cg_search(ranks, 2, &nan_analyze_810, &res);
    assert_int_equal(res.phase, 0);
    cg_result_free(&res);
    cg_params fixed = nan_analyze_810;
    fixed.grouping_defect = 0;
    cg_search(ranks, 2, &fixed, &res);
    assert_int_equal(res.phase, 2);
    assert_int_equal(res.nhits, 1);
    assert_int_equal(res.hits[0].rank, 1);
    assert_int_equal(res.hits[0].op, 0);
    cg_result_free(&res);
}

typedef struct {
    strbuf text;
} log_sink;

static void sink(void *arg, int level, const char *msg)
{
    log_sink *s = arg;
    sb_addf(&s->text, "%d:%s\n", level, msg);
}

/* Partners: exact api (recv pairs with send, not with send_object_list), a
 * rank without data is skipped and said once, and a partner takes the layer
 * of the op that found it -- which decides the minimum. */
static void test_partners_and_layers(void **state)
{
    static const long to1[] = {1}, to0[] = {0}, to2[] = {2, 2};
    /* rank 0: send to rank 2 (no data), compute (flagged), send to 1
     * rank 1: two collectives rank 0 does not join, recv_object_list from 0
     * (flagged), recv from 0 (flagged) */
    cg_op r0[] = {
        {.name = "Distributed.send.0.forward", .flags = CG_COMM | CG_DIRECTED, .type = CG_SRC, .api = "Distributed.send",
         .peer_api = "Distributed.recv", .ranks = to2, .nranks = 2},
        {.name = "Torch.mul.0.forward", .flags = CG_FLAGGED},
        {.name = "Distributed.send.1.forward", .flags = CG_COMM | CG_DIRECTED, .type = CG_SRC, .api = "Distributed.send",
         .peer_api = "Distributed.recv", .ranks = to1, .nranks = 1},
    };
    cg_op r1[] = {
        {.name = "Distributed.all_gather.0.forward", .flags = CG_COMM, .type = CG_LINK,
         .api = "Distributed.all_gather", .peer_api = "Distributed.all_gather"},
        {.name = "Distributed.all_gather.1.forward", .flags = CG_COMM, .type = CG_LINK,
         .api = "Distributed.all_gather", .peer_api = "Distributed.all_gather"},
        {.name = "Distributed.recv_object_list.0.forward", .flags = CG_COMM | CG_DIRECTED | CG_KEEP | CG_FLAGGED,
         .type = CG_DST, .api = "Distributed.recv_object_list", .peer_api = "Distributed.send_object_list",
         .ranks = to0, .nranks = 1},
        {.name = "Distributed.recv.0.forward", .flags = CG_COMM | CG_DIRECTED | CG_KEEP | CG_FLAGGED, .type = CG_DST,
         .api = "Distributed.recv", .peer_api = "Distributed.send", .ranks = to0, .nranks = 1},
    };
    cg_rank ranks[] = {{0, r0, 3}, {1, r1, 4}};
    log_sink s = {STRBUF_INIT};
    cg_params p = find_first;
    p.log = sink;
    p.log_arg = &s;
    p.log_level = CG_DEBUG;
    cg_result res;
    cg_search(ranks, 2, &p, &res);
    /* send.1 (layer 1) finds recv.0, which moves from layer 3 to 1 and ties
     * with mul (1, 0): both reported, compute ops first */
    assert_int_equal(res.phase, 2);
    assert_int_equal(res.nhits, 2);
    assert_int_equal(res.hits[0].rank, 0);
    assert_int_equal(res.hits[0].op, 1);
    assert_int_equal(res.hits[1].rank, 1);
    assert_int_equal(res.hits[1].op, 3);
    assert_int_equal(res.hits[1].layer, 1);
    const char *t = sb_str(&s.text);
    assert_non_null(strstr(t, "2:rank 2, which 0.Distributed.send.0.forward communicates with, has no data: skipped"));
    /* said once although listed twice */
    assert_null(strstr(strstr(t, "rank 2, which") + 1, "rank 2, which"));
    assert_non_null(strstr(t, "0:Cannot find connected communication node for \"0.Distributed.send.0.forward\"."));
    assert_non_null(strstr(t, "0:After pruning, following nodes are removed: [0.Distributed.send.0.forward, "
                              "1.Distributed.all_gather.0.forward, 1.Distributed.all_gather.1.forward]"));
    cg_result_free(&res);

    /* msprobe's prefix match takes recv_object_list for the recv */
    p.exact_api = 0;
    cg_search(ranks, 2, &p, &res);
    assert_int_equal(res.nhits, 2);
    assert_int_equal(res.hits[1].op, 2);
    assert_int_equal(res.hits[1].layer, 1);
    cg_result_free(&res);
    sb_free(&s.text);
}

/* Phase 3 and ignored ops: an ignored op is no candidate and does not count
 * in sub_layer; find_first skips it before the comm test too. */
static void test_ignored_and_after(void **state)
{
    cg_op r0[] = {
        {.name = "Torch.empty.0.forward", .flags = CG_IGNORED | CG_FLAGGED},
        {.name = "Distributed.all_reduce.0.forward", .flags = CG_COMM, .type = CG_LINK,
         .api = "Distributed.all_reduce", .peer_api = "Distributed.all_reduce"},
        {.name = "Torch.fill_.0.forward", .flags = CG_IGNORED | CG_FLAGGED},
        {.name = "Torch.add.0.forward"},
        {.name = "Torch.mul.0.forward", .flags = CG_FLAGGED},
        {.name = "Torch.mul.1.forward", .flags = CG_FLAGGED},
    };
    cg_rank ranks[] = {{5, r0, 6}, {7, NULL, 0}};
    log_sink s = {STRBUF_INIT};
    cg_params p = find_first;
    p.log = sink;
    p.log_arg = &s;
    p.log_level = CG_WARN;
    cg_result res;
    cg_search(ranks, 2, &p, &res);
    assert_int_equal(res.phase, 3);
    assert_int_equal(res.nhits, 1);
    assert_int_equal(res.hits[0].op, 4);
    assert_int_equal(res.hits[0].sub_layer, 1);
    assert_non_null(strstr(sb_str(&s.text), "2:Rank 7 has no dump data!"));
    /* no debug message below the level asked for */
    assert_null(strstr(sb_str(&s.text), "0:"));
    cg_result_free(&res);
    sb_free(&s.text);
}

/* A caller may fold runs of plain compute ops into one op: the sub_layers
 * (and so the answer) are those of the unfolded list. */
static void test_folded_runs(void **state)
{
    cg_op plain = {.name = "Torch.add.0.forward"};
    cg_op ar0 = {.name = "Distributed.all_reduce.0.forward", .flags = CG_COMM, .type = CG_LINK,
                 .api = "Distributed.all_reduce", .peer_api = "Distributed.all_reduce"};
    cg_op ar1 = ar0, mul = {.name = "Torch.mul.0.forward", .flags = CG_FLAGGED};
    ar1.name = "Distributed.all_reduce.1.forward";
    ar1.flags |= CG_KEEP | CG_INPUT_FLAGGED;
    cg_op r1ar1 = ar1;
    r1ar1.flags = CG_COMM | CG_KEEP | CG_FLAGGED;
    /* rank 0: ar0, 3 plain, mul (flagged), ar1 (bad input); rank 1: ar0, 2 plain, ar1 (clean in, bad out) */
    cg_op u0[] = {ar0, plain, plain, plain, mul, ar1}, u1[] = {ar0, plain, plain, r1ar1};
    cg_op f0[] = {ar0, plain, mul, ar1}, f1[] = {ar0, plain, r1ar1};
    f0[1].repeat = 2;
    f1[1].repeat = 1;
    cg_rank unfolded[] = {{.rank = 0, .ops = u0, .nops = 6}, {.rank = 1, .ops = u1, .nops = 4}};
    cg_rank folded[] = {{.rank = 0, .ops = f0, .nops = 4}, {.rank = 1, .ops = f1, .nops = 3}};
    cg_params p = {.exact_api = 1, .unconnected_level = CG_INFO};
    cg_result a, b;
    cg_search(unfolded, 2, &p, &a);
    cg_search(folded, 2, &p, &b);
    /* mul at sub_layer 3 loses to rank 1's all_reduce at sub_layer 2 */
    assert_int_equal(a.phase, 2);
    assert_int_equal(a.nhits, 1);
    assert_int_equal(a.hits[0].rank, 1);
    assert_int_equal(a.hits[0].sub_layer, 2);
    assert_int_equal(b.nhits, 1);
    assert_int_equal(b.hits[0].rank, 1);
    assert_int_equal(b.hits[0].op, 2);
    assert_int_equal(b.hits[0].sub_layer, 2);
    cg_result_free(&a);
    cg_result_free(&b);
}

/* Big groups (indexed as bitmaps) and rank numbers that are not dense
 * (found by binary search) connect as small ones do. */
static void test_big_groups(void **state)
{
    enum { R = 40 };
    static cg_op ops[R][3];
    static long group[R], half[R / 2];
    static cg_rank ranks[R];
    for (int sparse = 0; sparse < 2; sparse++) {
        for (int r = 0; r < R; r++)
            group[r] = sparse ? 1000L * r + 7 : r;
        for (int r = 0; r < R / 2; r++)
            half[r] = group[2 * r];
        for (int r = 0; r < R; r++) {
            /* every rank: all_reduce over the even ranks (odd ones: over everybody),
             * compute, all_reduce over everybody; rank 17 computes NaN */
            int even = r % 2 == 0;
            ops[r][0] = (cg_op){.name = "Distributed.all_reduce.0.forward", .flags = CG_COMM, .type = CG_LINK,
                                .api = "Distributed.all_reduce", .peer_api = "Distributed.all_reduce",
                                .ranks = even ? half : group, .nranks = even ? R / 2 : R};
            ops[r][1] = (cg_op){.name = "Torch.mul.0.forward", .flags = r == 17 ? CG_FLAGGED : 0};
            ops[r][2] = (cg_op){.name = "Distributed.all_reduce.1.forward",
                                .flags = CG_COMM | CG_KEEP | (r == 17 ? CG_INPUT_FLAGGED : CG_FLAGGED),
                                .type = CG_LINK, .api = "Distributed.all_reduce", .peer_api = "Distributed.all_reduce",
                                .ranks = group, .nranks = R};
            ranks[r] = (cg_rank){.rank = group[r], .ops = ops[r], .nops = 3};
        }
        log_sink s = {STRBUF_INIT};
        cg_params p = {.exact_api = 1, .unconnected_level = CG_INFO, .log = sink, .log_arg = &s, .log_level = CG_INFO};
        cg_result res;
        cg_search(ranks, R, &p, &res);
        /* mul (sub 0) before the all_reduce whose input it spoilt, at the
         * layer of everybody's all_reduce.1 */
        assert_int_equal(res.phase, 2);
        assert_int_equal(res.nhits, 1);
        assert_int_equal(res.hits[0].rank, 17);
        assert_int_equal(res.hits[0].op, 1);
        assert_int_equal(res.hits[0].layer, 1);
        /* every rank number of the groups was found */
        assert_null(strstr(sb_str(&s.text), "has no data"));
        /* an odd rank's all_reduce.0 takes everybody: an even rank's
         * all_reduce.0 does not name it, so it pairs with the even rank's
         * all_reduce.1 (the k-th op that passes msprobe's partner test) */
        assert_null(strstr(sb_str(&s.text), "Cannot find"));
        cg_result_free(&res);
        sb_free(&s.text);
    }
}

/* msprobe's `found = cur_node.connected`: a node an earlier rank connected
 * is not reported as unconnected when its own search finds nothing. */
static void test_connected_before(void **state)
{
    static const long to1[] = {1}, from0[] = {0};
    cg_op r0[] = {{.name = "Distributed.send.0.forward", .flags = CG_COMM | CG_DIRECTED, .type = CG_SRC,
                   .api = "Distributed.send", .peer_api = "Distributed.recv", .ranks = to1, .nranks = 1}};
    cg_op r1[] = {{.name = "Distributed.recv.0.forward", .flags = CG_COMM | CG_DIRECTED, .type = CG_DST,
                   .api = "Distributed.recv", .peer_api = "Distributed.send", .ranks = from0, .nranks = 1}};
    cg_op r2[] = {{.name = "Distributed.recv.0.forward", .flags = CG_COMM | CG_DIRECTED, .type = CG_DST,
                   .api = "Distributed.recv", .peer_api = "Distributed.send", .ranks = from0, .nranks = 1}};
    cg_rank ranks[] = {{.rank = 0, .ops = r0, .nops = 1}, {.rank = 1, .ops = r1, .nops = 1},
                       {.rank = 2, .ops = r2, .nops = 1}};
    log_sink s = {STRBUF_INIT};
    cg_params p = {.exact_api = 1, .unconnected_level = CG_INFO, .log = sink, .log_arg = &s, .log_level = CG_INFO};
    cg_result res;
    cg_search(ranks, 3, &p, &res);
    assert_int_equal(res.phase, 0);
    /* rank 1's recv was connected by rank 0's send; rank 2 is the last rank
     * and never searches */
    assert_null(strstr(sb_str(&s.text), "Cannot find"));
    cg_result_free(&res);
    sb_free(&s.text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a13_normal),
        cmocka_unit_test(test_a13_pre),
        cmocka_unit_test(test_a13_anomaly),
        cmocka_unit_test(test_a13_after),
        cmocka_unit_test(test_grouping_defect),
        cmocka_unit_test(test_partners_and_layers),
        cmocka_unit_test(test_ignored_and_after),
        cmocka_unit_test(test_folded_runs),
        cmocka_unit_test(test_big_groups),
        cmocka_unit_test(test_connected_before),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
