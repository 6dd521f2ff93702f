/* difflib.SequenceMatcher's matching blocks (difflib.h). */
#include "py/difflib.h"
#include "base/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* UTF-8 to code points; a stray byte becomes 0xDC00 + byte. */
static size_t decode(const char *s, size_t n, uint32_t *out)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        uint32_t cp = c;
        int ok = len && i + len <= n;
        if (ok && len > 1) {
            cp = c & (0x7f >> len);
            for (size_t j = 1; j < len; j++) {
                if ((p[i + j] & 0xc0) != 0x80) {
                    ok = 0;
                    break;
                }
                cp = cp << 6 | (p[i + j] & 0x3f);
            }
            static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
            if (ok && (cp < least[len] || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000)))
                ok = 0;
        }
        if (!ok) {
            out[k++] = 0xdc00 + c;
            i++;
        } else {
            out[k++] = cp;
            i += len;
        }
    }
    return k;
}

/* b2j: for each distinct element of b (sorted), the ascending positions
 * where it occurs; popular elements are dropped. */
typedef struct {
    uint32_t *elems;   /* distinct elements, ascending */
    size_t *start;     /* positions of elems[k]: pos[start[k] .. start[k + 1]) */
    size_t *pos;
    size_t n;
} index_b;

typedef struct {
    uint32_t v;
    size_t i;
} pair;

static int pair_cmp(const void *x, const void *y)
{
    const pair *a = x, *b = y;
    if (a->v != b->v)
        return a->v < b->v ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

static void index_build(index_b *ix, const uint32_t *b, size_t nb)
{
    pair *p = xmalloc_array(nb ? nb : 1, sizeof *p);
    for (size_t i = 0; i < nb; i++)
        p[i] = (pair){b[i], i};
    qsort(p, nb, sizeof *p, pair_cmp);
    ix->elems = xmalloc_array(nb ? nb : 1, sizeof *ix->elems);
    ix->start = xmalloc_array(nb + 1, sizeof *ix->start);
    ix->pos = xmalloc_array(nb ? nb : 1, sizeof *ix->pos);
    ix->n = 0;
    size_t npos = 0, popular = nb / 100 + 1;
    for (size_t k = 0; k < nb;) {
        size_t e = k;
        while (e < nb && p[e].v == p[k].v)
            e++;
        if (!(nb >= 200 && e - k > popular)) {
            ix->elems[ix->n] = p[k].v;
            ix->start[ix->n++] = npos;
            for (size_t j = k; j < e; j++)
                ix->pos[npos++] = p[j].i;
        }
        k = e;
    }
    ix->start[ix->n] = npos;
    free(p);
}

static void index_free(index_b *ix)
{
    free(ix->elems);
    free(ix->start);
    free(ix->pos);
}

/* The positions of element v in b, or none. */
static const size_t *index_find(const index_b *ix, uint32_t v, size_t *count)
{
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->elems[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == ix->n || ix->elems[lo] != v) {
        *count = 0;
        return NULL;
    }
    *count = ix->start[lo + 1] - ix->start[lo];
    return ix->pos + ix->start[lo];
}

typedef struct {
    const uint32_t *a, *b;
    const index_b *ix;
    size_t *len0, *len1;       /* j2len of the previous and the current row, by j + 1 */
    size_t *touched0, *touched1;
    size_t ntouched0, ntouched1;
} matcher;

/* find_longest_match(alo, ahi, blo, bhi): *i, *j, *k. */
static void longest(matcher *m, size_t alo, size_t ahi, size_t blo, size_t bhi, size_t *bi, size_t *bj, size_t *bk)
{
    size_t besti = alo, bestj = blo, bestsize = 0;
    m->ntouched0 = 0;
    for (size_t i = alo; i < ahi; i++) {
        size_t cnt;
        const size_t *js = index_find(m->ix, m->a[i], &cnt);
        m->ntouched1 = 0;
        for (size_t t = 0; t < cnt; t++) {
            size_t j = js[t];
            if (j < blo)
                continue;
            if (j >= bhi)
                break;
            size_t k = m->len0[j] + 1;   /* len0 is indexed by j' + 1, so len0[j] is j2len[j - 1] */
            m->len1[j + 1] = k;
            m->touched1[m->ntouched1++] = j + 1;
            if (k > bestsize) {
                besti = i + 1 - k;
                bestj = j + 1 - k;
                bestsize = k;
            }
        }
        /* the previous row is forgotten: only what this row set counts */
        for (size_t t = 0; t < m->ntouched0; t++)
            m->len0[m->touched0[t]] = 0;
        size_t *sw = m->len0;
        m->len0 = m->len1;
        m->len1 = sw;
        sw = m->touched0;
        m->touched0 = m->touched1;
        m->touched1 = sw;
        m->ntouched0 = m->ntouched1;
    }
    for (size_t t = 0; t < m->ntouched0; t++)
        m->len0[m->touched0[t]] = 0;
    /* popular elements were not indexed, yet a match extends over them */
    while (besti > alo && bestj > blo && m->a[besti - 1] == m->b[bestj - 1]) {
        besti--;
        bestj--;
        bestsize++;
    }
    while (besti + bestsize < ahi && bestj + bestsize < bhi && m->a[besti + bestsize] == m->b[bestj + bestsize])
        bestsize++;
    *bi = besti;
    *bj = bestj;
    *bk = bestsize;
}

size_t py_difflib_matches(const char *sa, size_t an, const char *sb, size_t bn)
{
    uint32_t *a = xmalloc_array(an ? an : 1, sizeof *a), *b = xmalloc_array(bn ? bn : 1, sizeof *b);
    size_t la = decode(sa, an, a), lb = decode(sb, bn, b);
    index_b ix;
    index_build(&ix, b, lb);
    matcher m = {a, b, &ix, NULL, NULL, NULL, NULL, 0, 0};
    m.len0 = xcalloc(lb + 1, sizeof *m.len0);
    m.len1 = xcalloc(lb + 1, sizeof *m.len1);
    m.touched0 = xmalloc_array(lb + 1, sizeof *m.touched0);
    m.touched1 = xmalloc_array(lb + 1, sizeof *m.touched1);
    /* the ranges still to match (difflib keeps a queue; the total does not
     * depend on the order) */
    size_t (*todo)[4] = NULL, ntodo = 0, cap = 0, total = 0;
    GROW(todo, cap, 1);
    todo[ntodo][0] = 0, todo[ntodo][1] = la, todo[ntodo][2] = 0, todo[ntodo][3] = lb;
    ntodo++;
    while (ntodo) {
        ntodo--;
        size_t alo = todo[ntodo][0], ahi = todo[ntodo][1], blo = todo[ntodo][2], bhi = todo[ntodo][3];
        size_t i, j, k;
        longest(&m, alo, ahi, blo, bhi, &i, &j, &k);
        if (!k)
            continue;
        total += k;
        GROW(todo, cap, ntodo + 2);
        if (alo < i && blo < j) {
            todo[ntodo][0] = alo, todo[ntodo][1] = i, todo[ntodo][2] = blo, todo[ntodo][3] = j;
            ntodo++;
        }
        if (i + k < ahi && j + k < bhi) {
            todo[ntodo][0] = i + k, todo[ntodo][1] = ahi, todo[ntodo][2] = j + k, todo[ntodo][3] = bhi;
            ntodo++;
        }
    }
    free(todo);
    free(m.len0);
    free(m.len1);
    free(m.touched0);
    free(m.touched1);
    index_free(&ix);
    free(a);
    free(b);
    return total;
}

double py_difflib_ratio(const char *a, size_t an, const char *b, size_t bn)
{
    /* the lengths in elements: decode once more is cheap next to matching */
    uint32_t *tmp = xmalloc_array((an > bn ? an : bn) + 1, sizeof *tmp);
    size_t la = decode(a, an, tmp), lb = decode(b, bn, tmp);
    free(tmp);
    if (la + lb == 0)
        return 1.0;
    return 2.0 * (double)py_difflib_matches(a, an, b, bn) / (double)(la + lb);
}
