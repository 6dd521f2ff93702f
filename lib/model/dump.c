/* The loader of dump.h: one streaming pass over a mapped dump.json. The
 * top-level members are walked one by one (dump_walk); each entry of
 * "data" is flattened into rows as soon as it is read -- the common shape
 * straight from the text (dump_stream), anything else through a parsed
 * tree (dump_leaf) -- and its rows put in msprobe's order, so only the
 * rows stay in memory and the pages already parsed are let go. Entry names
 * are first checked for repeats by sorting 64-bit hashes of them (radix.h);
 * only a file where two hashes meet is read a second time with a map,
 * which gives a repeated name Python's dict semantics. Also here: the
 * name rule that splits a row name into API and state, and msprobe's
 * value and md5 checks.
 */
#include "model/dump.h"
#include "model/dump_leaf.h"
#include "model/dump_stream.h"
#include "model/dump_walk.h"
#include "base/files.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/radix.h"
#include "format/json.h"
#include "py/pdnum.h"
#include "py/pystr.h"
#include "base/strbuf.h"
#include "base/strmap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static int starts_with_word(const char *s, size_t n, const char *w)
{
    size_t l = strlen(w);
    return n > l && memcmp(s, w, l) == 0 && s[l] == '.';
}

int row_name_state(const char *name, size_t *api_len, int *state)
{
    size_t n = strlen(name);
    /* One pass over the dot-separated components: "debug" and
     * "parameters_grad" anywhere, and the first two ".forward." /
     * ".backward." the regex \.(forward|backward)\. would find (a component
     * with a dot on both sides; the second may not share the first's
     * trailing dot). */
    int debug = 0, pgrad = 0;
    size_t m1 = (size_t)-1, m2 = (size_t)-1, wl = 0;
    size_t end1 = 0;
    for (const char *c = name, *end = name + n; c <= end;) {
        const char *dot = memchr(c, '.', (size_t)(end - c));
        size_t len = dot ? (size_t)(dot - c) : (size_t)(end - c);
        debug |= len == 5 && !memcmp(c, "debug", 5);
        pgrad |= len == 15 && !memcmp(c, "parameters_grad", 15);
        if (dot && c > name && ((len == 7 && !memcmp(c, "forward", 7)) || (len == 8 && !memcmp(c, "backward", 8)))) {
            size_t start = (size_t)(c - 1 - name);
            if (m1 == (size_t)-1) {
                m1 = start;
                wl = len;
                end1 = m1 + wl + 2;
            } else if (m2 == (size_t)-1 && start >= end1) {
                m2 = start;
            }
        }
        if (!dot)
            break;
        c = dot + 1;
    }
    if (debug) {
        *api_len = (size_t)(strstr(name, "debug") - name);
        *state = ST_DEBUG;
        return 0;
    }
    if (pgrad) {
        *api_len = (size_t)(strstr(name, "parameters_grad") - name);
        *state = ST_PARAMS_GRAD;
        return 0;
    }
    if (m1 == (size_t)-1)
        return -1;
    /* The regex split continues after the first match: the third part ends
     * where a second ".forward."/".backward." starts. */
    size_t part_end = m2 == (size_t)-1 ? n : m2;
    const char *p = name + end1;
    size_t pn = part_end - end1;
    if (memchr(p, '\n', pn))
        return -1;
    size_t digits = 0;
    while (digits < pn && p[digits] >= '0' && p[digits] <= '9')
        digits++;
    size_t group1 = 0;
    if (digits > 0 && digits < pn && p[digits] == '.')
        group1 = digits + 1;
    static const char *const words[] = {"input", "output", "kwargs", "parameters"};
    static const int states[] = {ST_INPUT, ST_OUTPUT, ST_KWARGS, ST_PARAMS};
    for (int attempt = 0; attempt < 2; attempt++) {
        size_t off = attempt == 0 ? group1 : 0;
        if (attempt == 1 && group1 == 0)
            break;
        for (int w = 0; w < 4; w++) {
            if (starts_with_word(p + off, pn - off, words[w]) && pn - off > strlen(words[w]) + 1) {
                *api_len = end1 + off;
                *state = states[w];
                return 0;
            }
        }
    }
    return -1;
}


/* msprobe's check_dump_json_str(): value checks on inputs and outputs. */
static int check_value(flattener *f, const char *key, size_t keylen, const jval *v)
{
    if (keylen == 5 && !memcmp(key, "shape", 5) && v->type != J_ARRAY)
        return err_input(f->d->path, "shape of input or output of %s is not list or tuple, please check!", f->entry_name);
    if (keylen == 13 && !memcmp(key, "requires_grad", 13) && v->type != J_TRUE && v->type != J_FALSE)
        return err_input(f->d->path, "requires_grad of input or output of %s is not bool, please check!", f->entry_name);
    if (v->type == J_STRING && py_blacklisted(v->u.str, v->len))
        return err_input(f->d->path, "data info of %s contains special characters, please check!", f->entry_name);
    return 0;
}

static int check_item(flattener *f, const jval *v, int depth)
{
    if (depth > FLATTEN_MAX_DEPTH)
        return 0; /* msprobe only logs here */
    if (v->type == J_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++)
            if (check_item(f, &v->u.items[i], depth + 1))
                return -1;
    } else if (v->type == J_OBJECT) {
        for (uint32_t i = 0; i < v->len; i++) {
            const jval *item = json_member_value(v, i);
            if (!item)
                continue;
            const jmember *m = &v->u.members[i];
            int rc = item->type == J_OBJECT ? check_item(f, item, depth + 1) : check_value(f, m->key, m->keylen, item);
            if (rc)
                return rc;
        }
    }
    return 0;
}

static int check_entry(flattener *f, const jval *entry)
{
    const jval *in = json_get(entry, "input_args");
    if (!json_truthy(in))
        in = json_get(entry, "input");
    const jval *args[3] = {in, json_get(entry, "input_kwargs"), json_get(entry, "output")};
    for (int i = 0; i < 3; i++) {
        const jval *a = args[i];
        if (!json_truthy(a))
            continue;
        if (a->type == J_OBJECT) {
            if (check_item(f, a, 0))
                return -1;
        } else if (a->type == J_ARRAY) {
            for (uint32_t k = 0; k < a->len; k++)
                if (json_truthy(&a->u.items[k]) && check_item(f, &a->u.items[k], 0))
                    return -1;
        }
    }
    return 0;
}

static int contains_md5(const jval *v)
{
    if (v->type == J_OBJECT)
        return json_get(v, "md5") != NULL;
    if (v->type == J_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++)
            if (json_str_eq(&v->u.items[i], "md5"))
                return 1;
        return 0;
    }
    if (v->type == J_STRING) {
        for (uint32_t i = 0; i + 3 <= v->len; i++)
            if (!memcmp(v->u.str + i, "md5", 3))
                return 1;
    }
    return 0;
}

/* msprobe's md5_find() for one entry of dump.json. */
static int entry_has_md5(const jval *entry)
{
    for (uint32_t i = 0; i < entry->len; i++) {
        const jval *v = json_member_value(entry, i);
        if (!v)
            continue;
        if (v->type == J_ARRAY)
            for (uint32_t k = 0; k < v->len; k++)
                if (json_truthy(&v->u.items[k]) && contains_md5(&v->u.items[k]))
                    return 1;
        if (v->type == J_TRUE || v->type == J_FALSE)
            continue;
        if (json_truthy(v) && contains_md5(v))
            return 1;
    }
    return 0;
}

/* md5_find() for debug.json: a dict with key "md5" at any depth. */
static int debug_has_md5(const jval *v, int depth)
{
    if (depth > 50)
        return 0;
    if (v->type == J_OBJECT) {
        if (json_get(v, "md5"))
            return 1;
        for (uint32_t i = 0; i < v->len; i++)
            if (debug_has_md5(&v->u.members[i].val, depth + 1))
                return 1;
    } else if (v->type == J_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++)
            if (debug_has_md5(&v->u.items[i], depth + 1))
                return 1;
    }
    return 0;
}

static int state_rank(int state)
{
    switch (state) {
    case ST_PARAMS: return 1;
    case ST_OUTPUT: return 2;
    case ST_PARAMS_GRAD: return 3;
    default: return 0;
    }
}

/* Rows of one entry: compute states, then stable re-order: inputs/kwargs/
 * debug, parameters, outputs, parameters_grad (msprobe's reorder_op_x_list,
 * routed by state as the spec recommends instead of name substrings). */
static int finish_entry(flattener *f, size_t first)
{
    dump_data *d = f->d;
    size_t n = d->nrows - first;
    int need_sort = 0, prev = 0;
    for (size_t i = first; i < d->nrows; i++) {
        dump_row *r = &d->rows[i];
        size_t api_len;
        int state;
        if (row_name_state(r->name, &api_len, &state) != 0) {
            /* msprobe 8.2 and later carry the state of the member a row
             * comes from, and the newest leaves out an entry whose name has
             * no direction (compare/pipeline/call_order.c) */
            if (!f->newer_rows)
                return err_input(d->path,
                                 "Invalid name string: %s, can not be split by forward/backward, please check.",
                                 r->name);
            state = r->state;
            api_len = strlen(r->name);
        }
        r->state = (uint8_t)state;
        r->api_len = (uint32_t)api_len;
        int rank = state_rank(state);
        if (rank < prev)
            need_sort = 1;
        prev = rank > prev ? rank : prev;
    }
    if (need_sort) {
        dump_row *tmp = xmalloc_array(n, sizeof *tmp);
        size_t k = 0;
        for (int rank = 0; rank < 4; rank++)
            for (size_t i = first; i < d->nrows; i++)
                if (state_rank(d->rows[i].state) == rank)
                    tmp[k++] = d->rows[i];
        memcpy(d->rows + first, tmp, n * sizeof *tmp);
        free(tmp);
    }
    return 0;
}

/* The members of an entry read_op() reads, in this order, and the prefix
 * of their rows. */
static const char *const io_keys[5] = {"input_args", "input_kwargs", "input", "output", "parameters"};
static const char *const io_names[5] = {".input", ".input", ".input", ".output", ".parameters"};
static const uint8_t io_states[5] = {ST_INPUT, ST_INPUT, ST_INPUT, ST_OUTPUT, ST_PARAMS};

/* Entry names: a dump's names are unique, and a hash map over half a
 * million of them costs a cache miss or two per entry. So the first reading
 * only keeps a 64-bit hash of each name (`hashes`, seen == NULL) and checks
 * them by sorting at the end; a file where two hashes meet is read again
 * with the map, which handles a repeated name as Python does. */
typedef struct {
    strmap *seen;         /* NULL: the first reading */
    uint64_t *hashes;
    size_t cap;
} entry_names;

/* One entry of `data`: its value is at jp (mem holds its escaped strings).
 * The common shape is read straight from the text into rows
 * (dump_stream_entry); anything else is parsed into a tree and walked. */
static int add_entry(flattener *f, entry_names *en, const char *key, size_t keylen, jparser *jp, arena *mem)
{
    dump_data *d = f->d;
    int blacklisted = py_blacklisted(key, keylen);
    /* debug.json values are arbitrary items (a saved list, a bare leaf,
     * None); only entries read through input/output keys must be objects. */
    f->in_params_grad = dump_has_component(key, keylen, "parameters_grad");
    int whole = f->in_params_grad || dump_has_component(key, keylen, "debug");
    f->parse_state = f->in_params_grad ? ST_PARAMS_GRAD : ST_DEBUG;
    size_t first = d->nrows;
    char *name = arena_strndup(&d->mem, key, keylen);
    f->entry_name = name;
    sb_reset(&f->prefix);
    sb_add(&f->prefix, key, keylen);
    int streamed = !blacklisted && !whole && !f->tree_walk && d->file_type == DUMP_JSON &&
                   dump_stream_entry(f, jp, mem, keylen);
    jval value;
    if (!streamed) {
        /* a malformed value is reported before a bad name */
        if (jp_value(jp, mem, &value) != 0)
            return -1;
        if (blacklisted)
            return err_input(d->path, "api name contains special characters, please check!");
        if (value.type != J_OBJECT && !whole)
            return err_input(d->path, "entry %.*s of 'data' is not an object", (int)(keylen > 200 ? 200 : keylen),
                             key);
    }
    int added = 1;
    size_t *slot = NULL;
    if (en->seen) {
        slot = strmap_put(en->seen, name, keylen, d->nentries, &added);
    } else {
        GROW(en->hashes, en->cap, d->nentries + 1);
        en->hashes[d->nentries] = strmap_hash64_end(strmap_hash64(0, name, keylen));
    }
    GROW(d->entries, d->entries_cap, d->nentries + 1);
    /* Rows are always appended; a repeated name (the last value wins in a
     * Python dict, at the first position) re-points the earlier entry. */
    size_t index = added ? d->nentries : *slot;
    d->entries[d->nentries].name = name;
    d->nentries++;

    if (!streamed && d->file_type == DUMP_JSON && value.type == J_OBJECT && check_entry(f, &value) != 0)
        return -1;
    /* per entry, so that a repeated name counts with its last value only;
     * the streamed shape holds no md5 (dump_stream_entry gives up on one) */
    GROW(f->md5, f->md5_cap, d->nentries);
    f->md5[index] = (uint8_t)(streamed ? 0
                              : d->file_type == DUMP_JSON ? value.type == J_OBJECT && entry_has_md5(&value)
                                                          : debug_has_md5(&value, 0));

    int rc = 0;
    if (!streamed && whole) {
        rc = dump_flatten(f, &value, 0);
    } else if (!streamed) {
        for (int i = 0; i < 5 && rc == 0; i++) {
            const jval *part = json_get(&value, io_keys[i]);
            if (!part)
                continue;
            f->prefix.len = keylen;
            sb_adds(&f->prefix, io_names[i]);
            f->parse_state = io_states[i];
            rc = dump_flatten(f, part, 0);
        }
    }
    if (rc == 0)
        rc = finish_entry(f, first);
    if (rc)
        return rc;
    for (size_t i = first; i < d->nrows; i++)
        d->rows[i].entry = (uint32_t)index;
    d->entries[index].first_row = first;
    d->entries[index].nrows = d->nrows - first;
    if (!added) {
        d->nentries--;
        f->dups = 1;
    }
    return 0;
}

/* After a repeated entry name the replaced rows are orphans: rebuild the
 * row array in entry order so that every consumer can walk rows directly. */
static void compact_rows(dump_data *d)
{
    size_t total = 0;
    for (size_t e = 0; e < d->nentries; e++)
        total += d->entries[e].nrows;
    dump_row *rows = xmalloc_array(total ? total : 1, sizeof *rows);
    size_t k = 0;
    for (size_t e = 0; e < d->nentries; e++) {
        memcpy(rows + k, d->rows + d->entries[e].first_row, d->entries[e].nrows * sizeof *rows);
        d->entries[e].first_row = k;
        k += d->entries[e].nrows;
    }
    free(d->rows);
    d->rows = rows;
    d->nrows = d->rows_cap = total;
}

/* The framework a "type": value at p (just after the colon) names, or 0.
 * Python reads the file with universal newlines, so '\r' ends a line and
 * \s* never crosses it; other whitespace is what valid JSON can hold. */
static int type_framework(const char *q, const char *end)
{
    while (q < end && (*q == ' ' || *q == '\t' || *q == '\f' || *q == '\v'))
        q++;
    if ((size_t)(end - q) >= 10 && !memcmp(q, "\"mindspore", 10))
        return 'm';
    if ((size_t)(end - q) >= 6 && !memcmp(q, "\"torch", 6))
        return 'p';
    return 0;
}

static void scan_framework(dump_data *d, const char *buf, size_t len)
{
    /* msprobe's fallback when "framework" is missing: the first line that
     * matches "type":\s*"mindspore or "type":\s*"torch decides, and on that
     * line mindspore is tested first (it wins even when torch comes
     * earlier, as on a one-line file). */
    const char *p = buf, *end = buf + len;
    while ((p = memmem(p, (size_t)(end - p), "\"type\":", 7)) != NULL) {
        int fw = type_framework(p + 7, end);
        if (fw == 'p') {
            const char *eol = p + 7;
            while (eol < end && *eol != '\n' && *eol != '\r')
                eol++;
            for (const char *q = p + 7; (q = memmem(q, (size_t)(eol - q), "\"type\":", 7)) != NULL; q += 7)
                if (type_framework(q + 7, eol) == 'm') {
                    fw = 'm';
                    break;
                }
        }
        if (fw) {
            d->framework_hint = fw;
            return;
        }
        p += 7;
    }
}

static char *json_string_copy(const jval *v)
{
    return v && v->type == J_STRING ? xstrndup(v->u.str, v->len) : NULL;
}

int dump_load(const char *path, dump_data *d) { return dump_load_ex(path, 0, d); }

int dump_load_ex(const char *path, unsigned flags, dump_data *d) { return dump_load_progress(path, flags, NULL, d); }

/* Parsed bytes are reported in steps of this much: one atomic add per
 * step, not per entry. */
#define REPORT_STEP (256u << 10)

/* The top level of a dump.json: "data" flattened entry by entry, "task"
 * and "framework" kept. */
typedef struct {
    flattener *f;
    progress_job *pj;
    const char *path;
    strmap seen;          /* entry names of the current "data" */
    entry_names names;
    int have_data;
    size_t reported;
    const mapped_file *map;
    size_t dropped;       /* the mapping's pages before this were let go */
} dump_reading;

/* Rows hold copies of what they need, so the pages parsed are let go as the
 * parse moves on: the process holds its rows, not the whole JSON. */
#define DROP_STEP (32u << 20)

static int dump_member(void *ctx, jparser *jp, const char *key, size_t keylen, arena *scratch)
{
    dump_reading *r = ctx;
    dump_data *d = r->f->d;
    if (dump_key_is(key, keylen, "data")) {
        if (dump_data_begin(jp, r->path) != 0)
            return -1;
        /* A repeated "data" key replaces the earlier one, as in Python. */
        d->nrows = d->nentries = 0;
        if (r->names.seen) {
            strmap_free(&r->seen);
            strmap_init(&r->seen, 1024);
        }
        r->have_data = 1;
        arena entry_mem;
        arena_init(&entry_mem, 256 * 1024);
        for (;;) {
            const char *name;
            size_t namelen;
            int m = jp_object_next(jp, &entry_mem, &name, &namelen);
            if (m > 0 && add_entry(r->f, &r->names, name, namelen, jp, &entry_mem) != 0)
                m = -1;
            arena_reset(&entry_mem);
            size_t parsed = (size_t)(jp->p - jp->start);
            if (parsed - r->reported >= REPORT_STEP) {
                progress_add(r->pj, parsed - r->reported);
                r->reported = parsed;
            }
            if (parsed - r->dropped >= DROP_STEP) {
                file_map_drop(r->map, r->dropped, parsed);
                r->dropped = parsed;
            }
            if (m <= 0) {
                arena_free(&entry_mem);
                return m;
            }
        }
    }
    jval v;
    if (jp_value(jp, scratch, &v) != 0)
        return -1;
    if (dump_key_is(key, keylen, "task")) {
        free(d->task);
        d->task = json_string_copy(&v);
        d->task_present = json_truthy(&v);
    } else if (dump_key_is(key, keylen, "framework")) {
        free(d->framework);
        d->framework = json_string_copy(&v);
    }
    return 0;
}

/* Whether two of the n hashes are equal. */
static int hashes_meet(uint64_t *h, size_t n)
{
    radix_sort_u64(h, n, sizeof *h);
    for (size_t i = 1; i < n; i++)
        if (h[i] == h[i - 1])
            return 1;
    return 0;
}

/* One reading of the file; `first`: by hashes of the entry names (returns
 * 1 when two of them meet: read again with first == 0). */
static int load_pass(const char *path, unsigned flags, progress_job *pj, dump_data *d, int first)
{
    memset(d, 0, sizeof *d);
    d->path = xstrdup(path);
    char *base = path_basename(path);
    d->file_type = strcmp(base, "debug.json") == 0 ? DEBUG_JSON : DUMP_JSON;
    free(base);
    arena_init(&d->mem, 1 << 20);

    mapped_file map;
    if (file_map(path, 0, &map) != 0)
        return -1;
    if (map.size == 0) {
        file_unmap(&map);
        return err_input(path, "is empty");
    }
    progress_expect(pj, map.size);
    /* The mapping is read until the end of this function (the framework
     * scan included); names and texts are copied out of it. */
    file_guard guard;
    file_guard_begin(&guard, &map);
    flattener f = {.d = d,
                   .first_diff = (flags & DUMP_FIRST_DIFF) != 0,
                   .newer_rows = (flags & (DUMP_FIRST_DIFF | DUMP_NEWER_ROWS)) != 0,
                   .tree_walk = (flags & DUMP_TREE_WALK) != 0,
                   .prefix = STRBUF_INIT,
                   .tmp = STRBUF_INIT};
    jparser jp;
    jp_init(&jp, path, map.data, map.size);
    arena scratch;
    arena_init(&scratch, 256 * 1024);
    dump_reading r = {.f = &f, .pj = pj, .path = path, .map = &map};
    if (!first)
        r.names.seen = &r.seen;
    int rc = -1;
    if (dump_walk_members(&jp, path, &scratch, dump_member, &r) != 0)
        goto out;
    if (!r.have_data) {
        err_input(path, "has no 'data' object: not a msprobe dump file");
        goto out;
    }
    if (first && hashes_meet(r.names.hashes, d->nentries)) {
        rc = 1;
        goto out;
    }
    if (f.dups)
        compact_rows(d);
    for (size_t e = 0; e < d->nentries && !d->has_md5; e++)
        d->has_md5 = f.md5[e];
    if (!d->framework || (strcmp(d->framework, "pytorch") != 0 && strcmp(d->framework, "mindspore") != 0))
        scan_framework(d, (const char *)map.data, map.size);
    progress_add(pj, map.size - r.reported);
    rc = 0;
out:
    if (file_guard_end(&guard) != 0)
        rc = -1;
    strmap_free(&r.seen);
    free(r.names.hashes);
    arena_free(&scratch);
    jp_free(&jp);
    sb_free(&f.prefix);
    sb_free(&f.tmp);
    free(f.md5);
    file_unmap(&map);
    return rc;
}

int dump_load_progress(const char *path, unsigned flags, progress_job *pj, dump_data *d)
{
    int rc = load_pass(path, flags, pj, d, 1);
    if (rc == 1) {
        dump_free(d);
        rc = load_pass(path, flags, pj, d, 0);
    }
    return rc;
}

void dump_init(dump_data *d, const char *path)
{
    memset(d, 0, sizeof *d);
    d->path = xstrdup(path);
    d->file_type = DUMP_JSON;
    arena_init(&d->mem, 1 << 16);
}

void dump_clear(dump_data *d)
{
    d->nrows = d->nentries = d->np2p = 0;
    strmap_clear(&d->interned);
    arena_reset(&d->mem);
}

int dump_entry_has_md5(const jval *entry) { return entry->type == J_OBJECT && entry_has_md5(entry); }

int dump_entry_rows(dump_data *d, const char *name, size_t namelen, const jval *value, dump_leaf_fn leaf, void *ctx)
{
    flattener f = {.d = d, .prefix = STRBUF_INIT, .tmp = STRBUF_INIT, .on_row = leaf, .on_row_ctx = ctx,
                   .p2pop_row = d->p2pop_rows};
    f.entry_name = arena_strndup(&d->mem, name, namelen);
    GROW(d->entries, d->entries_cap, d->nentries + 1);
    dump_entry *e = &d->entries[d->nentries++];
    e->name = f.entry_name;
    e->first_row = d->nrows;
    f.in_params_grad = dump_has_component(name, namelen, "parameters_grad");
    int whole = f.in_params_grad || dump_has_component(name, namelen, "debug");
    int rc = 0;
    sb_add(&f.prefix, name, namelen);
    if (whole) {
        rc = dump_flatten(&f, value, 0);
    } else if (value->type == J_OBJECT) {
        for (int i = 0; i < 5 && rc == 0; i++) {
            const jval *part = json_get(value, io_keys[i]);
            if (!part)
                continue;
            f.prefix.len = namelen;
            sb_adds(&f.prefix, io_names[i]);
            rc = dump_flatten(&f, part, 0);
        }
    }
    for (size_t i = e->first_row; i < d->nrows && rc == 0; i++) {
        dump_row *r = &d->rows[i];
        size_t api_len;
        int state;
        if (row_name_state(r->name, &api_len, &state) != 0) {
            state = ST_UNKNOWN;
            api_len = 0;
        }
        r->state = (uint8_t)state;
        r->api_len = (uint32_t)api_len;
        r->entry = (uint32_t)(d->nentries - 1);
    }
    e->nrows = d->nrows - e->first_row;
    sb_free(&f.prefix);
    sb_free(&f.tmp);
    return rc;
}

int dump_entry_check(dump_data *d, const char *name, size_t namelen, const jval *value)
{
    flattener f = {.d = d};
    f.entry_name = arena_strndup(&d->mem, name, namelen);
    int whole = dump_has_component(name, namelen, "parameters_grad") || dump_has_component(name, namelen, "debug");
    if (py_blacklisted(name, namelen))
        return err_input(d->path, "api name contains special characters, please check!");
    if (value->type != J_OBJECT && !whole)
        return err_input(d->path, "entry %.*s of 'data' is not an object", (int)(namelen > 200 ? 200 : namelen), name);
    if (value->type == J_OBJECT && check_entry(&f, value) != 0)
        return -1;
    size_t first = d->nrows;
    if (dump_entry_rows(d, name, namelen, value, NULL, NULL) != 0)
        return -1;
    for (size_t i = first; i < d->nrows; i++) {
        size_t api_len;
        int state;
        if (row_name_state(d->rows[i].name, &api_len, &state) != 0)
            return err_input(d->path, "Invalid name string: %s, can not be split by forward/backward, please check.",
                             d->rows[i].name);
    }
    return 0;
}

int dump_framework_text(const char *framework, const void *buf, size_t len)
{
    if (framework && !strcmp(framework, "pytorch"))
        return 'p';
    if (framework && !strcmp(framework, "mindspore"))
        return 'm';
    dump_data d;
    memset(&d, 0, sizeof d);
    scan_framework(&d, (const char *)buf, len);
    return d.framework_hint;
}

int dump_framework(const dump_data *d)
{
    if (d->framework && !strcmp(d->framework, "pytorch"))
        return 'p';
    if (d->framework && !strcmp(d->framework, "mindspore"))
        return 'm';
    return d->framework_hint;
}

void dump_free(dump_data *d)
{
    free(d->path);
    free(d->task);
    free(d->framework);
    free(d->rows);
    free(d->entries);
    free(d->p2p);
    strmap_free(&d->interned);
    arena_free(&d->mem);
    memset(d, 0, sizeof *d);
}
