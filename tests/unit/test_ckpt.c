/* Unit tests of the checkpoint compare (config_check/ckpt*.c): msprobe's
 * name mapping and layer / expert renumbering (spec/configcheck.md §B.5,
 * §B.7 goldens), Megatron rank files written here (TP shards placed side by
 * side along the right axis, replicated parameters, virtual pipeline
 * stages, a missing rank), torch_dist directories (chunks, and metadata
 * that does not tile its tensor), safetensors (and its malformed headers),
 * and the JSON of a compare: l2 and cos in float32, null cos for one zero
 * norm, numel and shape lists when shapes differ. */
#include "config_check/cc.h"
#include "config_check/ckpt.h"
#include "base/err.h"
#include "base/files.h"
#include "base/le.h"
#include "base/mem.h"
#include "ckpt_write.h"
#include "format/safetensors.h"
#include "model/table.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"

static char *dir;

static void names(void **state)
{
    (void)state;
    char *m;
    const char *legacy = "language_model.encoder.layers.3.self_attention.query_key_value.weight";
    ck_map_name(legacy, strlen(legacy), &m);
    assert_string_equal(m, "decoder.layers.3.self_attention.linear_qkv.weight");
    free(m);
    const char *te = "decoder.layers.0.self_attention.linear_qkv.layer_norm_weight";
    ck_map_name(te, strlen(te), &m);
    assert_string_equal(m, "decoder.layers.0.input_layernorm.weight");
    free(m);
    /* post_attention_layernorm is not in the table */
    const char *pal = "layers.1.post_attention_layernorm.weight";
    ck_map_name(pal, strlen(pal), &m);
    assert_string_equal(m, pal);
    free(m);
    char *r = ck_renumber("layers.2.attn/1", 2, 1, 4, 0, 1, 0);
    assert_string_equal(r, "layers.14.attn");
    free(r);
    r = ck_renumber("layers.0.experts.3.weight/0", 1, 0, 1, 8, 2, 2);
    assert_non_null(strstr(r, "experts.11"));
    free(r);
    r = ck_renumber("experts.0.mlp.dense_h_to_4h.weight/0", 1, 0, 1, 2, 1, 1);
    assert_string_equal(r, "experts.2.mlp.dense_h_to_4h.weight");
    free(r);
    r = ck_renumber("embedding.weight/0", 2, 1, 4, 0, 1, 0);
    assert_string_equal(r, "embedding.weight");
    free(r);
    /* the plain replace of msprobe also hits layers.1 inside layers.12 */
    r = ck_renumber("layers.1.x.layers.12.y/0", 1, 1, 10, 0, 1, 0);
    assert_string_equal(r, "layers.11.x.layers.112.y");
    free(r);
    assert_int_equal(ck_layer_index("a.layers.5.b", 12), 5);
    assert_int_equal(ck_layer_index("a.layers.5", 10), -1);
    assert_int_equal(ck_layer_index("layers.x.layers.7.z", 19), 7);
}

/* dir/name/iter_0000001/... with the tracker file. */
static char *ckpt_root(const char *name)
{
    char *root = tu_path(dir, name);
    char *iter = path_join(root, "iter_0000001");
    assert_int_equal(dir_create(iter), 0);
    char *tracker = path_join(root, "latest_checkpointed_iteration.txt");
    assert_int_equal(file_write_atomic(tracker, " 1\n", 3), 0);
    free(iter);
    free(tracker);
    return root;
}

static void rank(const char *root, const char *rank_dir, const ckw_args *a, const ckw_tensor *t, const int *stage,
                 size_t n)
{
    char *iter = path_join(root, "iter_0000001");
    char *rd = path_join(iter, rank_dir);
    assert_int_equal(dir_create(rd), 0);
    char *pt = path_join(rd, "model_optim_rng.pt");
    assert_int_equal(ckw_megatron_rank(pt, a, t, stage, n), 0);
    free(pt);
    free(rd);
    free(iter);
}

static const ck_param *param(const ck_side *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->params[i].name, name))
            return &s->params[i];
    fail_msg("no parameter %s", name);
    return NULL;
}

static void megatron_tp(void **state)
{
    (void)state;
    char *root = ckpt_root("tp");
    ckw_args a = {2, 1, 1, 0, 1, 0};
    float q0[] = {1, 2, 3, 4}, q1[] = {5, 6, 7, 8};
    uint16_t b0[4], b1[4];
    for (int i = 0; i < 4; i++) {
        b0[i] = f32_to_bf16(q0[i]);
        b1[i] = f32_to_bf16(q1[i]);
    }
    float n0[] = {1, 1}, n1[] = {1, 1.5};
    ckw_tensor r0[] = {
        {"decoder.layers.0.self_attention.linear_qkv.weight", DT_F32, 2, {2, 2}, q0},
        {"decoder.layers.0.self_attention.linear_proj.weight", DT_BF16, 2, {2, 2}, b0},
        {"decoder.layers.0.mlp.linear_fc2.bias", DT_F32, 1, {2}, n0},
    };
    ckw_tensor r1[] = {
        {"decoder.layers.0.self_attention.linear_qkv.weight", DT_F32, 2, {2, 2}, q1},
        {"decoder.layers.0.self_attention.linear_proj.weight", DT_BF16, 2, {2, 2}, b1},
        {"decoder.layers.0.mlp.linear_fc2.bias", DT_F32, 1, {2}, n1},
    };
    rank(root, "mp_rank_00", &a, r0, NULL, 3);
    rank(root, "mp_rank_01", &a, r1, NULL, 3);
    ck_side s;
    assert_int_equal(ck_load(root, 1, NULL, &s), 0);
    assert_string_equal(s.kind, "megatron");
    /* linear_qkv: rows 0-1 from rank 0, rows 2-3 from rank 1 */
    const ck_param *p = param(&s, "decoder.layers.0.self_attention.linear_qkv.weight");
    assert_int_equal(p->shape[0], 4);
    assert_int_equal(p->shape[1], 2);
    assert_int_equal(p->npieces, 2);
    assert_int_equal(CK_AT(&p->pieces[1], 0), 2);
    /* linear_proj: side by side along dimension 1 */
    p = param(&s, "decoder.layers.0.self_attention.linear_proj.weight");
    assert_int_equal(p->shape[0], 2);
    assert_int_equal(p->shape[1], 4);
    assert_int_equal(CK_AT(&p->pieces[1], 1), 2);
    /* a replicated parameter: rank 0's, rank 1's kept to check */
    p = param(&s, "decoder.layers.0.mlp.linear_fc2.bias");
    assert_int_equal(p->npieces, 1);
    assert_int_equal(p->nreplicas, 1);
    ck_free(&s);
    free(root);
}

static void megatron_vpp_and_errors(void **state)
{
    (void)state;
    char *root = ckpt_root("vpp");
    ckw_args a = {1, 2, 1, 0, 1, 2};
    float v[] = {1, 2};
    ckw_tensor t[] = {
        {"decoder.layers.0.x.weight", DT_F32, 1, {2}, v},
        {"decoder.layers.1.x.weight", DT_F32, 1, {2}, v},
        {"decoder.layers.0.x.weight", DT_F32, 1, {2}, v},
    };
    int stage[] = {0, 0, 1};
    rank(root, "mp_rank_00_000", &a, t, stage, 3);
    rank(root, "mp_rank_00_001", &a, t, stage, 3);
    ck_side s;
    assert_int_equal(ck_load(root, 2, NULL, &s), 0);
    /* 2 layers per stage (pp 0's keys): global = local + (PP * v + pp) * 2;
     * pp 1's second model chunk holds global layer 6 */
    assert_int_equal(s.n, 6);
    param(&s, "decoder.layers.0.x.weight");
    param(&s, "decoder.layers.1.x.weight");
    param(&s, "decoder.layers.2.x.weight");
    param(&s, "decoder.layers.3.x.weight");
    param(&s, "decoder.layers.4.x.weight");
    param(&s, "decoder.layers.6.x.weight");
    ck_free(&s);
    /* a rank directory missing: an error (msprobe merges the rest) */
    char *gone = tu_path(root, "iter_0000001/mp_rank_00_001/model_optim_rng.pt");
    assert_int_equal(unlink(gone), 0);
    assert_int_equal(ck_load(root, 1, NULL, &s), -1);
    assert_non_null(strstr(err_message(), "mp_rank_00_001"));
    err_clear();
    ck_free(&s);
    free(gone);
    free(root);
    /* no checkpoint at all */
    char *empty = tu_path(dir, "empty");
    assert_int_equal(dir_create(empty), 0);
    assert_int_equal(ck_load(empty, 1, NULL, &s), -1);
    assert_non_null(strstr(err_message(), "No checkpoint"));
    err_clear();
    ck_free(&s);
    char *tracker = tu_path(empty, "latest_checkpointed_iteration.txt");
    assert_int_equal(file_write_atomic(tracker, "soon", 4), 0);
    assert_int_equal(ck_load(empty, 1, NULL, &s), -1);
    assert_non_null(strstr(err_message(), "neither an iteration number nor 'release'"));
    err_clear();
    ck_free(&s);
    free(tracker);
    free(empty);
}

static void torch_dist(void **state)
{
    (void)state;
    char *root = tu_path(dir, "dist");
    float w[] = {1, 2, 3, 4, 5, 6};
    dcpw_tensor t = {"decoder.layers.0.mlp.linear_fc1.weight", DT_F32, 2, {2, 3}, 2, {{0, 0}, {0, 2}},
                     {{2, 2}, {2, 1}}, {w, w + 4}};
    assert_int_equal(dcpw_write(root, &t, 1), 0);
    ck_side s;
    assert_int_equal(ck_load(root, 1, NULL, &s), 0);
    assert_string_equal(s.kind, "torch_dist");
    const ck_param *p = param(&s, "decoder.layers.0.mlp.linear_fc1.weight");
    assert_int_equal(p->npieces, 2);
    assert_int_equal(CK_AT(&p->pieces[1], 1), 2);
    ck_free(&s);
    /* chunks that leave a hole, or overlap */
    t.sizes[1][1] = 0;
    assert_int_equal(dcpw_write(root, &t, 1), 0);
    assert_int_equal(ck_load(root, 1, NULL, &s), -1);
    assert_non_null(strstr(err_message(), "4 of its 6 elements"));
    err_clear();
    ck_free(&s);
    t.sizes[1][1] = 1;
    t.offsets[1][1] = 1;
    assert_int_equal(dcpw_write(root, &t, 1), 0);
    assert_int_equal(ck_load(root, 1, NULL, &s), -1);
    assert_non_null(strstr(err_message(), "overlap"));
    err_clear();
    ck_free(&s);
    free(root);
}

static int st_parse(const char *header, size_t data, st_file *f)
{
    static unsigned char buf[4096];
    size_t n = strlen(header);
    le_put64(buf, n);
    memcpy(buf + 8, header, n);
    memset(buf + 8 + n, 0, data);
    err_clear();
    return safetensors_parse("t.safetensors", buf, 8 + n + data, f);
}

static void safetensors_headers(void **state)
{
    (void)state;
    st_file f;
    assert_int_equal(st_parse("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},\"__metadata__\":{}}", 8, &f),
                     0);
    assert_int_equal(f.n, 1);
    assert_int_equal(f.v[0].numel, 2);
    safetensors_free(&f);
    static const struct {
        const char *header, *why;
    } bad[] = {
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,16]}}", "outside"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", "need"},
        {"{\"a\":{\"dtype\":\"F8_E4M3\",\"shape\":[8],\"data_offsets\":[0,8]}}", "not supported"},
        {"{\"a\":{\"dtype\":\"Q9\",\"shape\":[8],\"data_offsets\":[0,8]}}", "unknown dtype"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}}", "malformed shape"},
        {"{\"a\":{\"dtype\":\"F32\"}}", "lacks"},
        {"[1, 2]", "not a JSON object"},
        {"{\"a\":", "JSON"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(st_parse(bad[i].header, 8, &f), -1);
        if (!strstr(err_message(), bad[i].why))
            fail_msg("%s: %s", bad[i].header, err_message());
    }
    unsigned char tiny[12] = {0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0};
    assert_int_equal(safetensors_parse("t", tiny, sizeof tiny, &f), -1);
    err_clear();
}

/* The format's rules (its reference implementation): the tensors' data,
 * in order of offsets, contiguous from 0 to the end of the file; metadata
 * strings to strings; and a name given once. */
static void safetensors_rules(void **state)
{
    (void)state;
    st_file f;
    static const struct {
        const char *header;
        size_t data;
        const char *why;   /* NULL: accepted */
    } cases[] = {
        {"{\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 16, NULL},
        {"{\"z\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},\"__metadata__\":null}", 8, NULL},
        {"{}", 0, NULL},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]},"
         "\"b\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[8,24]}}", 24, "tensor 'b': data_offsets [8, 24] overlap those of 'a'"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", 12, "leave the data bytes 0..4 to no tensor"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
         "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}", 12, "tensor 'b': data_offsets [8, 12] leave the data bytes 4..8"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 8, "ends at byte 4 (tensor 'a'), the file holds 8"},
        {"{}", 4, "no tensor in the header, but 4 data bytes after it"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 8, "tensor 'a' is given twice"},
        {"{\"__metadata__\":{\"k\":1}}", 0, "__metadata__ 'k' is not a string"},
        {"{\"__metadata__\":[\"k\"]}", 0, "__metadata__ is not an object of strings"},
        {"{\"__metadata__\":{},\"__metadata__\":{}}", 0, "__metadata__ is given twice"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = st_parse(cases[i].header, cases[i].data, &f);
        if (!cases[i].why && rc != 0)
            fail_msg("%s: %s", cases[i].header, err_message());
        if (cases[i].why && (rc == 0 || !strstr(err_message(), cases[i].why)))
            fail_msg("%s: %s", cases[i].header, rc == 0 ? "accepted" : err_message());
        if (rc == 0)
            safetensors_free(&f);
        err_clear();
    }
}

/* More entries than SAFETENSORS_MAX_TENSORS: refused as a limit, the
 * header never held as a tree. */
static void safetensors_entry_limit(void **state)
{
    (void)state;
    strbuf h = STRBUF_INIT;
    sb_addc(&h, '{');
    for (size_t i = 0; i <= SAFETENSORS_MAX_TENSORS; i++)
        sb_addf(&h, "%s\"%zu\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]}", i ? "," : "", i);
    sb_addc(&h, '}');
    unsigned char *buf = malloc(8 + h.len);
    le_put64(buf, h.len);
    memcpy(buf + 8, h.buf, h.len);
    st_file f;
    assert_int_equal(safetensors_parse("big.safetensors", buf, 8 + h.len, &f), -1);
    assert_int_equal(err_cause(), ERR_LIMIT);
    assert_non_null(strstr(err_message(), "big.safetensors: safetensors header lists more than 1048576 tensors"));
    err_clear();
    free(buf);
    sb_free(&h);
}

/* A sharded checkpoint whose index names a tensor its shard lacks, or
 * puts a tensor in the wrong shard. */
static void safetensors_index_rules(void **state)
{
    (void)state;
    char *root = tu_path(dir, "shards");
    assert_int_equal(dir_create(root), 0);
    static const char header[] = "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
    static const char header2[] = "{\"c\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
    const char *hs[2] = {header, header2};
    for (int k = 0; k < 2; k++) {
        unsigned char buf[256];
        size_t n = strlen(hs[k]);
        le_put64(buf, n);
        memcpy(buf + 8, hs[k], n);
        memset(buf + 8 + n, 0, 4);
        char name[32];
        snprintf(name, sizeof name, "m%d.safetensors", k);
        free(tu_write(root, name, (const char *)buf, 12 + n));
    }
    static const struct {
        const char *index, *why;
    } cases[] = {
        {"{\"weight_map\":{\"a\":\"m0.safetensors\",\"c\":\"m1.safetensors\"}}", NULL},
        {"{\"weight_map\":{\"a\":\"m0.safetensors\",\"b\":\"m0.safetensors\",\"c\":\"m1.safetensors\"}}",
         "weight_map puts tensor 'b' in "},
        {"{\"weight_map\":{\"a\":\"m0.safetensors\",\"c\":\"m0.safetensors\",\"x\":\"m1.safetensors\"}}",
         "weight_map puts tensor 'c' in "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        free(tu_write(root, "model.safetensors.index.json", cases[i].index, (size_t)-1));
        ck_side s;
        int rc = ck_load(root, 1, NULL, &s);
        if (!cases[i].why && rc != 0)
            fail_msg("%s: %s", cases[i].index, err_message());
        if (cases[i].why && (rc == 0 || !strstr(err_message(), cases[i].why)
                             || !strstr(err_message(), "model.safetensors.index.json: ")))
            fail_msg("%s: %s", cases[i].index, rc == 0 ? "accepted" : err_message());
        err_clear();
        ck_free(&s);
    }
    free(root);
}

/* The whole compare: JSON as msprobe writes it. */
static char *compare(const char *a, const char *b, int fmt)
{
    char *out = tu_path(dir, fmt == CC_FMT_JSON ? "out.json" : "out.csv");
    unlink(out);
    cc_opts o = {out, fmt, 'p', 2, 0};
    if (cc_compare_ckpt(&o, a, b) != 0)
        fail_msg("compare: %s", err_message());
    mapped_file f;
    assert_int_equal(file_load(out, 0, &f), 0);
    char *text = xstrndup((const char *)f.data, f.size);
    file_unmap(&f);
    free(out);
    return text;
}

static void compare_json(void **state)
{
    (void)state;
    float x[] = {3, 4, 0}, y[] = {0, 4, 3}, z[] = {0, 0}, u[] = {1, 2}, k[] = {1, 2, 3, 4, 5, 6};
    ckw_tensor ta[] = {
        {"w", DT_F32, 1, {3}, x}, {"zero", DT_F32, 1, {2}, z}, {"one", DT_F32, 1, {2}, z},
        {"shape", DT_F32, 2, {2, 3}, k}, {"numel", DT_F32, 2, {2, 3}, k}, {"only_a", DT_F32, 1, {2}, u},
    };
    ckw_tensor tb[] = {
        {"w", DT_F32, 1, {3}, y}, {"zero", DT_F32, 1, {2}, z}, {"one", DT_F32, 1, {2}, u},
        {"shape", DT_F32, 2, {3, 2}, k}, {"numel", DT_F32, 2, {2, 2}, k},
    };
    char *pa = tu_path(dir, "a.safetensors"), *pb = tu_path(dir, "b.safetensors");
    assert_int_equal(stw_write(pa, ta, 6), 0);
    assert_int_equal(stw_write(pb, tb, 5), 0);
    char *j = compare(pa, pb, CC_FMT_JSON);
    /* l2 = |(3,0,-3)| = sqrt(18); cos = 16/25 */
    const char *want =
        "{\n    \"numel\": {\n        \"l2\": null,\n        \"cos\": null,\n        \"numel\": [\n            6,\n"
        "            4\n        ],\n        \"shape\": [\n            [\n                2,\n                3\n"
        "            ],\n            [\n                2,\n                2\n            ]\n        ]\n    },\n"
        "    \"one\": {\n        \"l2\": 2.2360680103302,\n        \"cos\": null,\n        \"numel\": 2,\n"
        "        \"shape\": [\n            2\n        ]\n    },\n    \"shape\": {\n        \"l2\": null,\n"
        "        \"cos\": null,\n        \"numel\": 6,\n        \"shape\": [\n            [\n                2,\n"
        "                3\n            ],\n            [\n                3,\n                2\n            ]\n"
        "        ]\n    },\n    \"w\": {\n        \"l2\": 4.242640495300293,\n        \"cos\": 0.6399999856948853,\n"
        "        \"numel\": 3,\n        \"shape\": [\n            3\n        ]\n    },\n    \"zero\": {\n"
        "        \"l2\": 0.0,\n        \"cos\": 1.0,\n        \"numel\": 2,\n        \"shape\": [\n            2\n"
        "        ]\n    }\n}";
    assert_string_equal(j, want);
    free(j);
    /* csv: the largest differences first */
    char *c = compare(pa, pb, TABLE_CSV);
    assert_string_equal(c, "name,l2,cos,numel,shape\nnumel,,,\"[6, 4]\",\"[[2, 3], [2, 2]]\"\n"
                           "shape,,,6,\"[[2, 3], [3, 2]]\"\nw,4.242640495300293,0.6399999856948853,3,[3]\n"
                           "one,2.2360680103302,,2,[2]\nzero,0,1,2,[2]\n");
    free(c);
    free(pa);
    free(pb);
}

static int setup(void **state)
{
    (void)state;
    dir = tu_mkdtemp();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_rmtree(dir);
    free(dir);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names),       cmocka_unit_test(megatron_tp),         cmocka_unit_test(megatron_vpp_and_errors),
        cmocka_unit_test(torch_dist),  cmocka_unit_test(safetensors_headers), cmocka_unit_test(safetensors_rules),
        cmocka_unit_test(safetensors_entry_limit), cmocka_unit_test(safetensors_index_rules), cmocka_unit_test(compare_json),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
