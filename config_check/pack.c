/* Reading packs in place, and the sheets of the checkers (pack.h). */
#include "config_check/pack.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "format/json.h"
#include "py/pystr.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int pack_open(pack *p, const char *path)
{
    memset(p, 0, sizeof *p);
    p->path = path;
    if (!path_has_suffix(path, ".zip"))
        return err_set(ERR_USAGE, path, "a config_check pack must be a .zip file");
    if (file_map(path, 0, &p->f) != 0)
        return -1;
    file_guard_begin(&p->guard, &p->f);
    if (zip_open(&p->z, path, p->f.data, p->f.size) != 0
        || zip_index(&p->z, ZIP_MAX_ENTRIES, PACK_MAX_ENTRY, PACK_MAX_TOTAL) != 0) {
        err_record e;
        err_take(&e);
        if (pack_close(p) != 0)
            err_record_free(&e); /* the file changed: that is the error */
        else
            err_restore(&e);
        return -1;
    }
    return 0;
}

int pack_close(pack *p)
{
    if (!p->f.path)
        return 0;
    zip_close(&p->z);
    int rc = file_guard_end(&p->guard);
    file_unmap(&p->f);
    return rc;
}

const zip_entry *pack_file(const pack *p, const char *name)
{
    return zip_find(&p->z, name, strlen(name));
}

int pack_exists(const pack *p, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < p->z.count; i++) {
        const zip_entry *e = &p->z.entries[i];
        if (e->name_len >= n && !memcmp(e->name, name, n) && (e->name_len == n || e->name[n] == '/'))
            return 1;
    }
    return 0;
}

size_t pack_files_under(const pack *p, const char *dir, const zip_entry ***out)
{
    size_t n = strlen(dir), k = 0;
    *out = xmalloc_array(p->z.count ? p->z.count : 1, sizeof **out);
    /* the index is in name order */
    for (size_t i = 0; i < p->z.count; i++) {
        const zip_entry *e = &p->z.entries[p->z.sorted[i]];
        if (e->name_len > n + 1 && !memcmp(e->name, dir, n) && e->name[n] == '/' && e->name[e->name_len - 1] != '/')
            (*out)[k++] = e;
    }
    return k;
}

int pack_read(pack *p, const zip_entry *e, const unsigned char **data, size_t *size, void **owned)
{
    return zip_read(&p->z, e, PACK_MAX_ENTRY, data, size, owned);
}

const char *pack_where(const pack *p, const char *name, size_t len, arena *a)
{
    strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "%s:%.*s", p->path, (int)len, name);
    const char *s = arena_strndup(a, sb.buf, sb.len);
    sb_free(&sb);
    return s;
}

int pack_json(pack *p, const zip_entry *e, arena *a, jval *out)
{
    const unsigned char *d;
    size_t n;
    void *owned;
    if (pack_read(p, e, &d, &n, &owned) != 0)
        return -1;
    /* strings without escapes point into the data: keep a copy in the arena
     * so that values outlive the inflated buffer and the mapping */
    char *copy = arena_alloc(a, n + 1);
    memcpy(copy, d, n);
    copy[n] = 0;
    free(owned);
    return json_parse(pack_where(p, e->name, e->name_len, a), copy, n, a, out);
}

/* ---- sheets ------------------------------------------------------------- */

void sheet_init(cc_sheet *s, const char *name, const char *const *header, int ncols)
{
    memset(s, 0, sizeof *s);
    s->name = name;
    s->header = header;
    s->ncols = ncols;
    s->pass = 1;
}

void sheet_row(cc_sheet *s, const cell *row)
{
    GROW(s->cells, s->cap, (s->nrows + 1) * (size_t)s->ncols);
    memcpy(s->cells + s->nrows * (size_t)s->ncols, row, (size_t)s->ncols * sizeof *row);
    s->nrows++;
}

void sheet_free(cc_sheet *s)
{
    free(s->cells);
    s->cells = NULL;
    s->nrows = s->cap = 0;
}

cell cc_text(cc_ctx *c, const char *s, size_t n) { return cell_str(arena_strndup(c->a, s, n), n); }

cell cc_number(double x)
{
    if (isnan(x)) {
        cell e = {CELL_EMPTY, 0, NULL, 0};
        return e;
    }
    return cell_num(x);
}

cell cc_value(cc_ctx *c, const jval *v)
{
    cell e = {CELL_EMPTY, 0, NULL, 0};
    if (!v)
        return e;
    switch (v->type) {
    case J_NULL:
        return e;
    case J_TRUE:
    case J_FALSE:
        return cell_bool(v->type == J_TRUE);
    case J_NUMBER:
        return cc_number(v->u.num);
    case J_STRING:
        return cc_text(c, v->u.str, v->len);
    default: {
        strbuf sb = STRBUF_INIT;
        py_str_json(&sb, v);
        cell r = cc_text(c, sb_str(&sb), sb.len);
        sb_free(&sb);
        return r;
    }
    }
}

int cc_int_of(const char *s, size_t n, const char *remove, long long *out)
{
    /* the name with every `remove` taken out */
    strbuf sb = STRBUF_INIT;
    size_t rl = strlen(remove);
    for (size_t i = 0; i < n;) {
        if (rl && i + rl <= n && !memcmp(s + i, remove, rl)) {
            i += rl;
            continue;
        }
        sb_addc(&sb, s[i++]);
    }
    const char *p = sb_str(&sb), *end = p + sb.len;
    /* int(): surrounding whitespace, a sign, digits with single '_'
     * between them */
    while (p < end && isspace((unsigned char)*p))
        p++;
    while (end > p && isspace((unsigned char)end[-1]))
        end--;
    int neg = 0, rc = -1;
    if (p < end && (*p == '+' || *p == '-'))
        neg = *p++ == '-';
    unsigned long long v = 0;
    int digits = 0, prev_us = 0;
    for (; p < end; p++) {
        if (*p == '_' && digits && !prev_us) {
            prev_us = 1;
            continue;
        }
        if (*p < '0' || *p > '9' || v > (ULLONG_MAX - 9) / 10)
            goto done;
        v = v * 10 + (unsigned)(*p - '0');
        digits++;
        prev_us = 0;
    }
    if (digits && !prev_us && v <= (unsigned long long)LLONG_MAX) {
        *out = neg ? -(long long)v : (long long)v;
        rc = 0;
    }
done:
    sb_free(&sb);
    return rc;
}
