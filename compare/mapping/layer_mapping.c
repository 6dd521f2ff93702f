/* Layer mapping (spec/compare.md §4.7 steps 5-6), with the behaviour of
 * msprobe 8.1.0's core/compare/layer_mapping/layer_mapping.py: each target
 * entry's bench entry (model/layer_map), their rows paired, and the
 * data_mapping yaml. */
#include "compare/mapping/layer_mapping.h"
#include "base/files.h"
#include "base/outdir.h"
#include "model/layer_map.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "format/yaml_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- rows ------------------------------------------------------------------ */

/* Python's s[n:] for n characters. */
static const char *skip_chars(const char *s, size_t n)
{
    for (; *s && n; n--)
        s += lm_utf8_len((unsigned char)*s);
    return s;
}

static size_t count_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

static void add_pair(jval *obj, strmap *seen, const char *name, const char *to)
{
    int added;
    size_t *slot = strmap_put(seen, name, strlen(name), obj->len, &added);
    jmember *mb = &obj->u.members[*slot];
    if (added) {
        mb->key = name;
        mb->keylen = (uint32_t)strlen(name);
        obj->len++;
    }
    mb->val.type = J_STRING;
    mb->val.u.str = to;
    mb->val.len = (uint32_t)strlen(to);
}

/* Each target entry's bench entry, then row by row: the bench row whose
 * name goes on like the target row's after the entry name. */
static jval *pair_rows(const mapping_dumps *d, const lm_side *t, const lm_side *b, const lm_rules *r, arena *a)
{
    jval *obj = arena_calloc(a, sizeof *obj);
    obj->type = J_OBJECT;
    obj->u.members = arena_calloc(a, (d->npu->nrows ? d->npu->nrows : 1) * sizeof *obj->u.members);
    strmap seen = {0};
    strmap_init(&seen, d->npu->nrows);
    strbuf scope = STRBUF_INIT, key = STRBUF_INIT;
    for (size_t k = 0; k < t->n; k++) {
        const dump_entry *ne = &d->npu->entries[k];
        if (!ne->nrows)
            continue;
        size_t bi = lm_bench_entry(t, b, r, k, &scope, &key);
        strmap suffix = {0};
        if (bi != (size_t)-1) {
            const dump_entry *be = &d->bench->entries[bi];
            size_t skip = count_chars(be->name);
            strmap_init(&suffix, be->nrows);
            for (size_t i = 0; i < be->nrows; i++) {
                const char *rn = d->bench->rows[be->first_row + i].name, *s = skip_chars(rn, skip);
                int added;
                *strmap_put(&suffix, s, strlen(s), be->first_row + i, &added) = be->first_row + i;
            }
        }
        size_t skip = count_chars(ne->name);
        for (size_t i = 0; i < ne->nrows; i++) {
            const char *rn = d->npu->rows[ne->first_row + i].name, *s = skip_chars(rn, skip);
            size_t *bj = bi != (size_t)-1 ? strmap_get(&suffix, s, strlen(s)) : NULL;
            add_pair(obj, &seen, rn, bj ? d->bench->rows[*bj].name : "N/A");
        }
        strmap_free(&suffix);
    }
    strmap_free(&seen);
    sb_free(&scope);
    sb_free(&key);
    return obj;
}

static int write_mapping(const mapping_dumps *d, const jval *map)
{
    strbuf text = STRBUF_INIT;
    char *path = xstrdup(d->yaml_path);
    int rc = -1;
    yaml_dump_str_map(&text, map);
    if (out_run_mkdir(d->outputs, d->out_dir) == 0 && file_write_new(&path, text.buf, text.len) >= 0) {
        out_run_add(d->outputs, path);
        rc = 0;
    }
    free(path);
    sb_free(&text);
    return rc;
}

const jval *layer_mapping_build(const mapping_dumps *d, const lm_rules *rules, arena *a)
{
    arena m;
    arena_init(&m, 1 << 16);
    lm_side t, b;
    memset(&t, 0, sizeof t);
    memset(&b, 0, sizeof b);
    const jval *out = NULL;
    /* msprobe checks the target's files, then the bench's (the yaml was
     * parsed before any dump was read) */
    if (lm_side_load(&t, d->npu, 0, &m) == 0 && lm_side_load(&b, d->bench, 1, &m) == 0) {
        out = pair_rows(d, &t, &b, rules, a);
        if (d->yaml_path && write_mapping(d, out) != 0)
            out = NULL;
    }
    lm_side_free(&t);
    lm_side_free(&b);
    arena_free(&m);
    return out;
}
