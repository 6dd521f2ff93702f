/* The newest msprobe's builder passes that 8.1.0 lacks (graph_builder.py's
 * _handle_backward_inplace and _handle_recompute): see newest.h. */
#include "graph/model/newest.h"
#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static int ends_with(const char *s, size_t n, const char *w)
{
    size_t l = strlen(w);
    return n >= l && !memcmp(s + n - l, w, l);
}

size_t graph_backward_numbered(const char *s, size_t n)
{
    size_t d = n;
    while (d > 0 && is_digit(s[d - 1]))
        d--;
    if (d == n || d < 10 || memcmp(s + d - 10, ".backward.", 10))
        return 0;
    return d - 10;
}

/* ".forward.<digits>" at the end of s: the length before it, or (size_t)-1 */
static size_t forward_numbered(const char *s, size_t n)
{
    size_t d = n;
    while (d > 0 && is_digit(s[d - 1]))
        d--;
    if (d == n || d < 9 || memcmp(s + d - 9, ".forward.", 9))
        return (size_t)-1;
    return d - 9;
}

static size_t segments(const char *s, size_t n)
{
    size_t k = 1;
    for (size_t i = 0; i < n; i++)
        k += s[i] == '.';
    return k;
}

/* the length of '.'.join(s.split('.')[:k]) */
static size_t first_segments(const char *s, size_t n, size_t k)
{
    if (!k)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '.' && --k == 0)
            return i;
    return n;
}

/* s with its trailing ".forward.N" made ".backward.N" (re.sub of the
 * forward pattern), in sb */
static void backward_twin(strbuf *sb, const char *s, size_t n)
{
    sb_reset(sb);
    size_t pre = forward_numbered(s, n);
    if (pre == (size_t)-1) {
        sb_add(sb, s, n);
    } else {
        sb_add(sb, s, pre);
        sb_adds(sb, ".backward.");
        sb_add(sb, s + pre + 9, n - pre - 9);
    }
    sb_str(sb);
}

/* s with its trailing ".backward.N" made ".forward.N", in sb */
static void forward_twin(strbuf *sb, const char *s, size_t n, size_t pre)
{
    sb_reset(sb);
    sb_add(sb, s, pre);
    sb_adds(sb, ".forward.");
    sb_add(sb, s + pre + 10, n - pre - 10);
    sb_str(sb);
}

const char *graph_inplace_parent(const rankdata *rd, const strmap *keys, const char *sub, size_t n, const char *up,
                                 size_t uplen, size_t *outlen, strbuf *t1, strbuf *t2)
{
    *outlen = uplen;
    size_t pre = graph_backward_numbered(sub, n);
    if (!pre)
        return up;
    size_t ns = segments(sub, n), nu = segments(up, uplen);
    if (ns < 5 || nu < 4)
        return up;
    /* the module paths: the name less "Class.backward.N" */
    size_t sp = first_segments(sub, n, ns - 4), upl = first_segments(up, uplen, nu - 3);
    if (sp == upl && !memcmp(sub, up, sp))
        return up;
    forward_twin(t1, sub, n, pre);
    const size_t *k = strmap_get(keys, t1->buf, t1->len);
    if (!k)
        return up;
    const jval *f = &rd->construct.u.members[*k].val;
    if (f->type != J_STRING || !f->len) {
        /* its forward sits at the root: so does it */
        *outlen = 0;
        return NULL;
    }
    backward_twin(t2, f->u.str, f->len);
    if (!strmap_get(keys, t2->buf, t2->len))
        return up;
    *outlen = t2->len;
    return t2->buf;
}

/* ---- recomputation --------------------------------------------------------- */

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

static void strip(const char **s, size_t *n)
{
    while (*n && is_space(**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n && is_space((*s)[*n - 1]))
        (*n)--;
}

static const char *find(const char *s, size_t n, const char *w)
{
    size_t l = strlen(w);
    for (size_t i = 0; i + l <= n; i++)
        if (!memcmp(s + i, w, l))
            return s + i;
    return NULL;
}

enum { FRAME_RECOMPUTE_FN = 1, FRAME_BACKWARD = 2, FRAME_AUTOGRAD = 4 };

/* One stack line as _is_recompute_by_stack_torch() reads it: "File " taken
 * out everywhere, the file before ", line ", the function after ", in "
 * up to the next ','. -1: a line it cannot read (skipped). */
static int frame_of(const jval *line, strbuf *t)
{
    if (line->type != J_STRING)
        return -1;
    const char *s = line->u.str;
    size_t n = line->len;
    strip(&s, &n);
    sb_reset(t);
    for (size_t i = 0; i < n;) {
        if (i + 5 <= n && !memcmp(s + i, "File ", 5)) {
            i += 5;
            continue;
        }
        sb_addc(t, s[i++]);
    }
    const char *x = t->buf ? t->buf : "";
    size_t xn = t->len;
    const char *in = find(x, xn, ", in ");
    if (!in)
        return -1;
    const char *file = x, *line_at = find(x, xn, ", line ");
    size_t fn = line_at ? (size_t)(line_at - x) : xn;
    strip(&file, &fn);
    const char *func = in + 5, *comma = memchr(func, ',', xn - (size_t)(func - x));
    size_t un = comma ? (size_t)(comma - func) : xn - (size_t)(func - x);
    strip(&func, &un);
    int flags = 0;
    if (un == 12 && !memcmp(func, "recompute_fn", 12) && ends_with(file, fn, "torch/utils/checkpoint.py"))
        flags |= FRAME_RECOMPUTE_FN;
    if ((un == 8 && !memcmp(func, "backward", 8)) ||
        (un == 28 && !memcmp(func, "checkpoint_function_backward", 28) && find(file, fn, "megatron")))
        flags |= FRAME_BACKWARD;
    if (ends_with(file, fn, "torch/autograd/function.py"))
        flags |= FRAME_AUTOGRAD;
    return flags;
}

/* _is_recompute_by_stack_torch(): the forward ran in torch's recompute_fn,
 * or in a backward (Megatron's checkpoint_function_backward) that
 * torch.autograd's function.py called one or two frames up. */
static int recomputed_by_stack(const jval *stack)
{
    if (!stack || !json_truthy(stack) || (stack->type != J_ARRAY && stack->type != J_OBJECT))
        return 0;
    uint32_t n = stack->len;
    int *frames = xmalloc_array(n + 1, sizeof *frames);
    uint32_t nf = 0;
    strbuf t = STRBUF_INIT;
    for (uint32_t i = 0; i < n; i++) {
        jval key;
        const jval *line = &key;
        if (stack->type == J_ARRAY) {
            line = &stack->u.items[i];
        } else {
            /* a dict is iterated by its keys */
            key.type = J_STRING;
            key.u.str = stack->u.members[i].key;
            key.len = stack->u.members[i].keylen;
        }
        int f = frame_of(line, &t);
        if (f >= 0)
            frames[nf++] = f;
    }
    sb_free(&t);
    int hit = 0;
    for (uint32_t i = 0; i < nf && !hit; i++)
        hit = (frames[i] & FRAME_RECOMPUTE_FN) != 0;
    for (uint32_t i = 0; i < nf && !hit; i++)
        if (frames[i] & FRAME_BACKWARD)
            hit = (i + 1 < nf && (frames[i + 1] & FRAME_AUTOGRAD)) || (i + 2 < nf && (frames[i + 2] & FRAME_AUTOGRAD));
    free(frames);
    return hit;
}

static int all_digits(const char *s, size_t n)
{
    if (!n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!is_digit(s[i]))
            return 0;
    return 1;
}

/* _is_recompute_node_id(): a model's first level is named
 * Module.[N.]name.[N.]Class.forward.N; deeper names are recomputed layers. */
static int recomputed_by_name(const char *s, size_t n)
{
    size_t k = segments(s, n);
    if (k > 7)
        return 1;
    if (k < 6)
        return 0;
    const char *seg1 = memchr(s, '.', n) + 1;
    const char *end1 = memchr(seg1, '.', n - (size_t)(seg1 - s));
    if (!all_digits(seg1, (size_t)(end1 - seg1)))
        return 1;
    if (k == 6)
        return 0;
    const char *seg3 = memchr(end1 + 1, '.', n - (size_t)(end1 + 1 - s)) + 1;
    const char *end3 = memchr(seg3, '.', n - (size_t)(seg3 - s));
    return !all_digits(seg3, (size_t)(end3 - seg3));
}

/* the length of '.'.join(s.split('.')[:-2]) */
static size_t layer_prefix(const char *s, size_t n)
{
    size_t k = segments(s, n);
    return k <= 2 ? 0 : first_segments(s, n, k - 2);
}

/* The other direction's twin: the next-to-last segment "forward" becomes
 * "backward", anything else "forward". */
static void other_direction(strbuf *sb, const char *s, size_t n)
{
    size_t last = n;
    while (last > 0 && s[last - 1] != '.')
        last--;
    size_t prev = last ? last - 1 : 0;
    while (prev > 0 && s[prev - 1] != '.')
        prev--;
    sb_reset(sb);
    sb_add(sb, s, prev);
    int fwd = last - 1 - prev == 7 && !memcmp(s + prev, "forward", 7);
    sb_adds(sb, fwd ? "backward" : "forward");
    sb_add(sb, s + last - 1, n - last + 1);
    sb_str(sb);
}

typedef struct {
    uint32_t pos;             /* its place among the root's children */
    uint32_t node;
    uint32_t prefix;          /* its layer's number */
} recomputed;

/* The first forwards of a layer (modules with a parent other than the
 * root, in node order), taken one by one by its recomputed forwards and,
 * apart, by its recomputed backwards. */
typedef struct {
    uint32_t *v;
    size_t n, cap, next_fw, next_bw;
} first_forwards;

/* The ancestors of node i hold `x` (in a cycle it has none, as
 * get_ancestors() says). */
static int has_ancestor(const graph *g, long i, long x)
{
    size_t steps = 0;
    int found = 0;
    for (long p = g->nodes[i].up; p >= 0; p = g->nodes[p].up) {
        if (++steps > g->n)
            return 0;
        found |= p == x;
    }
    return found;
}

void graph_recompute(graph *g)
{
    gnode *root = &g->nodes[0];
    if (!root->nsub)
        return;
    strmap children, seen, prefixes;
    strmap_init(&children, root->nsub);
    strmap_init(&seen, 16);
    strmap_init(&prefixes, 16);
    for (uint32_t k = 0; k < root->nsub; k++) {
        const gnode *c = &g->nodes[root->sub[k]];
        int added;
        strmap_put(&children, c->id, c->idlen, k, &added);
    }
    recomputed *rv = NULL;
    size_t nr = 0, rcap = 0;
    first_forwards *lists = NULL;
    size_t nl = 0, lcap = 0;
    strbuf t = STRBUF_INIT;
    arena mem;
    arena_init(&mem, 1 << 12);
    for (uint32_t k = 0; k < root->nsub; k++) {
        const gnode *c = &g->nodes[root->sub[k]];
        if (graph_name_op_newest(c->id, c->idlen) != GOP_MODULE)
            continue;
        /* msprobe tests the stack first; the names, cheaper, go first here
         * (the same nodes pass) */
        int twin_seen = strmap_get(&seen, c->id, c->idlen) != NULL;
        if (!twin_seen) {
            if (!recomputed_by_name(c->id, c->idlen))
                continue;
            other_direction(&t, c->id, c->idlen);
            if (!strmap_get(&children, t.buf, t.len))
                continue;
        }
        if (g->rd->framework_pytorch) {
            /* a backward has no stack: its forward's tells */
            size_t pre = graph_backward_numbered(c->id, c->idlen);
            const char *fid = c->id;
            strbuf f = STRBUF_INIT;
            if (pre) {
                forward_twin(&f, c->id, c->idlen, pre);
                fid = f.buf;
            }
            const stack_info *si = stack_find(&g->rd->stack, fid);
            int by_stack = si && recomputed_by_stack(si->value);
            sb_free(&f);
            if (!by_stack)
                continue;
        }
        if (!twin_seen) {
            /* t still holds the twin */
            int added;
            strmap_put(&seen, arena_strndup(&mem, t.buf, t.len), t.len, 0, &added);
        }
        size_t pl = layer_prefix(c->id, c->idlen);
        int added;
        size_t *li = strmap_put(&prefixes, c->id, pl, nl, &added);
        if (added) {
            GROW(lists, lcap, nl + 1);
            memset(&lists[nl++], 0, sizeof *lists);
        }
        GROW(rv, rcap, nr + 1);
        rv[nr++] = (recomputed){k, root->sub[k], (uint32_t)*li};
    }
    if (nr) {
        /* the first forwards of each recomputed layer, in node order */
        for (size_t i = 0; i < g->n; i++) {
            const gnode *nd = &g->nodes[i];
            size_t pre = forward_numbered(nd->id, nd->idlen);
            if (pre == (size_t)-1 || nd->up <= 0 || graph_name_op_newest(nd->id, nd->idlen) != GOP_MODULE)
                continue;
            const size_t *li = strmap_get(&prefixes, nd->id, pre);
            if (!li)
                continue;
            first_forwards *l = &lists[*li];
            GROW(l->v, l->cap, l->n + 1);
            l->v[l->n++] = (uint32_t)i;
        }
        uint8_t *moved = xcalloc(root->nsub, 1);
        size_t nmoved = 0;
        for (size_t r = 0; r < nr; r++) {
            first_forwards *l = &lists[rv[r].prefix];
            const gnode *c = &g->nodes[rv[r].node];
            size_t *next = forward_numbered(c->id, c->idlen) != (size_t)-1 ? &l->next_fw : &l->next_bw;
            if (*next >= l->n)
                continue;
            const gnode *first = &g->nodes[l->v[(*next)++]];
            const gnode *parent = &g->nodes[first->up];
            backward_twin(&t, parent->id, parent->idlen);
            long to = graph_find(g, t.buf, t.len);
            if (to < 0 || has_ancestor(g, to, rv[r].node))
                continue;
            /* as msprobe: the layer leaves the root and is appended to its
             * new parent's children (to itself, would its parent be its
             * own twin: then it is out of the tree) */
            gnode *p = &g->nodes[to];
            GROW(p->sub, p->subcap, p->nsub + 1);
            p->sub[p->nsub++] = rv[r].node;
            g->nodes[rv[r].node].up = (int32_t)to;
            moved[rv[r].pos] = 1;
            nmoved++;
        }
        if (nmoved) {
            root = &g->nodes[0];
            uint32_t w = 0;
            for (uint32_t k = 0; k < root->nsub; k++)
                if (!moved[k])
                    root->sub[w++] = root->sub[k];
            root->nsub = w;
        }
        free(moved);
    }
    for (size_t i = 0; i < nl; i++)
        free(lists[i].v);
    free(lists);
    free(rv);
    sb_free(&t);
    arena_free(&mem);
    strmap_free(&children);
    strmap_free(&seen);
    strmap_free(&prefixes);
}
