/* Hugging Face safetensors (safetensors.h). */
#include "format/safetensors.h"
#include "base/err.h"
#include "base/files.h"
#include "base/le.h"
#include "base/mem.h"
#include "base/strmap.h"
#include "format/json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    int dtype; /* -1: known but not supported */
} dtypes[] = {
    {"BOOL", DT_BOOL}, {"U8", DT_U8}, {"I8", DT_I8}, {"I16", DT_I16}, {"U16", DT_U16}, {"I32", DT_I32},
    {"U32", DT_U32}, {"I64", DT_I64}, {"U64", DT_U64}, {"F16", DT_F16}, {"BF16", DT_BF16}, {"F32", DT_F32},
    {"F64", DT_F64}, {"C64", DT_C64}, {"F8_E5M2", -1}, {"F8_E4M3", -1}, {"F8_E8M0", -1}, {"F6_E2M3", -1},
    {"F6_E3M2", -1}, {"F4", -1},
};

/* Names in messages: at most this many bytes. */
enum { SHOWN = 200 };
#define SHOW(len) (int)((len) < SHOWN ? (len) : SHOWN)

/* A JSON integer that fits in int64 and is >= 0, else -1. */
static int64_t json_uint(const jval *v)
{
    if (!v || v->type != J_NUMBER || !v->is_int || v->text[0] == '-' || v->len > 18)
        return -1;
    int64_t x = 0;
    for (uint32_t i = 0; i < v->len; i++)
        x = x * 10 + (v->text[i] - '0');
    return x;
}

/* One header entry (its value already parsed) into *out; names and shape
 * in the file's arena. */
static int entry(const char *path, const char *key, size_t keylen, const jval *v, uint64_t data_size, st_file *f,
                 st_tensor *out)
{
    int nl = SHOW(keylen);
    const jval *dt = json_get(v, "dtype"), *shape = json_get(v, "shape"), *offs = json_get(v, "data_offsets");
    if (v->type != J_OBJECT || !dt || dt->type != J_STRING || !shape || shape->type != J_ARRAY || !offs
        || offs->type != J_ARRAY || offs->len != 2)
        return err_input(path, "safetensors header: tensor '%.*s' lacks a dtype, a shape or its data_offsets", nl, key);
    size_t k = 0;
    while (k < sizeof dtypes / sizeof dtypes[0]
           && !(strlen(dtypes[k].name) == dt->len && memcmp(dtypes[k].name, dt->u.str, dt->len) == 0))
        k++;
    if (k == sizeof dtypes / sizeof dtypes[0])
        return err_input(path, "safetensors header: tensor '%.*s' has the unknown dtype '%.*s'", nl, key,
                         (int)(dt->len < 20 ? dt->len : 20), dt->u.str);
    if (dtypes[k].dtype < 0)
        return err_input(path, "tensor '%.*s' has dtype %s, which is not supported", nl, key, dtypes[k].name);
    if (shape->len > TENSOR_MAX_DIMS)
        return err_input(path, "tensor '%.*s' has %u dimensions, at most %d are supported", nl, key, shape->len,
                         TENSOR_MAX_DIMS);
    int64_t dims[TENSOR_MAX_DIMS];
    for (uint32_t d = 0; d < shape->len; d++)
        if ((dims[d] = json_uint(&shape->u.items[d])) < 0)
            return err_input(path, "safetensors header: tensor '%.*s' has a malformed shape", nl, key);
    int64_t b = json_uint(&offs->u.items[0]), e = json_uint(&offs->u.items[1]);
    if (b < 0 || e < b || (uint64_t)e > data_size)
        return err_input(path, "tensor '%.*s': data_offsets [%lld, %lld] lie outside the file's %llu data bytes", nl,
                         key, (long long)b, (long long)e, (unsigned long long)data_size);
    tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = (dtype_id)dtypes[k].dtype;
    if (tensor_set_shape(&t, path, (int)shape->len, dims, 0) != 0)
        return -1;
    if ((uint64_t)(e - b) != (uint64_t)t.numel * dtype_size(t.dtype))
        return err_input(path, "tensor '%.*s' has %lld data bytes, its shape and dtype need %llu", nl, key,
                         (long long)(e - b), (unsigned long long)t.numel * dtype_size(t.dtype));
    int64_t *sh = arena_alloc(&f->a, (shape->len ? shape->len : 1) * sizeof *sh);
    memcpy(sh, dims, shape->len * sizeof *sh);
    *out = (st_tensor){.name = arena_strndup(&f->a, key, keylen), .shape = sh, .ndim = (int)shape->len,
                       .dtype = t.dtype, .numel = t.numel, .begin = (uint64_t)b, .end = (uint64_t)e};
    return 0;
}

/* __metadata__: strings to strings (or null, which the reference reads as
 * no metadata). */
static int metadata(const char *path, const jval *v)
{
    if (v->type == J_NULL)
        return 0;
    if (v->type != J_OBJECT)
        return err_input(path, "safetensors header: __metadata__ is not an object of strings");
    for (uint32_t i = 0; i < v->len; i++)
        if (v->u.members[i].val.type != J_STRING)
            return err_input(path, "safetensors header: __metadata__ '%.*s' is not a string (the format allows "
                                   "only strings there)", SHOW(v->u.members[i].keylen), v->u.members[i].key);
    return 0;
}

static int by_name(const void *x, const void *y)
{
    return strcmp((*(const st_tensor *const *)x)->name, (*(const st_tensor *const *)y)->name);
}

static int by_offsets(const void *x, const void *y)
{
    const st_tensor *a = *(const st_tensor *const *)x, *b = *(const st_tensor *const *)y;
    if (a->begin != b->begin)
        return a->begin < b->begin ? -1 : 1;
    return (a->end > b->end) - (a->end < b->end);
}

/* Names given once; the data contiguous from 0 to the end of the file
 * (the reference's Metadata::validate, and its check that the buffer is
 * covered). */
static int check_layout(const char *path, st_file *f, uint64_t data_size)
{
    const st_tensor **v = xmalloc_array(f->n ? f->n : 1, sizeof *v);
    for (size_t i = 0; i < f->n; i++)
        v[i] = &f->v[i];
    int rc = 0;
    qsort(v, f->n, sizeof *v, by_name);
    for (size_t i = 1; i < f->n && rc == 0; i++)
        if (!strcmp(v[i - 1]->name, v[i]->name))
            rc = err_input(path, "tensor '%.*s' is given twice in the header (which one is meant depends on the "
                                 "reader)", SHOW(strlen(v[i]->name)), v[i]->name);
    qsort(v, f->n, sizeof *v, by_offsets);
    uint64_t at = 0;
    for (size_t i = 0; i < f->n && rc == 0; i++) {
        const st_tensor *t = v[i];
        int nl = SHOW(strlen(t->name));
        if (t->begin < at)
            rc = err_input(path, "tensor '%.*s': data_offsets [%llu, %llu] overlap those of '%.*s'", nl, t->name,
                           (unsigned long long)t->begin, (unsigned long long)t->end, SHOW(strlen(v[i - 1]->name)),
                           v[i - 1]->name);
        else if (t->begin > at)
            rc = err_input(path, "tensor '%.*s': data_offsets [%llu, %llu] leave the data bytes %llu..%llu to no "
                                 "tensor (the format's data is contiguous from 0)", nl, t->name,
                           (unsigned long long)t->begin, (unsigned long long)t->end, (unsigned long long)at,
                           (unsigned long long)t->begin);
        at = t->end;
    }
    if (rc == 0 && at != data_size)
        rc = f->n ? err_input(path, "the tensors' data ends at byte %llu (tensor '%.*s'), the file holds %llu data "
                                    "bytes", (unsigned long long)at, SHOW(strlen(v[f->n - 1]->name)),
                              v[f->n - 1]->name, (unsigned long long)data_size)
                  : err_input(path, "no tensor in the header, but %llu data bytes after it",
                              (unsigned long long)data_size);
    free(v);
    return rc;
}

typedef struct {
    const char *path;
    uint64_t data_size;
    st_file *out;
    size_t cap;
    int seen_meta;
} header_walk;

/* One member of the header: a tensor, or __metadata__. */
static int header_member(void *ctx, jparser *jp, const char *key, size_t keylen, arena *scratch)
{
    header_walk *w = ctx;
    st_file *out = w->out;
    jval v;
    if (jp_value(jp, scratch, &v) != 0)
        return -1;
    if (keylen == 12 && !memcmp(key, "__metadata__", 12))
        return w->seen_meta++ ? err_input(w->path, "safetensors header: __metadata__ is given twice")
                              : metadata(w->path, &v);
    if (out->n == SAFETENSORS_MAX_TENSORS)
        return err_set(ERR_LIMIT, w->path, "safetensors header lists more than %zu tensors (the limit)",
                       SAFETENSORS_MAX_TENSORS);
    GROW(out->v, w->cap, out->n + 1);
    if (entry(w->path, key, keylen, &v, w->data_size, out, &out->v[out->n]) != 0)
        return -1;
    out->n++;
    return 0;
}

int safetensors_parse(const char *path, const unsigned char *buf, size_t size, st_file *out)
{
    memset(out, 0, sizeof *out);
    arena_init(&out->a, 64 * 1024);
    if (size < 8)
        return err_input(path, "not a safetensors file: too short for its header length");
    uint64_t hlen = le_get64(buf);
    if (hlen > SAFETENSORS_MAX_HEADER)
        return err_set(ERR_LIMIT, path, "safetensors header of %llu bytes is over the %zu allowed",
                       (unsigned long long)hlen, SAFETENSORS_MAX_HEADER);
    if (hlen > size - 8)
        return err_input(path, "not a safetensors file: a header of %llu bytes does not fit in %zu bytes",
                         (unsigned long long)hlen, size);
    const unsigned char *data = buf + 8 + hlen;
    uint64_t data_size = size - 8 - hlen;
    /* entry by entry, each parsed into a scratch arena emptied after it */
    jparser jp;
    jp_init(&jp, path, buf + 8, (size_t)hlen);
    arena scratch;
    arena_init(&scratch, 4096);
    header_walk w = {.path = path, .data_size = data_size, .out = out};
    int rc = json_walk_object(&jp, path, "not a safetensors file: the header is not a JSON object", &scratch,
                              header_member, &w);
    jp_free(&jp);
    arena_free(&scratch);
    if (rc == 0)
        rc = check_layout(path, out, data_size);
    for (size_t i = 0; i < out->n && rc == 0; i++)
        out->v[i].data = data + out->v[i].begin;
    if (rc != 0)
        safetensors_free(out);
    return rc;
}

void safetensors_free(st_file *f)
{
    free(f->v);
    arena_free(&f->a);
    memset(f, 0, sizeof *f);
}

void st_view(const st_tensor *s, tensor *out)
{
    memset(out, 0, sizeof *out);
    out->dtype = s->dtype;
    tensor_set_shape(out, NULL, s->ndim, s->shape, 0); /* checked when parsed */
    out->storage = s->numel ? s->data : NULL;
    out->storage_size = (size_t)(s->end - s->begin);
    tensor_check_view(out, NULL);
}

void st_shard_of_free(st_shard_of *map, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(map[i].tensor);
    free(map);
}

int safetensors_index(const char *index_path, char ***files, long *n, st_shard_of **map_out, size_t *nmap)
{
    *files = NULL;
    *n = 0;
    if (map_out) {
        *map_out = NULL;
        *nmap = 0;
    }
    mapped_file f;
    arena a;
    arena_init(&a, 64 * 1024);
    jval root;
    int rc = json_load_file(index_path, (size_t)1 << 30, &f, &a, &root, NULL);
    const jval *map = rc == 0 ? json_get(&root, "weight_map") : NULL;
    if (rc == 0 && (!map || map->type != J_OBJECT))
        rc = err_input(index_path, "has no \"weight_map\" object");
    strmap seen;
    strmap_init(&seen, map ? map->len : 1);
    char **v = NULL;
    size_t cap = 0, count = 0;
    st_shard_of *pairs = NULL;
    size_t npairs = 0;
    if (rc == 0 && map_out)
        pairs = xmalloc_array(map->len ? map->len : 1, sizeof *pairs);
    for (uint32_t i = 0; rc == 0 && i < map->len; i++) {
        const jmember *m = &map->u.members[i];
        const jval *file = &m->val;
        if (file->type != J_STRING || file->len == 0 || memchr(file->u.str, '/', file->len)
            || memchr(file->u.str, 0, file->len) || (file->len <= 2 && file->u.str[0] == '.'
                                                     && (file->len == 1 || file->u.str[1] == '.'))) {
            rc = err_input(index_path, "weight_map entry '%.*s' does not name a file in the index's directory",
                           SHOW(m->keylen), m->key);
            break;
        }
        int added = 0;
        size_t *at = strmap_put(&seen, file->u.str, file->len, count, &added);
        if (added) {
            GROW(v, cap, count + 1);
            v[count++] = xstrndup(file->u.str, file->len);
        }
        if (pairs)
            pairs[npairs++] = (st_shard_of){xstrndup(m->key, m->keylen), (long)*at};
    }
    strmap_free(&seen);
    arena_free(&a);
    file_unmap(&f);
    if (rc != 0) {
        names_free(v, (long)count);
        st_shard_of_free(pairs, npairs);
        return -1;
    }
    *files = v;
    *n = (long)count;
    if (map_out) {
        *map_out = pairs;
        *nmap = npairs;
    }
    return 0;
}
