/* Loading a checkpoint for the compare (ckpt.h): which kind it is, and
 * Megatron-LM / MindSpeed checkpoints the way msprobe's megatron_loader
 * reads them (spec/configcheck.md §B.2-§B.7), as pieces instead of merged
 * copies. */
#include "config_check/ckpt.h"
#include "config_check/pack.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/pool.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "format/pickle.h"

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

void ck_param_free(ck_param *p)
{
    free(p->name);
    free(p->pieces);
    free(p->replicas);
    memset(p, 0, sizeof *p);
}

void ck_free(ck_side *s)
{
    for (size_t i = 0; i < s->n; i++)
        ck_param_free(&s->params[i]);
    free(s->params);
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

/* ---- what a path holds -------------------------------------------------------- */

/* parse_iteration: the directory latest_checkpointed_iteration.txt names
 * (iter_0000010), or `path` itself. malloc'ed, or NULL. */
static char *iteration_dir(const char *path)
{
    char *tracker = path_join(path, "latest_checkpointed_iteration.txt");
    char *dir = NULL;
    if (path_kind(tracker) == PATH_MISSING) {
        dir = xstrdup(path);
    } else {
        mapped_file f;
        if (file_load(tracker, (size_t)1 << 20, &f) == 0) {
            const char *s = (const char *)f.data;
            size_t n = f.size;
            long long it;
            while (n && (s[n - 1] == ' ' || s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == '\t'))
                n--;
            while (n && (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t'))
                s++, n--;
            if (n == 7 && !memcmp(s, "release", 7)) {
                /* Megatron keeps a release checkpoint in release/ (msprobe 8.1.0 crashes) */
                dir = path_join(path, "release");
            } else if (cc_int_of(s, n, "", &it) == 0) {
                char name[40];
                snprintf(name, sizeof name, "iter_%07lld", it);
                dir = path_join(path, name);
            } else {
                err_input(tracker, "says '%.*s', neither an iteration number nor 'release'", (int)(n < 80 ? n : 80),
                          s);
            }
            file_unmap(&f);
        }
    }
    free(tracker);
    if (dir && path_kind(dir) != PATH_DIR) {
        err_set(ERR_MISSING, dir, "Checkpoint directory not found");
        free(dir);
        dir = NULL;
    }
    return dir;
}

static int path_kind_in(const char *dir, const char *name)
{
    char *p = path_join(dir, name);
    int k = path_kind(p);
    free(p);
    return k;
}

static int has_suffix_file(const char *dir, const char *suffix)
{
    char **names;
    long n = dir_list(dir, &names);
    int found = 0;
    for (long i = 0; i < n && !found; i++)
        found = path_has_suffix(names[i], suffix);
    if (n >= 0)
        names_free(names, n);
    else
        err_clear();
    return found;
}

static int has_prefix_entry(const char *dir, const char *prefix)
{
    char **names;
    long n = dir_list(dir, &names);
    int found = 0;
    for (long i = 0; i < n && !found; i++)
        found = !strncmp(names[i], prefix, strlen(prefix));
    if (n >= 0)
        names_free(names, n);
    else
        err_clear();
    return found;
}

static int name_cmp(const void *x, const void *y)
{
    return strcmp(((const ck_param *)x)->name, ((const ck_param *)y)->name);
}

int ck_load(const char *path, int threads, progress_job *pj, ck_side *s)
{
    memset(s, 0, sizeof *s);
    s->path = path;
    s->threads = threads;
    s->pj = pj;
    int kind = path_kind(path);
    int rc;
    if (kind == PATH_FILE && path_has_suffix(path, ".safetensors")) {
        rc = ck_load_safetensors(path, 0, s);
    } else if (kind != PATH_DIR) {
        return kind == PATH_MISSING ? err_set(ERR_MISSING, path, "no such checkpoint")
                                    : err_set(ERR_UNREADABLE, path, "a checkpoint is a directory or a .safetensors "
                                                                    "file");
    } else {
        char *dir = iteration_dir(path);
        if (!dir)
            return -1;
        if (has_prefix_entry(dir, "mp_rank_"))
            rc = ck_load_megatron(dir, s);
        else if (path_kind_in(dir, ".metadata") == PATH_FILE)
            rc = ck_load_torch_dist(dir, s);
        else if (has_suffix_file(dir, ".safetensors") || path_kind_in(dir, "model.safetensors.index.json") == PATH_FILE)
            rc = ck_load_safetensors(dir, 1, s);
        else
            rc = err_input(dir, "No checkpoint rank directories found (no mp_rank_* directory, no torch_dist "
                                ".metadata, no .safetensors file)");
        free(dir);
    }
    if (rc == 0) {
        qsort(s->params, s->n, sizeof *s->params, name_cmp);
        for (size_t i = 1; i < s->n && rc == 0; i++)
            if (!strcmp(s->params[i - 1].name, s->params[i].name))
                rc = err_input(path, "two tensors are named '%s' (after msprobe's name mapping)", s->params[i].name);
        for (size_t i = 0; i < s->n; i++)
            for (size_t k = 0; k < s->params[i].npieces; k++)
                s->bytes += s->params[i].pieces[k].t.numel * dtype_size(s->params[i].pieces[k].t.dtype);
    }
    return rc;
}
