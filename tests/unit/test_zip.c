/* zip reader and writer: archives built here (stored, deflated, aligned,
 * ZIP64), one written by Python's zipfile, and corrupted archives, one
 * test each. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/files.h"
#include "base/le.h"
#include "base/err.h"
#include "format/zip_write.h"
#include "base/strbuf.h"
#include "format/zip.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>


/* Find the n-th occurrence of a 4-byte signature. */
static size_t find_sig(const strbuf *sb, uint32_t sig, int nth)
{
    for (size_t i = 0; i + 4 <= sb->len; i++)
        if (le_get32((unsigned char *)sb->buf + i) == sig && nth-- == 0)
            return i;
    fail_msg("signature %08x not found", sig);
    return 0;
}

static unsigned char payload[5000];

static void build(strbuf *sb, int method, unsigned align, int zip64)
{
    for (size_t i = 0; i < sizeof payload; i++)
        payload[i] = (unsigned char)(i * 7 % 251);
    zip_writer w;
    sb_reset(sb);
    zip_writer_init(&w, zip_sink_strbuf, sb);
    w.align = align;
    w.force_zip64 = zip64;
    assert_int_equal(zip_writer_add(&w, "top/one", "hello", 5, 0), 0);
    assert_int_equal(zip_writer_add(&w, "top/data/0", payload, sizeof payload, method), 0);
    assert_int_equal(zip_writer_add(&w, "top/empty", "", 0, method), 0);
    assert_int_equal(zip_writer_finish(&w), 0);
}

/* An exact-size heap copy, so ASan catches any read past the end. */
static unsigned char *exact_copy(const strbuf *sb)
{
    unsigned char *p = malloc(sb->len ? sb->len : 1);
    memcpy(p, sb->buf, sb->len);
    return p;
}

static void check_archive(const unsigned char *data, size_t size, int method, unsigned align)
{
    zip_archive z;
    if (zip_open(&z, "a.zip", data, size) != 0)
        fail_msg("%s", err_message());
    assert_int_equal(z.count, 3);
    const zip_entry *e = zip_find(&z, "top/data/0", 10);
    assert_non_null(e);
    assert_int_equal(e->method, method);
    assert_null(zip_find(&z, "top/data/1", 10));
    assert_null(zip_find(&z, "top/data", 8));
    const unsigned char *d;
    size_t n;
    void *owned;
    assert_int_equal(zip_read(&z, e, 0, &d, &n, &owned), 0);
    assert_int_equal(n, sizeof payload);
    assert_memory_equal(d, payload, n);
    if (method == 0) {
        assert_null(owned);
        assert_true(d > data && d < data + size); /* in place */
        if (align > 1)
            assert_int_equal((size_t)(d - data) % align, 0);
    } else {
        assert_ptr_equal(owned, d);
    }
    free(owned);
    e = zip_find(&z, "top/empty", 9);
    assert_int_equal(zip_read(&z, e, 0, &d, &n, &owned), 0);
    assert_int_equal(n, 0);
    free(owned);
    e = zip_find(&z, "top/one", 7);
    assert_int_equal(zip_read(&z, e, 0, &d, &n, &owned), 0);
    assert_true(n == 5 && memcmp(d, "hello", 5) == 0);
    assert_int_equal(zip_read(&z, e, 4, &d, &n, &owned), -1); /* over the caller's limit */
    assert_non_null(strstr(err_message(), "too large"));
    zip_close(&z);
}

static void test_round_trips(void **state)
{
    (void)state;
    strbuf sb = STRBUF_INIT;
    for (int method = 0; method <= 8; method += 8)
        for (unsigned align = 0; align <= 64; align += 64)
            for (int zip64 = 0; zip64 < 2; zip64++) {
                build(&sb, method, align, zip64);
                unsigned char *p = exact_copy(&sb);
                check_archive(p, sb.len, method, align);
                free(p);
            }
    sb_free(&sb);
}

/* The zip64 end records really are what is read: the classic end record
 * holds only 0xFFFF markers. */
static void test_zip64_records(void **state)
{
    (void)state;
    strbuf sb = STRBUF_INIT;
    build(&sb, 0, 64, 1);
    size_t eocd = find_sig(&sb, 0x06054b50u, 0);
    unsigned char *e = (unsigned char *)sb.buf + eocd;
    assert_int_equal(e[10] | e[11] << 8, 0xffff);
    assert_int_equal(le_get32(e + 16), 0xffffffffu);
    size_t cd = find_sig(&sb, 0x02014b50u, 0);
    assert_int_equal(le_get32((unsigned char *)sb.buf + cd + 42), 0xffffffffu);
    check_archive((unsigned char *)sb.buf, sb.len, 0, 64);
    /* a trailing archive comment is allowed */
    le_put16(e + 20, 7);
    sb_adds(&sb, "comment");
    check_archive((unsigned char *)sb.buf, sb.len, 0, 64);
    sb_free(&sb);
}

/* Python's zipfile: deflated entries, data descriptors, ZIP64 extras. */
static void test_python_archive(void **state)
{
    (void)state;
    mapped_file f;
    if (file_map("testdata/tensors/rezipped.pt", 0, &f) != 0)
        fail_msg("%s", err_message());
    zip_archive z;
    assert_int_equal(zip_open(&z, f.path, f.data, f.size), 0);
    const zip_entry *e = zip_find(&z, "renamed/data/0", 14);
    assert_non_null(e);
    assert_int_equal(e->method, 8);
    const unsigned char *d;
    size_t n;
    void *owned;
    assert_int_equal(zip_read(&z, e, 0, &d, &n, &owned), 0);
    assert_int_equal(n, 48);
    float first;
    memcpy(&first, d, 4);
    assert_true(first == -1.0f);
    free(owned);
    zip_close(&z);
    file_unmap(&f);
}

/* ---- corrupted archives ------------------------------------------------ */

typedef struct {
    const char *name;
    int method, zip64;
    void (*corrupt)(strbuf *sb);
    int at_open;                  /* fails in zip_open, else in zip_read */
    const char *message;
} bad_case;

static void c_truncate_tail(strbuf *sb) { sb->len -= 30; }
static void c_tiny(strbuf *sb) { sb->len = 10; }
static void c_no_eocd(strbuf *sb) { sb->buf[find_sig(sb, 0x06054b50u, 0)] = 'X'; }
static void c_cd_offset(strbuf *sb) { le_put32((unsigned char *)sb->buf + find_sig(sb, 0x06054b50u, 0) + 16, 0x7fffffff); }
static void c_cd_size(strbuf *sb) { le_put32((unsigned char *)sb->buf + find_sig(sb, 0x06054b50u, 0) + 12, 0x7fffffff); }
static void c_count(strbuf *sb)
{
    unsigned char *e = (unsigned char *)sb->buf + find_sig(sb, 0x06054b50u, 0);
    le_put16(e + 8, 60000);
    le_put16(e + 10, 60000);
}
static void c_count_small_cd(strbuf *sb)
{
    unsigned char *e = (unsigned char *)sb->buf + find_sig(sb, 0x06054b50u, 0);
    le_put16(e + 10, 4); /* 4 entries but the directory holds 3 */
    le_put32(e + 12, le_get32(e + 12) + 46);
    le_put32(e + 16, le_get32(e + 16) - 46);
}
static void c_multidisk(strbuf *sb) { le_put16((unsigned char *)sb->buf + find_sig(sb, 0x06054b50u, 0) + 4, 1); }
static void c_central_sig(strbuf *sb) { sb->buf[find_sig(sb, 0x02014b50u, 1)] = 'Q'; }
static void c_name_len(strbuf *sb) { le_put16((unsigned char *)sb->buf + find_sig(sb, 0x02014b50u, 2) + 28, 5000); }
static void c_extra_overrun(strbuf *sb)
{
    unsigned char *c = (unsigned char *)sb->buf + find_sig(sb, 0x02014b50u, 1);
    le_put16(c + 2 + 46 + 10, 500); /* zip64 extra length field of entry 2 */
}
static void c_local_offset(strbuf *sb) { le_put32((unsigned char *)sb->buf + find_sig(sb, 0x02014b50u, 1) + 42, 0xfffff); }
static void c_local_sig(strbuf *sb) { sb->buf[find_sig(sb, 0x04034b50u, 1)] = 'Q'; }
static void c_local_name(strbuf *sb) { sb->buf[find_sig(sb, 0x04034b50u, 1) + 30] = 'X'; }
static void c_local_extra(strbuf *sb)
{
    /* local extra length pointing the data past the end of the file */
    le_put16((unsigned char *)sb->buf + find_sig(sb, 0x04034b50u, 1) + 28, 0xffff);
}
static void c_comp_size(strbuf *sb) { le_put32((unsigned char *)sb->buf + find_sig(sb, 0x02014b50u, 1) + 20, 0x7ffffff0); }
static void c_stored_sizes(strbuf *sb) { le_put32((unsigned char *)sb->buf + find_sig(sb, 0x02014b50u, 1) + 24, 4999); }
static void c_encrypted(strbuf *sb) { le_put16((unsigned char *)sb->buf + find_sig(sb, 0x02014b50u, 1) + 8, 1); }
static void c_bzip2(strbuf *sb) { le_put16((unsigned char *)sb->buf + find_sig(sb, 0x02014b50u, 1) + 10, 12); }
static void c_deflate_garbage(strbuf *sb)
{
    unsigned char *l = (unsigned char *)sb->buf + find_sig(sb, 0x04034b50u, 1);
    size_t at = (size_t)(l - (unsigned char *)sb->buf) + 30 + 10 + (l[28] | l[29] << 8);
    for (int i = 0; i < 8; i++)
        sb->buf[at + (size_t)i] = (char)0xff;
}
static void c_deflate_short(strbuf *sb)
{
    unsigned char *c = (unsigned char *)sb->buf + find_sig(sb, 0x02014b50u, 1);
    le_put32(c + 20, le_get32(c + 20) / 2); /* stream cut in half */
}
static void c_declared_smaller(strbuf *sb)
{
    le_put32((unsigned char *)sb->buf + find_sig(sb, 0x02014b50u, 1) + 24, 4000);
}
static void c_declared_larger(strbuf *sb)
{
    le_put32((unsigned char *)sb->buf + find_sig(sb, 0x02014b50u, 1) + 24, 5001);
}
static void c_bomb(strbuf *sb)
{
    /* zip64: a few hundred compressed bytes claiming a terabyte */
    unsigned char *c = (unsigned char *)sb->buf + find_sig(sb, 0x02014b50u, 1);
    le_put64(c + 46 + 10 + 4, (uint64_t)1 << 40);
}
static void c_crc(strbuf *sb) { sb->buf[find_sig(sb, 0x02014b50u, 1) + 16] ^= 1; }
static void c_locator_offset(strbuf *sb)
{
    le_put64((unsigned char *)sb->buf + find_sig(sb, 0x07064b50u, 0) + 8, 1u << 30);
}
static void c_eocd64_sig(strbuf *sb) { sb->buf[find_sig(sb, 0x06064b50u, 0)] = 'Q'; }
static void c_zip64_no_record(strbuf *sb) { sb->buf[find_sig(sb, 0x07064b50u, 0)] = 'Q'; }
static void c_missing_zip64_extra(strbuf *sb)
{
    unsigned char *c = (unsigned char *)sb->buf + find_sig(sb, 0x02014b50u, 1);
    le_put16(c + 46 + 10, 0x7777); /* the zip64 extra's id no longer says zip64 */
}

static const bad_case bad_cases[] = {
    { "tail cut off", 0, 0, c_truncate_tail, 1, "no end-of-central-directory" },
    { "ten bytes", 0, 0, c_tiny, 1, "too short" },
    { "no end record", 0, 0, c_no_eocd, 1, "no end-of-central-directory" },
    { "central directory offset past the end", 0, 0, c_cd_offset, 1, "lies outside the file" },
    { "central directory size past the end", 0, 0, c_cd_size, 1, "lies outside the file" },
    { "absurd entry count", 0, 0, c_count, 1, "cannot fit" },
    { "entry count larger than directory", 0, 0, c_count_small_cd, 1, "bad central directory entry" },
    { "multi-disk", 0, 0, c_multidisk, 1, "multi-disk" },
    { "bad central signature", 0, 0, c_central_sig, 1, "bad central directory entry" },
    { "name longer than directory", 0, 0, c_name_len, 1, "bad central directory entry" },
    { "extra field overrun", 0, 1, c_extra_overrun, 1, "overruns" },
    { "local header offset past the end", 0, 0, c_local_offset, 0, "bad local header offset" },
    { "bad local signature", 0, 0, c_local_sig, 0, "bad local header offset" },
    { "local name differs", 0, 0, c_local_name, 0, "does not match" },
    { "local extra pushes data out", 0, 0, c_local_extra, 0, "lies outside the file" },
    { "compressed size past the end", 0, 0, c_comp_size, 0, "lies outside the file" },
    { "stored sizes differ", 0, 0, c_stored_sizes, 0, "different sizes" },
    { "encrypted", 0, 0, c_encrypted, 0, "encrypted" },
    { "bzip2 method", 0, 0, c_bzip2, 0, "method 12" },
    { "corrupt deflate data", 8, 0, c_deflate_garbage, 0, "corrupt deflate data" },
    { "truncated deflate stream", 8, 0, c_deflate_short, 0, "ends early" },
    { "inflates to more than declared", 8, 0, c_declared_smaller, 0, "more than its declared 4000" },
    { "inflates to less than declared", 8, 0, c_declared_larger, 0, "5001 were declared" },
    { "zip bomb ratio", 8, 1, c_bomb, 0, "zip bomb" },
    { "crc mismatch", 8, 0, c_crc, 0, "CRC-32" },
    { "zip64 locator offset past the end", 0, 1, c_locator_offset, 1, "zip64 end-of-central-directory" },
    { "zip64 end record signature", 0, 1, c_eocd64_sig, 1, "zip64 end-of-central-directory" },
    { "zip64 markers without zip64 record", 0, 1, c_zip64_no_record, 1, "without a zip64 end record" },
    { "zip64 sizes missing", 0, 1, c_missing_zip64_extra, 1, "lacks its zip64 sizes" },
};

static void run_bad(void **state)
{
    const bad_case *c = *state;
    strbuf sb = STRBUF_INIT;
    build(&sb, c->method, 64, c->zip64);
    c->corrupt(&sb);
    unsigned char *p = exact_copy(&sb);
    err_clear();
    zip_archive z;
    int rc = zip_open(&z, "bad.zip", p, sb.len);
    if (c->at_open) {
        if (rc == 0)
            fail_msg("%s: zip_open accepted it", c->name);
    } else {
        if (rc != 0)
            fail_msg("%s: zip_open failed early: %s", c->name, err_message());
        const unsigned char *d;
        size_t n;
        void *owned;
        rc = zip_read(&z, &z.entries[1], 0, &d, &n, &owned);
        assert_null(owned);
        zip_close(&z);
        if (rc == 0)
            fail_msg("%s: zip_read accepted it", c->name);
    }
    if (!strstr(err_message(), c->message) || strncmp(err_message(), "bad.zip: ", 9) != 0)
        fail_msg("%s: message '%s' lacks '%s'", c->name, err_message(), c->message);
    assert_int_equal(err_kind(), EXIT_BADINPUT);
    free(p);
    sb_free(&sb);
}

/* Every truncation and many single-byte corruptions of a deflated ZIP64
 * archive: whatever happens, no crash, no out-of-bounds read, no leak. */
static void test_damage_sweep(void **state)
{
    (void)state;
    strbuf sb = STRBUF_INIT;
    build(&sb, 8, 64, 1);
    for (size_t n = 0; n <= sb.len; n++) {
        unsigned char *p = malloc(n ? n : 1);
        memcpy(p, sb.buf, n);
        zip_archive z;
        if (zip_open(&z, "t.zip", p, n) == 0) {
            for (size_t i = 0; i < z.count; i++) {
                const unsigned char *d;
                size_t len;
                void *owned;
                if (zip_read(&z, &z.entries[i], 0, &d, &len, &owned) == 0)
                    free(owned);
            }
            zip_close(&z);
        }
        free(p);
    }
    unsigned seed = 12345;
    for (int round = 0; round < 3000; round++) {
        unsigned char *p = exact_copy(&sb);
        for (int k = 0; k < 3; k++) {
            seed = seed * 1103515245u + 12345u;
            p[(seed >> 8) % sb.len] = (unsigned char)(seed >> 20);
        }
        zip_archive z;
        if (zip_open(&z, "t.zip", p, sb.len) == 0) {
            for (size_t i = 0; i < z.count; i++) {
                const unsigned char *d;
                size_t len;
                void *owned;
                if (zip_read(&z, &z.entries[i], 1 << 20, &d, &len, &owned) == 0)
                    free(owned);
            }
            zip_close(&z);
        }
        free(p);
    }
    sb_free(&sb);
}

/* ---- zip bombs (zip.h: ZIP_MAX_RATIO, ZIP_RATIO_FREE) -------------------- */

static int read_entry(zip_archive *z, size_t i)
{
    const unsigned char *d;
    size_t n;
    void *owned;
    int rc = zip_read(z, &z->entries[i], 0, &d, &n, &owned);
    free(owned);
    return rc;
}

static void one_entry(strbuf *sb, const unsigned char *data, size_t size)
{
    zip_writer w;
    sb_reset(sb);
    zip_writer_init(&w, zip_sink_strbuf, sb);
    assert_int_equal(zip_writer_add(&w, "top/data/0", data, size, 8), 0);
    assert_int_equal(zip_writer_finish(&w), 0);
}

/* Low-entropy bytes: deflate gets about 2:1, well within the ratio. */
static unsigned char *noise(size_t n)
{
    unsigned char *p = malloc(n);
    unsigned seed = 7;
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (unsigned char)((seed >> 16) & 0x0f);
    }
    return p;
}

static void test_bomb_limits(void **state)
{
    (void)state;
    strbuf sb = STRBUF_INIT;
    zip_archive z;

    /* 4 MiB of zeros deflate to a few KB: refused before any allocation */
    size_t big = (size_t)4 << 20;
    unsigned char *zeros = calloc(big, 1);
    one_entry(&sb, zeros, big);
    assert_int_equal(zip_open(&z, "bomb.pt", (unsigned char *)sb.buf, sb.len), 0);
    err_clear();
    assert_int_equal(read_entry(&z, 0), -1);
    assert_int_equal(err_cause(), ERR_LIMIT);
    tu_assert_err("bomb.pt: zip entry 'top/data/0' would inflate", "more than 32 times (a zip bomb?)");
    zip_close(&z);

    /* up to ZIP_RATIO_FREE any ratio deflate can reach is fine */
    one_entry(&sb, zeros, (size_t)ZIP_RATIO_FREE);
    assert_int_equal(zip_open(&z, "small.pt", (unsigned char *)sb.buf, sb.len), 0);
    assert_int_equal(read_entry(&z, 0), 0);
    zip_close(&z);
    free(zeros);

    /* an ordinary ratio, far beyond the exempt size */
    size_t n = ZIP_RATIO_FREE + 1;
    unsigned char *data = noise(n);
    one_entry(&sb, data, n);
    assert_int_equal(zip_open(&z, "ok.pt", (unsigned char *)sb.buf, sb.len), 0);
    assert_int_equal(read_entry(&z, 0), 0);
    zip_close(&z);

    /* the same entry listed 40 times over the same compressed bytes (an
     * overlapping bomb): each is fine alone, together they pass 32 times
     * the archive's size and are refused */
    size_t cd = find_sig(&sb, ZIP_SIG_CENTRAL, 0), eocd = find_sig(&sb, ZIP_SIG_EOCD, 0);
    size_t rec = eocd - cd;
    strbuf many = STRBUF_INIT;
    sb_add(&many, sb.buf, cd);
    for (int k = 0; k < 40; k++)
        sb_add(&many, sb.buf + cd, rec);
    sb_add(&many, sb.buf + eocd, sb.len - eocd);
    unsigned char *e = (unsigned char *)many.buf + cd + 40 * rec;
    le_put16(e + 8, 40);
    le_put16(e + 10, 40);
    le_put32(e + 12, (uint32_t)(40 * rec));
    assert_int_equal(zip_open(&z, "overlap.pt", (unsigned char *)many.buf, many.len), 0);
    assert_int_equal(z.count, 40);
    size_t ok = 0;
    err_clear();
    while (ok < z.count && read_entry(&z, ok) == 0)
        ok++;
    assert_int_equal(ok, (size_t)(many.len * ZIP_MAX_RATIO / n));
    assert_int_equal(err_cause(), ERR_LIMIT);
    tu_assert_err("overlap.pt: zip entries would inflate to more than 32 times the archive's");
    zip_close(&z);
    free(data);
    sb_free(&many);
    sb_free(&sb);
}

/* zip_index: refused names, duplicates, limits, and lookups by name. */
static void archive_of(strbuf *sb, const char *const *names, size_t n)
{
    zip_writer w;
    sb_reset(sb);
    zip_writer_init(&w, zip_sink_strbuf, sb);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(zip_writer_add(&w, names[i], "data", 4, 0), 0);
    assert_int_equal(zip_writer_finish(&w), 0);
}

static int index_names(const char *const *names, size_t n, size_t max_entries, uint64_t max_entry,
                       uint64_t max_total)
{
    strbuf sb = STRBUF_INIT;
    archive_of(&sb, names, n);
    zip_archive z;
    assert_int_equal(zip_open(&z, "p.zip", (unsigned char *)sb.buf, sb.len), 0);
    err_clear();
    int rc = zip_index(&z, max_entries, max_entry, max_total);
    if (rc == 0) {
        /* every name found by the binary search, a missing one not */
        for (size_t i = 0; i < n; i++) {
            const zip_entry *e = zip_find(&z, names[i], strlen(names[i]));
            assert_non_null(e);
            assert_int_equal(e->name_len, strlen(names[i]));
            assert_memory_equal(e->name, names[i], e->name_len);
        }
        assert_null(zip_find(&z, "nothere", 7));
        assert_null(zip_find(&z, "a", 1));
    }
    zip_close(&z);
    sb_free(&sb);
    return rc;
}

static void test_index(void **state)
{
    (void)state;
    const char *good[] = {"env", "pip", "dataset/step0/rank0/dataset.json", "dataset/", "a.b/..c/x", "ab", "abc"};
    assert_int_equal(index_names(good, 7, ZIP_MAX_ENTRIES, 0, 0), 0);
    static const struct {
        const char *name, *why;
    } bad[] = {
        {"../evil", "'..'"}, {"a/../../b", "'..'"}, {"a/..", "'..'"}, {"/etc/passwd", "absolute"},
        {"a//b", "empty path component"}, {"./a", "'.' component"}, {"a\001b", "control character"}, {"", "empty name"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *names[] = {"ok", bad[i].name};
        assert_int_equal(index_names(names, 2, ZIP_MAX_ENTRIES, 0, 0), -1);
        if (!strstr(err_message(), bad[i].why))
            fail_msg("'%s': %s", bad[i].name, err_message());
    }
    const char *dup[] = {"x", "y", "x"};
    assert_int_equal(index_names(dup, 3, ZIP_MAX_ENTRIES, 0, 0), -1);
    assert_non_null(strstr(err_message(), "appears twice"));
    assert_int_equal(index_names(good, 7, 6, 0, 0), -1);
    assert_int_equal(err_cause(), ERR_LIMIT);
    assert_int_equal(index_names(good, 7, ZIP_MAX_ENTRIES, 3, 0), -1);
    assert_int_equal(err_cause(), ERR_LIMIT);
    assert_int_equal(index_names(good, 7, ZIP_MAX_ENTRIES, 0, 20), -1);
    assert_int_equal(err_cause(), ERR_LIMIT);
    assert_int_equal(index_names(good, 7, ZIP_MAX_ENTRIES, 4, 28), 0);
    err_clear();
}

int main(void)
{
    struct CMUnitTest tests[64] = {
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_zip64_records),
        cmocka_unit_test(test_python_archive),
        cmocka_unit_test(test_damage_sweep),
        cmocka_unit_test(test_bomb_limits),
        cmocka_unit_test(test_index),
    };
    size_t n = 6;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++)
        tests[n++] = (struct CMUnitTest){ bad_cases[i].name, run_bad, NULL, NULL, (void *)&bad_cases[i] };
    return _cmocka_run_group_tests("test_zip", tests, n, NULL, NULL);
}
