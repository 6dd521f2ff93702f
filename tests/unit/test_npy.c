/* .npy reader: files assembled here byte by byte for every dtype, format
 * version, byte order and memory order; header spellings; the numpy-written
 * fixtures of testdata/tensors; malformed files, one test each. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/err.h"
#include "npy_write.h"
#include "format/tensor_file.h"
#include "format/npy.h"
#include "tensor_testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOST_BIG (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

/* magic + version + length + header (padded with spaces and '\n' so the
 * data starts at a multiple of `align`, like numpy) + data. */
static size_t make_npy(strbuf *sb, int major, int minor, const char *dict, size_t align, const void *data,
                       size_t n)
{
    size_t pre = major == 1 ? 10 : 12;
    size_t hl = strlen(dict) + 1;
    if (align > 1)
        hl = (pre + hl + align - 1) / align * align - pre;
    unsigned char head[12] = { 0x93, 'N', 'U', 'M', 'P', 'Y', (unsigned char)major, (unsigned char)minor,
                               (unsigned char)hl, (unsigned char)(hl >> 8), (unsigned char)(hl >> 16),
                               (unsigned char)(hl >> 24) };
    sb_reset(sb);
    sb_add(sb, head, pre);
    sb_adds(sb, dict);
    while (sb->len < pre + hl - 1)
        sb_addc(sb, ' ');
    sb_addc(sb, '\n');
    sb_add(sb, data, n);
    return sb->len;
}

static const char *code_of(dtype_id dt)
{
    static const char *const codes[DT_COUNT] = {
        [DT_BOOL] = "b1", [DT_I8] = "i1", [DT_U8] = "u1", [DT_I16] = "i2", [DT_U16] = "u2", [DT_I32] = "i4",
        [DT_U32] = "u4", [DT_I64] = "i8", [DT_U64] = "u8", [DT_F16] = "f2", [DT_F32] = "f4", [DT_F64] = "f8",
        [DT_C64] = "c8", [DT_C128] = "c16",
    };
    return codes[dt];
}

/* Store v (+ im for complex) as dtype dt in the given byte order. */
static void encode(dtype_id dt, double v, double im, int big, unsigned char *p)
{
    tt_store(dt, v, im, p);
    if (big != HOST_BIG)
        tt_swap_elem(dt, p, p);
}

static double value_at(dtype_id dt, size_t i)
{
    if (dt == DT_BOOL)
        return i % 3 == 1;
    if (dtype_is_integer(dt))
        return dt == DT_U8 || dt == DT_U16 || dt == DT_U32 || dt == DT_U64 ? (double)(i * 7 % 23) : (double)i - 11;
    return (double)i * 0.375 - 4;
}

/* dtype x version x byte order x memory order, shape (2, 3, 4). */
static void test_every_layout(void **state)
{
    (void)state;
    enum { D0 = 2, D1 = 3, D2 = 4, N = D0 * D1 * D2 };
    strbuf sb = STRBUF_INIT;
    for (int d = 0; d < DT_COUNT; d++) {
        dtype_id dt = (dtype_id)d;
        if (dt == DT_BF16)
            continue;
        size_t es = dtype_size(dt);
        for (int major = 1; major <= 3; major++)
            for (int big = 0; big < 2; big++)
                for (int fortran = 0; fortran < 2; fortran++) {
                    unsigned char data[N * 16];
                    for (size_t i = 0; i < D0; i++)
                        for (size_t j = 0; j < D1; j++)
                            for (size_t k = 0; k < D2; k++) {
                                size_t logical = (i * D1 + j) * D2 + k;
                                size_t stored = fortran ? (k * D1 + j) * D0 + i : logical;
                                double v = value_at(dt, logical);
                                encode(dt, v, -v, big, data + stored * es);
                            }
                    char dict[128];
                    snprintf(dict, sizeof dict, "{'descr': '%c%s', 'fortran_order': %s, 'shape': (2, 3, 4), }",
                             es == 1 ? '|' : big ? '>' : '<', code_of(dt), fortran ? "True" : "False");
                    make_npy(&sb, major, 0, dict, 64, data, N * es);
                    tensor t;
                    if (npy_parse("x.npy", (unsigned char *)sb.buf, sb.len, &t) != 0)
                        fail_msg("%s v%d big=%d fortran=%d: %s", dtype_name(dt), major, big, fortran, err_message());
                    assert_int_equal(t.dtype, dt);
                    assert_int_equal(t.ndim, 3);
                    assert_true(t.shape[0] == D0 && t.shape[1] == D1 && t.shape[2] == D2);
                    assert_int_equal(t.numel, N);
                    assert_true((unsigned char *)t.storage == (unsigned char *)sb.buf + sb.len - N * es); /* in place */
                    assert_int_equal((sb.len - N * es) % 64, 0);
                    double out[2 * N];
                    assert_int_equal(tensor_read_complex(&t, 0, N, out), N);
                    for (size_t i = 0; i < N; i++) {
                        double v = value_at(dt, i);
                        assert_true(out[2 * i] == v);
                        assert_true(out[2 * i + 1] == (dtype_is_complex(dt) ? -v : 0));
                    }
                    assert_int_equal(tensor_contiguous_data(&t) != NULL, !fortran && (big == HOST_BIG || es == 1));
                    tensor_free(&t);
                }
    }
    sb_free(&sb);
}

static void parse_ok(const char *dict, size_t align, const void *data, size_t n, tensor *t)
{
    strbuf sb = STRBUF_INIT;
    make_npy(&sb, 1, 0, dict, align, data, n);
    size_t len = sb.len;
    unsigned char *copy = malloc(len);
    memcpy(copy, sb.buf, len);
    sb_free(&sb);
    if (npy_parse("x.npy", copy, len, t) != 0)
        fail_msg("%s: %s", dict, err_message());
    double v[8];
    assert_int_equal(tensor_read_f64(t, 0, 8, v), t->numel);
    free(copy);
    t->storage = NULL; /* the caller only looks at the shape */
}

static void test_header_spellings(void **state)
{
    (void)state;
    float f[6] = { 1, 2, 3, 4, 5, 6 };
    tensor t;
    parse_ok("{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2L, 3L)}", 16, f, sizeof f, &t);
    assert_true(t.ndim == 2 && t.shape[0] == 2 && t.shape[1] == 3 && t.dtype == DT_F32);
    parse_ok("{'shape':(6,),'fortran_order':False,'descr':'f4'}", 0, f, sizeof f, &t);
    assert_true(t.ndim == 1 && t.shape[0] == 6);
    parse_ok("{ 'descr' : '=f4' ,\n 'fortran_order' : True , 'shape' : ( 3 , 2 , ) , }", 64, f, sizeof f, &t);
    assert_true(t.ndim == 2 && t.stride[0] == 1 && t.stride[1] == 3);
    parse_ok("{'descr': '|?', 'fortran_order': False, 'shape': (), }", 64, "\x01", 1, &t);
    assert_true(t.ndim == 0 && t.numel == 1 && t.dtype == DT_BOOL);
    parse_ok("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 5), }", 64, "", 0, &t);
    assert_true(t.numel == 0 && t.ndim == 2);
    parse_ok("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 64, f, sizeof f, &t); /* extra data */
    assert_int_equal(t.numel, 2);
}

/* Our writer emits the very bytes numpy does. */
static void test_header_matches_numpy(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        dtype_id dt;
        int big, fortran, ndim;
        int64_t shape[2];
    } cases[] = {
        { "f32.npy", DT_F32, 0, 0, 2, { 2, 3 } },
        { "f64_fortran.npy", DT_F64, 0, 1, 2, { 2, 3 } },
        { "i32_be.npy", DT_I32, 1, 0, 2, { 2, 2 } },
        { "bool.npy", DT_BOOL, 0, 0, 1, { 4 } },
        { "scalar.npy", DT_I16, 0, 0, 0, { 0 } },
        { "c128.npy", DT_C128, 0, 0, 1, { 2 } },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mapped_file f;
        char path[128];
        snprintf(path, sizeof path, TT_FIXTURES "%s", cases[i].file);
        if (file_map(path, 0, &f) != 0)
            fail_msg("%s", err_message());
        strbuf sb = STRBUF_INIT;
        assert_int_equal(npy_header(&sb, cases[i].dt, cases[i].big, cases[i].fortran, cases[i].ndim, cases[i].shape),
                         0);
        assert_int_equal(sb.len, 128);
        assert_true(f.size > sb.len);
        assert_memory_equal(f.data, sb.buf, sb.len);
        sb_free(&sb);
        file_unmap(&f);
    }
    strbuf sb = STRBUF_INIT;
    assert_int_equal(npy_header(&sb, DT_BF16, 0, 0, 0, NULL), -1);
    assert_non_null(strstr(err_message(), "bfloat16"));
    /* a header longer than 65535 bytes switches to version 2.0 */
    int64_t shape[TENSOR_MAX_DIMS];
    for (int i = 0; i < TENSOR_MAX_DIMS; i++)
        shape[i] = INT64_MAX / 2;
    strbuf big = STRBUF_INIT;
    assert_int_equal(npy_header(&big, DT_U8, 0, 0, TENSOR_MAX_DIMS, shape), 0);
    assert_int_equal(big.buf[6], 1);
    assert_int_equal(big.len % 64, 0);
    sb_free(&big);
    sb_free(&sb);
}

/* Files written by real numpy (tests/tools/make_tensor_fixtures.py). */
static void test_numpy_fixtures(void **state)
{
    (void)state;
    FILE *m = fopen(TT_FIXTURES "manifest.txt", "r");
    assert_non_null(m);
    tt_fixture f;
    int seen = 0;
    while (tt_next_fixture(m, ".npy", &f)) {
        tensor t;
        tt_load_fixture(&f, &t);
        tensor_free(&t);
        seen++;
    }
    fclose(m);
    assert_int_equal(seen, 10);
}

static void test_save_round_trip(void **state)
{
    (void)state;
    char dir[] = "/tmp/msprobe_npy_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/a.npy", dir);
    uint16_t h[6] = { 0x3c00, 0xc000, 0x7c00, 0x0001, 0x8000, 0x7e00 };
    int64_t shape[] = { 3, 2 };
    assert_int_equal(npy_save(path, DT_F16, 2, shape, h), 0);
    tensor t;
    assert_int_equal(tensor_load(path, &t), 0);
    assert_int_equal(t.dtype, DT_F16);
    uint16_t back[6];
    assert_int_equal(tensor_read_raw(&t, 0, 6, back), 6);
    assert_memory_equal(back, h, sizeof h);
    tensor_free(&t);
    assert_int_equal(npy_save(path, DT_BF16, 2, shape, h), -1);
    char bad[80];
    snprintf(bad, sizeof bad, "%s/missing/a.npy", dir);
    assert_int_equal(npy_save(bad, DT_F32, 2, shape, h), -1);
    unlink(path);
    rmdir(dir);
}

/* ---- malformed files: each case must fail with its message ------------ */

typedef struct {
    const char *name;
    int major, minor;
    const char *dict;          /* NULL: use raw */
    const char *raw;           /* whole file when dict is NULL */
    size_t raw_len;
    size_t data_len;           /* bytes of data after the header */
    const char *message;
} bad_case;

static void run_bad(void **state)
{
    const bad_case *c = *state;
    strbuf sb = STRBUF_INIT;
    if (c->dict) {
        unsigned char zeros[64] = { 0 };
        make_npy(&sb, c->major, c->minor, c->dict, 64, zeros, c->data_len);
    } else {
        sb_add(&sb, c->raw, c->raw_len);
    }
    /* an exact-size heap copy so ASan sees any read past the end */
    unsigned char *copy = malloc(sb.len ? sb.len : 1);
    memcpy(copy, sb.buf, sb.len);
    tensor t;
    err_clear();
    int rc = npy_parse("bad.npy", copy, sb.len, &t);
    if (rc == 0)
        fail_msg("%s: accepted", c->name);
    if (!strstr(err_message(), c->message) || strncmp(err_message(), "bad.npy: ", 9) != 0)
        fail_msg("%s: message '%s' lacks '%s'", c->name, err_message(), c->message);
    assert_int_equal(err_kind(), EXIT_BADINPUT);
    /* every shorter prefix fails too, without reading out of bounds */
    for (size_t n = 0; n < sb.len; n++) {
        unsigned char *part = malloc(n ? n : 1);
        memcpy(part, sb.buf, n);
        assert_int_equal(npy_parse("bad.npy", part, n, &t), -1);
        free(part);
    }
    free(copy);
    sb_free(&sb);
}

#define SIXTY_FIVE_ONES "(" ONES16 ONES16 ONES16 ONES16 "1)"
#define ONES16 "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"
#define OK_DICT(shape) "{'descr': '<f4', 'fortran_order': False, 'shape': " shape ", }"

static const bad_case bad_cases[] = {
    { "empty file", 0, 0, NULL, "", 0, 0, "truncated" },
    { "short magic", 0, 0, NULL, "\x93NUM", 4, 0, "truncated" },
    { "bad magic", 0, 0, NULL, "\x93NUMPX\x01\x00\x10\x00{}                                 ", 40, 0, "bad magic" },
    { "version 4.0", 4, 0, OK_DICT("(1,)"), NULL, 0, 4, "version 4.0" },
    { "version 1.1", 1, 1, OK_DICT("(1,)"), NULL, 0, 4, "version 1.1" },
    { "version 2 short length", 0, 0, NULL, "\x93NUMPY\x02\x00\x10\x00", 10, 0, "truncated" },
    { "header longer than file", 0, 0, NULL, "\x93NUMPY\x01\x00\xff\x00{'descr'", 18, 0, "claims 255 bytes" },
    { "header length 4 GiB", 0, 0, NULL, "\x93NUMPY\x02\x00\xff\xff\xff\xff{}", 14, 0, "truncated" },
    { "empty header", 0, 0, NULL, "\x93NUMPY\x01\x00\x00\x00", 10, 0, "expected '{'" },
    { "not a dict", 1, 0, "['descr', '<f4']", NULL, 0, 0, "expected '{'" },
    { "missing shape", 1, 0, "{'descr': '<f4', 'fortran_order': False}", NULL, 0, 0, "missing key 'shape'" },
    { "missing descr", 1, 0, "{'fortran_order': False, 'shape': ()}", NULL, 0, 0, "missing key 'descr'" },
    { "extra key", 1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}", NULL, 0, 4,
      "unexpected key 'x'" },
    { "duplicate key", 1, 0, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': ()}", NULL, 0, 4,
      "appears twice" },
    { "unterminated string", 1, 0, "{'descr: '<f4'}", NULL, 0, 0, "expected ':'" },
    { "escape in string", 1, 0, "{'des\\cr': '<f4'}", NULL, 0, 0, "unexpected character" },
    { "text after dict", 1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': ()} x", NULL, 0, 4,
      "unexpected text after" },
    { "fortran_order not bool", 1, 0, "{'descr': '<f4', 'fortran_order': 0, 'shape': ()}", NULL, 0, 4,
      "True or False" },
    { "fortran_order Truey", 1, 0, "{'descr': '<f4', 'fortran_order': Truey, 'shape': ()}", NULL, 0, 4,
      "True or False" },
    { "shape not a tuple", 1, 0, OK_DICT("[2, 3]"), NULL, 0, 24, "expected '('" },
    { "shape (5) is an int", 1, 0, OK_DICT("(5)"), NULL, 0, 20, "must be a tuple" },
    { "shape with a float", 1, 0, OK_DICT("(2.5,)"), NULL, 0, 20, "expected ',' or ')'" },
    { "shape empty comma", 1, 0, OK_DICT("(,)"), NULL, 0, 20, "tuple of integers" },
    { "negative dimension", 1, 0, OK_DICT("(2, -3)"), NULL, 0, 20, "negative dimension" },
    { "dimension beyond int64", 1, 0, OK_DICT("(99999999999999999999,)"), NULL, 0, 0, "does not fit" },
    { "dims multiply past 2^63", 1, 0, OK_DICT("(4294967296, 4294967296)"), NULL, 0, 0, "more than 281474976710656 elements" },
    { "bytes overflow", 1, 0, OK_DICT("(4611686018427387904,)"), NULL, 0, 0, "more than 281474976710656 elements" },
    { "too many dims", 1, 0,
      OK_DICT(SIXTY_FIVE_ONES), NULL, 0, 4, "more than 64" },
    { "data shorter than shape", 1, 0, OK_DICT("(3, 5)"), NULL, 0, 59, "needs 60 bytes" },
    { "data missing", 1, 0, OK_DICT("(1,)"), NULL, 0, 0, "truncated .npy data" },
    { "object array", 1, 0, "{'descr': '|O', 'fortran_order': False, 'shape': (1,)}", NULL, 0, 8, "pickle" },
    { "void bfloat16", 1, 0, "{'descr': '<V2', 'fortran_order': False, 'shape': (1,)}", NULL, 0, 2, "raw void" },
    { "long double", 1, 0, "{'descr': '<f16', 'fortran_order': False, 'shape': (1,)}", NULL, 0, 16,
      "long double" },
    { "unicode dtype", 1, 0, "{'descr': '<U4', 'fortran_order': False, 'shape': (1,)}", NULL, 0, 16,
      "unsupported .npy dtype '<U4'" },
    { "odd float size", 1, 0, "{'descr': '<f3', 'fortran_order': False, 'shape': (1,)}", NULL, 0, 3,
      "unsupported .npy dtype" },
    { "structured dtype", 1, 0, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}", NULL, 0, 4,
      "structured" },
    { "empty descr", 1, 0, "{'descr': '', 'fortran_order': False, 'shape': (1,)}", NULL, 0, 4, "unsupported" },
    { "huge size digits", 1, 0, "{'descr': '<f99999999999', 'fortran_order': False, 'shape': (1,)}", NULL, 0, 4,
      "unsupported" },
};

int main(void)
{
    struct CMUnitTest tests[64] = {
        cmocka_unit_test(test_every_layout),
        cmocka_unit_test(test_header_spellings),
        cmocka_unit_test(test_header_matches_numpy),
        cmocka_unit_test(test_numpy_fixtures),
        cmocka_unit_test(test_save_round_trip),
    };
    size_t n = 5;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++)
        tests[n++] = (struct CMUnitTest){ bad_cases[i].name, run_bad, NULL, NULL, (void *)&bad_cases[i] };
    return _cmocka_run_group_tests("test_npy", tests, n, NULL, NULL);
}
