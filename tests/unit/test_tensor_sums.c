/* Unit tests of model/tensor_sums: the vector kernel against the
 * element-by-element path and a long double reference, for every pairing
 * of float32 / bfloat16 / float16 operands, contiguous and strided views,
 * ranges that split a tensor, NaN and inf, and numpy.allclose. */
#include "model/tensor_sums.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53 * 2 - 1;
}

/* A 1-d contiguous tensor of n elements of dtype dt, values v[]. */
static void make(tensor *t, dtype_id dt, const float *v, size_t n, void *buf)
{
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    int64_t shape = (int64_t)n;
    assert_int_equal(tensor_set_shape(t, "t", 1, &shape, 0), 0);
    for (size_t i = 0; i < n; i++) {
        if (dt == DT_F32)
            ((float *)buf)[i] = v[i];
        else if (dt == DT_BF16)
            ((uint16_t *)buf)[i] = f32_to_bf16(v[i]);
        else
            ((uint16_t *)buf)[i] = f32_to_f16(v[i]);
    }
    t->storage = buf;
    t->storage_size = n * dtype_size(dt);
    assert_int_equal(tensor_check_view(t, "t"), 0);
}

/* The exact sums of the values as float32 (a - b rounded to float32). */
static void reference(const tensor *a, const tensor *b, size_t start, size_t n, long double *s)
{
    float x, y;
    s[0] = s[1] = s[2] = s[3] = 0;
    for (size_t i = start; i < start + n; i++) {
        tensor_read_f32(a, i, 1, &x);
        tensor_read_f32(b, i, 1, &y);
        long double d = (float)(x - y);
        s[0] += (long double)x * y;
        s[1] += (long double)x * x;
        s[2] += (long double)y * y;
        s[3] += d * d;
    }
}

static void close_to(double got, long double want, const char *what)
{
    if (fabsl(got - want) > 1e-13L * fabsl(want) + 1e-300L)
        fail_msg("%s: %.17g, exactly %.20Lg", what, got, want);
}

static void pairings(void **state)
{
    (void)state;
    enum { N = 10007 };
    static float va[N], vb[N];
    static uint32_t ba[N], bb[N];
    for (size_t i = 0; i < N; i++) {
        va[i] = (float)uniform();
        vb[i] = va[i] + (float)(uniform() * 1e-3);
    }
    static const dtype_id dts[] = {DT_F32, DT_BF16, DT_F16};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) {
            tensor a, b;
            make(&a, dts[i], va, N, ba);
            make(&b, dts[k], vb, N, bb);
            long double ref[4];
            /* the whole tensor, then three ranges that add up to it */
            static const size_t cuts[][2] = {{0, N}, {0, 3}, {3, 5000}, {5003, N - 5003}};
            tensor_sums total = {0, 0, 0, 0}, parts = {0, 0, 0, 0}, scalar = {0, 0, 0, 0};
            tensor_sums_add(&a, &b, 0, N, 0, &total);
            tensor_sums_add(&a, &b, 0, N, TSUMS_SCALAR, &scalar);
            for (int c = 1; c < 4; c++)
                tensor_sums_add(&a, &b, cuts[c][0], cuts[c][1], 0, &parts);
            reference(&a, &b, 0, N, ref);
            const tensor_sums *all[] = {&total, &parts, &scalar};
            for (int t = 0; t < 3; t++) {
                close_to(all[t]->dot, ref[0], "dot");
                close_to(all[t]->aa, ref[1], "aa");
                close_to(all[t]->bb, ref[2], "bb");
                close_to(all[t]->dd, ref[3], "dd");
            }
        }
}

/* A column slice of a row-major matrix: strided, read element by element. */
static void strided(void **state)
{
    (void)state;
    float m[6 * 4], n[6 * 4];
    for (int i = 0; i < 24; i++) {
        m[i] = (float)i;
        n[i] = (float)(i * 2);
    }
    tensor a, b;
    make(&a, DT_F32, m, 24, m);
    make(&b, DT_F32, n, 24, n);
    int64_t shape[2] = {6, 2};
    for (tensor *t = &a; t; t = t == &a ? &b : NULL) {
        assert_int_equal(tensor_set_shape(t, "t", 2, shape, 0), 0);
        t->stride[0] = 4;
        t->stride[1] = 1;
        t->offset = 1; /* columns 1 and 2 */
        assert_int_equal(tensor_check_view(t, "t"), 0);
        assert_false(t->contiguous);
    }
    tensor_sums s = {0, 0, 0, 0};
    tensor_sums_add(&a, &b, 0, 12, 0, &s);
    double dot = 0, aa = 0, dd = 0;
    for (int r = 0; r < 6; r++)
        for (int c = 1; c <= 2; c++) {
            double x = r * 4 + c;
            dot += x * 2 * x;
            aa += x * x;
            dd += x * x;
        }
    assert_true(s.dot == dot);
    assert_true(s.aa == aa);
    assert_true(s.bb == 4 * aa);
    assert_true(s.dd == dd);
}

static void specials(void **state)
{
    (void)state;
    float a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    tensor x, y;
    b[5] = NAN;
    make(&x, DT_F32, a, 8, a);
    make(&y, DT_F32, b, 8, b);
    tensor_sums s = {0, 0, 0, 0};
    tensor_sums_add(&x, &y, 0, 8, 0, &s);
    assert_true(isnan(s.dot) && isnan(s.dd) && isnan(s.bb));
    assert_true(s.aa == 204);
    assert_int_equal(tensor_allclose(&x, &y, 0, 8), 0);
    b[5] = INFINITY;
    a[5] = INFINITY;
    assert_int_equal(tensor_allclose(&x, &y, 0, 8), 1);
    b[5] = 6;
    a[5] = 6;
    /* 1e-8 + 1e-5 * |b| in float32 */
    b[7] = 8.00007f;
    assert_int_equal(tensor_allclose(&x, &y, 0, 8), 1);
    b[7] = 8.0001f;
    assert_int_equal(tensor_allclose(&x, &y, 0, 8), 0);
    assert_int_equal(tensor_allclose(&x, &y, 0, 7), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pairings),
        cmocka_unit_test(strided),
        cmocka_unit_test(specials),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
