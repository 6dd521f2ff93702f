/* Building one graph from a rank (spec §4): the nodes of construct.json in
 * the order they are first named, each attached to its parent once; the
 * root-level runs of APIs grouped (§4.6); parameters_grad nodes (§4.7);
 * stacks (§4.5). */
#include "graph/model/graph.h"
#include "graph/model/newest.h"
#include "base/err.h"
#include "base/log.h"
#include "base/mem.h"
#include "py/pystr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char EMPTY_CONSTRUCT[] = "dumps without model structure";
/* msprobe's reason, in its words */
static const char NO_STRUCTURE[] = "when dumping data, select level L0 or mix in order to collect model structure "
                                   "data (the content of construct.json)";

static long add_node(graph *g, const char *id, size_t len, int op)
{
    GROW(g->nodes, g->cap, g->n + 1);
    gnode *nd = &g->nodes[g->n];
    memset(nd, 0, sizeof *nd);
    nd->id = arena_strndup(&g->mem, id, len);
    nd->idlen = (uint32_t)len;
    nd->op = (uint8_t)op;
    nd->up = -1;
    nd->link_node = -1;
    nd->cmp_with = -1;
    nd->entry = -1;
    int added;
    strmap_put(&g->by_id, nd->id, len, g->n, &added);
    return (long)g->n++;
}

static void add_child(graph *g, long parent, long child)
{
    gnode *p = &g->nodes[parent];
    GROW(p->sub, p->subcap, p->nsub + 1);
    p->sub[p->nsub++] = (uint32_t)child;
    g->nodes[child].up = (int32_t)parent;
}

/* BaseNode.add_upnode(): only once, never to itself. */
static void attach(graph *g, long node, long parent)
{
    if (parent < 0 || node == parent || g->nodes[node].up >= 0)
        return;
    add_child(g, parent, node);
}

/* ---- stacks (§4.5) ------------------------------------------------------- */

static int is_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static int is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* \b([A-Z][a-zA-Z]*Template|api_template)\( somewhere in s */
static int has_template_call(const char *s, size_t n)
{
    for (size_t q = 0; q + 9 <= n; q++) {
        if (!memcmp(s + q, "Template(", 9)) {
            size_t r = q;
            while (r > 0 && is_letter(s[r - 1]))
                r--;
            if (r < q && s[r] >= 'A' && s[r] <= 'Z' && (r == 0 || !is_word(s[r - 1])))
                return 1;
        }
        if (q + 13 <= n && !memcmp(s + q, "api_template(", 13) && (q == 0 || !is_word(s[q - 1])))
            return 1;
    }
    return 0;
}

static int contains(const char *s, size_t n, const char *w, size_t wl)
{
    if (wl > n)
        return 0;
    for (size_t i = 0; i + wl <= n; i++)
        if (!memcmp(s + i, w, wl))
            return 1;
    return 0;
}

/* The line of a stack list msprobe keeps (-1: all of it). A module keeps the
 * first line calling it by its attribute name ("bn1(" for
 * Module.layer1.0.bn1.BatchNorm2d.forward.0; msprobe searches the name as a
 * regular expression, we search it as text: spec §10 #17); an API the line
 * after its template's call. */
static int32_t simplify(const char *name, size_t n, const jval *list)
{
    if (graph_module_name(name, n)) {
        /* parts[-4] */
        size_t dots = 0, end = n, start = 0;
        for (size_t i = n; i-- > 0;) {
            if (name[i] == '.') {
                dots++;
                if (dots == 3)
                    end = i;
                if (dots == 4) {
                    start = i + 1;
                    break;
                }
            }
        }
        if (dots < 3)
            return -1;
        char pat[512];
        size_t ml = end - start;
        if (ml + 2 > sizeof pat)
            return -1;
        memcpy(pat, name + start, ml);
        pat[ml] = '(';
        for (uint32_t i = 0; i < list->len; i++) {
            const jval *l = &list->u.items[i];
            if (l->type == J_STRING && contains(l->u.str, l->len, pat, ml + 1))
                return (int32_t)i;
        }
        return -1;
    }
    for (uint32_t i = 0; i + 1 < list->len; i++) {
        const jval *l = &list->u.items[i];
        if (l->type == J_STRING && has_template_call(l->u.str, l->len))
            return (int32_t)(i + 1);
    }
    return -1;
}

static int ends_with(const char *s, size_t n, const char *w)
{
    size_t l = strlen(w);
    return n >= l && !memcmp(s + n - l, w, l);
}

/* s with every `from` replaced by `to`, in sb */
static void replace_all(strbuf *sb, const char *s, size_t n, const char *from, const char *to)
{
    size_t fl = strlen(from);
    sb_reset(sb);
    for (size_t i = 0; i < n;) {
        if (i + fl <= n && !memcmp(s + i, from, fl)) {
            sb_adds(sb, to);
            i += fl;
        } else {
            sb_addc(sb, s[i++]);
        }
    }
    sb_str(sb);
}

/* The node's stack, checked as compare checks it (model/stack's
 * stack_get: a list, no formula-injection text): msprobe's graph takes
 * any value, and a stack.json compare refuses would draw. 0 or -1. */
static int set_stack(graph *g, long i, const graph_opts *o)
{
    gnode *nd = &g->nodes[i];
    int bad;
    const stack_info *si = stack_get(&g->rd->stack, nd->id, &bad);
    if (bad)
        return -1;
    if (si) {
        nd->stack_kind = STACK_LIST;
        nd->stack = si->value;
        nd->stack_line = si->value->type == J_ARRAY && !o->complete_stack ? simplify(nd->id, nd->idlen, si->value) : -1;
        if (json_truthy(si->value))
            return 0;
    }
    size_t pre = graph_backward_numbered(nd->id, nd->idlen);
    if (!pre && !ends_with(nd->id, nd->idlen, ".backward"))
        return 0;
    strbuf fw = STRBUF_INIT;
    if (pre) {
        sb_add(&fw, nd->id, pre);
        sb_adds(&fw, ".forward.0");
    } else {
        replace_all(&fw, nd->id, nd->idlen, "backward", "forward");
    }
    long f = graph_find(g, fw.buf, fw.len);
    sb_free(&fw);
    nd = &g->nodes[i];
    if (f >= 0) {
        nd->stack_kind = g->nodes[f].stack_kind;
        nd->stack = g->nodes[f].stack;
        nd->stack_line = g->nodes[f].stack_line;
    } else {
        nd->stack_kind = STACK_NO_FORWARD;
    }
    return 0;
}

/* ---- batch_isend_irecv (§7.4) ----------------------------------------- */

static const char *p2p_text(graph *g, const jval *v, int empty_if_not_str)
{
    if (!v || v->type == J_NULL)
        return empty_if_not_str ? "" : NULL;
    if (v->type == J_STRING)
        return arena_strndup(&g->mem, v->u.str, v->len);
    if (empty_if_not_str)
        return "";
    strbuf t = STRBUF_INIT;
    py_str_json(&t, v);
    const char *r = arena_strndup(&g->mem, t.buf ? t.buf : "", t.len);
    sb_free(&t);
    return r;
}

static int read_p2p(graph *g, long i)
{
    gnode *nd = &g->nodes[i];
    if (nd->entry < 0)
        return 0;
    const rank_entry *e = &g->rd->entries[nd->entry];
    arena a;
    arena_init(&a, 1 << 12);
    jparser jp;
    jp_init(&jp, g->rd->dump_path, g->rd->dump.data + e->off, e->len);
    jval v;
    int rc = jp_value(&jp, &a, &v);
    jp_free(&jp);
    const jval *out = rc == 0 ? json_get(&v, "output") : NULL;
    if (out && out->type == J_ARRAY && out->len && out->u.items[0].type == J_ARRAY && out->u.items[0].len) {
        const jval *list = &out->u.items[0];
        nd->p2p = arena_alloc(&g->mem, list->len * sizeof *nd->p2p);
        for (uint32_t k = 0; k < list->len; k++) {
            const jval *p = &list->u.items[k];
            if (p->type != J_OBJECT)
                continue;
            gp2p *q = &nd->p2p[nd->np2p++];
            const jval *op = json_get(p, "op");
            /* an op that is not text cannot name the pair (msprobe fails) */
            q->op = op && op->type == J_STRING ? p2p_text(g, op, 0) : NULL;
            q->peer = p2p_text(g, json_get(p, "peer"), 0);
            /* a null group_id: "" (spec §10 #5) */
            q->group_id = p2p_text(g, json_get(p, "group_id"), 1);
        }
    }
    arena_free(&a);
    return rc;
}

/* ---- nodes ----------------------------------------------------------------- */

static long get_or_create(graph *g, const char *id, size_t len, const graph_opts *o)
{
    long i = graph_find(g, id, len);
    if (i >= 0)
        return i;
    i = add_node(g, id, len, g->newest ? graph_name_op_newest(id, len) : graph_name_op(id, len));
    g->nodes[i].entry = rank_entry_of(g->rd, id, len);
    if (contains(id, len, "batch_isend_irecv", 17) && read_p2p(g, i) != 0)
        return -1;
    if (set_stack(g, i, o) != 0)
        return -1;
    return i;
}

/* Is s X.backward.N with X.forward.N a key of construct.json? */
static int backward_of_key(const strmap *keys, const char *s, size_t n, strbuf *t)
{
    size_t pre = graph_backward_numbered(s, n);
    if (!pre)
        return 0;
    sb_reset(t);
    sb_add(t, s, pre);
    sb_adds(t, ".forward.");
    sb_add(t, s + pre + 10, n - pre - 10);
    return strmap_get(keys, t->buf, t->len) != NULL;
}

/* A backward node without a parent takes the backward twin of its forward
 * twin's parent, when construct.json has it (§4.3 step 1). */
static const char *backward_parent(const rankdata *rd, const strmap *keys, const char *sub, size_t n, size_t *outlen,
                                   strbuf *t1, strbuf *t2)
{
    const jval *c = &rd->construct;
    size_t pre = graph_backward_numbered(sub, n);
    const jval *f = NULL;
    if (pre) {
        sb_reset(t1);
        sb_add(t1, sub, pre);
        sb_adds(t1, ".forward.");
        sb_add(t1, sub + pre + 10, n - pre - 10);
        const size_t *k = strmap_get(keys, t1->buf, t1->len);
        f = k ? &c->u.members[*k].val : NULL;
        if (f && f->type == J_STRING && f->len) {
            /* f's trailing .forward.<m> becomes .backward.<m> */
            size_t d = f->len;
            while (d > 0 && f->u.str[d - 1] >= '0' && f->u.str[d - 1] <= '9')
                d--;
            sb_reset(t2);
            if (d < f->len && d >= 9 && !memcmp(f->u.str + d - 9, ".forward.", 9)) {
                sb_add(t2, f->u.str, d - 9);
                sb_adds(t2, ".backward.");
                sb_add(t2, f->u.str + d, f->len - d);
            } else {
                sb_add(t2, f->u.str, f->len);
            }
            if (strmap_get(keys, t2->buf, t2->len)) {
                *outlen = t2->len;
                return sb_str(t2);
            }
        }
    }
    if (ends_with(sub, n, ".backward")) {
        replace_all(t1, sub, n, "backward", "forward");
        const size_t *k = strmap_get(keys, t1->buf, t1->len);
        f = k ? &c->u.members[*k].val : NULL;
        if (f && f->type == J_STRING && f->len) {
            replace_all(t2, f->u.str, f->len, "forward", "backward");
            if (strmap_get(keys, t2->buf, t2->len)) {
                *outlen = t2->len;
                return sb_str(t2);
            }
        }
    }
    return NULL;
}

/* §4.6: runs of two or more APIs among the root's children */
static void collect_apis(graph *g)
{
    gnode *root = &g->nodes[0];
    uint32_t n = root->nsub;
    uint32_t *old = root->sub;
    root->sub = NULL;
    root->nsub = root->subcap = 0;
    for (uint32_t i = 0; i < n;) {
        if (g->nodes[old[i]].op != GOP_API) {
            add_child(g, 0, old[i++]);
            continue;
        }
        uint32_t j = i;
        while (j < n && g->nodes[old[j]].op == GOP_API)
            j++;
        if (j - i < 2) {
            add_child(g, 0, old[i]);
        } else {
            char id[64];
            int len = snprintf(id, sizeof id, "Apis_Between_Modules.%zu", g->ncollections++);
            long c = add_node(g, id, (size_t)len, GOP_COLLECTION);
            for (uint32_t k = i; k < j; k++)
                add_child(g, c, old[k]);
            /* the micro step of its first API (the newest msprobe's, from construct.json) */
            g->nodes[c].micro = g->nodes[old[i]].micro;
            g->nodes[c].has_micro = g->nodes[old[i]].has_micro;
            add_child(g, 0, c);
        }
        i = j;
    }
    free(old);
}

/* Python's int() of a call counter: ASCII digits with an optional sign
 * and surrounding blanks; anything else is skipped (msprobe crashes,
 * spec §10 #6). */
static int parse_counter(const char *s, size_t n, long *out)
{
    while (n && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    int neg = 0;
    if (n && (*s == '+' || *s == '-')) {
        neg = *s == '-';
        s++;
        n--;
    }
    if (!n || n > 18)
        return -1;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = neg ? -v : v;
    return 0;
}

/* The module path of a parameters_grad entry, or 0 when `name` is none.
 * msprobe 8.1.0: a name ending ".parameters_grad", its path the name with
 * every ".parameters_grad" removed. The newest msprobe (counted): also
 * ".parameters_grad.N", N the call counter of the gradient hooks, its path
 * what comes before; *suffix_at is where the suffix starts. */
static int params_grad_path(const char *name, size_t n, int counted, strbuf *path, size_t *suffix_at)
{
    static const char SUF[] = ".parameters_grad";
    const size_t sl = sizeof SUF - 1;
    size_t at = n;
    if (ends_with(name, n, SUF)) {
        at = n - sl;
    } else if (counted) {
        const char *dot = memrchr(name, '.', n);
        size_t d = dot ? (size_t)(dot - name) : 0;
        int digits = dot && d + 1 < n;
        for (size_t i = d + 1; digits && i < n; i++)
            digits = name[i] >= '0' && name[i] <= '9';
        if (digits && ends_with(name, d, SUF))
            at = d - sl;
    }
    if (at == n)
        return 0;
    if (counted)
        sb_reset(path), sb_add(path, name, at);
    else
        replace_all(path, name, n, SUF, "");
    *suffix_at = at;
    return 1;
}

/* §4.7: a node per parameters_grad entry that construct.json does not
 * name, a child of its module's backward call with the largest counter
 * (none without one). 8.1.0 takes one node per module, named
 * "{path}.parameters_grad"; the newest msprobe one per entry, by its own
 * name, in the dump's order (`counted`: the .vis.db follows it). */
static void add_params_grad(graph *g, int counted)
{
    const rankdata *rd = g->rd;
    static const char SUF[] = ".parameters_grad";
    const size_t sl = sizeof SUF - 1;
    strmap prefixes;
    strmap_init(&prefixes, 16);
    const char **pre = NULL;
    size_t *plen = NULL, np = 0, cap = 0, cap2 = 0;
    long *max = NULL;
    size_t cap3 = 0;
    /* counted: the entries of each path, in dump order (first[k], next[e]) */
    long *first = NULL, *last = NULL, *next = NULL;
    size_t cap4 = 0, cap5 = 0;
    if (counted)
        next = xmalloc_array(rd->nentries + 1, sizeof *next);
    strbuf t = STRBUF_INIT;
    for (size_t e = 0; e < rd->nentries; e++) {
        const rank_entry *en = &rd->entries[e];
        size_t at;
        if (!params_grad_path(en->name, en->namelen, counted, &t, &at) ||
            graph_find(g, en->name, en->namelen) >= 0)
            continue;
        size_t *k = strmap_get(&prefixes, t.buf ? t.buf : "", t.len);
        if (!k) {
            int added;
            char *p = arena_strndup(&g->mem, t.buf ? t.buf : "", t.len);
            k = strmap_put(&prefixes, p, t.len, np, &added);
            GROW(pre, cap, np + 1);
            GROW(plen, cap2, np + 1);
            GROW(max, cap3, np + 1);
            pre[np] = p;
            plen[np] = t.len;
            max[np] = 0;
            if (counted) {
                GROW(first, cap4, np + 1);
                GROW(last, cap5, np + 1);
                first[np] = last[np] = -1;
            }
            np++;
        }
        if (counted) {
            next[e] = -1;
            if (last[*k] >= 0)
                next[last[*k]] = (long)e;
            else
                first[*k] = (long)e;
            last[*k] = (long)e;
        }
    }
    if (np) {
        for (size_t i = 0; i < g->n; i++) {
            const gnode *nd = &g->nodes[i];
            /* parts[-2] == "backward" with more than two parts */
            const char *s = nd->id;
            size_t n = nd->idlen;
            const char *lastdot = memrchr(s, '.', n);
            if (!lastdot)
                continue;
            size_t l2 = (size_t)(lastdot - s);
            const char *second = memrchr(s, '.', l2);
            if (!second || (size_t)(lastdot - second - 1) != 8 || memcmp(second + 1, "backward", 8))
                continue;
            long num;
            if (parse_counter(lastdot + 1, n - l2 - 1, &num) != 0)
                continue;
            const size_t *k = strmap_get(&prefixes, s, (size_t)(second - s));
            if (k && num > max[*k])
                max[*k] = num;
        }
        for (size_t k = 0; k < np; k++) {
            sb_reset(&t);
            sb_add(&t, pre[k], plen[k]);
            sb_addf(&t, ".backward.%ld", max[k]);
            long b = graph_find(g, t.buf, t.len);
            if (b < 0)
                continue;
            for (long e = counted ? first[k] : 0; e >= 0; e = counted ? next[e] : -1) {
                sb_reset(&t);
                if (counted)
                    sb_add(&t, rd->entries[e].name, rd->entries[e].namelen);
                else
                    sb_add(&t, pre[k], plen[k]), sb_add(&t, SUF, sl);
                if (graph_find(g, t.buf, t.len) >= 0)
                    continue;
                long pg = add_node(g, t.buf, t.len, GOP_MODULE);
                g->nodes[pg].entry = rank_entry_of(rd, t.buf, t.len);
                add_child(g, b, pg);
            }
        }
    }
    sb_free(&t);
    free(pre);
    free(plen);
    free(max);
    free(first);
    free(last);
    free(next);
    strmap_free(&prefixes);
}

/* The newest msprobe's Megatron dumps: every node of construct.json in the
 * micro step it names (a node that is no key of it: 0). */
static void construct_micro_steps(graph *g, const strmap *keys)
{
    for (size_t i = 1; i < g->n; i++) {
        gnode *nd = &g->nodes[i];
        const size_t *k = strmap_get(keys, nd->id, nd->idlen);
        nd->micro = k ? (int32_t)g->rd->construct_micro[*k] : 0;
        nd->has_micro = k ? g->rd->construct_micro_set[*k] : 1;
    }
}

/* A loop of parents (A's parent B, B's parent A): msprobe builds it and
 * its ancestor walks give up on it, so the nodes in it are neither drawn
 * nor compared. Refused, naming two of them: each node has one parent,
 * so following parents from every node, marking each walk, finds a loop
 * in one pass. 0 or -1. */
static int check_cycles(const graph *g, const char *path)
{
    uint32_t *mark = xcalloc(g->n ? g->n : 1, sizeof *mark);
    int rc = 0;
    for (size_t s = 0; s < g->n && rc == 0; s++) {
        uint32_t walk = (uint32_t)s + 1;
        for (size_t x = s;;) {
            if (mark[x]) {
                if (mark[x] == walk) {
                    const gnode *a = &g->nodes[x], *b = &g->nodes[a->up];
                    rc = b->up == (int32_t)x
                             ? err_input(path, "%s and %s are each other's parent", a->id, b->id)
                             : err_input(path, "the parents of %s lead back to it (through %s): a cycle", a->id,
                                         b->id);
                }
                break;
            }
            mark[x] = walk;
            if (g->nodes[x].up < 0)
                break;
            x = (size_t)g->nodes[x].up;
        }
    }
    free(mark);
    return rc;
}

int graph_build(graph *g, rankdata *rd, const graph_opts *o)
{
    memset(g, 0, sizeof *g);
    arena_init(&g->mem, 1 << 16);
    strmap_init(&g->by_id, rd->construct.len + 16);
    /* the newest msprobe refuses a dump without model structure (level
     * L1); 8.1.0 draws its root alone, which the user is told */
    if (rd->construct.len == 0) {
        if (o->need_construct)
            return err_input(rd->construct_path, "is empty, failed to build graph: %s", NO_STRUCTURE);
        log_warn_as(EMPTY_CONSTRUCT, "%s: is empty, the graph holds its root alone: %s", rd->construct_path,
                    NO_STRUCTURE);
    }
    g->rd = rd;
    g->micro_steps = 1;
    g->newest = graph_newest_rules(o);
    g->micro_inherit = g->newest;
    rd->p2pop_rows = g->newest;
    add_node(g, GRAPH_ROOT, strlen(GRAPH_ROOT), GOP_MODULE);
    const jval *c = &rd->construct;
    strmap keys;
    strmap_init(&keys, c->len);
    for (uint32_t i = 0; i < c->len; i++) {
        int added;
        strmap_put(&keys, c->u.members[i].key, c->u.members[i].keylen, i, &added);
    }
    strbuf t1 = STRBUF_INIT, t2 = STRBUF_INIT, unlisted = STRBUF_INIT;
    size_t nunlisted = 0;
    int rc = 0;
    file_guard guard;
    file_guard_begin(&guard, &rd->dump);
    for (uint32_t i = 0; i < c->len && rc == 0; i++) {
        const jmember *m = &c->u.members[i];
        const char *up = m->val.type == J_STRING && m->val.len ? m->val.u.str : NULL;
        size_t uplen = up ? m->val.len : 0;
        if (up && uplen == m->keylen && !memcmp(up, m->key, uplen)) {
            rc = err_input(rd->construct_path, "%.*s is its own parent", (int)(uplen < 300 ? uplen : 300), up);
            break;
        }
        /* a parent that is no key: msprobe makes it a node without a
         * parent, outside the tree; so do we, and say so -- but for the
         * backward module whose forward twin is a key, which msprobe's
         * dumps record only as a parent under torch 1.x (spec §4.3) */
        if (up && !strmap_get(&keys, up, uplen) && graph_find(g, up, uplen) < 0 &&
            !backward_of_key(&keys, up, uplen, &t1)) {
            if (nunlisted < 3)
                sb_addf(&unlisted, "%s%.*s", nunlisted ? ", " : "", (int)(uplen < 200 ? uplen : 200), up);
            nunlisted++;
        }
        if (!up)
            up = backward_parent(rd, &keys, m->key, m->keylen, &uplen, &t1, &t2);
        else if (g->newest)
            up = graph_inplace_parent(rd, &keys, m->key, m->keylen, up, uplen, &uplen, &t1, &t2);
        long parent = 0;
        if (up && (parent = get_or_create(g, up, uplen, o)) < 0)
            rc = -1;
        long node = rc == 0 ? get_or_create(g, m->key, m->keylen, o) : -1;
        if (node < 0)
            rc = -1;
        else
            attach(g, node, parent);
    }
    if (file_guard_end(&guard) != 0)
        rc = -1;
    if (rc == 0 && nunlisted)
        log_warn("%s: %zu parent%s named but not listed (%s%s): kept as nodes outside the tree, which are neither "
                 "drawn under the root nor compared, as msprobe does", rd->construct_path, nunlisted,
                 nunlisted == 1 ? " is" : "s are", sb_str(&unlisted), nunlisted > 3 ? ", ..." : "");
    sb_free(&t1);
    sb_free(&t2);
    sb_free(&unlisted);
    if (rc == 0)
        rc = check_cycles(g, rd->construct_path);
    if (rc != 0) {
        strmap_free(&keys);
        return -1;
    }
    if (g->newest) {
        if (rd->megatron)
            construct_micro_steps(g, &keys);
        graph_recompute(g);
    }
    strmap_free(&keys);
    collect_apis(g);
    add_params_grad(g, g->newest);
    return 0;
}

void graph_free(graph *g)
{
    for (size_t i = 0; i < g->n; i++) {
        free(g->nodes[i].sub);
        if (g->nodes[i].dist) {
            gdist *d = g->nodes[i].dist;
            for (uint32_t k = 0; k < d->n; k++) {
                for (uint32_t j = 0; j < d->v[k].nranks; j++)
                    free(d->v[k].rank[j]);
                free(d->v[k].rank);
                for (uint32_t j = 0; j < d->v[k].nranks; j++)
                    free(d->v[k].index[j]);
                free(d->v[k].index);
                free(d->v[k].node);
            }
            free(d->v);
            free(d);
        }
    }
    free(g->nodes);
    strmap_free(&g->by_id);
    arena_free(&g->mem);
    memset(g, 0, sizeof *g);
}
