/* Unit tests of the compare model: matching, dtype rules, the statistics
 * cells (column typing, differences, relative errors, Warning) and every
 * highlight rule. Dumps are written as small JSON files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare/pipeline/compare.h"
#include "base/strbuf.h"
#include "model/table.h"

static char tmpdir[] = "/tmp/msprobe_test_compare_XXXXXX";

static char *write_file(const char *name, const char *text)
{
    char *path = malloc(strlen(tmpdir) + strlen(name) + 2);
    sprintf(path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* A statistics dump.json with the given `data` members. */
static char *dump_json(const char *name, const char *task, const char *data)
{
    size_t n = strlen(data) + 200;
    char *text = malloc(n);
    snprintf(text, n, "{\"task\": \"%s\", \"level\": \"L1\", \"framework\": \"pytorch\", \"data\": {%s}}", task, data);
    char *path = write_file(name, text);
    free(text);
    return path;
}

typedef struct {
    compare_ctx c;
    compare_opts o;
} fixture;

static fixture *load(const char *npu_data, const char *bench_data, int mode)
{
    fixture *f = calloc(1, sizeof *f);
    char *n = dump_json("npu_dump.json", "statistics", npu_data);
    char *b = dump_json("bench_dump.json", "statistics", bench_data);
    f->c.opts = &f->o;
    assert_int_equal(dump_load(n, &f->c.npu), 0);
    assert_int_equal(dump_load(b, &f->c.bench), 0);
    f->c.mode = mode;
    f->c.file_type = DUMP_JSON;
    assert_int_equal(match_rows(&f->c), 0);
    stats_column_types(&f->c);
    if (mode == MODE_SUMMARY)
        compute_diffs(&f->c, 2);
    assert_int_equal(highlight_rows(&f->c), 0);
    free(n);
    free(b);
    return f;
}

static void unload(fixture *f)
{
    dump_free(&f->c.npu);
    dump_free(&f->c.bench);
    free(f->c.pairs);
    free(f->c.diffs);
    free(f->c.fill);
    free(f->c.msgs);
    free(f);
}

/* One tensor leaf with the given statistics (JSON text for each). */
#define T(dtype, shape, mx, mn, mean, norm)                                                              \
    "{\"type\": \"torch.Tensor\", \"dtype\": \"" dtype "\", \"shape\": " shape ", \"Max\": " mx ", \"Min\": " mn \
    ", \"Mean\": " mean ", \"Norm\": " norm "}"
#define F32(mx, mn, mean, norm) T("torch.float32", "[2]", mx, mn, mean, norm)

static const char *name_of(fixture *f, size_t i) { return f->c.pairs[i].n->name; }

/* ---- matching ---------------------------------------------------------- */

static void test_match_by_name_and_shape(void **state)
{
    fixture *f = load("\"Functional.a.0.forward\": {\"input_args\": [" F32("1", "0", "0.5", "1") ", "
                      T("torch.float32", "[3]", "1", "0", "0.5", "1") "], \"output\": [" F32("1", "0", "0.5", "1") "]}",
                      "\"Functional.a.0.forward\": {\"input_args\": [" F32("1", "0", "0.5", "1") ", "
                      T("torch.float32", "[4]", "1", "0", "0.5", "1") "]}, "
                      "\"Functional.bench_only.0.forward\": {\"output\": [" F32("1", "0", "0.5", "1") "]}",
                      MODE_SUMMARY);
    assert_int_equal(f->c.npairs, 3);
    assert_string_equal(name_of(f, 0), "Functional.a.0.forward.input.0");
    assert_non_null(f->c.pairs[0].b);
    assert_string_equal(name_of(f, 1), "Functional.a.0.forward.input.1");
    assert_null(f->c.pairs[1].b); /* shape [3] vs [4] */
    assert_string_equal(name_of(f, 2), "Functional.a.0.forward.output.0");
    assert_null(f->c.pairs[2].b); /* not in bench; the bench-only entry is dropped */
    unload(f);
}

static void test_match_duplicates_cartesian(void **state)
{
    /* Two rows named alike on each side (data_name makes the name): the
     * product of both, at the first target position, target-major. */
    const char *leaf1 = "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], \"Max\": 1, "
                        "\"Min\": 0, \"Mean\": 0, \"Norm\": 1, \"data_name\": \"X.0.forward.input.0.pt\"}";
    const char *leaf2 = "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], \"Max\": 2, "
                        "\"Min\": 0, \"Mean\": 0, \"Norm\": 2, \"data_name\": \"X.0.forward.input.0.pt\"}";
    char npu[1024], bench[1024];
    snprintf(npu, sizeof npu, "\"X.0.forward\": {\"input_args\": [%s, %s], \"output\": [%s]}", leaf1, leaf2,
             F32("1", "0", "0", "1"));
    snprintf(bench, sizeof bench, "\"X.0.forward\": {\"input_args\": [%s, %s]}", leaf2, leaf1);
    fixture *f = load(npu, bench, MODE_SUMMARY);
    assert_int_equal(f->c.npairs, 5);
    assert_true(dump_stat(f->c.pairs[0].n, 0).num == 1 && dump_stat(f->c.pairs[0].b, 0).num == 2);
    assert_true(dump_stat(f->c.pairs[1].n, 0).num == 1 && dump_stat(f->c.pairs[1].b, 0).num == 1);
    assert_true(dump_stat(f->c.pairs[2].n, 0).num == 2 && dump_stat(f->c.pairs[2].b, 0).num == 2);
    assert_true(dump_stat(f->c.pairs[3].n, 0).num == 2 && dump_stat(f->c.pairs[3].b, 0).num == 1);
    assert_string_equal(name_of(f, 4), "X.0.forward.output.0");
    unload(f);
}

/* Random rows named from a few keys on both sides (repeated, interleaved,
 * some only on one side), joined as pandas would: keys in order of first
 * appearance on the target side, each target row with every bench row of
 * its key in bench order, or unmatched. */
static void random_side(strbuf *sb, uint64_t *s, int rows, int keys)
{
    sb_reset(sb);
    for (int i = 0; i < rows; i++) {
        *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
        int k = (int)((*s >> 33) % (uint64_t)keys), shape = (int)((*s >> 50) & 1);
        sb_addf(sb, "%s\"E%d.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": "
                    "\"torch.float32\", \"shape\": [%d], \"Max\": %d, \"Min\": 0, \"Mean\": 0, \"Norm\": 0, "
                    "\"data_name\": \"K%d.0.forward.input.0.pt\"}]}",
                i ? ", " : "", i, shape + 1, i, k);
    }
}

static void test_match_random_against_reference(void **state)
{
    uint64_t s = 42;
    strbuf nj = STRBUF_INIT, bj = STRBUF_INIT;
    for (int round = 0; round < 40; round++) {
        /* odd rounds: the hash-map join, the fallback when hashes meet */
        match_by_map = round & 1;
        int nn = 1 + round * 3, nb = 1 + (round * 7) % 40, keys = 1 + round % 6;
        random_side(&nj, &s, nn, keys);
        random_side(&bj, &s, nb, keys + 1);
        fixture *f = load(sb_str(&nj), sb_str(&bj), MODE_SUMMARY);
        const dump_data *N = &f->c.npu, *B = &f->c.bench;
        size_t k = 0;
        for (size_t i = 0; i < N->nrows; i++) {
            int first = 1;
            for (size_t j = 0; j < i && first; j++)
                first = strcmp(N->rows[j].name, N->rows[i].name) || strcmp(N->rows[j].shape, N->rows[i].shape);
            if (!first)
                continue;
            for (size_t n = i; n < N->nrows; n++) {
                if (strcmp(N->rows[n].name, N->rows[i].name) || strcmp(N->rows[n].shape, N->rows[i].shape))
                    continue;
                int any = 0;
                for (size_t b = 0; b < B->nrows; b++) {
                    if (strcmp(B->rows[b].name, N->rows[i].name) || strcmp(B->rows[b].shape, N->rows[i].shape))
                        continue;
                    any = 1;
                    assert_true(k < f->c.npairs);
                    assert_ptr_equal(f->c.pairs[k].n, &N->rows[n]);
                    assert_ptr_equal(f->c.pairs[k].b, &B->rows[b]);
                    k++;
                }
                if (!any) {
                    assert_true(k < f->c.npairs);
                    assert_ptr_equal(f->c.pairs[k].n, &N->rows[n]);
                    assert_null(f->c.pairs[k].b);
                    k++;
                }
            }
        }
        assert_int_equal(k, f->c.npairs);
        unload(f);
    }
    match_by_map = 0;
    sb_free(&nj);
    sb_free(&bj);
}

static void test_dtype_rules(void **state)
{
    assert_true(dtype_compatible("torch.float32", "torch.float32", 0));
    assert_true(dtype_compatible("torch.bfloat16", "torch.float32", 0));
    assert_true(dtype_compatible("Float16", "BFloat16", 0));
    assert_false(dtype_compatible("torch.int64", "torch.float32", 0));
    assert_false(dtype_compatible("Float16", "torch.float16", 0));
    assert_true(dtype_compatible("Float16", "torch.float16", 1));
    assert_true(dtype_compatible("Int32", "torch.int64", 1));
    assert_true(dtype_compatible("Float64", "torch.bfloat16", 1));
    assert_false(dtype_compatible("Float64", "torch.float64", 0));
    assert_false(dtype_compatible("Bool", "torch.int64", 1));
    assert_false(dtype_compatible("<class 'int'>", "<class 'float'>", 0));
    assert_true(dtype_compatible("None", "None", 0));

    fixture *f = load("\"F.a.0.forward\": {\"input_args\": [" T("torch.int64", "[2]", "1", "0", "0", "1") ", "
                      "{\"type\": \"int\", \"value\": 1}]}",
                      "\"F.a.0.forward\": {\"input_args\": [" T("torch.float32", "[2]", "1", "0", "0", "1") ", "
                      "{\"type\": \"float\", \"value\": 1.0}]}",
                      MODE_SUMMARY);
    assert_int_equal(f->c.npairs, 2);
    assert_null(f->c.pairs[0].b);
    assert_null(f->c.pairs[1].b);
    unload(f);
}

/* ---- statistics cells ---------------------------------------------------- */

typedef struct {
    pyval diff, rel;
    char buf[40];
    int warn;
} diff_cell;

/* The relative-error text lives in the caller's buffer: keep one per call site. */
static diff_cell cells_buf;
static diff_cell diff_of(fixture *f, size_t row, int k)
{
    cells_buf.warn = cell_stat_diff(&f->c, row, k, &cells_buf.diff, &cells_buf.rel, cells_buf.buf);
    return cells_buf;
}

static void assert_text(const pyval *v, const char *text)
{
    assert_true(v->kind == PV_STR || v->kind == PV_OTHER);
    assert_int_equal(v->len, strlen(text));
    assert_memory_equal(v->text, text, v->len);
}

static fixture *one_pair(const char *npu_leaf, const char *bench_leaf)
{
    char npu[1024], bench[1024];
    snprintf(npu, sizeof npu, "\"F.a.0.forward\": {\"input_args\": [%s]}", npu_leaf);
    snprintf(bench, sizeof bench, "\"F.a.0.forward\": {\"input_args\": [%s]}", bench_leaf);
    return load(npu, bench, MODE_SUMMARY);
}

static void test_summary_diff_and_relative(void **state)
{
    fixture *f = one_pair(F32("3.0", "-1.0", "0.5", "2.0"), F32("2.0", "0.0", "0.25", "Infinity"));
    diff_cell d = diff_of(f, 0, 0);
    assert_int_equal(d.diff.kind, PV_FLOAT);
    assert_true(d.diff.num == 1.0);
    assert_text(&d.rel, "50.0%");
    assert_false(d.warn); /* 1 / (3 + 1e-10) */
    d = diff_of(f, 0, 1); /* bench 0: no relative error, but a magnitude warning */
    assert_true(d.diff.num == -1.0);
    assert_text(&d.rel, "N/A");
    assert_true(d.warn);
    d = diff_of(f, 0, 2);
    assert_text(&d.rel, "100.0%");
    d = diff_of(f, 0, 3); /* 2 - inf = -inf; -inf/inf is NaN */
    assert_true(isinf(d.diff.num) && d.diff.num < 0);
    assert_text(&d.rel, "nan%");
    unload(f);

    f = one_pair(F32("Infinity", "1", "1", "1"), F32("1", "1", "1", "1"));
    d = diff_of(f, 0, 0);
    assert_true(isinf(d.diff.num) && d.diff.num > 0);
    assert_text(&d.rel, "inf%");
    assert_false(d.warn); /* inf / inf */
    unload(f);
}

static void test_summary_nan_and_text(void **state)
{
    fixture *f = one_pair(F32("NaN", "1", "1", "1"), F32("1", "1", "1", "1"));
    diff_cell d = diff_of(f, 0, 0);
    assert_text(&d.diff, "Nan");
    assert_text(&d.rel, "Nan");
    pyval v;
    cell_npu_stat(&f->c, 0, 0, &v);
    assert_text(&v, "Nan");
    unload(f);

    f = one_pair("{\"type\": \"str\", \"value\": \"SBH\"}", "{\"type\": \"str\", \"value\": \"SBH\"}");
    d = diff_of(f, 0, 0);
    assert_text(&d.diff, "N/A");
    assert_text(&d.rel, "N/A");
    unload(f);

    f = one_pair("{\"type\": \"bool\", \"value\": true}", "{\"type\": \"bool\", \"value\": true}");
    d = diff_of(f, 0, 0);
    assert_text(&d.diff, "N/A");
    unload(f);

    /* A numeric str value: msprobe 8.1.0 crashes dividing by the string;
     * we treat it as its number. */
    f = one_pair("{\"type\": \"str\", \"value\": \"3\"}", "{\"type\": \"str\", \"value\": \"2\"}");
    d = diff_of(f, 0, 0);
    assert_int_equal(d.diff.kind, PV_FLOAT);
    assert_true(d.diff.num == 1);
    assert_text(&d.rel, "50.0%");
    unload(f);
}

static void test_summary_pandas_parse(void **state)
{
    /* pandas re-parses str(x): -0.01070163212716579 becomes
     * -0.0107016321271657, which moves the difference. */
    fixture *f = one_pair(F32("1", "-0.01070163212716579", "1", "1"), F32("1", "0.0", "1", "1"));
    diff_cell d = diff_of(f, 0, 1);
    assert_true(d.diff.num == -0.0107016321271657);
    unload(f);
}

static void test_summary_column_types(void **state)
{
    /* All values numbers or None: pandas makes the column float64 and a
     * None reads back as NaN ("nan\t" in the sheet). A column of None
     * only stays objects. */
    fixture *f = load("\"F.a.0.forward\": {\"input_args\": [" T("torch.float32", "[2]", "null", "1", "1", "1") ", "
                      F32("2", "1", "1", "1") "]}",
                      "\"F.a.0.forward\": {\"input_args\": [" F32("1", "1", "1", "1") ", " F32("1", "1", "1", "1") "]}",
                      MODE_SUMMARY);
    pyval v;
    cell_npu_stat(&f->c, 0, 0, &v);
    assert_int_equal(v.kind, PV_FLOAT);
    assert_true(isnan(v.num));
    diff_cell d = diff_of(f, 0, 0);
    assert_text(&d.diff, "Nan");
    unload(f);

    /* A bool in the same column keeps it as objects: None stays None. */
    f = load("\"F.a.0.forward\": {\"input_args\": [" T("torch.float32", "[2]", "null", "1", "1", "1") ", "
             "{\"type\": \"bool\", \"value\": false}]}",
             "\"F.a.0.forward\": {\"input_args\": [" F32("1", "1", "1", "1") ", "
             "{\"type\": \"bool\", \"value\": false}]}",
             MODE_SUMMARY);
    cell_npu_stat(&f->c, 0, 0, &v);
    assert_int_equal(v.kind, PV_NONE);
    d = diff_of(f, 0, 0);
    assert_text(&d.diff, "N/A");
    unload(f);

    /* Unmatched rows show N/A for None and for the whole bench side. */
    f = load("\"F.a.0.forward\": {\"input_args\": [" T("torch.float32", "[2]", "null", "1", "1", "1") "]}",
             "\"F.b.0.forward\": {}", MODE_SUMMARY);
    cell_npu_stat(&f->c, 0, 0, &v);
    assert_text(&v, "N/A");
    cell_npu_stat(&f->c, 0, 1, &v);
    assert_int_equal(v.kind, PV_INT);
    cell_bench_stat(&f->c, 0, 1, &v);
    assert_text(&v, "N/A");
    unload(f);
}

/* ---- highlight rules ---------------------------------------------------- */

static int codes_of(fixture *f, size_t row, int *codes, int max)
{
    int n = 0;
    for (size_t i = 0; i < f->c.nmsgs; i++)
        if (f->c.msgs[i].row == row && n < max)
            codes[n++] = f->c.msgs[i].code;
    return n;
}

static fixture *io_pair(const char *npu_in, const char *npu_out, const char *bench_in, const char *bench_out)
{
    char npu[2048], bench[2048];
    snprintf(npu, sizeof npu, "\"F.a.0.forward\": {\"input_args\": [%s], \"output\": [%s]}", npu_in, npu_out);
    snprintf(bench, sizeof bench, "\"F.a.0.forward\": {\"input_args\": [%s], \"output\": [%s]}", bench_in, bench_out);
    return load(npu, bench, MODE_SUMMARY);
}

static void test_highlight_overflow(void **state)
{
    int codes[8];
    fixture *f = io_pair(F32("Infinity", "0", "0", "1"), F32("1", "0", "0", "1"), F32("1", "0", "0", "1"),
                         F32("1", "0", "0", "1"));
    assert_int_equal(codes_of(f, 0, codes, 8), 1);
    assert_int_equal(codes[0], HL_RED_OVERFLOW);
    assert_int_equal(f->c.fill[0], FILL_RED);
    assert_int_equal(f->c.fill[1], FILL_NONE);
    unload(f);

    /* A NaN statistic is already the text "Nan": not flagged (8.1.0). */
    f = io_pair(F32("NaN", "0", "0", "1"), F32("1", "0", "0", "1"), F32("1", "0", "0", "1"), F32("1", "0", "0", "1"));
    assert_int_equal(codes_of(f, 0, codes, 8), 0);
    unload(f);

    f = io_pair(F32("1e12", "0", "0", "1"), F32("1", "0", "0", "1"), F32("0.5", "0", "0", "1"),
                F32("1", "0", "0", "1"));
    assert_int_equal(codes_of(f, 0, codes, 8), 1);
    assert_int_equal(codes[0], HL_RED_MAX_DIFF);
    unload(f);
}

static void test_highlight_pair_rules(void **state)
{
    int codes[8];
    /* input diff 0.5, output diff 20 (order of magnitude), output relative
     * 20/100 = 0.2 with input relative 0.5/100 = 0.005: yellow twice. */
    fixture *f = io_pair(F32("100.5", "0", "0", "1"), F32("120", "0", "0", "1"), F32("100", "0", "0", "1"),
                         F32("100", "0", "0", "1"));
    assert_int_equal(codes_of(f, 1, codes, 8), 2);
    assert_int_equal(codes[0], HL_YELLOW_ORDER);
    assert_int_equal(codes[1], HL_YELLOW_MAX_RELATIVE);
    assert_int_equal(f->c.fill[1], FILL_YELLOW);
    unload(f);

    /* output relative 60/100 > 0.5: red; the yellow one is dropped. */
    f = io_pair(F32("100.5", "0", "0", "1"), F32("160", "0", "0", "1"), F32("100", "0", "0", "1"),
                F32("100", "0", "0", "1"));
    assert_int_equal(codes_of(f, 1, codes, 8), 1);
    assert_int_equal(codes[0], HL_RED_MAX_RELATIVE);
    assert_int_equal(f->c.fill[1], FILL_RED);
    unload(f);

    /* Negative bench max counts as eps: huge relative error, red. */
    f = io_pair(F32("1", "0", "0", "1"), F32("-1", "0", "0", "1"), F32("1", "0", "0", "1"), F32("-1.5", "0", "0", "1"));
    assert_int_equal(codes_of(f, 1, codes, 8), 1);
    assert_int_equal(codes[0], HL_RED_MAX_RELATIVE);
    unload(f);
}

static void test_highlight_repeats_per_input(void **state)
{
    /* Two inputs both trigger the rule for the one output: two messages. */
    fixture *f = load("\"F.a.0.forward\": {\"input_args\": [" F32("100", "0", "0", "1") ", " F32("100", "0", "0", "1")
                      "], \"output\": [" F32("160", "0", "0", "1") "]}",
                      "\"F.a.0.forward\": {\"input_args\": [" F32("100", "0", "0", "1") ", " F32("100", "0", "0", "1")
                      "], \"output\": [" F32("100", "0", "0", "1") "]}",
                      MODE_SUMMARY);
    int codes[8];
    /* red per input; the order-of-magnitude yellows are dropped (red row) */
    assert_int_equal(codes_of(f, 2, codes, 8), 2);
    assert_int_equal(codes[0], HL_RED_MAX_RELATIVE);
    assert_int_equal(codes[1], HL_RED_MAX_RELATIVE);
    unload(f);
}

static void test_highlight_batches(void **state)
{
    /* parameters_grad rows join the module batch right before them; a
     * different API starts a new batch (its first row is an input). */
    fixture *f = load("\"Module.l.Linear.forward.0\": {\"input_args\": [" F32("1", "0", "0", "1") "], "
                      "\"parameters\": {\"weight\": " F32("1", "0", "0", "1") "}, "
                      "\"output\": [" F32("50", "0", "0", "1") "]}, "
                      "\"Module.l.Linear.parameters_grad\": {\"weight\": [" F32("1", "0", "0", "1") "]}, "
                      "\"F.b.0.forward\": {\"output\": [" F32("1", "0", "0", "1") "]}",
                      "\"Module.l.Linear.forward.0\": {\"input_args\": [" F32("0.9", "0", "0", "1") "], "
                      "\"parameters\": {\"weight\": " F32("1", "0", "0", "1") "}, "
                      "\"output\": [" F32("10", "0", "0", "1") "]}, "
                      "\"Module.l.Linear.parameters_grad\": {\"weight\": [" F32("1", "0", "0", "1") "]}, "
                      "\"F.b.0.forward\": {\"output\": [" F32("1e11", "0", "0", "1") "]}",
                      MODE_SUMMARY);
    assert_int_equal(f->c.npairs, 5);
    assert_string_equal(name_of(f, 3), "Module.l.Linear.parameters_grad.weight");
    int codes[8];
    /* output (row 2) vs input (diff 0.1) and parameter (diff 0): order of
     * magnitude twice, relative 40/10 > 0.5 red twice */
    int n = codes_of(f, 2, codes, 8);
    assert_int_equal(n, 2);
    assert_int_equal(codes[0], HL_RED_MAX_RELATIVE);
    assert_int_equal(codes[1], HL_RED_MAX_RELATIVE);
    assert_int_equal(codes_of(f, 3, codes, 8), 0);
    /* F.b: its only row counts as an input, so no pair rule runs; the
     * per-row rule still sees a max diff above 1e10 */
    assert_int_equal(codes_of(f, 4, codes, 8), 1);
    assert_int_equal(codes[0], HL_RED_MAX_DIFF);
    unload(f);
}

static void test_highlight_md5_off(void **state)
{
    fixture *f = io_pair(F32("Infinity", "0", "0", "1"), F32("1", "0", "0", "1"), F32("1", "0", "0", "1"),
                         F32("1", "0", "0", "1"));
    free(f->c.fill);
    free(f->c.msgs);
    f->c.mode = MODE_MD5;
    assert_int_equal(highlight_rows(&f->c), 0);
    assert_int_equal(f->c.nmsgs, 0);
    unload(f);
}

/* ---- end to end through the csv writer ---------------------------------- */

static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    buf[n] = 0;
    fclose(fp);
    return buf;
}

static void test_err_message_and_csv(void **state)
{
    fixture *f = io_pair(F32("100.5", "0", "0", "1"), F32("250", "0", "0", "1"), F32("100", "0", "0", "1"),
                         F32("100", "0", "0", "1"));
    f->o.format = TABLE_CSV;
    char *path = malloc(256);
    snprintf(path, 256, "%s/out.csv", tmpdir);
    compare_result res = {0};
    assert_int_equal(write_result(&f->c, &path, &res), 0);
    const char *csv = slurp(path);
    assert_non_null(strstr(csv, "F.a.0.forward.output.0,F.a.0.forward.output.0,torch.float32,torch.float32,[2],[2],"
                                "150,0,0,0,150.0%,N/A,N/A,0.0%,250,0,0,1,100,0,0,1,Warning,\"Need double check api "
                                "accuracy.\nmaximum relative error exceeds 0.5\"\n"));
    assert_int_equal(res.warning, 1);
    assert_int_equal(res.red, 1);
    assert_int_equal(res.first_failing, 1);
    unlink(path);
    free(path);
    unload(f);
}

static int setup(void **state)
{
    assert_non_null(mkdtemp(tmpdir));
    return 0;
}

static int teardown(void **state)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    return system(cmd);
}

/* The result's name: the table's extension, debug_ for a debug.json. */
static void test_result_names(void **state)
{
    (void)state;
    compare_job j = {.npu_json = "npu/step0/rank0/dump.json", .out_dir = "out", .suffix = "_rank0"};
    char *p = compare_result_name(&j, TABLE_XLSX, "20250101120000");
    assert_string_equal(p, "out/compare_result_rank0_20250101120000.xlsx");
    free(p);
    j.npu_json = "debug.json";
    j.suffix = "";
    p = compare_result_name(&j, TABLE_CSV, "20250101120000");
    assert_string_equal(p, "out/debug_compare_result_20250101120000.csv");
    free(p);
    j.npu_json = "a/not_debug.json";
    p = compare_result_name(&j, TABLE_CSV, "20250101120000");
    assert_string_equal(p, "out/compare_result_20250101120000.csv");
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match_by_name_and_shape),
        cmocka_unit_test(test_match_duplicates_cartesian),
        cmocka_unit_test(test_match_random_against_reference),
        cmocka_unit_test(test_dtype_rules),
        cmocka_unit_test(test_summary_diff_and_relative),
        cmocka_unit_test(test_summary_nan_and_text),
        cmocka_unit_test(test_summary_pandas_parse),
        cmocka_unit_test(test_summary_column_types),
        cmocka_unit_test(test_highlight_overflow),
        cmocka_unit_test(test_highlight_pair_rules),
        cmocka_unit_test(test_highlight_repeats_per_input),
        cmocka_unit_test(test_highlight_batches),
        cmocka_unit_test(test_highlight_md5_off),
        cmocka_unit_test(test_err_message_and_csv),
        cmocka_unit_test(test_result_names),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
