/* The vector kernels of the metrics scan (model/metrics_kern.h) on every
 * instruction set this CPU runs, against a reference computed element by
 * element in long double (compensated sums) and with the scalar relative
 * error of msprobe's rules: every float16 / bfloat16 / float32 pairing,
 * in place and through float32 copies (byte-swapped views), adversarial
 * data (cancellation, huge and tiny magnitudes, subnormals, zeros, values
 * on the thresholds, NaN / inf in matching and in differing positions), every
 * length from 0 to 1000, and 10^8 elements (float32; 10^7 of bfloat16 with
 * cancellation; MSPROBE_TEST_BIG sets another length, 0 skips them: under
 * an emulator long double is slow).
 *
 * Exact results (MaxAbsErr, MaxRelativeErr, the ratios, NaN flags, the
 * position rule) must equal the reference; sums must be within
 * 2^-43 * sum |terms| of it (the bound of eight lanes of CHUNK / 8 = 512
 * terms each, 2^-44, and the reduction of the lanes); and all instruction
 * sets must agree bit for bit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model/metrics.h"
#include "model/metrics_kern.h"
#include "model/metrics_scan.h"
#include "format/tensor.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static const dtype_id floats[] = {DT_F16, DT_BF16, DT_F32};

/* A value as the dtype stores it (bits), rounded from a float. */
static uint32_t to_bits(dtype_id dt, float f)
{
    if (dt == DT_F16)
        return f32_to_f16(f);
    if (dt == DT_BF16)
        return f32_to_bf16(f);
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float from_bits(dtype_id dt, uint32_t b)
{
    if (dt == DT_F16)
        return f16_to_f32((uint16_t)b);
    if (dt == DT_BF16)
        return bf16_to_f32((uint16_t)b);
    float f;
    memcpy(&f, &b, 4);
    return f;
}

/* Random finite bits of a dtype: any exponent (subnormals too), or zero. */
static uint32_t random_bits(dtype_id dt, uint64_t r)
{
    if (r % 13 == 0)
        return (uint32_t)(r >> 8 & 1) << (dt == DT_F32 ? 31 : 15);
    r >>= 4;
    if (dt == DT_F32) {
        uint32_t u = (uint32_t)r;
        return (u & 0x7f800000u) == 0x7f800000u ? u & 0x807fffffu : u;
    }
    uint16_t h = (uint16_t)r, expo = dt == DT_F16 ? 0x7c00 : 0x7f80;
    return (h & expo) == expo ? h & (uint16_t)~expo : h;
}

static float largest(dtype_id dt) { return dt == DT_F16 ? 65504.0f : 3.0e38f; }

enum { S_RANDOM, S_CLOSE, S_CANCEL, S_EXTREMES, S_ZEROS, S_THRESHOLD, S_SPECIAL, S_MISMATCH, S_COUNT };

/* Element i of scenario sc: NPU bits into *bn, bench bits into *bb. */
static void make(int sc, dtype_id dn, dtype_id db, size_t i, size_t len, uint64_t *s, uint32_t *bn, uint32_t *bb)
{
    uint64_t r = rng(s);
    float x, y;
    switch (sc) {
    case S_RANDOM:
        *bn = random_bits(dn, r);
        *bb = random_bits(db, rng(s));
        return;
    case S_CLOSE: /* relative differences around 1e-3 */
        x = (float)(((double)(r & 0xffffff) / 0x1p24 - 0.5) * 8);
        y = x * (1.0f + (float)((double)((r >> 24) & 0xfff) / 4096.0 - 0.5) * 0.004f);
        break;
    case S_CANCEL: /* +-big pairs that cancel in every sum, small noise on top */
        x = (i & 1 ? -1.0f : 1.0f) * ldexpf(1.0f + (float)(r & 0xff) / 256, (int)(i / 2 % 3) * 10);
        y = -x + (float)((double)((r >> 8) & 0xffff) / 65536.0 - 0.5) * 1e-3f;
        if (r >> 63)
            y = x;
        break;
    case S_EXTREMES: /* the largest and the smallest magnitudes of the dtypes */
        x = r & 1 ? largest(dn) * (r & 2 ? -1.0f : 1.0f) : ldexpf(1.0f, -20 - (int)(r >> 2) % 100);
        y = r & 4 ? largest(db) : r & 8 ? -x : ldexpf(1.5f, -(int)(r >> 9) % 140);
        break;
    case S_ZEROS: /* bench zeros (the eps rule), NPU zeros, both, signed */
        x = r & 1 ? 0.0f : (r & 2 ? -0.0f : (float)(r >> 40) / 1e6f);
        y = r & 4 ? 0.0f : (r & 8 ? -0.0f : (float)(r >> 44) / 1e5f);
        break;
    case S_THRESHOLD: { /* quotients right at, just below and above 0.001 and 0.005 */
        float t = r & 1 ? 0.001f : 0.005f;
        y = ldexpf(1.0f + (float)((r >> 2) & 0x3ff) / 1024, (int)((r >> 12) % 8) - 4);
        x = y + y * t;
        uint32_t u = to_bits(dn, x);
        u += (uint32_t)((int)((r >> 20) % 3) - 1); /* one ulp down, same, up */
        *bn = u;
        *bb = to_bits(db, y);
        if (!isfinite(from_bits(dn, u)))
            *bn = to_bits(dn, x);
        return;
    }
    default: { /* S_SPECIAL / S_MISMATCH: NaN and inf where both sides have them */
        x = (float)((double)(r & 0xffff) / 4096.0 - 8);
        y = x * 1.001f;
        int k = (int)(r >> 16) % 8;
        if (k == 0)
            x = y = NAN;
        else if (k == 1)
            x = INFINITY, y = -INFINITY;
        else if (k == 2)
            x = y = -INFINITY;
        if (sc == S_MISMATCH && i == (size_t)(r >> 32) % len) {
            /* one position differs: NaN vs inf, NaN vs finite, inf vs finite */
            int m = (int)(r >> 40) % 3;
            x = m == 2 ? INFINITY : NAN;
            y = m == 0 ? INFINITY : 1.0f;
        }
        break;
    }
    }
    *bn = to_bits(dn, x);
    *bb = to_bits(db, y);
}

/* ---- tensors in memory -------------------------------------------------------- */

static void store(unsigned char *p, dtype_id dt, uint32_t bits, int swap)
{
    size_t es = dtype_size(dt);
    unsigned char tmp[4];
    if (es == 2) {
        uint16_t h = (uint16_t)bits;
        memcpy(tmp, &h, 2);
    } else {
        memcpy(tmp, &bits, 4);
    }
    for (size_t k = 0; k < es; k++)
        p[k] = swap ? tmp[es - 1 - k] : tmp[k];
}

static void mem_tensor(tensor *t, dtype_id dt, size_t n, unsigned char *data, int swap)
{
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    int64_t shape = (int64_t)n;
    assert_int_equal(tensor_set_shape(t, "mem", 1, &shape, 0), 0);
    t->storage = n ? data : NULL;
    t->storage_size = n * dtype_size(dt);
    t->byteswap = swap;
    assert_int_equal(tensor_check_view(t, "mem"), 0);
}

/* ---- the reference ------------------------------------------------------------- */

typedef struct {
    long double s, c;
} lsum;

static void lsum_add(lsum *k, long double x)
{
    long double t = k->s + x;
    if (fabsl(k->s) >= fabsl(x))
        k->c += (k->s - t) + x;
    else
        k->c += (x - t) + k->s;
    k->s = t;
}

typedef struct {
    int mismatch;
    long double dot, nn, bb, dd;           /* the sums */
    long double adot, ann, abb, add;       /* sums of |terms|, for the bounds */
    double maxabs, maxrel;
    int relnan;
    size_t below1, below5;
} reference;

static float elem_at(dtype_id dt, const unsigned char *st, size_t i, int swap)
{
    size_t es = dtype_size(dt);
    unsigned char tmp[4];
    for (size_t k = 0; k < es; k++)
        tmp[k] = swap ? st[i * es + es - 1 - k] : st[i * es + k];
    uint32_t bits = 0;
    if (es == 2) {
        uint16_t h;
        memcpy(&h, tmp, 2);
        bits = h;
    } else {
        memcpy(&bits, tmp, 4);
    }
    return from_bits(dt, bits);
}

static void ref_compute(const rel_plan *p, const tensor *tn, const tensor *tb, reference *r)
{
    size_t n = tn->numel;
    memset(r, 0, sizeof *r);
    lsum dot = {0, 0}, nn = {0, 0}, bb = {0, 0}, dd = {0, 0};
    for (size_t i = 0; i < n; i++) {
        double a = elem_at(tn->dtype, tn->storage, i, tn->byteswap);
        double b = elem_at(tb->dtype, tb->storage, i, tb->byteswap);
        if (!isfinite(a) || !isfinite(b)) {
            if (!isnan(a) != !isnan(b) || !isinf(a) != !isinf(b)) {
                r->mismatch = 1;
                return;
            }
            a = b = 0;
        }
        long double la = a, lb = b, ld = (long double)(a - b); /* numpy subtracts in double */
        lsum_add(&dot, la * lb);
        lsum_add(&nn, la * la);
        lsum_add(&bb, lb * lb);
        lsum_add(&dd, ld * ld);
        r->adot += fabsl(la * lb);
        r->ann += la * la;
        r->abb += lb * lb;
        r->add += ld * ld;
        double d = fabs(a - b);
        if (d > r->maxabs)
            r->maxabs = d;
        double q = rel_err_one(p, a, 0, b);
        if (isnan(q))
            r->relnan = 1;
        else if (q > r->maxrel)
            r->maxrel = q;
        r->below1 += q < p->thr1;
        r->below5 += q < p->thr5;
    }
    r->dot = dot.s + dot.c;
    r->nn = nn.s + nn.c;
    r->bb = bb.s + bb.c;
    r->dd = dd.s + dd.c;
}

/* The element-by-element path sums a chunk (4096 terms) in one lane: a
 * looser bound. */
static int tol_exp = -43;

static int near(const char *what, double got, long double want, long double mag, const char *ctx)
{
    long double tol = ldexpl(mag, tol_exp);
    if (fabsl((long double)got - want) <= tol)
        return 0;
    print_error("%s: %s = %.17g, reference %.20Lg (tolerance %.3Lg)\n", ctx, what, got, want, tol);
    return 1;
}

static int check(const scan_totals *t, int rc, const reference *r, const char *ctx)
{
    if (rc != r->mismatch) {
        print_error("%s: position rule %d, reference %d\n", ctx, rc, r->mismatch);
        return 1;
    }
    if (rc)
        return 0;
    int bad = near("dot", t->dot, r->dot, r->adot, ctx) | near("nn", t->nn, r->nn, r->ann, ctx) |
              near("bb", t->bb, r->bb, r->abb, ctx) | near("dd", t->dd, r->dd, r->add, ctx);
    if (t->maxabs != r->maxabs || t->relnan != r->relnan || (!r->relnan && t->maxrel != r->maxrel) ||
        t->below1 != r->below1 || t->below5 != r->below5) {
        print_error("%s: maxabs %.17g/%.17g relnan %d/%d maxrel %.17g/%.17g below %zu,%zu/%zu,%zu\n", ctx,
                    t->maxabs, r->maxabs, t->relnan, r->relnan, t->maxrel, r->maxrel, t->below1, t->below5,
                    r->below1, r->below5);
        bad = 1;
    }
    return bad;
}

static int same_bits(const scan_totals *a, const scan_totals *b)
{
    return !memcmp(&a->dot, &b->dot, sizeof(double)) && !memcmp(&a->nn, &b->nn, sizeof(double)) &&
           !memcmp(&a->bb, &b->bb, sizeof(double)) && !memcmp(&a->dd, &b->dd, sizeof(double)) &&
           a->maxabs == b->maxabs && a->relnan == b->relnan && (a->relnan || a->maxrel == b->maxrel) &&
           a->below1 == b->below1 && a->below5 == b->below5;
}

/* One pair of tensors through every instruction set (and the element-by-
 * element path), each against the reference and against each other. */
static int run_pair(dtype_id dn, dtype_id db, const unsigned char *sn, const unsigned char *sb, size_t n, int swap,
                    const char *what)
{
    tensor tn, tb;
    mem_tensor(&tn, dn, n, (unsigned char *)sn, swap);
    mem_tensor(&tb, db, n, (unsigned char *)sb, swap);
    rel_plan p;
    rel_plan_make(dn, db, &p);
    reference r;
    ref_compute(&p, &tn, &tb, &r);
    char ctx[160];
    int bad = 0, have_first = 0;
    scan_totals first;
    for (int level = -1; level < SIMD_COUNT; level++) {
        if (level >= SIMD_PORTABLE && !simd_available(level))
            continue;
        if (level == SIMD_AUTO || (level < 0 && n > 1000000))
            continue;
        scan_totals t;
        tol_exp = level < 0 ? -40 : -43;
        int rc = metrics_scan(&tn, &tb, &p, level, 1, &t);
        snprintf(ctx, sizeof ctx, "%s %s vs %s, %zu elements%s, %s", what, dtype_name(dn), dtype_name(db), n,
                 swap ? " (byte-swapped)" : "", level < 0 ? "scalar" : simd_name(level));
        bad |= check(&t, rc, &r, ctx);
        if (n > (1u << 22) && level >= 0) {
            /* a big tensor on three threads: the same bits as on one */
            scan_totals t3;
            int rc3 = metrics_scan(&tn, &tb, &p, level, 3, &t3);
            if (rc3 != rc || (!rc && !same_bits(&t, &t3))) {
                print_error("%s: three threads differ from one\n", ctx);
                bad = 1;
            }
        }
        if (level < 0 || rc)
            continue;
        if (!have_first) {
            first = t;
            have_first = 1;
        } else if (!same_bits(&first, &t)) {
            print_error("%s: differs from %s: dot %a/%a nn %a/%a bb %a/%a dd %a/%a\n", ctx, simd_name(SIMD_PORTABLE),
                        t.dot, first.dot, t.nn, first.nn, t.bb, first.bb, t.dd, first.dd);
            bad = 1;
        }
    }
    return bad;
}

static const char *const scen_name[S_COUNT] = {"random",     "close", "cancel",  "extremes",
                                                "zeros",      "threshold", "special", "mismatch"};

static int run_case(int sc, dtype_id dn, dtype_id db, size_t n, int swap, uint64_t seed)
{
    size_t en = dtype_size(dn), eb = dtype_size(db);
    unsigned char *sn = malloc(n * en + 1), *sb = malloc(n * eb + 1);
    assert_true(sn && sb);
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        uint32_t bn, bb;
        make(sc, dn, db, i, n, &s, &bn, &bb);
        store(sn + i * en, dn, bn, swap);
        store(sb + i * eb, db, bb, swap);
    }
    int bad = run_pair(dn, db, sn, sb, n, swap, scen_name[sc]);
    free(sn);
    free(sb);
    return bad;
}

/* Every length 0..1000, every pairing and scenario, in place; through
 * float32 copies (byte-swapped storage) for every 7th length. */
static void test_lengths(void **state)
{
    (void)state;
    int bad = 0;
    for (size_t n = 0; n <= 1000 && !bad; n++)
        for (int pn = 0; pn < 3; pn++)
            for (int pb = 0; pb < 3; pb++)
                for (int sc = 0; sc < S_COUNT; sc++) {
                    uint64_t seed = n * 1000003 + (uint64_t)(pn * 3 + pb) * 101 + (uint64_t)sc;
                    bad |= run_case(sc, floats[pn], floats[pb], n, 0, seed);
                    if (n % 7 == 0)
                        bad |= run_case(sc, floats[pn], floats[pb], n, 1, seed);
                }
    assert_int_equal(bad, 0);
}

/* Chunks with NaN or inf are redone element by element: a long tensor with
 * specials in some chunks only, the rest through the kernel. */
static void test_special_chunks(void **state)
{
    (void)state;
    int bad = 0;
    static const size_t lens[] = {1024, 1040, 4096 + 17, 20000};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++)
        for (int pn = 0; pn < 3; pn++)
            for (int pb = 0; pb < 3; pb++)
                for (int sc = S_SPECIAL; sc <= S_MISMATCH; sc++)
                    bad |= run_case(sc, floats[pn], floats[pb], lens[k], 0, 77 + k);
    assert_int_equal(bad, 0);
}

/* A long tensor: the sums stay within the bound whatever the length
 * (chunk sums are added with compensation). */
static void test_long(void **state)
{
    (void)state;
    size_t n = 100000000;
    const char *env = getenv("MSPROBE_TEST_BIG");
    if (env)
        n = strtoul(env, NULL, 10);
    if (n == 0) {
        print_message("skipped: MSPROBE_TEST_BIG=0\n");
        return;
    }
    int bad = 0;
    bad |= run_case(S_CLOSE, DT_F32, DT_F32, n, 0, 4242);
    bad |= run_case(S_CANCEL, DT_BF16, DT_BF16, n / 10, 0, 4343);
    assert_int_equal(bad, 0);
}

/* The kernels are there for every combination the scan asks for. */
static void test_pick(void **state)
{
    (void)state;
    for (int level = SIMD_PORTABLE; level < SIMD_COUNT; level++) {
        if (!simd_available(level)) {
            assert_null(metrics_kern_pick(level, &(kern_rule){LD_F32, LD_F32, 0, 1, 1}));
            continue;
        }
        for (int a = LD_F32; a <= LD_F16; a++)
            for (int b = LD_F32; b <= LD_F16; b++) {
                kern_rule r = {a, b, a == LD_F16 && b == LD_F16, a != LD_F16, b != LD_F16};
                assert_non_null(metrics_kern_pick(level, &r));
            }
        static const kern_rule buf[] = {{LD_F32, LD_F32, 1, 0, 0}, {LD_F32, LD_F32, 0, 1, 1},
                                        {LD_F32, LD_F32, 0, 0, 1}, {LD_F32, LD_F32, 0, 1, 0},
                                        {LD_F32, LD_F32, 0, 0, 0}};
        for (size_t k = 0; k < sizeof buf / sizeof buf[0]; k++)
            assert_non_null(metrics_kern_pick(level, &buf[k]));
        /* a pairing whose rule its dtypes do not imply */
        assert_null(metrics_kern_pick(level, &(kern_rule){LD_BF16, LD_BF16, 1, 0, 0}));
    }
    assert_true(simd_available(simd_best()));
    print_message("instruction sets here: best %s\n", simd_name(simd_best()));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pick),
        cmocka_unit_test(test_lengths),
        cmocka_unit_test(test_special_chunks),
        cmocka_unit_test(test_long),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
