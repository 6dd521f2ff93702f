/* gen_dump --mode tensor: the elements behind every tensor leaf, the
 * statistics msprobe would write for them, and their files in
 * dump_tensor_data/ (torch.save zip archives, or .npy).
 *
 * Only gen_dump.c includes this file (see gen_model.h for why it is apart).
 *
 * Every element is a function of the tensor's seed and its index (a hash,
 * not a running generator), so both jobs of a pair compute the same bench
 * values independently; the target adds its drift, hot spot and NaN/inf
 * on top, then rounds to the tensor's dtype. Statistics are taken from the
 * values as stored, in msprobe's way: float32 math (double accumulators,
 * rounded once), integers cast to float32, and a bfloat16 tensor's
 * max/min/mean/norm rounded to bfloat16 as torch returns them.
 */
#ifndef GEN_DATA_H
#define GEN_DATA_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/err.h"
#include "base/mem.h"
#include "pt_write.h"
#include "npy_write.h"
#include "format/npy.h"
#include "format/pt.h"
#include "format/tensor.h"

#include "gen_model.h"

static inline uint64_t gd_hash(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Four 16-bit uniforms summed (Irwin-Hall): roughly normal, unit variance,
 * bounded by +-3.47, and one hash per element. */
static inline float gd_nrm(uint64_t h)
{
    uint32_t s = (uint32_t)(h & 0xffff) + (uint32_t)((h >> 16) & 0xffff) + (uint32_t)((h >> 32) & 0xffff) +
                 (uint32_t)(h >> 48);
    return ((float)s * (1.0f / 65536.0f) - 2.0f) * 1.7320508f;
}

static inline float gd_uni(uint64_t h) { return (float)(h >> 40) * (1.0f / 16777216.0f); }

/* Round to bfloat16, ties to even, as torch does. Inlined here rather than
 * lib's f32_to_bf16 because it runs once per element of a gigabyte. */
static inline float gd_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7f800000u) != 0x7f800000u)
        u += 0x7fffu + ((u >> 16) & 1u);
    else if (u & 0x007fffffu)
        u |= 0x00400000u;          /* keep a NaN a NaN */
    u &= 0xffff0000u;
    memcpy(&f, &u, 4);
    return f;
}

static size_t gd_numel(const gtensor *x)
{
    size_t n = 1;
    for (int i = 0; i < x->nd; i++)
        n *= (size_t)x->sh[i];
    return n;
}

#define GD_CHUNK 4096
#define GD_STEP 0x9e3779b97f4a7c15ULL

/* Position of element i0 in its matrix: row within the last two dimensions
 * and column; both advance element by element in the loops below, which is
 * far cheaper than a division per element. */
typedef struct {
    size_t len, rows, row, col;
} gd_pos;

static void gd_pos_at(gd_pos *p, const gtensor *x, size_t i0)
{
    p->len = x->nd ? (size_t)x->sh[x->nd - 1] : 1;
    p->rows = x->nd >= 2 ? (size_t)x->sh[x->nd - 2] : 1;
    p->col = p->len ? i0 % p->len : 0;
    p->row = p->len ? i0 / p->len % p->rows : 0;
}

static inline void gd_pos_next(gd_pos *p)
{
    if (++p->col == p->len) {
        p->col = 0;
        if (++p->row == p->rows)
            p->row = 0;
    }
}

/* Bench values of elements [i0, i0 + m): one loop per kind, so that the
 * kind is not decided again for every element. */
static void gd_base(const gtensor *x, uint64_t seed, int step, size_t i0, size_t m, float *v)
{
    float r = (float)x->r;
    uint64_t h0 = seed + i0 * GD_STEP;
    size_t k;
    switch (x->kind) {
    case KIND_POS: {    /* probabilities: positive, mean 1/len */
        float sc = 4.0f / (float)x->sh[x->nd - 1];
        for (k = 0; k < m; k++) {
            float u = gd_uni(gd_hash(h0 + k * GD_STEP));
            v[k] = u * u * u * sc;
        }
        return;
    }
    case KIND_GELU:
        for (k = 0; k < m; k++) {
            float z = gd_nrm(gd_hash(h0 + k * GD_STEP));
            v[k] = z > 0 ? r * 0.5f * z : r * 0.05f * z;
        }
        return;
    case KIND_ONE:
        for (k = 0; k < m; k++)
            v[k] = 1.0f + 0.01f * gd_nrm(gd_hash(h0 + k * GD_STEP));
        return;
    case KIND_ZERO:
        for (k = 0; k < m; k++)
            v[k] = step ? r * 0.01f * gd_nrm(gd_hash(h0 + k * GD_STEP)) : 0.0f;
        return;
    case KIND_IDS:
        for (k = 0; k < m; k++)
            v[k] = floorf(gd_uni(gd_hash(h0 + k * GD_STEP)) * r);
        return;
    case KIND_SCALAR:
        v[0] = x->dt == GT_I64 ? r : r * (1.0f + 0.05f * gd_nrm(gd_hash(h0)));
        return;
    case KIND_RANGE:
        for (k = 0; k < m; k++)
            v[k] = (float)(i0 + k);
        return;
    case KIND_ONES:
        for (k = 0; k < m; k++)
            v[k] = 1.0f;
        return;
    default:
        for (k = 0; k < m; k++)
            v[k] = r * 0.5f * gd_nrm(gd_hash(h0 + k * GD_STEP));
        if (x->masked) {    /* masked_fill_ with the causal mask */
            gd_pos p;
            gd_pos_at(&p, x, i0);
            for (k = 0; k < m; k++, gd_pos_next(&p))
                if (p.col > p.row)
                    v[k] = -10000.0f;
        }
        return;
    }
}

/* The target run computed the same tensor elsewhere: a relative drift on
 * every element, a hot spot (a block n/32 long scaled by 1 + hot) and,
 * rarely, an overflow. */
static void gd_perturb(const gtensor *x, uint64_t seed, size_t n, size_t i0, size_t m, float *v)
{
    float d = (float)x->drift;
    if (d > 0) {
        uint64_t h0 = seed + i0 * GD_STEP;
        for (size_t k = 0; k < m; k++)
            v[k] *= 1.0f + d * gd_nrm(gd_hash(h0 + k * GD_STEP));
    }
    size_t hot0 = n / 3, hot1 = hot0 + (n / 32 ? n / 32 : 1), bad_at = n / 2;
    if (x->hot > 0)
        for (size_t i = hot0 > i0 ? hot0 : i0; i < hot1 && i < i0 + m; i++)
            v[i - i0] *= 1.0f + (float)x->hot;
    if (x->bad && bad_at >= i0 && bad_at < i0 + m)
        v[bad_at - i0] = x->bad == 1 ? INFINITY : x->bad == 2 ? -INFINITY : NAN;
}

/* Statistics accumulators: four lanes so the additions do not wait on each
 * other; NaN shows in the sum and is looked for only then. */
typedef struct {
    double sum[4], sq[4];
    float mx, mn;
    int nan;
} gd_stats;

static void gd_acc(gd_stats *s, const float *v, size_t m)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0, q0 = 0, q1 = 0, q2 = 0, q3 = 0;
    float x0 = s->mx, x1 = s->mx, n0 = s->mn, n1 = s->mn;
    size_t k = 0;
    for (; k + 4 <= m; k += 4) {
        double a = v[k], b = v[k + 1], c = v[k + 2], d = v[k + 3];
        s0 += a, s1 += b, s2 += c, s3 += d;
        q0 += a * a, q1 += b * b, q2 += c * c, q3 += d * d;
        x0 = v[k] > x0 ? v[k] : x0;
        x1 = v[k + 1] > x1 ? v[k + 1] : x1;
        x0 = v[k + 2] > x0 ? v[k + 2] : x0;
        x1 = v[k + 3] > x1 ? v[k + 3] : x1;
        n0 = v[k] < n0 ? v[k] : n0;
        n1 = v[k + 1] < n1 ? v[k + 1] : n1;
        n0 = v[k + 2] < n0 ? v[k + 2] : n0;
        n1 = v[k + 3] < n1 ? v[k + 3] : n1;
    }
    for (; k < m; k++) {
        s0 += v[k];
        q0 += (double)v[k] * v[k];
        x0 = v[k] > x0 ? v[k] : x0;
        n0 = v[k] < n0 ? v[k] : n0;
    }
    s->sum[0] += s0, s->sum[1] += s1, s->sum[2] += s2, s->sum[3] += s3;
    s->sq[0] += q0, s->sq[1] += q1, s->sq[2] += q2, s->sq[3] += q3;
    s->mx = x0 > x1 ? x0 : x1;
    s->mn = n0 < n1 ? n0 : n1;
    if (isnan(s0 + s1 + s2 + s3))
        for (k = 0; k < m && !s->nan; k++)
            s->nan = isnan(v[k]);
}

static void gd_keep(G *g, int perm, void *buf)
{
    if (g->nbufs[perm] == g->cbufs[perm]) {
        g->cbufs[perm] = g->cbufs[perm] ? 2 * g->cbufs[perm] : 256;
        g->bufs[perm] = xrealloc(g->bufs[perm], g->cbufs[perm] * sizeof *g->bufs[perm]);
    }
    g->bufs[perm][g->nbufs[perm]++] = buf;
}

/* A bool tensor: the causal attention mask (4-d), or labels.ne(-100),
 * which is all true. Both runs agree. */
static void gd_bool(G *g, gtensor *x, unsigned char *b8, size_t n)
{
    int any = 0, all = 1;
    gd_pos p;
    gd_pos_at(&p, x, 0);
    for (size_t i = 0; i < n; i++, gd_pos_next(&p)) {
        int v = x->nd == 4 ? p.col > p.row : 1;
        b8[i] = (unsigned char)v;
        any |= v;
        all &= v;
    }
    x->v[g->side][0] = any, x->v[g->side][1] = all, x->v[g->side][2] = x->v[g->side][3] = 0;
}

/* Elements of x for this side, in the dtype's storage layout (bf16 as
 * float32 for .npy, as MindSpore saves it); x->v[side] gets their
 * statistics. Made once per job and kept until the tensor's arena goes. */
static void *gd_data(G *g, gtensor *x)
{
    if (x->data)
        return x->data;
    size_t n = gd_numel(x);
    int bf16_native = x->dt == GT_BF16 && !g->o->npy;
    size_t es = x->dt == GT_I64 ? 8 : x->dt == GT_BOOL ? 1 : bf16_native ? 2 : 4;
    void *buf = xmalloc(n ? n * es : 1);
    x->data = buf;
    gd_keep(g, x->perm, buf);
    if (x->dt == GT_BOOL) {
        gd_bool(g, x, buf, n);
        return buf;
    }
    uint64_t s0 = gd_hash(x->seed ^ 0x6a09e667f3bcc909ULL), s1 = gd_hash(x->seed ^ 0xbb67ae8584caa73bULL);
    gd_stats st = {{0, 0, 0, 0}, {0, 0, 0, 0}, -INFINITY, INFINITY, 0};
    float v[GD_CHUNK];
    for (size_t i0 = 0; i0 < n; i0 += GD_CHUNK) {
        size_t m = n - i0 < GD_CHUNK ? n - i0 : GD_CHUNK;
        gd_base(x, s0, g->step, i0, m, v);
        if (g->side == 1)
            gd_perturb(x, s1, n, i0, m, v);
        if (x->dt == GT_I64) {
            int64_t *o = (int64_t *)buf + i0;
            for (size_t k = 0; k < m; k++)
                o[k] = (int64_t)v[k];
        } else if (x->dt == GT_BF16) {
            for (size_t k = 0; k < m; k++)
                v[k] = gd_bf16(v[k]);
            if (bf16_native) {
                uint16_t *o = (uint16_t *)buf + i0;
                for (size_t k = 0; k < m; k++) {
                    uint32_t u;
                    memcpy(&u, &v[k], 4);
                    o[k] = (uint16_t)(u >> 16);
                }
            } else {
                memcpy((float *)buf + i0, v, m * 4);
            }
        } else {
            memcpy((float *)buf + i0, v, m * 4);
        }
        gd_acc(&st, v, m);
    }
    double *out = x->v[g->side];
    if (n) {
        double sum = st.sum[0] + st.sum[1] + st.sum[2] + st.sum[3];
        double sq = st.sq[0] + st.sq[1] + st.sq[2] + st.sq[3];
        /* torch: max/min give NaN when any element is NaN */
        out[0] = st.nan ? NAN : st.mx;
        out[1] = st.nan ? NAN : st.mn;
        out[2] = (float)(sum / (double)n);
        out[3] = (float)sqrt(sq);
        if (x->nd == 0)
            out[1] = out[2] = out[3] = out[0];
        if (x->dt == GT_BF16)
            for (int k = 0; k < 4; k++)
                out[k] = gd_bf16((float)out[k]);
    }
    return buf;
}

/* Free the element buffers of one arena's tensors (0: micro-batch, 1: step). */
static void gd_release(G *g, int perm)
{
    for (size_t i = 0; i < g->nbufs[perm]; i++)
        free(g->bufs[perm][i]);
    g->nbufs[perm] = 0;
    if (perm) {
        free(g->bufs[0]);
        free(g->bufs[1]);
        g->bufs[0] = g->bufs[1] = NULL;
        g->cbufs[0] = g->cbufs[1] = 0;
    }
}

/* ------------------------------------------------------------ data_name */

/* The data_name under construction: "{entry}.{category}", then one
 * ".{index}" or ".{key}" per level of nesting, like msprobe's suffix stack. */
static void dn_begin(G *g, const char *entry, size_t n, const char *category)
{
    g->dn_len = (size_t)snprintf(g->dn, sizeof g->dn, "%.*s.%s", (int)n, entry, category);
    g->dn_fixed = 0;
}

/* parameters_grad: one fixed name for the single tensor of each list. */
static void dn_fixed(G *g, const char *entry, size_t n, const char *param)
{
    dn_begin(g, entry, n, param);
    g->dn_fixed = 1;
}

static size_t dn_push(G *g, const char *part, long idx)
{
    size_t keep = g->dn_len;
    if (g->dn_fixed || !g->o->tensor)
        return keep;
    int k = part ? snprintf(g->dn + keep, sizeof g->dn - keep, ".%s", part)
                 : snprintf(g->dn + keep, sizeof g->dn - keep, ".%ld", idx);
    if (k < 0 || (size_t)k >= sizeof g->dn - keep) {
        fprintf(stderr, "gen_dump: data name too long: %s\n", g->dn);
        exit(1);
    }
    g->dn_len += (size_t)k;
    return keep;
}

static void dn_pop(G *g, size_t keep)
{
    g->dn_len = keep;
    g->dn[keep] = '\0';
}

/* Write the file of the leaf being emitted; its name is g->dn + suffix. */
static void gd_write(G *g, gtensor *x, const char *data_name)
{
    static const dtype_id DT[] = {[GT_F32] = DT_F32, [GT_BF16] = DT_BF16, [GT_I64] = DT_I64,
                                  [GT_BOOL] = DT_BOOL};
    void *data = gd_data(g, x);
    int64_t shape[4];
    for (int i = 0; i < x->nd; i++)
        shape[i] = x->sh[i];
    size_t plen = strlen(g->tdir) + strlen(data_name) + 2;
    char *path = xmalloc(plen);
    snprintf(path, plen, "%s/%s", g->tdir, data_name);
    dtype_id dt = DT[x->dt];
    int rc;
    if (g->o->npy)
        rc = npy_save(path, dt == DT_BF16 ? DT_F32 : dt, x->nd, shape, data);
    else
        rc = pt_save(path, dt, x->nd, shape, data);
    if (rc != 0)
        exit(err_report());
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "gen_dump: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    g->files++;
    g->file_bytes += (unsigned long long)st.st_size;
    free(path);
}

#endif
