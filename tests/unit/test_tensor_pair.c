/* model/tensor_pair: one pair of tensor files compared, as compare's and
 * graph's tensor modes do it -- a pair read and compared; a missing or
 * unreadable file, or one over a limit, warned about (by kind) and passed
 * over with every metric "unsupported" and no error left behind (one bad
 * file is one bad row); a fatal cause (err_is_fatal: changed while read)
 * returned as the error, not warned about. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/err.h"
#include "base/log.h"
#include "model/tensor_pair.h"
#include "npy_write.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

static void write_pair(void)
{
    const float a[3] = {1, 2, 3}, b[3] = {1, 2, 4};
    const int64_t shape[1] = {3};
    char *pa = tu_path(tu_dir, "a.npy"), *pb = tu_path(tu_dir, "b.npy");
    assert_int_equal(npy_save(pa, DT_F32, 1, shape, a), 0);
    assert_int_equal(npy_save(pb, DT_F32, 1, shape, b), 0);
    free(pa);
    free(pb);
}

static void assert_unsupported(const tensor_metrics *m)
{
    for (int k = 0; k < MET_COUNT; k++)
        assert_int_equal(m->kind[k], MK_UNSUPPORTED);
}

static void test_compared(void **state)
{
    write_pair();
    tensor_metrics m;
    err_clear();
    assert_int_equal(tensor_pair_compare(tu_dir, "a.npy", tu_dir, "b.npy", 0, NULL, &m), TENSOR_PAIR_COMPARED);
    assert_int_equal(m.kind[MET_MAXABS], MK_NUM);
    assert_true(m.value[MET_MAXABS] == 1.0);
    assert_int_equal(err_cause(), ERR_NONE);
}

/* Each side missing or unreadable: warned under its kind, not an error. */
static void test_not_compared(void **state)
{
    write_pair();
    char *bad = tu_write(tu_dir, "bad.npy", "not a tensor file", (size_t)-1);
    free(bad);
    static const struct {
        const char *npu, *bench, *kind;
    } cases[] = {
        {"gone.npy", "b.npy", "tensor files missing"},
        {"a.npy", "gone.npy", "tensor files missing"},
        {"bad.npy", "b.npy", "tensor files unreadable"},
        {"a.npy", "bad.npy", "tensor files unreadable"},
        {"a.npy", "../b.npy", "tensor files unreadable"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t before = log_warn_count(cases[i].kind);
        tensor_metrics m;
        memset(&m, 0, sizeof m);
        err_clear();
        assert_int_equal(tensor_pair_compare(tu_dir, cases[i].npu, tu_dir, cases[i].bench, 0, NULL, &m),
                         TENSOR_PAIR_NOT_COMPARED);
        assert_unsupported(&m);
        assert_int_equal(err_cause(), ERR_NONE);
        assert_int_equal(log_warn_count(cases[i].kind), before + 1);
    }
    log_warn_totals();
}

/* A file over a stated limit (65 dimensions) is one more unreadable
 * file: warned, the pair not compared, the run goes on. */
static void test_over_limit(void **state)
{
    write_pair();
    strbuf h = STRBUF_INIT;
    sb_adds(&h, "{'descr': '<f4', 'fortran_order': False, 'shape': (");
    for (int d = 0; d < 65; d++)
        sb_adds(&h, "1,");
    sb_adds(&h, "), }");
    strbuf f = STRBUF_INIT;
    size_t hl = (10 + h.len + 1 + 63) / 64 * 64 - 10;
    const unsigned char head[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)hl, (unsigned char)(hl >> 8)};
    sb_add(&f, head, 10);
    sb_add(&f, h.buf, h.len);
    while (f.len < 10 + hl - 1)
        sb_addc(&f, ' ');
    sb_add(&f, "\n\0\0\0\0", 5);
    free(tu_write(tu_dir, "deep.npy", f.buf, f.len));
    sb_free(&h);
    sb_free(&f);
    for (int side = 0; side < 2; side++) {
        size_t before = log_warn_count("tensor files unreadable");
        tensor_metrics m;
        err_clear();
        assert_int_equal(tensor_pair_compare(tu_dir, side ? "a.npy" : "deep.npy", tu_dir, side ? "deep.npy" : "b.npy",
                                             0, NULL, &m),
                         TENSOR_PAIR_NOT_COMPARED);
        assert_unsupported(&m);
        assert_int_equal(err_cause(), ERR_NONE);
        assert_int_equal(log_warn_count("tensor files unreadable"), before + 1);
    }
    log_warn_totals();
}

static void test_fatal_causes(void **state)
{
    static const struct {
        int cause, fatal;
    } causes[] = {{ERR_USAGE, 0},     {ERR_MISSING, 0}, {ERR_UNREADABLE, 0}, {ERR_MALFORMED, 0},
                  {ERR_LIMIT, 0},     {ERR_CHANGED, 1}, {ERR_OUTPUT, 0},     {ERR_INTERNAL, 0}};
    err_clear();
    assert_false(err_is_fatal());
    for (size_t i = 0; i < sizeof causes / sizeof *causes; i++) {
        err_set(causes[i].cause, "x", "why");
        assert_int_equal(err_is_fatal(), causes[i].fatal);
        err_clear();
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compared),
        cmocka_unit_test(test_not_compared),
        cmocka_unit_test(test_over_limit),
        cmocka_unit_test(test_fatal_causes),
    };
    return cmocka_run_group_tests(tests, tu_dir_setup, tu_dir_teardown);
}
