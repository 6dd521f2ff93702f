/* Exact matching (spec/compare.md §4.2, §4.5): a full outer join of target
 * and bench rows on (name, shape) with pandas' ordering — keys in order of
 * first appearance on the target side, several rows with one key give their
 * cartesian product at the key's first position, bench-only rows are
 * dropped — then pairs whose dtypes are incompatible become unmatched. */
#include "compare.h"
#include "log.h"
#include "strmap.h"

#include <stdlib.h>
#include <string.h>

static const char *const float_group_ms[] = {"Float16", "Float32", "BFloat16", NULL};
static const char *const float_group_pt[] = {"torch.float16", "torch.float32", "torch.bfloat16", NULL};

static int in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(s, *list))
            return 1;
    return 0;
}

/* MindSpore target vs PyTorch bench: both sides' dtypes are reduced to
 * int / float / bool / complex before comparing. */
static const char *cross_dtype(const char *d)
{
    static const char *const ints[] = {"Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64",
                                       "torch.int8", "torch.uint8", "torch.int16", "torch.uint16", "torch.int32",
                                       "torch.uint32", "torch.int64", "torch.uint64", NULL};
    static const char *const floats[] = {"Float16", "Float32", "Float64", "BFloat16", "torch.float16",
                                         "torch.float32", "torch.float64", "torch.bfloat16", NULL};
    static const char *const bools[] = {"Bool", "torch.bool", NULL};
    static const char *const complexes[] = {"Complex64", "Complex128", "torch.complex64", "torch.complex128", NULL};
    if (in_list(d, ints))
        return "int";
    if (in_list(d, floats))
        return "float";
    if (in_list(d, bools))
        return "bool";
    if (in_list(d, complexes))
        return "complex";
    return d;
}

int dtype_compatible(const char *a, const char *b, int cross_frame)
{
    if (cross_frame) {
        a = cross_dtype(a);
        b = cross_dtype(b);
    }
    if (!strcmp(a, b))
        return 1;
    return (in_list(a, float_group_ms) && in_list(b, float_group_ms)) ||
           (in_list(a, float_group_pt) && in_list(b, float_group_pt));
}

/* "name\x1fshape": the join key. */
static const char *make_key(arena *a, const dump_row *r, size_t *len)
{
    size_t ln = strlen(r->name), ls = strlen(r->shape);
    char *k = arena_alloc(a, ln + ls + 2);
    memcpy(k, r->name, ln);
    k[ln] = 0x1f;
    memcpy(k + ln + 1, r->shape, ls + 1);
    *len = ln + ls + 1;
    return k;
}

static void push(compare_ctx *c, size_t *cap, const dump_row *n, const dump_row *b)
{
    if (c->npairs == *cap) {
        *cap = *cap ? *cap * 2 : 1024;
        c->pairs = xrealloc(c->pairs, *cap * sizeof *c->pairs);
    }
    c->pairs[c->npairs].n = n;
    c->pairs[c->npairs].b = b;
    c->npairs++;
}

int match_exact(compare_ctx *c)
{
    const dump_data *N = &c->npu, *B = &c->bench;
    arena keys;
    arena_init(&keys, 1 << 20);
    const size_t none = (size_t)-1;

    /* bench: key -> first row, with a chain to later rows of the same key */
    strmap bmap;
    strmap_init(&bmap, B->nrows);
    size_t *bnext = xmalloc_array(B->nrows + 1, sizeof *bnext);
    size_t *btail = xmalloc_array(B->nrows + 1, sizeof *btail);
    for (size_t i = 0; i < B->nrows; i++) {
        size_t len;
        const char *k = make_key(&keys, &B->rows[i], &len);
        int added;
        size_t *first = strmap_put(&bmap, k, len, i, &added);
        bnext[i] = none;
        btail[i] = i;
        if (!added) {
            bnext[btail[*first]] = i;
            btail[*first] = i;
        }
    }

    /* target: group rows by key at the first occurrence */
    strmap nmap;
    strmap_init(&nmap, N->nrows);
    size_t *nfirst = xmalloc_array(N->nrows + 1, sizeof *nfirst);
    size_t *nnext = xmalloc_array(N->nrows + 1, sizeof *nnext);
    size_t *ntail = xmalloc_array(N->nrows + 1, sizeof *ntail);
    size_t *bhead = xmalloc_array(N->nrows + 1, sizeof *bhead);
    for (size_t i = 0; i < N->nrows; i++) {
        size_t len;
        const char *k = make_key(&keys, &N->rows[i], &len);
        int added;
        size_t *first = strmap_put(&nmap, k, len, i, &added);
        nfirst[i] = *first;
        nnext[i] = none;
        ntail[i] = i;
        if (!added) {
            nnext[ntail[*first]] = i;
            ntail[*first] = i;
        } else {
            size_t *b = strmap_get(&bmap, k, len);
            bhead[i] = b ? *b : none;
        }
    }

    size_t cap = 0;
    c->pairs = NULL;
    c->npairs = 0;
    int cross = c->cross_frame;
    for (size_t i = 0; i < N->nrows; i++) {
        if (nfirst[i] != i)
            continue;
        for (size_t n = i; n != none; n = nnext[n]) {
            if (bhead[i] == none) {
                push(c, &cap, &N->rows[n], NULL);
                continue;
            }
            for (size_t b = bhead[i]; b != none; b = bnext[b]) {
                const dump_row *br = &B->rows[b];
                if (!dtype_compatible(N->rows[n].dtype, br->dtype, cross))
                    br = NULL;
                push(c, &cap, &N->rows[n], br);
            }
        }
    }

    free(bnext);
    free(btail);
    free(nfirst);
    free(nnext);
    free(ntail);
    free(bhead);
    strmap_free(&bmap);
    strmap_free(&nmap);
    arena_free(&keys);
    return 0;
}
