/* Scopes of dump entries for the layer mapping, with the behaviour of
 * msprobe 8.1.0's core/compare/layer_mapping/{data_scope_parser,
 * postprocess_pass}.py and one fix (spec §14 #13): a stack.json in the
 * de-duplicated layout of msprobe >= 1.3 is read like the old one (lib/stack
 * converts it), where 8.1.0 finds no stack in it and so places every API
 * without the framework function that called it. */
#include "model/layer_scope.h"
#include "base/err.h"
#include "base/mem.h"
#include "format/json.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int eq(const char *s, size_t n, const char *lit) { return n == strlen(lit) && !memcmp(s, lit, n); }

static int contains(const char *s, size_t n, const char *lit) { return memmem(s, n, lit, strlen(lit)) != NULL; }

/* The i-th '.'-separated part of s counted from the end (1 = last). */
static const char *tail_part(const char *s, size_t len, int i, size_t *plen)
{
    size_t end = len;
    for (;;) {
        size_t b = end;
        while (b > 0 && s[b - 1] != '.')
            b--;
        if (--i == 0) {
            *plen = end - b;
            return s + b;
        }
        end = b - 1;
    }
}

/* Length of '.'.join(s.split('.')[:-k]): up to the k-th dot from the end. */
static size_t drop_tail(const char *s, size_t len, int k)
{
    for (size_t i = len; i-- > 0;)
        if (s[i] == '.' && --k == 0)
            return i;
    return 0;
}

/* Python's str.isspace() for the UTF-8 character at p: its length, or 0. */
static size_t py_space(const unsigned char *p, const unsigned char *end)
{
    if (*p == ' ' || (*p >= 0x09 && *p <= 0x0D) || (*p >= 0x1C && *p <= 0x1F))
        return 1;
    if (end - p >= 2 && p[0] == 0xC2 && (p[1] == 0x85 || p[1] == 0xA0))
        return 2;
    if (end - p >= 3) {
        unsigned v = (unsigned)(p[0] & 0x0F) << 12 | (unsigned)(p[1] & 0x3F) << 6 | (p[2] & 0x3F);
        if ((p[0] & 0xF0) == 0xE0 && (v == 0x1680 || (v >= 0x2000 && v <= 0x200A) || v == 0x2028 || v == 0x2029 ||
                                      v == 0x202F || v == 0x205F || v == 0x3000))
            return 3;
    }
    return 0;
}

/* ---- scopes of the entries --------------------------------------------- */

/* The framework function an API was called from: in the part of the stack
 * between the last "Template" line (the API wrapper) and the next line of
 * model code ("construct" in MindSpore, "in forward," in PyTorch), the last
 * of the leading framework lines. A line not of the usual form
 * "File F, line N, in FUNC, ..." gives none (msprobe 8.1.0 fails on it). */
static const char *frame_func(const jval *lines, int framework, arena *m)
{
    long start = -1;
    uint32_t end = lines->len;
    for (uint32_t i = 0; i < lines->len; i++) {
        const jval *l = &lines->u.items[i];
        if (contains(l->u.str, l->len, "Template"))
            start = (long)i;
        else if (start >= 0 && (framework == 'm' ? contains(l->u.str, l->len, "construct")
                                                 : contains(l->u.str, l->len, "in forward,") ||
                                                       contains(l->u.str, l->len, "in backward,"))) {
            end = i;
            break;
        }
    }
    static const char *const frame_files[] = {"site-packages/torch", "package/torch", "site-packages/mindspore",
                                              "package/mindspore"};
    const jval *frame = NULL;
    for (uint32_t i = (uint32_t)(start + 1); i < end; i++) {
        const jval *l = &lines->u.items[i];
        const char *comma = memchr(l->u.str, ',', l->len);
        size_t flen = comma ? (size_t)(comma - l->u.str) : l->len;
        int fw = 0;
        for (int k = 0; k < 4 && !fw; k++)
            fw = contains(l->u.str, flen, frame_files[k]);
        if (!fw)
            break;
        frame = l;
    }
    if (!frame || frame->len == 0)
        return NULL;
    const char *s = frame->u.str, *end_s = s + frame->len;
    const char *c1 = memchr(s, ',', frame->len);
    if (contains(s, c1 ? (size_t)(c1 - s) : frame->len, "msprobe") ||
        contains(s, c1 ? (size_t)(c1 - s) : frame->len, "MindSpeed") || !c1)
        return NULL;
    const char *f = memchr(c1 + 1, ',', (size_t)(end_s - c1 - 1));
    if (!f)
        return NULL;
    f++;
    const char *c3 = memchr(f, ',', (size_t)(end_s - f));
    const char *fe = c3 ? c3 : end_s;
    if (contains(f, (size_t)(fe - f), "construct") || contains(f, (size_t)(fe - f), "__call__"))
        return NULL;
    /* the second whitespace-separated word of " in FUNC" */
    const unsigned char *p = (const unsigned char *)f, *e = (const unsigned char *)fe;
    for (int word = 0; p < e; word++) {
        size_t w;
        while (p < e && (w = py_space(p, e)) != 0)
            p += w;
        const unsigned char *b = p;
        while (p < e && py_space(p, e) == 0)
            p += lm_utf8_len(*p);
        if (p > e)
            p = e;
        if (b == p)
            break;
        if (word == 1)
            return arena_strndup(m, (const char *)b, (size_t)(p - b));
    }
    return NULL;
}

static const jval *parent_of(lm_side *sd, const char *name, int *bad)
{
    *bad = 0;
    size_t *i = strmap_get(&sd->parents, name, strlen(name));
    if (!i)
        return NULL;
    const jval *v = &sd->construct.u.members[*i].val;
    if (v->type == J_NULL)
        return NULL;
    if (v->type != J_STRING) {
        *bad = 1;
        err_input(sd->construct_path, "the parent of %s is not a string (an entry name or \"\")", name);
        return NULL;
    }
    return v;
}

static int build_item(lm_side *sd, size_t k, arena *m)
{
    lm_item *it = &sd->items[k];
    const char *name = sd->d->entries[k].name;
    size_t len = strlen(name);
    it->name = name;
    if (lm_count_dots(name, len) < 3)
        return err_input(sd->d->path,
                         "layer mapping: the dump data does not comply with the format specification and must "
                         "contain no less than four fields. The current data is %s",
                         name);
    size_t l1, l2, l3, l4;
    const char *p1 = tail_part(name, len, 1, &l1), *p2 = tail_part(name, len, 2, &l2);
    const char *p3 = tail_part(name, len, 3, &l3), *p4 = tail_part(name, len, 4, &l4);
    int bad;
    const jval *parent = parent_of(sd, name, &bad);
    if (bad)
        return -1;
    const char *layer = LM_TOP_LAYER;
    size_t layer_len = strlen(LM_TOP_LAYER);
    int is_layer = 0;
    it->type_name = arena_strndup(m, p3, l3);
    if (eq(p1, l1, "parameters_grad")) {
        it->api_type = "parameters_grad";
        it->api_name = it->type_name;
        it->type_name = arena_strndup(m, p2, l2);
        it->state = "parameters_grad";
        layer = name;
        layer_len = drop_tail(name, len, 3);
    } else {
        it->api_type = arena_strndup(m, name, strcspn(name, "."));
        is_layer = !strcmp(it->api_type, "Cell") || !strcmp(it->api_type, "Module");
        if (is_layer) {
            it->api_name = arena_strndup(m, p4, l4);
            it->state = arena_strndup(m, p2, l2);
            layer = name;
            layer_len = drop_tail(name, len, 4);
        } else {
            it->api_name = it->type_name;
            it->state = arena_strndup(m, p1, l1);
            if (parent && parent->len) {
                layer = parent->u.str;
                layer_len = drop_tail(parent->u.str, parent->len, 3);
            }
        }
    }
    if (parent && memchr(parent->u.str, '.', parent->len) && lm_count_dots(parent->u.str, parent->len) < 3)
        return err_input(sd->construct_path,
                         "the construct data does not comply with the format specification and must contain no "
                         "less than four fields. The current data is %.*s (parent of %s)",
                         (int)parent->len, parent->u.str, name);

    const char *frame = NULL;
    const stack_info *si = NULL;
    if (!is_layer && strcmp(it->api_type, "Primitive") != 0 && strcmp(it->api_type, "Jit") != 0 && sd->have_stack)
        si = stack_find(&sd->stack, name);
    if (si && json_truthy(si->value)) {
        int ok = si->value->type == J_ARRAY;
        for (uint32_t i = 0; ok && i < si->value->len; i++)
            ok = si->value->u.items[i].type == J_STRING;
        if (!ok)
            return err_input(sd->stack_path, "stack is invalid, it should be a list[str], for %s", name);
        frame = frame_func(si->value, sd->framework, m);
    }
    it->layer = arena_strndup(m, layer, layer_len);
    strbuf sb = STRBUF_INIT;
    sb_add(&sb, layer, layer_len);
    if (frame) {
        sb_addc(&sb, '.');
        sb_adds(&sb, frame);
    }
    sb_addc(&sb, '.');
    sb_adds(&sb, it->api_name);
    it->full = arena_strndup(m, sb.buf, sb.len);
    sb_free(&sb);
    return 0;
}

static void replace_all(strbuf *sb, const char *s, size_t n, const char *old, const char *new)
{
    size_t ol = strlen(old);
    const char *end = s + n;
    for (const char *q; (q = memmem(s, (size_t)(end - s), old, ol)) != NULL; s = q + ol) {
        sb_add(sb, s, (size_t)(q - s));
        sb_adds(sb, new);
    }
    sb_add(sb, s, (size_t)(end - s));
}

/* A backward entry has no stack of its own: it takes the scopes of its
 * forward entry. */
static void backward_pass(lm_side *sd)
{
    strbuf fw = STRBUF_INIT;
    for (size_t k = 0; k < sd->n; k++) {
        lm_item *it = &sd->items[k];
        size_t len = strlen(it->name), l1, l2;
        const char *p1 = tail_part(it->name, len, 1, &l1), *p2 = tail_part(it->name, len, 2, &l2);
        if (!eq(p1, l1, "backward") && !eq(p2, l2, "backward"))
            continue;
        sb_reset(&fw);
        sb_add(&fw, it->name, (size_t)(p2 - it->name));
        replace_all(&fw, p2, l2, "backward", "forward");
        sb_addc(&fw, '.');
        replace_all(&fw, p1, l1, "backward", "forward");
        size_t *f = strmap_get(&sd->by_name, fw.buf, fw.len);
        if (f) {
            it->full = sd->items[*f].full;
            it->layer = sd->items[*f].layer;
        }
    }
    sb_free(&fw);
}

/* ---- pipeline-parallel layer numbers ------------------------------------ */

/* The group of msprobe's regex ^{prefix}\.(\S+?)(?:\.|$) on s: the shortest
 * run of non-space characters after "prefix." that ends at a '.' or at the
 * end (Python's $ also matches before a final newline). */
static int next_item(const char *s, size_t slen, const char *prefix, size_t plen, size_t *b, size_t *e)
{
    if (slen <= plen || memcmp(s, prefix, plen) != 0 || s[plen] != '.')
        return 0;
    const unsigned char *u = (const unsigned char *)s;
    size_t i = plen + 1;
    while (i < slen) {
        if (py_space(u + i, u + slen))
            return 0;
        i += lm_utf8_len(u[i]);
        if (i >= slen || s[i] == '.' || (s[i] == '\n' && i + 1 == slen)) {
            *b = plen + 1;
            *e = i < slen ? i : slen;
            return 1;
        }
    }
    return 0;
}

/* The last run of digits in s[b..e) as a decimal without leading zeros;
 * 0 when there is none (msprobe: infinity). */
static int last_number(const char *s, size_t b, size_t e, const char **num, size_t *len)
{
    size_t j = e;
    while (j > b && !(s[j - 1] >= '0' && s[j - 1] <= '9'))
        j--;
    if (j == b)
        return 0;
    size_t i = j;
    while (i > b && s[i - 1] >= '0' && s[i - 1] <= '9')
        i--;
    while (i + 1 < j && s[i] == '0')
        i++;
    *num = s + i;
    *len = j - i;
    return 1;
}

static int dec_cmp(const char *a, size_t al, const char *b, size_t bl)
{
    if (al != bl)
        return al < bl ? -1 : 1;
    return memcmp(a, b, al);
}

/* a - b (both non-negative decimals without leading zeros), as Python
 * prints the int. */
static void dec_sub(strbuf *out, const char *a, size_t al, const char *b, size_t bl)
{
    int neg = dec_cmp(a, al, b, bl) < 0;
    if (neg) {
        const char *t = a;
        a = b;
        b = t;
        size_t tl = al;
        al = bl;
        bl = tl;
    }
    char *d = xmalloc(al + 1);
    int borrow = 0;
    for (size_t i = 0; i < al; i++) {
        int x = a[al - 1 - i] - '0' - borrow - (i < bl ? b[bl - 1 - i] - '0' : 0);
        borrow = x < 0;
        d[al - 1 - i] = (char)('0' + (x + 10) % 10);
    }
    size_t z = 0;
    while (z + 1 < al && d[z] == '0')
        z++;
    if (neg)
        sb_addc(out, '-');
    sb_add(out, d + z, al - z);
    free(d);
}

/* msprobe renumbers the `layers` under every ParallelTransformer so that
 * the smallest index is 0: MindSpore numbers them across pipeline stages,
 * PyTorch within a stage. Followed to the letter, including what the
 * reference does with a layer without a number (it becomes "nan"). */
static void renumber_pass(lm_side *sd, arena *m)
{
    typedef struct {
        const char *prefix;
        size_t len;
        const char *min;     /* NULL: infinity */
        size_t min_len;
    } group;
    group *g = NULL;
    size_t ng = 0, capg = 0;
    strmap seen = {0};
    for (size_t k = 0; k < sd->n; k++) {
        if (strcmp(sd->items[k].type_name, "ParallelTransformer") != 0)
            continue;
        const char *full = sd->items[k].full;
        char *p = lm_cat(m, full, strlen(full), ".layers", 7);
        int added;
        strmap_put(&seen, p, strlen(p), ng, &added);
        if (!added)
            continue;
        GROW(g, capg, ng + 1);
        g[ng++] = (group){p, strlen(p), NULL, 0};
    }
    strmap_free(&seen);
    for (size_t j = 0; j < ng; j++)
        for (size_t k = 0; k < sd->n; k++) {
            const char *full = sd->items[k].full, *num;
            size_t b, e, nl;
            if (next_item(full, strlen(full), g[j].prefix, g[j].len, &b, &e) && last_number(full, b, e, &num, &nl) &&
                (!g[j].min || dec_cmp(num, nl, g[j].min, g[j].min_len) < 0)) {
                g[j].min = num;
                g[j].min_len = nl;
            }
        }
    strbuf sb = STRBUF_INIT;
    for (size_t j = 0; j < ng; j++)
        for (size_t k = 0; k < sd->n; k++) {
            const char *full = sd->items[k].full, *num;
            size_t flen = strlen(full), b, e, nl;
            if (!next_item(full, flen, g[j].prefix, g[j].len, &b, &e))
                continue;
            int finite = last_number(full, b, e, &num, &nl);
            if (finite != (g[j].min != NULL))
                continue;   /* inf - finite or finite - inf: left alone */
            sb_reset(&sb);
            sb_add(&sb, g[j].prefix, g[j].len);
            sb_addc(&sb, '.');
            if (finite)
                dec_sub(&sb, num, nl, g[j].min, g[j].min_len);
            else
                sb_adds(&sb, "nan");   /* inf - inf */
            sb_add(&sb, full + e, flen - e);
            sd->items[k].full = arena_strndup(m, sb.buf, sb.len);
        }
    sb_free(&sb);
    free(g);
}

/* ---- the two sides -------------------------------------------------------- */

void lm_side_free(lm_side *sd)
{
    if (sd->have_stack)
        stack_free(&sd->stack);
    if (sd->have_cfile)
        file_unmap(&sd->cfile);
    strmap_free(&sd->parents);
    strmap_free(&sd->by_name);
    strmap_free(&sd->node);
    free(sd->items);
    free(sd->stack_path);
    free(sd->construct_path);
}

static int need_file(const char *path, const char *json)
{
    if (path_kind(path) == PATH_MISSING)
        return err_input(path, "not found: the layer mapping (-lm) reads stack.json and construct.json beside %s",
                         json);
    return 0;
}

const char *lm_node_path(const char *full, size_t *len)
{
    const char *p = strchr(full, '.');
    p = p ? p : full + strlen(full);
    *len = strlen(p);
    return p;
}

/* Place the items in the tree: their ordinal among the items of the same
 * node and state; the target remembers the last item of each node (its
 * class), the bench each (node, state, ordinal). */
static void place_items(lm_side *sd, int bench, arena *m)
{
    strmap count = {0};
    strmap_init(&count, sd->n);
    strmap_init(&sd->node, sd->n);
    char num[24];
    for (size_t k = 0; k < sd->n; k++) {
        lm_item *it = &sd->items[k];
        size_t pl, sl = strlen(it->state);
        const char *path = lm_node_path(it->full, &pl);
        char *key = lm_cat(m, path, pl + 1, it->state, sl);   /* "path\0state" */
        int added;
        size_t *c = strmap_put(&count, key, pl + 1 + sl, 0, &added);
        it->ordinal = (*c)++;
        if (!bench) {
            *strmap_put(&sd->node, path, pl, k, &added) = k;
        } else {
            int nn = snprintf(num, sizeof num, "%c%zu", 0, it->ordinal);
            char *full_key = lm_cat(m, key, pl + 1 + sl, num, (size_t)nn);
            strmap_put(&sd->node, full_key, pl + 1 + sl + (size_t)nn, k, &added);
        }
    }
    strmap_free(&count);
}

int lm_side_load(lm_side *sd, const dump_data *d, int bench, arena *m)
{
    memset(sd, 0, sizeof *sd);
    sd->d = d;
    sd->framework = dump_framework(d);
    if (!sd->framework)
        return err_input(d->path, "must be based on the MindSpore or PyTorch framework (layer mapping).");
    char *dir = path_dirname(d->path);
    sd->stack_path = path_join(dir, "stack.json");
    sd->construct_path = path_join(dir, "construct.json");
    free(dir);
    if (need_file(sd->stack_path, d->path) != 0)
        return -1;
    sd->have_stack = 1;
    if (stack_load(sd->stack_path, &sd->stack) != 0 || need_file(sd->construct_path, d->path) != 0 ||
        file_load(sd->construct_path, 0, &sd->cfile) != 0)
        return -1;
    sd->have_cfile = 1;
    if (json_parse(sd->construct_path, sd->cfile.data, sd->cfile.size, m, &sd->construct) != 0)
        return -1;
    /* msprobe builds nothing when either file is empty ({}, or a false
     * value in construct.json) */
    if (sd->stack.root.len == 0 || !json_truthy(&sd->construct))
        return 0;
    if (sd->construct.type != J_OBJECT)
        return err_input(sd->construct_path, "is not a JSON object of entry name: parent entry name");
    strmap_init(&sd->parents, sd->construct.len);
    for (uint32_t i = 0; i < sd->construct.len; i++) {
        const jmember *mb = &sd->construct.u.members[i];
        int added;
        *strmap_put(&sd->parents, mb->key, mb->keylen, i, &added) = i;   /* the last duplicate wins */
    }
    sd->n = d->nentries;
    sd->items = xcalloc(sd->n ? sd->n : 1, sizeof *sd->items);
    strmap_init(&sd->by_name, sd->n);
    for (size_t k = 0; k < sd->n; k++) {
        if (build_item(sd, k, m) != 0)
            return -1;
        strmap_put(&sd->by_name, sd->items[k].name, strlen(sd->items[k].name), k, NULL);
    }
    backward_pass(sd);
    renumber_pass(sd, m);
    place_items(sd, bench, m);
    return 0;
}

