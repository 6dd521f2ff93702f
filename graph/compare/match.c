/* Comparing two graphs (spec §5): the mode from the two dumps, the NPU tree
 * walked breadth-first and each node matched with a Bench node (by name and
 * structure, by the layer mapping, or fuzzily), the rows of every matched
 * pair compared, and the precision index of each compared NPU node. */
#include "graph/compare/match.h"
#include "graph/compare/layermap.h"
#include "graph/compare/rows.h"
#include "graph/compare/tensors.h"
#include "graph/model/items.h"
#include "base/err.h"
#include "base/log.h"
#include "base/mem.h"
#include "py/pyeq.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int gcompare_task(const rankdata *n, const rankdata *b, int *task)
{
    if (!n->task_truthy || !b->task_truthy)
        return err_input(n->task_truthy ? b->dump_path : n->dump_path,
                         "has no dump task; please check the dump task is correct, npu's task is %s, bench's task "
                         "is %s",
                         n->task ? n->task : "None", b->task ? b->task : "None");
    if (!n->task || !b->task || strcmp(n->task, b->task) != 0)
        return err_input(b->dump_path, "Please check the dump task is consistent (npu: %s, bench: %s).",
                         n->task ? n->task : "?", b->task ? b->task : "?");
    if (!strcmp(n->task, "tensor")) {
        *task = TASK_REAL;
    } else if (!strcmp(n->task, "structure")) {
        *task = TASK_STRUCTURE;
    } else if (!strcmp(n->task, "statistics")) {
        if (n->has_md5 != b->has_md5)
            return err_input(n->has_md5 ? b->dump_path : n->dump_path,
                             "Please check the dump task is consistent, dump mode of npu and bench should both be "
                             "statistics or md5.");
        *task = n->has_md5 ? TASK_MD5 : TASK_SUMMARY;
    } else {
        return err_input(n->dump_path, "Compare applies only to task is tensor or statistics (the task is %s)",
                         n->task);
    }
    return 0;
}

/* ---- structure of two nodes (§5.3) ----------------------------------------- */

/* An item's "type" and "shape" as the item dict holds them: the leaf's,
 * or for a leaf without dtype the shape gen_op_item made (a string). */
static const jval *item_field(const gitems *it, const gitem *g, int shape, jval *tmp)
{
    static const jval none = {.type = J_NULL};
    if (!g->leaf)
        return &none;
    if (!shape) {
        const jval *t = json_get(g->leaf, "type");
        return t ? t : &none;
    }
    if (!json_truthy(json_get(g->leaf, "dtype"))) {
        const dump_row *r = gitem_row(it, g);
        tmp->type = J_STRING;
        tmp->u.str = r->shape;
        tmp->len = (uint32_t)strlen(r->shape);
        return tmp;
    }
    const jval *s = json_get(g->leaf, "shape");
    return s ? s : &none;
}

static int field_eq(const gitems *a, const gitem *ga, const gitems *b, const gitem *gb, int shape)
{
    jval ta, tb;
    const jval *x = item_field(a, ga, shape, &ta), *y = item_field(b, gb, shape, &tb);
    /* None == None */
    if (x->type == J_NULL && y->type == J_NULL)
        return 1;
    return py_json_equal(x, y);
}

/* compare_data(): same count, and type and shape equal by position */
static int same_structure(const gitems *a, const gitems *b)
{
    if (a->nin != b->nin || a->nout != b->nout)
        return 0;
    for (size_t k = 0; k < a->nin; k++)
        if (!field_eq(a, &a->in[k], b, &b->in[k], 0) || !field_eq(a, &a->in[k], b, &b->in[k], 1))
            return 0;
    for (size_t k = 0; k < a->nout; k++)
        if (!field_eq(a, &a->out[k], b, &b->out[k], 0) || !field_eq(a, &a->out[k], b, &b->out[k], 1))
            return 0;
    return 1;
}

/* compare_data_fuzzy(): shapes equal by position, to the shorter list */
static int same_shapes(const gitems *a, const gitems *b)
{
    for (size_t k = 0; k < a->nin && k < b->nin; k++)
        if (!field_eq(a, &a->in[k], b, &b->in[k], 1))
            return 0;
    for (size_t k = 0; k < a->nout && k < b->nout; k++)
        if (!field_eq(a, &a->out[k], b, &b->out[k], 1))
            return 0;
    return 1;
}

/* Are the ancestors of n (in graph N) and b (in B) the same ids? */
static int same_ancestors(const graph *N, long n, const graph *B, long b)
{
    long p = N->nodes[n].up, q = B->nodes[b].up;
    size_t steps = 0;
    while (p >= 0 && q >= 0) {
        const gnode *x = &N->nodes[p], *y = &B->nodes[q];
        if (x->idlen != y->idlen || memcmp(x->id, y->id, x->idlen) != 0)
            return 0;
        p = x->up;
        q = y->up;
        /* a cycle: msprobe finds no ancestors on either side */
        if (++steps > N->n + B->n)
            return 1;
    }
    return p < 0 && q < 0;
}

/* ---- the walk ------------------------------------------------------------ */

typedef struct {
    gcompare *c;
    gitems ni, bi;
} walker;

static int read_pair(walker *w, long n, long b)
{
    if (gitems_read(&w->ni, w->c->n->rd, w->c->n->nodes[n].entry) != 0)
        return -1;
    return gitems_read(&w->bi, w->c->b->rd, w->c->b->nodes[b].entry);
}

/* A matched pair: their rows compared, the NPU node's index set. */
static int compared(walker *w, long n, long b)
{
    gcompare *c = w->c;
    c->n->nodes[n].cmp_with = (int32_t)b;
    return gcompare_rows(c, n, &w->ni, &w->bi);
}

static void cross_links(gcompare *c, long n, long b)
{
    c->n->nodes[n].link_side = 2;
    c->n->nodes[n].link_node = (int32_t)b;
    c->b->nodes[b].link_side = 1;
    c->b->nodes[b].link_node = (int32_t)n;
}

static int visit_default(walker *w, long n)
{
    gcompare *c = w->c;
    const gnode *nd = &c->n->nodes[n];
    long b;
    if (c->mapping) {
        const char *to = nd->id;
        size_t tl = nd->idlen;
        if (nd->entry >= 0) {
            to = c->mapping[nd->entry];
            tl = to ? strlen(to) : 0;
        }
        b = to ? graph_find(c->b, to, tl) : -1;
        if (b < 0)
            return 0;
        cross_links(c, n, b);
    } else {
        b = graph_find(c->b, nd->id, nd->idlen);
        if (b < 0)
            return 0;
        if (read_pair(w, n, b) != 0)
            return -1;
        /* the newest msprobe no longer asks for the same items */
        if ((!graph_newest_rules(c->o) && !same_structure(&w->ni, &w->bi)) || !same_ancestors(c->n, n, c->b, b))
            return 0;
        c->n->nodes[n].link_side = 1;
        c->n->nodes[n].link_node = (int32_t)n;
        c->b->nodes[b].link_side = 1;
        c->b->nodes[b].link_node = (int32_t)n;
        return compared(w, n, b);
    }
    if (read_pair(w, n, b) != 0)
        return -1;
    return compared(w, n, b);
}

/* "Torch.matmul.2.forward" -> "Torch.matmul.forward": every
 * non-overlapping ".<digits>." becomes "." */
static void drop_counters(strbuf *sb, const char *s, size_t n)
{
    sb_reset(sb);
    for (size_t i = 0; i < n;) {
        if (s[i] == '.') {
            size_t j = i + 1;
            while (j < n && s[j] >= '0' && s[j] <= '9')
                j++;
            if (j > i + 1 && j < n && s[j] == '.') {
                sb_addc(sb, '.');
                i = j + 1;
                continue;
            }
        }
        sb_addc(sb, s[i++]);
    }
}

/* _recount_api_node(): the API children of a node keyed by their name
 * without call counters and their place among the children of that name;
 * keys[k] for child k (NULL: not an API), and the map key -> child. */
static void recount(const graph *g, long node, const char **keys, strmap *map, arena *a)
{
    strmap counts;
    strmap_init(&counts, 16);
    strbuf t = STRBUF_INIT;
    const gnode *nd = &g->nodes[node];
    for (uint32_t k = 0; k < nd->nsub; k++) {
        const gnode *s = &g->nodes[nd->sub[k]];
        if (keys)
            keys[k] = NULL;
        if (s->op != GOP_API)
            continue;
        drop_counters(&t, s->id, s->idlen);
        char *base = arena_strndup(a, t.buf ? t.buf : "", t.len);
        int added;
        size_t *cnt = strmap_put(&counts, base, t.len, 0, &added);
        (*cnt)++;
        sb_addf(&t, "%zu", *cnt);
        char *kk = arena_strndup(a, t.buf, t.len);
        if (keys)
            keys[k] = kk;
        if (map)
            *strmap_put(map, kk, t.len, nd->sub[k], &added) = nd->sub[k];
    }
    sb_free(&t);
    strmap_free(&counts);
}

static int visit_fuzzy(walker *w, long n)
{
    gcompare *c = w->c;
    const gnode *nd = &c->n->nodes[n];
    /* the newest msprobe matches fuzzily by name and order alone */
    int newest = graph_newest_rules(c->o);
    if (nd->op == GOP_API)
        return 0;
    long b = graph_find(c->b, nd->id, nd->idlen);
    if (b < 0)
        return 0;
    if (read_pair(w, n, b) != 0)
        return -1;
    if (!newest && !same_shapes(&w->ni, &w->bi))
        return 0;
    cross_links(c, n, b);
    if (compared(w, n, b) != 0)
        return -1;
    arena a;
    arena_init(&a, 1 << 12);
    strmap kb;
    strmap_init(&kb, 16);
    const gnode *np = &c->n->nodes[n];
    const char **keys = xmalloc_array(np->nsub + 1, sizeof *keys);
    recount(c->n, n, keys, NULL, &a);
    recount(c->b, b, NULL, &kb, &a);
    int rc = 0;
    /* the NPU's API children in order, each with the Bench child of its key */
    for (uint32_t k = 0; k < np->nsub && rc == 0; k++) {
        if (!keys[k])
            continue;
        long an = np->sub[k];
        const size_t *v = strmap_get(&kb, keys[k], strlen(keys[k]));
        if (!v)
            continue;
        long ab = (long)*v;
        if ((rc = read_pair(w, an, ab)) != 0)
            break;
        if (!newest && !same_shapes(&w->ni, &w->bi))
            continue;
        cross_links(c, an, ab);
        rc = compared(w, an, ab);
    }
    free(keys);
    strmap_free(&kb);
    arena_free(&a);
    return rc;
}

/* §5.6: a root-level collection's index from its APIs' (md5: the worst is
 * 0, else 1) */
static void collections(gcompare *c)
{
    graph *g = c->n;
    const gnode *root = &g->nodes[0];
    int md5 = c->task == TASK_MD5;
    for (uint32_t k = 0; k < root->nsub; k++) {
        gnode *col = &g->nodes[root->sub[k]];
        if (col->op != GOP_COLLECTION)
            continue;
        double v = md5 ? 1 : 0;
        int kind = PX_INT;
        for (uint32_t j = 0; j < col->nsub; j++) {
            const gnode *a = &g->nodes[col->sub[j]];
            double x = a->px_kind ? a->px : (md5 ? 1 : 0);
            int xk = a->px_kind ? a->px_kind : PX_INT;
            /* Python's min()/max(): the current value unless the other is smaller/greater */
            if (md5 ? x < v : x > v) {
                v = x;
                kind = xk;
            }
        }
        col->px = v;
        col->px_kind = (uint8_t)kind;
    }
}

int gcompare_run(gcompare *c)
{
    walker w = {.c = c};
    gitems_init(&w.ni);
    gitems_init(&w.bi);
    graph *N = c->n;
    int32_t *queue = xmalloc_array(N->n + 1, sizeof *queue);
    size_t head = 0, tail = 0;
    queue[tail++] = 0;
    int rc = 0;
    file_guard gn, gb;
    file_guard_begin(&gn, &N->rd->dump);
    file_guard_begin(&gb, &c->b->rd->dump);
    while (head < tail && rc == 0) {
        long n = queue[head++];
        /* a node is visited once even in a malformed tree */
        if (N->nodes[n].visited)
            continue;
        N->nodes[n].visited = 1;
        rc = c->o->fuzzy ? visit_fuzzy(&w, n) : visit_default(&w, n);
        const gnode *nd = &N->nodes[n];
        for (uint32_t k = 0; k < nd->nsub; k++)
            if (tail < N->n + 1)
                queue[tail++] = (int32_t)nd->sub[k];
    }
    if (file_guard_end(&gb) != 0)
        rc = -1;
    if (file_guard_end(&gn) != 0)
        rc = -1;
    free(queue);
    gitems_free(&w.ni);
    gitems_free(&w.bi);
    if (rc != 0)
        return -1;
    if (c->task == TASK_REAL) {
        /* the collections once their APIs have their indexes (spec §10 #1:
         * msprobe sets them before, so they are all 0) */
        if (gtensor_metrics(c) != 0 || gtensor_indexes(c) != 0)
            return -1;
    }
    collections(c);
    return 0;
}

void gcompare_free(gcompare *c)
{
    free(c->node_items);
    free(c->item_cells);
    free(c->cells);
    sb_free(&c->cell_text);
    free(c->tensors);
    free(c->queued);
    strmap_free(&c->tensor_by_name);
    arena_free(&c->mem);
}

int gcompare_setup(gcompare *c)
{
    strmap_init(&c->tensor_by_name, 256);
    arena_init(&c->mem, 1 << 16);
    const rankdata *n = c->n->rd, *b = c->b->rd;
    c->cross_frame = n->framework && b->framework && n->framework != b->framework;
    if (c->cross_frame && !c->o->layer_mapping)
        return err_input(b->dump_path, "is a %s dump and %s a %s one: The cross_frame graph comparison failed. Please "
                                       "specify -lm or --layer_mapping when performing cross_frame graph comparison.",
                         b->framework == 'm' ? "MindSpore" : "PyTorch", n->dump_path,
                         n->framework == 'm' ? "MindSpore" : "PyTorch");
    if (c->o->layer_mapping)
        return gcompare_layer_mapping(c);
    return 0;
}
