/* torch.distributed.checkpoint metadata (distcp.h). */
#include "format/distcp.h"
#include "base/err.h"
#include "base/files.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "format/pickle.h"

#include <stdlib.h>
#include <string.h>

/* The .metadata of a big model is a few MB; far beyond is not metadata. */
#define MAX_METADATA_BYTES ((size_t)1 << 31)

/* Besides the classes: torch.serialization._get_layout('torch.strided') is
 * how a layout pickles, builtins.getattr(EnumClass, 'NAME') how Python 3.11
 * pickles an enum member. Recorded as calls, never made. */
static const pk_global allowed[] = {
    {"torch.distributed.*", "*"}, {"torch", "Size"}, {"torch.serialization", "_get_layout"}, {"torch", "strided"},
    {"torch", "sparse_coo"},
    {"torch", "sparse_csr"}, {"torch", "float32"}, {"torch", "float16"}, {"torch", "bfloat16"},
    {"torch", "float64"}, {"torch", "int8"}, {"torch", "uint8"}, {"torch", "int16"}, {"torch", "int32"},
    {"torch", "int64"}, {"torch", "bool"}, {"torch", "complex64"}, {"torch", "complex128"},
    {"torch", "float8_e4m3fn"}, {"torch", "float8_e5m2"}, {"torch", "uint16"}, {"torch", "uint32"},
    {"torch", "uint64"}, {"collections", "OrderedDict"}, {"collections", "defaultdict"}, {"builtins", "set"},
    {"builtins", "frozenset"}, {"builtins", "object"}, {"builtins", "getattr"}, {"copyreg", "_reconstructor"},
    {"megatron.*", "*"},
    {"enum", "Enum"},
};

/* The attributes of a pickled object: the dict its BUILD set (dataclasses),
 * also the second part of a (dict, slots) state. */
static const pk_value *state_of(const pk_value *v)
{
    if (!v || v->kind != PK_CALL || !v->u.call.state)
        return NULL;
    const pk_value *s = v->u.call.state;
    if (s->kind == PK_DICT)
        return s;
    if (s->kind == PK_TUPLE && s->u.seq.len == 2)
        for (int k = 0; k < 2; k++)
            if (s->u.seq.item[k]->kind == PK_DICT && s->u.seq.item[k]->u.seq.len)
                return s->u.seq.item[k];
    return NULL;
}

static const pk_value *field(const pk_value *obj, const char *name) { return pk_dict_get(state_of(obj), name); }

static int is_class(const pk_value *v, const char *name)
{
    return v && v->kind == PK_CALL && v->u.call.callable->kind == PK_GLOBAL
           && strcmp(v->u.call.callable->u.global.name, name) == 0;
}

/* torch.Size([..]) or a plain tuple/list of ints: its length, -1 if not. */
static long int_seq(const pk_value *v, int64_t *out, long cap)
{
    if (v && v->kind == PK_CALL && pk_tuple_len(v->u.call.args) == 1)
        v = v->u.call.args->u.seq.item[0];
    if (!v || (v->kind != PK_TUPLE && v->kind != PK_LIST))
        return -1;
    long n = (long)v->u.seq.len;
    if (n > cap)
        return -1;
    for (long i = 0; i < n; i++) {
        const pk_value *x = v->u.seq.item[i];
        if (x->kind != PK_INT || x->u.i < 0)
            return -1;
        out[i] = x->u.i;
    }
    return n;
}

static int get_uint(const pk_value *v, uint64_t *out)
{
    if (!v || v->kind != PK_INT || v->u.i < 0)
        return -1;
    *out = (uint64_t)v->u.i;
    return 0;
}

/* Key of a chunk: fqn, NUL, its offsets. */
static void chunk_key(strbuf *sb, const char *fqn, size_t len, const int64_t *off, long n)
{
    sb_reset(sb);
    sb_add(sb, fqn, len);
    sb_addc(sb, 0);
    for (long i = 0; i < n; i++)
        sb_addf(sb, "%lld,", (long long)off[i]);
}

typedef struct {
    const char *file;
    uint64_t offset, length;
} where;

/* storage_data: {MetadataIndex(fqn, offset): _StorageInfo(path, offset, length)} */
static int index_storage(const char *path, const pk_value *sd, arena *keys, arena *keep, strmap *map, where **w,
                         size_t *nw)
{
    if (!sd || sd->kind != PK_DICT)
        return err_input(path, "the metadata has no storage_data dict (not written by FileSystemWriter?)");
    size_t n = sd->u.seq.len / 2;
    *w = xcalloc(n ? n : 1, sizeof **w);
    *nw = n;
    strbuf sb = STRBUF_INIT;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const pk_value *k = sd->u.seq.item[2 * i], *v = sd->u.seq.item[2 * i + 1];
        const pk_value *fqn = field(k, "fqn"), *rel = field(v, "relative_path");
        int64_t off[TENSOR_MAX_DIMS];
        long nd = 0;
        const pk_value *o = field(k, "offset");
        if (o && o->kind != PK_NONE)
            nd = int_seq(o, off, TENSOR_MAX_DIMS);
        where *x = &(*w)[i];
        if (!fqn || fqn->kind != PK_STR || nd < 0 || !rel || rel->kind != PK_STR
            || get_uint(field(v, "offset"), &x->offset) != 0 || get_uint(field(v, "length"), &x->length) != 0) {
            rc = err_input(path, "storage_data entry %zu is not a (MetadataIndex, _StorageInfo) pair", i);
            break;
        }
        const char *r = rel->u.str.ptr;
        size_t rl = rel->u.str.len;
        if (!rl || memchr(r, '/', rl) || memchr(r, 0, rl) || (rl <= 2 && r[0] == '.' && (rl == 1 || r[1] == '.'))) {
            rc = err_input(path, "storage_data names '%.*s', not a file of the checkpoint directory",
                           (int)(rl < 200 ? rl : 200), r);
            break;
        }
        x->file = arena_strndup(keep, r, rl);
        chunk_key(&sb, fqn->u.str.ptr, fqn->u.str.len, off, nd);
        int added;
        strmap_put(map, arena_strndup(keys, sb.buf, sb.len), (uint32_t)sb.len, i, &added);
    }
    sb_free(&sb);
    return rc;
}

/* Do the chunks tile the tensor: inside it, disjoint, the right volume? */
static int check_tiling(const char *path, const dcp_tensor *t)
{
    uint64_t numel = 1, covered = 0;
    for (int d = 0; d < t->ndim; d++)
        numel *= (uint64_t)t->size[d];
    for (size_t c = 0; c < t->nchunks; c++) {
        const dcp_chunk *a = &t->chunks[c];
        uint64_t vol = 1;
        for (int d = 0; d < t->ndim; d++) {
            if (a->offsets[d] > t->size[d] || a->sizes[d] > t->size[d] - a->offsets[d])
                return err_input(path, "tensor '%s': chunk %zu lies outside the tensor", t->fqn, c);
            vol *= (uint64_t)a->sizes[d];
        }
        covered += vol;
        for (size_t e = 0; e < c && t->nchunks <= 4096; e++) {
            const dcp_chunk *b = &t->chunks[e];
            int overlap = vol > 0;
            for (int d = 0; d < t->ndim && overlap; d++)
                overlap = a->offsets[d] < b->offsets[d] + b->sizes[d] && b->offsets[d] < a->offsets[d] + a->sizes[d];
            if (overlap)
                return err_input(path, "tensor '%s': chunks %zu and %zu overlap", t->fqn, e, c);
        }
    }
    if (covered != numel)
        return err_input(path, "tensor '%s': its chunks hold %llu of its %llu elements", t->fqn,
                         (unsigned long long)covered, (unsigned long long)numel);
    return 0;
}

static int tensor_entry(const char *path, const pk_value *key, const pk_value *meta, const strmap *map,
                        const where *w, dcp_metadata *out, dcp_tensor *t)
{
    int nl = (int)(key->u.str.len < 200 ? key->u.str.len : 200);
    int64_t size[TENSOR_MAX_DIMS];
    long nd = int_seq(field(meta, "size"), size, TENSOR_MAX_DIMS);
    const pk_value *chunks = field(meta, "chunks");
    if (nd < 0 || !chunks || chunks->kind != PK_LIST)
        return err_input(path, "tensor '%.*s': its TensorStorageMetadata lacks a size or chunks", nl, key->u.str.ptr);
    t->fqn = arena_strndup(&out->a, key->u.str.ptr, key->u.str.len);
    t->ndim = (int)nd;
    t->size = arena_alloc(&out->a, (size_t)(nd ? nd : 1) * sizeof *t->size);
    memcpy(t->size, size, (size_t)nd * sizeof *size);
    t->nchunks = chunks->u.seq.len;
    t->chunks = arena_calloc(&out->a, (t->nchunks ? t->nchunks : 1) * sizeof *t->chunks);
    strbuf sb = STRBUF_INIT;
    int rc = 0;
    for (size_t c = 0; c < t->nchunks && rc == 0; c++) {
        const pk_value *ch = chunks->u.seq.item[c];
        dcp_chunk *x = &t->chunks[c];
        int64_t off[TENSOR_MAX_DIMS], sz[TENSOR_MAX_DIMS];
        if (int_seq(field(ch, "offsets"), off, TENSOR_MAX_DIMS) != nd
            || int_seq(field(ch, "sizes"), sz, TENSOR_MAX_DIMS) != nd) {
            rc = err_input(path, "tensor '%.*s': chunk %zu has no offsets and sizes of %ld dimensions", nl,
                           key->u.str.ptr, c, nd);
            break;
        }
        x->offsets = arena_alloc(&out->a, (size_t)(nd ? nd : 1) * sizeof *off);
        x->sizes = arena_alloc(&out->a, (size_t)(nd ? nd : 1) * sizeof *sz);
        memcpy(x->offsets, off, (size_t)nd * sizeof *off);
        memcpy(x->sizes, sz, (size_t)nd * sizeof *sz);
        chunk_key(&sb, key->u.str.ptr, key->u.str.len, off, nd);
        const size_t *wi = strmap_get(map, sb.buf, sb.len);
        if (!wi) {
            rc = err_input(path, "tensor '%.*s': chunk %zu has no storage entry", nl, key->u.str.ptr, c);
            break;
        }
        x->file = w[*wi].file;
        x->offset = w[*wi].offset;
        x->length = w[*wi].length;
    }
    sb_free(&sb);
    return rc ? rc : check_tiling(path, t);
}

int dcp_metadata_load(const char *path, dcp_metadata *out)
{
    memset(out, 0, sizeof *out);
    arena_init(&out->a, 64 * 1024);
    mapped_file f;
    if (file_load(path, MAX_METADATA_BYTES, &f) != 0)
        return -1;
    arena pa, keys;
    arena_init(&pa, 256 * 1024);
    arena_init(&keys, 64 * 1024);
    pk_value *root = NULL;
    strmap map;
    strmap_init(&map, 1024);
    where *w = NULL;
    size_t nw = 0;
    int rc = pickle_parse(&pa, path, "the metadata", f.data, f.size, allowed, sizeof allowed / sizeof allowed[0],
                          &root);
    if (rc == 0 && !is_class(root, "Metadata"))
        rc = err_input(path, "is not a torch.distributed.checkpoint Metadata pickle");
    const pk_value *sdm = rc == 0 ? field(root, "state_dict_metadata") : NULL;
    if (rc == 0 && (!sdm || sdm->kind != PK_DICT))
        rc = err_input(path, "the metadata has no state_dict_metadata dict");
    if (rc == 0)
        rc = index_storage(path, field(root, "storage_data"), &keys, &out->a, &map, &w, &nw);
    if (rc == 0) {
        size_t n = sdm->u.seq.len / 2;
        out->t = arena_calloc(&out->a, (n ? n : 1) * sizeof *out->t);
        for (size_t i = 0; i < n && rc == 0; i++) {
            const pk_value *k = sdm->u.seq.item[2 * i], *v = sdm->u.seq.item[2 * i + 1];
            if (k->kind != PK_STR)
                rc = err_input(path, "state_dict_metadata has a key that is %s, not a name", pk_kind_name(k->kind));
            else if (is_class(v, "TensorStorageMetadata"))
                rc = tensor_entry(path, k, v, &map, w, out, &out->t[out->n++]);
            else if (!is_class(v, "BytesStorageMetadata"))
                rc = err_input(path, "'%.*s' is described by %s, neither tensor nor bytes storage metadata",
                               (int)(k->u.str.len < 200 ? k->u.str.len : 200), k->u.str.ptr,
                               v->kind == PK_CALL ? v->u.call.callable->u.global.name : pk_kind_name(v->kind));
        }
    }
    free(w);
    strmap_free(&map);
    arena_free(&keys);
    arena_free(&pa);
    file_unmap(&f);
    if (rc != 0)
        dcp_metadata_free(out);
    return rc;
}

void dcp_metadata_free(dcp_metadata *m)
{
    arena_free(&m->a);
    memset(m, 0, sizeof *m);
}
