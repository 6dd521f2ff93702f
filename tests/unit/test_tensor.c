/* dtype table, exact 16-bit float conversion, views and element access. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/err.h"
#include "format/tensor_file.h"
#include "format/tensor.h"
#include "tensor_testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float bitsf(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

static void test_dtype_table(void **state)
{
    (void)state;
    static const struct {
        dtype_id dt;
        const char *name;
        size_t size;
    } want[] = {
        { DT_BOOL, "bool", 1 }, { DT_I8, "int8", 1 }, { DT_U8, "uint8", 1 }, { DT_I16, "int16", 2 },
        { DT_U16, "uint16", 2 }, { DT_I32, "int32", 4 }, { DT_U32, "uint32", 4 }, { DT_I64, "int64", 8 },
        { DT_U64, "uint64", 8 }, { DT_F16, "float16", 2 }, { DT_BF16, "bfloat16", 2 }, { DT_F32, "float32", 4 },
        { DT_F64, "float64", 8 }, { DT_C64, "complex64", 8 }, { DT_C128, "complex128", 16 },
    };
    assert_int_equal(sizeof want / sizeof want[0], DT_COUNT);
    for (size_t i = 0; i < DT_COUNT; i++) {
        assert_string_equal(dtype_name(want[i].dt), want[i].name);
        assert_int_equal(dtype_size(want[i].dt), want[i].size);
        char torch[32];
        snprintf(torch, sizeof torch, "torch.%s", want[i].name);
        assert_string_equal(dtype_torch_name(want[i].dt), torch);
    }
    assert_string_equal(dtype_name(DT_COUNT), "unknown");
    assert_string_equal(dtype_name((dtype_id)-1), "unknown");
    assert_int_equal(dtype_size(DT_COUNT), 0);
    assert_true(dtype_is_float(DT_BF16) && dtype_is_float(DT_F64) && !dtype_is_float(DT_C64));
    assert_true(dtype_is_complex(DT_C128) && !dtype_is_complex(DT_F32));
    assert_true(dtype_is_integer(DT_U64) && dtype_is_integer(DT_I8) && !dtype_is_integer(DT_BOOL));
}

/* The IEEE binary16 value of h computed the slow, obvious way. */
static double half_reference(uint16_t h)
{
    int sign = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
    return sign ? -v : v;
}

static void test_f16_every_pattern(void **state)
{
    (void)state;
    for (uint32_t i = 0; i < 65536; i++) {
        uint16_t h = (uint16_t)i;
        float f = f16_to_f32(h);
        double d = f16_to_f64(h);
        int e = (h >> 10) & 31, m = h & 1023;
        if (e == 31) {
            /* inf / NaN: sign and payload land in the top mantissa bits. */
            uint32_t want = (uint32_t)(h & 0x8000) << 16 | 0x7f800000u | (uint32_t)m << 13;
            assert_int_equal(fbits(f), want);
            assert_int_equal(signbit(d) != 0, (h >> 15) != 0);
            if (m) {
                assert_true(isnan(d));
                /* double keeps the payload; only the quiet bit may be added */
                assert_int_equal((dbits(d) >> 42) & 0x1ff, (uint64_t)m & 0x1ff);
                assert_int_equal((dbits(d) & ((1ull << 42) - 1)), 0);
            } else {
                assert_true(isinf(d));
            }
        } else {
            assert_true(f == half_reference(h));
            assert_true(d == half_reference(h));
            assert_int_equal(signbit(f) != 0, (h >> 15) != 0);
        }
        assert_int_equal(f32_to_f16(f), h); /* exact round trip, NaNs included */
    }
}

static void test_bf16_every_pattern(void **state)
{
    (void)state;
    for (uint32_t i = 0; i < 65536; i++) {
        uint16_t b = (uint16_t)i;
        float f = bf16_to_f32(b);
        assert_int_equal(fbits(f), (uint32_t)b << 16);
        double d = bf16_to_f64(b);
        if (isnan(f)) {
            assert_true(isnan(d));
            assert_int_equal(signbit(d) != 0, (b >> 15) != 0);
        } else {
            assert_true(d == (double)f);
        }
        assert_int_equal(f32_to_bf16(f), b);
    }
}

/* Every rounding boundary: the midpoint between neighbouring halves goes to
 * the even one, and the floats just either side of it go to the nearer. */
static void test_f32_to_f16_rounding(void **state)
{
    (void)state;
    for (uint16_t h = 0; h < 0x7bff; h++) {
        float lo = f16_to_f32(h), hi = f16_to_f32((uint16_t)(h + 1));
        float mid = (lo + hi) / 2; /* exact: 12 significant bits */
        assert_true((double)mid * 2 == (double)lo + hi);
        assert_int_equal(f32_to_f16(mid), (h & 1) ? h + 1 : h);
        assert_int_equal(f32_to_f16(nextafterf(mid, 0)), h);
        assert_int_equal(f32_to_f16(nextafterf(mid, INFINITY)), h + 1);
        assert_int_equal(f32_to_f16(-mid), 0x8000 | ((h & 1) ? h + 1 : h));
    }
    assert_int_equal(f32_to_f16(65519.996f), 0x7bff);
    assert_int_equal(f32_to_f16(65520.0f), 0x7c00);
    assert_int_equal(f32_to_f16(1e30f), 0x7c00);
    assert_int_equal(f32_to_f16(-INFINITY), 0xfc00);
    assert_int_equal(f32_to_f16(ldexpf(1, -25)), 0x0000);              /* tie to even: 0 */
    assert_int_equal(f32_to_f16(nextafterf(ldexpf(1, -25), 1)), 0x0001);
    assert_int_equal(f32_to_f16(ldexpf(1, -40)), 0x0000);
    assert_int_equal(f32_to_f16(-ldexpf(1, -40)), 0x8000);
    assert_int_equal(f32_to_f16(ldexpf(1, -14)), 0x0400);              /* smallest normal */
    /* NaN with a payload that does not survive truncation stays a NaN */
    assert_int_equal(f32_to_f16(bitsf(0x7f800001u)), 0x7e00);
    assert_int_equal(f32_to_f16(bitsf(0xffc00000u)), 0xfe00);
}

static void test_f32_to_bf16_rounding(void **state)
{
    (void)state;
    for (uint16_t b = 0; b < 0x7f7f; b++) {
        float lo = bf16_to_f32(b), hi = bf16_to_f32((uint16_t)(b + 1));
        float mid = bitsf(((uint32_t)b << 16) + 0x8000u);
        assert_true((double)mid * 2 == (double)lo + hi);
        assert_int_equal(f32_to_bf16(mid), (b & 1) ? b + 1 : b);
        assert_int_equal(f32_to_bf16(nextafterf(mid, 0)), b);
        assert_int_equal(f32_to_bf16(nextafterf(mid, INFINITY)), b + 1);
    }
    assert_int_equal(f32_to_bf16(bitsf(0x7f7fffffu)), 0x7f80); /* FLT_MAX rounds to inf */
    assert_int_equal(f32_to_bf16(bitsf(0x7f800001u)), 0x7fc0);
    assert_int_equal(f32_to_bf16(bitsf(0xff812345u)), 0xff81);
}

static void test_set_shape(void **state)
{
    (void)state;
    tensor t = { .dtype = DT_F32 };
    int64_t s[] = { 2, 3, 4 };
    assert_int_equal(tensor_set_shape(&t, "x", 3, s, 0), 0);
    assert_int_equal(t.numel, 24);
    assert_true(t.stride[0] == 12 && t.stride[1] == 4 && t.stride[2] == 1);
    assert_int_equal(tensor_set_shape(&t, "x", 3, s, 1), 0);
    assert_true(t.stride[0] == 1 && t.stride[1] == 2 && t.stride[2] == 6);
    assert_int_equal(tensor_set_shape(&t, "x", 0, s, 0), 0);
    assert_int_equal(t.numel, 1);

    int64_t huge[] = { (int64_t)1 << 40, (int64_t)1 << 23 };   /* 2^63 elements */
    assert_int_equal(tensor_set_shape(&t, "x", 2, huge, 0), -1);
    assert_non_null(strstr(err_message(), "more than 281474976710656 elements"));
    assert_int_equal(err_cause(), ERR_LIMIT);
    int64_t at_limit[] = { (int64_t)1 << 24, (int64_t)1 << 24 }; /* TENSOR_MAX_ELEMENTS exactly: its size is fine */
    assert_int_equal(tensor_set_shape(&t, "x", 2, at_limit, 0), 0);
    int64_t past_limit[] = { ((int64_t)1 << 24) + 1, (int64_t)1 << 24 };
    assert_int_equal(tensor_set_shape(&t, "x", 2, past_limit, 0), -1);
    assert_int_equal(err_cause(), ERR_LIMIT);
    int64_t bytes_overflow[] = { (int64_t)1 << 62 };            /* fits, but not times 4 bytes */
    assert_int_equal(tensor_set_shape(&t, "x", 1, bytes_overflow, 0), -1);
    int64_t max[] = { INT64_MAX, INT64_MAX };
    assert_int_equal(tensor_set_shape(&t, "x", 2, max, 0), -1);
    int64_t zero_but_absurd[] = { 0, INT64_MAX, INT64_MAX };
    assert_int_equal(tensor_set_shape(&t, "x", 3, zero_but_absurd, 0), -1);
    int64_t neg[] = { 3, -1 };
    assert_int_equal(tensor_set_shape(&t, "x", 2, neg, 0), -1);
    assert_non_null(strstr(err_message(), "negative"));
    int64_t many[TENSOR_MAX_DIMS + 1];
    for (int i = 0; i <= TENSOR_MAX_DIMS; i++)
        many[i] = 1;
    assert_int_equal(tensor_set_shape(&t, "x", TENSOR_MAX_DIMS + 1, many, 0), -1);
    assert_non_null(strstr(err_message(), "tensor has 65 dimensions, at most 64 are supported"));
    assert_int_equal(err_cause(), ERR_LIMIT);
    assert_int_equal(tensor_set_shape(&t, "x", TENSOR_MAX_DIMS, many, 0), 0);
    int64_t empty[] = { 4, 0, 5 };
    assert_int_equal(tensor_set_shape(&t, "x", 3, empty, 0), 0);
    assert_int_equal(t.numel, 0);
}

static void view(tensor *t, dtype_id dt, const void *storage, size_t bytes, int ndim, const int64_t *shape,
                 const int64_t *stride, int64_t offset)
{
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    assert_int_equal(tensor_set_shape(t, "v", ndim, shape, 0), 0);
    if (stride)
        memcpy(t->stride, stride, (size_t)ndim * sizeof *stride);
    t->offset = offset;
    t->storage = storage;
    t->storage_size = bytes;
}

static void test_check_view(void **state)
{
    (void)state;
    float buf[12] = { 0 };
    tensor t;
    int64_t shape[] = { 3, 4 }, st[] = { 4, 1 };
    view(&t, DT_F32, buf, sizeof buf, 2, shape, st, 0);
    assert_int_equal(tensor_check_view(&t, "v"), 0);
    assert_true(t.contiguous);
    assert_ptr_equal(tensor_contiguous_data(&t), buf);

    view(&t, DT_F32, buf, sizeof buf, 2, shape, st, 1); /* one past the end */
    assert_int_equal(tensor_check_view(&t, "v"), -1);
    assert_non_null(strstr(err_message(), "too short"));

    int64_t far[] = { INT64_MAX / 2, 1 };
    view(&t, DT_F32, buf, sizeof buf, 2, shape, far, 0);
    assert_int_equal(tensor_check_view(&t, "v"), -1);

    int64_t negst[] = { -4, 1 };
    view(&t, DT_F32, buf, sizeof buf, 2, shape, negst, 8);
    assert_int_equal(tensor_check_view(&t, "v"), -1);
    assert_non_null(strstr(err_message(), "negative stride"));

    view(&t, DT_F32, buf, sizeof buf, 2, shape, st, -1);
    assert_int_equal(tensor_check_view(&t, "v"), -1);

    view(&t, DT_F32, buf, sizeof buf, 2, shape, st, INT64_MAX - 2);
    assert_int_equal(tensor_check_view(&t, "v"), -1);

    /* transposed: valid but not contiguous */
    int64_t tshape[] = { 4, 3 }, tst[] = { 1, 4 };
    view(&t, DT_F32, buf, sizeof buf, 2, tshape, tst, 0);
    assert_int_equal(tensor_check_view(&t, "v"), 0);
    assert_false(t.contiguous);
    assert_null(tensor_contiguous_data(&t));

    /* size-1 dimensions do not break contiguity whatever their stride */
    int64_t oshape[] = { 1, 12, 1 }, ost[] = { 99, 1, 7 };
    view(&t, DT_F32, buf, sizeof buf, 3, oshape, ost, 0);
    assert_int_equal(tensor_check_view(&t, "v"), 0);
    assert_true(t.contiguous);

    /* empty views reach nothing and need no storage */
    int64_t eshape[] = { 0, 5 };
    view(&t, DT_F32, NULL, 0, 2, eshape, NULL, 1000);
    assert_int_equal(tensor_check_view(&t, "v"), 0);
    assert_null(tensor_contiguous_data(&t));
    double out[4];
    assert_int_equal(tensor_read_f64(&t, 0, 4, out), 0);
}

/* A 3-d view with permuted strides and an offset over a 1-d storage,
 * compared element by element with the obvious index arithmetic, read in
 * chunks of every size from every start. */
static void test_strided_chunks(void **state)
{
    (void)state;
    float storage[200];
    for (int i = 0; i < 200; i++)
        storage[i] = (float)i * 0.5f - 7;
    int64_t shape[] = { 3, 4, 5 }, stride[] = { 2, 30, 6 };
    int64_t offset = 3;
    tensor t;
    view(&t, DT_F32, storage, sizeof storage, 3, shape, stride, offset);
    assert_int_equal(tensor_check_view(&t, "v"), 0);
    assert_false(t.contiguous);
    double want[60];
    size_t k = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            for (int l = 0; l < 5; l++)
                want[k++] = storage[offset + i * 2 + j * 30 + l * 6];
    double got[64];
    float gotf[64];
    for (size_t start = 0; start <= 60; start++)
        for (size_t count = 1; count <= 61 - start + 1; count++) {
            size_t n = tensor_read_f64(&t, start, count, got);
            size_t expect = start >= 60 ? 0 : (60 - start < count ? 60 - start : count);
            assert_int_equal(n, expect);
            for (size_t i = 0; i < n; i++)
                assert_true(got[i] == want[start + i]);
            assert_int_equal(tensor_read_f32(&t, start, count, gotf), expect);
            for (size_t i = 0; i < n; i++)
                assert_true(gotf[i] == (float)want[start + i]);
        }
}

static void test_merged_dims_and_broadcast(void **state)
{
    (void)state;
    int32_t storage[64];
    for (int i = 0; i < 64; i++)
        storage[i] = i;
    /* rows 1..3 of an 4x8 grid, full width: one dense run after merging */
    int64_t shape[] = { 3, 2, 4 }, stride[] = { 8, 4, 1 };
    tensor t;
    view(&t, DT_I32, storage, sizeof storage, 3, shape, stride, 8);
    assert_int_equal(tensor_check_view(&t, "v"), 0);
    assert_true(t.contiguous);
    double out[24];
    assert_int_equal(tensor_read_f64(&t, 0, 24, out), 24);
    for (int i = 0; i < 24; i++)
        assert_true(out[i] == 8 + i);
    /* expand(): stride 0 repeats */
    int64_t bshape[] = { 3, 2 }, bstride[] = { 0, 1 };
    view(&t, DT_I32, storage, sizeof storage, 2, bshape, bstride, 5);
    assert_int_equal(tensor_check_view(&t, "v"), 0);
    assert_int_equal(tensor_read_f64(&t, 1, 5, out), 5);
    double want[] = { 6, 5, 6, 5, 6 };
    for (int i = 0; i < 5; i++)
        assert_true(out[i] == want[i]);
    /* every other column: inner stride 2 */
    int64_t cshape[] = { 2, 4 }, cstride[] = { 8, 2 };
    view(&t, DT_I32, storage, sizeof storage, 2, cshape, cstride, 1);
    assert_int_equal(tensor_check_view(&t, "v"), 0);
    assert_int_equal(tensor_read_f64(&t, 0, 8, out), 8);
    double want2[] = { 1, 3, 5, 7, 9, 11, 13, 15 };
    for (int i = 0; i < 8; i++)
        assert_true(out[i] == want2[i]);
}

/* Every dtype, native and byte-swapped, contiguous and strided, through
 * every accessor. */
static void test_every_dtype_both_orders(void **state)
{
    (void)state;
    static const double vals[] = { 0, 1, -2, 3, 100, -7, 5, 0.5 };
    for (int d = 0; d < DT_COUNT; d++) {
        dtype_id dt = (dtype_id)d;
        size_t es = dtype_size(dt);
        unsigned char native[8 * 16], swapped[8 * 16];
        double expect[8], expect_im[8];
        for (int i = 0; i < 8; i++) {
            double v = vals[i];
            if (dtype_is_integer(dt) && (v != floor(v) || (v < 0 && (dt == DT_U8 || dt == DT_U16 || dt == DT_U32
                                                                      || dt == DT_U64))))
                v = i;
            if (dt == DT_BOOL)
                v = i % 3 == 0;
            expect[i] = v;
            expect_im[i] = dtype_is_complex(dt) ? -v / 4 : 0;
            unsigned char *p = native + es * (size_t)i;
            tt_store(dt, v, expect_im[i], p);
            tt_swap_elem(dt, p, swapped + es * (size_t)i);
        }
        for (int swap = 0; swap < 2; swap++)
            for (int strided = 0; strided < 2; strided++) {
                tensor t;
                int64_t shape[] = { strided ? 4 : 8 }, stride[] = { strided ? 2 : 1 };
                view(&t, dt, swap ? swapped : native, 8 * es, 1, shape, stride, 0);
                t.byteswap = swap && es > 1;
                assert_int_equal(tensor_check_view(&t, "v"), 0);
                size_t n = (size_t)shape[0];
                double out[16];
                float outf[8];
                unsigned char raw[8 * 16];
                assert_int_equal(tensor_read_f64(&t, 0, 99, out), n);
                for (size_t i = 0; i < n; i++)
                    assert_true(out[i] == expect[i * (size_t)stride[0]]);
                assert_int_equal(tensor_read_f32(&t, 0, n, outf), n);
                for (size_t i = 0; i < n; i++)
                    assert_true(outf[i] == (float)expect[i * (size_t)stride[0]]);
                assert_int_equal(tensor_read_complex(&t, 0, n, out), n);
                for (size_t i = 0; i < n; i++) {
                    assert_true(out[2 * i] == expect[i * (size_t)stride[0]]);
                    assert_true(out[2 * i + 1] == expect_im[i * (size_t)stride[0]]);
                }
                assert_int_equal(tensor_read_raw(&t, 0, n, raw), n);
                for (size_t i = 0; i < n; i++)
                    assert_memory_equal(raw + i * es, native + i * (size_t)stride[0] * es, es);
                assert_int_equal(tensor_contiguous_data(&t) != NULL, !swap || es == 1 ? !strided : 0);
            }
    }
}

static void test_rounding_to_float(void **state)
{
    (void)state;
    /* int64 and float64 round once, to nearest, into float */
    int64_t big[] = { ((int64_t)1 << 53) + 1, ((int64_t)1 << 24) + 1, INT64_MIN };
    tensor t;
    int64_t shape[] = { 3 };
    view(&t, DT_I64, big, sizeof big, 1, shape, NULL, 0);
    assert_int_equal(tensor_check_view(&t, "v"), 0);
    float f[3];
    double d[3];
    assert_int_equal(tensor_read_f32(&t, 0, 3, f), 3);
    assert_int_equal(tensor_read_f64(&t, 0, 3, d), 3);
    assert_true(f[0] == 9007199254740992.0f && f[1] == 16777216.0f && f[2] == -9223372036854775808.0f);
    assert_true(d[0] == 9007199254740992.0 && d[2] == -9223372036854775808.0);
    /* through double this would round twice (2^60 + 2^36 + 1 → 2^60 + 2^36,
     * a tie, → 2^60); rounded once it is 2^60 + 2^37 */
    int64_t tricky[] = { ((int64_t)1 << 60) + ((int64_t)1 << 36) + 1 };
    int64_t one[] = { 1 };
    view(&t, DT_I64, tricky, sizeof tricky, 1, one, NULL, 0);
    assert_int_equal(tensor_check_view(&t, "v"), 0);
    assert_int_equal(tensor_read_f32(&t, 0, 1, f), 1);
    /* valgrind emulates the int64 → float instruction through double */
    const char *preload = getenv("LD_PRELOAD");
    if (!preload || !strstr(preload, "vgpreload"))
        assert_true(f[0] == ldexpf(1, 60) + ldexpf(1, 37));
    double x[] = { 16777217.0 + ldexp(1, -20) };
    view(&t, DT_F64, x, sizeof x, 1, one, NULL, 0);
    assert_int_equal(tensor_check_view(&t, "v"), 0);
    assert_int_equal(tensor_read_f32(&t, 0, 1, f), 1);
    assert_true(f[0] == 16777218.0f);
}

/* Contiguous fast paths over long runs agree with the scalar conversions. */
static void test_fast_paths(void **state)
{
    (void)state;
    enum { N = 1000 };
    uint16_t h[N];
    float fl[N];
    double db[N], out[N];
    for (int i = 0; i < N; i++) {
        h[i] = (uint16_t)(i * 65.537 + 3);
        fl[i] = (float)i / 3 - 100;
        db[i] = i * 1e-3;
    }
    int64_t shape[] = { N };
    tensor t;
    view(&t, DT_F16, h, sizeof h, 1, shape, NULL, 0);
    assert_int_equal(tensor_check_view(&t, "v"), 0);
    assert_int_equal(tensor_read_f64(&t, 3, N, out), N - 3);
    for (int i = 0; i < N - 3; i++)
        assert_int_equal(dbits(out[i]), dbits(f16_to_f64(h[i + 3])));
    t.dtype = DT_BF16;
    assert_int_equal(tensor_read_f64(&t, 0, N, out), N);
    for (int i = 0; i < N; i++)
        assert_int_equal(dbits(out[i]), dbits(bf16_to_f64(h[i])));
    float outf[N];
    assert_int_equal(tensor_read_f32(&t, 0, N, outf), N);
    for (int i = 0; i < N; i++)
        assert_int_equal(fbits(outf[i]), fbits(bf16_to_f32(h[i])));
    t.dtype = DT_F16;
    assert_int_equal(tensor_read_f32(&t, 0, N, outf), N);
    for (int i = 0; i < N; i++)
        assert_int_equal(fbits(outf[i]), fbits(f16_to_f32(h[i])));
    view(&t, DT_F32, fl, sizeof fl, 1, shape, NULL, 0);
    assert_int_equal(tensor_check_view(&t, "v"), 0);
    assert_int_equal(tensor_read_f64(&t, 1, N, out), N - 1);
    for (int i = 0; i < N - 1; i++)
        assert_true(out[i] == fl[i + 1]);
    view(&t, DT_F64, db, sizeof db, 1, shape, NULL, 0);
    assert_int_equal(tensor_check_view(&t, "v"), 0);
    assert_int_equal(tensor_read_f64(&t, 0, N, out), N);
    assert_memory_equal(out, db, sizeof db);
}

static char *temp_file(const void *data, size_t n)
{
    char *path = strdup("/tmp/msprobe_test_tensor_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, n), (ssize_t)n);
    close(fd);
    return path;
}

static void expect_load_error(const void *data, size_t n, const char *needle)
{
    char *path = temp_file(data, n);
    tensor t;
    err_clear();
    assert_int_equal(tensor_load(path, &t), -1);
    assert_non_null(strstr(err_message(), path));
    if (!strstr(err_message(), needle))
        fail_msg("message '%s' lacks '%s'", err_message(), needle);
    assert_int_equal(err_kind(), EXIT_BADINPUT);
    assert_null(t.storage);
    unlink(path);
    free(path);
}

static void test_load_sniffing(void **state)
{
    (void)state;
    expect_load_error("", 0, "empty");
    expect_load_error("hello world", 11, "not a .npy or .pt");
    expect_load_error("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19", 14, "legacy");
    expect_load_error("\x93NUMPY\x01", 7, "truncated");
    expect_load_error("PK\x03\x04", 4, "zip");
    tensor t;
    assert_int_equal(tensor_load("/nonexistent/x.npy", &t), -1);
    assert_non_null(strstr(err_message(), "no such file"));
    assert_int_equal(tensor_load("/tmp", &t), -1);
    assert_non_null(strstr(err_message(), "directory"));
    char *target = temp_file("\x93NUMPY", 6);
    char link[64];
    snprintf(link, sizeof link, "%s.lnk", target);
    assert_int_equal(symlink(target, link), 0);
    assert_int_equal(tensor_load(link, &t), -1);
    assert_non_null(strstr(err_message(), "symbolic link"));
    unlink(link);
    unlink(target);
    free(target);
    tensor zero;
    memset(&zero, 0, sizeof zero);
    tensor_free(&zero); /* safe on a zeroed tensor */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dtype_table),
        cmocka_unit_test(test_f16_every_pattern),
        cmocka_unit_test(test_bf16_every_pattern),
        cmocka_unit_test(test_f32_to_f16_rounding),
        cmocka_unit_test(test_f32_to_bf16_rounding),
        cmocka_unit_test(test_set_shape),
        cmocka_unit_test(test_check_view),
        cmocka_unit_test(test_strided_chunks),
        cmocka_unit_test(test_merged_dims_and_broadcast),
        cmocka_unit_test(test_every_dtype_both_orders),
        cmocka_unit_test(test_rounding_to_float),
        cmocka_unit_test(test_fast_paths),
        cmocka_unit_test(test_load_sniffing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
