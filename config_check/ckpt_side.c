/* One side of a checkpoint compare (ckpt.h): its files and parameter
 * pieces, and the naming rules every loader applies to them (msprobe's
 * megatron_loader: spec/configcheck.md §B.2-§B.7). */
#include "config_check/ckpt.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "base/strmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the side ------------------------------------------------------------- */

long ck_add_file(ck_side *s, const char *path)
{
    GROW(s->files, s->fcap, s->nfiles + 1);
    if (file_map(path, 0, &s->files[s->nfiles]) != 0)
        return -1;
    return (long)s->nfiles++;
}

ck_param *ck_add_param(ck_side *s)
{
    GROW(s->params, s->cap, s->n + 1);
    ck_param *p = &s->params[s->n++];
    memset(p, 0, sizeof *p);
    return p;
}

void ck_reserve(ck_side *s, size_t more)
{
    if (s->cap - s->n < more) {
        s->cap = s->n + more;
        s->params = xrealloc(s->params, s->cap * sizeof *s->params);
    }
}

ck_piece *ck_pieces(ck_side *s, size_t n) { return arena_calloc(&s->a, (n ? n : 1) * sizeof(ck_piece)); }

void ck_param_set(ck_side *s, ck_param *p, const char *name, size_t len, int ndim, const int64_t *shape)
{
    p->name = arena_strndup(&s->a, name, len);
    int64_t *sh = arena_alloc(&s->a, (ndim ? (size_t)ndim : 1) * sizeof *sh);
    memcpy(sh, shape, (size_t)ndim * sizeof *sh);
    p->shape = sh;
    p->ndim = ndim;
}

void ck_piece_set(ck_side *s, ck_piece *x, const tensor *t, const int64_t *at, size_t src)
{
    int64_t *dims = arena_alloc(&s->a, (t->ndim ? 3 * (size_t)t->ndim : 1) * sizeof *dims);
    for (int d = 0; d < t->ndim; d++) {
        dims[d] = t->shape[d];
        dims[t->ndim + d] = t->stride[d];
        dims[2 * t->ndim + d] = at ? at[d] : 0;
    }
    *x = (ck_piece){.storage = t->storage, .storage_size = t->storage_size, .offset = t->offset, .dims = dims,
                    .numel = t->numel, .src = (uint32_t)src, .dtype = (uint8_t)t->dtype, .ndim = (uint8_t)t->ndim,
                    .byteswap = (uint8_t)(t->byteswap != 0)};
}

void ck_piece_view(const ck_piece *x, tensor *out)
{
    memset(out, 0, sizeof *out);
    out->dtype = (dtype_id)x->dtype;
    out->ndim = x->ndim;
    for (int d = 0; d < x->ndim; d++) {
        out->shape[d] = CK_SIZE(x, d);
        out->stride[d] = CK_STRIDE(x, d);
    }
    out->offset = x->offset;
    out->numel = x->numel;
    out->byteswap = x->byteswap;
    out->storage = x->storage;
    out->storage_size = x->storage_size;
    tensor_check_view(out, NULL); /* checked when the piece was made: sets `contiguous` */
}

void ck_free(ck_side *s)
{
    free(s->params);
    arena_free(&s->a);
    for (size_t i = 0; i < s->narchives; i++)
        pt_close(s->archives[i]);
    free(s->archives);
    for (size_t i = 0; i < s->nfiles; i++)
        file_unmap(&s->files[i]);
    free(s->files);
    memset(s, 0, sizeof *s);
}

/* ---- names ------------------------------------------------------------------- */

/* msprobe's name_mapping.yaml, applied in order, each to every occurrence. */
static const char *const name_map[][2] = {
    {"self_attention.linear_qkv.layer_norm_", "input_layernorm."},
    {"language_model.", ""},
    {"encoder", "decoder"},
    {".input_norm.", ".input_layernorm."},
    {"query_key_value", "linear_qkv"},
    {".dense.", ".linear_proj."},
    {"post_attention_norm", "pre_mlp_layernorm"},
    {"dense_h_to_4h", "linear_fc1"},
    {"dense_4h_to_h", "linear_fc2"},
    {"mlp.local_experts", "mlp.experts.local_experts"},
    {"final_norm", "final_layernorm"},
    {"word_embeddings_for_head", "output_layer"},
};

static void replace_all(strbuf *sb, const char *from, const char *to)
{
    size_t fl = strlen(from), tl = strlen(to);
    strbuf r = STRBUF_INIT;
    for (size_t i = 0; i < sb->len;) {
        if (i + fl <= sb->len && !memcmp(sb->buf + i, from, fl)) {
            sb_add(&r, to, tl);
            i += fl;
        } else {
            sb_addc(&r, sb->buf[i++]);
        }
    }
    sb_free(sb);
    *sb = r;
}

void ck_map_name(const char *name, size_t len, char **out)
{
    strbuf sb = STRBUF_INIT;
    sb_add(&sb, name, len);
    for (size_t i = 0; i < sizeof name_map / sizeof name_map[0]; i++)
        replace_all(&sb, name_map[i][0], name_map[i][1]);
    *out = sb_detach(&sb);
}

/* The first match of `<word>\.(\d+)\.`: the number, its place. */
static long first_index(const char *s, size_t n, const char *word, size_t *at)
{
    size_t wl = strlen(word);
    for (size_t i = 0; i + wl < n; i++) {
        if (memcmp(s + i, word, wl))
            continue;
        size_t k = i + wl;
        long v = 0;
        while (k < n && s[k] >= '0' && s[k] <= '9' && v < 100000000)
            v = v * 10 + (s[k++] - '0');
        if (k > i + wl && k < n && s[k] == '.') {
            if (at)
                *at = i;
            return v;
        }
    }
    return -1;
}

long ck_layer_index(const char *name, size_t len) { return first_index(name, len, "layers.", NULL); }

char *ck_renumber(const char *key, int pp_size, int pp_rank, long layers_per_stage, long num_experts, int ep_size,
                  int ep_rank)
{
    const char *slash = strrchr(key, '/');
    size_t nl = slash ? (size_t)(slash - key) : strlen(key);
    long vpp = slash ? strtol(slash + 1, NULL, 10) : 0;
    strbuf sb = STRBUF_INIT;
    sb_add(&sb, key, nl);
    char from[48], to[48];
    long local = first_index(sb.buf, sb.len, "layers.", NULL);
    if (local >= 0) {
        long global = local + ((long)pp_size * vpp + pp_rank) * layers_per_stage;
        snprintf(from, sizeof from, "layers.%ld", local);
        snprintf(to, sizeof to, "layers.%ld", global);
        replace_all(&sb, from, to);
    }
    if (num_experts) {
        long e = first_index(sb.buf ? sb.buf : "", sb.len, "experts.", NULL);
        if (e >= 0) {
            snprintf(from, sizeof from, "experts.%ld", e);
            snprintf(to, sizeof to, "experts.%ld", e + ep_rank * (num_experts / ep_size));
            replace_all(&sb, from, to);
        }
    }
    if (!sb.buf)
        sb_adds(&sb, "");
    return sb_detach(&sb);
}

