/* construct.json -> micro steps and renumbered keys (micro.h), following
 * the newest msprobe's extract_root_nodes and reindex_keys_with_mapping. */
#include "monitor/data2db/micro.h"
#include "format/json.h"
#include "base/err.h"
#include "base/files.h"
#include "base/mem.h"
#include "base/strbuf.h"

#include <stdlib.h>
#include <string.h>

enum { P_ROOT, P_NONE, P_PARENT };

typedef struct {
    const char *key;
    size_t len;
    const jval *value;   /* the parent, after the Megatron unwrapping */
} node;

typedef struct {
    int kind;
    long long root;      /* P_ROOT */
    const jval *parent;  /* P_PARENT */
} parent_of;

static int has(const char *s, size_t n, const char *w)
{
    size_t k = strlen(w);
    for (size_t i = 0; i + k <= n; i++)
        if (!memcmp(s + i, w, k))
            return 1;
    return 0;
}

static int starts(const char *s, size_t n, const char *w)
{
    size_t k = strlen(w);
    return n >= k && !memcmp(s, w, k);
}

/* Python's s.replace(a, b) into sb. */
static void replace_all(strbuf *sb, const char *s, size_t n, const char *a, const char *b)
{
    size_t k = strlen(a);
    for (size_t i = 0; i < n;) {
        if (i + k <= n && !memcmp(s + i, a, k)) {
            sb_adds(sb, b);
            i += k;
        } else {
            sb_addc(sb, s[i++]);
        }
    }
}

/* find_root(key): follow parents (".backward" and ".parameters_grad" read
 * as ".forward") to a root's micro step: 1 and *micro, or 0. */
static int find_root(const strmap *map, const parent_of *parents, size_t nnodes, const char *key, size_t n,
                     long long *micro)
{
    strbuf cur = STRBUF_INIT, tmp = STRBUF_INIT;
    sb_add(&cur, key, n);
    int found = 0;
    /* a parent chain longer than the file has entries is a cycle (msprobe:
     * RecursionError) */
    for (size_t hops = 0; hops <= nnodes; hops++) {
        sb_reset(&tmp);
        replace_all(&tmp, cur.buf, cur.len, ".backward", ".forward");
        sb_reset(&cur);
        replace_all(&cur, tmp.buf ? tmp.buf : "", tmp.len, ".parameters_grad", ".forward");
        size_t *slot = strmap_get(map, cur.buf ? cur.buf : "", cur.len);
        if (!slot)
            break;
        const parent_of *p = &parents[*slot];
        if (p->kind == P_ROOT) {
            *micro = p->root;
            found = 1;
            break;
        }
        if (p->kind == P_NONE)
            break;
        const jval *v = p->parent;
        if (v->type == J_STRING) {
            sb_reset(&cur);
            sb_add(&cur, v->u.str, v->len);
            continue;
        }
        /* an int parent is taken for the micro step itself (bools are ints) */
        if (v->type == J_NUMBER && v->is_int) {
            *micro = (long long)v->u.num;
            found = 1;
        } else if (v->type == J_TRUE || v->type == J_FALSE) {
            *micro = v->type == J_TRUE;
            found = 1;
        }
        break;
    }
    sb_free(&cur);
    sb_free(&tmp);
    return found;
}

static int is_digits(const char *s, size_t n)
{
    if (!n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

typedef struct {
    size_t slot;          /* into the map's arrays */
    long long number;
    int form;             /* 1: last part is the number, 2: the one before, 0: none */
    const char *prefix;   /* the family */
    size_t prefix_len;
} member;

static int by_number(const void *a, const void *b)
{
    const member *x = a, *y = b;
    if (x->number != y->number)
        return x->number < y->number ? -1 : 1;
    return x->slot < y->slot ? -1 : x->slot > y->slot;   /* stable */
}

/* reindex_keys_with_mapping: within each micro step, each family's keys
 * renumbered 0, 1, ... by their own number. */
static void renumber(micro_map *m, const char **keys, const size_t *lens)
{
    member *mem = xmalloc_array(m->n ? m->n : 1, sizeof *mem);
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < m->n; i++) {
        const char *k = keys[i];
        size_t n = lens[i];
        /* the last two parts */
        const char *d1 = NULL, *d2 = NULL;
        for (size_t j = n; j-- > 0;)
            if (k[j] == '.') {
                if (!d1)
                    d1 = k + j;
                else {
                    d2 = k + j;
                    break;
                }
            }
        const char *last = d1 ? d1 + 1 : k;
        size_t last_len = n - (size_t)(last - k);
        member *x = &mem[i];
        x->slot = i;
        x->form = 0;
        x->number = 0;
        x->prefix = k;
        x->prefix_len = n;
        if (is_digits(last, last_len)) {
            x->form = 1;
            x->number = strtoll(last, NULL, 10);
            x->prefix_len = d1 ? (size_t)(d1 - k) : 0;
        } else if (d1) {
            const char *before = d2 ? d2 + 1 : k;
            size_t blen = (size_t)(d1 - before);
            if (is_digits(before, blen)) {
                x->form = 2;
                x->number = strtoll(before, NULL, 10);
                /* the family: the key without that part */
                sb_reset(&sb);
                if (d2)
                    sb_add(&sb, k, (size_t)(d2 - k));
                sb_addc(&sb, '.');
                sb_add(&sb, last, last_len);
                x->prefix = arena_strndup(&m->a, sb.buf, sb.len);
                x->prefix_len = sb.len;
            }
        }
    }
    /* group by (micro step, family): each group keeps its members in order */
    strmap groups;
    strmap_init(&groups, m->n * 2 + 8);
    size_t *group_of = xmalloc_array(m->n ? m->n : 1, sizeof *group_of), ngroups = 0;
    for (size_t i = 0; i < m->n; i++) {
        sb_reset(&sb);
        sb_add(&sb, &m->micro[i], sizeof m->micro[i]);
        sb_add(&sb, mem[i].prefix, mem[i].prefix_len);
        char *gk = arena_strndup(&m->a, sb.buf, sb.len);
        int added;
        size_t *g = strmap_put(&groups, gk, sb.len, ngroups, &added);
        if (added)
            ngroups++;
        group_of[i] = *g;
    }
    /* members of each group together, in first-seen order, then sorted */
    size_t *start = xcalloc(ngroups + 1, sizeof *start);
    for (size_t i = 0; i < m->n; i++)
        start[group_of[i] + 1]++;
    for (size_t g = 0; g < ngroups; g++)
        start[g + 1] += start[g];
    member *sorted = xmalloc_array(m->n ? m->n : 1, sizeof *sorted);
    size_t *fill = xmalloc_array(ngroups + 1, sizeof *fill);
    memcpy(fill, start, (ngroups + 1) * sizeof *fill);
    for (size_t i = 0; i < m->n; i++)
        sorted[fill[group_of[i]]++] = mem[i];
    for (size_t g = 0; g < ngroups; g++) {
        member *gm = sorted + start[g];
        size_t gn = start[g + 1] - start[g];
        qsort(gm, gn, sizeof *gm, by_number);
        for (size_t pos = 0; pos < gn; pos++) {
            const member *x = &gm[pos];
            const char *k = keys[x->slot];
            size_t n = lens[x->slot];
            sb_reset(&sb);
            if (x->form == 1) {
                sb_add(&sb, x->prefix, x->prefix_len);
                sb_addf(&sb, ".%zu", pos);
            } else if (x->form == 2) {
                /* the part before the last replaced by the position */
                const char *d1 = memrchr(k, '.', n);
                const char *d2 = memrchr(k, '.', (size_t)(d1 - k));
                if (d2)
                    sb_add(&sb, k, (size_t)(d2 - k) + 1);
                sb_addf(&sb, "%zu", pos);
                sb_add(&sb, d1, n - (size_t)(d1 - k));
            } else {
                sb_add(&sb, k, n);
            }
            m->renamed[x->slot] = arena_strndup(&m->a, sb.buf, sb.len);
            m->renamed_len[x->slot] = sb.len;
        }
    }
    free(sorted);
    free(fill);
    free(start);
    free(group_of);
    strmap_free(&groups);
    free(mem);
    sb_free(&sb);
}

int micro_load(const char *path, micro_map *m)
{
    memset(m, 0, sizeof *m);
    arena_init(&m->a, 1 << 16);
    strmap_init(&m->index, 64);
    m->count = 1;
    mapped_file f;
    jval doc;
    arena parse;
    arena_init(&parse, 1 << 16);
    int rc = json_load_file(path, 0, &f, &parse, &doc,
                            "is not a JSON object (construct.json maps each node to its parent)");
    size_t nn = rc == 0 ? doc.len : 0;
    node *nodes = xcalloc(nn ? nn : 1, sizeof *nodes);
    size_t k = 0;
    int megatron = rc == 0 && json_get(&doc, "megatron_micro_step_number") != NULL;
    for (size_t i = 0; i < nn && rc == 0; i++) {
        const jmember *mem = &doc.u.members[i];
        const jval *v = json_member_value(&doc, (uint32_t)i);
        if (megatron) {
            if (json_key_is(mem, "megatron_micro_step_number"))
                continue;
            /* msprobe's own micro step numbers: [parent, n] -> parent */
            if (v->type == J_ARRAY) {
                if (v->len != 2) {
                    rc = err_input(path, "entry '%.*s' is a list of %u items; a Megatron entry is [parent, micro step]",
                                   (int)(mem->keylen > 80 ? 80 : mem->keylen), mem->key, v->len);
                    break;
                }
                v = &v->u.items[0];
            }
        }
        nodes[k++] = (node){arena_strndup(&m->a, mem->key, mem->keylen), mem->keylen, v};
    }
    if (rc == 0) {
        /* parents: roots numbered in file order */
        strmap pmap;
        strmap_init(&pmap, k * 2 + 8);
        parent_of *parents = xcalloc(k ? k : 1, sizeof *parents);
        size_t np = 0;
        long long c = 0;
        for (size_t i = 0; i < k; i++) {
            const node *x = &nodes[i];
            parent_of p;
            if (x->value->type == J_NULL) {
                if (has(x->key, x->len, ".backward"))
                    p = (parent_of){P_NONE, 0, NULL};
                else if (starts(x->key, x->len, "Module") || starts(x->key, x->len, "Cell") ||
                         starts(x->key, x->len, "optimizer"))
                    p = (parent_of){P_ROOT, c++, NULL};
                else
                    continue;
            } else {
                p = (parent_of){P_PARENT, 0, x->value};
            }
            int added;
            size_t *slot = strmap_put(&pmap, x->key, x->len, np, &added);
            if (added)
                parents[np++] = p;
            else
                parents[*slot] = p;   /* keys are unique in a dict anyway */
        }
        const char **keys = xcalloc(k ? k : 1, sizeof *keys);
        size_t *lens = xcalloc(k ? k : 1, sizeof *lens);
        m->micro = xcalloc(k ? k : 1, sizeof *m->micro);
        m->renamed = xcalloc(k ? k : 1, sizeof *m->renamed);
        m->renamed_len = xcalloc(k ? k : 1, sizeof *m->renamed_len);
        long long maxv = 0;
        for (size_t i = 0; i < k; i++) {
            long long micro;
            if (!find_root(&pmap, parents, np, nodes[i].key, nodes[i].len, &micro))
                continue;
            keys[m->n] = nodes[i].key;
            lens[m->n] = nodes[i].len;
            m->micro[m->n] = micro;
            if (m->n == 0 || micro > maxv)
                maxv = micro;
            int added;
            strmap_put(&m->index, nodes[i].key, nodes[i].len, m->n, &added);
            m->n++;
        }
        m->count = m->n ? maxv + 1 : 1;
        renumber(m, keys, lens);
        free(keys);
        free(lens);
        free(parents);
        strmap_free(&pmap);
    }
    free(nodes);
    arena_free(&parse);
    file_unmap(&f);
    return rc;
}

int micro_lookup(const micro_map *m, const char *key, size_t n, const char **renamed, size_t *rlen,
                 long long *micro)
{
    size_t *slot = strmap_get(&m->index, key, n);
    if (!slot)
        return 0;
    *renamed = m->renamed[*slot];
    *rlen = m->renamed_len[*slot];
    *micro = m->micro[*slot];
    return 1;
}

void micro_free(micro_map *m)
{
    strmap_free(&m->index);
    free(m->renamed);
    free(m->renamed_len);
    free(m->micro);
    arena_free(&m->a);
    memset(m, 0, sizeof *m);
}
