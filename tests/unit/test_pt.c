/* .pt reader: the torch-written fixtures of testdata/tensors, archives we
 * write ourselves (every dtype, views, deflate, ZIP64, big-endian, odd
 * folder names), malformed archives and pickles (one test each), a damage
 * sweep, and every tensor of the shared corpus against torch's digest. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/files.h"
#include "base/err.h"
#include "format/zip_write.h"
#include "pt_write.h"
#include "format/tensor_file.h"
#include "format/pt.h"
#include "format/zip.h"
#include "tensor_testutil.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


/* ---- fixtures written by torch 1.13 (tests/tools/make_tensor_fixtures.py) */

static void test_torch_fixtures(void **state)
{
    (void)state;
    FILE *m = fopen(TT_FIXTURES "manifest.txt", "r");
    assert_non_null(m);
    tt_fixture f;
    int seen = 0;
    while (tt_next_fixture(m, ".pt", &f)) {
        const char *name = f.name;
        tensor t;
        tt_load_fixture(&f, &t);
        /* stored tensors are read in place from the mapping */
        if (t.numel && !t.owned)
            assert_true(t.storage >= t.map.data && t.storage + t.storage_size <= t.map.data + t.map.size);
        if (!strncmp(name, "numpy_", 6) || !strcmp(name, "rezipped.pt"))
            assert_true(t.numel == 0 || t.owned != NULL);
        else
            assert_null(t.owned);
        tensor_free(&t);
        seen++;
    }
    fclose(m);
    assert_int_equal(seen, 26);
}

static void test_fixture_views(void **state)
{
    (void)state;
    tensor t;
    assert_int_equal(tensor_load(TT_FIXTURES "view.pt", &t), 0);
    assert_true(t.offset == 6 && t.stride[0] == 6 && t.stride[1] == 2 && !t.contiguous);
    tensor_free(&t);
    assert_int_equal(tensor_load(TT_FIXTURES "transposed.pt", &t), 0);
    assert_true(t.stride[0] == 1 && t.stride[1] == 6);
    tensor_free(&t);
    assert_int_equal(tensor_load(TT_FIXTURES "numpy_i64_fortran.pt", &t), 0);
    assert_true(t.stride[0] == 1 && t.stride[1] == 2);
    tensor_free(&t);
    assert_int_equal(tensor_load(TT_FIXTURES "f32.pt", &t), 0);
    assert_true(t.contiguous && tensor_contiguous_data(&t) != NULL);
    assert_int_equal(((uintptr_t)tensor_contiguous_data(&t) - (uintptr_t)t.map.data) % 64, 0);
    tensor_free(&t);
}

/* ---- archives we write ------------------------------------------------- */

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static unsigned char *exact_copy(const strbuf *sb)
{
    unsigned char *p = malloc(sb->len ? sb->len : 1);
    memcpy(p, sb->buf, sb->len);
    return p;
}

static void fill(dtype_id dt, size_t n, unsigned char *p, int big)
{
    size_t es = dtype_size(dt);
    for (size_t i = 0; i < n; i++) {
        double v = (double)i - 3;
        unsigned char *e = p + i * es;
        switch (dt) {
        case DT_BOOL: e[0] = i % 2; break;
        case DT_I8: case DT_U8: e[0] = (unsigned char)(i + 1); break;
        case DT_I16: case DT_U16: { uint16_t x = (uint16_t)(i * 3); memcpy(e, &x, 2); } break;
        case DT_I32: case DT_U32: { uint32_t x = (uint32_t)(i * 5); memcpy(e, &x, 4); } break;
        case DT_I64: case DT_U64: { uint64_t x = (uint64_t)i << 33; memcpy(e, &x, 8); } break;
        case DT_F16: { uint16_t x = f32_to_f16((float)v); memcpy(e, &x, 2); } break;
        case DT_BF16: { uint16_t x = f32_to_bf16((float)v); memcpy(e, &x, 2); } break;
        case DT_F32: { float x = (float)v; memcpy(e, &x, 4); } break;
        case DT_F64: memcpy(e, &v, 8); break;
        case DT_C64: { float x[2] = { (float)v, 1 }; memcpy(e, x, 8); } break;
        case DT_C128: { double x[2] = { v, -1 }; memcpy(e, x, 16); } break;
        default: break;
        }
        if (big) {
            size_t part = dtype_is_complex(dt) ? es / 2 : es;
            for (size_t k = 0; k < es; k += part)
                for (size_t b = 0; b < part / 2; b++) {
                    unsigned char c = e[k + b];
                    e[k + b] = e[k + part - 1 - b];
                    e[k + part - 1 - b] = c;
                }
        }
    }
}

/* Every dtype x {plain, deflated, zip64, big-endian}, as a strided view
 * with an offset; values must equal the native layout read directly. */
static void test_build_round_trips(void **state)
{
    (void)state;
    enum { SN = 40 };
    int64_t shape[] = { 3, 4 }, stride[] = { 1, 7 };
    for (int d = 0; d < DT_COUNT; d++) {
        dtype_id dt = (dtype_id)d;
        size_t es = dtype_size(dt);
        unsigned char native[SN * 16], stored[SN * 16];
        fill(dt, SN, native, 0);
        for (int variant = 0; variant < 4; variant++) {
            fill(dt, SN, stored, variant == 3);
            pt_layout l = { .dtype = dt, .ndim = 2, .shape = shape, .stride = stride, .offset = 5,
                            .storage = stored, .storage_numel = SN, .prefix = "odd.name-with space",
                            .deflate = variant == 1, .zip64 = variant == 2, .big_endian = variant == 3 };
            strbuf sb = STRBUF_INIT;
            assert_int_equal(pt_build(&sb, &l), 0);
            unsigned char *p = exact_copy(&sb);
            tensor t;
            if (pt_parse("b.pt", p, sb.len, &t) != 0)
                fail_msg("%s variant %d: %s", dtype_name(dt), variant, err_message());
            assert_int_equal(t.dtype, dt);
            assert_true(t.ndim == 2 && t.shape[0] == 3 && t.shape[1] == 4 && t.offset == 5);
            assert_true(t.stride[0] == 1 && t.stride[1] == 7);
            assert_int_equal(t.storage_size, SN * es);
            unsigned char raw[12 * 16];
            assert_int_equal(tensor_read_raw(&t, 0, 12, raw), 12);
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 4; j++)
                    assert_memory_equal(raw + (size_t)(i * 4 + j) * es, native + (size_t)(5 + i + 7 * j) * es, es);
            if (variant == 1)
                assert_non_null(t.owned); /* inflated */
            else
                assert_null(t.owned);     /* in place */
            tensor_free(&t);
            free(p);
            sb_free(&sb);
        }
    }
}

static void test_save_and_load(void **state)
{
    (void)state;
    char dir[] = "/tmp/msprobe_pt_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/Functional.linear.0.forward.input.0.pt", dir);
    uint16_t b[6];
    for (int i = 0; i < 6; i++)
        b[i] = f32_to_bf16((float)i / 8);
    int64_t shape[] = { 2, 3 };
    assert_int_equal(pt_save(path, DT_BF16, 2, shape, b), 0);
    tensor t;
    assert_int_equal(tensor_load(path, &t), 0);
    assert_int_equal(t.dtype, DT_BF16);
    assert_true(t.contiguous && t.owned == NULL);
    double v[6];
    assert_int_equal(tensor_read_f64(&t, 0, 6, v), 6);
    for (int i = 0; i < 6; i++)
        assert_true(v[i] == (double)i / 8);
    tensor_free(&t);
    /* the archive folder is the file stem, as torch.save names it */
    mapped_file f;
    assert_int_equal(file_map(path, 0, &f), 0);
    zip_archive z;
    assert_int_equal(zip_open(&z, path, f.data, f.size), 0);
    assert_non_null(zip_find(&z, "Functional.linear.0.forward.input.0/data.pkl", 44));
    zip_close(&z);
    file_unmap(&f);
    unlink(path);
    int64_t scalar_shape[1];
    double one = 1;
    assert_int_equal(pt_save(path, DT_F64, 0, scalar_shape, &one), 0);
    assert_int_equal(tensor_load(path, &t), 0);
    assert_true(t.ndim == 0 && t.numel == 1);
    tensor_free(&t);
    unlink(path);
    rmdir(dir);
}

/* ---- malformed archives and pickles ------------------------------------ */

static void op_global(strbuf *sb, const char *mod, const char *name) { sb_addf(sb, "c%s\n%s\n", mod, name); }

static void op_str(strbuf *sb, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    sb_addc(sb, 'X');
    sb_add(sb, &n, 4); /* host is little-endian in every supported build */
    sb_adds(sb, s);
}

static void op_int(strbuf *sb, int64_t v)
{
    sb_addc(sb, (char)0x8a);
    sb_addc(sb, 8);
    sb_add(sb, &v, 8);
}

static void op_ints(strbuf *sb, int n, const int64_t *v)
{
    sb_addc(sb, '(');
    for (int i = 0; i < n; i++)
        op_int(sb, v[i]);
    sb_addc(sb, 't');
}

typedef struct {
    const char *rebuild;       /* default _rebuild_tensor_v2 */
    const char *cls;           /* default FloatStorage */
    const char *key;           /* default "0" */
    int64_t numel;             /* default 6 */
    int64_t offset;
    int ndim, nstride;         /* default 2 / 2 */
    int64_t size[3], stride[3];/* default (2,3) / (3,1) */
    const char *v3_dtype;      /* dtype global for _rebuild_tensor_v3 */
    int wrap_param;            /* _rebuild_parameter around it, this many times */
} tensor_spec;

static void emit_tensor(strbuf *sb, const tensor_spec *s)
{
    for (int i = 0; i < s->wrap_param; i++)
        op_global(sb, "torch._utils", "_rebuild_parameter");
    op_global(sb, "torch._utils", s->rebuild ? s->rebuild : "_rebuild_tensor_v2");
    sb_adds(sb, "((");
    op_str(sb, "storage");
    op_global(sb, "torch", s->cls ? s->cls : "FloatStorage");
    op_str(sb, s->key ? s->key : "0");
    op_str(sb, "cpu");
    op_int(sb, s->numel ? s->numel : 6);
    sb_adds(sb, "tQ");
    op_int(sb, s->offset);
    static const int64_t dsize[] = { 2, 3 }, dstride[] = { 3, 1 };
    op_ints(sb, s->ndim ? s->ndim : 2, s->ndim ? s->size : dsize);
    op_ints(sb, s->nstride ? s->nstride : 2, s->nstride ? s->stride : dstride);
    sb_addc(sb, (char)0x89);
    op_global(sb, "collections", "OrderedDict");
    sb_adds(sb, ")R");
    if (s->v3_dtype)
        op_global(sb, "torch", s->v3_dtype);
    sb_adds(sb, "tR");
    for (int i = 0; i < s->wrap_param; i++)
        sb_adds(sb, "\x88)\x87R");
}

typedef struct {
    const char *name;
    const char *pickle;        /* raw pickle (without PROTO/STOP); NULL: tensor_spec */
    tensor_spec spec;
    const char *folder;        /* default "archive" */
    const char *extra_name;    /* one more entry, e.g. a second data.pkl */
    const char *extra_data;
    int no_pickle;
    const char *message;
} bad_case;

static void build_bad(strbuf *out, const bad_case *c)
{
    strbuf pkl = STRBUF_INIT, name = STRBUF_INIT;
    sb_add(&pkl, "\x80\x02", 2);
    if (c->pickle)
        sb_adds(&pkl, c->pickle);
    else
        emit_tensor(&pkl, &c->spec);
    sb_addc(&pkl, '.');
    float storage[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    const char *folder = c->folder ? c->folder : "archive";
    zip_writer w;
    zip_writer_init(&w, zip_sink_strbuf, out);
    w.align = 64;
    if (!c->no_pickle) {
        sb_addf(&name, "%s/data.pkl", folder);
        assert_int_equal(zip_writer_add(&w, name.buf, pkl.buf, pkl.len, 0), 0);
    }
    sb_reset(&name);
    sb_addf(&name, "%s/data/0", folder);
    assert_int_equal(zip_writer_add(&w, name.buf, storage, 6 * sizeof(float), 0), 0);
    if (c->extra_name)
        assert_int_equal(zip_writer_add(&w, c->extra_name, c->extra_data, strlen(c->extra_data), 0), 0);
    assert_int_equal(zip_writer_finish(&w), 0);
    sb_free(&pkl);
    sb_free(&name);
}

/* Raw pickles below avoid NUL bytes (text INT, SHORT_BINUNICODE) so they
 * can be plain C strings. */
#define STR(len, s) "\x8c" len s
#define STORAGE(cls, n) "(" STR("\7", "storage") "ctorch\n" cls "\n" STR("\1", "0") STR("\3", "cpu") "I" n "\ntQ"
#define ODICT "ccollections\nOrderedDict\n)R"
#define REBUILD_V2 "ctorch._utils\n_rebuild_tensor_v2\n"
#define NP_DTYPE(code, order) "cnumpy\ndtype\n(" STR("\2", code) "\x89\x88tR(I3\n" STR("\1", order) \
    "NNNI-1\nI-1\nI0\ntb"
#define NP_ARRAY(shape, dtype, data) "cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\nI0\n\x85" \
    "c_codecs\nencode\n(" STR("\1", "b") STR("\6", "latin1") "tR\x87R(I1\n" shape dtype "\x89" data "tb"

static const bad_case bad_cases[] = {
    { "forbidden global in data.pkl", "cos\nsystem\n(" STR("\2", "ls") "tR", { 0 }, 0, 0, 0, 0, "'os.system'" },
    { "forbidden global torch.load", "ctorch\nload\n", { 0 }, 0, 0, 0, 0, "'torch.load', which is not allowed" },
    { "a dict instead of a tensor", "}", { 0 }, 0, 0, 0, 0, "holds a dict, not a single tensor" },
    { "an OrderedDict instead of a tensor", ODICT, { 0 }, 0, 0, 0, 0, "holds a dict" },
    { "a bare storage class", "ctorch\nFloatStorage\n", { 0 }, 0, 0, 0, 0, "holds a class or function" },
    { "storage record missing", NULL, { .key = "7" }, 0, 0, 0, 0, "'archive/data/7' is missing" },
    { "storage shorter than declared", NULL, { .numel = 100 }, 0, 0, 0, 0, "400 bytes declared, 24 present" },
    { "view past the storage end", NULL, { .offset = 1 }, 0, 0, 0, 0, "data is too short" },
    { "stride past the storage end", NULL, { .ndim = 1, .size = { 3 }, .nstride = 1, .stride = { 3 } }, 0, 0, 0, 0,
      "data is too short" },
    { "size and stride lengths differ", NULL, { .ndim = 2, .size = { 2, 3 }, .nstride = 1, .stride = { 1 } }, 0, 0,
      0, 0, "2 dimensions but stride has 1" },
    { "negative stride", NULL, { .ndim = 1, .size = { 2 }, .nstride = 1, .stride = { -1 } }, 0, 0, 0, 0,
      "negative stride" },
    { "negative offset", NULL, { .offset = -2 }, 0, 0, 0, 0, "negative storage offset" },
    { "negative dimension", NULL, { .ndim = 1, .size = { -2 }, .nstride = 1, .stride = { 1 } }, 0, 0, 0, 0,
      "negative" },
    { "shape overflows 2^63", NULL, { .ndim = 2, .size = { (int64_t)1 << 40, (int64_t)1 << 40 }, .nstride = 2,
      .stride = { 1, 1 } }, 0, 0, 0, 0, "more than 281474976710656 elements" },
    { "stride overflows", NULL, { .ndim = 2, .size = { 2, 2 }, .nstride = 2, .stride = { INT64_MAX, 1 } }, 0, 0,
      0, 0, "strides reach beyond" },
    { "storage count absurd", NULL, { .numel = INT64_MAX }, 0, 0, 0, 0, "absurd" },
    { "negative storage count", NULL, { .numel = -5 }, 0, 0, 0, 0, "malformed element count" },
    { "storage key with a slash", NULL, { .key = "../x" }, 0, 0, 0, 0, "malformed storage key" },
    { "quantized storage", NULL, { .cls = "QInt8Storage" }, 0, 0, 0, 0, "quantized" },
    { "untyped storage without v3", NULL, { .cls = "UntypedStorage" }, 0, 0, 0, 0, "needs _rebuild_tensor_v3" },
    { "float8 via v3", NULL, { .rebuild = "_rebuild_tensor_v3", .cls = "UntypedStorage", .v3_dtype = "float8_e5m2" },
      0, 0, 0, 0, "torch.float8_e5m2 is not supported" },
    { "v3 dtype disagrees with storage", NULL, { .rebuild = "_rebuild_tensor_v3", .v3_dtype = "int32" }, 0, 0, 0, 0,
      "does not match" },
    { "v3 dtype not a dtype", NULL, { .rebuild = "_rebuild_tensor_v3", .v3_dtype = "FloatStorage" }, 0, 0, 0, 0,
      "not a torch dtype" },
    { "storage class not a storage", REBUILD_V2 "(" STORAGE("float32", "6") "I0\n(I6\nt(I1\nt\x89" ODICT "tR",
      { 0 }, 0, 0, 0, 0, "names no storage class" },
    { "persistent id not a storage", REBUILD_V2 "((" STR("\6", "module") "tQI0\n)))\x89" ODICT "tR", { 0 }, 0, 0,
      0, 0, "unsupported persistent id" },
    { "storage not a persistent id", REBUILD_V2 "(I1\nI0\n)))\x89" ODICT "tR", { 0 }, 0, 0, 0, 0,
      "not a persistent storage id" },
    { "too few rebuild arguments", REBUILD_V2 "(" STORAGE("FloatStorage", "6") "I0\ntR", { 0 }, 0, 0, 0, 0,
      "called with 2 arguments" },
    { "size not a tuple", REBUILD_V2 "(" STORAGE("FloatStorage", "6") "I0\nI6\n(I1\nt\x89" ODICT "tR", { 0 }, 0, 0,
      0, 0, "size is an int, not a tuple" },
    { "size holds a string", REBUILD_V2 "(" STORAGE("FloatStorage", "6") "I0\n(" STR("\1", "a") "t(I1\nt\x89" ODICT
      "tR", { 0 }, 0, 0, 0, 0, "holds a str, not an integer" },
    { "offset not an int", REBUILD_V2 "(" STORAGE("FloatStorage", "6") "N(I6\nt(I1\nt\x89" ODICT "tR", { 0 }, 0, 0,
      0, 0, "offset is not an integer" },
    { "parameters nested too deeply", NULL, { .wrap_param = 10 }, 0, 0, 0, 0, "nest too deeply" },
    { "tensor subclass", "ctorch._tensor\n_rebuild_from_type_v2\n(" REBUILD_V2 "ccollections\nOrderedDict\n)}tR",
      { 0 }, 0, 0, 0, 0, "subclasses are not supported" },
    { "TorchScript archive", NULL, { 0 }, 0, "archive/constants.pkl", "x", 0, "TorchScript" },
    { "no data.pkl", NULL, { 0 }, 0, 0, 0, 1, "no <folder>/data.pkl" },
    { "data.pkl only in a nested folder", NULL, { 0 }, "a/b", 0, 0, 0, "no <folder>/data.pkl" },
    { "two folders with data.pkl", NULL, { 0 }, 0, "other/data.pkl", "}.", 0, "several folders" },
    { "bogus byteorder", NULL, { 0 }, 0, "archive/byteorder", "middle", 0, "neither 'little' nor 'big'" },
    { "numpy object array", NP_ARRAY("(I1\nt", NP_DTYPE("O8", "|"), "]"), { 0 }, 0, 0, 0, 0, "object arrays" },
    { "numpy data length mismatch", NP_ARRAY("(I3\nt", NP_DTYPE("f4", "<"), "C\4abcd"), { 0 }, 0, 0, 0, 0,
      "has 4 bytes, its shape needs 12" },
    { "numpy data is a list", NP_ARRAY("(I1\nt", NP_DTYPE("f4", "<"), "]"), { 0 }, 0, 0, 0, 0, "not bytes" },
    { "numpy bad byte order", NP_ARRAY("(I1\nt", NP_DTYPE("f4", "?"), "C\4abcd"), { 0 }, 0, 0, 0, 0, "byte order" },
    { "numpy reconstruct of a non-ndarray", "cnumpy.core.multiarray\n_reconstruct\ncnumpy\ndtype\nI0\n\x85"
      "c__builtin__\nbytes\n)R\x87R", { 0 }, 0, 0, 0, 0, "not a plain ndarray" },
    { "numpy array without state", "cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\nI0\n\x85"
      "c__builtin__\nbytes\n)R\x87R", { 0 }, 0, 0, 0, 0, "without a valid state" },
    { "numpy shape overflow", NP_ARRAY("(I1073741824\nI1073741824\nI1073741824\nt", NP_DTYPE("f4", "<"), "C\4abcd"),
      { 0 }, 0, 0, 0, 0, "more than 281474976710656 elements" },
};

static void run_bad(void **state)
{
    const bad_case *c = *state;
    strbuf sb = STRBUF_INIT;
    build_bad(&sb, c);
    unsigned char *p = exact_copy(&sb);
    tensor t;
    err_clear();
    if (pt_parse("bad.pt", p, sb.len, &t) == 0)
        fail_msg("%s: accepted", c->name);
    if (!strstr(err_message(), c->message) || strncmp(err_message(), "bad.pt: ", 8) != 0)
        fail_msg("%s: message '%s' lacks '%s'", c->name, err_message(), c->message);
    assert_int_equal(err_kind(), EXIT_BADINPUT);
    assert_null(t.owned);
    assert_null(t.storage);
    free(p);
    sb_free(&sb);
}

/* The hand-built pickles above are sound apart from the one defect each
 * case names: the same builders make loadable files. */
static void test_builders_are_sound(void **state)
{
    (void)state;
    static const bad_case good[] = {
        { "plain", NULL, { 0 }, 0, 0, 0, 0, NULL },
        { "parameter", NULL, { .wrap_param = 2 }, 0, 0, 0, 0, NULL },
        { "numpy", NP_ARRAY("(I1\nt", NP_DTYPE("f4", ">"), "C\4\x3f\x80\x01\x02"), { 0 }, 0, 0, 0, 0, NULL },
        { "v3 untyped storage", NULL, { .rebuild = "_rebuild_tensor_v3", .cls = "UntypedStorage", .numel = 24,
          .v3_dtype = "float32" }, 0, 0, 0, 0, NULL },
        { "from_type", "ctorch._tensor\n_rebuild_from_type_v2\n(" REBUILD_V2 "ctorch\nTensor\n("
          STORAGE("FloatStorage", "6") "I0\n(I6\nt(I1\nt\x89" ODICT "t}tR", { 0 }, 0, 0, 0, 0, NULL },
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        strbuf sb = STRBUF_INIT;
        build_bad(&sb, &good[i]);
        tensor t;
        if (pt_parse("good.pt", (unsigned char *)sb.buf, sb.len, &t) != 0)
            fail_msg("%s: %s", good[i].name, err_message());
        double v[6];
        assert_true(tensor_read_f64(&t, 0, 6, v) >= 1);
        assert_true(v[0] == 1 || v[0] == (double)bits_float(0x3f800102u));
        tensor_free(&t);
        sb_free(&sb);
    }
}

/* Truncations and random damage of real files: accepted or refused, never
 * a crash, an out-of-bounds read or a leak. */
static void test_damage_sweep(void **state)
{
    (void)state;
    static const char *const files[] = { "f32.pt", "numpy_f32.pt", "rezipped.pt", "param.pt" };
    unsigned seed = 7;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[128];
        snprintf(path, sizeof path, TT_FIXTURES "%s", files[f]);
        mapped_file m;
        assert_int_equal(file_map(path, 0, &m), 0);
        for (size_t n = 0; n < m.size; n++) {
            unsigned char *p = malloc(n ? n : 1);
            memcpy(p, m.data, n);
            tensor t;
            assert_int_equal(pt_parse("cut.pt", p, n, &t), -1);
            free(p);
        }
        for (int round = 0; round < 2000; round++) {
            unsigned char *p = malloc(m.size);
            memcpy(p, m.data, m.size);
            for (int k = 0; k < 2; k++) {
                seed = seed * 1103515245u + 12345u;
                p[(seed >> 8) % m.size] = (unsigned char)(seed >> 20);
            }
            tensor t;
            if (pt_parse("hit.pt", p, m.size, &t) == 0) {
                double v[64];
                tensor_read_f64(&t, 0, 64, v);
                tensor_free(&t);
            }
            free(p);
        }
        file_unmap(&m);
    }
}

/* Loads from many threads at once: no shared state, errors stay per thread. */
static void *load_many(void *arg)
{
    long failures = 0;
    static const char *const files[] = { TT_FIXTURES "f32.pt", TT_FIXTURES "bf16.pt", TT_FIXTURES "rezipped.pt",
                                         TT_FIXTURES "numpy_f32.pt", TT_FIXTURES "view.pt" };
    for (int round = 0; round < 200; round++) {
        tensor t;
        const char *path = files[(round + (long)arg) % 5];
        if (tensor_load(path, &t) != 0) {
            failures++;
            continue;
        }
        double v[12];
        size_t n = tensor_read_f64(&t, 0, 12, v);
        if (n == 0 || (strstr(path, "f32.pt") && v[0] != -1 && v[0] != 0))
            failures++;
        tensor_free(&t);
        if (tensor_load(TT_FIXTURES "manifest.txt", &t) == 0 || !strstr(err_message(), "manifest.txt: "))
            failures++;
        err_clear();
    }
    return (void *)failures;
}

static void test_concurrent_loads(void **state)
{
    (void)state;
    pthread_t th[8];
    for (long i = 0; i < 8; i++)
        assert_int_equal(pthread_create(&th[i], NULL, load_many, (void *)i), 0);
    for (int i = 0; i < 8; i++) {
        void *failures;
        pthread_join(th[i], &failures);
        assert_int_equal((long)failures, 0);
    }
}

/* ---- the shared corpus: what torch reads, digested ---------------------- */

static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static void test_corpus(void **state)
{
    (void)state;
    const char *corpus = getenv("MSPROBE_CORPUS") ? getenv("MSPROBE_CORPUS") : "../shared/corpus";
    if (path_kind(corpus) != PATH_DIR) {
        print_message("corpus %s not found: skipped\n", corpus);
        skip();
    }
    FILE *m = fopen(TT_FIXTURES "corpus_digests.txt", "r");
    assert_non_null(m);
    char rel[512];
    long want_count;
    unsigned long long want;
    int dirs = 0;
    long files = 0;
    double *v = malloc(1 << 20);
    while (fscanf(m, "%511s %ld %llx", rel, &want_count, &want) == 3) {
        char *dir = path_join(corpus, rel);
        char **names;
        long n = dir_list(dir, &names);
        if (n < 0)
            fail_msg("%s", err_message());
        uint64_t h = 0xcbf29ce484222325ull;
        long count = 0;
        for (long i = 0; i < n; i++) {
            if (!path_has_suffix(names[i], ".pt"))
                continue;
            char *path = path_join(dir, names[i]);
            tensor t;
            if (tensor_load(path, &t) != 0)
                fail_msg("%s", err_message());
            h = fnv(h, names[i], strlen(names[i]) + 1);
            h = fnv(h, dtype_name(t.dtype), strlen(dtype_name(t.dtype)) + 1);
            int64_t nd = t.ndim;
            h = fnv(h, &nd, 8);
            h = fnv(h, t.shape, (size_t)t.ndim * 8);
            for (size_t start = 0; start < t.numel; start += 1 << 17) {
                size_t got = tensor_read_f64(&t, start, 1 << 17, v);
                for (size_t k = 0; k < got; k++) {
                    uint64_t bits;
                    memcpy(&bits, &v[k], 8);
                    if (isnan(v[k]))
                        bits = 0x7ff8000000000000ull;
                    h = fnv(h, &bits, 8);
                }
            }
            tensor_free(&t);
            free(path);
            count++;
        }
        names_free(names, n);
        if (count != want_count || h != want)
            fail_msg("%s: %ld files, digest %016llx; torch read %ld files, digest %016llx", rel, count,
                     (unsigned long long)h, want_count, want);
        free(dir);
        dirs++;
        files += count;
    }
    free(v);
    fclose(m);
    assert_true(dirs > 0);
    print_message("corpus: %ld tensors in %d directories match torch\n", files, dirs);
}

int main(void)
{
    struct CMUnitTest tests[96] = {
        cmocka_unit_test(test_torch_fixtures),
        cmocka_unit_test(test_fixture_views),
        cmocka_unit_test(test_build_round_trips),
        cmocka_unit_test(test_save_and_load),
        cmocka_unit_test(test_builders_are_sound),
        cmocka_unit_test(test_damage_sweep),
        cmocka_unit_test(test_concurrent_loads),
        cmocka_unit_test(test_corpus),
    };
    size_t n = 8;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++)
        tests[n++] = (struct CMUnitTest){ bad_cases[i].name, run_bad, NULL, NULL, (void *)&bad_cases[i] };
    return _cmocka_run_group_tests("test_pt", tests, n, NULL, NULL);
}
