/* Layer mapping (spec/compare.md §4.7 steps 1-4), with the behaviour of
 * msprobe 8.1.0's core/compare/layer_mapping/layer_mapping.py: the user's
 * renaming rules, and each target entry paired with the bench entry at the
 * translated place of the tree of scopes (layer_scope.c). compare turns the
 * pairs into a data mapping of rows, graph matches nodes with them. */
#include "model/layer_map.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "format/yaml_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rules of the yaml, longest first among those of a class and first part. */
struct lm_rules {
    strmap map;                            /* "Class\0sub.path" -> target */
    const char **target;
    size_t n, cap, max_level;
    arena mem;                             /* keys and targets */
};

/* ---- the user's layer mapping ------------------------------------------ */

/* The rules of class `type`, written under `as` in the file. */
static int add_rules(lm_rules *r, const char *file, const char *type, size_t tlen, const char *as, const jval *dict,
                     arena *m)
{
    if (dict->type != J_OBJECT)
        return err_input(file, "the layer mapping of %s must be a dict of sub-path: bench name", as);
    for (uint32_t i = 0; i < dict->len; i++) {
        const jmember *mb = &dict->u.members[i];
        if (mb->val.type != J_STRING)
            return err_input(file, "the layer mapping of %s: %.*s must be a name (a string)", as, (int)mb->keylen,
                             mb->key);
        /* "name(comment)": only the name counts */
        const char *open = memchr(mb->val.u.str, '(', mb->val.len);
        size_t vl = open ? (size_t)(open - mb->val.u.str) : mb->val.len;
        char *type_z = lm_cat(m, type, tlen, "", 0);
        char *key = lm_cat(m, type_z, tlen + 1, mb->key, mb->keylen);   /* "Class\0sub.path" */
        int added;
        size_t *slot = strmap_put(&r->map, key, tlen + 1 + mb->keylen, r->n, &added);
        if (!added)
            continue;
        GROW(r->target, r->cap, r->n + 1);
        r->target[r->n++] = arena_strndup(m, mb->val.u.str, vl);
        (void)slot;
        size_t level = lm_count_dots(mb->key, mb->keylen) + 1;
        if (level > r->max_level)
            r->max_level = level;
    }
    return 0;
}

/* { Class: { "sub.path": "bench_name" } }; the old top-level name "Cell"
 * stands for TopLayer (and replaces it). An empty file has no rules. */
static int load_rules(lm_rules *r, const char *file, arena *m)
{
    if (!file)
        return 0;
    jval root;
    if (yaml_load_file(file, YAML_SUFFIX_YAML_OR_YML, m, &root) != 0)
        return -1;
    if (root.type == J_NULL)
        return 0;
    if (root.type != J_OBJECT)
        return err_input(file, "a layer mapping is a dict of class name: {sub-path: bench name}");
    const jval *cell_rules = json_get(&root, "Cell");
    if (cell_rules && cell_rules->type == J_NULL)
        cell_rules = NULL;
    for (uint32_t i = 0; i < root.len; i++) {
        const jmember *mb = &root.u.members[i];
        if (json_key_is(mb, "Cell") || (cell_rules && json_key_is(mb, LM_TOP_LAYER)))
            continue;
        char *as = arena_strndup(m, mb->key, mb->keylen);
        if (add_rules(r, file, mb->key, mb->keylen, as, &mb->val, m) != 0)
            return -1;
    }
    if (cell_rules && add_rules(r, file, LM_TOP_LAYER, strlen(LM_TOP_LAYER), "Cell", cell_rules, m) != 0)
        return -1;
    return 0;
}

/* ---- pairing the entries ------------------------------------------------ */

/* The class of a target node: that of the last entry placed at it, else
 * the node's own name. */
static const char *class_of(const lm_side *t, const char *path, size_t len, size_t *clen)
{
    size_t *k = strmap_get(&t->node, path, len);
    if (k) {
        *clen = strlen(t->items[*k].type_name);
        return t->items[*k].type_name;
    }
    if (len == 0) {
        *clen = strlen(LM_TOP_LAYER);
        return LM_TOP_LAYER;
    }
    const char *p = path + len;
    while (p > path && p[-1] != '.')
        p--;
    *clen = (size_t)(path + len - p);
    return p;
}

/* Walk the target's scope from the top; at each node the rules of its class
 * may rename the next part(s), the longest matching rule first. */
size_t lm_bench_entry(const lm_side *t, const lm_side *b, const lm_rules *r, size_t item, strbuf *scope, strbuf *key)
{
    const lm_item *it = &t->items[item];
    const char *full = it->full;
    size_t flen = strlen(full);
    size_t *ends = xmalloc_array(lm_count_dots(full, flen) + 1, sizeof *ends);
    size_t np = 0;
    for (size_t i = 0; i <= flen; i++)
        if (i == flen || full[i] == '.')
            ends[np++] = i;
    size_t first_dot = ends[0];
    sb_reset(scope);
    for (size_t idx = 0; idx + 1 < np;) {
        size_t clen;
        const char *cls = class_of(t, full + first_dot, ends[idx] - first_dot, &clen);
        size_t step = 0, max = r->max_level < np - 1 - idx ? r->max_level : np - 1 - idx;
        for (size_t level = max; level >= 1 && !step; level--) {
            sb_reset(key);
            sb_add(key, cls, clen);
            sb_addc(key, 0);
            sb_add(key, full + ends[idx] + 1, ends[idx + level] - ends[idx] - 1);
            size_t *ti = strmap_get(&r->map, key->buf, key->len);
            if (ti) {
                sb_addc(scope, '.');
                sb_adds(scope, r->target[*ti]);
                step = level;
            }
        }
        if (!step) {
            sb_add(scope, full + ends[idx], ends[idx + 1] - ends[idx]);
            step = 1;
        }
        idx += step;
    }
    free(ends);
    sb_addc(scope, 0);
    sb_adds(scope, it->state);
    sb_addf(scope, "%c%zu", 0, it->ordinal);
    size_t *k = strmap_get(&b->node, scope->buf, scope->len);
    return k ? *k : (size_t)-1;
}

lm_rules *layer_rules_load(const char *yaml_file)
{
    lm_rules *r = xcalloc(1, sizeof *r);
    arena_init(&r->mem, 1 << 12);
    if (load_rules(r, yaml_file, &r->mem) != 0) {
        layer_rules_free(r);
        return NULL;
    }
    return r;
}

void layer_rules_free(lm_rules *r)
{
    if (!r)
        return;
    strmap_free(&r->map);
    free(r->target);
    arena_free(&r->mem);
    free(r);
}


const char **layer_map_entries(const dump_data *target, const dump_data *bench, const lm_rules *rules, arena *a)
{
    arena m;
    arena_init(&m, 1 << 16);
    lm_side t, b;
    memset(&t, 0, sizeof t);
    memset(&b, 0, sizeof b);
    const char **out = NULL;
    if (lm_side_load(&t, target, 0, &m) == 0 && lm_side_load(&b, bench, 1, &m) == 0) {
        out = arena_calloc(a, (target->nentries ? target->nentries : 1) * sizeof *out);
        strbuf scope = STRBUF_INIT, key = STRBUF_INIT;
        for (size_t k = 0; k < t.n; k++) {
            size_t bi = lm_bench_entry(&t, &b, rules, k, &scope, &key);
            if (bi != (size_t)-1)
                out[k] = arena_strndup(a, bench->entries[bi].name, strlen(bench->entries[bi].name));
        }
        sb_free(&scope);
        sb_free(&key);
    }
    lm_side_free(&t);
    lm_side_free(&b);
    arena_free(&m);
    return out;
}
