/* Training curves (curves.h). */
#include "format/curves.h"
#include "base/mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void curves_init(curves *c)
{
    memset(c, 0, sizeof *c);
    strmap_init(&c->index, 16);
    strmap_init(&c->cfg_index, 16);
}

static void curve_free(curve *s)
{
    if (s->text)
        for (size_t i = 0; i < s->n; i++)
            free(s->text[i]);
    free(s->text);
    free(s->kind);
    free(s->step);
    free(s->value);
    free(s->name);
}

void curves_free(curves *c)
{
    for (size_t i = 0; i < c->n; i++)
        curve_free(&c->v[i]);
    free(c->v);
    for (size_t i = 0; i < c->ncfg; i++) {
        free(c->cfg[i].key);
        free(c->cfg[i].value);
    }
    free(c->cfg);
    strmap_free(&c->index);
    strmap_free(&c->cfg_index);
    memset(c, 0, sizeof *c);
}

/* The index keys point at the names, which move with nothing (each is its
 * own allocation), so growing v does not disturb the map. */
curve *curves_find(const curves *c, const char *name, size_t len)
{
    size_t *at = strmap_get(&c->index, name, len);
    return at ? &c->v[*at] : NULL;
}

curve *curves_get(curves *c, const char *name, size_t len)
{
    curve *s = curves_find(c, name, len);
    if (s)
        return s;
    GROW(c->v, c->cap, c->n + 1);
    s = &c->v[c->n];
    memset(s, 0, sizeof *s);
    s->name = xstrndup(name, len);
    int added;
    strmap_put(&c->index, s->name, len, c->n, &added);
    c->n++;
    return s;
}

void curves_drop_empty(curves *c)
{
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (c->v[i].n == 0)
            curve_free(&c->v[i]);
        else
            c->v[k++] = c->v[i];
    }
    if (k == c->n)
        return;
    c->n = k;
    strmap_clear(&c->index);
    for (size_t i = 0; i < c->n; i++) {
        int added;
        strmap_put(&c->index, c->v[i].name, strlen(c->v[i].name), i, &added);
    }
}

static void room(curve *s, size_t need)
{
    if (need <= s->cap)
        return;
    size_t cap = s->cap;
    GROW(s->step, cap, need);
    s->value = xrealloc(s->value, cap * sizeof *s->value);
    if (s->kind) {
        s->kind = xrealloc(s->kind, cap);
        memset(s->kind + s->cap, 0, cap - s->cap);
    }
    if (s->text) {
        s->text = xrealloc(s->text, cap * sizeof *s->text);
        memset(s->text + s->cap, 0, (cap - s->cap) * sizeof *s->text);
    }
    s->cap = cap;
}

void curve_push(curve *s, int64_t step, double value, int kind)
{
    room(s, s->n + 1);
    if (kind != CV_FLOAT && !s->kind)
        s->kind = xcalloc(s->cap ? s->cap : 1, 1);
    s->step[s->n] = step;
    s->value[s->n] = value;
    if (s->kind)
        s->kind[s->n] = (uint8_t)kind;
    if (s->text)
        s->text[s->n] = NULL;
    s->n++;
}

void curve_push_text(curve *s, int64_t step, const char *text, size_t len)
{
    curve_push(s, step, INFINITY, CV_STR);
    if (!s->text)
        s->text = xcalloc(s->cap, sizeof *s->text);
    s->text[s->n - 1] = xstrndup(text, len);
}

void curve_clear(curve *s)
{
    if (s->text)
        for (size_t i = 0; i < s->n; i++) {
            free(s->text[i]);
            s->text[i] = NULL;
        }
    s->n = 0;
}

static int sorted(const curve *s)
{
    for (size_t i = 1; i < s->n; i++)
        if (s->step[i] <= s->step[i - 1])
            return 0;
    return 1;
}

/* Permute every column of s by order[0..n) (positions into the old
 * order), leaving out those marked in drop. */
static void apply_order(curve *s, const size_t *order, const uint8_t *drop)
{
    int64_t *step = xmalloc_array(s->cap ? s->cap : 1, sizeof *step);
    double *value = xmalloc_array(s->cap ? s->cap : 1, sizeof *value);
    uint8_t *kind = s->kind ? xcalloc(s->cap, 1) : NULL;
    char **text = s->text ? xcalloc(s->cap, sizeof *text) : NULL;
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        size_t j = order[i];
        if (drop && drop[j]) {
            if (s->text)
                free(s->text[j]);
            continue;
        }
        step[k] = s->step[j];
        value[k] = s->value[j];
        if (kind)
            kind[k] = s->kind[j];
        if (text)
            text[k] = s->text[j];
        k++;
    }
    free(s->step);
    free(s->value);
    free(s->kind);
    free(s->text);
    s->step = step;
    s->value = value;
    s->kind = kind;
    s->text = text;
    s->n = k;
}

void curve_settle(curve *s, int keep_last)
{
    if (sorted(s))
        return;
    size_t *order = xmalloc_array(s->n, sizeof *order);
    for (size_t i = 0; i < s->n; i++)
        order[i] = i;
    /* files may hold any order: a merge sort of positions is stable (of
     * equal steps, the one pushed first stays first) and n log n */
    size_t *tmp = xmalloc_array(s->n, sizeof *tmp);
    for (size_t w = 1; w < s->n; w *= 2) {
        for (size_t lo = 0; lo < s->n; lo += 2 * w) {
            size_t mid = lo + w < s->n ? lo + w : s->n, hi = lo + 2 * w < s->n ? lo + 2 * w : s->n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = s->step[order[j]] < s->step[order[i]] ? order[j++] : order[i++];
            while (i < mid)
                tmp[k++] = order[i++];
            while (j < hi)
                tmp[k++] = order[j++];
        }
        memcpy(order, tmp, s->n * sizeof *order);
    }
    free(tmp);
    uint8_t *drop = xcalloc(s->n, 1);
    for (size_t i = 0; i + 1 < s->n; i++)
        if (s->step[order[i]] == s->step[order[i + 1]])
            drop[keep_last ? order[i] : order[i + 1]] = 1;
    apply_order(s, order, drop);
    free(drop);
    free(order);
}

long curve_find_step(const curve *s, int64_t step)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->step[mid] < step)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n && s->step[lo] == step ? (long)lo : -1;
}

void curve_filter(curve *s, const uint8_t *keep)
{
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (!keep[i]) {
            if (s->text)
                free(s->text[i]);
            continue;
        }
        s->step[k] = s->step[i];
        s->value[k] = s->value[i];
        if (s->kind)
            s->kind[k] = s->kind[i];
        if (s->text)
            s->text[k] = s->text[i];
        k++;
    }
    s->n = k;
}

void curve_merge_missing(curve *dst, const curve *src)
{
    size_t before = dst->n;
    for (size_t i = 0; i < src->n; i++) {
        /* both are sorted: the common case (a later file continues the
         * run) appends past the end */
        int64_t st = src->step[i];
        if (before && st <= dst->step[before - 1] && curve_find_step(dst, st) >= 0)
            continue;
        if (curve_kind_at(src, i) == CV_STR)
            curve_push_text(dst, st, src->text[i], strlen(src->text[i]));
        else
            curve_push(dst, st, src->value[i], curve_kind_at(src, i));
    }
    curve_settle(dst, 0);
}

void curves_config_set(curves *c, const char *key, size_t keylen, const char *value, size_t valuelen)
{
    size_t *at = strmap_get(&c->cfg_index, key, keylen);
    if (at) {
        free(c->cfg[*at].value);
        c->cfg[*at].value = xstrndup(value, valuelen);
        return;
    }
    GROW(c->cfg, c->cfgcap, c->ncfg + 1);
    c->cfg[c->ncfg].key = xstrndup(key, keylen);
    c->cfg[c->ncfg].value = xstrndup(value, valuelen);
    int added;
    strmap_put(&c->cfg_index, c->cfg[c->ncfg].key, keylen, c->ncfg, &added);
    c->ncfg++;
}

const char *curves_config_get(const curves *c, const char *key)
{
    size_t *at = strmap_get(&c->cfg_index, key, strlen(key));
    return at ? c->cfg[*at].value : NULL;
}
