/* The per-rank result of the first-diff analysis (compare -da): msprobe
 * 8.3's compare in first-diff mode and its FirstDiffAnalyze.check()
 * (spec/analyzers.md §C.2).
 *
 * The rows are the compare's own (matched pairs, statistics and their
 * differences); the table is cut into API batches, each written with every
 * cell of its rows and whether it is the same on both sides:
 *
 *   {"Functional.conv2d.0.forward": {"is_same": false, "op_items": [{...}]}}
 *
 * as json.dump(indent=4) writes it. Cells hold what 8.3's pandas table holds:
 * requires_grad as "True"/"False"/"N/A", "Err_message" with its trailing
 * spaces, ints of a numeric statistics block as floats, P2POp op and peer.
 */
#include "compare/pipeline/first_diff.h"
#include "base/files.h"
#include "base/outdir.h"
#include "format/jsonw.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/strmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const summary_cols[] = {
    "NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape", "Bench Tensor Shape",
    "NPU Requires_grad", "Bench Requires_grad", "Max diff", "Min diff", "Mean diff", "L2norm diff",
    "MaxRelativeErr", "MinRelativeErr", "MeanRelativeErr", "NormRelativeErr", "NPU max", "NPU min", "NPU mean",
    "NPU l2norm", "Bench max", "Bench min", "Bench mean", "Bench l2norm", "Requires_grad Consistent", "Result",
    "Err_message"};
static const char *const state_names[] = {"input", "input", "output", "parameters", "parameters_grad", "debug"};

/* FirstDiffAnalyze's configuration (diff_analyze_threshold.yaml and
 * ignore_op_list.yaml, fixed in msprobe): an output differs when a relative
 * error is above 50 %; outputs 4 and 5 of npu_fusion_attention are not
 * looked at. */
#define DIFF_THRESHOLD 0.5

static int ignored_output(const char *api, size_t k)
{
    return !strcmp(api, "npu_fusion_attention") && (k == 4 || k == 5);
}

/* How pandas holds a block of four statistics columns of one side, which
 * decides whether an int prints as an int or a float (spec §C.2). */
enum { COL_INT, COL_FLOAT, COL_BOOL, COL_OBJECT };

typedef struct {
    uint8_t col[4];
    uint8_t float_block;     /* every column numeric and one is float: ints become floats */
} stat_block;

static int value_col(const pyval *v)
{
    if (v->kind == PV_INT && !v->wide_int)
        return COL_INT;
    if (v->kind == PV_FLOAT)
        return COL_FLOAT;
    return v->kind == PV_BOOL ? COL_BOOL : COL_OBJECT;
}

static int merge_col(int a, int b)
{
    if (a == b)
        return a;
    if ((a == COL_INT && b == COL_FLOAT) || (a == COL_FLOAT && b == COL_INT))
        return COL_FLOAT;
    return COL_OBJECT;
}

static void type_block(const compare_ctx *c, int bench, stat_block *sb)
{
    int numeric = 1, any_float = 0;
    for (int k = 0; k < 4; k++) {
        int col = -1;
        for (size_t i = 0; i < c->npairs; i++) {
            pyval v;
            if (bench)
                cell_bench_stat(c, i, k, &v);
            else
                cell_npu_stat(c, i, k, &v);
            col = col < 0 ? value_col(&v) : merge_col(col, value_col(&v));
        }
        sb->col[k] = (uint8_t)(col < 0 ? COL_OBJECT : col);
        numeric &= col == COL_INT || col == COL_FLOAT;
        any_float |= col == COL_FLOAT;
    }
    sb->float_block = (uint8_t)(numeric && any_float);
}

static int prints_as_float(const stat_block *sb, int k) { return sb->col[k] == COL_FLOAT || sb->float_block; }

/* An int as pandas.to_numeric(str(x)) keeps it an int. */
static int int_like(const pyval *v, const stat_block *sb, int k)
{
    if (v->kind == PV_INT)
        return !v->wide_int && !prints_as_float(sb, k);
    if (v->kind != PV_STR || !v->len || v->len > 18)
        return 0;
    size_t i = v->text[0] == '-' && v->len > 1;
    for (; i < v->len; i++)
        if (v->text[i] < '0' || v->text[i] > '9')
            return 0;
    return 1;
}

typedef struct {
    compare_ctx *c;
    stat_block npu, bench;
    uint8_t int_diff[4];     /* both columns hold ints only: their difference is an int */
    FILE *fp;
    strbuf sb;
    int failed;
} writer;

static void flush(writer *w, int force)
{
    if (w->sb.len < (1u << 20) && !force)
        return;
    if (w->sb.len && fwrite(w->sb.buf, 1, w->sb.len, w->fp) != w->sb.len)
        w->failed = 1;
    sb_reset(&w->sb);
}

static void key(writer *w, int first, const char *k)
{
    if (!first)
        sb_addc(&w->sb, ',');
    jsonw_newline(&w->sb, 4, 4);
    jsonw_str_ascii(&w->sb, k, strlen(k));
    sb_add(&w->sb, ": ", 2);
}

static void str_value(writer *w, const char *s) { jsonw_str_ascii(&w->sb, s, strlen(s)); }

static void py_value(writer *w, const pyval *v, int as_float)
{
    switch (v->kind) {
    case PV_NONE: sb_adds(&w->sb, "null"); break;
    case PV_BOOL: sb_adds(&w->sb, v->num ? "true" : "false"); break;
    case PV_INT:
        if (as_float || !v->text)
            jsonw_double(&w->sb, v->num);
        else
            sb_add(&w->sb, v->text, v->len);
        break;
    case PV_FLOAT: jsonw_double(&w->sb, v->num); break;
    /* a list or dict value: its str(), where msprobe would write the object */
    default: jsonw_str_ascii(&w->sb, v->text, v->len); break;
    }
}

static const char *rg_text(const dump_row *r)
{
    return !r || !(r->flags & ROW_RG_SET) ? "N/A" : (r->flags & ROW_RG_TRUE) ? "True" : "False";
}

static const dump_p2p *p2p_of(const dump_data *d, const dump_row *r) { return r->p2p ? &d->p2p[r->p2p - 1] : NULL; }

/* The cells of row i after the basic ones; *differs tells is_same's test. */
static void summary_cells(writer *w, size_t i, int *differs, int *warn)
{
    compare_ctx *c = w->c;
    const match_pair *p = &c->pairs[i];
    pyval diff[4], rel[4], v;
    char relbuf[4][NEWEST_DIFF_BUFSZ], diffbuf[4][NEWEST_DIFF_BUFSZ];
    *warn = 0;
    int newest = c->opts->dialect == DIALECT_NEWEST;
    for (int k = 0; k < 4; k++) {
        if (!newest) {
            *warn |= cell_stat_diff(c, i, k, &diff[k], &rel[k], relbuf[k]);
            continue;
        }
        /* the newest msprobe's difference texts, and no Warning */
        pyval vn, vb;
        newest_stat(c, i, k, 0, &vn);
        newest_stat(c, i, k, 1, &vb);
        newest_stat_diff(c, k, &vn, &vb, diffbuf[k], relbuf[k]);
        diff[k] = (pyval){.kind = PV_STR, .text = diffbuf[k], .len = (uint32_t)strlen(diffbuf[k])};
        rel[k] = (pyval){.kind = PV_STR, .text = relbuf[k], .len = (uint32_t)strlen(relbuf[k])};
    }
    for (int k = 0; k < 4; k++) {
        key(w, 0, summary_cols[8 + k]);
        if (diff[k].kind == PV_FLOAT && w->int_diff[k])
            sb_addf(&w->sb, "%.0f", diff[k].num);
        else
            py_value(w, &diff[k], 0);
    }
    for (int k = 0; k < 4; k++) {
        key(w, 0, summary_cols[12 + k]);
        py_value(w, &rel[k], 0);
        /* float(cell[:-1]) / 100 > threshold */
        if (rel[k].kind == PV_STR && rel[k].len > 1 && rel[k].text[rel[k].len - 1] == '%' &&
            strtod(rel[k].text, NULL) / 100 > DIFF_THRESHOLD)
            *differs = 1;
    }
    for (int k = 0; k < 4; k++) {
        key(w, 0, summary_cols[16 + k]);
        cell_npu_stat(c, i, k, &v);
        py_value(w, &v, prints_as_float(&w->npu, k));
    }
    for (int k = 0; k < 4; k++) {
        key(w, 0, summary_cols[20 + k]);
        cell_bench_stat(c, i, k, &v);
        py_value(w, &v, prints_as_float(&w->bench, k));
    }
    int consistent = !strcmp(rg_text(p->n), rg_text(p->b));
    key(w, 0, "Requires_grad Consistent");
    sb_adds(&w->sb, consistent ? "true" : "false");
    key(w, 0, "Result");
    str_value(w, !p->b ? "N/A" : *warn ? "Warning" : "");
    key(w, 0, "Err_message");
    strbuf *sb = &w->sb;
    sb_addc(sb, '"');
    sb_adds(sb, !p->b ? "No bench data matched." : *warn ? "Need double check api accuracy. " : "");
    if (!consistent)
        sb_adds(sb, "Requires_grad inconsistent. ");
    sb_addc(sb, '"');
}

static void md5_cells(writer *w, size_t i, int *differs)
{
    const match_pair *p = &w->c->pairs[i];
    const char *nm = p->n->md5 ? p->n->md5 : "N/A";
    const char *bm = p->b ? (p->b->md5 ? p->b->md5 : "N/A") : "N/A";
    key(w, 0, "NPU MD5");
    str_value(w, nm);
    key(w, 0, "BENCH MD5");
    str_value(w, bm);
    key(w, 0, "Requires_grad Consistent");
    sb_adds(&w->sb, !strcmp(rg_text(p->n), rg_text(p->b)) ? "true" : "false");
    const char *result = !strcmp(nm, bm) ? "pass" : p->b ? "Different" : "N/A";
    key(w, 0, "Result");
    str_value(w, result);
    *differs = !strcmp(result, "Different");
}

/* One row as a dict of every column; returns whether it makes its API
 * differ (only outputs count, k-th output of the API). */
static int write_row(writer *w, size_t i, const char *api, size_t *outputs)
{
    compare_ctx *c = w->c;
    const match_pair *p = &c->pairs[i];
    const dump_row *n = p->n, *b = p->b;
    sb_addc(&w->sb, '{');
    key(w, 1, "NPU Name");
    str_value(w, n->name);
    key(w, 0, "Bench Name");
    str_value(w, b ? b->name : "N/A");
    key(w, 0, "NPU Dtype");
    str_value(w, n->dtype);
    key(w, 0, "Bench Dtype");
    str_value(w, b ? b->dtype : "N/A");
    key(w, 0, "NPU Tensor Shape");
    str_value(w, n->shape);
    key(w, 0, "Bench Tensor Shape");
    str_value(w, b ? b->shape : "N/A");
    key(w, 0, "NPU Requires_grad");
    str_value(w, rg_text(n));
    key(w, 0, "Bench Requires_grad");
    str_value(w, rg_text(b));
    int differs = 0, warn = 0;
    if (c->mode == MODE_MD5)
        md5_cells(w, i, &differs);
    else
        summary_cells(w, i, &differs, &warn);
    if (c->have_stack) {
        key(w, 0, "NPU_Stack_Info");
        const dump_entry *e = &c->npu.entries[n->entry];
        const stack_info *si = e->first_row == (size_t)(n - c->npu.rows) ? stack_find(&c->stack, e->name) : NULL;
        if (si)
            jsonw_value(&w->sb, si->value, 4, 4);
        else
            str_value(w, "N/A");
    }
    key(w, 0, "state");
    str_value(w, state_names[n->state]);
    key(w, 0, "api_origin_name");
    str_value(w, c->npu.entries[n->entry].name);
    const dump_p2p *np = p2p_of(&c->npu, n), *bp = b ? p2p_of(&c->bench, b) : NULL;
    static const pyval none_text = {.kind = PV_STR, .len = 4, .text = "None"};
    static const pyval na_text = {.kind = PV_STR, .len = 3, .text = "N/A"};
    const pyval *cells[4] = {np ? &np->op : &none_text, !b ? &na_text : bp ? &bp->op : &none_text,
                             np ? &np->peer : &none_text, !b ? &na_text : bp ? &bp->peer : &none_text};
    static const char *const p2p_cols[4] = {"NPU P2POp op", "Bench P2POp op", "NPU P2POp peer", "Bench P2POp peer"};
    for (int k = 0; k < 4; k++) {
        key(w, 0, p2p_cols[k]);
        py_value(w, cells[k], 0);
    }
    jsonw_newline(&w->sb, 4, 3);
    sb_addc(&w->sb, '}');
    if (n->state != ST_OUTPUT)
        return 0;
    size_t k = (*outputs)++;
    return !ignored_output(api, k) && differs;
}

/* msprobe's gen_api_batches(): rows stay in a batch while they carry its
 * API name, or a name without .forward./.backward. that is part of it. */
static int same_batch(const char *batch, const char *name)
{
    if (!strcmp(batch, name))
        return 1;
    return !strstr(name, ".forward.") && !strstr(name, ".backward.") && strstr(batch, name);
}

/* The 3rd dot field from the end (Functional.conv2d.0.forward -> conv2d),
 * or NULL for a name of fewer than 4 fields (such batches are left out). */
static const char *batch_api(const char *name, char *buf, size_t cap)
{
    const char *dot[3] = {NULL, NULL, NULL};   /* last, second last, third last */
    int found = 0;
    for (const char *p = name + strlen(name); p > name && found < 3;)
        if (*--p == '.')
            dot[found++] = p;
    if (found < 3)
        return NULL;
    size_t n = (size_t)(dot[1] - dot[2] - 1);
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, dot[2] + 1, n);
    buf[n] = 0;
    return buf;
}

typedef struct {
    size_t from, to;
    const char *name;
} batch;

int write_first_diff(compare_ctx *c, char **path, compare_result *res)
{
    writer w = {.c = c, .sb = STRBUF_INIT};
    type_block(c, 0, &w.npu);
    type_block(c, 1, &w.bench);
    for (int k = 0; k < 4 && c->mode == MODE_SUMMARY; k++) {
        int all = 1;
        for (size_t i = 0; i < c->npairs && all; i++) {
            pyval vn, vb;
            cell_npu_stat(c, i, k, &vn);
            cell_bench_stat(c, i, k, &vb);
            all = int_like(&vn, &w.npu, k) && int_like(&vb, &w.bench, k);
        }
        w.int_diff[k] = (uint8_t)all;
    }
    /* the batches; a repeated name keeps its first place and its last rows */
    batch *bs = xmalloc_array(c->npairs, sizeof *bs);
    size_t nb = 0;
    for (size_t i = 0; i < c->npairs; i++) {
        const char *name = c->npu.entries[c->pairs[i].n->entry].name;
        if (nb && same_batch(bs[nb - 1].name, name)) {
            bs[nb - 1].to = i + 1;
            continue;
        }
        bs[nb++] = (batch){.from = i, .to = i + 1, .name = name};
    }
    strmap last;
    strmap_init(&last, nb);
    for (size_t k = 0; k < nb; k++) {
        int added;
        size_t *slot = strmap_put(&last, bs[k].name, strlen(bs[k].name), k, &added);
        *slot = k;
    }
    char *tmp = out_tmp_create(*path);
    if (!tmp) {
        strmap_free(&last);
        free(bs);
        return -1;
    }
    w.fp = out_tmp_fopen(tmp);
    if (!w.fp) {
        out_tmp_discard(tmp);
        strmap_free(&last);
        free(bs);
        return err_input(*path, "cannot write the first-diff result");
    }
    size_t written = 0;
    sb_addc(&w.sb, '{');
    strmap firsts;
    strmap_init(&firsts, nb);
    for (size_t k = 0; k < nb; k++) {
        char api_buf[256];
        const char *api = batch_api(bs[k].name, api_buf, sizeof api_buf);
        int added;
        strmap_put(&firsts, bs[k].name, strlen(bs[k].name), k, &added);
        if (!api || !added)
            continue;
        const batch *b = &bs[*strmap_get(&last, bs[k].name, strlen(bs[k].name))];
        if (written++)
            sb_addc(&w.sb, ',');
        jsonw_newline(&w.sb, 4, 1);
        jsonw_str_ascii(&w.sb, b->name, strlen(b->name));
        sb_adds(&w.sb, ": {");
        /* is_same is known only after the rows: write them aside first */
        strbuf rows = w.sb;
        w.sb = (strbuf)STRBUF_INIT;
        size_t outputs = 0;
        int differs = 0;
        for (size_t i = b->from; i < b->to; i++) {
            if (i > b->from)
                sb_addc(&w.sb, ',');
            jsonw_newline(&w.sb, 4, 3);
            differs |= write_row(&w, i, api, &outputs);
        }
        strbuf items = w.sb;
        w.sb = rows;
        jsonw_newline(&w.sb, 4, 2);
        sb_addf(&w.sb, "\"is_same\": %s,", differs ? "false" : "true");
        jsonw_newline(&w.sb, 4, 2);
        sb_adds(&w.sb, "\"op_items\": [");
        sb_add(&w.sb, items.buf, items.len);
        sb_free(&items);
        jsonw_newline(&w.sb, 4, 2);
        sb_addc(&w.sb, ']');
        jsonw_newline(&w.sb, 4, 1);
        sb_addc(&w.sb, '}');
        flush(&w, 0);
    }
    if (written)
        jsonw_newline(&w.sb, 4, 0);
    sb_addc(&w.sb, '}');
    flush(&w, 1);
    strmap_free(&firsts);
    strmap_free(&last);
    free(bs);
    sb_free(&w.sb);
    int bad = w.failed | (fclose(w.fp) != 0);
    if (bad) {
        out_tmp_discard(tmp);
        return err_input(*path, "cannot write the first-diff result");
    }
    if (out_commit_new(tmp, path) < 0)
        return -1;
    res->rows = c->npairs;
    res->first_failing = (size_t)-1;
    for (size_t i = 0; i < c->npairs; i++) {
        const match_pair *p = &c->pairs[i];
        if (!p->b) {
            res->unmatched++;
            continue;
        }
        res->matched++;
        int fails = c->mode == MODE_MD5 ? strcmp(p->n->md5 ? p->n->md5 : "N/A", p->b->md5 ? p->b->md5 : "N/A") != 0
                                        : c->diffs[i].warn != 0;
        if (fails && res->first_failing == (size_t)-1)
            res->first_failing = i;
        if (c->mode == MODE_MD5)
            res->different += (size_t)fails;
        else
            res->warning += (size_t)fails;
    }
    return 0;
}
