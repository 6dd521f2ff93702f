/* The vector kernels of metrics_kern.c for one instruction set: included
 * once per set, with
 *   KSFX            suffix of the function names (base, avx2, avx512)
 *   KATTR           the attribute that selects the set (empty: the build's own)
 *   KW              the vector width in bytes: 16, 32 or 64
 *   VF VI VD VL VH  vectors of KW/4 floats, KW/4 int32, KW/8 doubles,
 *                   KW/8 int64 and KW/4 uint16
 *   LO_IDX HI_IDX   the indices of the first and second half of a VF
 *   KMAXF KMINF KMAXD   maximum / minimum of two vectors that hold no NaN
 *                   that matters (see below)
 *   KF16(p)         optional: KW/4 float16 at p as a VF, by instruction
 *   KDLO KDHI       optional: the halves of a VF as VD, by instruction
 *   KWIDEN(p)       optional: KW/4 uint16 at p zero-extended to a VI
 *   KFMAD KMAXABSD KCOUNT KEPS  optional: faster forms of the generic ones below
 *
 * A block is 16 elements: 16 / (KW/4) float vectors. The relative error is
 * computed on those in float (exactly numpy's float32 or float16 arithmetic);
 * the sums on doubles: the block's 16 values as double vectors e[0..2*NA),
 * where the sums' eight lanes are NA vectors and lane k adds x[k]*y[k], then
 * x[k+8]*y[k+8]. The same lanes, in the same order, for every width: the
 * results are bit-identical across instruction sets. */

#define KN2(a, b) a##_##b
#define KN1(a, b) KN2(a, b)
#define KN(name) KN1(name, KSFX)
#define KINLINE static inline __attribute__((always_inline)) KATTR

#define NF (KW / 4)           /* float lanes */
#define ND (KW / 8)           /* double lanes */
#define NB (KERN_BLOCK / NF)  /* float vectors per block */
#define NA (8 / ND)           /* double vectors per eight-lane sum */
#ifndef PFD
#define PFD 2048
#endif

/* Generic forms of the operations a set may do in fewer instructions. */
#ifndef KFMAD
#define KFMAD(a, b, c) ((a) * (b) + (c))
#endif
#ifndef KMAXABSD
#define KMAXABSD(m, d) KMAXD(m, KN(dabs)(d))
#endif
#ifndef KCOUNT
#define KCOUNT(c, r, t) ((c) -= (r) < (t))
#endif
#ifndef KEPS
#define KEPS(xn, yn, en, eb)                                                                                  \
    do {                                                                                                     \
        VF e_ = (VF)((yn == 0) & epsbits);                                                                   \
        if (en)                                                                                              \
            xn += e_;                                                                                        \
        if (eb)                                                                                              \
            yn += e_;                                                                                        \
    } while (0)
#endif

/* The branch-free float16 -> float32 conversion of tensor.c on a vector of
 * zero-extended patterns. */
KINLINE VF KN(half_to_float)(VI h)
{
    VI sign = (h & 0x8000) << 16;
    VI em = h & 0x7fff;
    VI finite = (VI)((VF)(em << 13) * 0x1p112f);
    VI special = 0x7f800000 | (em & 0x3ff) << 13;
    VI big = em >= 0x7c00;
    return (VF)(((big & special) | (~big & finite)) | sign);
}

/* NF elements from element i of a float32 / bfloat16 / float16 stream. */
KINLINE VF KN(ldf)(const unsigned char *p, size_t i, int ld)
{
    if (ld == LD_F32) {
        VF v;
        memcpy(&v, p + 4 * i, sizeof v);
        return v;
    }
#ifdef KF16
    if (ld == LD_F16)
        return KF16(p + 2 * i);
#endif
#ifdef KWIDEN
    VI w = KWIDEN(p + 2 * i);
#else
    VH h;
    memcpy(&h, p + 2 * i, sizeof h);
    VI w = __builtin_convertvector(h, VI);
#endif
    if (ld == LD_BF16)
        return (VF)(w << 16);
    return KN(half_to_float)(w);
}

/* The first and second half of a float vector as doubles (KDLO / KDHI when
 * the generic form compiles to more than one conversion). */
#ifdef KDLO
KINLINE VD KN(dlo)(VF x) { return KDLO(x); }
KINLINE VD KN(dhi)(VF x) { return KDHI(x); }
#else
KINLINE VD KN(dlo)(VF x) { return __builtin_convertvector(__builtin_shufflevector(x, x, LO_IDX), VD); }
KINLINE VD KN(dhi)(VF x) { return __builtin_convertvector(__builtin_shufflevector(x, x, HI_IDX), VD); }
#endif
KINLINE VD KN(dabs)(VD v) { return (VD)((VL)v & INT64_MAX); }
KINLINE VF KN(fabsv)(VF v) { return (VF)((VI)v & INT32_MAX); }

/* round_to_half without leaving float: adding and subtracting
 * c = 1.5 * 2^(e+13), where 2^e is x's binade clamped to the normal half
 * range [2^-14, 2^15], rounds x to a multiple of the half ulp 2^(e-10) with
 * ties to even (c is an even multiple of that ulp and x + c stays inside c's
 * binade). Below 2^-14 the clamp gives the subnormal step 2^-24. A result
 * above 65504 (the largest half) becomes inf by multiplying it with inf;
 * NaN stays NaN. (binade is never NaN, so min/max see no NaN.) */
KINLINE VF KN(round_half)(VF x)
{
    const VF lo = (VF){0} + 0x1p-14f, hi = (VF){0} + 0x1p15f;
    VF binade = (VF)((VI)x & 0x7f800000); /* 2^e, or 0, or inf */
    VF c = KMINF(KMAXF(binade, lo), hi) * 0x1.8p13f;
    VF r = (x + c) - c;
    VI big = KN(fabsv)(r) > 65504.0f;
    VF scale = (VF)((big & (0x7f800000 ^ 0x3f800000)) ^ 0x3f800000); /* inf or 1 */
    return r * scale;
}

/* The kernel, specialised by the compiler for each operand format and rule
 * (the arguments after a are constants at every call). */
KINLINE void KN(kern)(const unsigned char *px, const unsigned char *py, size_t len, float t1f, float t5f,
                      float eps, chunk_acc *a, int ldn, int ldb, int half, int en, int eb)
{
    /* eps as its bits, for the generic KEPS's mask */
    int32_t eps_i;
    memcpy(&eps_i, &eps, sizeof eps_i);
    const VI epsbits = (VI){0} + eps_i;
    (void)epsbits;
    VD dot[NA], nn[NA], bb[NA], dd[NA], ma[NA];
    for (int j = 0; j < NA; j++)
        dot[j] = nn[j] = bb[j] = dd[j] = ma[j] = (VD){0};
    VF mr = (VF){0};
    VI rn = (VI){0}, c1 = (VI){0}, c5 = (VI){0};
    const VF t1 = (VF){0} + t1f, t5 = (VF){0} + t5f;
    for (size_t i = 0; i < len; i += KERN_BLOCK) {
        VD ex[2 * NA], ey[2 * NA];
        __builtin_prefetch(px + (ldn == LD_F32 ? 4 : 2) * i + PFD);
        __builtin_prefetch(py + (ldb == LD_F32 ? 4 : 2) * i + PFD);
        for (int v = 0; v < NB; v++) {
            VF x = KN(ldf)(px, i + (size_t)(v * NF), ldn), y = KN(ldf)(py, i + (size_t)(v * NF), ldb);
            ex[2 * v] = KN(dlo)(x);
            ex[2 * v + 1] = KN(dhi)(x);
            ey[2 * v] = KN(dlo)(y);
            ey[2 * v + 1] = KN(dhi)(y);
            VF r;
            if (half) {
                r = KN(fabsv)(KN(round_half)(x - y) / y);
            } else {
                /* eps (0x1p-52f) where the bench is 0, on the sides that add it */
                VF xn = x, yn = y;
                KEPS(xn, yn, en, eb);
                r = KN(fabsv)((xn - yn) / yn);
            }
            /* with eps on the bench side no divisor is 0: no NaN */
            if (half || !eb)
                rn |= r != r;
            KCOUNT(c1, r, t1);
            KCOUNT(c5, r, t5);
            mr = KMAXF(mr, r);
        }
        /* Products of float values are exact in double, so a fused
         * multiply-add rounds as a multiplication and an addition do: the
         * sets with FMA use it for these three sums; (x - y)^2 is not exact,
         * so dd rounds the product everywhere. */
        for (int j = 0; j < NA; j++) {
            VD x0 = ex[j], x1 = ex[j + NA], y0 = ey[j], y1 = ey[j + NA];
            dot[j] = KFMAD(x1, y1, KFMAD(x0, y0, dot[j]));
            nn[j] = KFMAD(x1, x1, KFMAD(x0, x0, nn[j]));
            bb[j] = KFMAD(y1, y1, KFMAD(y0, y0, bb[j]));
            VD d0 = x0 - y0, d1 = x1 - y1;
            VD q0 = d0 * d0, q1 = d1 * d1;
            dd[j] = (dd[j] + q0) + q1;
            ma[j] = KMAXABSD(KMAXABSD(ma[j], d0), d1);
        }
    }
    kern_lanes k;
    memcpy(k.dot, dot, sizeof k.dot);
    memcpy(k.nn, nn, sizeof k.nn);
    memcpy(k.bb, bb, sizeof k.bb);
    memcpy(k.dd, dd, sizeof k.dd);
    memcpy(k.ma, ma, sizeof k.ma);
    memcpy(k.mr, &mr, sizeof mr);
    memcpy(k.rn, &rn, sizeof rn);
    memcpy(k.c1, &c1, sizeof c1);
    memcpy(k.c5, &c5, sizeof c5);
    kern_finish(&k, NF, half, a);
}

/* One function per operand pair and rule: the 9 pairs of in-place formats
 * with the rule their dtypes imply, and float32 buffers (converted from
 * strided or byte-swapped views) with each of the 4 rules. */
#define KDEF(fmt_n, fmt_b, h, e_n, e_b, tag)                                                                    \
    static KATTR void KN(tag)(const unsigned char *px, const unsigned char *py, size_t len, float t1, float t5, \
                              float eps, chunk_acc *a)                                                          \
    {                                                                                                           \
        KN(kern)(px, py, len, t1, t5, eps, a, fmt_n, fmt_b, h, e_n, e_b);                                       \
    }
KDEF(LD_F32, LD_F32, 0, 1, 1, f32_f32)
KDEF(LD_BF16, LD_BF16, 0, 1, 1, bf16_bf16)
KDEF(LD_F16, LD_F16, 1, 0, 0, f16_f16)
KDEF(LD_BF16, LD_F32, 0, 1, 1, bf16_f32)
KDEF(LD_F32, LD_BF16, 0, 1, 1, f32_bf16)
KDEF(LD_F16, LD_F32, 0, 0, 1, f16_f32)
KDEF(LD_F32, LD_F16, 0, 1, 0, f32_f16)
KDEF(LD_F16, LD_BF16, 0, 0, 1, f16_bf16)
KDEF(LD_BF16, LD_F16, 0, 1, 0, bf16_f16)
KDEF(LD_F32, LD_F32, 1, 0, 0, buf_half)
KDEF(LD_F32, LD_F32, 0, 0, 1, buf_eb)
KDEF(LD_F32, LD_F32, 0, 1, 0, buf_en)
KDEF(LD_F32, LD_F32, 0, 0, 0, buf_none)
#undef KDEF

/* The kernel of a rule; the caller checked that the level is available. */
static metrics_kern_fn *KN(pick)(const kern_rule *r)
{
    static metrics_kern_fn *const direct[3][3] = {
        {KN(f32_f32), KN(f32_bf16), KN(f32_f16)},
        {KN(bf16_f32), KN(bf16_bf16), KN(bf16_f16)},
        {KN(f16_f32), KN(f16_bf16), KN(f16_f16)},
    };
    if (r->ldn != LD_F32 || r->ldb != LD_F32 || (r->en && r->eb && !r->half)) {
        /* in-place formats: the rule must be the one the pair implies */
        int h = r->ldn == LD_F16 && r->ldb == LD_F16;
        if (r->half != h || r->en != (r->ldn != LD_F16) || r->eb != (r->ldb != LD_F16))
            return NULL;
        return direct[r->ldn][r->ldb];
    }
    if (r->half)
        return r->en || r->eb ? NULL : KN(buf_half);
    return r->eb ? KN(buf_eb) : r->en ? KN(buf_en) : KN(buf_none);
}

static KATTR __attribute__((unused)) void KN(round_half4)(const float *in, float *out)
{
    VF x = (VF){0};
    memcpy(&x, in, 4 * sizeof(float));
    x = KN(round_half)(x);
    memcpy(out, &x, 4 * sizeof(float));
}

#undef KN2
#undef KN1
#undef KN
#undef KINLINE
#undef NF
#undef ND
#undef NB
#undef NA
#undef KFMAD
#undef KMAXABSD
#undef KCOUNT
#undef KEPS
/* the instance's parameters (metrics_kern.c defines them before each
 * inclusion) */
#undef HI_IDX
#undef KATTR
#undef KDHI
#undef KDLO
#undef KF16
#undef KMAXD
#undef KMAXF
#undef KMINF
#undef KSFX
#undef KW
#undef KWIDEN
#undef LO_IDX
#undef VD
#undef VF
#undef VH
#undef VI
#undef VL
