/* compare -da: the per-rank first-diff result (compare/pipeline/first_diff.c,
 * spec/analyzers.md §C.2) and the analysis over the ranks
 * (compare/first_diff/diff_analyze.c, §C.3) with its fixed defects.
 *
 * Analyzer scenarios are compare results written here the way the compare
 * writes them (src/dst cells are the texts "0", "1"); where a fixed defect
 * changes the answer, the comment says what msprobe 8.3 would report. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "compare/pipeline/first_diff.h"
#include "compare/first_diff/diff_analyze.h"
#include "base/files.h"
#include "format/json.h"
#include "format/jsonw.h"
#include "base/strbuf.h"
#include "testutil.h"
#include "a13.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    strbuf sb = STRBUF_INIT;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_add(&sb, buf, n);
    fclose(f);
    return sb_detach(&sb);
}

/* ---- compare results written by hand ----------------------------------- */

/* One row of op_items: NPU Name = op + "." + suffix, the four statistics
 * all `value` (JSON text). */
static void row(strbuf *sb, const char *op, const char *suffix, const char *state, const char *value, const char *peer)
{
    if (sb->len && sb->buf[sb->len - 1] == '}')
        sb_adds(sb, ", ");
    sb_addf(sb,
            "{\"NPU Name\": \"%s.%s\", \"NPU max\": %s, \"NPU min\": %s, \"NPU mean\": %s, \"NPU l2norm\": %s, "
            "\"NPU_Stack_Info\": \"N/A\", \"state\": \"%s\", \"NPU P2POp peer\": %s}",
            op, suffix, value, value, value, value, state, peer ? peer : "\"None\"");
}

typedef struct {
    strbuf text;
    int ops;
} result_file;

/* Starts op `name` (is_same as given); its rows follow with row(). */
static void op_begin(result_file *r, const char *name, int same)
{
    sb_adds(&r->text, r->ops++ ? "]}, " : "{");
    sb_addf(&r->text, "\"%s\": {\"is_same\": %s, \"op_items\": [", name, same ? "true" : "false");
}

static char *op_end(result_file *r, const char *file)
{
    sb_adds(&r->text, r->ops ? "]}}" : "{}");
    char *p = tu_write(tu_dir, file, sb_str(&r->text), (size_t)-1);
    sb_free(&r->text);
    r->ops = 0;
    return p;
}

/* A compute op with one input and one output row. */
static void compute(result_file *r, const char *name, int same)
{
    op_begin(r, name, same);
    row(&r->text, name, "input.0", "input", "1.0", NULL);
    row(&r->text, name, "output.0", "output", same ? "2.0" : "20.0", NULL);
}

/* A comm op with a tensor input, an argument row (suffix, value: "input.dst",
 * "\"1\"") and, when given, a group row; output tensor. */
static void comm(result_file *r, const char *name, int same, const char *arg, const char *value, const char *group)
{
    op_begin(r, name, same);
    row(&r->text, name, "input.0", "input", "1.0", NULL);
    if (arg)
        row(&r->text, name, arg, "input", value, NULL);
    if (group)
        row(&r->text, name, "input.group", "input", group, NULL);
    row(&r->text, name, "output.0", "output", same ? "1.0" : "9.0", NULL);
}

typedef struct {
    da_input in[4];
    size_t n;
    char *paths[4];
} inputs;

static void add_input(inputs *in, long rank, char *path)
{
    in->paths[in->n] = path;
    in->in[in->n++] = (da_input){.rank = rank, .path = path};
}

static void free_inputs(inputs *in)
{
    for (size_t i = 0; i < in->n; i++)
        free(in->paths[i]);
    in->n = 0;
}

/* Runs the analysis; returns the result file's text (NULL: none written)
 * and the summary line in *line. */
static char *analyze(inputs *in, strbuf *line)
{
    char *path = NULL;
    sb_reset(line);
    err_clear();
    assert_int_equal(diff_analyze(in->in, in->n, tu_dir, &path, line), 0);
    free_inputs(in);
    if (!path)
        return NULL;
    char *text = slurp(path);
    unlink(path);
    free(path);
    return text;
}

/* §C.4 test_analyzer: a diff before the first comm op is reported by the
 * pre-analysis; rank 1 starts with its comm op. */
static void test_pre_analysis(void **state)
{
    result_file r = {STRBUF_INIT, 0};
    inputs in = {0};
    compute(&r, "Torch.add.1.forward", 0);
    comm(&r, "Distributed.all_reduce.2.forward", 1, NULL, NULL, NULL);
    add_input(&in, 0, op_end(&r, "compare_result_rank0_1.json"));
    comm(&r, "Distributed.all_reduce.2.forward", 1, NULL, NULL, NULL);
    compute(&r, "Torch.add.1.forward", 0);
    add_input(&in, 1, op_end(&r, "compare_result_rank1_1.json"));
    strbuf line = STRBUF_INIT;
    char *out = analyze(&in, &line);
    assert_non_null(out);
    assert_non_null(strstr(out, "\"rank_0\": [\n    {\n      \"op_name\": \"Torch.add.1.forward\""));
    assert_null(strstr(out, "rank_1"));
    assert_non_null(strstr(sb_str(&line), "first diff: rank 0 op Torch.add.1.forward -> "));
    free(out);
    sb_free(&line);
}

/* §A.13 written as compare results: sends and recvs name their peer by
 * kwargs (cells "1"), broadcast and gather take the root positionally (so
 * find_first sees them as links) and a group "[0, 1, 2, 3]". */
static void test_a13_as_compare_results(void **state)
{
    inputs in = {0};
    for (int rank = 0; rank < 4; rank++) {
        result_file r = {STRBUF_INIT, 0};
        int counter[8] = {0}, start = 999;
        static const char *const kinds[] = {"compute", "send", "recv", "broadcast", "all_gather", "gather"};
        for (int i = 0; i < 14; i++) {
            const spec *sp = &a13_order[rank][i];
            health h = a13_health(ANOMALY, rank, i, &start);
            int k = 0;
            while (strcmp(kinds[k], sp->name ? sp->name : "compute"))
                k++;
            char name[64], value[16];
            if (!sp->name) {
                snprintf(name, sizeof name, "Torch.operator.%d.forward", counter[k]++);
                compute(&r, name, h.normal);
                continue;
            }
            snprintf(name, sizeof name, "Distributed.%s.%d.forward", sp->name, counter[k]++);
            const char *group = sp->group ? "\"[0, 1, 2, 3]\"" : NULL;
            if (!strcmp(sp->kind, "p2p_src"))
                snprintf(value, sizeof value, "\"%ld\"", sp->dst);
            else if (!strcmp(sp->kind, "p2p_dst"))
                snprintf(value, sizeof value, "\"%ld\"", sp->src);
            else
                snprintf(value, sizeof value, "%ld", !strcmp(sp->kind, "p2g_src") ? sp->src : sp->dst);
            const char *arg = !strcmp(sp->kind, "p2p_src") ? "input.dst"
                            : !strcmp(sp->kind, "p2p_dst") ? "input.src"
                            : !strcmp(sp->kind, "link")    ? NULL
                                                           : "input.1";
            comm(&r, name, h.out_ok, arg, value, group);
        }
        char file[64];
        snprintf(file, sizeof file, "compare_result_rank%d_1.json", rank);
        add_input(&in, rank, op_end(&r, file));
    }
    strbuf line = STRBUF_INIT;
    char *out = analyze(&in, &line);
    assert_non_null(out);
    /* c5 (layer 2, sub_layer 0) before rank 0's broadcast; the receiving
     * broadcasts end at layers 4 and 5 */
    assert_non_null(strstr(sb_str(&line), "first diff: rank 0 op Torch.operator.5.forward -> "));
    assert_null(strstr(out, "rank_1"));
    free(out);
    sb_free(&line);
}

/* The layout of the analysis: ranks in order, every candidate of the
 * minimum; data_info from the rows, stack from the first row with one.
 *
 * Rank 0 sends to rank 2 (no result: skipped), computes a diff, sends to
 * rank 1; rank 1's recv names its source "0". Connected, the recv takes the
 * layer of rank 0's send and ties with the compute op. msprobe 8.3 drops
 * rank 0 as a partner ("0" is falsy), leaves the recv unconnected at layer 0
 * and reports it alone (and crashes on rank 2 first). */
static void test_rank0_partner_and_layout(void **state)
{
    result_file r = {STRBUF_INIT, 0};
    inputs in = {0};
    comm(&r, "Distributed.send.0.forward", 1, "input.dst", "\"2\"", NULL);
    op_begin(&r, "Torch.mul.0.forward", 0);
    sb_adds(&r.text, "{\"NPU Name\": \"Torch.mul.0.forward.input.0\", \"NPU max\": 1.5, \"NPU min\": -1, "
                     "\"NPU mean\": NaN, \"NPU l2norm\": \"None\", \"NPU_Stack_Info\": [\"File a.py, line 3, in f, "
                     "\\n y = x * w\"], \"state\": \"input\", \"NPU P2POp peer\": \"None\"}, "
                     "{\"NPU Name\": \"Torch.mul.0.forward.output.0\", \"NPU MD5\": \"0a1b\", \"state\": \"output\"}");
    comm(&r, "Distributed.send.1.forward", 1, "input.dst", "\"1\"", NULL);
    add_input(&in, 0, op_end(&r, "compare_result_rank0_1.json"));
    comm(&r, "Distributed.recv.0.forward", 0, "input.src", "\"0\"", NULL);
    add_input(&in, 1, op_end(&r, "compare_result_rank1_1.json"));
    strbuf line = STRBUF_INIT;
    char *out = analyze(&in, &line);
    assert_non_null(out);
    assert_string_equal(out, "{\n"
                             "  \"rank_0\": [\n"
                             "    {\n"
                             "      \"op_name\": \"Torch.mul.0.forward\",\n"
                             "      \"data_info\": {\n"
                             "        \"input\": {\n"
                             "          \"Torch.mul.0.forward.input.0\": {\n"
                             "            \"NPU max\": 1.5,\n"
                             "            \"NPU min\": -1,\n"
                             "            \"NPU mean\": NaN,\n"
                             "            \"NPU l2norm\": \"None\",\n"
                             "            \"NPU P2POp peer\": \"None\"\n"
                             "          }\n"
                             "        },\n"
                             "        \"output\": {\n"
                             "          \"Torch.mul.0.forward.output.0\": {\n"
                             "            \"NPU MD5\": \"0a1b\"\n"
                             "          }\n"
                             "        }\n"
                             "      },\n"
                             "      \"stack_info\": [\n"
                             "        \"File a.py, line 3, in f, \\n y = x * w\"\n"
                             "      ]\n"
                             "    }\n"
                             "  ],\n"
                             "  \"rank_1\": [\n"
                             "    {\n"
                             "      \"op_name\": \"Distributed.recv.0.forward\",\n"
                             "      \"data_info\": {\n"
                             "        \"input\": {\n"
                             "          \"Distributed.recv.0.forward.input.0\": {\n"
                             "            \"NPU max\": 1.0,\n"
                             "            \"NPU min\": 1.0,\n"
                             "            \"NPU mean\": 1.0,\n"
                             "            \"NPU l2norm\": 1.0,\n"
                             "            \"NPU P2POp peer\": \"None\"\n"
                             "          },\n"
                             "          \"Distributed.recv.0.forward.input.src\": {\n"
                             "            \"NPU max\": \"0\",\n"
                             "            \"NPU min\": \"0\",\n"
                             "            \"NPU mean\": \"0\",\n"
                             "            \"NPU l2norm\": \"0\",\n"
                             "            \"NPU P2POp peer\": \"None\"\n"
                             "          }\n"
                             "        },\n"
                             "        \"output\": {\n"
                             "          \"Distributed.recv.0.forward.output.0\": {\n"
                             "            \"NPU max\": 9.0,\n"
                             "            \"NPU min\": 9.0,\n"
                             "            \"NPU mean\": 9.0,\n"
                             "            \"NPU l2norm\": 9.0,\n"
                             "            \"NPU P2POp peer\": \"None\"\n"
                             "          }\n"
                             "        }\n"
                             "      },\n"
                             "      \"stack_info\": null\n"
                             "    }\n"
                             "  ]\n"
                             "}");
    assert_non_null(
        strstr(sb_str(&line), "first diff: rank 0 op Torch.mul.0.forward, rank 1 op Distributed.recv.0.forward -> "));
    free(out);
    sb_free(&line);
}

/* Same shape with a broadcast from root 0 (kwargs src, cells "0"): rank 0
 * is the sender, rank 1 receives, and they connect. msprobe 8.3 compares
 * the text "0" with the int 0, calls both receivers, connects nothing and
 * reports rank 1's broadcast alone. */
static void test_root_type(void **state)
{
    result_file r = {STRBUF_INIT, 0};
    inputs in = {0};
    comm(&r, "Distributed.send.0.forward", 1, "input.dst", "\"2\"", NULL);
    compute(&r, "Torch.mul.0.forward", 0);
    comm(&r, "Distributed.broadcast.0.forward", 0, "input.src", "\"0\"", "\"[0, 1]\"");
    add_input(&in, 0, op_end(&r, "compare_result_rank0_1.json"));
    comm(&r, "Distributed.broadcast.0.forward", 0, "input.src", "\"0\"", "\"[0, 1]\"");
    add_input(&in, 1, op_end(&r, "compare_result_rank1_1.json"));
    strbuf line = STRBUF_INIT;
    char *out = analyze(&in, &line);
    assert_non_null(out);
    assert_non_null(strstr(sb_str(&line),
                           "first diff: rank 0 op Torch.mul.0.forward, rank 1 op Distributed.broadcast.0.forward"));
    free(out);
    sb_free(&line);
}

/* MindSpore's communication ops connect within their own family
 * (MintDistributed.*, communication.comm_func.*); 8.3 looked for
 * "Distributed.recv" and connected none of them. */
static void test_mindspore_families(void **state)
{
    static const char *const fam[] = {"MintDistributed", "communication.comm_func"};
    for (int f = 0; f < 2; f++) {
        result_file r = {STRBUF_INIT, 0};
        inputs in = {0};
        char a[96], b[96], c[96];
        snprintf(a, sizeof a, "%s.send.0.forward", fam[f]);
        snprintf(b, sizeof b, "%s.send.1.forward", fam[f]);
        snprintf(c, sizeof c, "%s.recv.0.forward", fam[f]);
        comm(&r, a, 1, "input.dst", "\"2\"", NULL);
        compute(&r, "Mint.mul.0.forward", 0);
        comm(&r, b, 1, "input.dst", "\"1\"", NULL);
        add_input(&in, 0, op_end(&r, "compare_result_rank0_1.json"));
        comm(&r, c, 0, "input.src", "\"0\"", NULL);
        add_input(&in, 1, op_end(&r, "compare_result_rank1_1.json"));
        strbuf line = STRBUF_INIT;
        char *out = analyze(&in, &line);
        assert_non_null(out);
        char want[256];
        snprintf(want, sizeof want, "first diff: rank 0 op Mint.mul.0.forward, rank 1 op %s -> ", c);
        assert_non_null(strstr(sb_str(&line), want));
        free(out);
        sb_free(&line);
    }
}

/* P2POp peers connect batch_isend_irecv; a peer that is no rank (None,
 * a text) is ignored where 8.3 crashed on it. After the last comm op the
 * first diff of each rank is reported (phase 3). */
static void test_p2pop_and_after(void **state)
{
    result_file r = {STRBUF_INIT, 0};
    inputs in = {0};
    op_begin(&r, "Distributed.batch_isend_irecv.0.forward", 1);
    row(&r.text, "Distributed.batch_isend_irecv.0.forward", "input.0.0", "input", "1.0", "1");
    row(&r.text, "Distributed.batch_isend_irecv.0.forward", "input.0.1", "input", "1.0", "null");
    row(&r.text, "Distributed.batch_isend_irecv.0.forward", "input.0.2", "input", "1.0", "\"x\"");
    compute(&r, "Torch.add.0.forward", 0);
    add_input(&in, 0, op_end(&r, "compare_result_rank0_1.json"));
    op_begin(&r, "Distributed.batch_isend_irecv.0.forward", 1);
    row(&r.text, "Distributed.batch_isend_irecv.0.forward", "input.0.0", "input", "1.0", "0");
    compute(&r, "Torch.add.0.forward", 1);
    compute(&r, "Torch.sub.0.forward", 0);
    add_input(&in, 1, op_end(&r, "compare_result_rank1_1.json"));
    strbuf line = STRBUF_INIT;
    char *out = analyze(&in, &line);
    assert_non_null(out);
    assert_non_null(strstr(sb_str(&line), "first diff: rank 0 op Torch.add.0.forward, rank 1 op Torch.sub.0.forward"));
    free(out);
    sb_free(&line);
}

static void test_nothing_found(void **state)
{
    result_file r = {STRBUF_INIT, 0};
    inputs in = {0};
    compute(&r, "Torch.add.0.forward", 1);
    comm(&r, "Distributed.all_reduce.0.forward", 1, NULL, NULL, NULL);
    add_input(&in, 0, op_end(&r, "compare_result_rank0_1.json"));
    add_input(&in, 1, op_end(&r, "compare_result_rank1_1.json"));   /* {}: no data */
    strbuf line = STRBUF_INIT;
    assert_null(analyze(&in, &line));
    assert_string_equal(sb_str(&line), "no diff node found");
    /* nothing but the inputs was written */
    DIR *d = opendir(tu_dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        assert_null(strstr(e->d_name, "diff_analyze_"));
    closedir(d);
    sb_free(&line);
}

static void expect_error(const char *json, const char *message)
{
    inputs in = {0};
    add_input(&in, 0, tu_write(tu_dir, "compare_result_rank0_1.json", json, (size_t)-1));
    char *path = NULL;
    strbuf line = STRBUF_INIT;
    err_clear();
    assert_int_equal(diff_analyze(in.in, in.n, tu_dir, &path, &line), -1);
    assert_null(path);
    assert_non_null(strstr(err_message(), message));
    free_inputs(&in);
    sb_free(&line);
}

static void test_bad_results(void **state)
{
    expect_error("[1]", "is not a JSON object of API results");
    expect_error("{\"Torch.add.0.forward\": 3}", "entry Torch.add.0.forward is not an object");
    expect_error("{\"Torch.add.0.forward\": {\"op_items\": {}}}", "op_items of Torch.add.0.forward is not a list");
    expect_error("{\"Torch.add.0.forward\": {\"op_items\": [1]}}", "holds a row that is not an object");
    expect_error("{\"Distributed.send.0\": {\"is_same\": true, \"op_items\": []}}", "invalid op_name: Distributed.send.0");
    expect_error("{\"a\": ", "truncated");
}

/* ---- the per-rank result -------------------------------------------------- */

#define T(dtype, mx, extra) \
    "{\"type\": \"torch.Tensor\", \"dtype\": \"" dtype "\", \"shape\": [2], \"Max\": " mx ", \"Min\": 0.0, \"Mean\": " \
    "0.5, \"Norm\": 1.0" extra "}"

/* Runs a -da compare of two dump.json `data` bodies; returns the JSON. */
static char *first_diff(const char *npu, const char *bench, const char *task)
{
    char *paths[2];
    const char *bodies[2] = {npu, bench};
    for (int i = 0; i < 2; i++) {
        strbuf sb = STRBUF_INIT;
        sb_addf(&sb, "{\"task\": \"%s\", \"level\": \"L1\", \"framework\": \"pytorch\", \"data\": {%s}}", task,
                bodies[i]);
        paths[i] = tu_write(tu_dir, i ? "bench.json" : "npu.json", sb_str(&sb), (size_t)-1);
        sb_free(&sb);
    }
    compare_opts o = {.first_diff = 1, .stamp = "20250101000000", .threads = 1, .out_dir = tu_dir};
    compare_job job = {.npu_json = paths[0], .bench_json = paths[1], .out_dir = tu_dir, .suffix = "_rank3",
                       .label = "rank3"};
    compare_result res;
    err_clear();
    assert_int_equal(compare_run_job(&job, &o, &res), 0);
    assert_non_null(res.result_path);
    assert_non_null(strstr(res.result_path, "/compare_result_rank3_20250101000000.json"));
    char *text = slurp(res.result_path);
    unlink(res.result_path);
    compare_result_free(&res);
    free(paths[0]);
    free(paths[1]);
    return text;
}

static int api_same(const char *text, const char *api)
{
    char key[256];
    snprintf(key, sizeof key, "    \"%s\": {\n        \"is_same\": ", api);
    const char *p = strstr(text, key);
    assert_non_null(p);
    return !strncmp(p + strlen(key), "true", 4);
}

/* is_same: only outputs count, a relative error above 50 %; outputs 4 and
 * 5 of npu_fusion_attention are not looked at; APIs of fewer than four
 * name fields are left out; md5 mode uses Result. */
static void test_is_same(void **state)
{
    const char *npu = "\"Functional.a.0.forward\": {\"input_args\": [" T("torch.float32", "9.0", "") "], "
                      "\"output\": [" T("torch.float32", "1.4", "") "]}, "
                      "\"Functional.b.0.forward\": {\"output\": [" T("torch.float32", "1.6", "") "]}, "
                      "\"NPU.npu_fusion_attention.0.forward\": {\"output\": [" T("torch.float32", "1.0", "") ", "
                      T("torch.float32", "1.0", "") ", " T("torch.float32", "1.0", "") ", " T("torch.float32", "1.0", "")
                      ", " T("torch.float32", "5.0", "") ", " T("torch.float32", "5.0", "") "]}, "
                      "\"Tensor.add.forward\": {\"output\": [" T("torch.float32", "5.0", "") "]}";
    const char *bench = "\"Functional.a.0.forward\": {\"input_args\": [" T("torch.float32", "1.0", "") "], "
                        "\"output\": [" T("torch.float32", "1.0", "") "]}, "
                        "\"Functional.b.0.forward\": {\"output\": [" T("torch.float32", "1.0", "") "]}, "
                        "\"NPU.npu_fusion_attention.0.forward\": {\"output\": [" T("torch.float32", "1.0", "") ", "
                        T("torch.float32", "1.0", "") ", " T("torch.float32", "1.0", "") ", "
                        T("torch.float32", "1.0", "") ", " T("torch.float32", "1.0", "") ", "
                        T("torch.float32", "1.0", "") "]}, "
                        "\"Tensor.add.forward\": {\"output\": [" T("torch.float32", "1.0", "") "]}";
    char *text = first_diff(npu, bench, "statistics");
    assert_true(api_same(text, "Functional.a.0.forward"));    /* input 800 %, output 40 % */
    assert_false(api_same(text, "Functional.b.0.forward"));   /* output 60 % */
    assert_true(api_same(text, "NPU.npu_fusion_attention.0.forward"));
    assert_null(strstr(text, "\"Tensor.add.forward\": {"));
    assert_non_null(strstr(text, "\"MaxRelativeErr\": \"60.00000000000001%\""));
    free(text);

    const char *md5n = "\"Functional.a.0.forward\": {\"output\": [{\"type\": \"torch.Tensor\", \"dtype\": "
                       "\"torch.float32\", \"shape\": [2], \"md5\": \"aaaa\"}]}";
    const char *md5b = "\"Functional.a.0.forward\": {\"output\": [{\"type\": \"torch.Tensor\", \"dtype\": "
                       "\"torch.float32\", \"shape\": [2], \"md5\": \"bbbb\"}]}";
    text = first_diff(md5n, md5b, "statistics");
    assert_false(api_same(text, "Functional.a.0.forward"));
    assert_non_null(strstr(text, "\"NPU MD5\": \"aaaa\",\n                \"BENCH MD5\": \"bbbb\",\n"
                                 "                \"Requires_grad Consistent\": true,\n"
                                 "                \"Result\": \"Different\",\n"
                                 "                \"state\": \"output\""));
    free(text);
}

/* The rows of msprobe 8.3: requires_grad columns, src/dst and group cells
 * as text, the P2POp of batch_isend_irecv as one row with op and peer,
 * missing statistics as "None", a bool tensor statistic as text. */
static void test_rows(void **state)
{
#define P2P(rg)                                                                                                      \
    "{\"class_type\": \"torch.distributed.P2POp\", \"op\": \"isend\", \"peer\": 1, \"tag\": 0, \"tensor\": " \
    T("torch.float32", "1.0", ", \"requires_grad\": " rg) "}"
#define DATA(rg)                                                                                                     \
    "\"Distributed.send.0.forward\": {\"input_args\": [" T("torch.float32", "1.0", ", \"requires_grad\": " rg) "], " \
    "\"input_kwargs\": {\"dst\": {\"type\": \"int\", \"value\": 1}, \"group\": {\"type\": "                         \
    "\"torch.ProcessGroup\", \"group_ranks\": [0, 1]}}, \"output\": [null]}, "                                        \
    "\"Distributed.batch_isend_irecv.0.forward\": {\"input_args\": [[" P2P("false") "]]}, "                            \
    "\"Torch.ones.0.forward\": {\"output\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.bool\", "              \
    "\"shape\": [2], \"Max\": true}]}"
    char *text = first_diff(DATA("true"), DATA("false"), "tensor");
#undef DATA
#undef P2P
    static const char *const want[] = {
        /* requires_grad differs: said in Err_message, with msprobe's trailing spaces */
        "\"NPU Name\": \"Distributed.send.0.forward.input.0\",",
        "\"NPU Requires_grad\": \"True\",\n                \"Bench Requires_grad\": \"False\",",
        "\"Requires_grad Consistent\": false,\n                \"Result\": \"\",\n"
        "                \"Err_message\": \"Requires_grad inconsistent. \",",
        /* the rank argument: its type, and str(value) */
        "\"NPU Name\": \"Distributed.send.0.forward.input.dst\",\n"
        "                \"Bench Name\": \"Distributed.send.0.forward.input.dst\",\n"
        "                \"NPU Dtype\": \"int\",",
        "\"Max diff\": \"N/A\",",
        "\"NPU max\": \"1\",",
        "\"NPU max\": \"[0, 1]\",",
        /* a null output: every field None */
        "\"NPU Name\": \"Distributed.send.0.forward.output.0\",\n"
        "                \"Bench Name\": \"Distributed.send.0.forward.output.0\",\n"
        "                \"NPU Dtype\": \"None\",",
        "\"NPU max\": \"None\",",
        /* the P2POp: named by its place, op and peer columns */
        "\"NPU Name\": \"Distributed.batch_isend_irecv.0.forward.input.0.0\",",
        "\"NPU P2POp op\": \"isend\",\n                \"Bench P2POp op\": \"isend\",\n"
        "                \"NPU P2POp peer\": 1,\n                \"Bench P2POp peer\": 1\n",
        /* a bool statistic of a tensor, a missing one */
        "\"NPU max\": \"True\",\n                \"NPU min\": \"None\",",
        /* other rows' P2POp columns */
        "\"NPU P2POp op\": \"None\",",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (!strstr(text, want[i]))
            fail_msg("missing: %s", want[i]);
    assert_null(strstr(text, "forward.input.0.0.tensor"));
    free(text);
}

/* json.dump's default ensure_ascii and indent layout, which both -da
 * files follow. */
static void test_jsonw_python_layout(void **state)
{
    strbuf sb = STRBUF_INIT;
    /* é, an emoji (surrogate pair), DEL, a lone surrogate as our reader
     * stores it, a byte that is no UTF-8 */
    static const char s[] = "a\xc3\xa9\xf0\x9f\x98\x80\x7f\xed\xa0\x80\xff\"\\\t";
    jsonw_str_ascii(&sb, s, sizeof s - 1);
    assert_string_equal(sb_str(&sb), "\"a\\u00e9\\ud83d\\ude00\\u007f\\ud800\\u00ff\\\"\\\\\\t\"");
    static const char doc[] = "{\"k\": [1, -0, 1e5, NaN, -Infinity, \"\\u00e9\", {}, [], {\"a\": null, \"a\": true}], "
                              "\"e\": {}}";
    arena a;
    arena_init(&a, 4096);
    jval v;
    assert_int_equal(json_parse("doc", doc, sizeof doc - 1, &a, &v), 0);
    sb_reset(&sb);
    jsonw_value(&sb, &v, 2, 0);
    assert_string_equal(sb_str(&sb), "{\n  \"k\": [\n    1,\n    0,\n    100000.0,\n    NaN,\n    -Infinity,\n"
                                     "    \"\\u00e9\",\n    {},\n    [],\n    {\n      \"a\": true\n    }\n  ],\n"
                                     "  \"e\": {}\n}");
    arena_free(&a);
    sb_free(&sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pre_analysis, tu_dir_setup, tu_dir_teardown),
        cmocka_unit_test_setup_teardown(test_a13_as_compare_results, tu_dir_setup, tu_dir_teardown),
        cmocka_unit_test_setup_teardown(test_rank0_partner_and_layout, tu_dir_setup, tu_dir_teardown),
        cmocka_unit_test_setup_teardown(test_root_type, tu_dir_setup, tu_dir_teardown),
        cmocka_unit_test_setup_teardown(test_mindspore_families, tu_dir_setup, tu_dir_teardown),
        cmocka_unit_test_setup_teardown(test_p2pop_and_after, tu_dir_setup, tu_dir_teardown),
        cmocka_unit_test_setup_teardown(test_nothing_found, tu_dir_setup, tu_dir_teardown),
        cmocka_unit_test_setup_teardown(test_bad_results, tu_dir_setup, tu_dir_teardown),
        cmocka_unit_test_setup_teardown(test_is_same, tu_dir_setup, tu_dir_teardown),
        cmocka_unit_test_setup_teardown(test_rows, tu_dir_setup, tu_dir_teardown),
        cmocka_unit_test(test_jsonw_python_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
