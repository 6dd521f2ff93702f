/* Megatron-LM / MindSpeed checkpoints (legacy format): iter_N/mp_rank_XX
 * [_PPP][_EEE]/model_optim_rng.pt, read as msprobe's megatron_loader does
 * (spec/configcheck.md §B.3-§B.7) without ever executing the pickles:
 * args from the first rank directory, the model of every rank flattened,
 * renamed, its tensor-parallel shards placed side by side (not copied),
 * layers and experts renumbered to their global indexes. */
#include "config_check/ckpt.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/pool.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "format/pickle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Nested state dicts deeper than this are not a model's. */
#define MAX_NESTING 64

typedef struct {
    char *key;          /* mapped name + "/" + virtual pipeline stage */
    tensor t;
} named;

typedef struct {
    char *path;
    size_t file;
    pt_archive *ar;     /* kept when its tensors need it */
    named *v;
    size_t n, cap;
} rank_file;

/* getattr(args, name): argparse.Namespace keeps its attributes as its state. */
static const pk_value *arg(const pk_value *args, const char *name)
{
    if (args && args->kind == PK_CALL)
        return pk_dict_get(args->u.call.state, name);
    return pk_dict_get(args, name);
}

/* _get_parameter: depth first through nested dicts; tensors kept as
 * "parent.key" stripped of dots at both ends. *budget counts the entries
 * still allowed: a pickle can make one dict the value of many keys (or of
 * itself) through its memo, and walking every path of such a graph takes
 * exponential time (msprobe's walk recurses until Python's limit). A tree
 * has fewer entries than its pickle has bytes; more visits mean a dict met
 * twice. */
static int flatten(rank_file *rf, pt_archive *ar, const pk_value *d, const char *prefix, int vpp, int depth,
                   size_t *budget)
{
    if (depth > MAX_NESTING)
        return err_input(rf->path, "the model's state dict nests more than %d levels deep", MAX_NESTING);
    for (size_t i = 0; i + 1 < d->u.seq.len; i += 2) {
        if (*budget == 0)
            return err_input(rf->path, "the model's state dict holds one dict in several places (or in itself)");
        --*budget;
        const pk_value *k = d->u.seq.item[i], *v = d->u.seq.item[i + 1];
        if (v->kind != PK_DICT && !pt_is_tensor(v))
            continue;
        if (k->kind != PK_STR)
            return err_input(rf->path, "the model's state dict has a key that is %s, not a name",
                             pk_kind_name(k->kind));
        strbuf full = STRBUF_INIT;
        sb_adds(&full, prefix);
        sb_addc(&full, '.');
        sb_add(&full, k->u.str.ptr, k->u.str.len);
        const char *s = full.buf;
        size_t n = full.len;
        while (n && *s == '.')
            s++, n--;
        while (n && s[n - 1] == '.')
            n--;
        char *name = xstrndup(s, n);
        sb_free(&full);
        int rc = 0;
        if (v->kind == PK_DICT) {
            rc = flatten(rf, ar, v, name, vpp, depth + 1, budget);
        } else {
            GROW(rf->v, rf->cap, rf->n + 1);
            named *x = &rf->v[rf->n];
            char *mapped;
            ck_map_name(name, strlen(name), &mapped);
            strbuf key = STRBUF_INIT;
            sb_addf(&key, "%s/%d", mapped, vpp);
            free(mapped);
            x->key = sb_detach(&key);
            rc = pt_tensor(ar, v, &x->t);
            if (rc == 0)
                rf->n++;
            else
                free(x->key);
        }
        free(name);
        if (rc)
            return -1;
    }
    return 0;
}

typedef struct {
    ck_side *s;
    rank_file *rf;
} load_job;

/* One rank file: parse, then the model (or model0, model1, ... with
 * virtual pipeline stages) flattened. */
static int load_rank(void *arg, size_t i)
{
    load_job *j = arg;
    rank_file *rf = &j->rf[i];
    const mapped_file *f = &j->s->files[rf->file];
    file_guard g;
    file_guard_begin(&g, f);
    int rc = -1;
    pt_archive *ar = pt_open(rf->path, f->data, f->size);
    const pk_value *root = ar ? pt_root(ar) : NULL;
    if (ar && (!root || root->kind != PK_DICT)) {
        err_input(rf->path, "holds %s, not a state dict", root ? pk_kind_name(root->kind) : "nothing");
    } else if (ar) {
        const pk_value *m = pk_dict_get(root, "model");
        size_t budget = f->size;
        rc = 0;
        if (m) {
            if (m->kind == PK_DICT)
                rc = flatten(rf, ar, m, "", 0, 0, &budget);
        } else {
            char key[32];
            for (int v = 0; rc == 0; v++) {
                snprintf(key, sizeof key, "model%d", v);
                if (!(m = pk_dict_get(root, key)))
                    break;
                if (m->kind == PK_DICT)
                    rc = flatten(rf, ar, m, "", v, 0, &budget);
            }
            /* msprobe merges the other ranks' shards into a smaller
             * tensor; a rank that is missing is refused, so is this */
            if (rc == 0 && !pk_dict_get(root, "model0"))
                rc = err_input(rf->path, "holds no model: its state dict has neither 'model' nor 'model0' (a Megatron "
                                         "checkpoint keeps the weights there)");
        }
    }
    if (file_guard_end(&g) != 0)
        rc = -1;
    if (ar && (rc != 0 || !pt_owns_data(ar))) {
        pt_close(ar);
        ar = NULL;
    }
    rf->ar = ar;
    progress_add(j->s->pj, 1);
    return rc;
}

/* One partition (an expert and pipeline rank): key -> shards in TP order. */
typedef struct {
    const char *key;
    named **shards;
    size_t *src;
    size_t n, cap;
} part_entry;

typedef struct {
    part_entry *v;
    size_t n, cap;
    strmap idx;
} partition;

static void part_add(partition *p, named *x, size_t src)
{
    int added;
    size_t *k = strmap_put(&p->idx, x->key, strlen(x->key), p->n, &added);
    if (added) {
        GROW(p->v, p->cap, p->n + 1);
        memset(&p->v[p->n], 0, sizeof p->v[p->n]);
        p->v[p->n++].key = x->key;
    }
    part_entry *e = &p->v[*k];
    GROW(e->shards, e->cap, e->n + 1);
    e->src = xrealloc(e->src, e->cap * sizeof *e->src);
    e->shards[e->n] = x;
    e->src[e->n++] = src;
}

static int contains(const char *key, const char *const *subs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strstr(key, subs[i]))
            return 1;
    return 0;
}

static void shape_text(strbuf *sb, const tensor *t)
{
    sb_addc(sb, '(');
    for (int d = 0; d < t->ndim; d++)
        sb_addf(sb, "%s%lld", d ? ", " : "", (long long)t->shape[d]);
    sb_adds(sb, t->ndim == 1 ? ",)" : ")");
}

/* _consolidate_tp_weights for one key: the pieces of the full tensor. */
static int consolidate(ck_side *s, const char *dir, const part_entry *e, ck_param *p, int64_t *shape)
{
    static const char *const column[] = {"linear_qkv", "linear_fc1", "word_embeddings.weight", "output_layer.weight"};
    static const char *const row[] = {"linear_fc2.weight", "linear_proj.weight"};
    int axis = contains(e->key, column, 4) ? 0 : contains(e->key, row, 2) ? 1 : -1;
    const tensor *t0 = &e->shards[0]->t;
    p->ndim = t0->ndim;
    p->file = (uint32_t)e->src[0];
    memcpy(shape, t0->shape, (size_t)t0->ndim * sizeof *shape);
    if (axis < 0 || e->n == 1) {
        p->pieces = ck_pieces(s, 1);
        ck_piece_set(s, &p->pieces[0], t0, NULL, e->src[0]);
        p->npieces = 1;
        if (axis < 0 && e->n > 1) {
            p->replicas = ck_pieces(s, e->n - 1);
            for (size_t k = 1; k < e->n; k++)
                ck_piece_set(s, &p->replicas[k - 1], &e->shards[k]->t, NULL, e->src[k]);
            p->nreplicas = (uint32_t)(e->n - 1);
        }
        return 0;
    }
    p->pieces = ck_pieces(s, e->n);
    p->npieces = (uint32_t)e->n;
    shape[axis] = 0;
    for (size_t k = 0; k < e->n; k++) {
        const tensor *t = &e->shards[k]->t;
        int ok = t->ndim == t0->ndim && t->ndim > axis;
        for (int d = 0; ok && d < t->ndim; d++)
            ok = d == axis || t->shape[d] == t0->shape[d];
        if (!ok) {
            strbuf a = STRBUF_INIT, b = STRBUF_INIT;
            shape_text(&a, t0);
            shape_text(&b, t);
            err_input(dir, "cannot join the tensor-parallel shards of %s along dimension %d: shapes %s and %s", e->key,
                      axis, sb_str(&a), sb_str(&b));
            sb_free(&a);
            sb_free(&b);
            return -1;
        }
        int64_t at[TENSOR_MAX_DIMS] = {0};
        at[axis] = shape[axis];
        ck_piece_set(s, &p->pieces[k], t, at, e->src[k]);
        shape[axis] += t->shape[axis];
    }
    return 0;
}

/* Put a merged parameter under its global name; a name met again (another
 * stage with the same global name) takes the later one, as msprobe does. */
static void store(ck_side *s, strmap *names, ck_param *p)
{
    int added;
    size_t *k = strmap_put(names, p->name, strlen(p->name), s->n, &added);
    if (added) {
        *ck_add_param(s) = *p;
        return;
    }
    ck_param *old = &s->params[*k];
    old->ndim = p->ndim;
    old->shape = p->shape;
    old->pieces = p->pieces;
    old->npieces = p->npieces;
    old->replicas = p->replicas;
    old->nreplicas = p->nreplicas;
    old->file = p->file;
}

static int int_arg(const char *path, const pk_value *args, const char *name, long dflt, long *out)
{
    const pk_value *v = arg(args, name);
    if (!v) {
        if (dflt < 0)
            return err_input(path, "args has no %s", name);
        *out = dflt;
        return 0;
    }
    if (v->kind == PK_NONE && dflt == 0) {
        *out = 0;
        return 0;
    }
    if (v->kind != PK_INT || v->u.i < (dflt == 0 ? 0 : 1) || v->u.i > 1000000)
        return err_input(path, "args.%s is %s, not a positive integer", name, pk_kind_name(v->kind));
    *out = (long)v->u.i;
    return 0;
}

/* parse_parallel_size: from the first rank directory's args. */
static int parallel_sizes(ck_side *s, const char *dir, long *tp, long *pp, long *ep, long *experts)
{
    char **names;
    long n = dir_list(dir, &names);
    if (n < 0)
        return -1;
    long first = -1;
    for (long i = 0; i < n && first < 0; i++)
        if (!strncmp(names[i], "mp_rank_", 8))
            first = i;
    char *rank = path_join(dir, names[first]);
    char *path = path_join(rank, "model_optim_rng.pt");
    names_free(names, n);
    free(rank);
    mapped_file f;
    int rc = file_map(path, 0, &f);
    if (rc == 0) {
        file_guard g;
        file_guard_begin(&g, &f);
        pt_archive *ar = pt_open(path, f.data, f.size);
        const pk_value *root = ar ? pt_root(ar) : NULL;
        const pk_value *args = pk_dict_get(root, "args");
        if (!ar)
            rc = -1;
        else if (!args)
            rc = err_input(path, "has no 'args' to give the parallel sizes (not a Megatron checkpoint?)");
        else if (int_arg(path, args, "tensor_model_parallel_size", -1, tp) != 0
                 || int_arg(path, args, "pipeline_model_parallel_size", -1, pp) != 0
                 || int_arg(path, args, "expert_model_parallel_size", 1, ep) != 0
                 || int_arg(path, args, "num_experts", 0, experts) != 0)
            rc = -1;
        pt_close(ar);
        if (file_guard_end(&g) != 0)
            rc = -1;
        file_unmap(&f);
    }
    free(path);
    if (rc == 0 && (*tp) * (*pp) * (*ep) > 1000000)
        rc = err_input(dir, "parallel sizes TP %ld x PP %ld x EP %ld are absurd", *tp, *pp, *ep);
    (void)s;
    return rc;
}

static void free_ranks(rank_file *rf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < rf[i].n; k++)
            free(rf[i].v[k].key);
        free(rf[i].v);
        free(rf[i].path);
    }
    free(rf);
}

int ck_load_megatron(const char *dir, ck_side *s)
{
    s->kind = "megatron";
    long tp, pp, ep, experts;
    if (parallel_sizes(s, dir, &tp, &pp, &ep, &experts) != 0)
        return -1;
    size_t nfiles = (size_t)(tp * pp * ep);
    rank_file *rf = xcalloc(nfiles, sizeof *rf);
    int rc = 0;
    for (long e = 0, i = 0; e < ep && rc == 0; e++)
        for (long p = 0; p < pp && rc == 0; p++)
            for (long t = 0; t < tp && rc == 0; t++, i++) {
                char name[64];
                int len = snprintf(name, sizeof name, "mp_rank_%02ld", t);
                if (pp > 1)
                    len += snprintf(name + len, sizeof name - (size_t)len, "_%03ld", p);
                if (ep > 1)
                    snprintf(name + len, sizeof name - (size_t)len, "_%03ld", e);
                char *rank = path_join(dir, name);
                rf[i].path = path_join(rank, "model_optim_rng.pt");
                free(rank);
                long k = ck_add_file(s, rf[i].path);
                if (k < 0)
                    rc = -1;
                else
                    rf[i].file = (size_t)k;
            }
    progress_phase(s->pj, "load", nfiles, PROGRESS_ITEMS);
    load_job job = {s, rf};
    if (rc == 0)
        rc = pool_run(nfiles, s->threads, load_rank, &job, NULL);
    for (size_t i = 0; i < nfiles; i++)
        if (rf[i].ar) {
            GROW(s->archives, s->acap, s->narchives + 1);
            s->archives[s->narchives++] = rf[i].ar;
        }
    strmap names;
    strmap_init(&names, 1024);
    for (long e = 0; e < ep && rc == 0; e++) {
        long per_stage = 0;
        for (long p = 0; p < pp && rc == 0; p++) {
            partition part;
            memset(&part, 0, sizeof part);
            strmap_init(&part.idx, 256);
            for (long t = 0; t < tp; t++) {
                rank_file *r = &rf[(e * pp + p) * tp + t];
                for (size_t k = 0; k < r->n; k++)
                    part_add(&part, &r->v[k], r->file);
            }
            if (!part.n)
                rc = err_input(dir, "No state loaded: no tensors in the models of expert rank %ld, pipeline rank %ld",
                               e, p);
            if (rc == 0 && !per_stage) {
                /* msprobe 8.1.0 fails when a stage has no layers.N. key;
                 * 8.3.3 takes one layer per stage, as we do */
                long max = -1;
                for (size_t k = 0; k < part.n; k++) {
                    long l = ck_layer_index(part.v[k].key, strlen(part.v[k].key));
                    if (l > max)
                        max = l;
                }
                per_stage = max + 1 > 0 ? max + 1 : 1;
            }
            for (size_t k = 0; k < part.n && rc == 0; k++) {
                ck_param prm;
                memset(&prm, 0, sizeof prm);
                int64_t shape[TENSOR_MAX_DIMS];
                rc = consolidate(s, dir, &part.v[k], &prm, shape);
                if (rc == 0) {
                    char *name = ck_renumber(part.v[k].key, (int)pp, (int)p, per_stage, experts, (int)ep, (int)e);
                    ck_param_set(s, &prm, name, strlen(name), prm.ndim, shape);
                    free(name);
                    store(s, &names, &prm);
                }
            }
            for (size_t k = 0; k < part.n; k++) {
                free(part.v[k].shards);
                free(part.v[k].src);
            }
            free(part.v);
            strmap_free(&part.idx);
        }
    }
    strmap_free(&names);
    free_ranks(rf, nfiles);
    return rc;
}
