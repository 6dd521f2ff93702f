/* gen_ckpt: write a GPT-like checkpoint for the tests and `make bench`.
 *
 *   gen_ckpt DIR [--format megatron|torch_dist|safetensors] [--tp N] [--pp N]
 *                [--vpp N] [--layers L] [--hidden H] [--vocab V]
 *                [--dtype bf16|fp32|fp16] [--seed S] [--change]
 *
 * The model has mcore names (embedding.word_embeddings.weight,
 * decoder.layers.N.self_attention.linear_qkv.{weight,bias,layer_norm_weight,
 * layer_norm_bias}, ...linear_proj, mlp.linear_fc1 (+ layer norm),
 * mlp.linear_fc2, decoder.final_layernorm, output_layer.weight). Every
 * element is a function of the seed, the parameter's full name and its
 * place in the full tensor, so the same model written with other parallel
 * sizes or in another format holds the same values: a TP=2 x PP=2 Megatron
 * checkpoint compares with a torch_dist or safetensors one as equal.
 * --change alters four parameters the way the corpus' ckpt_b does: rows of
 * layer 1's linear_fc1.weight scaled by 1.05, noise on the final layernorm,
 * one embedding element + 0.5, layer 0's linear_proj.bias (zero otherwise)
 * filled.
 *
 * Megatron: DIR/latest_checkpointed_iteration.txt ("10") and
 * DIR/iter_0000010/mp_rank_TT[_PPP]/model_optim_rng.pt; torch_dist:
 * DIR/iter_0000010/{.metadata,__0_0.distcp}; safetensors:
 * DIR/model.safetensors. */
#include "ckpt_write.h"
#include "base/err.h"
#include "base/files.h"
#include "base/mem.h"
#include "base/strbuf.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *dir, *format;
    int tp, pp, vpp, layers, hidden, vocab, change;
    dtype_id dtype;
    uint64_t seed;
} opts;

/* One parameter of the full model. */
typedef struct {
    char name[160];
    int ndim;
    int64_t shape[2];
    int axis;          /* TP split: 0, 1, or -1 replicated */
    int kind;          /* 0 weight, 1 bias (zero), 2 norm weight (one), 3 norm bias (zero) */
    int stage;         /* pipeline stage (and vpp chunk) owning it */
    int local_layer;   /* layer index within its stage chunk, -1 none */
    int global_layer;
} param;

typedef struct {
    param *v;
    size_t n, cap;
} model;

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* The value of element g of a parameter. */
static float value(const opts *o, const param *p, uint64_t h, int64_t row, int64_t col, int64_t g)
{
    float v;
    if (p->kind == 1 || p->kind == 3)
        v = 0;
    else if (p->kind == 2)
        v = 1;
    else
        v = (float)((double)(mix(h ^ (uint64_t)g) >> 11) * 0x1p-53 * 0.04 - 0.02);
    if (o->change) {
        if (strstr(p->name, "layers.1.mlp.linear_fc1.weight") && row < p->shape[0] / 4)
            v *= 1.05f;
        else if (!strcmp(p->name, "decoder.final_layernorm.weight"))
            v += (float)((double)(mix(h ^ (uint64_t)g ^ 77) >> 11) * 0x1p-53 * 0.002 - 0.001);
        else if (!strcmp(p->name, "embedding.word_embeddings.weight") && row == 3 && col == 5)
            v += 0.5f;
        else if (!strcmp(p->name, "decoder.layers.0.self_attention.linear_proj.bias"))
            v = (float)((double)(mix(h ^ (uint64_t)g) >> 11) * 0x1p-53 * 0.02 - 0.01);
    }
    return v;
}

static void add(model *m, const opts *o, const char *name, int ndim, int64_t r, int64_t c, int axis, int kind,
                int stage, int local, int global)
{
    GROW(m->v, m->cap, m->n + 1);
    param *p = &m->v[m->n++];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->ndim = ndim;
    p->shape[0] = r;
    p->shape[1] = c;
    p->axis = axis;
    p->kind = kind;
    p->stage = stage;
    p->local_layer = local;
    p->global_layer = global;
    (void)o;
}

/* The model, its layers split over pp stages (and vpp chunks). */
static void build(model *m, const opts *o)
{
    int64_t H = o->hidden, V = o->vocab;
    int chunks = o->pp * (o->vpp ? o->vpp : 1);
    int per_chunk = o->layers / chunks;
    add(m, o, "embedding.word_embeddings.weight", 2, V, H, 0, 0, 0, -1, -1);
    for (int l = 0; l < o->layers; l++) {
        int chunk = l / per_chunk, local = l % per_chunk;
        /* chunk c of a vpp model lives on stage c % pp, as its (c / pp)-th model */
        char n[160];
        static const struct {
            const char *suffix;
            int ndim, rows, cols, axis, kind; /* rows/cols in units of H (x1, x3, x4), cols 0: 1-d */
        } parts[] = {
            {"self_attention.linear_qkv.weight", 2, 3, 1, 0, 0},
            {"self_attention.linear_qkv.bias", 1, 3, 0, 0, 1},
            {"self_attention.linear_qkv.layer_norm_weight", 1, 1, 0, -1, 2},
            {"self_attention.linear_qkv.layer_norm_bias", 1, 1, 0, -1, 3},
            {"self_attention.linear_proj.weight", 2, 1, 1, 1, 0},
            {"self_attention.linear_proj.bias", 1, 1, 0, -1, 1},
            {"mlp.linear_fc1.weight", 2, 4, 1, 0, 0},
            {"mlp.linear_fc1.bias", 1, 4, 0, 0, 1},
            {"mlp.linear_fc2.weight", 2, 1, 4, 1, 0},
            {"mlp.linear_fc2.bias", 1, 1, 0, -1, 1},
        };
        for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
            snprintf(n, sizeof n, "decoder.layers.%d.%s", l, parts[k].suffix);
            add(m, o, n, parts[k].ndim, parts[k].rows * H, parts[k].cols * H, parts[k].axis, parts[k].kind, chunk,
                local, l);
        }
    }
    add(m, o, "decoder.final_layernorm.weight", 1, H, 0, -1, 2, chunks - 1, -1, -1);
    add(m, o, "decoder.final_layernorm.bias", 1, H, 0, -1, 3, chunks - 1, -1, -1);
    add(m, o, "output_layer.weight", 2, V, H, 0, 0, chunks - 1, -1, -1);
}

/* The shard of p that TP rank t holds: its row/column range. */
static void shard(const opts *o, const param *p, int t, int64_t *r0, int64_t *rows, int64_t *c0, int64_t *cols)
{
    *r0 = 0;
    *c0 = 0;
    *rows = p->shape[0];
    *cols = p->ndim == 2 ? p->shape[1] : 1;
    if (p->axis == 0) {
        *rows /= o->tp;
        *r0 = *rows * t;
    } else if (p->axis == 1) {
        *cols /= o->tp;
        *c0 = *cols * t;
    }
}

static void fill_range(const opts *o, const param *p, int64_t r0, int64_t rows, int64_t c0, int64_t cols, void *buf)
{
    uint64_t h = name_hash(p->name) ^ mix(o->seed);
    int64_t full_cols = p->ndim == 2 ? p->shape[1] : 1;
    size_t k = 0;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++, k++) {
            int64_t g = (r0 + r) * full_cols + c0 + c;
            float v = value(o, p, h, r0 + r, c0 + c, g);
            if (o->dtype == DT_F32)
                ((float *)buf)[k] = v;
            else if (o->dtype == DT_BF16)
                ((uint16_t *)buf)[k] = f32_to_bf16(v);
            else
                ((uint16_t *)buf)[k] = f32_to_f16(v);
        }
}

typedef struct {
    const opts *o;
    const param **p;   /* the rank's parameters */
    int t;
} rank_ctx;

static void fill_shard(void *ctx, size_t i, void *buf)
{
    rank_ctx *c = ctx;
    int64_t r0, rows, c0, cols;
    shard(c->o, c->p[i], c->t, &r0, &rows, &c0, &cols);
    fill_range(c->o, c->p[i], r0, rows, c0, cols, buf);
}

/* The stored name of p on its stage: local layer index, legacy names
 * for a few (the loader maps them back), as Megatron checkpoints have. */
static void stored_name(const param *p, char *out, size_t cap)
{
    if (p->local_layer < 0) {
        snprintf(out, cap, "%s", p->name);
        return;
    }
    const char *rest = strchr(p->name + strlen("decoder.layers."), '.');
    snprintf(out, cap, "decoder.layers.%d%s", p->local_layer, rest);
}

static int write_megatron(const opts *o, const model *m, const char *iter)
{
    ckw_args a = {o->tp, o->pp, 1, 0, 10, o->vpp};
    int rc = 0;
    for (int pp = 0; pp < o->pp && rc == 0; pp++)
        for (int t = 0; t < o->tp && rc == 0; t++) {
            ckw_tensor *ts = xcalloc(m->n, sizeof *ts);
            const param **ps = xcalloc(m->n, sizeof *ps);
            int *stage = xcalloc(m->n, sizeof *stage);
            char (*names)[160] = xcalloc(m->n, sizeof *names);
            size_t n = 0;
            for (size_t i = 0; i < m->n; i++) {
                const param *p = &m->v[i];
                if (p->stage % o->pp != pp)
                    continue;
                int64_t r0, rows, c0, cols;
                shard(o, p, t, &r0, &rows, &c0, &cols);
                stored_name(p, names[n], sizeof names[n]);
                ts[n] = (ckw_tensor){names[n], o->dtype, p->ndim, {rows, p->ndim == 2 ? cols : 0}, NULL};
                stage[n] = p->stage / o->pp;
                ps[n++] = p;
            }
            strbuf rank = STRBUF_INIT, path = STRBUF_INIT;
            if (o->pp > 1)
                sb_addf(&rank, "%s/mp_rank_%02d_%03d", iter, t, pp);
            else
                sb_addf(&rank, "%s/mp_rank_%02d", iter, t);
            rc = dir_create(sb_str(&rank));
            sb_addf(&path, "%s/model_optim_rng.pt", sb_str(&rank));
            sb_free(&rank);
            rank_ctx ctx = {o, ps, t};
            if (rc == 0)
                rc = ckw_megatron_rank_fill(sb_str(&path), &a, ts, stage, n, fill_shard, &ctx);
            sb_free(&path);
            free(ts);
            free(ps);
            free(stage);
            free(names);
        }
    return rc;
}

static int write_torch_dist(const opts *o, const model *m, const char *iter)
{
    dcpw_tensor *t = xcalloc(m->n, sizeof *t);
    int rc = 0;
    for (size_t i = 0; i < m->n; i++) {
        const param *p = &m->v[i];
        t[i] = (dcpw_tensor){p->name, o->dtype, p->ndim, {p->shape[0], p->shape[1]}, 0, {{0}}, {{0}}, {0}};
        int parts = p->axis >= 0 ? o->tp : 1;
        for (int k = 0; k < parts; k++) {
            int64_t r0, rows, c0, cols;
            shard(o, p, p->axis >= 0 ? k : 0, &r0, &rows, &c0, &cols);
            t[i].offsets[k][0] = r0;
            t[i].sizes[k][0] = rows;
            if (p->ndim == 2) {
                t[i].offsets[k][1] = c0;
                t[i].sizes[k][1] = cols;
            }
            void *buf = xmalloc((size_t)(rows * cols) * dtype_size(o->dtype));
            fill_range(o, p, r0, rows, c0, cols, buf);
            t[i].data[k] = buf;
            t[i].nchunks++;
        }
    }
    rc = dcpw_write(iter, t, m->n);
    for (size_t i = 0; i < m->n; i++)
        for (int k = 0; k < t[i].nchunks; k++)
            free((void *)t[i].data[k]);
    free(t);
    return rc;
}

static int write_safetensors(const opts *o, const model *m)
{
    ckw_tensor *ts = xcalloc(m->n, sizeof *ts);
    for (size_t i = 0; i < m->n; i++) {
        const param *p = &m->v[i];
        int64_t cols = p->ndim == 2 ? p->shape[1] : 1;
        void *buf = xmalloc((size_t)(p->shape[0] * cols) * dtype_size(o->dtype));
        fill_range(o, p, 0, p->shape[0], 0, cols, buf);
        ts[i] = (ckw_tensor){p->name, o->dtype, p->ndim, {p->shape[0], p->ndim == 2 ? cols : 0}, buf};
    }
    char *path = path_join(o->dir, "model.safetensors");
    int rc = dir_create(o->dir) == 0 ? stw_write(path, ts, m->n) : -1;
    free(path);
    for (size_t i = 0; i < m->n; i++)
        free((void *)ts[i].data);
    free(ts);
    return rc;
}

static int usage(void)
{
    fprintf(stderr, "usage: gen_ckpt DIR [--format megatron|torch_dist|safetensors] [--tp N] [--pp N] [--vpp N] "
                    "[--layers L] [--hidden H] [--vocab V] [--dtype bf16|fp32|fp16] [--seed S] [--change]\n");
    return 2;
}

int main(int argc, char **argv)
{
    opts o = {NULL, "megatron", 2, 1, 0, 2, 32, 128, 0, DT_BF16, 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--change"))
            o.change = 1;
        else if (a[0] != '-')
            o.dir = a;
        else if (!v)
            return usage();
        else if (!strcmp(a, "--format"))
            o.format = argv[++i];
        else if (!strcmp(a, "--tp"))
            o.tp = atoi(argv[++i]);
        else if (!strcmp(a, "--pp"))
            o.pp = atoi(argv[++i]);
        else if (!strcmp(a, "--vpp"))
            o.vpp = atoi(argv[++i]);
        else if (!strcmp(a, "--layers"))
            o.layers = atoi(argv[++i]);
        else if (!strcmp(a, "--hidden"))
            o.hidden = atoi(argv[++i]);
        else if (!strcmp(a, "--vocab"))
            o.vocab = atoi(argv[++i]);
        else if (!strcmp(a, "--seed"))
            o.seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--dtype")) {
            v = argv[++i];
            o.dtype = !strcmp(v, "fp32") ? DT_F32 : !strcmp(v, "fp16") ? DT_F16 : DT_BF16;
        } else
            return usage();
    }
    int chunks = o.pp * (o.vpp ? o.vpp : 1);
    if (!o.dir || o.tp < 1 || o.pp < 1 || o.layers < chunks || o.layers % chunks || o.hidden % o.tp
        || o.vocab % o.tp)
        return usage();
    model m = {NULL, 0, 0};
    build(&m, &o);
    int rc;
    if (!strcmp(o.format, "safetensors")) {
        rc = write_safetensors(&o, &m);
    } else {
        char *iter = path_join(o.dir, "iter_0000010");
        char *tracker = path_join(o.dir, "latest_checkpointed_iteration.txt");
        rc = dir_create(iter);
        if (rc == 0)
            rc = file_write_atomic(tracker, "10", 2);
        if (rc == 0)
            rc = !strcmp(o.format, "torch_dist") ? write_torch_dist(&o, &m, iter) : write_megatron(&o, &m, iter);
        free(iter);
        free(tracker);
    }
    free(m.v);
    if (rc != 0) {
        fprintf(stderr, "gen_ckpt: %s\n", err_message());
        return 1;
    }
    return 0;
}
