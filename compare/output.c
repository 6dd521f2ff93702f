/* Rendering the result table (spec/compare.md §5.1, §5.5) and the advisor
 * file (§7). Every cell is first the Python value msprobe would hold, then
 * converted the way msprobe converts it for openpyxl: numbers stay numbers,
 * inf/nan become the text "inf\t"/"nan\t", everything else its str(). */
#include "compare.h"
#include "files.h"
#include "log.h"
#include "strbuf.h"
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const summary_header[] = {
    "NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape", "Bench Tensor Shape",
    "Max diff", "Min diff", "Mean diff", "L2norm diff", "MaxRelativeErr", "MinRelativeErr",
    "MeanRelativeErr", "NormRelativeErr", "NPU max", "NPU min", "NPU mean", "NPU l2norm",
    "Bench max", "Bench min", "Bench mean", "Bench l2norm", "Result", "Err_message", "NPU_Stack_Info"};
static const char *const md5_header[] = {
    "NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape", "Bench Tensor Shape",
    "NPU MD5", "BENCH MD5", "Result", "NPU_Stack_Info"};

/* Per-row scratch space for texts that cells point into. */
typedef struct {
    char rel[4][40];
    char num[8][8];
    strbuf err;
} row_text;

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

static const char *stack_cell(compare_ctx *c, const dump_row *n)
{
    if (!c->have_stack || c->npu.entries[n->entry].first_row != (size_t)(n - c->npu.rows))
        return "N/A";
    int bad;
    const stack_info *si = stack_get(&c->stack, c->npu.entries[n->entry].name, &bad);
    return si ? stack_repr((stack_info *)si) : "N/A";
}

static const char *advice_for(const char *node)
{
    static const char *const deterministic[] = {"conv2d", "conv3d", "matmul", "nll_loss", "layer_norm", "lstm"};
    const char *msg;
    int output_case = 0;
    if (strstr(node, "forward")) {
        if (strstr(node, "input")) {
            msg = "1. Analyze the model to view the input source.\n"
                  "2. Check whether an inplace API causes the output result to overwrite the input result. "
                  "That is, the fault is actually caused by a computation error.\n"
                  "3. The fault may be caused by memory corruption and further analysis is required.";
        } else {
            msg = "This is a forward API computation error. Check the computation implementation.";
            output_case = 1;
        }
    } else if (strstr(node, "input")) {
        msg = "Check whether the forward computation result is affected.";
    } else {
        msg = "This is a backward API computation error. Check the computation implementation.";
        output_case = 1;
    }
    if (output_case)
        for (size_t i = 0; i < sizeof deterministic / sizeof deterministic[0]; i++)
            if (strstr(node, deterministic[i])) {
                msg = "This torch api may be uncertainty in the calculation, "
                      "can seed_all(mode=True) to enable deterministic computing.";
                break;
            }
    if (strstr(node, "Functional_batch_norm") && strstr(node, "forward_input.1"))
        msg = "Torch API batch_norm input not fixed, the following suggestions may fix it:\n"
              "1. If use torch.nn.functional.batch_norm, you can set parameter training=False.\n"
              "2. If use torch.nn.BatchNormXXX, you can set parameter affine=False.\n"
              "3. Use seed_all(mode=True) to enable deterministic computing.";
    return msg;
}

int write_advisor(compare_ctx *c, const char *path, compare_result *res)
{
    (void)c;
    strbuf sb = STRBUF_INIT;
    if (res->first_failing == (size_t)-1) {
        sb_adds(&sb, "Line: NA\nSuspect Nodes: NA\n"
                     "Expert Advice: All data in comparison result meets the accuracy requirements.\n");
    } else {
        const char *node = c->pairs[res->first_failing].n->name;
        sb_addf(&sb, "Line: %zu\nSuspect Nodes: %s\nExpert Advice: %s\n", res->first_failing, node,
                advice_for(node));
    }
    char *tmp = out_tmp_create(path);
    int rc = -1;
    if (tmp) {
        FILE *fp = fopen(tmp, "wb");
        if (fp && fwrite(sb.buf, 1, sb.len, fp) == sb.len && fclose(fp) == 0) {
            rc = out_tmp_commit(tmp, path);
        } else {
            if (fp)
                fclose(fp);
            out_tmp_discard(tmp);
            err_input(path, "cannot write the advisor file");
        }
    }
    sb_free(&sb);
    return rc;
}

static void append_highlights(compare_ctx *c, size_t i, size_t *cursor, strbuf *err)
{
    while (*cursor < c->nmsgs && c->msgs[*cursor].row == i) {
        if (err->len)
            sb_addc(err, '\n');
        sb_adds(err, hl_text(c->msgs[*cursor].code));
        (*cursor)++;
    }
}

static void summary_row(compare_ctx *c, size_t i, cell *cells, row_text *t, size_t *cursor, compare_result *res)
{
    const match_pair *p = &c->pairs[i];
    pyval v, diff, rel;
    int warn = 0;
    for (int k = 0; k < 4; k++) {
        warn |= cell_stat_diff(c, i, k, &diff, &rel, t->rel[k]);
        cells[6 + k] = to_cell(&diff);
        cells[10 + k] = to_cell(&rel);
        cell_npu_stat(c, i, k, &v);
        cells[14 + k] = to_cell(&v);
        cell_bench_stat(c, i, k, &v);
        cells[18 + k] = to_cell(&v);
    }
    sb_reset(&t->err);
    if (!p->b) {
        cells[22] = text_cell("N/A");
        sb_adds(&t->err, "No bench data matched.");
    } else if (warn) {
        cells[22] = text_cell("Warning");
        sb_adds(&t->err, "Need double check api accuracy.");
        res->warning++;
        if (res->first_failing == (size_t)-1)
            res->first_failing = i;
    } else {
        cells[22] = text_cell("");
    }
    append_highlights(c, i, cursor, &t->err);
    cells[23] = cell_str(sb_str(&t->err), t->err.len);
}

static void md5_row(compare_ctx *c, size_t i, cell *cells, compare_result *res)
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
        res->different++;
        if (res->first_failing == (size_t)-1)
            res->first_failing = i;
    }
}

int write_result(compare_ctx *c, const char *path, compare_result *res)
{
    const char *const *header = c->mode == MODE_MD5 ? md5_header : summary_header;
    int ncols = c->mode == MODE_MD5 ? 9 : 24;
    int stack_col = ncols;
    if (c->have_stack)
        ncols++;
    table_writer *t = table_open(path, c->opts->format, header, ncols);
    if (!t)
        return -1;
    cell cells[32];
    row_text text = {.err = STRBUF_INIT};
    size_t cursor = 0;
    res->first_failing = (size_t)-1;
    int rc = 0;
    for (size_t i = 0; i < c->npairs && rc == 0; i++) {
        const match_pair *p = &c->pairs[i];
        cells[0] = text_cell(p->n->name);
        cells[1] = text_cell(p->b ? p->b->name : "N/A");
        cells[2] = text_cell(p->n->dtype);
        cells[3] = text_cell(p->b ? p->b->dtype : "N/A");
        cells[4] = text_cell(p->n->shape);
        cells[5] = text_cell(p->b ? p->b->shape : "N/A");
        if (c->mode == MODE_MD5)
            md5_row(c, i, cells, res);
        else
            summary_row(c, i, cells, &text, &cursor, res);
        if (c->have_stack)
            cells[stack_col] = text_cell(stack_cell(c, p->n));
        res->rows++;
        if (p->b)
            res->matched++;
        else
            res->unmatched++;
        if (c->fill[i] == FILL_RED)
            res->red++;
        else if (c->fill[i] == FILL_YELLOW)
            res->yellow++;
        rc = table_row(t, cells, c->fill[i]);
    }
    sb_free(&text.err);
    if (rc != 0) {
        table_abort(t);
        return -1;
    }
    return table_close(t);
}
