/* The anomaly ranking of msprobe's anomaly_processor: training stages, the
 * ordering matrix of its unit tests (spec/analyzers.md §D.6), the top K
 * against Python's own heapq.nsmallest and sorted() on 40 random records
 * (expected orders computed with CPython 3.11 and a copy of
 * GradAnomalyData), the step list, loading and its skipped records. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "monitor/anomaly/anomaly.h"
#include "base/log.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

static anomaly make(long long rank, long long step, long long micro, long long pp, long long vpp, long long call,
                    const char *tag)
{
    anomaly a;
    memset(&a, 0, sizeof a);
    a.rank = rank;
    a.step = step;
    a.micro_step = micro;
    a.pp_stage = pp;
    a.vpp_stage = vpp;
    a.call_id = call;
    a.tag = tag;
    a.tag_len = strlen(tag);
    a.stage = anomaly_stage(tag, a.tag_len);
    return a;
}

static void test_stage(void **state)
{
    assert_int_equal(anomaly_stage("0:fc.input:0/rank0/actv", 23), STAGE_FORWARD);
    assert_int_equal(anomaly_stage("0:fc.weight/rank0/post_grad", 27), STAGE_BACKWARD);
    assert_int_equal(anomaly_stage("x/actv_grad", 11), STAGE_BACKWARD);
    assert_int_equal(anomaly_stage("0:w/rank0/exp_avg_sq", 20), STAGE_OPTIMIZER);
    assert_int_equal(anomaly_stage("", 0), STAGE_OTHER);
    assert_int_equal(anomaly_stage("0:w/rank0/param_origin", 22), STAGE_OTHER);
    assert_int_equal(anomaly_stage("0:w/rank0/input_grad", 20), STAGE_OTHER);
}

/* msprobe's test_anomaly_processor ordering cases */
static void test_ordering(void **state)
{
    anomaly a = make(0, 1, 0, 0, 0, 0, "x/actv"), b = make(0, 2, 0, 0, 0, 0, "x/actv");
    assert_true(anomaly_lt(&a, &b));       /* step first */
    assert_false(anomaly_lt(&b, &a));
    a = make(0, 1, 0, 0, 0, 0, "x/actv"), b = make(0, 1, 1, 0, 0, 0, "x/actv");
    assert_true(anomaly_lt(&a, &b));       /* then micro step */
    a = make(0, 1, 0, 0, 0, 5, "x/actv"), b = make(0, 1, 0, 0, 0, 0, "x/actv_grad");
    assert_true(anomaly_lt(&a, &b));       /* forward before backward, whatever the call id */
    a = make(0, 1, 0, 0, 0, 9, "x/post_grad"), b = make(0, 1, 0, 0, 0, 0, "x/exp_avg");
    assert_true(anomaly_lt(&a, &b));       /* backward before the optimizer */
    a = make(0, 1, 0, 0, 0, 9, "x/param_origin"), b = make(0, 1, 0, 0, 0, 0, "x/actv");
    assert_true(anomaly_lt(&a, &b));       /* other kinds first */
    a = make(0, 1, 0, 0, 0, 0, "x/actv"), b = make(0, 1, 0, 0, 1, 0, "x/actv");
    assert_true(anomaly_lt(&a, &b));       /* forward: smaller vpp first */
    a = make(0, 1, 0, 0, 1, 0, "x/actv_grad"), b = make(0, 1, 0, 0, 0, 0, "x/actv_grad");
    assert_true(anomaly_lt(&a, &b));       /* backward: larger vpp first */
    a = make(0, 1, 0, 1, 0, 0, "x/post_grad"), b = make(0, 1, 0, 0, 0, 0, "x/post_grad");
    assert_true(anomaly_lt(&a, &b));       /* and larger pp */
    a = make(0, 1, 0, 0, 0, 1, "x/actv"), b = make(0, 1, 0, 0, 0, 2, "x/actv");
    assert_true(anomaly_lt(&a, &b));       /* then call id */
    a = make(3, 1, 0, 0, 0, 1, "x/actv"), b = make(0, 1, 0, 0, 0, 1, "x/actv");
    assert_false(anomaly_lt(&a, &b));      /* the rank is not part of the order */
    assert_false(anomaly_lt(&b, &a));
    assert_false(anomaly_eq(&a, &b));      /* but of equality */
    b.rank = 3;
    assert_true(anomaly_eq(&a, &b));
}

static const struct {
    int rank, step, pp, vpp, call;
    const char *kind;
} RECS[] = {
    {1, 0, 1, 0, -1, "post_grad"},   {0, 1, 0, 0, -1, "actv"},         {1, 1, 0, 0, -1, "post_grad"},
    {1, 0, 0, 0, -1, "post_grad"},   {2, 1, 0, 0, -1, "post_grad"},    {0, 1, 1, 0, -1, "post_grad"},
    {1, 2, 0, 0, -1, "exp_avg"},     {0, 2, 0, 0, -1, "param_origin"}, {2, 2, 1, 1, 3, "post_grad"},
    {1, 1, 1, 0, -1, "actv_grad"},   {0, 2, 1, 1, 0, "param_origin"},  {1, 2, 0, 0, 3, "actv_grad"},
    {1, 0, 1, 1, -1, "actv"},        {2, 2, 1, 1, 0, "post_grad"},     {1, 2, 1, 0, -1, "exp_avg"},
    {1, 2, 0, 0, 0, "post_grad"},    {2, 1, 1, 1, 0, "actv"},          {1, 1, 0, 0, 3, "actv"},
    {0, 1, 0, 0, 3, "param_origin"}, {1, 0, 0, 1, 3, "post_grad"},     {1, 0, 1, 1, 3, "exp_avg"},
    {2, 1, 0, 0, -1, "actv_grad"},   {0, 0, 0, 0, 3, "post_grad"},     {0, 1, 1, 0, -1, "param_origin"},
    {2, 1, 1, 0, -1, "param_origin"}, {2, 2, 1, 1, 3, "param_origin"}, {0, 1, 1, 0, -1, "actv"},
    {0, 1, 0, 0, 0, "post_grad"},    {0, 0, 0, 0, -1, "exp_avg"},      {2, 0, 0, 0, 3, "actv_grad"},
    {2, 1, 1, 1, 3, "actv"},         {0, 1, 1, 1, 3, "exp_avg"},       {0, 0, 0, 1, 0, "param_origin"},
    {2, 0, 0, 0, 0, "actv_grad"},    {2, 2, 0, 1, -1, "exp_avg"},      {2, 1, 0, 1, -1, "post_grad"},
    {2, 2, 1, 0, -1, "actv_grad"},   {1, 2, 0, 0, 3, "exp_avg"},       {2, 0, 0, 1, 3, "exp_avg"},
    {0, 2, 1, 1, 0, "exp_avg"},
};
enum { NRECS = sizeof RECS / sizeof RECS[0] };

/* Python: heapq.nsmallest(k, records) for k < 40, sorted(records) else */
static const size_t K20[] = {32, 12, 19, 0, 3, 33, 29, 22, 20, 38, 28, 24, 23, 18, 1, 17, 26, 16, 30, 35};
static const size_t K39[] = {32, 12, 19, 0,  3,  33, 22, 29, 20, 38, 28, 23, 24, 18, 1,  17, 26, 16, 30, 35,
                             9,  5,  21, 2,  4,  27, 31, 10, 25, 7,  13, 8,  36, 15, 11, 39, 34, 14, 6};
static const size_t SORTED[] = {32, 12, 19, 0,  3,  33, 22, 29, 20, 38, 28, 23, 24, 18, 1,  17, 26, 16, 30, 35,
                                5,  9,  2,  4,  21, 27, 31, 10, 25, 7,  13, 8,  36, 15, 11, 39, 34, 14, 6,  37};
static const size_t K8[] = {32, 12, 19, 0, 3, 33, 22, 29};

static void test_top_k_like_python(void **state)
{
    anomaly a[NRECS];
    char tags[NRECS][64];
    const anomaly *in[NRECS];
    for (size_t i = 0; i < NRECS; i++) {
        snprintf(tags[i], sizeof tags[i], "0:m/rank0/%s", RECS[i].kind);
        a[i] = make(RECS[i].rank, RECS[i].step, 0, RECS[i].pp, RECS[i].vpp, RECS[i].call, tags[i]);
        in[i] = &a[i];
    }
    size_t out[NRECS];
    assert_int_equal(anomaly_top_k(in, NRECS, 1, out), 1);
    assert_int_equal(out[0], 32);
    assert_int_equal(anomaly_top_k(in, NRECS, 8, out), 8);
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(out[i], K8[i]);
    /* ties between records that are equal but of different stages follow
     * the heap, not the stable sort: 29 before 22 */
    assert_int_equal(anomaly_top_k(in, NRECS, 20, out), 20);
    for (size_t i = 0; i < 20; i++)
        assert_int_equal(out[i], K20[i]);
    assert_int_equal(anomaly_top_k(in, NRECS, 39, out), 39);
    for (size_t i = 0; i < 39; i++)
        assert_int_equal(out[i], K39[i]);
    for (size_t k = NRECS; k <= NRECS + 60; k += 60) {
        assert_int_equal(anomaly_top_k(in, NRECS, k, out), NRECS);
        for (size_t i = 0; i < NRECS; i++)
            assert_int_equal(out[i], SORTED[i]);
    }
    assert_int_equal(anomaly_top_k(in, 0, 5, out), 0);
}

/* Loading: rank directories by number, records in file order, a record
 * msprobe cannot build skipped, a file that is no object refused. */
static void test_load(void **state)
{
    char *dir = tu_mkdtemp();
    char *r10 = tu_path(dir, "rank10"), *r2 = tu_path(dir, "rank2"), *x = tu_path(dir, "extra");
    mkdir(r10, 0700);
    mkdir(r2, 0700);
    mkdir(x, 0700);
    free(tu_write(r10, "anomaly.json", "{\"a_step_1_call_0\": {\"rank\": 10, \"step\": 1, \"tag_name\": \"a/actv\"}}",
                  (size_t)-1));
    free(tu_write(r2, "anomaly.json",
                  "{\"b\": {\"rank\": 2, \"step\": 5, \"tag_name\": \"b/actv\", \"message\": \"m\"}, "
                  "\"c\": {\"rank\": 2, \"bogus\": 1}, \"d\": {\"step\": \"3\", \"tag_name\": \"d\"}, "
                  "\"e\": {\"step\": 4}}",
                  (size_t)-1));
    anomaly_list l;
    log_set_quiet(1);
    assert_int_equal(anomaly_load(dir, &l), 0);
    log_set_quiet(0);
    assert_int_equal(l.files, 2);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.skipped, 3);
    assert_int_equal(l.v[0].rank, 2);     /* rank2 before rank10 */
    assert_int_equal(l.v[0].step, 5);
    assert_int_equal(l.v[1].rank, 10);
    {
        /* the fields are read again from the record's text */
        const jval *field[AF_COUNT];
        arena a;
        arena_init(&a, 4096);
        assert_int_equal(anomaly_fields_of(&l, &l.v[1], &a, field), 0);
        assert_null(field[AF_MESSAGE]);   /* msprobe's default "" */
        assert_non_null(field[AF_TAG_NAME]);
        assert_int_equal(anomaly_fields_of(&l, &l.v[0], &a, field), 0);
        assert_true(json_str_eq(field[AF_MESSAGE], "m"));
        arena_free(&a);
    }
    anomaly_list_free(&l);
    /* what is no rank directory is skipped, named (the one rule of rank
     * directories, model/dumptree): its file is not even read */
    free(tu_write(x, "anomaly.json", "[1]", (size_t)-1));
    log_set_quiet(1);
    assert_int_equal(anomaly_load(dir, &l), 0);
    log_set_quiet(0);
    assert_int_equal(l.files, 2);
    anomaly_list_free(&l);
    free(tu_write(r2, "anomaly.json", "[1]", (size_t)-1));
    assert_int_equal(anomaly_load(dir, &l), -1);
    tu_assert_err("rank2/anomaly.json: is not a JSON object of anomaly records");
    anomaly_list_free(&l);
    /* a step beyond the integer range is an error, not a record skipped */
    free(tu_write(r2, "anomaly.json", "{\"b\": {\"step\": 123456789012345678901, \"tag_name\": \"b/actv\"}}",
                  (size_t)-1));
    assert_int_equal(anomaly_load(dir, &l), -1);
    tu_assert_err("rank2/anomaly.json: record 'b' has a 'step' of 123456789012345678901, beyond the integer range");
    anomaly_list_free(&l);
    /* rank2 and rank02: two dumps of rank 2, not read twice */
    free(tu_write(r2, "anomaly.json", "{}", (size_t)-1));
    char *r02 = tu_path(dir, "rank02");
    mkdir(r02, 0700);
    assert_int_equal(anomaly_load(dir, &l), -1);
    tu_assert_err("holds both rank02 and rank2: two dumps of rank 2");
    anomaly_list_free(&l);
    free(r02);
    free(r10);
    free(r2);
    free(x);
    tu_rmtree(dir);
    free(dir);
}

static void test_key(void **state)
{
    anomaly a = make(0, 12, 0, 0, 0, -1, "0:fc.weight/rank0/exp_avg");
    char *k;
    size_t n;
    anomaly_key(&a, &k, &n);
    assert_string_equal(k, "0:fc.weight/rank0/exp_avg_step_12_call_-1");
    assert_int_equal(n, strlen(k));
    free(k);
}

int main(void)
{
    log_set_prog("test_anomaly");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stage), cmocka_unit_test(test_ordering), cmocka_unit_test(test_top_k_like_python),
        cmocka_unit_test(test_load),  cmocka_unit_test(test_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
