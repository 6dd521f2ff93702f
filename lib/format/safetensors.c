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

static int entry(const char *path, const jmember *m, const unsigned char *data, uint64_t data_size, st_tensor *out)
{
    int nl = (int)(m->keylen < 200 ? m->keylen : 200);
    const jval *v = &m->val;
    const jval *dt = json_get(v, "dtype"), *shape = json_get(v, "shape"), *offs = json_get(v, "data_offsets");
    if (v->type != J_OBJECT || !dt || dt->type != J_STRING || !shape || shape->type != J_ARRAY || !offs
        || offs->type != J_ARRAY || offs->len != 2)
        return err_input(path, "safetensors header: tensor '%.*s' lacks a dtype, a shape or its data_offsets", nl,
                         m->key);
    size_t k = 0;
    while (k < sizeof dtypes / sizeof dtypes[0]
           && !(strlen(dtypes[k].name) == dt->len && memcmp(dtypes[k].name, dt->u.str, dt->len) == 0))
        k++;
    if (k == sizeof dtypes / sizeof dtypes[0])
        return err_input(path, "safetensors header: tensor '%.*s' has the unknown dtype '%.*s'", nl, m->key,
                         (int)(dt->len < 20 ? dt->len : 20), dt->u.str);
    if (dtypes[k].dtype < 0)
        return err_input(path, "tensor '%.*s' has dtype %s, which is not supported", nl, m->key, dtypes[k].name);
    if (shape->len > TENSOR_MAX_DIMS)
        return err_input(path, "tensor '%.*s' has %u dimensions, at most %d are supported", nl, m->key, shape->len,
                         TENSOR_MAX_DIMS);
    int64_t dims[TENSOR_MAX_DIMS];
    for (uint32_t d = 0; d < shape->len; d++)
        if ((dims[d] = json_uint(&shape->u.items[d])) < 0)
            return err_input(path, "safetensors header: tensor '%.*s' has a malformed shape", nl, m->key);
    int64_t b = json_uint(&offs->u.items[0]), e = json_uint(&offs->u.items[1]);
    if (b < 0 || e < b || (uint64_t)e > data_size)
        return err_input(path, "tensor '%.*s': data_offsets [%lld, %lld] lie outside the file's %llu data bytes",
                         nl, m->key, (long long)b, (long long)e, (unsigned long long)data_size);
    tensor *t = &out->t;
    memset(t, 0, sizeof *t);
    t->dtype = (dtype_id)dtypes[k].dtype;
    if (tensor_set_shape(t, path, (int)shape->len, dims, 0) != 0)
        return -1;
    if ((uint64_t)(e - b) != (uint64_t)t->numel * dtype_size(t->dtype))
        return err_input(path, "tensor '%.*s' has %lld data bytes, its shape and dtype need %llu", nl, m->key,
                         (long long)(e - b), (unsigned long long)t->numel * dtype_size(t->dtype));
    t->storage = t->numel ? data + b : NULL;
    t->storage_size = (size_t)(e - b);
    if (tensor_check_view(t, path) != 0)
        return -1;
    out->name = xstrndup(m->key, m->keylen);
    return 0;
}

int safetensors_parse(const char *path, const unsigned char *buf, size_t size, st_file *out)
{
    memset(out, 0, sizeof *out);
    if (size < 8)
        return err_input(path, "not a safetensors file: too short for its header length");
    uint64_t hlen = le_get64(buf);
    if (hlen > SAFETENSORS_MAX_HEADER)
        return err_set(ERR_LIMIT, path, "safetensors header of %llu bytes is over the %zu allowed",
                       (unsigned long long)hlen, SAFETENSORS_MAX_HEADER);
    if (hlen > size - 8)
        return err_input(path, "not a safetensors file: a header of %llu bytes does not fit in %zu bytes",
                         (unsigned long long)hlen, size);
    arena a;
    arena_init(&a, 64 * 1024);
    jval root;
    int rc = json_parse(path, buf + 8, (size_t)hlen, &a, &root);
    if (rc == 0 && root.type != J_OBJECT)
        rc = err_input(path, "not a safetensors file: the header is not a JSON object");
    if (rc == 0) {
        out->v = xcalloc(root.len ? root.len : 1, sizeof *out->v);
        for (uint32_t i = 0; i < root.len && rc == 0; i++) {
            const jmember *m = &root.u.members[i];
            if (json_key_is(m, "__metadata__"))
                continue;
            rc = entry(path, m, buf + 8 + hlen, size - 8 - hlen, &out->v[out->n]);
            if (rc == 0)
                out->n++;
        }
    }
    arena_free(&a);
    if (rc != 0)
        safetensors_free(out);
    return rc;
}

void safetensors_free(st_file *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->v[i].name);
    free(f->v);
    memset(f, 0, sizeof *f);
}

int safetensors_index(const char *index_path, char ***files, long *n)
{
    *files = NULL;
    *n = 0;
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
    for (uint32_t i = 0; rc == 0 && i < map->len; i++) {
        const jval *file = &map->u.members[i].val;
        if (file->type != J_STRING || file->len == 0 || memchr(file->u.str, '/', file->len)
            || memchr(file->u.str, 0, file->len) || (file->len <= 2 && file->u.str[0] == '.'
                                                     && (file->len == 1 || file->u.str[1] == '.')))
            rc = err_input(index_path, "weight_map entry '%.*s' does not name a file in the index's directory",
                           (int)(map->u.members[i].keylen < 200 ? map->u.members[i].keylen : 200),
                           map->u.members[i].key);
        int added = 0;
        if (rc == 0)
            strmap_put(&seen, file->u.str, file->len, count, &added);
        if (added) {
            GROW(v, cap, count + 1);
            v[count++] = xstrndup(file->u.str, file->len);
        }
    }
    strmap_free(&seen);
    arena_free(&a);
    file_unmap(&f);
    if (rc != 0) {
        names_free(v, (long)count);
        return -1;
    }
    *files = v;
    *n = (long)count;
    return 0;
}
