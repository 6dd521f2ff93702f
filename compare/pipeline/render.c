/* The cells of the result table: the values of a row the way the dialect
 * (dialect.h) holds and writes them, put in its columns' order.
 *
 * msprobe 8.1.0 (spec/compare.md §5.1, §5.5): every cell is first the
 * Python value msprobe would hold, then converted the way msprobe converts
 * it for openpyxl: numbers stay numbers, inf/nan become the text
 * "inf\t"/"nan\t", everything else its str(). */
#include "compare/pipeline/compare.h"
#include "compare/pipeline/dialect.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "model/table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static cell text_cell(const char *s) { return cell_str(s, strlen(s)); }

/* msprobe's compare_result_df_convert() applied to one value. */
static cell to_cell(const pyval *v)
{
    switch (v->kind) {
    case PV_NONE:
        return cell_str("None", 4);
    case PV_BOOL:
        return v->num ? cell_str("True", 4) : cell_str("False", 5);
    case PV_INT:
        return cell_num(v->num);
    case PV_FLOAT:
        if (isnan(v->num))
            return cell_str("nan\t", 4);
        if (isinf(v->num))
            return v->num > 0 ? cell_str("inf\t", 4) : cell_str("-inf\t", 5);
        return cell_num(v->num);
    default:
        if (v->len == 3 && (!memcmp(v->text, "inf", 3) || !memcmp(v->text, "nan", 3)))
            return v->text[0] == 'i' ? cell_str("inf\t", 4) : cell_str("nan\t", 4);
        if (v->len == 4 && !memcmp(v->text, "-inf", 4))
            return cell_str("-inf\t", 5);
        return cell_str(v->text, v->len);
    }
}

static cell stack_cell(const compare_ctx *c, const dump_row *n)
{
    if (!c->have_stack || c->npu.entries[n->entry].first_row != (size_t)(n - c->npu.rows))
        return text_cell("N/A");
    /* found and rendered by render_stacks() before any row */
    const stack_info *si = c->entry_stack ? c->entry_stack[n->entry] : NULL;
    return si && si->repr ? cell_str(si->repr, si->repr_len) : text_cell("N/A");
}

static void append_highlights(const compare_ctx *c, size_t i, size_t *cursor, strbuf *err)
{
    while (*cursor < c->nmsgs && c->msgs[*cursor].row == i) {
        if (err->len)
            sb_addc(err, '\n');
        sb_adds(err, hl_text(c->msgs[*cursor].code));
        (*cursor)++;
    }
}

static void fail_at(row_counts *k, size_t i)
{
    if (k->first_failing == (size_t)-1)
        k->first_failing = i;
}

/* ---- msprobe 8.1.0 ------------------------------------------------------ */

static void summary_81(const compare_ctx *c, size_t i, cell *v, row_text *t, size_t *cursor, row_counts *k)
{
    const match_pair *p = &c->pairs[i];
    pyval x, diff, rel;
    int warn = 0;
    for (int s = 0; s < 4; s++) {
        pyval xb;
        cell_npu_stat(c, i, s, &x);
        cell_bench_stat(c, i, s, &xb);
        warn |= cell_stat_diff_of(c, i, s, &x, &xb, &diff, &rel, t->rel[s]);
        v[COL_DIFF + s] = to_cell(&diff);
        v[COL_REL + s] = to_cell(&rel);
        v[COL_NPU_STAT + s] = to_cell(&x);
        v[COL_BENCH_STAT + s] = to_cell(&xb);
    }
    sb_reset(&t->err);
    if (!p->b) {
        v[COL_RESULT] = text_cell("N/A");
        sb_adds(&t->err, "No bench data matched.");
    } else if (warn) {
        v[COL_RESULT] = text_cell("Warning");
        sb_adds(&t->err, "Need double check api accuracy.");
        k->warning++;
        fail_at(k, i);
    } else {
        v[COL_RESULT] = text_cell("");
    }
    append_highlights(c, i, cursor, &t->err);
    v[COL_ERR] = cell_str(sb_str(&t->err), t->err.len);
}

static void md5_81(const compare_ctx *c, size_t i, cell *v, row_counts *k)
{
    const match_pair *p = &c->pairs[i];
    const char *nm = p->n->md5 ? p->n->md5 : "N/A";
    const char *bm = p->b ? (p->b->md5 ? p->b->md5 : "N/A") : "N/A";
    v[COL_NPU_MD5] = text_cell(nm);
    v[COL_BENCH_MD5] = text_cell(bm);
    if (!strcmp(nm, bm)) {
        v[COL_RESULT] = text_cell("pass");
    } else if (!p->b) {
        v[COL_RESULT] = text_cell("N/A");
    } else {
        v[COL_RESULT] = text_cell("Different");
        k->different++;
        fail_at(k, i);
    }
}

static void all_81(const compare_ctx *c, size_t i, cell *v, row_text *t, size_t *cursor, row_counts *k)
{
    pyval x;
    for (int s = 0; s < MET_COUNT; s++) {
        real_metric_cell(c, i, s, &x);
        v[COL_METRIC + s] = to_cell(&x);
    }
    for (int s = 0; s < 4; s++) {
        cell_npu_stat(c, i, s, &x);
        v[COL_NPU_STAT + s] = to_cell(&x);
        cell_bench_stat(c, i, s, &x);
        v[COL_BENCH_STAT + s] = to_cell(&x);
    }
    const char *acc = metrics_accuracy(&c->real[i].m);
    v[COL_ACCURACY] = text_cell(acc);
    if (!strcmp(acc, "No")) {
        k->accuracy_no++;
        fail_at(k, i);
    }
    sb_reset(&t->err);
    real_message(c, i, &t->err);
    append_highlights(c, i, cursor, &t->err);
    v[COL_ERR] = cell_str(sb_str(&t->err), t->err.len);
}

static void fill_81(const compare_ctx *c, size_t i, cell *v, row_text *t, size_t *cursor, row_counts *k)
{
    if (c->mode == MODE_MD5)
        md5_81(c, i, v, k);
    else if (c->mode == MODE_ALL)
        all_81(c, i, v, t, cursor, k);
    else
        summary_81(c, i, v, t, cursor, k);
}

/* ---- the newest msprobe ---------------------------------------------------
 * pandas writes the cells: a float in csv as Python's repr (an infinity as
 * " inf", so that Excel does not read it as a formula; NaN as nothing), in
 * xlsx as a number ("inf" as text); bools as True/False or boolean cells. */

static cell float_new(const compare_ctx *c, double x)
{
    if (isnan(x))
        return (cell){.kind = CELL_EMPTY};
    if (isinf(x)) {
        int csv = c->opts->format == TABLE_CSV;
        return x > 0 ? text_cell(csv ? " inf" : "inf") : text_cell(csv ? " -inf" : "-inf");
    }
    return cell_pynum(x, NULL, 0);
}

static cell value_new(const compare_ctx *c, const pyval *x)
{
    switch (x->kind) {
    case PV_NONE: return text_cell("None");
    case PV_BOOL: return cell_bool(x->num != 0);
    case PV_INT: return x->text ? cell_pynum(x->num, x->text, x->len) : cell_num(x->num);
    case PV_FLOAT: return float_new(c, x->num);
    default: return cell_str(x->text, x->len);
    }
}

static void fill_new(const compare_ctx *c, size_t i, cell *v, row_text *t, row_counts *k)
{
    const match_pair *p = &c->pairs[i];
    const char *rn = requires_grad_text(p->n), *rb = requires_grad_text(p->b);
    v[COL_NPU_RG] = text_cell(rn);
    v[COL_BENCH_RG] = text_cell(rb);
    v[COL_RG_CONSISTENT] = cell_bool(!strcmp(rn, rb));
    if (c->mode == MODE_MD5) {
        v[COL_NPU_MD5] = text_cell(p->n->md5 ? p->n->md5 : "N/A");
        v[COL_BENCH_MD5] = text_cell(p->b && p->b->md5 ? p->b->md5 : "N/A");
    } else {
        for (int s = 0; s < 4; s++) {
            pyval xn, xb;
            newest_stat(c, i, s, 0, &xn);
            newest_stat(c, i, s, 1, &xb);
            v[COL_NPU_STAT + s] = value_new(c, &xn);
            v[COL_BENCH_STAT + s] = value_new(c, &xb);
            if (c->mode == MODE_SUMMARY) {
                newest_stat_diff(c, s, &xn, &xb, t->diff[s], t->rel[s]);
                v[COL_DIFF + s] = text_cell(t->diff[s]);
                v[COL_REL + s] = text_cell(t->rel[s]);
            }
        }
    }
    if (c->mode == MODE_ALL) {
        const tensor_metrics *m = &c->real[i].m;
        for (int s = 0; s < MET_COUNT; s++)
            v[COL_METRIC + s] = m->kind[s] == MK_NUM ? float_new(c, m->value[s]) : text_cell(metric_kind_text(m->kind[s]));
    }
    int level = c->level[i];
    v[COL_RESULT] = text_cell(check_level_text(level));
    sb_reset(&t->err);
    check_message(c->checks[i], &t->err);
    v[COL_ERR] = cell_str(sb_str(&t->err), t->err.len);
    if (level == LEVEL_ERROR) {
        k->error++;
        fail_at(k, i);
    } else if (level == LEVEL_WARNING) {
        k->warning++;
    }
}

/* All cells of table row i: the dialect's values, in its columns' order. */
void render_row(const compare_ctx *c, size_t i, cell *cells, row_text *t, size_t *cursor, row_counts *k)
{
    const match_pair *p = &c->pairs[i];
    cell v[COL_COUNT];
    v[COL_NPU_NAME] = text_cell(p->n->name);
    v[COL_BENCH_NAME] = text_cell(p->b ? p->b->name : "N/A");
    v[COL_NPU_DTYPE] = text_cell(p->n->dtype);
    v[COL_BENCH_DTYPE] = text_cell(p->b ? p->b->dtype : "N/A");
    v[COL_NPU_SHAPE] = text_cell(p->n->shape);
    v[COL_BENCH_SHAPE] = text_cell(p->b ? p->b->shape : "N/A");
    v[COL_STACK] = stack_cell(c, p->n);
    if (c->mode == MODE_ALL) {
        sb_reset(&t->data_name);
        data_name_cell(p, &t->data_name);
        v[COL_DATA_NAME] = cell_str(sb_str(&t->data_name), t->data_name.len);
    }
    if (c->opts->dialect == DIALECT_NEWEST)
        fill_new(c, i, v, t, k);
    else
        fill_81(c, i, v, t, cursor, k);
    for (int j = 0; j < c->ncols; j++)
        cells[j] = v[c->cols[j]];
    k->rows++;
    if (p->b)
        k->matched++;
    else
        k->unmatched++;
    if (c->fill && c->fill[i] == FILL_RED)
        k->red++;
    else if (c->fill && c->fill[i] == FILL_YELLOW)
        k->yellow++;
}

void add_counts(row_counts *to, const row_counts *k)
{
    to->rows += k->rows;
    to->matched += k->matched;
    to->unmatched += k->unmatched;
    to->warning += k->warning;
    to->different += k->different;
    to->accuracy_no += k->accuracy_no;
    to->error += k->error;
    to->red += k->red;
    to->yellow += k->yellow;
    if (to->first_failing == (size_t)-1)
        to->first_failing = k->first_failing;
}

/* First highlight message of row i or later. */
size_t msgs_from(const compare_ctx *c, size_t i)
{
    size_t lo = 0, hi = c->nmsgs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->msgs[mid].row < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Stacks are rendered once, up front, so rows can be formatted on several
 * threads without touching the stack map. */
void render_stacks(compare_ctx *c)
{
    if (!c->have_stack || c->entry_stack)
        return;
    c->entry_stack = xcalloc(c->npu.nentries + 1, sizeof *c->entry_stack);
    for (size_t e = 0; e < c->npu.nentries; e++) {
        const stack_info *si = stack_find(&c->stack, c->npu.entries[e].name);
        if (si)
            stack_repr((stack_info *)si);
        c->entry_stack[e] = si;
    }
}
