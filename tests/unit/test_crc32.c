/* CRC-32 of zip entries: every implementation against zlib's (lengths,
 * alignments, a continued CRC), joining and filling from runs; then the
 * checks it makes possible: a stored .pt entry with a flipped byte is
 * refused when loaded, and, with the check left to the pass that reads the
 * elements, by metrics_compare -- folded into its scan (views, strides,
 * a tensor split over threads, an early stop) or in a pass of its own when
 * it does not scan (empty, 0-d, shapes that differ). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/err.h"
#include "format/crc32.h"
#include "format/pt.h"
#include "format/zip.h"
#include "model/metrics.h"
#include "pt_write.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint32_t next(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng >> 33);
}

static void test_vectors(void **state)
{
    (void)state;
    assert_int_equal(crc32_update(0, "123456789", 9), 0xCBF43926u);
    assert_int_equal(crc32_update(0, "", 0), 0);
    assert_int_equal(crc32_update(crc32_update(0, "1234", 4), "56789", 5), 0xCBF43926u);
    assert_non_null(crc32_kind());
    /* which path this machine takes (x86-64: a carry-less multiply;
     * AArch64: the CRC32 instructions), in the test's log */
    print_message("crc32: %s\n", crc32_kind());
}

/* Every path (the table code, the 16-byte and the 64-byte fold) over every
 * length up to a few thousand bytes, at every alignment, from a random CRC. */
static void test_paths_agree(void **state)
{
    (void)state;
    size_t size = (1 << 20) + 64;
    unsigned char *buf = malloc(size);
    for (size_t i = 0; i < size; i++)
        buf[i] = (unsigned char)next();
    for (size_t n = 0; n < 4200; n += n < 1100 ? 1 : 7)
        for (size_t off = 0; off < 8; off++) {
            uint32_t start = next(), want = (uint32_t)crc32_z(start, buf + off, n);
            for (int level = 0; level < 3; level++)
                if (crc32_update_level(level, start, buf + off, n) != want)
                    fail_msg("level %d, %zu bytes at offset %zu", level, n, off);
            assert_int_equal(crc32_update(start, buf + off, n), want);
        }
    for (int level = 0; level < 3; level++)
        assert_int_equal(crc32_update_level(level, 7, buf + 3, size - 64), (uint32_t)crc32_z(7, buf + 3, size - 64));
    free(buf);
}

static void test_join_and_fill(void **state)
{
    (void)state;
    unsigned char buf[5000];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)next();
    uint32_t whole = crc32_update(0, buf, sizeof buf);
    assert_int_equal(crc32_join(crc32_update(0, buf, 1234), crc32_update(0, buf + 1234, 3766), 3766), whole);
    assert_int_equal(crc32_fill(buf, sizeof buf, NULL, 0), whole);
    crc_run runs[4] = {
        {100, 900, crc32_update(0, buf + 100, 800)},
        {900, 2000, crc32_update(0, buf + 900, 1100)},
        {1500, 2500, 0xdeadbeef},                        /* overlaps the one before: not used */
        {3000, 6000, 0xdeadbeef},                        /* past the end: not used */
    };
    assert_int_equal(crc32_fill(buf, sizeof buf, runs, 4), whole);
    /* a run's CRC that is wrong shows in the result */
    runs[1].crc ^= 1;
    assert_int_not_equal(crc32_fill(buf, sizeof buf, runs, 2), whole);
    /* crc_run_feed takes only what continues the run */
    crc_run r = {10, 10, 0};
    crc_run_feed(&r, buf, buf + 10, 100);
    crc_run_feed(&r, buf, buf + 500, 100);
    crc_run_feed(&r, buf, buf + 110, 40);
    assert_int_equal(r.to, 150);
    assert_int_equal(r.crc, crc32_update(0, buf + 10, 140));
}

/* ---- stored .pt entries ----------------------------------------------------------------- */

/* A .pt of `numel` float32 elements (values from seed) viewed as `shape`,
 * offset and strides as given; *data_at: where its storage entry's bytes
 * start in the archive. */
static void build(strbuf *out, size_t numel, int ndim, const int64_t *shape, const int64_t *stride, int64_t offset,
                  unsigned seed, size_t *data_at)
{
    float *v = malloc(numel * sizeof *v);
    for (size_t i = 0; i < numel; i++)
        v[i] = (float)((i * 7 + seed) % 1000) / 100.0f - 5.0f;
    pt_layout l = {.dtype = DT_F32, .ndim = ndim, .shape = shape, .stride = stride, .offset = offset,
                   .storage = v, .storage_numel = numel};
    sb_reset(out);
    assert_int_equal(pt_build(out, &l), 0);
    free(v);
    zip_archive z;
    assert_int_equal(zip_open(&z, "t.pt", (const unsigned char *)out->buf, out->len), 0);
    const zip_entry *e = zip_find(&z, "archive/data/0", 14);
    assert_non_null(e);
    const unsigned char *d;
    size_t n;
    void *owned;
    assert_int_equal(zip_read(&z, e, 0, &d, &n, &owned), 0);
    assert_null(owned);
    *data_at = (size_t)(d - (const unsigned char *)out->buf);
    zip_close(&z);
}

static int compare_later(const strbuf *a, const strbuf *b, unsigned flags, tensor_metrics *m)
{
    tensor ta, tb;
    assert_int_equal(pt_parse_flags("a.pt", (const unsigned char *)a->buf, a->len, PT_CRC_LATER, &ta), 0);
    assert_int_equal(pt_parse_flags("b.pt", (const unsigned char *)b->buf, b->len, PT_CRC_LATER, &tb), 0);
    assert_non_null(ta.crc.data);
    int rc = metrics_compare(&ta, &tb, flags, m);
    tensor_free(&ta);
    tensor_free(&tb);
    return rc;
}

static void expect_crc_error(void)
{
    assert_int_equal(err_cause(), ERR_MALFORMED);
    if (!strstr(err_message(), "zip entry 'archive/data/0' fails its CRC-32 check"))
        fail_msg("message: %s", err_message());
    err_clear();
}

static void test_pt_damaged(void **state)
{
    (void)state;
    strbuf a = STRBUF_INIT;
    size_t at;
    int64_t shape[1] = {1000};
    build(&a, 1000, 1, shape, NULL, 0, 1, &at);
    tensor t;
    assert_int_equal(pt_parse("a.pt", (const unsigned char *)a.buf, a.len, &t), 0);
    assert_null(t.crc.data);
    tensor_free(&t);
    a.buf[at + 777] ^= 0x10;
    assert_int_equal(pt_parse("a.pt", (const unsigned char *)a.buf, a.len, &t), -1);
    expect_crc_error();
    /* left for later: loads, then the pass that reads it refuses it */
    assert_int_equal(pt_parse_flags("a.pt", (const unsigned char *)a.buf, a.len, PT_CRC_LATER, &t), 0);
    assert_int_equal(tensor_crc_check(&t, "a.pt", NULL, 0), -1);
    expect_crc_error();
    tensor_free(&t);
    sb_free(&a);
}

/* One pair of layouts, one byte flipped at each of several places (on
 * either side, inside and outside the view): the compare fails exactly
 * when a byte was flipped, and without damage gives the result of the
 * compare with nothing left to check. */
static void check_layout(size_t numel, int ndim, const int64_t *shape, const int64_t *stride, int64_t offset,
                         const int64_t *bshape, unsigned flags)
{
    strbuf a = STRBUF_INIT, b = STRBUF_INIT;
    size_t at_a, at_b;
    build(&a, numel, ndim, shape, stride, offset, 1, &at_a);
    build(&b, numel, ndim, bshape ? bshape : shape, stride, offset, 2, &at_b);
    tensor_metrics good, m;
    assert_int_equal(compare_later(&a, &b, flags, &good), 0);
    {
        tensor ta, tb;
        assert_int_equal(pt_parse("a.pt", (const unsigned char *)a.buf, a.len, &ta), 0);
        assert_int_equal(pt_parse("b.pt", (const unsigned char *)b.buf, b.len, &tb), 0);
        assert_int_equal(metrics_compare(&ta, &tb, flags, &m), 0);
        assert_memory_equal(good.value, m.value, sizeof m.value);
        tensor_free(&ta);
        tensor_free(&tb);
    }
    size_t bytes = numel * 4, places[] = {0, 1, bytes / 3, bytes / 2 + 5, bytes - 1};
    for (int side = 0; side < 2; side++)
        for (size_t k = 0; k < sizeof places / sizeof places[0]; k++) {
            strbuf *s = side ? &b : &a;
            size_t at = (side ? at_b : at_a) + places[k];
            s->buf[at] ^= 0x01;
            if (compare_later(&a, &b, flags, &m) != -1)
                fail_msg("%zu elements, byte %zu of side %d flipped: not seen", numel, places[k], side);
            expect_crc_error();
            s->buf[at] ^= 0x01;
        }
    sb_free(&a);
    sb_free(&b);
}

static void test_metrics_checks(void **state)
{
    (void)state;
    int64_t s1[1] = {5000}, s2[2] = {50, 100}, t2[2] = {1, 50}, sb[1] = {4999}, zero[1] = {0};
    check_layout(5000, 1, s1, NULL, 0, NULL, 0);                      /* the whole entry, folded */
    check_layout(5000, 1, (int64_t[]){4000}, NULL, 700, NULL, 0);      /* bytes before and after the view */
    check_layout(5000, 2, s2, t2, 0, NULL, 0);                         /* strided: a pass of its own */
    check_layout(5000, 1, sb, NULL, 0, s1, 0);                         /* shapes differ: not scanned */
    check_layout(5000, 0, NULL, NULL, 3, NULL, 0);                     /* 0-d */
    check_layout(5000, 1, zero, NULL, 0, NULL, 0);                     /* empty */
    check_layout(70000, 1, (int64_t[]){70000}, NULL, 0, NULL, METRICS_SCALAR);
}

/* More than 2^22 elements: pieces on several threads, each folding its own
 * run, joined in order. */
static void test_metrics_pieces(void **state)
{
    (void)state;
    size_t numel = (size_t)9 << 20;
    int64_t shape[1] = {(int64_t)numel};
    check_layout(numel, 1, shape, NULL, 0, NULL, METRICS_THREADS(3));
}

/* A NaN on one side only stops the scan early: the bytes after the stop
 * are still checked. */
static void test_metrics_early_stop(void **state)
{
    (void)state;
    size_t numel = 200000, at_a, at_b;
    int64_t shape[1] = {(int64_t)numel};
    strbuf a = STRBUF_INIT, b = STRBUF_INIT;
    build(&a, numel, 1, shape, NULL, 0, 1, &at_a);
    build(&b, numel, 1, shape, NULL, 0, 2, &at_b);
    float nan = NAN;
    /* a NaN written with its CRC made good again: the entry stays intact */
    zip_archive z;
    memcpy(a.buf + at_a + 4 * 10, &nan, 4);
    tensor t;
    assert_int_equal(pt_parse_flags("a.pt", (const unsigned char *)a.buf, a.len, PT_CRC_LATER, &t), 0);
    uint32_t fixed = crc32_update(0, t.crc.data, t.crc.size);
    tensor_free(&t);
    assert_int_equal(zip_open(&z, "a.pt", (const unsigned char *)a.buf, a.len), 0);
    const zip_entry *e = zip_find(&z, "archive/data/0", 14);
    /* the CRC lives in the local header (offset 14) and the central directory (offset 16) */
    unsigned char *lh = (unsigned char *)a.buf + e->local_offset;
    unsigned char *cd = (unsigned char *)e->name - ZIP_CENTRAL_LEN;
    for (int k = 0; k < 4; k++)
        lh[14 + k] = cd[16 + k] = (unsigned char)(fixed >> (8 * k));
    zip_close(&z);
    tensor_metrics m;
    assert_int_equal(compare_later(&a, &b, 0, &m), 0);
    assert_true(m.msgs & MSG_POSITION);
    a.buf[at_a + 4 * (numel - 3)] ^= 0x04;
    assert_int_equal(compare_later(&a, &b, 0, &m), -1);
    expect_crc_error();
    sb_free(&a);
    sb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_paths_agree),
        cmocka_unit_test(test_join_and_fill),
        cmocka_unit_test(test_pt_damaged),
        cmocka_unit_test(test_metrics_checks),
        cmocka_unit_test(test_metrics_pieces),
        cmocka_unit_test(test_metrics_early_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
