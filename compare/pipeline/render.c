/* The cells of the result table (spec/compare.md §5.1, §5.5). Every cell is
 * first the Python value msprobe would hold, then converted the way msprobe
 * converts it for openpyxl: numbers stay numbers, inf/nan become the text
 * "inf\t"/"nan\t", everything else its str(). */
#include "compare/pipeline/compare.h"
#include "base/strbuf.h"
#include "model/table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const summary_header[] = {
    "NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape", "Bench Tensor Shape",
    "Max diff", "Min diff", "Mean diff", "L2norm diff", "MaxRelativeErr", "MinRelativeErr",
    "MeanRelativeErr", "NormRelativeErr", "NPU max", "NPU min", "NPU mean", "NPU l2norm",
    "Bench max", "Bench min", "Bench mean", "Bench l2norm", "Result", "Err_message", "NPU_Stack_Info"};
static const char *const all_header[] = {
    "NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape", "Bench Tensor Shape",
    "Cosine", "EucDist", "MaxAbsErr", "MaxRelativeErr", "One Thousandth Err Ratio", "Five Thousandths Err Ratio",
    "NPU max", "NPU min", "NPU mean", "NPU l2norm", "Bench max", "Bench min", "Bench mean", "Bench l2norm",
    "Accuracy Reached or Not", "Err_message", "NPU_Stack_Info", "Data_name"};
static const char *const all_header_no_stack[] = {
    "NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape", "Bench Tensor Shape",
    "Cosine", "EucDist", "MaxAbsErr", "MaxRelativeErr", "One Thousandth Err Ratio", "Five Thousandths Err Ratio",
    "NPU max", "NPU min", "NPU mean", "NPU l2norm", "Bench max", "Bench min", "Bench mean", "Bench l2norm",
    "Accuracy Reached or Not", "Err_message", "Data_name"};
static const char *const md5_header[] = {
    "NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape", "Bench Tensor Shape",
    "NPU MD5", "BENCH MD5", "Result", "NPU_Stack_Info"};

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

static const char *stack_cell(const compare_ctx *c, const dump_row *n)
{
    if (!c->have_stack || c->npu.entries[n->entry].first_row != (size_t)(n - c->npu.rows))
        return "N/A";
    /* rendered by render_stacks() before any row */
    const stack_info *si = stack_find(&c->stack, c->npu.entries[n->entry].name);
    return si && si->repr ? si->repr : "N/A";
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

static void summary_row(const compare_ctx *c, size_t i, cell *cells, row_text *t, size_t *cursor, row_counts *k)
{
    const match_pair *p = &c->pairs[i];
    pyval v, diff, rel;
    int warn = 0;
    for (int s = 0; s < 4; s++) {
        pyval vb;
        cell_npu_stat(c, i, s, &v);
        cell_bench_stat(c, i, s, &vb);
        warn |= cell_stat_diff_of(c, i, s, &v, &vb, &diff, &rel, t->rel[s]);
        cells[6 + s] = to_cell(&diff);
        cells[10 + s] = to_cell(&rel);
        cells[14 + s] = to_cell(&v);
        cells[18 + s] = to_cell(&vb);
    }
    sb_reset(&t->err);
    if (!p->b) {
        cells[22] = text_cell("N/A");
        sb_adds(&t->err, "No bench data matched.");
    } else if (warn) {
        cells[22] = text_cell("Warning");
        sb_adds(&t->err, "Need double check api accuracy.");
        k->warning++;
        fail_at(k, i);
    } else {
        cells[22] = text_cell("");
    }
    append_highlights(c, i, cursor, &t->err);
    cells[23] = cell_str(sb_str(&t->err), t->err.len);
}

static void md5_row(const compare_ctx *c, size_t i, cell *cells, row_counts *k)
{
    const match_pair *p = &c->pairs[i];
    const char *nm = p->n->md5 ? p->n->md5 : "N/A";
    const char *bm = p->b ? (p->b->md5 ? p->b->md5 : "N/A") : "N/A";
    cells[6] = text_cell(nm);
    cells[7] = text_cell(bm);
    if (!strcmp(nm, bm)) {
        cells[8] = text_cell("pass");
    } else if (!p->b) {
        cells[8] = text_cell("N/A");
    } else {
        cells[8] = text_cell("Different");
        k->different++;
        fail_at(k, i);
    }
}

/* The value of metric cell k of a tensor-mode row. */
static void all_row(const compare_ctx *c, size_t i, cell *cells, row_text *t, size_t *cursor, row_counts *k)
{
    pyval v;
    for (int s = 0; s < MET_COUNT; s++) {
        real_metric_cell(c, i, s, &v);
        cells[6 + s] = to_cell(&v);
    }
    for (int s = 0; s < 4; s++) {
        cell_npu_stat(c, i, s, &v);
        cells[12 + s] = to_cell(&v);
        cell_bench_stat(c, i, s, &v);
        cells[16 + s] = to_cell(&v);
    }
    const char *acc = metrics_accuracy(&c->real[i].m);
    cells[20] = text_cell(acc);
    if (!strcmp(acc, "No")) {
        k->accuracy_no++;
        fail_at(k, i);
    }
    sb_reset(&t->err);
    real_message(c, i, &t->err);
    append_highlights(c, i, cursor, &t->err);
    cells[21] = cell_str(sb_str(&t->err), t->err.len);
    sb_reset(&t->data_name);
    data_name_cell(&c->pairs[i], &t->data_name);
    cells[c->have_stack ? 23 : 22] = cell_str(sb_str(&t->data_name), t->data_name.len);
}

int result_header(const compare_ctx *c, const char *const **header)
{
    if (c->mode == MODE_ALL) {
        *header = c->have_stack ? all_header : all_header_no_stack;
        return c->have_stack ? 24 : 23;
    }
    *header = c->mode == MODE_MD5 ? md5_header : summary_header;
    int ncols = c->mode == MODE_MD5 ? 9 : 24;
    return c->have_stack ? ncols + 1 : ncols;
}

/* All cells of table row i. */
void render_row(const compare_ctx *c, size_t i, cell *cells, row_text *t, size_t *cursor, row_counts *k)
{
    const match_pair *p = &c->pairs[i];
    cells[0] = text_cell(p->n->name);
    cells[1] = text_cell(p->b ? p->b->name : "N/A");
    cells[2] = text_cell(p->n->dtype);
    cells[3] = text_cell(p->b ? p->b->dtype : "N/A");
    cells[4] = text_cell(p->n->shape);
    cells[5] = text_cell(p->b ? p->b->shape : "N/A");
    int stack_col;
    if (c->mode == MODE_MD5) {
        md5_row(c, i, cells, k);
        stack_col = 9;
    } else if (c->mode == MODE_ALL) {
        all_row(c, i, cells, t, cursor, k);
        stack_col = 22;
    } else {
        summary_row(c, i, cells, t, cursor, k);
        stack_col = 24;
    }
    if (c->have_stack)
        cells[stack_col] = text_cell(stack_cell(c, p->n));
    k->rows++;
    if (p->b)
        k->matched++;
    else
        k->unmatched++;
    if (c->fill[i] == FILL_RED)
        k->red++;
    else if (c->fill[i] == FILL_YELLOW)
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
    if (!c->have_stack)
        return;
    for (size_t e = 0; e < c->npu.nentries; e++) {
        const stack_info *si = stack_find(&c->stack, c->npu.entries[e].name);
        if (si)
            stack_repr((stack_info *)si);
    }
}
