/* The newest msprobe's compare keys (acc_compare.py: split_data_name_components,
 * update_backward_call): the backward entries of an API or module are
 * numbered by their order of calls on each side, so that a run which
 * called the forward of an API more often than it ran its backward (a
 * recomputation, a branch without gradient) still pairs the n-th backward
 * with the n-th backward. "Functional.linear.3.backward" called as the
 * first backward of Functional.linear is keyed "Functional.linear.0.backward",
 * "Module.l1.Linear.backward.2" as "Module.l1.Linear.backward.0"; forward
 * entries keep their names.
 *
 * An entry whose name has no forward, backward or parameters_grad among
 * its last two parts is left out of msprobe's compare altogether: its
 * target rows are dropped, its bench rows match nothing. Not with -fm (the
 * fuzzy match drops the numbers anyway) nor for debug.json. */
#include "compare/pipeline/compare.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "base/strmap.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The key of a row no target key equals (a bench row of a dropped entry). */
static const char DROPPED_KEY[] = "\x1e";

static int is_digits(const char *s, size_t n)
{
    if (!n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

enum { DIR_NONE, DIR_FORWARD, DIR_BACKWARD, DIR_GRAD };

/* split_data_name_components(): the length of the name without its call
 * (op_no_number; 0: not a name msprobe compares), the direction, and the
 * last two parts. */
typedef struct {
    size_t base_len;
    int dir;
    const char *p2, *p1;      /* second-to-last and last part */
    size_t n2, n1;
} name_parts;

static void split_name(const char *name, name_parts *np)
{
    memset(np, 0, sizeof *np);
    size_t n = strlen(name);
    const char *d1 = memrchr(name, '.', n);
    np->p1 = d1 ? d1 + 1 : name;
    np->n1 = (size_t)(name + n - np->p1);
    const char *d2 = d1 ? memrchr(name, '.', (size_t)(d1 - name)) : NULL;
    if (d1) {
        np->p2 = d2 ? d2 + 1 : name;
        np->n2 = (size_t)(d1 - np->p2);
    }
#define IS(p, l, w) ((l) == sizeof(w) - 1 && !memcmp((p), (w), sizeof(w) - 1))
    if (d1 && (IS(np->p1, np->n1, "parameters_grad") || IS(np->p2, np->n2, "parameters_grad"))) {
        np->dir = DIR_GRAD;
        np->base_len = (size_t)(d1 - name);
        return;
    }
    static const char *const words[2] = {"forward", "backward"};
    for (int w = 0; w < 2; w++) {
        size_t wl = strlen(words[w]);
        if ((np->n1 == wl && !memcmp(np->p1, words[w], wl)) || (d1 && np->n2 == wl && !memcmp(np->p2, words[w], wl))) {
            np->dir = w == 0 ? DIR_FORWARD : DIR_BACKWARD;
            np->base_len = d2 ? (size_t)(d2 - name) : 0;
            return;
        }
    }
#undef IS
}

/* s with every occurrence of `what` removed (Python's str.replace(what, '')). */
static void remove_all(strbuf *out, const char *s, const char *what, size_t wn)
{
    for (;;) {
        const char *hit = wn ? strstr(s, what) : NULL;
        if (!hit) {
            sb_adds(out, s);
            return;
        }
        sb_add(out, s, (size_t)(hit - s));
        s = hit + wn;
    }
}

typedef struct {
    size_t forward, backward;
} call_counts;

/* The keys of one side: keys[row] (NULL: the row's name) and, for the
 * target, dropped[row]. Returns whether any key differs from its name. */
static int side_keys(const dump_data *d, arena *mem, const char **keys, uint8_t *dropped, int renumber)
{
    strmap seen;
    strmap_init(&seen, d->nentries);
    call_counts *counts = NULL;
    size_t ncounts = 0, cap = 0;
    strbuf key = STRBUF_INIT, head = STRBUF_INIT;
    int changed = 0;
    for (size_t e = 0; e < d->nentries; e++) {
        const dump_entry *en = &d->entries[e];
        if (!en->nrows)
            continue;
        name_parts np;
        split_name(en->name, &np);
        if (!np.base_len) {
            for (size_t r = en->first_row; r < en->first_row + en->nrows; r++) {
                if (dropped)
                    dropped[r] = 1;
                keys[r] = DROPPED_KEY;
            }
            changed = 1;
            continue;
        }
        int added;
        size_t *slot = strmap_put(&seen, en->name, np.base_len, ncounts, &added);
        if (added) {
            GROW(counts, cap, ncounts + 1);
            counts[ncounts].forward = counts[ncounts].backward = 0;
            ncounts++;
        }
        call_counts *cc = &counts[*slot];
        size_t order = np.dir == DIR_BACKWARD ? cc->backward : cc->forward;
        if (np.dir == DIR_FORWARD)
            cc->forward++;
        else if (np.dir == DIR_BACKWARD)
            cc->backward++;
        int hd = is_digits(np.p2, np.n2), td = is_digits(np.p1, np.n1);
        if (!renumber || np.dir != DIR_BACKWARD || !(hd || td))
            continue;
        /* op_no_number . head . tail, a digit part replaced by the order */
        sb_reset(&head);
        sb_add(&head, en->name, np.base_len);
        if (hd)
            sb_addf(&head, ".%zu.", order);
        else
            sb_addc(&head, '.'), sb_add(&head, np.p2, np.n2), sb_addc(&head, '.');
        if (td)
            sb_addf(&head, "%zu", order);
        else
            sb_add(&head, np.p1, np.n1);
        size_t nl = strlen(en->name);
        /* the call already has the number of its order: keys are names */
        if (head.len == nl && !memcmp(head.buf, en->name, nl))
            continue;
        for (size_t r = en->first_row; r < en->first_row + en->nrows; r++) {
            const char *name = d->rows[r].name;
            const char *rest = !strncmp(name, en->name, nl) ? name + nl : NULL;
            if (rest && !strstr(rest, en->name)) {
                /* the usual row: the entry's name, then its place */
                size_t rl = strlen(rest);
                char *k = arena_alloc(mem, head.len + rl + 1);
                memcpy(k, head.buf, head.len);
                memcpy(k + head.len, rest, rl + 1);
                keys[r] = k;
            } else {
                sb_reset(&key);
                sb_add(&key, head.buf, head.len);
                remove_all(&key, name, en->name, nl);
                keys[r] = arena_strndup(mem, key.buf, key.len);
            }
            changed = 1;
        }
    }
    sb_free(&key);
    sb_free(&head);
    free(counts);
    strmap_free(&seen);
    return changed;
}

int newest_keys(compare_ctx *c)
{
    if (c->file_type == DEBUG_JSON)
        return 0;
    int renumber = !c->opts->fuzzy, npu_keyed = c->keys.npu_keys != NULL;
    /* the target's keys count only when no mapping made them (they then go
     * where a mapping's would); its dropped rows always */
    arena scratch;
    arena *mem = npu_keyed ? &scratch : &c->keys.key_mem;
    arena_init(mem, 1 << 16);
    const char **keys = xcalloc(c->npu.nrows + 1, sizeof *keys);
    c->npu_dropped = xcalloc(c->npu.nrows + 1, 1);
    if (side_keys(&c->npu, mem, keys, c->npu_dropped, renumber) && !npu_keyed) {
        for (size_t i = 0; i < c->npu.nrows; i++)
            if (!keys[i])
                keys[i] = c->npu.rows[i].name;
        c->keys.npu_keys = keys;
        keys = NULL;
        mem = NULL;
    }
    free(keys);
    if (mem)
        arena_free(mem);
    /* the newest msprobe renumbers the bench's backward calls even when a
     * mapping made the target's keys from its names, pairing the n-th
     * target call with whichever bench call came n-th; a mapping names
     * rows as the dumps do, so then neither side is renumbered */
    if (npu_keyed)
        renumber = 0;
    keys = xcalloc(c->bench.nrows + 1, sizeof *keys);
    arena_init(&c->bench_key_mem, 1 << 16);
    if (side_keys(&c->bench, &c->bench_key_mem, keys, NULL, renumber)) {
        for (size_t i = 0; i < c->bench.nrows; i++)
            if (!keys[i])
                keys[i] = c->bench.rows[i].name;
        c->bench_keys = keys;
    } else {
        free(keys);
        arena_free(&c->bench_key_mem);
    }
    return 0;
}
