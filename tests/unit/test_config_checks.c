/* Unit tests of config_check's checkers (spec/configcheck.md §A.6) on packs
 * built here: the spec's golden vectors (env in both device types, pip,
 * hyper-parameters, the seven stack-match cases of msprobe's tests), the
 * dataset and weights rules (signed relative differences, empty for a zero
 * bench value, added / deleted keys, only-bench / only-cmp rows, sorted
 * names), and the pack reader's refusals. */
#include "config_check/pack.h"
#include "config_check/random.h"
#include "base/err.h"
#include "base/files.h"
#include "base/mem.h"
#include "format/zip_write.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

static char dir[] = "/tmp/msprobe-cc-XXXXXX";
static int npacks;

/* A pack of (name, content) pairs, NULL-terminated; its path (static). */
static const char *make_pack(const char *const *entries)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/p%d.zip", dir, npacks++);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    zip_writer w;
    zip_writer_init(&w, zip_sink_stdio, f);
    for (size_t i = 0; entries[i]; i += 2)
        assert_int_equal(zip_writer_add(&w, entries[i], entries[i + 1], strlen(entries[i + 1]), 8), 0);
    assert_int_equal(zip_writer_finish(&w), 0);
    fclose(f);
    return path;
}

typedef int (*checker)(cc_ctx *, cc_sheet *);

typedef struct {
    pack b, c;
    arena a;
    cc_ctx ctx;
    cc_sheet s;
    char *bp, *cp;
} run;

static int run_check(run *r, checker fn, const char *const *bench, const char *const *cmp, int fw)
{
    memset(r, 0, sizeof *r);
    r->bp = xstrdup(make_pack(bench));
    r->cp = xstrdup(make_pack(cmp));
    assert_int_equal(pack_open(&r->b, r->bp), 0);
    assert_int_equal(pack_open(&r->c, r->cp), 0);
    arena_init(&r->a, 4096);
    r->ctx = (cc_ctx){&r->b, &r->c, &r->a, fw};
    return fn(&r->ctx, &r->s);
}

static void run_done(run *r)
{
    sheet_free(&r->s);
    assert_int_equal(pack_close(&r->c), 0);
    assert_int_equal(pack_close(&r->b), 0);
    arena_free(&r->a);
    free(r->bp);
    free(r->cp);
}

/* A cell as text for comparisons: "b:1", "n:0", "s:text", "-" (empty). */
static void cell_text(const cell *c, char *out, size_t cap)
{
    if (c->kind == CELL_BOOL)
        snprintf(out, cap, "b:%d", (int)c->num);
    else if (c->kind == CELL_NUM)
        snprintf(out, cap, "n:%.17g", c->num);
    else if (c->kind == CELL_STR && c->len)
        snprintf(out, cap, "s:%.*s", (int)c->len, c->str);
    else
        snprintf(out, cap, "-");
}

/* Row r of the sheet as "cell|cell|...". */
static void row_is(const cc_sheet *s, size_t r, const char *want)
{
    char got[1024] = "", t[256];
    assert_true(r < s->nrows);
    for (int c = 0; c < s->ncols; c++) {
        cell_text(&s->cells[r * (size_t)s->ncols + (size_t)c], t, sizeof t);
        strcat(got, c ? "|" : "");
        strcat(got, t);
    }
    if (strcmp(got, want))
        fail_msg("row %zu of %s:\n got  %s\n want %s", r, s->name, got, want);
}

static void env_golden_mixed(void **state)
{
    (void)state;
    run r;
    const char *b[] = {"env", "{\"NCCL_DETERMINISTIC\": true}", NULL};
    const char *c[] = {"env", "{\"HCCL_DETERMINISTIC\": false, \"ASCEND_LAUNCH_BLOCKING\": 1}", NULL};
    assert_int_equal(run_check(&r, check_env, b, c, 'p'), 1);
    /* msprobe's rows with its bench and cmp columns put back in place */
    assert_int_equal(r.s.nrows, 4);
    row_is(&r.s, 0, "s:NCCL_DETERMINISTIC|s:HCCL_DETERMINISTIC|b:1|b:0|s:error");
    row_is(&r.s, 1, "s:only cmp has this env|s:HCCL_INTRA_ROCE_ENABLE|-|n:0|s:warning");
    row_is(&r.s, 2, "s:only cmp has this env|s:HCCL_INTRA_ROCE_ENABLE|-|n:1|s:warning");
    row_is(&r.s, 3, "s:CUDA_LAUNCH_BLOCKING|s:ASCEND_LAUNCH_BLOCKING|n:0|n:1|s:error");
    assert_false(r.s.pass);
    run_done(&r);
}

static void env_golden_npu(void **state)
{
    (void)state;
    run r;
    const char *b[] = {"env", "{\"ASCEND_HOME_PATH\": \"/usr/local/Ascend\", \"HCCL_DETERMINISTIC\": \"true\", "
                              "\"ASCEND_LAUNCH_BLOCKING\": \"0\", \"PATH\": \"/usr/bin\"}", NULL};
    const char *c[] = {"env", "{\"ASCEND_HOME_PATH\": \"/usr/local/Ascend\", \"HCCL_DETERMINISTIC\": \"true\", "
                              "\"HCCL_INTRA_ROCE_ENABLE\": \"1\", \"PATH\": \"/bin\"}", NULL};
    assert_int_equal(run_check(&r, check_env, b, c, 'p'), 1);
    /* msprobe 8.1.0 reports three: "1" vs its default 1 and "0" vs 0 differ
     * there by type; they say the same */
    assert_int_equal(r.s.nrows, 1);
    row_is(&r.s, 0, "s:HCCL_INTRA_ROCE_ENABLE|s:HCCL_INTRA_ROCE_ENABLE|n:0|s:1|s:error");
    run_done(&r);
    /* an NPU bench against a GPU comparison */
    const char *g[] = {"env", "{\"CUDA_VISIBLE_DEVICES\": \"0,1\", \"PATH\": \"/bin\"}", NULL};
    assert_int_equal(run_check(&r, check_env, b, g, 'p'), 1);
    assert_int_equal(r.s.nrows, 4);
    row_is(&r.s, 0, "s:HCCL_DETERMINISTIC|s:NCCL_DETERMINISTIC|s:true|b:0|s:error");
    row_is(&r.s, 1, "s:HCCL_INTRA_ROCE_ENABLE|s:only bench has this env|n:0|-|s:warning");
    row_is(&r.s, 2, "s:HCCL_INTRA_ROCE_ENABLE|s:only bench has this env|n:1|-|s:warning");
    /* ASCEND_LAUNCH_BLOCKING "0" against CUDA_LAUNCH_BLOCKING's default 0: the same */
    row_is(&r.s, 3, "s:ASCEND_RT_VISIBLE_DEVICES|s:CUDA_VISIBLE_DEVICES|s:None|s:0,1|s:error");
    run_done(&r);
    /* "false" says what False says; absent on one side: no sheet */
    const char *f1[] = {"env", "{\"NCCL_DETERMINISTIC\": \"false\"}", NULL};
    const char *f2[] = {"env", "{}", NULL};
    assert_int_equal(run_check(&r, check_env, f1, f2, 'p'), 1);
    assert_int_equal(r.s.nrows, 0);
    assert_true(r.s.pass);
    run_done(&r);
    const char *none[] = {"pip", "", NULL};
    assert_int_equal(run_check(&r, check_env, f1, none, 'p'), 0);
    run_done(&r);
}

static void pip_golden(void **state)
{
    (void)state;
    run r;
    const char *b[] = {"pip", "numpy=1.26.4\ntorch=2.1.0\ntransformers=4.40.0\nmindspore=2.3\n", NULL};
    const char *c[] = {"pip", "  numpy=1.26.4\r\ntransformers=4.41.0\npeft==0.1\n", NULL};
    assert_int_equal(run_check(&r, check_pip, b, c, 'p'), 1);
    assert_int_equal(r.s.nrows, 2);
    row_is(&r.s, 0, "s:transformers|s:4.40.0|s:4.41.0|s:error");
    /* "peft==0.1" has three parts: version "" (None vs "" differ, both shown None) */
    row_is(&r.s, 1, "s:peft|s:None|s:None|s:error");
    run_done(&r);
    /* -f mindspore: the framework joins the list */
    assert_int_equal(run_check(&r, check_pip, b, c, 'm'), 1);
    assert_int_equal(r.s.nrows, 3);
    row_is(&r.s, 2, "s:mindspore|s:2.3|s:None|s:error");
    run_done(&r);
}

static void hyper_rows(void **state)
{
    (void)state;
    run r;
    const char *b[] = {"hyperparameters/hyperparameters_static.json",
                       "{\"learning_rate\": 0.001, \"batch_size\": 32, \"num_epochs\": 10, \"optimizer\": \"Adam\", "
                       "\"tp\": \"1\", \"only_b\": true}",
                       "hyperparameters/hyperparameters_dynamic.json", "{\"x\": [1, 2]}", NULL};
    const char *c[] = {"hyperparameters/hyperparameters_static.json",
                       "{\"learning_rate\": 0.01, \"batch_size\": 32, \"num_epochs\": 20, \"optimizer\": \"SGD\", "
                       "\"tp\": 1, \"zzz\": null}",
                       "hyperparameters/hyperparameters_dynamic.json", "{\"x\": [1, 3]}", NULL};
    assert_int_equal(run_check(&r, check_hyper, b, c, 'p'), 1);
    /* sorted within each file, static first; "Only in comparison" sorts first */
    assert_int_equal(r.s.nrows, 6);
    const char *f = "s:hyperparameters_static.json|";
    char want[256];
    snprintf(want, sizeof want, "%ss:Only in comparison|s:zzz|-|-|-|s:warning", f);
    row_is(&r.s, 0, want);
    snprintf(want, sizeof want, "%ss:learning_rate|s:learning_rate|n:0.001|n:0.01|s:pure name|s:error", f);
    row_is(&r.s, 1, want);
    snprintf(want, sizeof want, "%ss:num_epochs|s:num_epochs|n:10|n:20|s:pure name|s:error", f);
    row_is(&r.s, 2, want);
    snprintf(want, sizeof want, "%ss:only_b|s:Only in benchmark|b:1|-|-|s:warning", f);
    row_is(&r.s, 3, want);
    snprintf(want, sizeof want, "%ss:optimizer|s:optimizer|s:Adam|s:SGD|s:pure name|s:error", f);
    row_is(&r.s, 4, want);
    /* "1" vs 1 is no difference; lists are written as Python's str() */
    row_is(&r.s, 5, "s:hyperparameters_dynamic.json|s:x|s:x|s:[1, 2]|s:[1, 3]|s:pure name|s:error");
    assert_false(r.s.pass);
    run_done(&r);
}

static void dataset_rows(void **state)
{
    (void)state;
    run r;
    const char *b[] = {
        "dataset/step1/rank0/dataset.json",
        "{\"args\": {\"0\": {\"max\": -2.0, \"min\": 0, \"mean\": 1.0, \"norm\": 4.0}, \"1\": \"\"}, "
        "\"kwargs\": {\"gone\": {\"max\": 1, \"min\": 1, \"mean\": 1, \"norm\": 1}}}",
        "dataset/step0/rank1/dataset.json", "{\"args\": {\"0\": {\"max\": 1, \"min\": 1, \"mean\": 1, \"norm\": 1}}}",
        NULL};
    const char *c[] = {
        "dataset/step1/rank0/dataset.json",
        "{\"args\": {\"0\": {\"max\": -1.0, \"min\": 5, \"mean\": 1.0, \"norm\": 5.0}, \"1\": \"\"}, "
        "\"kwargs\": {\"new\": 1}}",
        "dataset/step0/rank1/dataset.json", "{\"args\": {\"0\": {\"max\": 1.0, \"min\": 1, \"mean\": 1, \"norm\": 1}}}",
        NULL};
    assert_int_equal(run_check(&r, check_dataset, b, c, 'p'), 1);
    assert_int_equal(r.s.nrows, 4);
    /* sorted by step, rank; 1 == 1.0 */
    row_is(&r.s, 0, "n:0|n:1|s:args.0|b:1|n:0|n:0|n:0|n:0");
    /* |b - c| / b with b's sign; empty where b is 0 */
    row_is(&r.s, 1, "n:1|n:0|s:args.0|b:0|n:-0.5|-|n:0|n:0.25");
    row_is(&r.s, 2, "n:1|n:0|s:kwargs.gone|b:0|-|-|-|-");
    row_is(&r.s, 3, "n:1|n:0|s:kwargs.new|b:0|-|-|-|-");
    assert_false(r.s.pass);
    run_done(&r);
    const char *bad[] = {"dataset/stepX/rank0/dataset.json", "{}", NULL};
    assert_int_equal(run_check(&r, check_dataset, bad, bad, 'p'), -1);
    assert_non_null(strstr(err_message(), "step<N>"));
    err_clear();
    run_done(&r);
}

static void weights_rows(void **state)
{
    (void)state;
    run r;
    const char *s = "{\"max\": 2, \"min\": -1, \"mean\": 0, \"norm\": 3}";
    char both[256], other[256];
    snprintf(both, sizeof both, "{\"w.b\": %s, \"w.a\": %s, \"only_b\": %s}", s, s, s);
    snprintf(other, sizeof other, "{\"w.a\": {\"max\": 3, \"min\": -1, \"mean\": 0, \"norm\": 3}, \"w.b\": %s, "
                                  "\"only_c\": %s}", s, s);
    const char *b[] = {"weights/step0/rank0/weight.json", both, "weights/step0/rank1/weight.json", both, NULL};
    const char *c[] = {"weights/step0/rank0/weight.json", other, NULL};
    assert_int_equal(run_check(&r, check_weights, b, c, 'p'), 1);
    assert_int_equal(r.s.nrows, 7);
    /* rank 0: the names sorted; rank 1 has no cmp file: its names as written */
    row_is(&r.s, 0, "n:0|n:0|s:only_b|s:only bench have|-|-|-|-");
    row_is(&r.s, 1, "n:0|n:0|s:only_c|s:only cmp have|-|-|-|-");
    row_is(&r.s, 2, "n:0|n:0|s:w.a|b:0|n:0.5|n:-0|-|n:0");
    row_is(&r.s, 3, "n:0|n:0|s:w.b|b:1|n:0|n:-0|-|n:0");
    row_is(&r.s, 4, "n:0|n:1|s:w.b|s:only bench have|-|-|-|-");
    assert_false(r.s.pass);
    run_done(&r);
    const char *flat[] = {"weights/weight.json", "{}", NULL};
    assert_int_equal(run_check(&r, check_weights, flat, flat, 'p'), -1);
    assert_non_null(strstr(err_message(), "corrupted"));
    err_clear();
    run_done(&r);
}

static int frames(const char *a, const char *b) { return random_frames_match(a, strlen(a), b, strlen(b)); }

static void stack_match(void **state)
{
    (void)state;
    const char *f = "File /a/b/train.py, line 10, in main, result = calculate_sum(a, b)";
    assert_true(frames(f, f));
    assert_true(frames(f, "File /x/y/train.py, line 10, in main, result = calculate_sum(a, b)"));
    assert_false(frames(f, "File /a/b/other.py, line 10, in main, result = calculate_sum(a, b)"));
    assert_true(frames(f, "File /a/b/train.py, line 99, in main, result = calculate_sum(a, b)"));
    assert_false(frames(f, "File /a/b/train.py, line 10, in helper, result = calculate_sum(a, b)"));
    assert_true(frames(f, "File /a/b/train.py, line 10, in main, result = calculate_sum(x, y)"));
    assert_false(frames(f, "File /a/b/train.py, line 10, in main, print('Hello, world!')"));
    /* fewer than seven space-separated parts: empty fields, only the function
     * score (equal empty strings) and the code ratio (1.0) count: 2/3 */
    assert_false(frames("short frame", "short frame"));
}

static void random_rows(void **state)
{
    (void)state;
    run r;
    const char *s1 = "[\"File /a/t.py, line 1, in <module>, main()\", \"File /a/t.py, line 5, in main, "
                     "torch.manual_seed(1)\"]";
    char b0[512], c0[512];
    snprintf(b0, sizeof b0, "{\"torch.manual_seed\": [{\"count\": 1, \"stack\": %s}], \"random.random\": "
                            "[{\"count\": 2, \"stack\": []}]}", s1);
    snprintf(c0, sizeof c0, "{\"torch.manual_seed\": [{\"count\": 3, \"stack\": %s}], \"np.random.rand\": "
                            "[{\"count\": 1, \"stack\": [\"File /a/t.py, line 9, in f, x()\"]}]}", s1);
    const char *b[] = {"random/rank0.json", b0, NULL};
    const char *c[] = {"random/rank0.json", c0, NULL};
    assert_int_equal(run_check(&r, check_random, b, c, 'p'), 1);
    /* ops sorted: np.random.rand, random.random, torch.manual_seed */
    assert_int_equal(r.s.nrows, 3);
    row_is(&r.s, 0, "s:np.random.rand|n:0|s:no match stack|s:File /a/t.py, line 9, in f, x()|n:0|n:1|b:0");
    row_is(&r.s, 1, "s:random.random|n:0|-|s:no match stack|n:2|n:0|b:0");
    row_is(&r.s, 2, "s:torch.manual_seed|n:0|s:File /a/t.py, line 1, in <module>, main()\nFile /a/t.py, line 5, in "
                    "main, torch.manual_seed(1)|s:File /a/t.py, line 1, in <module>, main()\nFile /a/t.py, line 5, in "
                    "main, torch.manual_seed(1)|n:1|n:3|b:0");
    run_done(&r);
    const char *bad[] = {"random/rankX.json", "{}", NULL};
    assert_int_equal(run_check(&r, check_random, bad, bad, 'p'), -1);
    assert_non_null(strstr(err_message(), "extract rank id"));
    err_clear();
    run_done(&r);
}

static void pack_refusals(void **state)
{
    (void)state;
    pack p;
    const char *dup[] = {"env", "{}", "env", "{}", NULL};
    assert_int_equal(pack_open(&p, make_pack(dup)), -1);
    assert_non_null(strstr(err_message(), "appears twice"));
    err_clear();
    const char *slip[] = {"dataset/../../evil", "x", NULL};
    assert_int_equal(pack_open(&p, make_pack(slip)), -1);
    assert_non_null(strstr(err_message(), "'..'"));
    err_clear();
    const char *abs[] = {"/etc/passwd", "x", NULL};
    assert_int_equal(pack_open(&p, make_pack(abs)), -1);
    assert_non_null(strstr(err_message(), "absolute"));
    err_clear();
    assert_int_equal(pack_open(&p, "/nonexistent/pack.zip"), -1);
    err_clear();
    assert_int_equal(pack_open(&p, "/etc/hostname"), -1); /* not .zip */
    err_clear();
}

static void int_of(void **state)
{
    (void)state;
    long long v;
    assert_int_equal(cc_int_of("step12", 6, "step", &v), 0);
    assert_int_equal(v, 12);
    assert_int_equal(cc_int_of("rank 1_0 ", 9, "rank", &v), 0);
    assert_int_equal(v, 10);
    assert_int_equal(cc_int_of("stepstep-3", 10, "step", &v), 0);
    assert_int_equal(v, -3);
    assert_int_equal(cc_int_of("step", 4, "step", &v), -1);
    assert_int_equal(cc_int_of("step1__0", 8, "step", &v), -1);
    assert_int_equal(cc_int_of("rank_1", 6, "rank", &v), -1);
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(env_golden_mixed), cmocka_unit_test(env_golden_npu), cmocka_unit_test(pip_golden),
        cmocka_unit_test(hyper_rows),       cmocka_unit_test(dataset_rows),   cmocka_unit_test(weights_rows),
        cmocka_unit_test(stack_match),      cmocka_unit_test(random_rows),    cmocka_unit_test(pack_refusals),
        cmocka_unit_test(int_of),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
