/* merge_result internals: how a compare result's cells are typed (pandas'
 * read_excel view, checked with pandas 1.5.3: a column of numbers with one
 * float prints 2 as "2.0", one empty cell keeps the objects, numeric text
 * joins a numeric column, True/False text makes a bool column), which rows
 * an API list chooses and in which order, what makes a result empty,
 * unknown or md5, the csv input, Python's float() test and str(), and the
 * whole command on results with formula-injection text (msprobe refuses
 * those, naming the value). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "compare/merge/merge.h"
#include "base/log.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "model/table.h"
#include "testutil.h"
#include "format/xlsx_read.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const summary_header[] = {
    "NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape", "Bench Tensor Shape",
    "Max diff", "Min diff", "Mean diff", "L2norm diff", "MaxRelativeErr", "MinRelativeErr",
    "MeanRelativeErr", "NormRelativeErr", "NPU max", "NPU min", "NPU mean", "NPU l2norm",
    "Bench max", "Bench min", "Bench mean", "Bench l2norm", "Result", "Err_message"};
enum { NCOLS = 24, MAX_DIFF = 6, MIN_DIFF = 7, MEAN_DIFF = 8, NPU_MAX = 14, BENCH_MAX = 18 };

static cell cs(const char *s) { return cell_str(s, strlen(s)); }
static const cell none = {CELL_EMPTY, 0, NULL, 0};

/* A summary row: name, then (column, cell) pairs; other cells "x". */
static void row(cell *r, const char *name, ...)
{
    for (int c = 0; c < NCOLS; c++)
        r[c] = cs("x");
    r[0] = cs(name);
    va_list ap;
    va_start(ap, name);
    for (int col; (col = va_arg(ap, int)) >= 0;)
        r[col] = va_arg(ap, cell);
    va_end(ap);
}

static char *write_result(const char *name, cell rows[][NCOLS], int n, int format)
{
    char *path = tu_path(tu_dir, name);
    table_writer *t = table_open(path, format, summary_header, NCOLS);
    assert_non_null(t);
    for (int i = 0; i < n; i++)
        assert_int_equal(table_row(t, rows[i], FILL_NONE), 0);
    assert_int_equal(table_close(t), 0);
    return path;
}

static merge_apis apis_of(const char **names, size_t *lens, size_t n)
{
    for (size_t i = 0; i < n; i++)
        lens[i] = strlen(names[i]);
    merge_apis a = {names, lens, n};
    return a;
}

static void read_rank(merge_rank *r, const char *path, const merge_apis *apis)
{
    memset(r, 0, sizeof *r);
    r->path = strdup(path);
    err_clear();
    if (merge_read_rank(r, apis) != 0)
        print_error("%s\n", err_message());
    assert_int_equal(err_kind(), 0);
}

/* str() of column `col` (its position among the kept columns) for row i. */
static char *text(const merge_rank *r, int col, size_t i)
{
    static char buf[256];
    strbuf sb = STRBUF_INIT;
    py_str_value(&sb, &r->vals[(size_t)col * r->nnames + i]);
    snprintf(buf, sizeof buf, "%s", sb_str(&sb));
    sb_free(&sb);
    return buf;
}

enum { K_MAX_DIFF = 0, K_MIN_DIFF = 1, K_MEAN_DIFF = 2, K_NPU_MAX = 8, K_BENCH_MAX = 9 };

static void test_column_typing(void **state)
{
    cell rows[4][NCOLS];
    /* NPU max: numbers, one of them a float -> float64; Bench max: ints ->
     * int64; Max diff: numbers and "N/A" text -> objects; Min diff: numeric
     * text joins the numbers; Mean diff: True/False text -> bools */
    row(rows[0], "Distributed.all_reduce.0.forward.input.0", MAX_DIFF, cell_num(1), MIN_DIFF, cs("1.5"),
        MEAN_DIFF, cs("True"), NPU_MAX, cell_num(1), BENCH_MAX, cell_num(3), -1);
    row(rows[1], "Distributed.all_reduce.0.forward.input.1", MAX_DIFF, cs("N/A"), MIN_DIFF, cell_num(2),
        MEAN_DIFF, cs("False"), NPU_MAX, cell_num(2.5), BENCH_MAX, cell_num(4), -1);
    row(rows[2], "Distributed.all_reduce.0.forward.input.2", MAX_DIFF, cell_num(2.0), MIN_DIFF, cs(" 7 "),
        MEAN_DIFF, cs("True"), NPU_MAX, cell_num(1e20), BENCH_MAX, cell_num(-0.0), -1);
    row(rows[3], "Other.op.0.forward.input.0", MAX_DIFF, cell_num(1e20), MIN_DIFF, cell_num(1), MEAN_DIFF, cs("True"),
        NPU_MAX, cell_num(3), BENCH_MAX, cell_num(5), -1);
    char *path = write_result("types.xlsx", rows, 4, TABLE_XLSX);
    const char *names[] = {"Distributed.all_reduce"};
    size_t lens[1];
    merge_apis apis = apis_of(names, lens, 1);
    merge_rank r;
    read_rank(&r, path, &apis);
    assert_int_equal(r.status, RANK_OK);
    assert_int_equal(r.mode, MM_SUMMARY);
    assert_int_equal(r.nnames, 3);
    assert_int_equal(r.api_rows[0], 3);
    assert_string_equal(text(&r, K_NPU_MAX, 0), "1.0");
    assert_string_equal(text(&r, K_NPU_MAX, 1), "2.5");
    assert_string_equal(text(&r, K_NPU_MAX, 2), "1e+20");
    assert_string_equal(text(&r, K_BENCH_MAX, 0), "3");
    assert_string_equal(text(&r, K_BENCH_MAX, 2), "0");
    assert_string_equal(text(&r, K_MAX_DIFF, 0), "1");
    assert_string_equal(text(&r, K_MAX_DIFF, 1), "N/A");
    assert_string_equal(text(&r, K_MAX_DIFF, 2), "2");
    assert_int_equal(r.vals[K_MAX_DIFF * r.nnames + 1].kind, PV_STR);
    assert_int_equal(r.vals[K_MIN_DIFF * r.nnames + 0].kind, PV_FLOAT);
    assert_string_equal(text(&r, K_MIN_DIFF, 0), "1.5");
    assert_string_equal(text(&r, K_MIN_DIFF, 2), "7.0");
    assert_int_equal(r.vals[K_MEAN_DIFF * r.nnames + 0].kind, PV_BOOL);
    assert_string_equal(text(&r, K_MEAN_DIFF, 1), "False");
    merge_rank_free(&r);
    free(path);
}

static void test_empty_cell_keeps_objects(void **state)
{
    cell rows[2][NCOLS];
    row(rows[0], "Distributed.all_reduce.0.forward.input.0", NPU_MAX, cell_num(2), BENCH_MAX, cell_num(1e20), -1);
    row(rows[1], "Distributed.all_reduce.0.forward.input.1", NPU_MAX, none, BENCH_MAX, cell_num(2.5), -1);
    char *path = write_result("objects.xlsx", rows, 2, TABLE_XLSX);
    const char *names[] = {"Distributed"};
    size_t lens[1];
    merge_apis apis = apis_of(names, lens, 1);
    merge_rank r;
    read_rank(&r, path, &apis);
    /* "" keeps the column as objects: an integral number stays an int */
    assert_string_equal(text(&r, K_NPU_MAX, 0), "2");
    assert_string_equal(text(&r, K_NPU_MAX, 1), "");
    /* a numeric column turns float64 */
    assert_string_equal(text(&r, K_BENCH_MAX, 0), "1e+20");
    merge_rank_free(&r);
    free(path);
}

static void test_row_choice(void **state)
{
    cell rows[7][NCOLS];
    row(rows[0], "Functional.linear.0.forward.input.0", MAX_DIFF, cell_num(1), -1);
    row(rows[1], "Distributed.all_reduce.1.forward.output.0", MAX_DIFF, cell_num(2), -1);
    row(rows[2], "Module.Distributed.all_reduce.0.forward.input.0", MAX_DIFF, cell_num(3), -1);
    row(rows[3], "Distributed.all_reducex.0.forward.input.0", MAX_DIFF, cell_num(4), -1);
    row(rows[4], "Functional.linear.0.forward.input.0", MAX_DIFF, cell_num(5), -1);
    row(rows[5], "Distributed.all_reduce.0.forward.input.0", MAX_DIFF, cell_num(6), -1);
    row(rows[6], "Functional.linear.1.forward.input.0", MAX_DIFF, cell_num(7), -1);
    char *path = write_result("choice.xlsx", rows, 7, TABLE_XLSX);
    const char *names[] = {"Distributed.all_reduce", "Functional.linear.0", "Missing.api", "Functional"};
    size_t lens[4];
    merge_apis apis = apis_of(names, lens, 4);
    merge_rank r;
    read_rank(&r, path, &apis);
    /* API by API, rows in file order, each name once with its first row;
     * "contains API + '.'" is a substring test, not a prefix test */
    static const char *const want[] = {
        "Distributed.all_reduce.1.forward.output.0", "Module.Distributed.all_reduce.0.forward.input.0",
        "Distributed.all_reduce.0.forward.input.0", "Functional.linear.0.forward.input.0",
        "Functional.linear.1.forward.input.0"};
    assert_int_equal(r.nnames, 5);
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(r.names[i], want[i]);
    assert_string_equal(text(&r, K_MAX_DIFF, 3), "1");
    assert_int_equal(r.api_rows[0], 3);
    assert_int_equal(r.api_rows[1], 2);
    assert_int_equal(r.api_rows[2], 0);
    assert_int_equal(r.api_rows[3], 3);
    merge_rank_free(&r);
    free(path);
}

static void test_status(void **state)
{
    const char *names[] = {"A"};
    size_t lens[1];
    merge_apis apis = apis_of(names, lens, 1);
    merge_rank r;

    char *empty = write_result("empty.xlsx", NULL, 0, TABLE_XLSX);
    read_rank(&r, empty, &apis);
    assert_int_equal(r.status, RANK_EMPTY);
    merge_rank_free(&r);

    /* a data row longer than the header gives pandas an "Unnamed" column */
    char *wide = tu_path(tu_dir, "wide.xlsx");
    static const char *const h[] = {"NPU Name", "x"};
    const char *wide_header[NCOLS + 1];
    memcpy(wide_header, summary_header, sizeof summary_header);
    wide_header[NCOLS] = "";
    table_writer *t = table_open(wide, TABLE_XLSX, wide_header, NCOLS + 1);
    cell rows[1][NCOLS + 1];
    row(rows[0], "A.b.0", -1);
    rows[0][NCOLS] = cs("extra");
    assert_int_equal(table_row(t, rows[0], FILL_NONE), 0);
    assert_int_equal(table_close(t), 0);
    read_rank(&r, wide, &apis);
    assert_int_equal(r.status, RANK_UNKNOWN);
    merge_rank_free(&r);
    /* the same without the extra cell is a summary result */
    t = table_open(wide, TABLE_XLSX, wide_header, NCOLS + 1);
    rows[0][NCOLS] = none;
    assert_int_equal(table_row(t, rows[0], FILL_NONE), 0);
    assert_int_equal(table_close(t), 0);
    read_rank(&r, wide, &apis);
    assert_int_equal(r.status, RANK_OK);
    assert_int_equal(r.nnames, 1);
    merge_rank_free(&r);

    char *other = tu_path(tu_dir, "other.xlsx");
    t = table_open(other, TABLE_XLSX, h, 2);
    cell two[] = {cs("A.b.0"), cell_num(1)};
    assert_int_equal(table_row(t, two, FILL_NONE), 0);
    assert_int_equal(table_close(t), 0);
    read_rank(&r, other, &apis);
    assert_int_equal(r.status, RANK_UNKNOWN);
    merge_rank_free(&r);

    char *md5 = tu_path(tu_dir, "md5.xlsx");
    static const char *const mh[] = {"NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape",
                                     "Bench Tensor Shape", "NPU MD5", "BENCH MD5", "Result", "NPU_Stack_Info"};
    t = table_open(md5, TABLE_XLSX, mh, 10);
    cell m[10];
    for (int c = 0; c < 10; c++)
        m[c] = cs("x");
    assert_int_equal(table_row(t, m, FILL_NONE), 0);
    assert_int_equal(table_close(t), 0);
    read_rank(&r, md5, &apis);
    assert_int_equal(r.status, RANK_MD5);
    merge_rank_free(&r);

    char *text_file = tu_write(tu_dir, "text.xlsx", "NPU Name\n", (size_t)-1);
    memset(&r, 0, sizeof r);
    r.path = strdup(text_file);
    err_clear();
    assert_int_equal(merge_read_rank(&r, &apis), -1);
    tu_assert_err("text.xlsx", "malformed xlsx");
    merge_rank_free(&r);
    free(empty);
    free(wide);
    free(other);
    free(md5);
    free(text_file);
}

static void test_csv_input_reads_like_xlsx(void **state)
{
    cell rows[2][NCOLS];
    row(rows[0], "Distributed.all_reduce.0.forward.input.0", MAX_DIFF, cell_num(-1.5e-05), MIN_DIFF, cs("a,b \"q\""),
        MEAN_DIFF, cs("nan\t"), NPU_MAX, cell_num(1), BENCH_MAX, cs("[0, 1]"), -1);
    row(rows[1], "Distributed.all_reduce.0.forward.input.1", MAX_DIFF, cs("N/A"), MIN_DIFF, cs("line\nbreak"),
        MEAN_DIFF, cell_num(3), NPU_MAX, cell_num(2.5), BENCH_MAX, none, -1);
    char *x = write_result("r.xlsx", rows, 2, TABLE_XLSX);
    char *c = write_result("r.csv", rows, 2, TABLE_CSV);
    const char *names[] = {"Distributed.all_reduce"};
    size_t lens[1];
    merge_apis apis = apis_of(names, lens, 1);
    merge_rank rx, rc;
    read_rank(&rx, x, &apis);
    read_rank(&rc, c, &apis);
    assert_int_equal(rx.nnames, 2);
    assert_int_equal(rc.nnames, 2);
    for (int k = 0; k < 10; k++)
        for (size_t i = 0; i < 2; i++) {
            char a[256];
            snprintf(a, sizeof a, "%s", text(&rx, k, i));
            assert_string_equal(a, text(&rc, k, i));
            assert_int_equal(rx.vals[(size_t)k * 2 + i].kind, rc.vals[(size_t)k * 2 + i].kind);
        }
    assert_string_equal(text(&rc, K_MIN_DIFF, 1), "line\nbreak");
    assert_string_equal(text(&rc, K_MAX_DIFF, 0), "-1.5e-05");
    merge_rank_free(&rx);
    merge_rank_free(&rc);
    free(x);
    free(c);
}

static void test_py_float_text(void **state)
{
    static const char *const yes[] = {"1", " -1.5 ", "1_000", "inf", "-Infinity", "NaN", "1e5", ".5", "5.",
                                      "+.5e-3", "1_0.2_5e1_0", "\t2\n", "-inf\t"};
    static const char *const no[] = {"", " ", "1__0", "_1", "1_", "1e", "0x10", "1.5%", "N/A", "--1", "1 2", "e5",
                                     ".", "nan\tx", "+"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        if (!py_float_text(yes[i], strlen(yes[i])))
            fail_msg("float('%s') works in Python", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        if (py_float_text(no[i], strlen(no[i])))
            fail_msg("float('%s') fails in Python", no[i]);
}

static void test_python_str(void **state)
{
    static const struct {
        pyval v;
        const char *want;
    } cases[] = {
        {{.kind = PV_INT, .num = -0.0}, "0"},       {{.kind = PV_INT, .num = 1e20}, "100000000000000000000"},
        {{.kind = PV_INT, .num = -42}, "-42"},      {{.kind = PV_FLOAT, .num = 2}, "2.0"},
        {{.kind = PV_FLOAT, .num = 1e-05}, "1e-05"}, {{.kind = PV_FLOAT, .num = INFINITY}, "inf"},
        {{.kind = PV_FLOAT, .num = NAN}, "nan"},    {{.kind = PV_BOOL, .num = 1}, "True"},
        {{.kind = PV_STR, .text = "tp-0-1", .len = 6}, "tp-0-1"},
        {{.kind = PV_NONE}, "None"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        strbuf sb = STRBUF_INIT;
        py_str_value(&sb, &cases[i].v);
        assert_string_equal(sb_str(&sb), cases[i].want);
        sb_free(&sb);
    }
}

/* The whole command on two ranks; `bad` goes into rank1's Max diff. */
static int run_merge(const char *name, cell bad_name, cell bad_value, const char *config)
{
    char *in = tu_path(tu_dir, name);
    assert_int_equal(mkdir(in, 0700), 0);
    cell rows[2][NCOLS];
    row(rows[0], "Distributed.all_reduce.0.forward.input.0", MAX_DIFF, cs("N/A"), NPU_MAX, cs("tp-0-1"), BENCH_MAX,
        cell_num(3), -1);
    row(rows[1], "Distributed.all_reduce.1.forward.input.0", MAX_DIFF, cell_num(1), -1);
    char sub[600];
    snprintf(sub, sizeof sub, "%s/compare_result_rank0_20260101000000.xlsx", name);
    free(write_result(sub, rows, 2, TABLE_XLSX));
    rows[1][0] = bad_name;
    rows[1][MAX_DIFF] = bad_value;
    snprintf(sub, sizeof sub, "%s/compare_result_rank1-rank1_20260101000000.xlsx", name);
    free(write_result(sub, rows, 2, TABLE_XLSX));
    char cfg_name[300];
    snprintf(cfg_name, sizeof cfg_name, "%s.yaml", name);
    char *cfg = tu_write(tu_dir, cfg_name, config, (size_t)-1);
    snprintf(cfg_name, sizeof cfg_name, "%s_out", name);
    char *out = tu_path(tu_dir, cfg_name);
    merge_opts o = {in, out, cfg};
    err_clear();
    log_set_quiet(1);
    int rc = merge_result_run(&o);
    if (rc == 0) {
        assert_int_equal(tu_count_entries(out), 1);
    } else {
        /* nothing written, not even the directory */
        assert_int_equal(access(out, F_OK), -1);
    }
    free(in);
    free(cfg);
    free(out);
    return rc;
}

static void test_formula_injection_refused(void **state)
{
    static const char cfg[] = "api: [Distributed.all_reduce]\ncompare_index: [Max diff]\n";
    assert_int_equal(run_merge("fine", cs("Distributed.all_reduce.1.forward.input.0"), cs("-1.5"), cfg), 0);
    assert_int_equal(run_merge("value", cs("Distributed.all_reduce.1.forward.input.0"), cs("=1+1"), cfg), EXIT_BADINPUT);
    tu_assert_err("compare_result_rank1-rank1_20260101000000.xlsx: Malicious value [=1+1] is not allowed to be "
                  "written into the merged xlsx.");
    assert_int_equal(run_merge("name", cs("x;@Distributed.all_reduce.1.forward.input.0"), cell_num(1), cfg),
                     EXIT_BADINPUT);
    tu_assert_err("Malicious value [x;@Distributed.all_reduce.1.forward.input.0]");
    /* values of indexes not merged are not looked at */
    assert_int_equal(run_merge("other", cs("Distributed.all_reduce.1.forward.input.0"), cs("+cmd"),
                               "api: [Distributed.all_reduce]\ncompare_index: [Min diff]\n"),
                     0);
}

int main(void)
{
    log_set_prog("test_merge");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_column_typing),
        cmocka_unit_test(test_empty_cell_keeps_objects),
        cmocka_unit_test(test_row_choice),
        cmocka_unit_test(test_status),
        cmocka_unit_test(test_csv_input_reads_like_xlsx),
        cmocka_unit_test(test_py_float_text),
        cmocka_unit_test(test_python_str),
        cmocka_unit_test(test_formula_injection_refused),
    };
    return cmocka_run_group_tests(tests, tu_dir_setup, tu_dir_teardown);
}
