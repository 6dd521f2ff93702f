/* The rows of a matched pair (spec §5.4) and what they give the NPU node
 * (§5.5): the compare columns of its items and its precision index. The
 * same code serves the walk (the index) and the writer (the columns), which
 * recomputes them instead of keeping them. */
#include "graph/compare/rows.h"
#include "graph/compare/tensors.h"
#include "graph/model/values.h"
#include "base/err.h"
#include "base/mem.h"
#include "py/numfmt.h"
#include "py/pyvalue.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int group_of(int state)
{
    switch (state) {
    case ST_INPUT:
    case ST_KWARGS: return 0;
    case ST_PARAMS: return 1;
    case ST_OUTPUT: return 2;
    case ST_PARAMS_GRAD: return 3;
    default: return -1;
    }
}

static int check_states(const gitems *it)
{
    for (size_t i = 0; i < it->rows.nrows; i++) {
        const dump_row *r = &it->rows.rows[i];
        if (group_of(r->state) < 0)
            return err_input(it->rd->dump_path,
                             "Invalid name string: %s, can not be split by forward/backward, please check.", r->name);
    }
    return 0;
}

/* A row of msprobe's compare table for a matched pair: an NPU row and the
 * Bench row at its place (-1: the Bench side has fewer rows there). */
typedef struct {
    uint32_t n;
    int32_t b;
} rowpair;

/* get_accuracy()'s pairing: rows by position within the groups input
 * (args, kwargs, input), parameters, output, parameters_grad, in this
 * order. 0, or -1 for a row without a state (msprobe raises). */
static int pair_rows(const gitems *ni, const gitems *bi, rowpair **v, size_t *n, size_t *cap)
{
    *n = 0;
    if (check_states(ni) != 0 || check_states(bi) != 0)
        return -1;
    for (int grp = 0; grp < 4; grp++) {
        size_t j = 0;
        for (size_t i = 0; i < ni->rows.nrows; i++) {
            if (group_of(ni->rows.rows[i].state) != grp)
                continue;
            while (j < bi->rows.nrows && group_of(bi->rows.rows[j].state) != grp)
                j++;
            GROW(*v, *cap, *n + 1);
            (*v)[*n].n = (uint32_t)i;
            (*v)[*n].b = j < bi->rows.nrows ? (int32_t)j++ : -1;
            (*n)++;
        }
    }
    return 0;
}

/* ---- cells ------------------------------------------------------------------ */

/* A cell as msprobe's code holds it (a Python int, float or str). */
typedef struct {
    pyval v;
    char buf[48];
} gcell;

static void cell_str(gcell *c, const char *s)
{
    memset(&c->v, 0, sizeof c->v);
    c->v.kind = PV_STR;
    c->v.text = s;
    c->v.len = (uint32_t)strlen(s);
}

static void cell_float(gcell *c, double x)
{
    memset(&c->v, 0, sizeof c->v);
    if (isinf(x)) {
        /* str() of it is "inf": msprobe appends a tab */
        cell_str(c, x > 0 ? "inf\t" : "-inf\t");
        return;
    }
    c->v.kind = PV_FLOAT;
    c->v.num = x;
}

static void cell_int(gcell *c, __int128 x)
{
    memset(&c->v, 0, sizeof c->v);
    char tmp[48];
    int n = 0, neg = x < 0;
    unsigned __int128 u = neg ? (unsigned __int128)(-(x + 1)) + 1 : (unsigned __int128)x;
    do {
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    char *p = c->buf;
    if (neg)
        *p++ = '-';
    while (n)
        *p++ = tmp[--n];
    *p = 0;
    c->v.kind = PV_INT;
    c->v.text = c->buf;
    c->v.len = (uint32_t)(p - c->buf);
}

/* str(abs(x)) + "%" */
static void cell_rel(gcell *c, double rel)
{
    memset(&c->v, 0, sizeof c->v);
    size_t n = fmt_pyrepr(fabs(rel), c->buf);
    c->buf[n++] = '%';
    c->buf[n] = 0;
    c->v.kind = PV_STR;
    c->v.text = c->buf;
    c->v.len = (uint32_t)n;
    c->v.num = fabs(rel);
}

static int numeric(const pyval *v) { return v->kind == PV_INT || v->kind == PV_FLOAT; }

/* A Python int of at most 38 digits, exactly. */
static int int_of(const pyval *v, __int128 *out)
{
    if (v->kind != PV_INT || !v->text)
        return 0;
    const char *s = v->text;
    size_t n = v->len;
    int neg = n && *s == '-';
    if (neg) {
        s++;
        n--;
    }
    if (!n || n > 37)
        return 0;
    __int128 x = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        x = x * 10 + (s[i] - '0');
    }
    *out = neg ? -x : x;
    return 1;
}

/* get_rela_diff_summary_mode(): the eight cells of a row */
static void summary_cells(const dump_row *n, const dump_row *b, gcell out[8])
{
    if (!b) {
        /* msprobe shifts the columns of these rows (spec §10 #8a) */
        for (int k = 0; k < 8; k++)
            cell_str(&out[k], "N/A");
        return;
    }
    for (int k = 0; k < 4; k++) {
        const pyval xv = dump_stat(n, k), yv = dump_stat(b, k), *x = &xv, *y = &yv;
        if (!numeric(x) || !numeric(y)) {
            cell_str(&out[k], "N/A");
            cell_str(&out[k + 4], "N/A");
            continue;
        }
        __int128 a, c;
        if (int_of(x, &a) && int_of(y, &c)) {
            __int128 d = a - c;
            cell_int(&out[k], d);
            if (c == 0) {
                cell_str(&out[k + 4], "N/A");
            } else {
                /* int / int: the correctly rounded quotient (exact operands below 2**53) */
                double q = (d < 0 ? -d : d) < ((__int128)1 << 53) && (c < 0 ? -c : c) < ((__int128)1 << 53)
                               ? (double)d / (double)c
                               : (double)((long double)d / (long double)c);
                cell_rel(&out[k + 4], q * 100);
            }
            continue;
        }
        double d = x->num - y->num;
        if (isnan(d)) {
            cell_str(&out[k], "Nan");
            cell_str(&out[k + 4], "Nan");
            continue;
        }
        cell_float(&out[k], d);
        if (y->num == 0)
            cell_str(&out[k + 4], "N/A");
        else
            cell_rel(&out[k + 4], d / y->num * 100);
    }
}

static void md5_cell(const dump_row *n, const dump_row *b, gcell *out)
{
    if (!b) {
        cell_str(out, "Nan");
        return;
    }
    int same = (!n->md5 && !b->md5) || (n->md5 && b->md5 && !strcmp(n->md5, b->md5));
    cell_str(out, same ? "pass" : "Different");
}

/* The six cells of a tensor row: its metrics, or the texts saying why not. */
static void tensor_cells(const gtensor_row *r, gcell out[MET_COUNT])
{
    for (int k = 0; k < MET_COUNT; k++) {
        memset(&out[k].v, 0, sizeof out[k].v);
        if (r->m.kind[k] == MK_NUM) {
            out[k].v.kind = PV_FLOAT;
            out[k].v.num = r->m.value[k];
        } else {
            out[k].v.kind = PV_STR;
            out[k].v.text = metric_kind_text(r->m.kind[k]);
            out[k].v.len = (uint32_t)strlen(out[k].v.text);
        }
    }
}

/* ---- cells kept for the writer ------------------------------------------------ */

/* A compare cell kept for the writer (gcompare's cells). */
enum { SC_NA, SC_NAN, SC_INF, SC_NINF, SC_PASS, SC_DIFFERENT, SC_FLOAT, SC_INT, SC_BIGINT, SC_REL };
struct scell {
    double num;              /* SC_FLOAT, SC_INT, SC_REL (abs of the relative error) */
    uint32_t text;           /* SC_BIGINT: offset of its digits in cell_text */
    uint8_t kind;
};

static void keep_cell(gcompare *c, const gcell *g)
{
    GROW(c->cells, c->cell_cap, c->ncells + 1);
    struct scell *k = &c->cells[c->ncells++];
    memset(k, 0, sizeof *k);
    const pyval *v = &g->v;
    if (v->kind == PV_FLOAT) {
        k->kind = SC_FLOAT;
        k->num = v->num;
    } else if (v->kind == PV_INT) {
        double x = strtod(v->text, NULL);
        if (fabs(x) < 9007199254740992.0) {
            k->kind = SC_INT;
            k->num = x;
        } else {
            k->kind = SC_BIGINT;
            k->text = (uint32_t)c->cell_text.len;
            sb_add(&c->cell_text, v->text, v->len);
            sb_addc(&c->cell_text, 0);
        }
    } else if (v->len && v->text[v->len - 1] == '%') {
        k->kind = SC_REL;
        k->num = v->num;
    } else {
        static const struct {
            const char *t;
            uint8_t k;
        } words[] = {{"N/A", SC_NA},   {"Nan", SC_NAN},        {"inf\t", SC_INF},
                     {"-inf\t", SC_NINF}, {"pass", SC_PASS}, {"Different", SC_DIFFERENT}};
        k->kind = SC_NA;
        for (size_t i = 0; i < sizeof words / sizeof *words; i++)
            if (!strcmp(v->text, words[i].t))
                k->kind = words[i].k;
    }
}

/* a kept cell as the pyval msprobe held */
static void kept_cell(const gcompare *c, const struct scell *k, gcell *g)
{
    static const char *const words[] = {"N/A", "Nan", "inf\t", "-inf\t", "pass", "Different"};
    memset(&g->v, 0, sizeof g->v);
    switch (k->kind) {
    case SC_FLOAT:
        g->v.kind = PV_FLOAT;
        g->v.num = k->num;
        break;
    case SC_INT:
        cell_int(g, (__int128)k->num);
        break;
    case SC_BIGINT:
        g->v.kind = PV_INT;
        g->v.text = c->cell_text.buf + k->text;
        g->v.len = (uint32_t)strlen(g->v.text);
        break;
    case SC_REL:
        cell_rel(g, k->num);
        break;
    default:
        cell_str(g, words[k->kind]);
        break;
    }
}

static const char *const SUMMARY_COLUMNS[8] = {"Max diff",       "Min diff",       "Mean diff",
                                               "L2norm diff",    "MaxRelativeErr", "MinRelativeErr",
                                               "MeanRelativeErr", "NormRelativeErr"};

static void put_cells(strbuf *sb, const char *const *names, const gcell *cells, int n)
{
    for (int k = 0; k < n; k++) {
        sb_addc(sb, '"');
        sb_adds(sb, names[k]);
        sb_add(sb, "\": ", 3);
        vis_pyval(sb, &cells[k].v);
        sb_addc(sb, '\n');
    }
}

/* ---- a node's rows by name ----------------------------------------------------- */

typedef struct {
    rowpair *pairs;
    size_t n, cap;
    strmap in, out;       /* NPU row name -> pair (the last of a name) */
} node_rows;

static void node_rows_init(node_rows *nr)
{
    memset(nr, 0, sizeof *nr);
    strmap_init(&nr->in, 16);
    strmap_init(&nr->out, 16);
}

static void node_rows_free(node_rows *nr)
{
    free(nr->pairs);
    strmap_free(&nr->in);
    strmap_free(&nr->out);
}

static int is_output_row(const dump_row *r) { return r->state == ST_OUTPUT; }

static int node_rows_make(node_rows *nr, const gitems *ni, const gitems *bi)
{
    strmap_clear(&nr->in);
    strmap_clear(&nr->out);
    if (pair_rows(ni, bi, &nr->pairs, &nr->n, &nr->cap) != 0)
        return -1;
    for (size_t k = 0; k < nr->n; k++) {
        const dump_row *r = &ni->rows.rows[nr->pairs[k].n];
        int added;
        *strmap_put(is_output_row(r) ? &nr->out : &nr->in, r->name, strlen(r->name), k, &added) = k;
    }
    return 0;
}

static const rowpair *row_of(const node_rows *nr, const gitems *ni, const gitem *g, int out)
{
    const dump_row *r = gitem_row(ni, g);
    const size_t *k = strmap_get(out ? &nr->out : &nr->in, r->name, strlen(r->name));
    return k ? &nr->pairs[*k] : NULL;
}

static const dump_row *bench_row(const gitems *bi, const rowpair *p) { return p->b >= 0 ? &bi->rows.rows[p->b] : NULL; }

static int is_invalid(const pyval *v) { return v->kind == PV_FLOAT && (isnan(v->num) || isinf(v->num)); }

/* str2float() of a relative-error cell */
static double pct(const gcell *c)
{
    if (c->v.kind != PV_STR || c->v.len == 0 || c->v.text[c->v.len - 1] != '%')
        return 0;
    return c->v.num / 100;
}

/* The cells of every item of NPU node n, kept (statistics, md5). */
static void keep_node_cells(gcompare *c, long n, const gitems *ni, const gitems *bi, const node_rows *nr)
{
    if (!c->node_items) {
        c->node_items = xmalloc_array(c->n->n + 1, sizeof *c->node_items);
        memset(c->node_items, 0xff, (c->n->n + 1) * sizeof *c->node_items);
    }
    c->node_items[n] = (uint32_t)c->nitem_cells;
    for (int out = 0; out < 2; out++) {
        const gitem *v = out ? ni->out : ni->in;
        size_t m = out ? ni->nout : ni->nin;
        for (size_t k = 0; k < m; k++) {
            GROW(c->item_cells, c->item_cap, c->nitem_cells + 1);
            uint32_t *first = &c->item_cells[c->nitem_cells++];
            *first = UINT32_MAX;
            const dump_row *row = gitem_row(ni, &v[k]);
            const rowpair *p = row_of(nr, ni, &v[k], out);
            if (!p || (c->task == TASK_SUMMARY && dump_stat(row, 0).kind == PV_NONE))
                continue;
            *first = (uint32_t)c->ncells;
            gcell cells[8];
            if (c->task == TASK_SUMMARY) {
                summary_cells(row, bench_row(bi, p), cells);
                for (int j = 0; j < 8; j++)
                    keep_cell(c, &cells[j]);
            } else {
                md5_cell(row, bench_row(bi, p), &cells[0]);
                keep_cell(c, &cells[0]);
            }
        }
    }
}

int gcompare_rows(gcompare *c, long n, const gitems *ni, const gitems *bi)
{
    node_rows nr;
    node_rows_init(&nr);
    int rc = node_rows_make(&nr, ni, bi);
    gnode *nd = &c->n->nodes[n];
    if (rc != 0 || nr.n == 0 || c->task == TASK_STRUCTURE) {
        node_rows_free(&nr);
        return rc;
    }
    if (c->task == TASK_REAL) {
        for (size_t k = 0; k < nr.n; k++)
            gtensor_add(c, &ni->rows.rows[nr.pairs[k].n], bench_row(bi, &nr.pairs[k]));
        GROW(c->queued, c->qcap, c->nqueued + 1);
        c->queued[c->nqueued++] = (int32_t)n;
    } else if (c->task == TASK_SUMMARY) {
        keep_node_cells(c, n, ni, bi, &nr);
        /* the index is the outputs' (spec §10 #13) */
        double r = 0;
        int kind = PX_INT;
        for (size_t k = 0; k < ni->nout; k++) {
            const dump_row *row = gitem_row(ni, &ni->out[k]);
            if (dump_stat(row, 0).kind == PV_NONE)
                continue;
            const rowpair *p = row_of(&nr, ni, &ni->out[k], 1);
            if (p) {
                gcell cells[8];
                summary_cells(row, bench_row(bi, p), cells);
                for (int j = 4; j < 8; j++) {
                    double v = pct(&cells[j]);
                    if (v > r) {
                        r = v;
                        kind = PX_FLOAT;
                    }
                }
            }
            if (is_invalid((const pyval[]){dump_stat(row, 0)}) || is_invalid((const pyval[]){dump_stat(row, 1)})) {
                r = 1;
                kind = PX_INT;
            }
        }
        if (r > 1) {
            r = 1;
            kind = PX_INT;
        }
        nd->px = r;
        nd->px_kind = (uint8_t)kind;
    } else {
        keep_node_cells(c, n, ni, bi, &nr);
        int side[2] = {1, 1};
        for (int out = 0; out < 2; out++) {
            const gitem *v = out ? ni->out : ni->in;
            size_t m = out ? ni->nout : ni->nin;
            for (size_t k = 0; k < m; k++) {
                const rowpair *p = row_of(&nr, ni, &v[k], out);
                if (!p)
                    continue;
                gcell cell;
                md5_cell(gitem_row(ni, &v[k]), bench_row(bi, p), &cell);
                if (strcmp(cell.v.text, "pass") != 0)
                    side[out] = 0;
            }
        }
        nd->px = side[0] < side[1] ? side[0] : side[1];
        nd->px_kind = PX_INT;
        nd->md5_result = nd->px == 1 ? 1 : 2;
    }
    node_rows_free(&nr);
    return 0;
}

void gcolumns_free(gcolumns *c)
{
    sb_free(&c->text);
    free(c->in_off);
    free(c->out_off);
    memset(c, 0, sizeof *c);
}

/* From the cells kept by the walk: the same text, no Bench entry read. */
static int kept_columns(const gcompare *c, long i, const gitems *ni, gcolumns *cols)
{
    uint32_t item = c->node_items[i];
    sb_reset(&cols->text);
    sb_addc(&cols->text, 0);
    for (int out = 0; out < 2; out++) {
        size_t m = out ? ni->nout : ni->nin;
        size_t **off = out ? &cols->out_off : &cols->in_off;
        size_t *cap = out ? &cols->capout : &cols->capin;
        GROW(*off, *cap, m + 1);
        for (size_t k = 0; k < m; k++, item++) {
            (*off)[k] = cols->text.len;
            uint32_t first = c->item_cells[item];
            if (first == UINT32_MAX)
                continue;
            int ncol = c->task == TASK_SUMMARY ? 8 : 1;
            gcell cells[8];
            for (int j = 0; j < ncol; j++)
                kept_cell(c, &c->cells[first + (uint32_t)j], &cells[j]);
            static const char *const RESULT[1] = {"Result"};
            put_cells(&cols->text, c->task == TASK_SUMMARY ? SUMMARY_COLUMNS : RESULT, cells, ncol);
        }
        (*off)[m] = cols->text.len;
    }
    return 0;
}

int gcompare_columns(const gcompare *c, long i, const gitems *ni, gitems *bi, gcolumns *cols)
{
    const gnode *nd = &c->n->nodes[i];
    if (c->node_items && c->node_items[i] != UINT32_MAX)
        return kept_columns(c, i, ni, cols);
    if (c->task != TASK_REAL && gitems_read(bi, c->b->rd, c->b->nodes[nd->cmp_with].entry) != 0)
        return -1;
    node_rows nr;
    node_rows_init(&nr);
    int rc = node_rows_make(&nr, ni, bi);
    sb_reset(&cols->text);
    sb_addc(&cols->text, 0);   /* offsets start at 1: text.buf is never NULL */
    for (int out = 0; out < 2 && rc == 0; out++) {
        const gitem *v = out ? ni->out : ni->in;
        size_t m = out ? ni->nout : ni->nin;
        size_t **off = out ? &cols->out_off : &cols->in_off;
        size_t *cap = out ? &cols->capout : &cols->capin;
        GROW(*off, *cap, m + 1);
        for (size_t k = 0; k < m; k++) {
            (*off)[k] = cols->text.len;
            const dump_row *row = gitem_row(ni, &v[k]);
            if (c->task == TASK_REAL) {
                const gtensor_row *tr = dump_stat(row, 0).kind != PV_NONE ? gtensor_find(c, row->name) : NULL;
                if (tr) {
                    gcell cells[MET_COUNT];
                    tensor_cells(tr, cells);
                    put_cells(&cols->text, metric_names, cells, MET_COUNT);
                }
                continue;
            }
            const rowpair *p = nr.n ? row_of(&nr, ni, &v[k], out) : NULL;
            if (!p || c->task == TASK_STRUCTURE)
                continue;
            if (c->task == TASK_SUMMARY) {
                if (dump_stat(row, 0).kind == PV_NONE)
                    continue;
                gcell cells[8];
                summary_cells(row, bench_row(bi, p), cells);
                put_cells(&cols->text, SUMMARY_COLUMNS, cells, 8);
            } else {
                static const char *const RESULT[1] = {"Result"};
                gcell cell;
                md5_cell(row, bench_row(bi, p), &cell);
                put_cells(&cols->text, RESULT, &cell, 1);
            }
        }
        (*off)[m] = cols->text.len;
    }
    node_rows_free(&nr);
    return rc;
}
