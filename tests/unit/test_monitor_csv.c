/* The training monitor's csv files as pandas reads them: columns found by
 * name (with or without micro_step, ops in any order, repeated names),
 * missing-value words, pandas' number parser, quoted fields, series in
 * order of first appearance; and every malformed file refused with its
 * line. Also the run directories and file names of a monitor tree. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "format/monitor_csv.h"
#include "model/monitor_tree.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "py/numfmt.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const OPS[] = {"norm", "min", "max", "zeros", "nans", "id", "mean"};
enum { NOPS = 7 };

typedef struct {
    strbuf out;
    mcsv_header h;
} sink;

static int on_header(void *ctx, const mcsv_header *h)
{
    ((sink *)ctx)->h = *h;
    return 0;
}

/* "line series vpp:name:micro step v0 v1 ..." per row */
static int on_row(void *ctx, const mcsv_row *r)
{
    sink *s = ctx;
    sb_addf(&s->out, "%zu s%zu %lld:%s:%lld %lld", r->line, r->series, r->s->vpp, r->s->name, r->s->micro, r->step);
    for (int i = 0; i < NOPS; i++) {
        char b[NUMFMT_BUFSZ];
        if (!s->h.present[i])
            continue;
        fmt_pyrepr(r->value[i], b);
        sb_addf(&s->out, " %s", b);
    }
    sb_addc(&s->out, '\n');
    return 0;
}

static int read_text(const char *text, sink *s)
{
    memset(s, 0, sizeof *s);
    mcsv_reader r = {OPS, NOPS, on_header, on_row, s, NULL};
    err_clear();
    return mcsv_read("m.csv", text, strlen(text), &r);
}

static void test_rows(void **state)
{
    sink s;
    assert_int_equal(read_text("vpp_stage,name,step,micro_step,min,max,norm,zeros,nans,mean,shape,dtype\n"
                               "0,fc.input,3,0,-2.4,1.9,10.3,0.0,0,-0.04,\"[16, 8]\",torch.float32\n"
                               "0,fc.input,3,1,nan,NaN,inf,-inf,,1e-05,nan,nan\n"
                               "\n"
                               "1,\"a,b\",3,0,1,2,3,4,5,6,[],x\n"
                               "0,fc.input,4,0,-0.0,1.5e3,12345678901234567,0.1,16,2,[1],x\n",
                               &s),
                     0);
    assert_true(s.h.has_micro);
    assert_int_equal(s.h.ncols, 12);
    assert_false(s.h.present[5]);   /* no id column */
    /* the wanted ops in file order: min max norm zeros nans mean */
    assert_int_equal(s.h.nfile_ops, 6);
    assert_int_equal(s.h.file_ops[0], 1);
    assert_int_equal(s.h.file_ops[2], 0);
    assert_string_equal(sb_str(&s.out),
                        "2 s0 0:fc.input:0 3 10.3 -2.4 1.9 0.0 0.0 -0.04\n"
                        "3 s1 0:fc.input:1 3 inf nan nan -inf nan 1e-05\n"
                        "5 s2 1:a,b:0 3 3.0 1.0 2.0 4.0 5.0 6.0\n"
                        "6 s0 0:fc.input:0 4 1.2345678901234568e+16 -0.0 1500.0 0.1 16.0 2.0\n");
    sb_free(&s.out);
}

/* Without micro_step, other column orders, pandas' renamed repeats, an
 * empty name (pandas: nan), a byte order mark. */
static void test_columns(void **state)
{
    sink s;
    assert_int_equal(read_text("\xEF\xBB\xBFname,norm,step,vpp_stage,norm,nans\n,1.5,0,2,9,0\nw,2,1,0,9,3\n", &s), 0);
    assert_false(s.h.has_micro);
    assert_int_equal(s.h.nfile_ops, 2);
    assert_string_equal(sb_str(&s.out), "2 s0 2:nan:0 0 1.5 0.0\n3 s1 0:w:0 1 2.0 3.0\n");
    sb_free(&s.out);
}

static void test_malformed(void **state)
{
    static const struct {
        const char *csv, *err;
    } cases[] = {
        {"vpp_stage,name,norm\n0,a,1\n", "m.csv: line 1: the header has no column 'step'"},
        {"", "m.csv: is empty: no header line"},
        {"vpp_stage,name,step,norm\n0,a,0,1\n0,a,1\n", "m.csv: line 3: 3 fields, the header has 4 (a truncated line?)"},
        {"vpp_stage,name,step,norm\n0,a,0,1,2\n", "m.csv: line 2: 5 fields, the header has 4"},
        {"vpp_stage,name,step,norm\n0,a,x,1\n", "m.csv: line 2: step 'x' is not an integer"},
        {"vpp_stage,name,step,norm\n0,a,1.0,1\n", "m.csv: line 2: step '1.0' is not an integer"},
        {"vpp_stage,name,step,norm\nnan,a,1,1\n", "m.csv: line 2: vpp_stage 'nan' is not an integer"},
        {"vpp_stage,name,step,micro_step,norm\n0,a,1,,1\n", "m.csv: line 2: micro_step '' is not an integer"},
        {"vpp_stage,name,step,norm\n0,a,1,1.2.3\n", "m.csv: line 2: norm '1.2.3' is not a number"},
        {"vpp_stage,name,step,norm\n0,a,1,1\n0,b,1,1\n0,a,1,2\n",
         "m.csv: line 4: step 1 of 'a' appears twice (duplicated step)"},
        {"vpp_stage,name,step,norm\n0,\"a,1,1\n", "m.csv: malformed csv: a quoted field of row 2 is never closed"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sink s;
        assert_int_equal(read_text(cases[i].csv, &s), -1);
        tu_assert_err(cases[i].err);
        sb_free(&s.out);
    }
    /* the same name at another micro step or vpp stage is another series */
    sink s;
    assert_int_equal(read_text("vpp_stage,name,step,micro_step,norm\n0,a,1,0,1\n0,a,1,1,1\n1,a,1,0,1\n", &s), 0);
    sb_free(&s.out);
}

static void test_header_only(void **state)
{
    const char *text = "vpp_stage,name,step,mean,\"shape\"\n0,a,0,x,broken\n";
    mcsv_reader r = {OPS, NOPS, NULL, NULL, NULL, NULL};
    mcsv_header h;
    assert_int_equal(mcsv_read_header("m.csv", text, strlen(text), &r, &h), 0);
    assert_int_equal(h.nfile_ops, 1);
    assert_true(h.present[6]);
}

static void test_times(void **state)
{
    long long t = monitor_time_parse("Nov25_01-23-20", 14);
    assert_true(t > 0);
    assert_int_equal(monitor_time_parse("nov25_01-23-20", 14), t);     /* %b in any case */
    assert_int_equal(monitor_time_parse("Nov25_1-23-20", 13), t - 0);  /* one-digit fields */
    assert_int_equal(monitor_time_parse("Nov25_01-23-21", 14), t + 1);
    assert_true(monitor_time_parse("Dec01_00-00-00", 14) > t);
    assert_true(monitor_time_parse("Jan01_00-00-00", 14) == 0);
    static const char *const bad[] = {"Foo25_01-23-20", "Nov32_01-23-20", "Feb29_00-00-00", "Nov25_24-00-00",
                                      "Nov25_01-60-00", "Nov25_01-23-20x", "Nov25", "Nov00_01-23-20"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(monitor_time_parse(bad[i], strlen(bad[i])), -1);
    assert_int_equal(monitor_time_parse("Nov 5_01-23-20", 14), monitor_time_parse("Nov5_01-23-20", 13));
}

static void test_tree(void **state)
{
    char *dir = tu_mkdtemp();
    static const char *const dirs[] = {"Nov25_01-23-20-rank0-abcd1234", "Nov25_01-23-22-rank0-ffff0000",
                                       "Nov25_01-23-20-rank10-00000000", "Nov25_01-23-20-rank2-00000000",
                                       "Foo25_01-23-20-rank3-00000000",  "Nov25_01-23-20-rank123456-x",
                                       "Nov25_01-23-20_rank4-0",         "anomaly_detected"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char *p = tu_path(dir, dirs[i]);
        mkdir(p, 0700);
        free(p);
    }
    monitor_runs r;
    size_t dropped;
    assert_int_equal(monitor_runs_find(dir, -1, -1, &r, &dropped), 0);
    assert_int_equal(r.n, 3);
    assert_int_equal(r.v[0].rank, 0);
    assert_string_equal(r.v[0].name, "Nov25_01-23-22-rank0-ffff0000");   /* the later stamp */
    assert_int_equal(r.v[1].rank, 2);
    assert_int_equal(r.v[2].rank, 10);
    assert_int_equal(dropped, 1);
    assert_int_equal(r.nbad, 1);
    assert_string_equal(r.bad[0], "Foo25_01-23-20-rank3-00000000");
    monitor_runs_free(&r);
    long long t = monitor_time_parse("Nov25_01-23-21", 14);
    assert_int_equal(monitor_runs_find(dir, t, -1, &r, &dropped), 0);
    assert_int_equal(r.n, 1);
    monitor_runs_free(&r);
    /* the csv files of a run directory */
    char *run = tu_path(dir, dirs[0]);
    static const char *const files[] = {"actv_8-15.csv", "actv_0-7.csv", "actv_grad_0-7.csv", "exp_avg_sq_0-7.csv",
                                        "actv_0-7.csv.bak", "stack_info.csv", "grad_0-7.csv", "other_0-7.csv",
                                        "actv_a-7.csv"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        free(tu_write(run, files[i], "x", 1));
    monitor_files f;
    assert_int_equal(monitor_files_find(run, (1u << MT_COUNT) - 1 - (1u << MT_OTHER), &f), 0);
    assert_int_equal(f.n, 4);
    assert_string_equal(f.v[0].name, "actv_0-7.csv");
    assert_string_equal(f.v[1].name, "actv_8-15.csv");
    assert_int_equal(f.v[1].start, 8);
    assert_int_equal(f.v[1].end, 15);
    assert_string_equal(f.v[2].name, "actv_grad_0-7.csv");
    assert_string_equal(f.v[3].name, "exp_avg_sq_0-7.csv");
    monitor_files_free(&f);
    free(run);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    log_set_prog("test_monitor_csv");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),        cmocka_unit_test(test_columns), cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_header_only), cmocka_unit_test(test_times),   cmocka_unit_test(test_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
