/* The walk over one training step of the model of gen_model.h, emitting
 * dump.json / construct.json entries in msprobe's order: forward calls as
 * they happen (a module's entry after its children, its parameters_grad
 * entry right behind its first forward), then backward entries replayed
 * from a tape in reverse, then the optimizer's calls.
 *
 * Only gen_dump.c includes this file (see gen_model.h for why it is apart).
 */
#ifndef GEN_WALK_H
#define GEN_WALK_H

#include <stdio.h>
#include <stdlib.h>

#include "gen_model.h"
#include "base/mem.h"

/* ------------------------------------------------------------ item makers */

static inline item IT(gtensor *t) { item i = {.k = K_TENSOR, .u.t = t}; return i; }
static inline item II(long long v) { item i = {.k = K_INT, .u.i = v}; return i; }
static inline item IFL(double v) { item i = {.k = K_FLOAT, .u.f = v}; return i; }
static inline item IB(int v) { item i = {.k = K_BOOL, .u.i = v}; return i; }
static inline item IS(const char *s) { item i = {.k = K_STR, .u.s = s}; return i; }
static inline item INUL(void) { item i = {.k = K_NULL}; return i; }
static inline item IEMPTY(void) { item i = {.k = K_EMPTY}; return i; }
static inline item IELL(void) { item i = {.k = K_ELLIPSIS}; return i; }
static inline item IPG(void) { item i = {.k = K_PG}; return i; }
static inline item IDT(const char *s) { item i = {.k = K_DTYPE, .u.s = s}; return i; }
static inline item IDEV(int idx) { item i = {.k = K_DEVICE, .u.i = idx}; return i; }
static inline item IMEM(const char *s) { item i = {.k = K_MEMFMT, .u.s = s}; return i; }
static inline item IREDOP(const char *s) { item i = {.k = K_REDOP, .u.s = s}; return i; }
static inline item KW(const char *key, item i) { i.key = key; return i; }

static inline item ISLICE(int a, int b, int c)
{
    item i = {.k = K_SLICE, .n = 3, .u.sz = {a, b, c}};
    return i;
}

static inline item ISIZE(int nd, const int *sh)
{
    item i = {.k = K_SIZE, .n = (unsigned char)nd};
    memcpy(i.u.sz, sh, (size_t)nd * sizeof(int));
    return i;
}

static inline item ilist(const item *l, int n)
{
    item i = {.k = K_LIST, .n = (unsigned char)n, .u.l = l};
    return i;
}

#define NI(...) (int)(sizeof((item[]){__VA_ARGS__}) / sizeof(item))
#define ARGS(...) (const item[]){__VA_ARGS__}, NI(__VA_ARGS__)
#define NOARGS NULL, 0
#define LIST(...) ilist((const item[]){__VA_ARGS__}, NI(__VA_ARGS__))
#define SH(...) (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)), (const int[]){__VA_ARGS__}

/* --------------------------------------------------------------- entries */

enum { OPT_CALLS = 8 };   /* optimizer entries per parameter */
/* --mode tensor model: sequence per --tensor-scale step, head width, vocabulary */
enum { TOY_SEQ = 32, TOY_HD = 8, TOY_VOCAB = 256 };

/* One more entry is about to be written; 0 when this side does not make
 * the call or the entry budget is spent. logical counts what the bench
 * side writes, so both sides run the same number of micro-batches. */
static int begin(G *g)
{
    if (g->done)
        return 0;
    if (g->mask & 1)
        g->logical++;
    if (!((g->mask >> g->side) & 1))
        return 0;
    if (++g->emitted >= g->limit)
        g->done = 1;
    return 1;
}

static size_t mod_name(char *buf, const mod *m, const char *dir, unsigned call)
{
    return (size_t)sprintf(buf, "Module.%s.%s.%s.%u", m->path, m->cls, dir, call);
}

static const char *parent_of(G *g, char *buf)
{
    if (g->in_bwd)
        return g->bparent;
    if (g->nms == 0)
        return NULL;
    mod_name(buf, g->ms[g->nms - 1].m, "forward", g->ms[g->nms - 1].call);
    return buf;
}

static void open_entry(G *g, const char *name, size_t n)
{
    jw_key(&g->dump, name, n);
    jw_open(&g->dump, '{');
}

static void construct(G *g, const char *name, size_t n, const char *parent)
{
    jw_key(&g->cons, name, n);
    if (parent)
        jw_str(&g->cons, parent);
    else
        jw_put(&g->cons, "null", 4);
}

static rec *tape_push(G *g, int kind)
{
    if (g->ntape == g->tcap) {
        g->tcap = g->tcap ? 2 * g->tcap : 4096;
        g->tape = xrealloc(g->tape, g->tcap * sizeof *g->tape);
    }
    rec *r = &g->tape[g->ntape++];
    memset(r, 0, sizeof *r);
    r->kind = (unsigned char)kind;
    return r;
}

static int count_t(const item *its, int n)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        c += its[i].k == K_TENSOR ? 1 : its[i].k == K_LIST ? count_t(its[i].u.l, its[i].n) : 0;
    return c;
}

static gtensor **fill_t(gtensor **p, const item *its, int n)
{
    for (int i = 0; i < n; i++) {
        if (its[i].k == K_TENSOR)
            *p++ = its[i].u.t;
        else if (its[i].k == K_LIST)
            p = fill_t(p, its[i].u.l, its[i].n);
    }
    return p;
}

/* The tensors among items, in order, for the backward replay. */
static gtensor **tensors_of(G *g, const item *its, int n, int *cnt)
{
    *cnt = count_t(its, n);
    gtensor **t = arena_alloc(&g->mb, (size_t)(*cnt ? *cnt : 1) * sizeof *t);
    fill_t(t, its, n);
    return t;
}

static void api_ex(G *g, int site, int a, int track, const item *in, int nin, const item *kw, int nkw,
                   const item *out, int nout)
{
    if (!begin(g))
        return;
    jw *w = &g->dump;
    char name[128], parent[192];
    unsigned c = g->cnt[a]++;
    size_t n = (size_t)sprintf(name, "%s.%u.forward", API_NAMES[a], c);
    open_entry(g, name, n);
    jw_key(w, "input_args", 10);
    dn_begin(g, name, n, "input");
    w_items(g, in, nin);
    jw_key(w, "input_kwargs", 12);
    dn_begin(g, name, n, "kwargs");
    w_dict(g, kw, nkw);
    jw_key(w, "is_recompute", 12);
    jw_put(w, "false", 5);
    jw_key(w, "output", 6);
    dn_begin(g, name, n, "output");
    w_items(g, out, nout);
    jw_close(w, '}');
    construct(g, name, n, parent_of(g, parent));
    stack_note(g, site, name, n);
    int nt, grad = 0;
    gtensor **o = tensors_of(g, out, nout, &nt);
    for (int i = 0; i < nt; i++)
        grad |= o[i]->rg;
    if (!track || !grad)
        return;
    rec *r = tape_push(g, R_API);
    r->api = (unsigned short)a;
    r->cnt = c;
    r->out = o;
    r->nout = nt;
    r->in = tensors_of(g, in, nin, &r->nin);
}

#define api(g, site, a, ...) api_ex((g), (site), (a), 1, __VA_ARGS__)
/* Communication calls are dumped but have no backward entry of their own. */
#define api_nb(g, site, a, ...) api_ex((g), (site), (a), 0, __VA_ARGS__)

static int sees(G *g) { return (g->mask >> g->side) & 1; }

static void mod_begin(G *g, mod *m)
{
    if (!sees(g))
        return;
    g->ms[g->nms].m = m;
    g->ms[g->nms].call = m->calls++;
    rec *r = tape_push(g, R_BEGIN);
    r->m = m;
    r->cnt = g->ms[g->nms++].call;
}

static void mod_end(G *g, mod *m, const item *in, int nin, const item *kw, int nkw, const item *out, int nout)
{
    if (!sees(g))
        return;
    unsigned call = g->ms[--g->nms].call;
    rec *r = tape_push(g, R_END);
    r->m = m;
    r->cnt = call;
    r->out = tensors_of(g, out, nout, &r->nout);
    r->in = tensors_of(g, in, nin, &r->nin);   /* positional only, as the backward hook sees them */
    for (int i = 0; i < r->nout; i++)
        r->grad |= r->out[i]->rg;
    if (!begin(g))
        return;
    jw *w = &g->dump;
    char name[192], parent[192];
    size_t n = mod_name(name, m, "forward", call);
    open_entry(g, name, n);
    jw_key(w, "input_args", 10);
    dn_begin(g, name, n, "input");
    w_items(g, in, nin);
    jw_key(w, "input_kwargs", 12);
    dn_begin(g, name, n, "kwargs");
    w_dict(g, kw, nkw);
    jw_key(w, "output", 6);
    dn_begin(g, name, n, "output");
    w_items(g, out, nout);
    if (m->np) {
        item p[2] = {KW("weight", IT(m->p[0])), KW("bias", IT(m->p[m->np - 1]))};
        jw_key(w, "parameters", 10);
        dn_begin(g, name, n, "parameters");
        w_dict(g, p, m->np);
    }
    jw_key(w, "is_recompute", 12);
    jw_put(w, "false", 5);
    jw_close(w, '}');
    construct(g, name, n, parent_of(g, parent));
    stack_note(g, NSITE + m->ctx, name, n);
    /* msprobe creates the key on the first forward and fills it in backward. */
    if (m->np && call == 0 && begin(g)) {
        n = (size_t)sprintf(name, "Module.%s.%s.parameters_grad", m->path, m->cls);
        open_entry(g, name, n);
        static const char *const PN[2] = {"weight", "bias"};
        for (int i = 0; i < m->np; i++) {
            item gi = IT(grad_of(g, m->p[i]));
            jw_key(w, PN[i], strlen(PN[i]));
            dn_fixed(g, name, n, PN[i]);
            w_items(g, &gi, 1);
        }
        jw_close(w, '}');
    }
}

/* The gradient leaves of a backward entry: "input" holds the gradients of
 * the outputs, "output" those of the inputs (null for an API input without
 * gradient; a module hook leaves such inputs out). */
static void w_grads(G *g, gtensor **ts, int n, int keep_null)
{
    item its[24];
    int k = 0;
    for (int i = 0; i < n && k < 24; i++) {
        if (ts[i]->rg)
            its[k++] = IT(grad_of(g, ts[i]));
        else if (keep_null)
            its[k++] = INUL();
    }
    w_items(g, its, k);
}

static void bwd_entry(G *g, const char *name, size_t n, rec *r, int keep_null)
{
    jw *w = &g->dump;
    open_entry(g, name, n);
    jw_key(w, "input", 5);
    dn_begin(g, name, n, "input");
    w_grads(g, r->out, r->nout, 0);
    jw_key(w, "output", 6);
    dn_begin(g, name, n, "output");
    w_grads(g, r->in, r->nin, keep_null);
    jw_close(w, '}');
}

static void backward(G *g)
{
    rec *st[32];
    int sp = 0;
    char name[192], parent[192];
    g->in_bwd = 1;
    for (size_t i = g->ntape; i-- > 0 && !g->done;) {
        rec *r = &g->tape[i];
        if (r->kind == R_END) {
            st[sp++] = r;
            continue;
        }
        if (r->kind == R_BEGIN) {
            rec *e = st[--sp];
            if (e->grad && begin(g))
                bwd_entry(g, name, mod_name(name, e->m, "backward", e->cnt), e, 0);
            continue;
        }
        g->bparent = sp ? (mod_name(parent, st[sp - 1]->m, "backward", st[sp - 1]->cnt), parent) : NULL;
        if (r->kind == R_AR) {
            gtensor *gx = grad_of(g, r->in[0]);
            api_nb(g, S_AR_BWD, D_ALL_REDUCE, ARGS(IT(gx)), ARGS(KW("group", IPG())), ARGS(IT(gx)));
        } else if (begin(g)) {
            size_t n = (size_t)sprintf(name, "%s.%u.backward", API_NAMES[r->api], r->cnt);
            bwd_entry(g, name, n, r, 1);
            construct(g, name, n, g->bparent);
        }
    }
    g->in_bwd = 0;
}

/* ----------------------------------------------------------------- model */

static gtensor *act(G *g, double r, int nd, const int *sh) { return tnew(g, GT_BF16, 1, KIND_ACT, r, nd, sh); }

static void param(G *g, mod *m, int kind, int nd, const int *sh)
{
    arena *keep = g->cur;
    g->cur = &g->perm;
    gtensor *p = tnew(g, GT_BF16, 1, kind, 0.02, nd, sh);
    p->perm = 1;
    g->cur = keep;
    m->p[m->np++] = p;
    g->params[g->nparams++] = p;
}

static void mod_init(mod *m, int ctx, const char *cls, const char *fmt, int layer)
{
    memset(m, 0, sizeof *m);
    m->ctx = ctx;
    m->cls = cls;
    snprintf(m->path, sizeof m->path, fmt, layer);
}

static gtensor *layernorm(G *g, mod *m, int site, gtensor *x)
{
    gtensor *y = act(g, 1.0, x->nd, x->sh);
    mod_begin(g, m);
    api(g, site, F_LAYER_NORM, ARGS(IT(x), LIST(II(g->h)), IT(m->p[0]), IT(m->p[1]), IFL(1e-05)), NOARGS,
        ARGS(IT(y)));
    mod_end(g, m, ARGS(IT(x)), NOARGS, ARGS(IT(y)));
    return y;
}

/* ColumnParallelLinear: in backward the input gradient is all-reduced. The
 * bias is either added inside (qkv) or handed back for a later fusion. */
static gtensor *col_linear(G *g, mod *m, int site, gtensor *x, int width, int bias_inside, const item *kw,
                          int nkw)
{
    gtensor *y = act(g, 2.0, SH(g->s, g->b, width));
    item bias_in = m->np == 2 && bias_inside ? IT(m->p[1]) : INUL();
    item bias_out = m->np == 2 && !bias_inside ? IT(m->p[1]) : INUL();
    mod_begin(g, m);
    if (g->tp > 1 && x->rg && sees(g)) {
        rec *r = tape_push(g, R_AR);
        r->in = arena_alloc(&g->mb, sizeof *r->in);
        r->in[0] = x;
        r->nin = 1;
    }
    api(g, site, F_LINEAR, ARGS(IT(x), IT(m->p[0]), bias_in), NOARGS, ARGS(IT(y)));
    mod_end(g, m, ARGS(IT(x)), kw, nkw, ARGS(IT(y), bias_out));
    return y;
}

/* RowParallelLinear: partial sums all-reduced across the TP group. */
static gtensor *row_linear(G *g, mod *m, int site, int ar_site, gtensor *x)
{
    gtensor *y = act(g, 1.5, SH(g->s, g->b, g->h)), *yr = act(g, 1.5, SH(g->s, g->b, g->h));
    mod_begin(g, m);
    api(g, site, F_LINEAR, ARGS(IT(x), IT(m->p[0]), INUL()), NOARGS, ARGS(IT(y)));
    if (g->tp > 1) {
        api_nb(g, ar_site, D_ALL_REDUCE, ARGS(IT(y)), ARGS(KW("group", IPG())), ARGS(IT(yr)));
        y = yr;
    }
    mod_end(g, m, ARGS(IT(x)), NOARGS, ARGS(IT(y), IT(m->p[1])));
    return y;
}

static gtensor *rope_apply(G *g, gtensor *t, gtensor *freqs, int site)
{
    int s = g->s, b = g->b, np = g->nh, hd = g->hd;
    int slice = site, cs = site + 1, sn = site + 2, tt = site + 3, cat = site + 4, chunk = site + 5,
        negcat = site + 6;
    gtensor *tr = act(g, 1.0, SH(s, b, np, hd)), *tp = act(g, 1.0, SH(s, b, np, 0));
    api(g, slice, T_GETITEM, ARGS(IT(t), LIST(IELL(), ISLICE(NONE, hd, NONE))), NOARGS, ARGS(IT(tr)));
    api(g, slice, T_GETITEM, ARGS(IT(t), LIST(IELL(), ISLICE(hd, NONE, NONE))), NOARGS, ARGS(IT(tp)));
    gtensor *c32 = tnew(g, GT_F32, 0, KIND_ACT, 0.35, SH(s, 1, 1, hd)),
           *c16 = tnew(g, GT_BF16, 0, KIND_ACT, 0.35, SH(s, 1, 1, hd)),
           *s32 = tnew(g, GT_F32, 0, KIND_ACT, 0.35, SH(s, 1, 1, hd)),
           *s16 = tnew(g, GT_BF16, 0, KIND_ACT, 0.35, SH(s, 1, 1, hd));
    /* .to(t.dtype): a positional dtype is not a "dtype" kwarg, msprobe writes {} */
    api(g, cs, TO_COS, ARGS(IT(freqs)), NOARGS, ARGS(IT(c32)));
    api(g, cs, T_TO, ARGS(IT(c32), IEMPTY()), NOARGS, ARGS(IT(c16)));
    api(g, sn, TO_SIN, ARGS(IT(freqs)), NOARGS, ARGS(IT(s32)));
    api(g, sn, T_TO, ARGS(IT(s32), IEMPTY()), NOARGS, ARGS(IT(s16)));
    gtensor *m1 = act(g, 1.0, SH(s, b, np, hd)), *x1 = act(g, 1.0, SH(s, b, np, hd / 2)),
           *x2 = act(g, 1.0, SH(s, b, np, hd / 2)), *nx2 = act(g, 1.0, SH(s, b, np, hd / 2)),
           *rh = act(g, 1.0, SH(s, b, np, hd)), *m2 = act(g, 1.0, SH(s, b, np, hd)),
           *sum = act(g, 1.0, SH(s, b, np, hd)), *o = act(g, 1.0, SH(s, b, np, hd));
    api(g, tt, T_MUL, ARGS(IT(tr), IT(c16)), NOARGS, ARGS(IT(m1)));
    api(g, chunk, TO_CHUNK, ARGS(IT(tr), II(2)), ARGS(KW("dim", II(-1))), ARGS(IT(x1), IT(x2)));
    api(g, negcat, T_NEG, ARGS(IT(x2)), NOARGS, ARGS(IT(nx2)));
    api(g, negcat, TO_CAT, ARGS(LIST(IT(nx2), IT(x1))), ARGS(KW("dim", II(-1))), ARGS(IT(rh)));
    api(g, tt, T_MUL, ARGS(IT(rh), IT(s16)), NOARGS, ARGS(IT(m2)));
    api(g, tt, T_ADD, ARGS(IT(m1), IT(m2)), NOARGS, ARGS(IT(sum)));
    api(g, cat, TO_CAT, ARGS(LIST(IT(sum), IT(tp))), ARGS(KW("dim", II(-1))), ARGS(IT(o)));
    return o;
}

static gtensor *core_attention(G *g, layer_mods *L, gtensor *q, gtensor *k, gtensor *v, gtensor *mask)
{
    int s = g->s, b = g->b, np = g->nh, hd = g->hd, bn = g->b * g->nh;
    mod_begin(g, &L->core);
    gtensor *q2 = act(g, 1.0, SH(s, bn, hd)), *k2 = act(g, 1.0, SH(s, bn, hd)), *qt = act(g, 1.0, SH(bn, s, hd)),
           *kt = act(g, 1.0, SH(bn, s, hd)), *ktt = act(g, 1.0, SH(bn, hd, s)),
           *buf = tnew(g, GT_BF16, 0, KIND_ACT, 3.0, SH(bn, s, s)), *sc = act(g, 4.0, SH(bn, s, s)),
           *sc4 = act(g, 4.0, SH(b, np, s, s));
    api(g, S_CORE_RS, T_RESHAPE, ARGS(IT(q), II(s), II(bn), II(-1)), NOARGS, ARGS(IT(q2)));
    api(g, S_CORE_VK, T_VIEW, ARGS(IT(k), II(s), II(bn), II(-1)), NOARGS, ARGS(IT(k2)));
    api(g, S_CORE_BMM1, T_TRANSPOSE, ARGS(IT(q2), II(0), II(1)), NOARGS, ARGS(IT(qt)));
    api(g, S_CORE_BMM1, T_TRANSPOSE, ARGS(IT(k2), II(0), II(1)), NOARGS, ARGS(IT(kt)));
    api(g, S_CORE_BMM1, T_TRANSPOSE, ARGS(IT(kt), II(1), II(2)), NOARGS, ARGS(IT(ktt)));
    api(g, S_CORE_BMM1, TO_BADDBMM, ARGS(IT(buf), IT(qt), IT(ktt)),
        ARGS(KW("beta", IFL(0.0)), KW("alpha", IFL(1.0 / sqrt((double)hd)))), ARGS(IT(sc)));
    api(g, S_CORE_VIEW1, T_VIEW, ARGS(IT(sc), II(b), II(np), II(s), II(s)), NOARGS, ARGS(IT(sc4)));

    mod_begin(g, &L->smax);
    gtensor *f = tnew(g, GT_F32, 1, KIND_ACT, 4.0, SH(b, np, s, s)),
           *mf = tnew(g, GT_F32, 1, KIND_ACT, 4.0, SH(b, np, s, s)),
           *pr = tnew(g, GT_F32, 1, KIND_POS, 1.0, SH(b, np, s, s)),
           *pb = tnew(g, GT_BF16, 1, KIND_POS, 1.0, SH(b, np, s, s));
    mf->v[0][1] = mf->v[1][1] = -10000.0;
    mf->masked = 1;
    api(g, S_SM_FLOAT, T_FLOAT, ARGS(IT(sc4)), NOARGS, ARGS(IT(f)));
    api(g, S_SM_MASK, T_MASKED_FILL_, ARGS(IT(f), IT(mask), IFL(-10000.0)), NOARGS, ARGS(IT(mf)));
    api(g, S_SM_SOFTMAX, F_SOFTMAX, ARGS(IT(mf), II(-1)), ARGS(KW("_stacklevel", II(5))), ARGS(IT(pr)));
    api(g, S_SM_HALF, T_BFLOAT16, ARGS(IT(pr)), NOARGS, ARGS(IT(pb)));
    mod_end(g, &L->smax, ARGS(IT(sc4), IT(mask)), NOARGS, ARGS(IT(pb)));

    gtensor *pd = tnew(g, GT_BF16, 1, KIND_POS, 1.0, SH(b, np, s, s));
    mod_begin(g, &L->adrop);
    api(g, S_ADROP, F_DROPOUT, ARGS(IT(pb), IFL(0.1), IB(1), IB(0)), NOARGS, ARGS(IT(pd)));
    mod_end(g, &L->adrop, ARGS(IT(pb)), NOARGS, ARGS(IT(pd)));

    gtensor *v2 = act(g, 1.0, SH(s, bn, hd)), *p3 = tnew(g, GT_BF16, 1, KIND_POS, 1.0, SH(bn, s, s)),
           *vt = act(g, 1.0, SH(bn, s, hd)), *c = act(g, 0.8, SH(bn, s, hd)), *c4 = act(g, 0.8, SH(b, np, s, hd)),
           *cp = act(g, 0.8, SH(s, b, np, hd)), *cc = act(g, 0.8, SH(s, b, np, hd)),
           *co = act(g, 0.8, SH(s, b, np * hd));
    api(g, S_CORE_VIEW2, T_VIEW, ARGS(IT(v), II(s), II(bn), II(-1)), NOARGS, ARGS(IT(v2)));
    api(g, S_CORE_VIEW3, T_VIEW, ARGS(IT(pd), II(bn), II(s), II(-1)), NOARGS, ARGS(IT(p3)));
    api(g, S_CORE_BMM2, T_TRANSPOSE, ARGS(IT(v2), II(0), II(1)), NOARGS, ARGS(IT(vt)));
    api(g, S_CORE_BMM2, TO_BMM, ARGS(IT(p3), IT(vt)), NOARGS, ARGS(IT(c)));
    api(g, S_CORE_VIEW4, T_VIEW, ARGS(IT(c), II(b), II(np), II(s), II(hd)), NOARGS, ARGS(IT(c4)));
    api(g, S_CORE_PERM, T_PERMUTE, ARGS(IT(c4), II(2), II(0), II(1), II(3)), NOARGS, ARGS(IT(cp)));
    api(g, S_CORE_PERM, T_CONTIGUOUS, ARGS(IT(cp)), NOARGS, ARGS(IT(cc)));
    api(g, S_CORE_VIEW5, T_VIEW, ARGS(IT(cc), II(s), II(b), II(np * hd)), NOARGS, ARGS(IT(co)));
    /* AttnMaskType is an enum msprobe has no analyzer for: {} */
    mod_end(g, &L->core, ARGS(IT(q), IT(k), IT(v), IT(mask)),
            ARGS(KW("attn_mask_type", IEMPTY()), KW("packed_seq_params", INUL())), ARGS(IT(co)));
    return co;
}

static gtensor *attention(G *g, layer_mods *L, gtensor *x, gtensor *mask, gtensor *rope)
{
    int s = g->s, b = g->b, np = g->nh, hd = g->hd;
    mod_begin(g, &L->attn);
    gtensor *qkv = col_linear(g, &L->qkv, S_QKV, x, 3 * np * hd, 1, NOARGS);
    gtensor *q4 = act(g, 2.0, SH(s, b, np, 3 * hd)), *q = act(g, 2.0, SH(s, b, np, hd)),
           *k = act(g, 2.0, SH(s, b, np, hd)), *v = act(g, 2.0, SH(s, b, np, hd));
    api(g, S_QKV_VIEW, T_VIEW, ARGS(IT(qkv), ISIZE(SH(s, b, np, 3 * hd))), NOARGS, ARGS(IT(q4)));
    api(g, S_QKV_SPLIT, TO_SPLIT, ARGS(IT(q4), LIST(II(hd), II(hd), II(hd))), ARGS(KW("dim", II(3))),
        ARGS(IT(q), IT(k), IT(v)));
    q = rope_apply(g, q, rope, S_RQ_SLICE);
    k = rope_apply(g, k, rope, S_RK_SLICE);
    gtensor *ctx = core_attention(g, L, q, k, v, mask);
    gtensor *out = row_linear(g, &L->proj, S_PROJ, S_AR_PROJ, ctx);
    mod_end(g, &L->attn, ARGS(IT(x)),
            ARGS(KW("attention_mask", IT(mask)), KW("inference_params", INUL()), KW("rotary_pos_emb", IT(rope)),
                 KW("packed_seq_params", INUL())),
            ARGS(IT(out), IT(L->proj.p[1])));
    return out;
}

static gtensor *bias_dropout_add(G *g, int site, gtensor *x, gtensor *bias, gtensor *residual)
{
    gtensor *xb = act(g, 1.5, x->nd, x->sh), *d = act(g, 1.6, x->nd, x->sh), *o = act(g, 2.0, x->nd, x->sh);
    api(g, site, T_ADD, ARGS(IT(x), IT(bias)), NOARGS, ARGS(IT(xb)));
    api(g, site + 1, F_DROPOUT, ARGS(IT(xb)), ARGS(KW("p", IFL(0.1)), KW("training", IB(1))), ARGS(IT(d)));
    api(g, site + 2, T_ADD, ARGS(IT(residual), IT(d)), NOARGS, ARGS(IT(o)));
    return o;
}

static gtensor *mlp(G *g, layer_mods *L, gtensor *x, int handmade)
{
    int s = g->s, b = g->b, f = g->ffn;
    mod_begin(g, &L->mlp);
    gtensor *y = col_linear(g, &L->fc1, S_FC1, x, f, 0, NOARGS);
    gtensor *a = act(g, 2.0, SH(s, b, f)), *ge = tnew(g, GT_BF16, 1, KIND_GELU, 1.5, SH(s, b, f));
    api(g, S_MLP_ADD, T_ADD, ARGS(IT(y), IT(L->fc1.p[1])), NOARGS, ARGS(IT(a)));
    /* The hand-written GELU of the target: made on both sides so that the
     * random streams stay in step, written only where it is called. */
    gtensor *h[7];
    for (int i = 0; i < 7; i++)
        h[i] = act(g, 1.0 + i * 0.3, SH(s, b, f));
    if (handmade)
        g->mask = 1;
    api(g, S_GELU, F_GELU, ARGS(IT(a)), ARGS(KW("approximate", IS("tanh"))), ARGS(IT(ge)));
    if (handmade) {
        g->mask = 2;
        api(g, S_HGELU, TO_POW, ARGS(IT(a), II(3)), NOARGS, ARGS(IT(h[0])));
        api(g, S_HGELU, T_MUL, ARGS(IT(h[0]), IFL(0.044715)), NOARGS, ARGS(IT(h[1])));
        api(g, S_HGELU, T_ADD, ARGS(IT(a), IT(h[1])), NOARGS, ARGS(IT(h[2])));
        api(g, S_HGELU, T_MUL, ARGS(IT(h[2]), IFL(0.7978845608028654)), NOARGS, ARGS(IT(h[3])));
        api(g, S_HGELU, TO_TANH, ARGS(IT(h[3])), NOARGS, ARGS(IT(h[4])));
        api(g, S_HGELU, T_RADD, ARGS(IT(h[4]), IFL(1.0)), NOARGS, ARGS(IT(h[5])));
        api(g, S_HGELU, T_MUL, ARGS(IT(a), IFL(0.5)), NOARGS, ARGS(IT(h[6])));
        api(g, S_HGELU, T_MUL, ARGS(IT(h[6]), IT(h[5])), NOARGS, ARGS(IT(ge)));
        g->mask = 3;
    }
    gtensor *o = row_linear(g, &L->fc2, S_FC2, S_AR_FC2, ge);
    mod_end(g, &L->mlp, ARGS(IT(x)), NOARGS, ARGS(IT(o), IT(L->fc2.p[1])));
    return o;
}

static gtensor *layer(G *g, int i, gtensor *x, gtensor *mask, gtensor *rope, int mb)
{
    layer_mods *L = &g->L[i];
    mod_begin(g, &L->layer);
    gtensor *ln = layernorm(g, &L->ln1, S_LN1, x);
    gtensor *ao = attention(g, L, ln, mask, rope);
    gtensor *x1 = bias_dropout_add(g, S_B1_ADD, ao, L->proj.p[1], x);
    gtensor *ln2 = layernorm(g, &L->ln2, S_LN2, x1);
    gtensor *mo = mlp(g, L, ln2, g->o->extra && mb == 0 && i == g->o->layers / 2);
    gtensor *x2 = bias_dropout_add(g, S_B2_ADD, mo, L->fc2.p[1], x1);
    mod_end(g, &L->layer, NOARGS,
            ARGS(KW("hidden_states", IT(x)), KW("attention_mask", IT(mask)), KW("context", INUL()),
                 KW("context_mask", INUL()), KW("rotary_pos_emb", IT(rope)), KW("inference_params", INUL()),
                 KW("packed_seq_params", INUL())),
            ARGS(IT(x2), INUL()));
    return x2;
}

static void microbatch(G *g, int mb)
{
    int s = g->s, b = g->b, h = g->h, V = g->vocab;
    gd_release(g, 0);
    arena_reset(&g->mb);
    g->cur = &g->mb;
    g->ntape = 0;
    gtensor *tokens = tnew(g, GT_I64, 0, KIND_IDS, V * g->tp, SH(b, s)),
           *labels = tnew(g, GT_I64, 0, KIND_IDS, V * g->tp, SH(b, s)),
           *mask = tnew(g, GT_BOOL, 0, KIND_ACT, 1, SH(1, 1, s, s));

    mod_begin(g, &g->emb);
    gtensor *e = act(g, 0.02, SH(b, s, h)), *er = act(g, 0.02, SH(b, s, h)), *et = act(g, 0.02, SH(s, b, h)),
           *ec = act(g, 0.02, SH(s, b, h)), *ed = act(g, 0.02, SH(s, b, h));
    mod_begin(g, &g->wemb);
    api(g, S_EMB, F_EMBEDDING, ARGS(IT(tokens), IT(g->wemb.p[0])), NOARGS, ARGS(IT(e)));
    if (g->tp > 1) {
        api_nb(g, S_AR_WEMB, D_ALL_REDUCE, ARGS(IT(e)), ARGS(KW("group", IPG())), ARGS(IT(er)));
        e = er;
    }
    mod_end(g, &g->wemb, ARGS(IT(tokens)), NOARGS, ARGS(IT(e)));
    api(g, S_EMB_T, T_TRANSPOSE, ARGS(IT(e), II(0), II(1)), NOARGS, ARGS(IT(et)));
    api(g, S_EMB_T, T_CONTIGUOUS, ARGS(IT(et)), NOARGS, ARGS(IT(ec)));
    mod_begin(g, &g->edrop);
    api(g, S_EDROP, F_DROPOUT, ARGS(IT(ec), IFL(0.1), IB(1), IB(0)), NOARGS, ARGS(IT(ed)));
    mod_end(g, &g->edrop, ARGS(IT(ec)), NOARGS, ARGS(IT(ed)));
    mod_end(g, &g->emb, NOARGS, ARGS(KW("input_ids", IT(tokens)), KW("position_ids", INUL())), ARGS(IT(ed)));

    gtensor *seq = tnew(g, GT_F32, 0, KIND_RANGE, 0, SH(s)), *fr = tnew(g, GT_F32, 0, KIND_ACT, 300, SH(s, g->hd / 2)),
           *fe = tnew(g, GT_F32, 0, KIND_ACT, 300, SH(s, g->hd)),
           *rope = tnew(g, GT_F32, 0, KIND_ACT, 300, SH(s, 1, 1, g->hd));
    mod_begin(g, &g->rot);
    api(g, S_ROT_ARANGE, TO_ARANGE, ARGS(II(s)), ARGS(KW("device", IDEV(g->rank)), KW("dtype", IDT("torch.float32"))),
        ARGS(IT(seq)));
    api(g, S_ROT_OUTER, TO_OUTER, ARGS(IT(seq), IT(g->inv_freq)), NOARGS, ARGS(IT(fr)));
    api(g, S_ROT_CAT, TO_CAT, ARGS(LIST(IT(fr), IT(fr))), ARGS(KW("dim", II(-1))), ARGS(IT(fe)));
    api(g, S_ROT_GETITEM, T_GETITEM,
        ARGS(IT(fe), LIST(ISLICE(NONE, NONE, NONE), INUL(), INUL(), ISLICE(NONE, NONE, NONE))), NOARGS,
        ARGS(IT(rope)));
    mod_end(g, &g->rot, ARGS(II(s)), NOARGS, ARGS(IT(rope)));

    mod_begin(g, &g->dec);
    gtensor *x = ed;
    for (int i = 0; i < g->o->layers && !g->done; i++)
        x = layer(g, i, x, mask, rope, mb);
    x = layernorm(g, &g->lnf, S_LNF, x);
    mod_end(g, &g->dec, NOARGS,
            ARGS(KW("hidden_states", IT(ed)), KW("attention_mask", IT(mask)), KW("inference_params", INUL()),
                 KW("rotary_pos_emb", IT(rope)), KW("packed_seq_params", INUL())),
            ARGS(IT(x)));
    gtensor *logits = col_linear(g, &g->out, S_OUT, x, V, 0, ARGS(KW("weight", INUL())));

    gtensor *lt = act(g, 3.0, SH(b, s, V)), *lc = act(g, 3.0, SH(b, s, V)),
           *lf = tnew(g, GT_F32, 1, KIND_ACT, 3.0, SH(b, s, V)), *lv = tnew(g, GT_F32, 1, KIND_ACT, 3.0, SH(b * s, V)),
           *lab = tnew(g, GT_I64, 0, KIND_IDS, V * g->tp, SH(b * s)),
           *ce = tnew(g, GT_F32, 1, KIND_ACT, 2.5, SH(b * s)),
           *ce2 = tnew(g, GT_F32, 1, KIND_ACT, 2.5, SH(b, s));
    api(g, S_LM_T, T_TRANSPOSE, ARGS(IT(logits), II(0), II(1)), NOARGS, ARGS(IT(lt)));
    api(g, S_LM_T, T_CONTIGUOUS, ARGS(IT(lt)), NOARGS, ARGS(IT(lc)));
    api(g, S_LM_CE, T_FLOAT, ARGS(IT(lc)), NOARGS, ARGS(IT(lf)));
    api(g, S_LM_CE, T_VIEW, ARGS(IT(lf), II(-1), II(V)), NOARGS, ARGS(IT(lv)));
    api(g, S_LM_CE, T_VIEW, ARGS(IT(labels), II(-1)), NOARGS, ARGS(IT(lab)));
    api(g, S_LM_CE, F_CROSS_ENTROPY, ARGS(IT(lv), IT(lab)), ARGS(KW("reduction", IS("none"))), ARGS(IT(ce)));
    api(g, S_LM_VIEW, T_VIEW, ARGS(IT(ce), II(b), II(s)), NOARGS, ARGS(IT(ce2)));

    gtensor *lf2 = tnew(g, GT_F32, 1, KIND_ACT, 2.5, SH(b, s)), *l1 = tnew(g, GT_F32, 1, KIND_ACT, 2.5, SH(b * s)),
           *lm = tnew(g, GT_F32, 0, KIND_ONES, 1, SH(b * s)), *pr = tnew(g, GT_F32, 1, KIND_ACT, 2.5, SH(b * s)),
           *sum = tnew(g, GT_F32, 1, KIND_SCALAR, 2.3 * s * b, 0, NULL),
           *ne = tnew(g, GT_BOOL, 0, KIND_ACT, 1, SH(b, s)),
           *nt = tnew(g, GT_I64, 0, KIND_SCALAR, s * b, 0, NULL), *loss = tnew(g, GT_F32, 1, KIND_SCALAR, 2.3, 0, NULL),
           *one = tnew(g, GT_F32, 0, KIND_ONES, 1.0, 0, NULL);
    api(g, S_LOSS_FLOAT, T_FLOAT, ARGS(IT(ce2)), NOARGS, ARGS(IT(lf2)));
    api(g, S_LOSS_SUM, T_VIEW, ARGS(IT(lf2), II(-1)), NOARGS, ARGS(IT(l1)));
    api(g, S_LOSS_SUM, T_MUL, ARGS(IT(l1), IT(lm)), NOARGS, ARGS(IT(pr)));
    api(g, S_LOSS_SUM, TO_SUM, ARGS(IT(pr)), NOARGS, ARGS(IT(sum)));
    api(g, S_LOSS_TOK, T_NE, ARGS(IT(labels), II(-100)), NOARGS, ARGS(IT(ne)));
    api(g, S_LOSS_TOK, T_SUM, ARGS(IT(ne)), NOARGS, ARGS(IT(nt)));
    api(g, S_LOSS_DIV, T_TRUEDIV, ARGS(IT(sum), IT(nt)), NOARGS, ARGS(IT(loss)));
    api_nb(g, S_ONES, TO_ONES_LIKE, ARGS(IT(loss)), ARGS(KW("memory_format", IMEM("preserve_format"))),
           ARGS(IT(one)));
    backward(g);
}

/* Gradient clipping's norm, summed over the model-parallel group, then
 * Adam on the fp32 main parameters (torch's single-tensor path). */
static void optimizer(G *g)
{
    gd_release(g, 0);
    arena_reset(&g->mb);
    g->cur = &g->mb;
    gtensor *norm = tnew(g, GT_F32, 0, KIND_SCALAR, 1.7, 0, NULL),
           *norm2 = tnew(g, GT_F32, 0, KIND_SCALAR, 2.9, 0, NULL),
           *sum = tnew(g, GT_F32, 0, KIND_SCALAR, 2.9 * g->tp, 0, NULL);
    api(g, S_CLIP_POW, T_POW, ARGS(IT(norm), IFL(2.0)), NOARGS, ARGS(IT(norm2)));
    if (g->tp > 1)
        api_nb(g, S_AR_NORM, D_ALL_REDUCE, ARGS(IT(norm2)),
               ARGS(KW("op", IREDOP("RedOpType.SUM")), KW("group", IPG())), ARGS(IT(sum)));
    int it = g->step + 1;
    double b1 = 0.9, b2 = 0.999, bc2 = sqrt(1 - pow(b2, it)), step_size = 1.5e-4 / (1 - pow(b1, it));
    for (int i = 0; i < g->nparams && !g->done; i++) {
        int nd = g->params[i]->nd;
        const int *sh = g->params[i]->sh;
        /* grad, exp_avg (3), exp_avg_sq (3), sqrt, denom (2), main param (2) */
        static const double SCALE[12] = {1e-5, 1e-6, 1e-6, 1e-6, 1e-10, 1e-10, 1e-10, 1e-5, 1e-3, 1e-3, 0.02, 0.02};
        gtensor *t[12];
        for (int j = 0; j < 12; j++)
            t[j] = tnew(g, GT_F32, 0, j >= 10 ? KIND_W : KIND_GRAD, SCALE[j], nd, sh);
        gtensor *grad = t[0], *ea = t[1], *ea1 = t[2], *ea2 = t[3], *es = t[4], *es1 = t[5], *es2 = t[6],
               *sq = t[7], *dn = t[8], *dn2 = t[9], *mp = t[10], *mp2 = t[11];
        api(g, S_ADAM_EA, T_MUL_, ARGS(IT(ea), IFL(b1)), NOARGS, ARGS(IT(ea1)));
        api(g, S_ADAM_EA, T_ADD_, ARGS(IT(ea1), IT(grad)), ARGS(KW("alpha", IFL(1 - b1))), ARGS(IT(ea2)));
        api(g, S_ADAM_EASQ, T_MUL_, ARGS(IT(es), IFL(b2)), NOARGS, ARGS(IT(es1)));
        api(g, S_ADAM_EASQ, T_ADDCMUL_, ARGS(IT(es1), IT(grad), IT(grad)), ARGS(KW("value", IFL(1 - b2))),
            ARGS(IT(es2)));
        api(g, S_ADAM_DENOM, T_SQRT, ARGS(IT(es2)), NOARGS, ARGS(IT(sq)));
        api(g, S_ADAM_DENOM, T_TRUEDIV, ARGS(IT(sq), IFL(bc2)), NOARGS, ARGS(IT(dn)));
        api(g, S_ADAM_DENOM, T_ADD_, ARGS(IT(dn), IFL(1e-08)), NOARGS, ARGS(IT(dn2)));
        api(g, S_ADAM_UPD, T_ADDCDIV_, ARGS(IT(mp), IT(ea2), IT(dn2)), ARGS(KW("value", IFL(-step_size))),
            ARGS(IT(mp2)));
    }
}

static void build_model(G *g)
{
    g->s = 2048, g->b = 1, g->h = 2048, g->hd = 128;
    g->nh = 16 / g->tp, g->ffn = 8192 / g->tp, g->vocab = 50304 / g->tp;
    if (g->o->tensor) {
        /* Every leaf becomes a file: a toy width, a sequence that grows
         * with --tensor-scale (attention scores grow with its square). */
        g->s = TOY_SEQ * g->o->tscale, g->h = TOY_HD * 16, g->hd = TOY_HD;
        g->ffn = 4 * g->h / g->tp, g->vocab = TOY_VOCAB / g->tp;
    }
    int h = g->h, qkv = 3 * g->nh * g->hd, f = g->ffn, n = g->o->layers;
    g->cur = &g->perm;
    g->params = arena_alloc(&g->perm, (size_t)(12 * n + 8) * sizeof *g->params);
    g->L = arena_calloc(&g->perm, (size_t)n * sizeof *g->L);
    g->inv_freq = tnew(g, GT_F32, 0, KIND_ACT, 0.3, SH(g->hd / 2));
    mod_init(&g->emb, C_EMB, "LanguageModelEmbedding", "embedding", 0);
    mod_init(&g->wemb, C_WEMB, "VocabParallelEmbedding", "embedding.word_embeddings", 0);
    param(g, &g->wemb, KIND_W, SH(g->vocab, h));
    mod_init(&g->edrop, C_EDROP, "Dropout", "embedding.embedding_dropout", 0);
    mod_init(&g->rot, C_ROT, "RotaryEmbedding", "rotary_pos_emb", 0);
    mod_init(&g->dec, C_DEC, "TransformerBlock", "decoder", 0);
    for (int i = 0; i < n; i++) {
        layer_mods *L = &g->L[i];
        mod_init(&L->layer, C_LAYER, "TransformerLayer", "decoder.layers.%d", i);
        mod_init(&L->ln1, C_LN1, "LayerNorm", "decoder.layers.%d.input_layernorm", i);
        param(g, &L->ln1, KIND_ONE, SH(h));
        param(g, &L->ln1, KIND_ZERO, SH(h));
        mod_init(&L->attn, C_ATTN, "SelfAttention", "decoder.layers.%d.self_attention", i);
        mod_init(&L->qkv, C_QKV, "ColumnParallelLinear", "decoder.layers.%d.self_attention.linear_qkv", i);
        param(g, &L->qkv, KIND_W, SH(qkv, h));
        param(g, &L->qkv, KIND_ZERO, SH(qkv));
        mod_init(&L->core, C_CORE, "DotProductAttention", "decoder.layers.%d.self_attention.core_attention", i);
        mod_init(&L->smax, C_SMAX, "FusedScaleMaskSoftmax",
                 "decoder.layers.%d.self_attention.core_attention.scale_mask_softmax", i);
        mod_init(&L->adrop, C_ADROP, "Dropout", "decoder.layers.%d.self_attention.core_attention.attention_dropout", i);
        mod_init(&L->proj, C_PROJ, "RowParallelLinear", "decoder.layers.%d.self_attention.linear_proj", i);
        param(g, &L->proj, KIND_W, SH(h, g->nh * g->hd));
        param(g, &L->proj, KIND_ZERO, SH(h));
        mod_init(&L->ln2, C_LN2, "LayerNorm", "decoder.layers.%d.pre_mlp_layernorm", i);
        param(g, &L->ln2, KIND_ONE, SH(h));
        param(g, &L->ln2, KIND_ZERO, SH(h));
        mod_init(&L->mlp, C_MLP, "MLP", "decoder.layers.%d.mlp", i);
        mod_init(&L->fc1, C_FC1, "ColumnParallelLinear", "decoder.layers.%d.mlp.linear_fc1", i);
        param(g, &L->fc1, KIND_W, SH(f, h));
        param(g, &L->fc1, KIND_ZERO, SH(f));
        mod_init(&L->fc2, C_FC2, "RowParallelLinear", "decoder.layers.%d.mlp.linear_fc2", i);
        param(g, &L->fc2, KIND_W, SH(h, f));
        param(g, &L->fc2, KIND_ZERO, SH(h));
    }
    mod_init(&g->lnf, C_LNF, "LayerNorm", "decoder.final_layernorm", 0);
    param(g, &g->lnf, KIND_ONE, SH(h));
    param(g, &g->lnf, KIND_ZERO, SH(h));
    mod_init(&g->out, C_OUT, "ColumnParallelLinear", "output_layer", 0);
    param(g, &g->out, KIND_W, SH(g->vocab, h));
}

/* Micro-batches (forward + backward) until the entry budget is nearly
 * reached, then the optimizer step, which the budget may cut short. */
static void model_step(G *g)
{
    g->mask = 3;
    build_model(g);
    long opt = (long)g->nparams * OPT_CALLS;
    for (int mb = 0; !g->done; mb++) {
        microbatch(g, mb);
        if (g->limit == LONG_MAX || g->logical + opt >= g->limit)
            break;
    }
    if (!g->done)
        optimizer(g);
}

#endif
