/* Compare keys of target rows under -am, -cm and -dm (spec/compare.md §4.1,
 * §4.3). Precedence as in msprobe: api mapping, else cell mapping, else data
 * mapping, else the row name itself. */
#include "compare/mapping/mapping.h"
#include "compare/mapping/layer_mapping.h"
#include "base/log.h"
#include "base/err.h"
#include "base/mem.h"
#include "py/pystr.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "format/yaml_read.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Python's str.replace(old, new[, count]). */
static void replace(strbuf *out, const char *s, const char *old, const char *new, int count)
{
    size_t ol = strlen(old);
    sb_reset(out);
    if (ol == 0) {
        sb_adds(out, s);
        return;
    }
    const char *p = s;
    while (count != 0) {
        const char *q = strstr(p, old);
        if (!q)
            break;
        sb_add(out, p, (size_t)(q - p));
        sb_adds(out, new);
        p = q + ol;
        count--;
    }
    sb_adds(out, p);
}

/* "{type}.{api}": the first two dot components of a name. */
static int api_of(const char *name, const char *path, strbuf *out)
{
    const char *d1 = strchr(name, '.');
    if (!d1)
        return err_input(path, "Failed to retrieve API name, please check if the dump data is reasonable (%s)",
                         name);
    const char *d2 = strchr(d1 + 1, '.');
    sb_reset(out);
    sb_add(out, name, d2 ? (size_t)(d2 - name) : strlen(name));
    return 0;
}

static const char *keep(mapping_keys *keys, strbuf *sb) { return arena_strndup(&keys->key_mem, sb->buf, sb->len); }

/* The built-in MindSpore -> PyTorch renaming of one row name. */
static int builtin_api_key(const dump_data *npu, const char *name, strbuf *api, strbuf *out)
{
    if (api_of(name, npu->path, api) != 0)
        return -1;
    const char *a = api->buf;
    const char *dot = strchr(a, '.');
    size_t tl = (size_t)(dot - a);
    if (tl == 4 && !memcmp(a, "Mint", 4)) {
        replace(out, name, "Mint", "Torch", -1);
        return 0;
    }
    if (tl == 14 && !memcmp(a, "MintFunctional", 14)) {
        replace(out, name, "MintFunctional", "Functional", -1);
        return 0;
    }
    if (tl == 10 && !memcmp(a, "Functional", 10))
        for (size_t i = 0; ms_functional_as_torch[i]; i++)
            if (!strcmp(dot + 1, ms_functional_as_torch[i])) {
                strbuf to = STRBUF_INIT;
                sb_addf(&to, "Torch.%s", dot + 1);
                replace(out, name, a, to.buf, -1);
                sb_free(&to);
                return 0;
            }
    for (size_t i = 0; ms_api_renames[i][0]; i++)
        if (!strcmp(a, ms_api_renames[i][0])) {
            replace(out, name, a, ms_api_renames[i][1], -1);
            return 0;
        }
    sb_reset(out);
    sb_adds(out, name);
    return 0;
}

/* A list of an api mapping entry, by its documented (plural) key, falling
 * back to the singular msprobe 8.1.0 actually reads for outputs. */
static const jval *entry_list(const jval *e, const char *key, const char *alt)
{
    const jval *v = json_get(e, key);
    if (!v && alt)
        v = json_get(e, alt);
    return v;
}

static uint32_t list_len(const jval *v) { return v && v->type == J_ARRAY ? v->len : 0; }

/* msprobe's gen_input_compare_key(): the row's argument index (first
 * component after the pattern) selects the bench index. The reference
 * tests a prefix ("1" also matching "10"); we compare it exactly. */
static int map_index(const char *op, const char *pattern, const jval *ms, const jval *pt, strbuf *out)
{
    const char *at = strstr(op, pattern);
    const char *after = at + strlen(pattern);
    size_t first = strcspn(after, ".");
    int hit = 0;
    strbuf from = STRBUF_INIT, to = STRBUF_INIT, idx = STRBUF_INIT;
    for (uint32_t i = 0; i < list_len(ms); i++) {
        sb_reset(&idx);
        py_str_json(&idx, &ms->u.items[i]);
        if (idx.len != first || memcmp(after, idx.buf, first) != 0)
            continue;
        sb_reset(&from);
        sb_adds(&from, pattern);
        sb_add(&from, idx.buf, idx.len);
        sb_reset(&to);
        sb_adds(&to, pattern);
        if (i < list_len(pt))
            py_str_json(&to, &pt->u.items[i]);
        replace(out, op, from.buf, to.buf, -1);
        hit = 1;
    }
    sb_free(&from);
    sb_free(&to);
    sb_free(&idx);
    return hit;
}

typedef struct {
    const char *ms, *pt, *alt_ms, *alt_pt;
} list_pair;

static const list_pair lists[4] = {
    {"ms_args", "pt_args", NULL, NULL},
    {"ms_outputs", "pt_outputs", "ms_output", "pt_output"},
    {"ms_parameters", "pt_parameters", NULL, NULL},
    {"ms_parameters_grad", "pt_parameters_grad", NULL, NULL},
};

/* One entry of the user's api mapping, checked when the file is parsed. */
typedef struct {
    const jval *ent;
    const char *ms, *pt;     /* ms_api, pt_api (NUL-terminated) */
    int skip;                /* list lengths differ: warned once, left out */
} api_entry;

/* The parsed option files of a run (mapping_load). */
struct mapping_files {
    arena mem;
    jval cell, data;         /* -cm, -dm dicts (J_OBJECT) */
    int have_cell, have_data;
    strmap data_keys;        /* -dm key -> member index */
    api_entry *api;          /* -am FILE */
    size_t napi;
    lm_rules *layer;         /* -lm rules; NULL when -lm is not given or not used */
};

/* -am FILE: a list of entries with ms_api and pt_api (§4.1.1). */
static int load_api(mapping_files *f, const char *file)
{
    jval root;
    if (yaml_load_file(file, YAML_SUFFIX_YAML_OR_YML, &f->mem, &root) != 0)
        return -1;
    if (root.type == J_NULL)
        return 0;
    if (root.type != J_ARRAY)
        return err_input(file, "an api mapping is a list of entries with ms_api and pt_api");
    f->api = xcalloc(root.len ? root.len : 1, sizeof *f->api);
    for (uint32_t e = 0; e < root.len; e++) {
        const jval *ent = &root.u.items[e];
        const jval *ms_api = json_get(ent, "ms_api"), *pt_api = json_get(ent, "pt_api");
        if (ent->type != J_OBJECT || !ms_api || ms_api->type != J_STRING || !pt_api || pt_api->type != J_STRING)
            return err_input(file, "entry %u of the api mapping needs ms_api and pt_api names", e + 1);
        int equal = 1;
        for (int l = 0; l < 4; l++)
            equal &= list_len(entry_list(ent, lists[l].ms, lists[l].alt_ms)) ==
                     list_len(entry_list(ent, lists[l].pt, lists[l].alt_pt));
        if (!equal)
            log_warn("%s: entry %u: The user-defined mapping table is incorrect, make sure that the number of "
                     "parameters is equal; entry skipped",
                     file, e + 1);
        f->api[f->napi++] = (api_entry){.ent = ent,
                                        .ms = arena_strndup(&f->mem, ms_api->u.str, ms_api->len),
                                        .pt = arena_strndup(&f->mem, pt_api->u.str, pt_api->len),
                                        .skip = !equal};
    }
    return 0;
}

/* The user's api mapping (§4.1.1) rewrites the keys of the rows it names. */
static int user_api_mapping(const mapping_dumps *d, const char *file, const mapping_files *f, mapping_keys *out)
{
    arena a;
    arena_init(&a, 4096);
    int rc = 0;
    strmap npu_apis = {0}, bench_apis = {0};
    strbuf api = STRBUF_INIT, op = STRBUF_INIT, key = STRBUF_INIT;
    size_t *next = NULL;
    if (f->napi) {
        /* target rows by their "{type}.{api}", chained; bench api names */
        strmap_init(&npu_apis, d->npu->nrows);
        strmap_init(&bench_apis, d->bench->nrows);
        next = xmalloc_array(d->npu->nrows + 1, sizeof *next);
        for (size_t i = 0; i < d->npu->nrows && rc == 0; i++) {
            if ((rc = api_of(d->npu->rows[i].name, d->npu->path, &api)) != 0)
                break;
            next[i] = (size_t)-1;
            int added;
            size_t *slot = strmap_put(&npu_apis, arena_strndup(&a, api.buf, api.len), api.len, i, &added);
            if (!added) {
                size_t k = *slot;
                while (next[k] != (size_t)-1)
                    k = next[k];
                next[k] = i;
            }
        }
        for (size_t i = 0; i < d->bench->nrows && rc == 0; i++) {
            if ((rc = api_of(d->bench->rows[i].name, d->bench->path, &api)) != 0)
                break;
            strmap_put(&bench_apis, arena_strndup(&a, api.buf, api.len), api.len, i, NULL);
        }
    }
    for (size_t e = 0; rc == 0 && e < f->napi; e++) {
        const api_entry *ae = &f->api[e];
        if (ae->skip)
            continue;
        const char *ms = ae->ms, *pt = ae->pt;
        size_t *head = strmap_get(&npu_apis, ms, strlen(ms));
        if (!head || !strmap_get(&bench_apis, pt, strlen(pt)))
            continue;
        for (size_t i = *head; i != (size_t)-1 && rc == 0; i = next[i]) {
            replace(&op, d->npu->rows[i].name, ms, pt, 1);
            static const char *const patterns[5] = {".input.", ".kwargs.", ".output.", ".parameters.",
                                                    ".parameters_grad."};
            static const int list_of[5] = {0, 0, 1, 2, 3};
            int p = 0;
            while (p < 5 && !strstr(op.buf, patterns[p]))
                p++;
            if (p == 5) {
                rc = err_input(file, "Excepted op_name: %s", op.buf);
                break;
            }
            const list_pair *lp = &lists[list_of[p]];
            if (!map_index(op.buf, patterns[p], entry_list(ae->ent, lp->ms, lp->alt_ms),
                           entry_list(ae->ent, lp->pt, lp->alt_pt), &key)) {
                sb_reset(&key);
                sb_add(&key, op.buf, op.len);
                sb_adds(&key, "abandoned");
            }
            out->npu_keys[i] = keep(out, &key);
        }
    }
    free(next);
    strmap_free(&npu_apis);
    strmap_free(&bench_apis);
    sb_free(&api);
    sb_free(&op);
    sb_free(&key);
    arena_free(&a);
    return rc;
}

/* A flat mapping file: a dict of names (-cm, -dm). */
static int load_dict(const char *file, arena *a, jval *out)
{
    if (yaml_load_file(file, YAML_SUFFIX_YAML_OR_YML, a, out) != 0)
        return -1;
    if (out->type == J_NULL) {
        out->type = J_OBJECT;
        out->len = 0;
        return 0;
    }
    if (out->type != J_OBJECT)
        return err_input(file, "a mapping file here is a dict of names (name: mapped name)");
    return 0;
}

/* str() of a mapping value, as the key is compared with names. */
static void value_text(const jval *v, strbuf *out)
{
    sb_reset(out);
    py_str_json(out, v);
}

static int has_direction(const char *name)
{
    return strstr(name, ".forward.") || strstr(name, ".backward.");
}

static int has_pgrad_component(const char *name)
{
    for (const char *p = name; (p = strstr(p, "parameters_grad")) != NULL; p += 15)
        if ((p == name || p[-1] == '.') && (p[15] == 0 || p[15] == '.'))
            return 1;
    return 0;
}

/* msprobe's process_cell_mapping(). */
static void cell_key(const char *name, const jval *dict, int newest, strbuf *tmp, strbuf *out)
{
    if (!*name || (!has_pgrad_component(name) && !has_direction(name))) {
        sb_reset(out);
        sb_adds(out, "N/A");
        return;
    }
    replace(out, name, "Cell", "Module", 1);
    if (!dict || dict->len == 0)
        return;
    /* the cell path and class: after the first '.', before the first
     * .forward. / .backward. / .parameters_grad. */
    const char *s = strchr(out->buf, '.');
    s = s ? s + 1 : out->buf;
    const char *end = s + strlen(s);
    static const char *const cuts[3] = {".forward.", ".backward.", ".parameters_grad."};
    for (int k = 0; k < 3; k++) {
        const char *q = strstr(s, cuts[k]);
        if (q && q < end)
            end = q;
    }
    sb_reset(tmp);
    sb_add(tmp, s, (size_t)(end - s));
    const jval *to = json_get(dict, tmp->buf);
    strbuf val = STRBUF_INIT, cur = STRBUF_INIT;
    if (to) {
        value_text(to, &val);
    } else if (newest) {
        /* the newest msprobe falls back to replacing, in the dict's order,
         * the first occurrence of every key found in the cell path */
        strbuf next = STRBUF_INIT, v = STRBUF_INIT;
        sb_add(&val, tmp->buf, tmp->len);
        for (uint32_t i = 0; i < dict->len; i++) {
            const jmember *m = &dict->u.members[i];
            char *key = xstrndup(m->key, m->keylen);
            if (m->keylen && strstr(val.buf, key)) {
                sb_reset(&v);
                value_text(&m->val, &v);
                replace(&next, val.buf, key, v.buf, 1);
                sb_reset(&val);
                sb_add(&val, next.buf, next.len);
            }
            free(key);
        }
        sb_free(&next);
        sb_free(&v);
        if (!strcmp(val.buf, tmp->buf)) {
            sb_free(&val);
            return;
        }
    } else {
        return;
    }
    sb_add(&cur, out->buf, out->len);
    replace(out, cur.buf, tmp->buf, val.buf, 1);
    sb_free(&val);
    sb_free(&cur);
}

int mapping_load(mapping_opts *m, int framework)
{
    m->files = NULL;
    if (!mapping_any(m))
        return 0;
    mapping_files *f = xcalloc(1, sizeof *f);
    arena_init(&f->mem, 1 << 16);
    int rc = 0;
    if (m->cell && m->cell_file) {
        rc = load_dict(m->cell_file, &f->mem, &f->cell);
        f->have_cell = rc == 0;
    }
    if (rc == 0 && m->layer && framework != 'p') {
        f->layer = layer_rules_load(m->layer_file);
        rc = f->layer ? 0 : -1;
    }
    /* msprobe does not read -dm when -lm generates the mapping (§2.4 step
     * 7); without -f that depends on each target dump, so it is parsed */
    if (rc == 0 && m->data_file && !(m->layer && framework == 'm')) {
        rc = load_dict(m->data_file, &f->mem, &f->data);
        if (rc == 0) {
            /* a data mapping can be big (one key per row): keys by hash;
             * the last of repeated keys wins, like json_get */
            f->have_data = 1;
            strmap_init(&f->data_keys, f->data.len);
            for (uint32_t i = 0; i < f->data.len; i++) {
                const jmember *mb = &f->data.u.members[i];
                int added;
                *strmap_put(&f->data_keys, mb->key, mb->keylen, i, &added) = i;
            }
        }
    }
    if (rc == 0 && m->api && m->api_file)
        rc = load_api(f, m->api_file);
    m->files = f;
    if (rc != 0)
        mapping_unload(m);
    return rc;
}

void mapping_unload(mapping_opts *m)
{
    mapping_files *f = m->files;
    if (!f)
        return;
    strmap_free(&f->data_keys);
    free(f->api);
    layer_rules_free(f->layer);
    arena_free(&f->mem);
    free(f);
    m->files = NULL;
}

/* A row name's key under the data mapping `data` (its strmap `keys`). */
static void data_key(const jval *data, const strmap *keys, const char *name, strbuf *key)
{
    size_t *to = strmap_get(keys, name, strlen(name));
    if (to) {
        value_text(&data->u.members[*to].val, key);
    } else {
        sb_reset(key);
        sb_adds(key, name);
    }
}

int mapping_apply(const mapping_dumps *d, const mapping_opts *m, mapping_keys *out)
{
    if (!mapping_any(m))
        return 0;
    const mapping_files *f = m->files;
    if (!f)
        return err_internal(NULL, "the mapping files were not loaded before the compare");
    arena_init(&out->key_mem, 1 << 20);
    out->npu_keys = xmalloc_array(d->npu->nrows + 1, sizeof *out->npu_keys);
    arena files;
    arena_init(&files, 1 << 16);
    strbuf api = STRBUF_INIT, key = STRBUF_INIT, tmp = STRBUF_INIT;
    const jval *data = NULL;
    const strmap *keys = NULL;
    strmap layer_keys = {0};
    int rc = 0, layer = 0;
    if (m->layer && !d->target_ms) {
        static atomic_int warned;
        if (!atomic_exchange(&warned, 1))
            log_warn("-lm (layer mapping) applies to MindSpore target dumps only; ignored");
    } else if (m->layer) {
        /* the generated mapping replaces any -dm file, unread (§2.4 step 7) */
        layer = 1;
        data = f->layer ? layer_mapping_build(d, f->layer, &files)
                        : (err_internal(NULL, "the layer mapping rules were not loaded"), NULL);
        rc = data ? 0 : -1;
        if (data) {
            strmap_init(&layer_keys, data->len);
            for (uint32_t i = 0; i < data->len; i++) {
                const jmember *mb = &data->u.members[i];
                int added;
                *strmap_put(&layer_keys, mb->key, mb->keylen, i, &added) = i;
            }
            keys = &layer_keys;
        }
    }
    if (rc == 0 && !layer && f->have_data) {
        data = &f->data;
        keys = &f->data_keys;
    }
    for (size_t i = 0; i < d->npu->nrows && rc == 0; i++) {
        const char *name = d->npu->rows[i].name;
        if (m->api) {
            rc = builtin_api_key(d->npu, name, &api, &key);
        } else if (m->cell) {
            cell_key(name, f->have_cell ? &f->cell : NULL, d->newest, &tmp, &key);
        } else if (data) {
            data_key(data, keys, name, &key);
        } else {
            sb_reset(&key);
            sb_adds(&key, name);
        }
        out->npu_keys[i] = keep(out, &key);
    }
    if (rc == 0 && m->api && m->api_file)
        rc = user_api_mapping(d, m->api_file, f, out);
    /* msprobe tests the mapping's truth: a -dm path always holds, a
     * generated mapping only when it has keys (else an exact match) */
    out->mapped = data != NULL && (!layer || data->len > 0);
    strmap_free(&layer_keys);
    sb_free(&api);
    sb_free(&key);
    sb_free(&tmp);
    arena_free(&files);
    return rc;
}

void mapping_keys_free(mapping_keys *keys)
{
    if (!keys->npu_keys)
        return;
    free((void *)keys->npu_keys);
    arena_free(&keys->key_mem);
    memset(keys, 0, sizeof *keys);
}
