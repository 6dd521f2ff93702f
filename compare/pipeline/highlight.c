/* Highlighting of suspicious rows (spec/compare.md §6), as msprobe 8.1.0
 * does it: rows are grouped into API batches, every row goes through the
 * overflow rule, and every (output, input/parameter) pair of a batch through
 * the comparison rules of the mode. Messages are appended to Err_message
 * (red ones; yellow ones only for rows that are not red) and the row gets a
 * red or yellow fill. Faithful quirks: outputs already red still get the
 * pair rules, and a message repeats once per input row that triggers it. */
#include "compare/pipeline/compare.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/pool.h"
#include "model/table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *hl_text(int code)
{
    switch (code) {
    case HL_RED_OVERFLOW: return "maximum or minimum is nan, -inf, or inf";
    case HL_RED_MAX_DIFF: return "maximum absolute error exceeds 1e+10";
    case HL_RED_ONE_THOUSAND:
        return "The input/parameter's one thousandth err ratio exceeds 0.9, while the output's is below 0.6";
    case HL_RED_MAX_RELATIVE: return "maximum relative error exceeds 0.5";
    case HL_YELLOW_ORDER:
        return "maximum absolute error of both input/parameters and output exceed 1, "
               "with the output larger by an order of magnitude";
    case HL_YELLOW_ONE_THOUSAND:
        return "The output's one thousandth err ratio decreases by more than 0.1 compared to the input/parameter's";
    case HL_YELLOW_COSINE: return "The output's cosine decreases by more than 0.1 compared to the input/parameter's";
    case HL_YELLOW_MAX_RELATIVE:
        return "The output's maximum relative error exceeds 0.1, while the input/parameter's is below 0.01";
    }
    return "";
}

/* The cells the rules read, as Python values. "max diff" is Max diff
 * (statistics) or MaxAbsErr (tensors). */
typedef struct {
    pyval npu_max, npu_min, bench_max, max_diff, one_thousandth, cosine;
} rule_cells;

static void read_cells(const compare_ctx *c, size_t i, rule_cells *rc, char *buf)
{
    cell_npu_stat(c, i, 0, &rc->npu_max);
    cell_npu_stat(c, i, 1, &rc->npu_min);
    cell_bench_stat(c, i, 0, &rc->bench_max);
    if (c->mode == MODE_ALL) {
        real_metric_cell(c, i, MET_MAXABS, &rc->max_diff);
        real_metric_cell(c, i, MET_ONE_THOUSANDTH, &rc->one_thousandth);
        real_metric_cell(c, i, MET_COSINE, &rc->cosine);
    } else {
        pyval rel;
        cell_stat_diff_of(c, i, 0, &rc->npu_max, &rc->bench_max, &rc->max_diff, &rel, buf);
    }
}

/* isinstance(x, (float, int)): bools count, strings and None do not. */
static int is_num(const pyval *v) { return v->kind == PV_FLOAT || v->kind == PV_INT || v->kind == PV_BOOL; }

/* str(x) in ('nan', 'inf', '-inf', ...) for the overflow rule. */
static int overflow_text(const pyval *v)
{
    if (v->kind == PV_FLOAT)
        return isnan(v->num) || isinf(v->num);
    if (v->kind == PV_STR)
        return (v->len == 3 && (!memcmp(v->text, "nan", 3) || !memcmp(v->text, "inf", 3))) ||
               (v->len == 4 && (!memcmp(v->text, "-inf", 4) || !memcmp(v->text, "nan\t", 4) ||
                                !memcmp(v->text, "inf\t", 4))) ||
               (v->len == 5 && !memcmp(v->text, "-inf\t", 5));
    return 0;
}

typedef struct {
    hl_message *red, *yellow;
    size_t nred, nyellow, capred, capyellow;
} batch_msgs;

static void add_msg(hl_message **v, size_t *n, size_t *cap, size_t row, int code)
{
    GROW(*v, *cap, *n + 1);
    (*v)[*n].row = (uint32_t)row;
    (*v)[*n].code = (uint8_t)code;
    (*n)++;
}

static void red(batch_msgs *m, size_t row, int code) { add_msg(&m->red, &m->nred, &m->capred, row, code); }
static void yellow(batch_msgs *m, size_t row, int code) { add_msg(&m->yellow, &m->nyellow, &m->capyellow, row, code); }

static void check_overflow(batch_msgs *m, size_t row, const rule_cells *x)
{
    if (overflow_text(&x->npu_max) || overflow_text(&x->npu_min)) {
        red(m, row, HL_RED_OVERFLOW);
        return;
    }
    if (is_num(&x->max_diff) && fabs(x->max_diff.num) > 1e10)
        red(m, row, HL_RED_MAX_DIFF);
}

static double order(double x) { return x < 1 ? 0 : log10(x); }

static void check_order_magnitude(batch_msgs *m, size_t row, const rule_cells *in, const rule_cells *out)
{
    double a = fabs(in->max_diff.num), b = fabs(out->max_diff.num);
    if (a > b)
        return;
    if (order(b) - order(a) >= 1)
        yellow(m, row, HL_YELLOW_ORDER);
}

/* max(eps, bench_max) in Python: NaN and values below eps give eps. */
static double max_eps(double x)
{
    const double eps = 2.220446049250313e-16;
    return x > eps ? x : eps;
}

static void check_max_relative(batch_msgs *m, size_t row, const rule_cells *in, const rule_cells *out)
{
    double r_in = fabs(in->max_diff.num / max_eps(in->bench_max.num));
    double r_out = fabs(out->max_diff.num / max_eps(out->bench_max.num));
    if (r_out > 0.5)
        red(m, row, HL_RED_MAX_RELATIVE);
    else if (r_out > 0.1 && r_in < 0.01)
        yellow(m, row, HL_YELLOW_MAX_RELATIVE);
}

static void check_one_thousandth(batch_msgs *m, size_t row, const rule_cells *in, const rule_cells *out)
{
    if (!is_num(&in->one_thousandth) || !is_num(&out->one_thousandth))
        return;
    double a = in->one_thousandth.num, b = out->one_thousandth.num;
    if (a > 0.9 && b < 0.6)
        red(m, row, HL_RED_ONE_THOUSAND);
    else if (a - b > 0.1)
        yellow(m, row, HL_YELLOW_ONE_THOUSAND);
}

static void check_cosine(batch_msgs *m, size_t row, const rule_cells *in, const rule_cells *out)
{
    if (!is_num(&in->cosine) || !is_num(&out->cosine))
        return;
    if (in->cosine.num - out->cosine.num > 0.1)
        yellow(m, row, HL_YELLOW_COSINE);
}

typedef struct {
    uint32_t start, in_len, params_end, output_end, grad_end;
} api_batch;

/* What one thread needs for its batches: their messages (in row order)
 * and scratch reused from batch to batch. */
typedef struct {
    batch_msgs m;
    hl_message *msgs;
    size_t nmsgs, cap;
    rule_cells *cells;
    char (*bufs)[40];
    size_t cells_cap, bufs_cap;
} hl_part;

static int has_direction(const char *s, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++) {
        if (s[i] != '.')
            continue;
        if (n - i >= 9 && !memcmp(s + i + 1, "forward.", 8))
            return 1;
        if (n - i >= 10 && !memcmp(s + i + 1, "backward.", 9))
            return 1;
    }
    return 0;
}

static int contains(const char *hay, size_t hn, const char *needle, size_t nn)
{
    if (nn == 0)
        return 1;
    return nn <= hn && memmem(hay, hn, needle, nn) != NULL;
}

static void check_batch(const compare_ctx *c, const api_batch *bt, hl_part *p)
{
    batch_msgs *m = &p->m;
    size_t n = bt->grad_end - bt->start;
    GROW(p->cells, p->cells_cap, n);
    GROW(p->bufs, p->bufs_cap, n);
    rule_cells *cells = p->cells;
    char (*bufs)[40] = p->bufs;
    for (size_t i = 0; i < n; i++) {
        read_cells(c, bt->start + i, &cells[i], bufs[i]);
        check_overflow(m, bt->start + i, &cells[i]);
    }
    for (size_t o = bt->params_end; o < bt->output_end; o++) {
        const rule_cells *out = &cells[o - bt->start];
        if (!is_num(&out->npu_max) || !is_num(&out->bench_max) || !is_num(&out->max_diff))
            continue;
        for (size_t i = bt->start; i < bt->params_end; i++) {
            const rule_cells *in = &cells[i - bt->start];
            if (!is_num(&in->npu_max) || !is_num(&in->bench_max) || !is_num(&in->max_diff))
                continue;
            check_order_magnitude(m, o, in, out);
            if (c->mode == MODE_SUMMARY) {
                check_max_relative(m, o, in, out);
            } else {
                check_one_thousandth(m, o, in, out);
                check_cosine(m, o, in, out);
            }
        }
    }
}

static int by_row(const void *a, const void *b)
{
    const hl_message *x = a, *y = b;
    if (x->row != y->row)
        return x->row < y->row ? -1 : 1;
    return 0;
}

/* Append this batch's messages to the context in row order, red first, and
 * yellow only for rows without red; stable sort keeps message order. */
static void flush_batch(const compare_ctx *c, hl_part *p)
{
    batch_msgs *m = &p->m;
    if (!m->nred && !m->nyellow)
        return;
    size_t total = m->nred + m->nyellow;
    hl_message *all = xmalloc_array(total, sizeof *all);
    if (m->nred)
        memcpy(all, m->red, m->nred * sizeof *all);
    size_t k = m->nred;
    for (size_t i = 0; i < m->nyellow; i++) {
        int is_red = 0;
        for (size_t r = 0; r < m->nred && !is_red; r++)
            is_red = m->red[r].row == m->yellow[i].row;
        if (!is_red)
            all[k++] = m->yellow[i];
    }
    /* insertion sort by row: stable, and batches are small */
    for (size_t i = 1; i < k; i++) {
        hl_message x = all[i];
        size_t j = i;
        while (j > 0 && by_row(&all[j - 1], &x) > 0) {
            all[j] = all[j - 1];
            j--;
        }
        all[j] = x;
    }
    for (size_t i = 0; i < k; i++) {
        GROW(p->msgs, p->cap, p->nmsgs + 1);
        p->msgs[p->nmsgs++] = all[i];
        uint8_t f = HL_IS_RED(all[i].code) ? FILL_RED : FILL_YELLOW;
        if (f == FILL_RED || c->fill[all[i].row] == FILL_NONE)
            c->fill[all[i].row] = f;
    }
    free(all);
    m->nred = m->nyellow = 0;
}

/* The batches' rules run on all threads, a range of batches each (every
 * batch touches only its own rows' fills); the messages are joined in
 * order. */
#define HL_CHUNK 4096

typedef struct {
    const compare_ctx *c;
    const api_batch *bt;
    size_t nbt;
    hl_part *part;
} hl_job;

static void hl_chunk(void *arg, size_t k)
{
    hl_job *j = arg;
    hl_part *p = &j->part[k];
    size_t to = (k + 1) * HL_CHUNK < j->nbt ? (k + 1) * HL_CHUNK : j->nbt;
    for (size_t b = k * HL_CHUNK; b < to; b++) {
        check_batch(j->c, &j->bt[b], p);
        flush_batch(j->c, p);
    }
    free(p->m.red);
    free(p->m.yellow);
    free(p->cells);
    free(p->bufs);
}

int highlight_rows(compare_ctx *c)
{
    /* the newest msprobe fills no row: its Result analysis runs on the
     * same batches of an API's rows (checks.c) */
    if (c->opts->dialect == DIALECT_NEWEST)
        return check_rows(c);
    c->fill = xcalloc(c->npairs ? c->npairs : 1, 1);
    c->msgs = NULL;
    c->nmsgs = 0;
    if (c->mode == MODE_MD5 || c->file_type != DUMP_JSON || c->npairs == 0)
        return 0;
    api_batch *bts = NULL, *bt = NULL;
    size_t nbt = 0, bt_cap = 0;
    const char *bt_api = NULL;
    size_t bt_api_len = 0;
    for (size_t i = 0; i < c->npairs; i++) {
        const dump_row *r = c->pairs[i].n;
        const char *api = r->name;
        size_t api_len = r->api_len;
        int join = bt && ((api_len == bt_api_len && !memcmp(api, bt_api, api_len)) ||
                          (!has_direction(api, api_len) && contains(bt_api, bt_api_len, api, api_len)));
        if (join) {
            switch (r->state) {
            case ST_INPUT:
            case ST_KWARGS:
                bt->in_len++, bt->params_end++, bt->output_end++;
                break;
            case ST_PARAMS:
                bt->params_end++, bt->output_end++;
                break;
            case ST_OUTPUT:
                bt->output_end++;
                break;
            case ST_PARAMS_GRAD:
                break;
            default:
                free(bts);
                return err_input(c->npu.path, "api_batch of %.*s with invalid state: %s", (int)bt_api_len, bt_api,
                                 r->name);
            }
            bt->grad_end++;
            continue;
        }
        GROW(bts, bt_cap, nbt + 1);
        bt = &bts[nbt++];
        bt_api = api;
        bt_api_len = api_len;
        bt->start = (uint32_t)i;
        bt->in_len = 1;
        bt->params_end = bt->output_end = bt->grad_end = (uint32_t)(i + 1);
    }
    size_t chunks = (nbt + HL_CHUNK - 1) / HL_CHUNK;
    hl_job j = {.c = c, .bt = bts, .nbt = nbt, .part = xcalloc(chunks ? chunks : 1, sizeof *j.part)};
    pool_for(chunks, c->opts->threads > 0 ? c->opts->threads : 1, hl_chunk, &j);
    size_t total = 0;
    for (size_t k = 0; k < chunks; k++)
        total += j.part[k].nmsgs;
    if (total) {
        c->msgs = xmalloc_array(total, sizeof *c->msgs);
        for (size_t k = 0; k < chunks; k++) {
            if (j.part[k].nmsgs)
                memcpy(c->msgs + c->nmsgs, j.part[k].msgs, j.part[k].nmsgs * sizeof *c->msgs);
            c->nmsgs += j.part[k].nmsgs;
        }
    }
    for (size_t k = 0; k < chunks; k++)
        free(j.part[k].msgs);
    free(j.part);
    free(bts);
    return 0;
}
