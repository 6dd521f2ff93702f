/* ALL-mode metrics of two tensors against msprobe 8.1.0: the worked examples
 * of spec/compare.md §5.4.5, ~900 generated pairs whose expected cells come
 * from msprobe's own functions (tests/tools/gen_metrics_cases.py, numpy
 * 1.24), every pair also through strided, Fortran-order and byte-swapped
 * views and the scalar path; then the vector kernels against the scalar
 * path on raw bit patterns, messages, Accuracy, rounding and threads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/err.h"
#include "model/metrics.h"
#include "model/metrics_kern.h"
#include "model/metrics_scan.h"
#include "base/pool.h"
#include "format/tensor.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZERO_D_MSG                                                                                                   \
    "This is type of 0-d tensor, can not calculate 'Cosine', 'EucDist', 'One Thousandth Err Ratio' and 'Five "      \
    "Thousandths Err Ratio'. "
#define MAXABS_NAN_MSG "Cannot compare by MaxAbsError, the data contains nan/inf/-inf in dump data."
#define MAXREL_NAN_MSG "Cannot compare by MaxRelativeError, the data contains nan/inf/-inf in dump data."

#include "metrics_gen.h"

#include "metrics_cases.h"
#include "metrics_cases_newest.h"

#define NCASES (sizeof gen_cases / sizeof gen_cases[0])
#define NCASES_NEWEST (sizeof gen_cases_newest / sizeof gen_cases_newest[0])

/* ---- checking results ------------------------------------------------------- */

static int expect(const char *name, const char *how, const tensor_metrics *m, const unsigned char *kind,
                  const double *value, const char *accuracy, const char *message)
{
    int bad = 0;
    for (int i = 0; i < MET_COUNT; i++) {
        if (m->kind[i] != kind[i]) {
            print_error("%s [%s]: %s kind %d, expected %d\n", name, how, metric_names[i], m->kind[i], kind[i]);
            bad = 1;
            continue;
        }
        if (kind[i] != MK_NUM)
            continue;
        double got = m->value[i], want = value[i];
        /* Cosine and EucDist come from sums whose order differs from numpy's */
        double tol = i == MET_COSINE ? 1e-11 : i == MET_EUCDIST ? 1e-12 * fabs(want) : 0;
        if (!(got == want || fabs(got - want) <= tol)) {
            print_error("%s [%s]: %s = %.17g, expected %.17g\n", name, how, metric_names[i], got, want);
            bad = 1;
        }
    }
    if (strcmp(metrics_accuracy(m), accuracy)) {
        print_error("%s [%s]: accuracy %s, expected %s\n", name, how, metrics_accuracy(m), accuracy);
        bad = 1;
    }
    strbuf sb = STRBUF_INIT;
    metrics_message(m, &sb);
    if (strcmp(sb_str(&sb), message)) {
        print_error("%s [%s]: message\n  \"%s\"\nexpected\n  \"%s\"\n", name, how, sb_str(&sb), message);
        bad = 1;
    }
    sb_free(&sb);
    return bad;
}

static void expand16(const char *letters, strbuf *sb)
{
    for (const char *p = letters; *p; p++)
        sb_adds(sb, *p == 'M' ? ZERO_D_MSG : *p == 'X' ? MAXABS_NAN_MSG : MAXREL_NAN_MSG);
}

/* The elements of both sides of a generated case (free both). */
static void case_values(const metrics_case *c, elem **vn, elem **vb)
{
    size_t nn = count_of(c->ndim_n, c->shape_n), nb = count_of(c->ndim_b, c->shape_b);
    size_t total = nn > nb ? nn : nb;
    *vn = calloc(total ? total : 1, sizeof **vn);
    *vb = calloc(total ? total : 1, sizeof **vb);
    assert_true(*vn && *vb);
    generate(c, total, *vn, *vb);
}

static int run_case(const metrics_case *c)
{
    elem *vn, *vb;
    case_values(c, &vn, &vb);
    int bad = 0;
    tensor_metrics m;
    for (int layout = 0; layout < L_COUNT; layout++) {
        tensor tn, tb;
        build(&tn, c->dn, c->ndim_n, c->shape_n, vn, layout);
        build(&tb, c->db, c->ndim_b, c->shape_b, vb, layout == L_FORTRAN ? L_C : layout);
        static const char *const names[] = {"C order", "Fortran order", "byte-swapped", "strided"};
        assert_int_equal(metrics_compare(&tn, &tb, 0, &m), 0);
        bad |= expect(c->name, names[layout], &m, c->kind, c->value, c->accuracy, c->message);
        if (layout == L_C) {
            assert_int_equal(metrics_compare(&tn, &tb, METRICS_SCALAR, &m), 0);
            bad |= expect(c->name, "scalar", &m, c->kind, c->value, c->accuracy, c->message);
            strbuf want = STRBUF_INIT;
            if (c->message16)
                expand16(c->message16, &want);
            else
                sb_adds(&want, c->message);
            assert_int_equal(metrics_compare(&tn, &tb, METRICS_ZERO_D_REPEAT, &m), 0);
            bad |= expect(c->name, "16x", &m, c->kind, c->value, c->accuracy, sb_str(&want));
            sb_free(&want);
        }
        tensor_free(&tn);
        tensor_free(&tb);
    }
    free(vn);
    free(vb);
    return bad;
}

/* The newest msprobe's cells of the same pairs (METRICS_NEWEST: squeezed
 * tensors, its checks' order, its relative error); its table drops the
 * messages, so only the cells are checked. */
static int run_case_newest(const metrics_case *c)
{
    elem *vn, *vb;
    case_values(c, &vn, &vb);
    int bad = 0;
    tensor_metrics m;
    for (int layout = 0; layout <= L_COUNT; layout++) {
        tensor tn, tb;
        int l = layout == L_COUNT ? L_C : layout;
        build(&tn, c->dn, c->ndim_n, c->shape_n, vn, l);
        build(&tb, c->db, c->ndim_b, c->shape_b, vb, l == L_FORTRAN ? L_C : l);
        static const char *const names[] = {"C order", "Fortran order", "byte-swapped", "strided", "scalar"};
        unsigned flags = METRICS_NEWEST | (layout == L_COUNT ? METRICS_SCALAR : 0);
        assert_int_equal(metrics_compare(&tn, &tb, flags, &m), 0);
        /* no accuracy, no message: the newest table has neither */
        m.msgs = 0;
        bad |= expect(c->name, names[layout], &m, c->kind, c->value, metrics_accuracy(&m), "");
        tensor_free(&tn);
        tensor_free(&tb);
    }
    free(vn);
    free(vb);
    return bad;
}

static void test_generated_cases_newest(void **state)
{
    (void)state;
    int bad = 0;
    for (size_t i = 0; i < NCASES_NEWEST; i++)
        bad |= run_case_newest(&gen_cases_newest[i]);
    assert_int_equal(bad, 0);
}

static void test_generated_cases(void **state)
{
    (void)state;
    int bad = 0;
    for (size_t i = 0; i < NCASES; i++)
        bad |= run_case(&gen_cases[i]);
    assert_int_equal(bad, 0);
}

/* ---- the worked examples of spec §5.4.5 -------------------------------------- */

#define N_ MK_NUM
#define NAN_ MK_NAN
#define UNS MK_UNSUPPORTED

typedef struct {
    const char *name;
    dtype_id dn, db;
    int ndim_n;
    int64_t shape_n[2];
    int ndim_b;
    int64_t shape_b[2];
    double n[6], b[6];
    unsigned char kind[MET_COUNT];
    double value[MET_COUNT];
    const char *accuracy, *message;
} example;

static const example examples[] = {
    {"f32 [1,2,3,4] vs [1,2,3,4.004]", DT_F32, DT_F32, 1, {4}, 1, {4}, {1, 2, 3, 4}, {1, 2, 3, 4.004},
     {N_, N_, N_, N_, N_, N_}, {1.0, 0.004000186920166016, 0.00400018692, 0.000999047654, 1.0, 1.0}, "Yes", ""},
    {"f32 [0,0] vs [0,1]", DT_F32, DT_F32, 1, {2}, 1, {2}, {0, 0}, {0, 1}, {NAN_, N_, N_, N_, N_, N_},
     {0, 1.0, 1.0, 1.0, 0.5, 0.5}, "Yes", "Cannot compare by Cosine Similarity, All the data is Zero in npu dump data."},
    {"f32 [1,nan,3] vs [1.5,nan,3]", DT_F32, DT_F32, 1, {3}, 1, {3}, {1, NAN, 3}, {1.5, NAN, 3},
     {N_, N_, N_, N_, N_, N_}, {0.989949493661, 0.5, 0.5, 0.333333343267, 0.666666666667, 0.666666666667}, "No", ""},
    {"f16 [0,1] vs [0,1]", DT_F16, DT_F16, 1, {2}, 1, {2}, {0, 1}, {0, 1}, {N_, N_, N_, NAN_, N_, N_},
     {1.0, 0.0, 0.0, 0, 0.5, 0.5}, "Yes", MAXREL_NAN_MSG},
    {"f32 [0,1] vs [0,1]", DT_F32, DT_F32, 1, {2}, 1, {2}, {0, 1}, {0, 1}, {N_, N_, N_, N_, N_, N_},
     {1.0, 0.0, 0.0, 0.0, 1.0, 1.0}, "Yes", ""},
    {"f32 [1e-3,1] vs [0,1]", DT_F32, DT_F32, 1, {2}, 1, {2}, {1e-3, 1}, {0, 1}, {N_, N_, N_, N_, N_, N_},
     {1.0, 0.0010000000474974513, 0.001000000047, 4503599841280.0, 0.5, 0.5}, "Yes", ""},
    {"f32 [1,1,1] vs [0,0,0]", DT_F32, DT_F32, 1, {3}, 1, {3}, {1, 1, 1}, {0, 0, 0}, {NAN_, N_, N_, N_, N_, N_},
     {0, 1.7320508075688772, 1.0, 4503599627370496.0, 0.0, 0.0}, "Yes",
     "Cannot compare by Cosine Similarity, All the data is Zero in Bench dump data."},
    {"i64 [1,2,3] vs [1,2,4]", DT_I64, DT_I64, 1, {3}, 1, {3}, {1, 2, 3}, {1, 2, 4}, {N_, N_, N_, N_, N_, N_},
     {0.991460133984, 1.0, 1.0, 0.25, 0.666666666667, 0.666666666667}, "Yes", ""},
    {"bool [T,F,T] vs [T,T,T]", DT_BOOL, DT_BOOL, 1, {3}, 1, {3}, {1, 0, 1}, {1, 1, 1}, {N_, N_, N_, N_, N_, N_},
     {0.816496580928, 1.0, 1.0, 1.0, 0.666666666667, 0.666666666667}, "No", ""},
    {"f32 0-d 2.5 vs 2.0", DT_F32, DT_F32, 0, {0}, 0, {0}, {2.5}, {2.0}, {UNS, UNS, N_, N_, UNS, UNS},
     {0, 0, 0.5, 0.25, 0, 0}, "None", ZERO_D_MSG},
    {"f32 [1.5] vs [1.0]", DT_F32, DT_F32, 1, {1}, 1, {1}, {1.5}, {1.0}, {UNS, N_, N_, N_, N_, N_},
     {0, 0.5, 0.5, 0.5, 0.0, 0.0}, "None", "This is a 1-d tensor of length 1."},
    {"f32 (2,3) vs (3,2) ones", DT_F32, DT_F32, 2, {2, 3}, 2, {3, 2}, {1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1},
     {MK_SHAPE, MK_SHAPE, MK_SHAPE, MK_SHAPE, MK_SHAPE, MK_SHAPE}, {0}, "Unmatched",
     "Shape of NPU and bench tensor do not match. Skipped."},
    {"f16 [1,2] vs f32 [1,2.001]", DT_F16, DT_F32, 1, {2}, 1, {2}, {1, 2}, {1, 2.001}, {N_, N_, N_, N_, N_, N_},
     {1.0, 0.0009999275207519531, 0.000999927521, 0.000499713933, 1.0, 1.0}, "Yes",
     "Dtype of NPU and bench tensor do not match."},
    {"f32 [1,2] vs [-1,-2]", DT_F32, DT_F32, 1, {2}, 1, {2}, {1, 2}, {-1, -2}, {N_, N_, N_, N_, N_, N_},
     {-1.0, 4.47213595499958, 4.0, 2.0, 0.0, 0.0}, "No", ""},
    {"f32 [inf,1] vs [-inf,2]", DT_F32, DT_F32, 1, {2}, 1, {2}, {INFINITY, 1}, {-INFINITY, 2},
     {N_, N_, N_, N_, N_, N_}, {1.0, 1.0, 1.0, 0.5, 0.5, 0.5}, "Yes", ""},
    {"empty (0,4)", DT_F32, DT_F32, 2, {0, 4}, 2, {0, 4}, {0}, {0}, {UNS, UNS, UNS, UNS, UNS, UNS}, {0}, "None",
     "This is empty data, can not compare."},
};

static uint64_t example_bits(dtype_id dt, double v)
{
    if (dt == DT_BOOL || dt == DT_I64)
        return (uint64_t)(int64_t)v;
    return value_bits(dt, v);
}

static void test_worked_examples(void **state)
{
    (void)state;
    int bad = 0;
    for (size_t k = 0; k < sizeof examples / sizeof examples[0]; k++) {
        const example *e = &examples[k];
        elem vn[6], vb[6];
        for (int i = 0; i < 6; i++) {
            vn[i] = (elem){example_bits(e->dn, e->n[i]), 0};
            vb[i] = (elem){example_bits(e->db, e->b[i]), 0};
        }
        for (unsigned flags = 0; flags <= METRICS_SCALAR; flags += METRICS_SCALAR) {
            tensor tn, tb;
            build(&tn, e->dn, e->ndim_n, e->shape_n, vn, L_C);
            build(&tb, e->db, e->ndim_b, e->shape_b, vb, L_C);
            tensor_metrics m;
            assert_int_equal(metrics_compare(&tn, &tb, flags, &m), 0);
            bad |= expect(e->name, flags ? "scalar" : "vector", &m, e->kind, e->value, e->accuracy, e->message);
            if (e->ndim_n == 0) {
                /* 8.1.0 repeats the 0-d sentence 16 times */
                assert_int_equal(metrics_compare(&tn, &tb, flags | METRICS_ZERO_D_REPEAT, &m), 0);
                strbuf sb = STRBUF_INIT;
                metrics_message(&m, &sb);
                assert_int_equal(sb.len, 16 * strlen(ZERO_D_MSG));
                assert_int_equal(sb.len, 2048);
                for (int r = 0; r < 16; r++)
                    assert_memory_equal(sb.buf + r * strlen(ZERO_D_MSG), ZERO_D_MSG, strlen(ZERO_D_MSG));
                sb_free(&sb);
            }
            tensor_free(&tn);
            tensor_free(&tb);
        }
    }
    assert_int_equal(bad, 0);
}

/* ---- vector kernels against the element-by-element path ------------------- */

static void test_round_half_vector(void **state)
{
    (void)state;
    /* every exponent, every half-precision mantissa, and the low float bits
     * that decide rounding (ties, just above and below, random) */
    static const uint32_t low[] = {0, 1, 0xfff, 0x1000, 0x1001, 0x1fff, 0x0800, 0x17ff, 0x0abc, 0x1234};
    uint64_t s = 99;
    for (uint32_t sign = 0; sign < 2; sign++)
        for (uint32_t e = 0; e < 256; e++)
            for (uint32_t m = 0; m < 1024; m++)
                for (size_t k = 0; k < sizeof low / sizeof low[0]; k += 4) {
                    float in[4], out[4];
                    for (int j = 0; j < 4; j++) {
                        uint32_t lo = k + (size_t)j < sizeof low / sizeof low[0] ? low[k + (size_t)j]
                                                                                  : (uint32_t)rng_next(&s) & 0x1fff;
                        uint32_t bits = sign << 31 | e << 23 | m << 13 | lo;
                        memcpy(&in[j], &bits, 4);
                    }
                    metrics_round_half4(in, out);
                    for (int j = 0; j < 4; j++) {
                        float want = round_to_half(in[j]);
                        uint32_t a, b;
                        memcpy(&a, &out[j], 4);
                        memcpy(&b, &want, 4);
                        if (isnan(want) ? !isnan(out[j]) : (a != b && !(want == 0 && out[j] == 0))) {
                            print_error("round half of %a: %a, expected %a\n", (double)in[j], (double)out[j],
                                        (double)want);
                            fail();
                        }
                    }
                }
}

static uint64_t random_pattern(dtype_id dt, uint64_t r)
{
    /* mostly finite values of all magnitudes incl. subnormals and zeros */
    switch (r % 16) {
    case 0: return 0;
    case 1: return dt == DT_F32 ? 0x80000000u : 0x8000u;
    default: break;
    }
    r >>= 4;
    if (dt == DT_F32) {
        uint32_t u = (uint32_t)r;
        return (u & 0x7f800000u) == 0x7f800000u ? u & 0x807fffffu : u;
    }
    uint16_t h = (uint16_t)r;
    uint16_t expo = dt == DT_F16 ? 0x7c00 : 0x7f80;
    return (h & expo) == expo ? h & (uint16_t)~expo : h;
}

/* np.abs of complex numbers as numpy 1.24 computes it with AVX-512F:
 * values where that differs from libm's hypot and from the naive formula. */
static void test_complex_abs(void **state)
{
    (void)state;
    static const float f[][3] = {
        {0x1.4e70c0p-4, -0x1.98e496p-3, 0x1.b9c3c2p-3}, {0x1.e127eep-7, -0x1.88886cp+0, 0x1.888d06p+0},
        {-0x1.d5c3cap+3, -0x1.d6b988p-1, 0x1.d6af68p+3}, {-0x1.a7a390p+1, -0x1.37c364p+0, 0x1.c36868p+1},
        {0x1.a89fe4p-2, -0x1.fa351ap+0, 0x1.029bfap+1}, {0x1.f0353ap-10, 0x1.436840p-1, 0x1.43689ep-1},
        {-0x1.ac466cp-1, -0x1.512c8cp-3, 0x1.b47ddap-1}, {0x1.a55f46p+2, 0x1.a25558p+0, 0x1.b22826p+2},
        {0, 0, 0}, {INFINITY, NAN, INFINITY}, {NAN, 1, NAN}, {0, -3, 3},
    };
    static const double d[][3] = {
        {-0x1.1d283e68fe7b1p-8, 0x1.5f504e2ecc69ap+0, 0x1.5f50c1e971d68p+0},
        {0x1.cfd00002f7f1fp+3, -0x1.141ff9ddc5e5dp-1, 0x1.d0222a547bd69p+3},
        {-0x1.4b84b99f1dcdfp+1, -0x1.418a37dcf6434p+0, 0x1.7071d52d16694p+1},
        {-0x1.7501af91cac6ap+7, -0x1.bc02a543aec9fp-1, 0x1.7502b7d544c4cp+7},
        {-0x1.7fb80fadd271ap-10, -0x1.76693bba584d7p-2, 0x1.766a005b34e2fp-2},
        {-0x1.36c4d485f3fdap-12, 0x1.5e03de7db03e0p-2, 0x1.5e03e71d12d7fp-2},
        {0x1.26398e19903a1p-5, -0x1.529ed5167e34bp-3, 0x1.5a847524bd517p-3},
        {-0x1.c6616c4b92786p-11, 0x1.934af46ba8af3p-1, 0x1.934b046b2d62fp-1},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        float got = cabs_f(f[i][0], f[i][1]);
        assert_true(isnan(f[i][2]) ? isnan(got) : got == f[i][2]);
    }
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        assert_true(cabs_d(d[i][0], d[i][1]) == d[i][2]);
}

/* Small tensors of raw bit patterns, every float16/bfloat16/float32 pairing,
 * through the vector kernels of every instruction set here and the scalar
 * path: the exact metrics must agree element group by element group. */
static void test_vector_matches_scalar(void **state)
{
    (void)state;
    static const dtype_id fl[] = {DT_F16, DT_BF16, DT_F32};
    uint64_t s = 12345;
    for (int pn = 0; pn < 3; pn++)
        for (int pb = 0; pb < 3; pb++)
            for (int round = 0; round < 3000; round++) {
                enum { LEN = 40 }; /* two blocks of the vector kernels and a tail */
                elem vn[LEN], vb[LEN];
                for (int i = 0; i < LEN; i++) {
                    uint64_t r = rng_next(&s);
                    vn[i] = (elem){random_pattern(fl[pn], r), 0};
                    /* half the time a close bench value, so the ratios are not trivial */
                    double scale = 1 + (double)((r >> 40) & 0xff) * 1e-5;
                    if (r >> 63)
                        vb[i] = (elem){value_bits(fl[pb], bits_value(fl[pn], vn[i].re) * scale), 0};
                    else
                        vb[i] = (elem){random_pattern(fl[pb], rng_next(&s)), 0};
                }
                int64_t shape = LEN;
                tensor tn, tb;
                build(&tn, fl[pn], 1, &shape, vn, L_C);
                build(&tb, fl[pb], 1, &shape, vb, L_C);
                tensor_metrics v, sc;
                assert_int_equal(metrics_compare(&tn, &tb, METRICS_SCALAR, &sc), 0);
                for (int level = SIMD_PORTABLE; level < SIMD_COUNT; level++) {
                    if (!simd_available(level))
                        continue;
                    assert_int_equal(metrics_compare(&tn, &tb, METRICS_SIMD(level), &v), 0);
                    for (int i = MET_MAXABS; i < MET_COUNT; i++) {
                        assert_int_equal(v.kind[i], sc.kind[i]);
                        if (v.value[i] != sc.value[i]) {
                            print_error("%s vs %s round %d: %s %.17g (%s) vs %.17g (scalar)\n", dtype_name(fl[pn]),
                                        dtype_name(fl[pb]), round, metric_names[i], v.value[i], simd_name(level),
                                        sc.value[i]);
                            fail();
                        }
                    }
                    assert_int_equal(v.msgs & ~(unsigned)(MSG_COS_NAN | MSG_COS_NPU_ZERO | MSG_COS_BENCH_ZERO),
                                     sc.msgs & ~(unsigned)(MSG_COS_NAN | MSG_COS_NPU_ZERO | MSG_COS_BENCH_ZERO));
                }
                tensor_free(&tn);
                tensor_free(&tb);
            }
}

/* Sums that are exact in double come out exact however the chunks and
 * lanes split them. */
static void test_long_exact_sums(void **state)
{
    (void)state;
    static const size_t sizes[] = {3, 1024, 1027, 5000, 300001};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        elem *vn = malloc(n * sizeof *vn), *vb = malloc(n * sizeof *vb);
        assert_true(vn && vb);
        for (size_t i = 0; i < n; i++) {
            vn[i] = (elem){value_bits(DT_F32, i % 2 ? 1.0 : -2.0), 0};
            vb[i] = (elem){value_bits(DT_F32, i % 2 ? 1.25 : -2.0), 0};
        }
        int64_t shape = (int64_t)n;
        tensor tn, tb;
        build(&tn, DT_F32, 1, &shape, vn, L_C);
        build(&tb, DT_F32, 1, &shape, vb, L_C);
        for (unsigned flags = 0; flags <= METRICS_SCALAR; flags += METRICS_SCALAR) {
            tensor_metrics m;
            assert_int_equal(metrics_compare(&tn, &tb, flags, &m), 0);
            size_t odd = n / 2, even = n - odd;
            double dot = (double)odd * 1.25 + (double)even * 4, nn = (double)odd + (double)even * 4;
            double bb = (double)odd * 1.5625 + (double)even * 4;
            assert_true(fabs(m.value[MET_COSINE] - dot / (sqrt(nn) * sqrt(bb))) < 1e-12);
            assert_true(m.value[MET_EUCDIST] == sqrt((double)odd * 0.0625));
            assert_true(m.value[MET_MAXABS] == 0.25);
            assert_true(m.value[MET_MAXREL] == round12(0.2f));
            assert_true(m.value[MET_ONE_THOUSANDTH] == round12((double)even / (double)n));
        }
        tensor_free(&tn);
        tensor_free(&tb);
        free(vn);
        free(vb);
    }
}

/* ---- cells, messages, rounding -------------------------------------------- */

static void test_accuracy(void **state)
{
    (void)state;
    tensor_metrics m;
    memset(&m, 0, sizeof m);
    m.value[MET_COSINE] = 0.995;
    m.value[MET_MAXABS] = 0.002;
    assert_string_equal(metrics_accuracy(&m), "Yes");
    m.value[MET_COSINE] = 0.98;
    assert_string_equal(metrics_accuracy(&m), "No");         /* cos < 0.99 and maxabs > 0.001 */
    m.value[MET_MAXABS] = 0.001;
    assert_string_equal(metrics_accuracy(&m), "Yes");
    m.value[MET_COSINE] = 0.89;
    assert_string_equal(metrics_accuracy(&m), "No");         /* cos < 0.9 */
    m.value[MET_COSINE] = 1;
    m.value[MET_MAXABS] = 1.5;
    assert_string_equal(metrics_accuracy(&m), "No");         /* maxabs > 1 */
    m.kind[MET_COSINE] = MK_NAN;
    m.value[MET_MAXABS] = 0.5;
    assert_string_equal(metrics_accuracy(&m), "Yes");        /* NaN comparisons are false */
    m.kind[MET_MAXABS] = MK_NAN;
    assert_string_equal(metrics_accuracy(&m), "Yes");
    m.kind[MET_COSINE] = MK_UNSUPPORTED;
    assert_string_equal(metrics_accuracy(&m), "None");
    m.kind[MET_COSINE] = MK_NUM;
    m.kind[MET_MAXABS] = MK_UNSUPPORTED;
    assert_string_equal(metrics_accuracy(&m), "None");
    m.kind[MET_MAXABS] = MK_NA;
    assert_string_equal(metrics_accuracy(&m), "No");
    m.kind[MET_COSINE] = MK_SHAPE;
    assert_string_equal(metrics_accuracy(&m), "Unmatched");
    assert_string_equal(metric_kind_text(MK_NAN), "Nan");
    assert_string_equal(metric_kind_text(MK_UNSUPPORTED), "unsupported");
    assert_string_equal(metric_kind_text(MK_NA), "N/A");
    assert_string_equal(metric_kind_text(MK_SHAPE), "shape unmatched");
    assert_null(metric_kind_text(MK_NUM));
    assert_string_equal(metric_names[MET_FIVE_THOUSANDTHS], "Five Thousandths Err Ratio");
}

static void test_messages(void **state)
{
    (void)state;
    tensor_metrics m;
    memset(&m, 0, sizeof m);
    strbuf sb = STRBUF_INIT;
    metrics_message(&m, &sb);
    assert_string_equal(sb_str(&sb), "");
    m.msgs = MSG_MAXREL_NAN | MSG_DTYPE | MSG_COS_NAN | MSG_MAXABS_NAN;
    metrics_message(&m, &sb);
    assert_string_equal(sb_str(&sb), "Dtype of NPU and bench tensor do not match."
                                     "Cannot compare by Cosine Similarity, the dump data has NaN." MAXABS_NAN_MSG
                                     MAXREL_NAN_MSG);
    /* 8.1.0's accumulation: M, MM (Cosine), MMMM (EucDist), +X, +Y, doubled twice */
    m.msgs = MSG_ZERO_D | MSG_MAXABS_NAN | MSG_MAXREL_NAN;
    m.flags = METRICS_ZERO_D_REPEAT;
    sb_reset(&sb);
    metrics_message(&m, &sb);
    strbuf want = STRBUF_INIT;
    for (int r = 0; r < 4; r++) {
        for (int k = 0; k < 4; k++)
            sb_adds(&want, ZERO_D_MSG);
        sb_adds(&want, MAXABS_NAN_MSG MAXREL_NAN_MSG);
    }
    assert_string_equal(sb_str(&sb), sb_str(&want));
    m.flags = 0;
    sb_reset(&sb);
    metrics_message(&m, &sb);
    assert_string_equal(sb_str(&sb), ZERO_D_MSG MAXABS_NAN_MSG MAXREL_NAN_MSG);
    sb_free(&want);
    sb_free(&sb);
}

static void test_round12(void **state)
{
    (void)state;
    assert_true(round12(1e-13) == 0.0);
    assert_true(round12(5e-13) == 0.0);         /* 0.0000000000005 is below the tie in binary */
    assert_true(round12(6e-13) == 1e-12);
    assert_true(round12(0.1234567890125) == 0.123456789012 || round12(0.1234567890125) == 0.123456789013);
    assert_true(round12(0.999904761904762) == 0.999904761905);
    assert_true(round12(4503599841280.0) == 4503599841280.0);
    assert_true(round12(-0.25) == -0.25);
    assert_true(isinf(round12(INFINITY)) && round12(-INFINITY) < 0);
    assert_true(isnan(round12(NAN)));
    assert_true(round12(1.7976931348623157e308) == 1.7976931348623157e308);
}

/* The shape test both tensor compares use: rank and every dimension. */
static void test_shape_equal(void **state)
{
    (void)state;
    const int64_t a[] = {2, 3, 4}, b[] = {2, 3, 4}, c[] = {2, 4, 3}, d[] = {2, 3, 4, 1};
    assert_true(shape_equal(3, a, 3, b));
    assert_false(shape_equal(3, a, 3, c));
    assert_false(shape_equal(3, a, 4, d));   /* a trailing 1 is another shape to numpy */
    assert_true(shape_equal(0, NULL, 0, NULL));   /* two 0-d tensors */
    assert_false(shape_equal(0, NULL, 1, a));
}

static void test_unknown_dtype(void **state)
{
    (void)state;
    tensor a;
    memset(&a, 0, sizeof a);
    a.dtype = DT_COUNT;
    a.numel = 1;
    tensor_metrics m;
    err_clear();
    assert_int_equal(metrics_compare(&a, &a, 0, &m), -1);
    assert_int_equal(err_kind(), EXIT_INTERNAL);
    err_clear();
}

/* ---- many threads at once --------------------------------------------------- */

typedef struct {
    int bad;
} thread_state;

static void thread_job(void *arg, size_t i)
{
    thread_state *ts = arg;
    /* the bigger generated cases, several times over */
    const metrics_case *c = &gen_cases[(i * 7) % NCASES];
    size_t nn = count_of(c->ndim_n, c->shape_n), nb = count_of(c->ndim_b, c->shape_b);
    size_t total = nn > nb ? nn : nb;
    elem *vn = calloc(total ? total : 1, sizeof *vn), *vb = calloc(total ? total : 1, sizeof *vb);
    if (!vn || !vb)
        abort();
    generate(c, total, vn, vb);
    tensor tn, tb;
    build(&tn, c->dn, c->ndim_n, c->shape_n, vn, L_C);
    build(&tb, c->db, c->ndim_b, c->shape_b, vb, L_C);
    tensor_metrics m;
    if (metrics_compare(&tn, &tb, 0, &m) != 0)
        __atomic_store_n(&ts->bad, 1, __ATOMIC_RELAXED);
    for (int k = 0; k < MET_COUNT; k++)
        if (m.kind[k] != c->kind[k] || (k >= MET_MAXABS && m.kind[k] == MK_NUM && m.value[k] != c->value[k]))
            __atomic_store_n(&ts->bad, 1, __ATOMIC_RELAXED);
    tensor_free(&tn);
    tensor_free(&tb);
    free(vn);
    free(vb);
}

static void test_threads(void **state)
{
    (void)state;
    thread_state ts = {0};
    pool_for(4 * NCASES / 7, 8, thread_job, &ts);
    assert_int_equal(ts.bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_examples),
        cmocka_unit_test(test_generated_cases),
        cmocka_unit_test(test_generated_cases_newest),
        cmocka_unit_test(test_round_half_vector),
        cmocka_unit_test(test_complex_abs),
        cmocka_unit_test(test_vector_matches_scalar),
        cmocka_unit_test(test_long_exact_sums),
        cmocka_unit_test(test_accuracy),
        cmocka_unit_test(test_messages),
        cmocka_unit_test(test_round12),
        cmocka_unit_test(test_shape_equal),
        cmocka_unit_test(test_unknown_dtype),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
