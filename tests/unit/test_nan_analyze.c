/* nan_analyze (spec/analyzers.md §A) on dumps written here: msprobe's own
 * unit-test scenario (test_nan_analyzer.py, §A.13: four ranks in the layout
 * rank, rank1, rank2, rank3, rank_others), NaN carried by send/recv chains,
 * broadcast and all_gather, after the last communication, clean runs, a
 * group naming a rank without a directory, the defects fixed (each test
 * says what msprobe 8.1.0 reports instead), and the report's JSON. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "nan_analyze/nan.h"
#include "base/files.h"
#include "base/log.h"
#include "base/outdir.h"
#include "format/json.h"
#include "model/table.h"
#include "testutil.h"
#include "a13.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- dumps written by hand ----------------------------------------------- */

/* msprobe's DumpDataBuilder tensors: clean (Max 2.0 ...) or bad ('inf' ...). */
#define OK "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], \"Max\": 2.0, \"Min\": 1.0, " \
           "\"Mean\": 1.5, \"Norm\": 2.236, \"requires_grad\": false}"
#define BAD "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], \"Max\": \"inf\", " \
            "\"Min\": \"-inf\", \"Mean\": \"nan\", \"Norm\": \"nan\", \"requires_grad\": false}"

typedef struct {
    strbuf sb;
    int n;
} dump_w;

static void d_begin(dump_w *w)
{
    w->sb = (strbuf)STRBUF_INIT;
    w->n = 0;
    sb_adds(&w->sb, "{\"task\": \"statistics\", \"level\": \"L1\", \"framework\": \"pytorch\", \"dump_data_dir\": null, "
                    "\"data\": {");
}

/* One entry: its name and the members of its value. */
static void d_op(dump_w *w, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void d_op(dump_w *w, const char *name, const char *fmt, ...)
{
    sb_addf(&w->sb, "%s\n\"%s\": {", w->n++ ? "," : "", name);
    va_list ap;
    va_start(ap, fmt);
    char *body;
    assert_true(vasprintf(&body, fmt, ap) >= 0);
    va_end(ap);
    sb_adds(&w->sb, body);
    free(body);
    sb_addc(&w->sb, '}');
}

/* A compute op: clean input, output clean or not. */
static void d_compute(dump_w *w, const char *name, int in_ok, int out_ok)
{
    d_op(w, name, "\"input_args\": [%s], \"input_kwargs\": {}, \"output\": [%s]", in_ok ? OK : BAD,
         out_ok ? OK : BAD);
}

/* Writes dir/name/{dump.json, construct.json, stack.json}. */
static char *d_end(dump_w *w, const char *dir, const char *name)
{
    sb_adds(&w->sb, "\n}}");
    char *rdir = tu_path(dir, name);
    mkdir(dir, 0700);
    assert_int_equal(mkdir(rdir, 0700), 0);
    free(tu_write(rdir, "dump.json", w->sb.buf, w->sb.len));
    free(tu_write(rdir, "construct.json", "{}", (size_t)-1));
    free(tu_write(rdir, "stack.json", "{}", (size_t)-1));
    sb_free(&w->sb);
    return rdir;
}

static char *fresh_dir(const char *name)
{
    char *d = tu_path(tu_dir, name);
    assert_int_equal(mkdir(d, 0700), 0);
    return d;
}

/* §A.13: every rank of a13.h as a dump.json of msprobe's DumpDataBuilder. */
static char *a13_step(const char *name, enum scenario s)
{
    char *step = fresh_dir(name);
    static const char *const dirs[4] = {"rank", "rank1", "rank2", "rank3"};
    for (int r = 0; r < 4; r++) {
        dump_w w;
        d_begin(&w);
        int counter[6] = {0}, start = 999;
        static const char *const kinds[] = {"compute", "send", "recv", "broadcast", "all_gather", "gather"};
        for (int i = 0; i < 14; i++) {
            const spec *sp = &a13_order[r][i];
            health h = a13_health(s, r, i, &start);
            int k = 0;
            while (strcmp(kinds[k], sp->name ? sp->name : "compute"))
                k++;
            char op[64];
            if (!sp->name) {
                snprintf(op, sizeof op, "Torch.operator.%d.forward", counter[k]++);
                d_compute(&w, op, 1, h.normal);
                continue;
            }
            snprintf(op, sizeof op, "Distributed.%s.%d.forward", sp->name, counter[k]++);
            const char *in = h.in_ok ? OK : BAD, *out = h.out_ok ? OK : BAD;
            static const char *const grp =
                "\"group\": {\"type\": \"torch.ProcessGroup\", \"group_ranks\": [0, 1, 2, 3], \"group_id\": \"g\"}";
            if (!strcmp(sp->kind, "p2p_src"))
                d_op(&w, op, "\"input_args\": [%s], \"input_kwargs\": {\"dst\": {\"type\": \"int\", \"value\": %ld}}, "
                             "\"output\": [%s]", in, sp->dst, out);
            else if (!strcmp(sp->kind, "p2p_dst"))
                d_op(&w, op, "\"input_args\": [%s], \"input_kwargs\": {\"src\": {\"type\": \"int\", \"value\": %ld}}, "
                             "\"output\": [%s]", in, sp->src, out);
            else if (!strcmp(sp->kind, "p2g_src") || !strcmp(sp->kind, "p2g_dst"))
                d_op(&w, op, "\"input_args\": [%s, {\"type\": \"int\", \"value\": %ld}], \"input_kwargs\": {%s}, "
                             "\"output\": [%s]", in, !strcmp(sp->kind, "p2g_src") ? sp->src : sp->dst, grp, out);
            else
                d_op(&w, op, "\"input_args\": [%s], \"input_kwargs\": {}, \"output\": [%s]", in, out);
        }
        free(d_end(&w, step, dirs[r]));
    }
    /* msprobe's test lists this too; it is no rank directory */
    char *others = tu_path(step, "rank_others");
    assert_int_equal(mkdir(others, 0700), 0);
    free(others);
    return step;
}

/* ---- running it ------------------------------------------------------------ */

static const nan_opts plain = {.all = 0, .table_format = -1, .jobs = 2};

static void run(const char *step, nan_step *st)
{
    err_clear();
    if (nan_step_run(step, 0, &plain, st) != 0)
        fail_msg("%s", err_message());
}

/* The single finding's rank number and op name; phase. */
static void expect_one(const nan_step *st, int phase, long rank, const char *op)
{
    assert_int_equal(st->res.phase, phase);
    assert_int_equal(st->res.nhits, 1);
    const nan_rank *rk = &st->ranks[st->res.hits[0].rank];
    assert_int_equal(rk->rank, rank);
    assert_string_equal(rk->ops[st->res.hits[0].op].name, op);
}

static char *slurp(const char *path)
{
    mapped_file f;
    assert_int_equal(file_load(path, 0, &f), 0);
    char *s = strndup((const char *)f.data, f.size);
    file_unmap(&f);
    return s;
}

/* The one anomaly_analyze_*.json of dir (malloc'ed path), or NULL. */
static char *result_in(const char *dir, const char *ext)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char *found = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "anomaly_analyze_", 16) || !strstr(e->d_name, ext))
            continue;
        assert_null(found);
        found = tu_path(dir, e->d_name);
    }
    closedir(d);
    return found;
}

/* Report into a fresh directory; its summary line in *line. */
static char *report(nan_step *st, const nan_opts *o, const char *name, strbuf *line, int *found)
{
    char *out = tu_path(tu_dir, name);
    out_run *outs = out_run_new();
    err_clear();
    if (nan_report(st, o, out, outs, line, found) != 0)
        fail_msg("%s", err_message());
    out_run_free(outs);
    return out;
}

/* ---- §A.13 ------------------------------------------------------------------ */

static void test_a13(void **state)
{
    nan_step st;
    char *step = a13_step("a13_normal", NORMAL);
    run(step, &st);
    /* rank_others is no rank; "rank" is rank 0 */
    assert_int_equal(st.nranks, 4);
    assert_string_equal(st.ranks[0].label, "rank");
    assert_int_equal(st.ranks[0].rank, 0);
    assert_int_equal(st.res.phase, 0);
    strbuf line = STRBUF_INIT;
    int found = 1;
    char *out = report(&st, &plain, "a13_normal_out", &line, &found);
    assert_false(found);
    assert_string_equal(sb_str(&line), "no NaN/Inf node found");
    /* nothing written, not even the directory */
    assert_int_equal(path_kind(out), PATH_MISSING);
    free(out);
    nan_step_free(&st);
    free(step);

    step = a13_step("a13_pre", PRE);
    run(step, &st);
    /* rank 1's first op is a comm op: only rank 0 reports */
    expect_one(&st, 1, 0, "Torch.operator.0.forward");
    nan_step_free(&st);
    free(step);

    step = a13_step("a13_anomaly", ANOMALY);
    run(step, &st);
    /* c5 before rank 0's broadcast (whose input is bad) ties with the
     * broadcasts that received bad data at (layer 2, sub_layer 0); the
     * compute op comes first (msprobe's assertion) */
    expect_one(&st, 2, 0, "Torch.operator.5.forward");
    assert_int_equal(st.res.hits[0].layer, 2);
    nan_step_free(&st);
    free(step);

    step = a13_step("a13_after", AFTER);
    run(step, &st);
    assert_int_equal(st.res.phase, 3);
    assert_int_equal(st.res.nhits, 2);
    assert_int_equal(st.ranks[st.res.hits[0].rank].rank, 2);
    assert_string_equal(st.ranks[st.res.hits[0].rank].ops[st.res.hits[0].op].name, "Torch.operator.6.forward");
    assert_int_equal(st.ranks[st.res.hits[1].rank].rank, 3);
    sb_reset(&line);
    out = report(&st, &plain, "a13_after_out", &line, &found);
    assert_true(found);
    char *path = result_in(out, ".json");
    assert_non_null(path);
    assert_non_null(strstr(sb_str(&line), "first NaN/Inf: rank 2 Torch.operator.6.forward (inputs finite, output "
                                          "inf, -inf); rank 3 Torch.operator.6.forward (inputs finite, output inf, "
                                          "-inf) -> "));
    /* keys rank_2 then rank_3, each holding its op */
    char *text = slurp(path);
    assert_non_null(strstr(text, "{\n  \"rank_2\": [\n    {\n      \"op_name\": \"Torch.operator.6.forward\",\n"));
    assert_non_null(strstr(text, "\n  ],\n  \"rank_3\": [\n    {\n      \"op_name\": \"Torch.operator.6.forward\""));
    free(text);
    free(path);
    free(out);
    sb_free(&line);
    nan_step_free(&st);
    free(step);
}

/* ---- communication --------------------------------------------------------- */

static const char *const world_ar = "\"input_args\": [" OK "], \"input_kwargs\": {}, \"output\": [" OK "]";

/* NaN made on rank 0 after its first collective travels 0 -> 1 -> 2 -> 3 by
 * send/recv: the op that made it, before the send whose input it spoilt. */
static void test_send_recv_chain(void **state)
{
    char *step = fresh_dir("chain");
    for (int r = 0; r < 4; r++) {
        dump_w w;
        d_begin(&w);
        d_op(&w, "Distributed.all_reduce.0.forward", "%s", world_ar);
        if (r == 0) {
            d_compute(&w, "Torch.mul.0.forward", 1, 0);
        } else {
            d_op(&w, "Distributed.recv.0.forward",
                 "\"input_args\": [" OK "], \"input_kwargs\": {\"src\": {\"type\": \"int\", \"value\": %d}}, "
                 "\"output\": [" BAD "]", r - 1);
            d_compute(&w, "Tensor.add.0.forward", 0, 0);
        }
        if (r < 3)
            d_op(&w, "Distributed.send.0.forward",
                 "\"input_args\": [" BAD "], \"input_kwargs\": {\"dst\": {\"type\": \"int\", \"value\": %d}}, "
                 "\"output\": [" BAD "]", r + 1);
        char name[16];
        snprintf(name, sizeof name, "rank%d", r);
        free(d_end(&w, step, name));
    }
    nan_step st;
    run(step, &st);
    expect_one(&st, 2, 0, "Torch.mul.0.forward");
    assert_int_equal(st.res.hits[0].layer, 1);
    nan_step_free(&st);
    free(step);
}

/* NaN made before an all_gather (its tensor_list a nested list) reaches
 * the other ranks through it; the maker and the receivers tie at (layer,
 * sub_layer), and the compute op is listed first. */
static void test_all_gather(void **state)
{
    char *step = fresh_dir("gather");
    for (int r = 0; r < 3; r++) {
        dump_w w;
        d_begin(&w);
        d_op(&w, "Distributed.all_reduce.0.forward", "%s", world_ar);
        if (r == 1)
            d_compute(&w, "Torch.div.0.forward", 1, 0);
        d_op(&w, "Distributed.all_gather.0.forward",
             "\"input_args\": [[" OK ", " OK ", " OK "], %s], \"input_kwargs\": {}, \"output\": [[%s, %s, %s], %s]",
             r == 1 ? BAD : OK, OK, BAD, OK, r == 1 ? BAD : OK);
        char name[16];
        snprintf(name, sizeof name, "rank%d", r);
        free(d_end(&w, step, name));
    }
    nan_step st;
    run(step, &st);
    expect_one(&st, 2, 1, "Torch.div.0.forward");
    nan_step_free(&st);
    free(step);
}

/* §A.7.4's reproduction: 8.1.0 drops rank 1's broadcast (outside the
 * round's first group) and reports nothing; every candidate is kept here. */
static void test_grouping_defect(void **state)
{
    char *step = fresh_dir("grouping");
    dump_w w;
    d_begin(&w);
    d_op(&w, "Distributed.all_reduce.0.forward", "\"input_args\": [" BAD "], \"input_kwargs\": {}, \"output\": [" BAD "]");
    free(d_end(&w, step, "rank0"));
    d_begin(&w);
    d_op(&w, "Distributed.broadcast.0.forward",
         "\"input_args\": [" OK "], \"input_kwargs\": {\"src\": {\"type\": \"int\", \"value\": 1}}, \"output\": [" BAD
         "]");
    d_op(&w, "Distributed.all_reduce.0.forward", "\"input_args\": [" BAD "], \"input_kwargs\": {}, \"output\": [" BAD "]");
    free(d_end(&w, step, "rank1"));
    nan_step st;
    run(step, &st);
    expect_one(&st, 2, 1, "Distributed.broadcast.0.forward");
    nan_step_free(&st);
    free(step);
}

/* A group names rank 2, which has no directory: a warning, and the search
 * goes on (8.1.0: KeyError). */
static void test_missing_rank(void **state)
{
    char *step = fresh_dir("missing");
    static const char *const grp =
        "\"group\": {\"type\": \"torch.ProcessGroup\", \"group_ranks\": [0, 1, 2], \"group_id\": \"g\"}";
    for (int r = 0; r < 2; r++) {
        dump_w w;
        d_begin(&w);
        d_op(&w, "Distributed.all_reduce.0.forward",
             "\"input_args\": [" OK "], \"input_kwargs\": {%s}, \"output\": [" OK "]", grp);
        if (r == 0)
            d_compute(&w, "Torch.mul.0.forward", 1, 0);
        d_compute(&w, "Torch.add.0.forward", r == 1, r == 1);
        d_op(&w, "Distributed.all_reduce.1.forward", "\"input_args\": [%s], \"input_kwargs\": {%s}, \"output\": [" BAD
             "]", r == 0 ? BAD : OK, grp);
        char name[16];
        snprintf(name, sizeof name, "rank%d", r);
        free(d_end(&w, step, name));
    }
    nan_step st;
    run(step, &st);
    expect_one(&st, 2, 0, "Torch.mul.0.forward");
    nan_step_free(&st);
    free(step);
}

/* NaN seen only inside a nested list: 8.1.0 looks at top-level items only,
 * does not see Torch.split make it, and reports rank 1's all_reduce, which
 * received it. */
static void test_nested_lists(void **state)
{
    char *step = fresh_dir("nested");
    for (int r = 0; r < 2; r++) {
        dump_w w;
        d_begin(&w);
        d_op(&w, "Distributed.all_reduce.0.forward", "%s", world_ar);
        if (r == 0) {
            d_op(&w, "Torch.split.0.forward", "\"input_args\": [" OK "], \"input_kwargs\": {}, \"output\": [[" OK ", " BAD
                 "]]");
            d_op(&w, "Torch.cat.0.forward", "\"input_args\": [[" OK ", " BAD "]], \"input_kwargs\": {}, \"output\": [" BAD
                 "]");
        }
        d_op(&w, "Distributed.all_reduce.1.forward", "\"input_args\": [%s], \"input_kwargs\": {}, \"output\": [" BAD "]",
             r == 0 ? BAD : OK);
        char name[16];
        snprintf(name, sizeof name, "rank%d", r);
        free(d_end(&w, step, name));
    }
    nan_step st;
    run(step, &st);
    expect_one(&st, 2, 0, "Torch.split.0.forward");
    nan_step_free(&st);
    free(step);
}

/* batch_isend_irecv pairs with the peers of its P2POps (8.1.0 finds no rank
 * in the nested list and takes everybody). */
static void test_batch_p2p(void **state)
{
    char *step = fresh_dir("batch");
    for (int r = 0; r < 4; r++) {
        dump_w w;
        d_begin(&w);
        d_op(&w, "Distributed.all_reduce.0.forward", "%s", world_ar);
        int peer = r ^ 1;
        if (r == 2)
            d_compute(&w, "Torch.exp.0.forward", 1, 0);
        const char *send = r == 2 ? BAD : OK, *recv_out = r == 3 ? BAD : OK;
        d_op(&w, "Distributed.batch_isend_irecv.0.forward",
             "\"input_args\": [[{\"class_type\": \"torch.distributed.P2POp\", \"op\": \"isend\", \"peer\": %d, "
             "\"tensor\": %s}, {\"class_type\": \"torch.distributed.P2POp\", \"op\": \"irecv\", \"peer\": %d, "
             "\"tensor\": " OK "}]], \"input_kwargs\": {}, \"output\": [[%s, %s]]",
             peer, send, peer, send, recv_out);
        char name[16];
        snprintf(name, sizeof name, "rank%d", r);
        free(d_end(&w, step, name));
    }
    nan_step st;
    run(step, &st);
    expect_one(&st, 2, 2, "Torch.exp.0.forward");
    /* rank 3's batch (clean input, NaN out) is a candidate too, behind */
    nan_step_free(&st);
    free(step);
}

/* Two tensor-parallel pairs, {0, 1} and {2, 3}: ranks 0 and 2 each make
 * NaN at the same place before their pair's all_reduce -- a tie at (layer,
 * sub_layer). msprobe 8.1.0 keeps the first candidate in directory order,
 * so its answer is rank 0 or rank 2 depending on the file system; ranks are
 * taken by number here, so it is rank 0 whatever the order. */
static void test_rank_order(void **state)
{
    char *step = fresh_dir("order");
    for (int r = 3; r >= 0; r--) {
        dump_w w;
        d_begin(&w);
        d_op(&w, "Distributed.all_reduce.0.forward", "%s", world_ar);
        if (r % 2 == 0)
            d_compute(&w, "Torch.mul.0.forward", 1, 0);
        else
            d_compute(&w, "Torch.mul.0.forward", 1, 1);
        d_op(&w, "Distributed.all_reduce.1.forward",
             "\"input_args\": [%s], \"input_kwargs\": {\"group\": {\"type\": \"torch.ProcessGroup\", "
             "\"group_ranks\": [%d, %d], \"group_id\": \"g\"}}, \"output\": [" BAD "]",
             r % 2 == 0 ? BAD : OK, r / 2 * 2, r / 2 * 2 + 1);
        char name[16];
        snprintf(name, sizeof name, "rank%d", r);
        free(d_end(&w, step, name));
    }
    nan_step st;
    run(step, &st);
    expect_one(&st, 2, 0, "Torch.mul.0.forward");
    /* the same ranks in another order (as os.listdir may give them): the
     * engine, like msprobe, takes the first candidate of that order */
    cg_rank order[4];
    static const int perm[4] = {2, 3, 0, 1};
    for (int i = 0; i < 4; i++)
        order[i] = (cg_rank){.rank = st.ranks[perm[i]].rank, .ops = st.ranks[perm[i]].ops,
                             .nops = st.ranks[perm[i]].nops};
    cg_params p = {.exact_api = 1, .unconnected_level = CG_INFO};
    cg_result res;
    cg_search(order, 4, &p, &res);
    assert_int_equal(res.nhits, 1);
    assert_int_equal(order[res.hits[0].rank].rank, 2);
    cg_result_free(&res);
    nan_step_free(&st);
    free(step);
}

/* ---- the report ------------------------------------------------------------- */

/* data_info is the entry as loaded (numbers as Python writes them back,
 * key order, a repeated key's last value at its first place, non-ASCII
 * escaped); construct_info root first with msprobe's cycle quirk;
 * stack_info from the de-duplicated stack.json. */
static void test_report_json(void **state)
{
    char *step = fresh_dir("report");
    dump_w w;
    d_begin(&w);
    d_op(&w, "Torch.op\\u00e9.0.forward",
         "\"input_args\": [{\"type\": \"torch.Tensor\", \"shape\": [12345678901234567890], \"Max\": 1e-05, "
         "\"Min\": -0.0, \"Mean\": 1.10, \"Norm\": 3, \"Max\": 2E+3}], \"output\": [{\"Max\": Infinity, \"Min\": "
         "\"NaN\"}], \"zzz\": 1");
    d_op(&w, "Distributed.all_reduce.0.forward", "%s", world_ar);
    char *rdir = d_end(&w, step, "rank0");
    free(tu_write(rdir, "construct.json",
                  "{\"Torch.op\\u00e9.0.forward\": \"Module.b.forward.0\", \"Module.b.forward.0\": [\"Module.a.forward.0\"],"
                  " \"Module.a.forward.0\": \"Torch.op\\u00e9.0.forward\"}",
                  (size_t)-1));
    free(tu_write(rdir, "stack.json",
                  "{\"0\": [[\"Torch.other.0.forward\"], [\"no\"]], \"1\": [[\"Torch.op\\u00e9.0.forward\"], "
                  "[\"File a.py, line 1, in f, \\n x()\"]], \"2\": [[\"Torch.op\\u00e9.0.forward\"], [\"second\"]]}",
                  (size_t)-1));
    nan_step st;
    run(step, &st);
    assert_int_equal(st.res.phase, 1);
    strbuf line = STRBUF_INIT;
    int found;
    char *out = report(&st, &plain, "report_out", &line, &found);
    char *path = result_in(out, ".json");
    char *text = slurp(path);
    static const char want[] =
        "{\n"
        "  \"rank_0\": [\n"
        "    {\n"
        "      \"op_name\": \"Torch.op\\u00e9.0.forward\",\n"
        "      \"data_info\": {\n"
        "        \"input_args\": [\n"
        "          {\n"
        "            \"type\": \"torch.Tensor\",\n"
        "            \"shape\": [\n"
        "              12345678901234567890\n"
        "            ],\n"
        "            \"Max\": 2000.0,\n"
        "            \"Min\": -0.0,\n"
        "            \"Mean\": 1.1,\n"
        "            \"Norm\": 3\n"
        "          }\n"
        "        ],\n"
        "        \"input_kwargs\": {},\n"
        "        \"output\": [\n"
        "          {\n"
        "            \"Max\": Infinity,\n"
        "            \"Min\": \"NaN\"\n"
        "          }\n"
        "        ]\n"
        "      },\n"
        "      \"construct_info\": [\n"
        "        \"Torch.op\\u00e9.0.forward\",\n"
        "        \"Module.a.forward.0\",\n"
        "        \"Module.b.forward.0\",\n"
        "        \"Torch.op\\u00e9.0.forward\"\n"
        "      ],\n"
        "      \"stack_info\": [\n"
        "        \"File a.py, line 1, in f, \\n x()\"\n"
        "      ]\n"
        "    }\n"
        "  ]\n"
        "}";
    assert_string_equal(text, want);
    assert_non_null(strstr(sb_str(&line), "first NaN/Inf: rank 0 Torch.op\xc3\xa9.0.forward (inputs finite, output "
                                          "nan, inf) in Module.b.forward.0 -> "));
    free(rdir);
    free(text);
    free(path);
    free(out);
    nan_step_free(&st);
    free(step);
    sb_free(&line);
}

/* A backward entry reports input and output; construct.json and stack.json
 * missing: said, and the report is written (8.1.0 refuses to start). A
 * stack.json of the old layout (name: stack) gives the op's stack. */
static void test_report_backward_and_missing(void **state)
{
    char *step = fresh_dir("backward");
    dump_w w;
    d_begin(&w);
    d_op(&w, "Functional.linear.0.backward", "\"input\": [" OK "], \"output\": [" BAD "]");
    char *rdir = d_end(&w, step, "rank0");
    char *c = tu_path(rdir, "construct.json"), *s = tu_path(rdir, "stack.json");
    unlink(c);
    unlink(s);
    nan_step st;
    run(step, &st);
    strbuf line = STRBUF_INIT;
    int found;
    char *out = report(&st, &plain, "backward_out", &line, &found);
    char *path = result_in(out, ".json");
    char *text = slurp(path);
    assert_non_null(strstr(text, "\"data_info\": {\n        \"input\": [\n"));
    assert_non_null(strstr(text, "\"construct_info\": [\n        \"Functional.linear.0.backward\"\n      ],\n"
                                 "      \"stack_info\": {}\n"));
    assert_null(strstr(text, "input_args"));
    free(text);
    free(path);
    free(out);
    nan_step_free(&st);

    free(tu_write(rdir, "stack.json", "{\"Functional.linear.0.backward\": [\"File b.py, line 2, in g, \\n y()\"]}",
                  (size_t)-1));
    free(tu_write(rdir, "construct.json", "{}", (size_t)-1));
    run(step, &st);
    sb_reset(&line);
    out = report(&st, &plain, "backward_out2", &line, &found);
    path = result_in(out, ".json");
    text = slurp(path);
    assert_non_null(strstr(text, "\"stack_info\": [\n        \"File b.py, line 2, in g, \\n y()\"\n      ]"));
    free(text);
    free(path);
    free(out);
    nan_step_free(&st);
    free(c);
    free(s);
    free(rdir);
    free(step);
    sb_free(&line);
}

/* --all and --format csv: every API with a scene, the first one marked. */
static void test_report_all(void **state)
{
    char *step = a13_step("all", ANOMALY);
    nan_opts o = {.all = 1, .table_format = TABLE_CSV, .jobs = 1};
    nan_step st;
    err_clear();
    assert_int_equal(nan_step_run(step, 0, &o, &st), 0);
    size_t n = 0;
    for (size_t r = 0; r < st.nranks; r++)
        n += st.ranks[r].napis;
    assert_true(n > 10);
    strbuf line = STRBUF_INIT;
    int found;
    char *out = report(&st, &o, "all_out", &line, &found);
    char *path = result_in(out, ".json"), *csv = result_in(out, ".csv");
    assert_non_null(csv);
    /* the same stamp */
    assert_int_equal(strncmp(path, csv, strlen(path) - 4), 0);
    char *text = slurp(path), *table = slurp(csv);
    assert_non_null(strstr(text, "\n  \"anomalies\": {\n    \"rank_0\": [\n      {\n        \"op_name\": "
                                 "\"Torch.operator.5.forward\",\n        \"scene_type\": \"InputNormalOutputAnomalyScene\","
                                 "\n        \"level\": \"critical\",\n        \"input_args_anomaly_indices\": [],\n"
                                 "        \"input_kwargs_anomaly_keys\": [],\n        \"output_anomaly_indices\": [\n"
                                 "          0\n        ]\n      },"));
    assert_true(strncmp(table, "rank,op_name,scene_type,level,input_args_anomaly_indices,input_kwargs_anomaly_keys,"
                               "output_anomaly_indices,first_nan_inf\n",
                        120) == 0);
    assert_non_null(strstr(table, "\n0,Torch.operator.5.forward,InputNormalOutputAnomalyScene,critical,[],[],[0],True\n"));
    assert_non_null(strstr(table, "\n0,Distributed.broadcast.0.forward,InputAnomalyOutputAnomalyScene,high,[0],[],[0],False\n"));
    char want[64];
    snprintf(want, sizeof want, "; %zu anomalous APIs on 4 ranks -> ", n);
    assert_non_null(strstr(sb_str(&line), want));
    free(text);
    free(table);
    free(path);
    free(csv);
    free(out);
    nan_step_free(&st);
    free(step);
    sb_free(&line);
}

int main(void)
{
    log_set_quiet(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a13),
        cmocka_unit_test(test_send_recv_chain),
        cmocka_unit_test(test_all_gather),
        cmocka_unit_test(test_grouping_defect),
        cmocka_unit_test(test_missing_rank),
        cmocka_unit_test(test_nested_lists),
        cmocka_unit_test(test_batch_p2p),
        cmocka_unit_test(test_rank_order),
        cmocka_unit_test(test_report_json),
        cmocka_unit_test(test_report_backward_and_missing),
        cmocka_unit_test(test_report_all),
    };
    return cmocka_run_group_tests(tests, tu_dir_setup, tu_dir_teardown);
}
