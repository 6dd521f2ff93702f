/* xlsx reading (see xlsx_read.h): package relationships → workbook → sheet
 * parts, shared strings, then the rows of one sheet as a stream. */
#include "format/xlsx_read.h"
#include "base/arena.h"
#include "base/files.h"
#include "base/err.h"
#include "base/mem.h"
#include "py/pystr.h"
#include "base/strbuf.h"
#include "format/xmltok.h"
#include "format/zip.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Small parts (relationships, workbook) never need to be large. */
#define MAX_META_PART ((uint64_t)64 << 20)

struct xlsx_book {
    char *path;
    mapped_file file;
    zip_archive zip;
    size_t nsheets;
    char **names, **parts;
    strbuf sst;              /* shared strings, NUL-separated */
    size_t *sst_off;
    size_t nsst, capsst;
};

/* ---- package structure ------------------------------------------------------ */

/* The part a relationship target names, relative to the directory of the
 * part that holds the relationship ("xl/"); malloc'ed. */
static char *resolve_target(const char *dir, const char *target)
{
    strbuf sb = STRBUF_INIT;
    if (target[0] == '/')
        target++;
    else
        sb_adds(&sb, dir);
    for (const char *p = target; *p;) {
        const char *slash = strchr(p, '/');
        size_t n = slash ? (size_t)(slash - p) : strlen(p);
        if (n == 2 && !memcmp(p, "..", 2)) {
            /* drop the last directory of what we have */
            if (sb.len)
                sb.len--;
            while (sb.len && sb.buf[sb.len - 1] != '/')
                sb.len--;
        } else if (!(n == 1 && p[0] == '.') && n) {
            sb_add(&sb, p, n);
            if (slash)
                sb_addc(&sb, '/');
        }
        p += n + (slash ? 1 : 0);
    }
    sb_addc(&sb, 0);
    return sb_detach(&sb);
}

static const zip_entry *part_entry(const xlsx_book *b, const char *name)
{
    return zip_find(&b->zip, name, strlen(name));
}

typedef struct {
    char **id, **target, **type;
    size_t n, cap;
} rels;

static void rels_free(rels *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->id[i]);
        free(r->target[i]);
        free(r->type[i]);
    }
    free(r->id);
    free(r->target);
    free(r->type);
    memset(r, 0, sizeof *r);
}

/* Read a relationships part; a missing part is no relationship at all. */
static int read_rels(xlsx_book *b, const char *part, rels *r)
{
    memset(r, 0, sizeof *r);
    const zip_entry *e = part_entry(b, part);
    if (!e)
        return 0;
    xml_reader x;
    if (xml_open(&x, &b->zip, e, b->path, MAX_META_PART) != 0)
        return -1;
    int ev;
    while ((ev = xml_next(&x)) > 0) {
        if (ev != XML_START || !xml_is(&x, "Relationship"))
            continue;
        const char *id = xml_attr_value(&x, "Id", NULL), *target = xml_attr_value(&x, "Target", NULL);
        const char *type = xml_attr_value(&x, "Type", NULL);
        if (!id || !target) {
            xml_fail(&x, "a Relationship without Id or Target");
            ev = XML_FAIL;
            break;
        }
        if (r->n == r->cap) {
            /* three arrays, one capacity */
            size_t cap = r->cap, cap2 = r->cap;
            GROW(r->id, r->cap, r->n + 1);
            GROW(r->target, cap, r->n + 1);
            GROW(r->type, cap2, r->n + 1);
        }
        r->id[r->n] = xstrdup(id);
        r->target[r->n] = xstrdup(target);
        r->type[r->n] = xstrdup(type ? type : "");
        r->n++;
    }
    xml_close(&x);
    if (ev < 0)
        rels_free(r);
    return ev < 0 ? -1 : 0;
}

static const char *rel_by_type(const rels *r, const char *suffix)
{
    size_t n = strlen(suffix);
    for (size_t i = 0; i < r->n; i++) {
        size_t m = strlen(r->type[i]);
        if (m >= n && !strcmp(r->type[i] + m - n, suffix))
            return r->target[i];
    }
    return NULL;
}

static const char *rel_by_id(const rels *r, const char *id)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->id[i], id))
            return r->target[i];
    return NULL;
}

static int read_workbook(xlsx_book *b, const char *part, const rels *wr, const char *dir)
{
    const zip_entry *e = part_entry(b, part);
    if (!e)
        return err_input(b->path, "malformed xlsx: no workbook part %s (not an xlsx file?)", part);
    xml_reader x;
    if (xml_open(&x, &b->zip, e, b->path, MAX_META_PART) != 0)
        return -1;
    int ev;
    size_t cap = 0;
    while ((ev = xml_next(&x)) > 0) {
        if (ev != XML_START || !xml_is(&x, "sheet"))
            continue;
        const char *name = xml_attr_value(&x, "name", NULL), *id = xml_attr_value(&x, "id", NULL);
        const char *target = id ? rel_by_id(wr, id) : NULL;
        if (!name || !target) {
            xml_fail(&x, "sheet %s has no name or no relationship", name ? name : "?");
            ev = XML_FAIL;
            break;
        }
        if (b->nsheets == cap) {
            size_t cap2 = cap;
            GROW(b->names, cap, b->nsheets + 1);
            GROW(b->parts, cap2, b->nsheets + 1);
        }
        b->names[b->nsheets] = xstrdup(name);
        b->parts[b->nsheets] = resolve_target(dir, target);
        b->nsheets++;
    }
    xml_close(&x);
    if (ev < 0)
        return -1;
    if (!b->nsheets)
        return err_input(b->path, "malformed xlsx: the workbook has no sheet");
    return 0;
}

/* ---- shared strings ------------------------------------------------------------ */

static void sst_push(xlsx_book *b, size_t start)
{
    /* openpyxl's read_string_table removes "x005F_" from every string */
    char *s = b->sst.buf ? b->sst.buf + start : NULL;
    size_t n = b->sst.len - start;
    if (s && n >= 6) {
        size_t o = 0;
        for (size_t i = 0; i < n;) {
            if (i + 6 <= n && !memcmp(s + i, "x005F_", 6)) {
                i += 6;
                continue;
            }
            s[o++] = s[i++];
        }
        b->sst.len = start + o;
    }
    sb_addc(&b->sst, 0);
    GROW(b->sst_off, b->capsst, b->nsst + 1);
    b->sst_off[b->nsst++] = start;
}

static int read_shared_strings(xlsx_book *b, const char *part)
{
    const zip_entry *e = part_entry(b, part);
    if (!e)
        return 0;
    xml_reader x;
    if (xml_open(&x, &b->zip, e, b->path, XLSX_MAX_PART_SIZE) != 0)
        return -1;
    int ev, in_si = 0, in_t = 0, in_rph = 0;
    size_t start = 0;
    while ((ev = xml_next(&x)) > 0) {
        if (ev == XML_START) {
            if (xml_is(&x, "si")) {
                in_si = 1;
                start = b->sst.len;
            } else if (xml_is(&x, "rPh")) {
                in_rph++;
            } else if (xml_is(&x, "t")) {
                in_t = in_si && !in_rph;
            }
        } else if (ev == XML_END) {
            if (xml_is(&x, "si") && in_si) {
                sst_push(b, start);
                in_si = 0;
            } else if (xml_is(&x, "rPh")) {
                in_rph--;
            } else if (xml_is(&x, "t")) {
                in_t = 0;
            }
        } else if (in_t) {
            sb_add(&b->sst, x.text, x.text_len);
        }
    }
    xml_close(&x);
    return ev < 0 ? -1 : 0;
}

/* ---- opening ------------------------------------------------------------------- */

static int open_parts(xlsx_book *b)
{
    rels pkg, wb;
    if (read_rels(b, "_rels/.rels", &pkg) != 0)
        return -1;
    const char *doc = rel_by_type(&pkg, "/officeDocument");
    char *workbook = resolve_target("", doc ? doc : "xl/workbook.xml");
    rels_free(&pkg);
    /* xl/workbook.xml → xl/ and xl/_rels/workbook.xml.rels */
    const char *slash = strrchr(workbook, '/');
    size_t dlen = slash ? (size_t)(slash + 1 - workbook) : 0;
    char *dir = xstrndup(workbook, dlen);
    strbuf rp = STRBUF_INIT;
    sb_addf(&rp, "%s_rels/%s.rels", dir, workbook + dlen);
    int rc = read_rels(b, sb_str(&rp), &wb);
    if (rc == 0) {
        rc = read_workbook(b, workbook, &wb, dir);
        const char *sst = rel_by_type(&wb, "/sharedStrings");
        char *sst_part = resolve_target(dir, sst ? sst : "sharedStrings.xml");
        if (rc == 0)
            rc = read_shared_strings(b, sst_part);
        free(sst_part);
        rels_free(&wb);
    }
    sb_free(&rp);
    free(dir);
    free(workbook);
    return rc;
}

static int open_book(xlsx_book *b, const char *path)
{
    if (b->file.size < 4 || memcmp(b->file.data, "PK\3\4", 4))
        return err_input(path, "malformed xlsx: %s", b->file.size ? "not a zip package" : "the file is empty");
    if (zip_open(&b->zip, b->path, b->file.data, b->file.size) != 0) {
        /* zip.c says what is wrong with the archive; say it is about xlsx */
        char msg[1024];
        const char *m = err_message();
        size_t plen = strlen(path);
        if (!strncmp(m, path, plen) && !strncmp(m + plen, ": ", 2))
            m += plen + 2;
        snprintf(msg, sizeof msg, "%s", m);
        err_clear();
        return err_input(path, "malformed xlsx: %s", msg);
    }
    return open_parts(b);
}

xlsx_book *xlsx_open(const char *path)
{
    xlsx_book *b = xcalloc(1, sizeof *b);
    b->path = xstrdup(path);
    if (file_map(path, XLSX_MAX_FILE_SIZE - 1, &b->file) != 0) {
        xlsx_close(b);
        return NULL;
    }
    /* Every read of the mapping is guarded (files.h): here and in
     * xlsx_read_rows. */
    file_guard g;
    file_guard_begin(&g, &b->file);
    int rc = open_book(b, path);
    if (file_guard_end(&g) != 0)
        rc = -1;
    if (rc != 0) {
        xlsx_close(b);
        return NULL;
    }
    return b;
}

void xlsx_close(xlsx_book *b)
{
    if (!b)
        return;
    if (b->zip.entries)
        zip_close(&b->zip);
    file_unmap(&b->file);
    for (size_t i = 0; i < b->nsheets; i++) {
        free(b->names[i]);
        free(b->parts[i]);
    }
    free(b->names);
    free(b->parts);
    sb_free(&b->sst);
    free(b->sst_off);
    free(b->path);
    free(b);
}

size_t xlsx_sheet_count(const xlsx_book *b) { return b->nsheets; }

const char *xlsx_sheet_name(const xlsx_book *b, size_t index) { return index < b->nsheets ? b->names[index] : NULL; }

long xlsx_sheet_find(const xlsx_book *b, const char *name)
{
    for (size_t i = 0; i < b->nsheets; i++)
        if (!strcmp(b->names[i], name))
            return (long)i;
    return -1;
}

/* ---- sheets ------------------------------------------------------------------- */

enum cell_type { CT_NUM, CT_SHARED, CT_INLINE, CT_STR, CT_BOOL, CT_ERROR };
#define NOT_OWN ((size_t)-1)

typedef struct {
    xml_reader x;
    xlsx_book *b;
    xcell *cells;            /* the current row */
    size_t *own;             /* per cell: offset of its text in `text`, or NOT_OWN */
    size_t ncells, capcells;
    strbuf text;             /* strings of the current row */
    size_t row;
    long col;
    int type, has_value, has_inline, in_v, in_t, in_rph, in_is;
    size_t value_start;
} sheet_state;

static int parse_uint(const char *s, size_t n, uint64_t *out)
{
    while (n && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    if (!n || n > 18)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return 0;
}

/* "AB12" → column 27 (0-based); the row part is not needed. */
static long column_of(const char *ref)
{
    long col = 0;
    const char *p = ref;
    while (*p >= 'A' && *p <= 'Z') {
        col = col * 26 + (*p - 'A' + 1);
        if (col > XLSX_MAX_COLS)
            return -1;
        p++;
    }
    if (p == ref || *p < '1' || *p > '9')
        return -1;
    return col - 1;
}

static int start_cell(sheet_state *s)
{
    const char *ref = xml_attr_value(&s->x, "r", NULL), *t = xml_attr_value(&s->x, "t", NULL);
    long col = ref ? column_of(ref) : s->col + 1;
    if (col < 0 || col >= XLSX_MAX_COLS)
        return xml_fail(&s->x, "a bad cell reference '%s'", ref ? ref : "");
    s->col = col;
    s->type = !t || !strcmp(t, "n")   ? CT_NUM
              : !strcmp(t, "s")       ? CT_SHARED
              : !strcmp(t, "inlineStr") ? CT_INLINE
              : !strcmp(t, "b")       ? CT_BOOL
              : !strcmp(t, "e")       ? CT_ERROR
                                        : CT_STR;   /* "str", "d" */
    s->has_value = s->has_inline = 0;
    s->value_start = s->text.len;
    return 0;
}

static int end_cell(sheet_state *s)
{
    size_t col = (size_t)s->col;
    if (col >= s->capcells) {
        /* two arrays, one capacity */
        size_t cap = s->capcells;
        GROW(s->cells, s->capcells, col + 1);
        GROW(s->own, cap, col + 1);
    }
    while (s->ncells <= col) {
        memset(&s->cells[s->ncells], 0, sizeof *s->cells);
        s->own[s->ncells++] = NOT_OWN;
    }
    xcell *c = &s->cells[col];
    memset(c, 0, sizeof *c);
    s->own[col] = NOT_OWN;
    const char *v = s->text.buf ? s->text.buf + s->value_start : "";
    size_t n = s->text.len - s->value_start;
    if (s->type == CT_INLINE) {
        if (s->has_inline) {
            c->kind = XC_STR;
            c->len = n;
            s->own[col] = s->value_start;
        }
    } else if (s->has_value && n) {
        switch (s->type) {
        case CT_NUM: {
            /* openpyxl hands the text to int() when it has no '.' or
             * exponent, else to float(): so inf and nan are refused */
            int is_int;
            if (py_decimal_number(v, n, &c->num, &is_int) != 0)
                return xml_fail(&s->x, "a number cell holds '%.*s'", (int)(n > 40 ? 40 : n), v);
            c->kind = XC_NUM;
            c->is_int = (unsigned char)is_int;
            break;
        }
        case CT_SHARED: {
            uint64_t i;
            if (parse_uint(v, n, &i) != 0 || i >= s->b->nsst)
                return xml_fail(&s->x, "shared string '%.*s' does not exist (%zu strings)", (int)(n > 40 ? 40 : n),
                                v, s->b->nsst);
            const char *str = s->b->sst.buf + s->b->sst_off[i];
            s->text.len = s->value_start;
            c->kind = XC_STR;
            c->len = strlen(str);
            c->str = str;
            break;
        }
        case CT_BOOL: {
            uint64_t i;
            if (parse_uint(v, n, &i) != 0)
                return xml_fail(&s->x, "a boolean cell holds '%.*s'", (int)(n > 40 ? 40 : n), v);
            c->kind = XC_BOOL;
            c->num = i != 0;
            break;
        }
        default:
            c->kind = s->type == CT_ERROR ? XC_ERROR : XC_STR;
            c->len = n;
            s->own[col] = s->value_start;
        }
    }
    if (s->own[col] != NOT_OWN)
        sb_addc(&s->text, 0);
    else
        s->text.len = s->value_start;
    return 0;
}

static int end_row(sheet_state *s, xlsx_row_fn fn, void *ctx)
{
    /* the row's own strings were kept as offsets: the buffer may have moved */
    for (size_t i = 0; i < s->ncells; i++)
        if (s->own[i] != NOT_OWN)
            s->cells[i].str = s->text.buf + s->own[i];
    int rc = fn(ctx, s->row, s->cells, s->ncells);
    s->ncells = 0;
    sb_reset(&s->text);
    return rc;
}

static int read_rows(xlsx_book *b, size_t index, xlsx_row_fn fn, void *ctx)
{
    if (index >= b->nsheets)
        return err_input(b->path, "the workbook has no sheet %zu", index + 1);
    const zip_entry *e = part_entry(b, b->parts[index]);
    if (!e)
        return err_input(b->path, "malformed xlsx: sheet '%s' has no part %s", b->names[index], b->parts[index]);
    sheet_state s;
    memset(&s, 0, sizeof s);
    s.b = b;
    if (xml_open(&s.x, &b->zip, e, b->path, XLSX_MAX_PART_SIZE) != 0)
        return -1;
    int ev, rc = 0, in_row = 0, in_data = 0;
    long long next_row = 0;
    while (rc == 0 && (ev = xml_next(&s.x)) > 0) {
        xml_reader *x = &s.x;
        if (ev == XML_TEXT) {
            /* openpyxl reads <v> of typed cells, <is> of inline strings */
            if (s.type == CT_INLINE ? s.in_t && s.in_is && !s.in_rph : s.in_v)
                sb_add(&s.text, x->text, x->text_len);
            continue;
        }
        int start = ev == XML_START;
        if (xml_is(x, "sheetData")) {
            in_data = start;
            if (!start)
                break;
        } else if (!in_data) {
            continue;
        } else if (xml_is(x, "row")) {
            if (start) {
                const char *r = xml_attr_value(x, "r", NULL);
                uint64_t num;
                if (r && (parse_uint(r, strlen(r), &num) != 0 || num < 1 || num > XLSX_MAX_ROW))
                    rc = xml_fail(x, "a bad row number '%s'", r);
                s.row = r ? (size_t)num - 1 : (size_t)next_row;
                s.col = -1;
                in_row = 1;
            } else {
                rc = end_row(&s, fn, ctx);
                next_row = (long long)s.row + 1;
                in_row = 0;
            }
        } else if (xml_is(x, "c") && in_row) {
            rc = start ? start_cell(&s) : end_cell(&s);
        } else if (xml_is(x, "v")) {
            s.in_v = start;
            s.has_value |= start;
        } else if (xml_is(x, "is")) {
            s.in_is = start;
            s.has_inline |= start;
        } else if (xml_is(x, "rPh")) {
            s.in_rph += start ? 1 : -1;
        } else if (xml_is(x, "t")) {
            s.in_t = start;
        }
    }
    if (rc == 0 && ev < 0)
        rc = -1;
    xml_close(&s.x);
    free(s.cells);
    free(s.own);
    sb_free(&s.text);
    return rc;
}

int xlsx_read_rows(xlsx_book *b, size_t index, xlsx_row_fn fn, void *ctx)
{
    file_guard g;
    file_guard_begin(&g, &b->file);
    int rc = read_rows(b, index, fn, ctx);
    if (file_guard_end(&g) != 0)
        rc = -1;
    return rc;
}

/* ---- whole sheet ------------------------------------------------------------------ */

typedef struct {
    arena a;
    xlsx_row *rows;
    size_t nrows, cap;
} table_mem;

static int keep_row(void *ctx, size_t row, const xcell *cells, size_t ncells)
{
    table_mem *m = ctx;
    GROW_ZEROED(m->rows, m->cap, row + 1);
    xcell *copy = ncells ? arena_alloc(&m->a, ncells * sizeof *copy) : NULL;
    for (size_t i = 0; i < ncells; i++) {
        copy[i] = cells[i];
        if (cells[i].kind == XC_STR || cells[i].kind == XC_ERROR)
            copy[i].str = arena_strndup(&m->a, cells[i].str, cells[i].len);
    }
    m->rows[row].cells = copy;
    m->rows[row].ncells = ncells;
    if (row + 1 > m->nrows)
        m->nrows = row + 1;
    return 0;
}

int xlsx_read_table(xlsx_book *b, size_t index, xlsx_table *t)
{
    memset(t, 0, sizeof *t);
    table_mem *m = xcalloc(1, sizeof *m);
    arena_init(&m->a, 1 << 16);
    if (xlsx_read_rows(b, index, keep_row, m) != 0) {
        arena_free(&m->a);
        free(m->rows);
        free(m);
        return -1;
    }
    t->rows = m->rows;
    t->nrows = m->nrows;
    t->mem = m;
    return 0;
}

void xlsx_table_free(xlsx_table *t)
{
    table_mem *m = t->mem;
    if (m) {
        arena_free(&m->a);
        free(m->rows);
        free(m);
    }
    memset(t, 0, sizeof *t);
}
