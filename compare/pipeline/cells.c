/* The values of the statistics cells, reproducing what msprobe's pandas
 * pipeline holds in each cell (spec/compare.md §4.6, §5.3):
 *   - a NaN statistic (or the text "nan") becomes the string "Nan";
 *   - None stays None in an object column but becomes NaN in a column pandas
 *     made float64 (every value a number or None);
 *   - unmatched rows show "N/A" for missing values and on the bench side;
 *   - differences go through str() and pandas.to_numeric.
 */
#include "compare/pipeline/compare.h"
#include "py/numfmt.h"
#include "py/pdnum.h"
#include "base/mem.h"
#include "base/pool.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const pyval NA = {.kind = PV_STR, .len = 3, .text = "N/A"};
static const pyval NAN_TEXT = {.kind = PV_STR, .len = 3, .text = "Nan"};

static int text_is_nan(const char *s, size_t n)
{
    return n == 3 && tolower((unsigned char)s[0]) == 'n' && tolower((unsigned char)s[1]) == 'a' &&
           tolower((unsigned char)s[2]) == 'n';
}

/* msprobe's set_summary(): str(x).lower() == 'nan' -> "Nan". */
static void set_summary(pyval *v)
{
    if ((v->kind == PV_FLOAT && isnan(v->num)) || (v->kind == PV_STR && text_is_nan(v->text, v->len)))
        *v = NAN_TEXT;
}

static int is_number_or_none(const pyval *v)
{
    return v->kind == PV_NONE || (v->kind == PV_INT && !v->wide_int) || v->kind == PV_FLOAT;
}

/* One pass over the rows for all four columns (a million rows: the rows
 * are read once, not four times), in chunks on all threads. */
typedef struct {
    uint8_t npu_ok[4], npu_any[4], bench_ok[4], bench_any[4];
} column_kinds;

typedef struct {
    const compare_ctx *c;
    column_kinds *part;
} types_job;

#define TYPES_CHUNK 65536

static void types_chunk(void *arg, size_t chunk)
{
    types_job *j = arg;
    const compare_ctx *c = j->c;
    column_kinds t = {.npu_ok = {1, 1, 1, 1}, .bench_ok = {1, 1, 1, 1}};
    size_t from = chunk * TYPES_CHUNK, to = from + TYPES_CHUNK < c->npairs ? from + TYPES_CHUNK : c->npairs;
    for (size_t i = from; i < to; i++) {
        const dump_row *n = c->pairs[i].n, *b = c->pairs[i].b;
        for (int k = 0; k < 4; k++) {
            pyval v = dump_stat(n, k);
            set_summary(&v);
            t.npu_ok[k] &= (uint8_t)is_number_or_none(&v);
            t.npu_any[k] |= v.kind != PV_NONE;
            if (!b) {
                t.bench_ok[k] = 0;
                continue;
            }
            v = dump_stat(b, k);
            set_summary(&v);
            t.bench_ok[k] &= (uint8_t)is_number_or_none(&v);
            t.bench_any[k] |= v.kind != PV_NONE;
        }
    }
    j->part[chunk] = t;
}

void stats_column_types(compare_ctx *c)
{
    size_t chunks = (c->npairs + TYPES_CHUNK - 1) / TYPES_CHUNK;
    types_job j = {.c = c, .part = xmalloc_array(chunks ? chunks : 1, sizeof *j.part)};
    pool_for(chunks, c->opts->threads > 0 ? c->opts->threads : 1, types_chunk, &j);
    column_kinds all = {.npu_ok = {1, 1, 1, 1}, .bench_ok = {1, 1, 1, 1}};
    for (size_t p = 0; p < chunks; p++)
        for (int k = 0; k < 4; k++) {
            all.npu_ok[k] &= j.part[p].npu_ok[k];
            all.npu_any[k] |= j.part[p].npu_any[k];
            all.bench_ok[k] &= j.part[p].bench_ok[k];
            all.bench_any[k] |= j.part[p].bench_any[k];
        }
    free(j.part);
    for (int k = 0; k < 4; k++) {
        c->npu_numeric[k] = (uint8_t)(all.npu_ok[k] && all.npu_any[k]);
        c->bench_numeric[k] = (uint8_t)(all.bench_ok[k] && all.bench_any[k]);
    }
}

static void stat_value(const dump_row *r, int k, int numeric, int unmatched, pyval *out)
{
    *out = dump_stat(r, k);
    set_summary(out);
    if (out->kind == PV_NONE) {
        if (unmatched) {
            *out = NA;
        } else if (numeric) {
            out->kind = PV_FLOAT;
            out->num = out->pd_num = NAN;
            out->pd_ok = 1;
        }
    }
}

void cell_npu_stat(const compare_ctx *c, size_t i, int k, pyval *out)
{
    const match_pair *p = &c->pairs[i];
    stat_value(p->n, k, c->npu_numeric[k], p->b == NULL, out);
}

void cell_bench_stat(const compare_ctx *c, size_t i, int k, pyval *out)
{
    const match_pair *p = &c->pairs[i];
    if (!p->b) {
        *out = NA;
        return;
    }
    stat_value(p->b, k, c->bench_numeric[k], 0, out);
}

/* str(v) parsed by pandas.to_numeric: returns whether msprobe's type_check
 * passes ("a number or nan"); *num gets the number or NaN. Floats are
 * re-parsed from their repr only on request (`exact`), as that is costly. */
static int numeric_or_nan(const pyval *v, double *num, int exact)
{
    *num = NAN;
    switch (v->kind) {
    case PV_FLOAT:
        *num = exact ? pd_float_roundtrip(v->num) : v->num;
        return 1;
    case PV_INT:
    case PV_STR:
        if (v->kind == PV_STR && text_is_nan(v->text, v->len))
            return 1;
        if (!v->pd_ok)
            return 0;
        *num = v->pd_num;
        return 1;
    default:
        return 0;
    }
}

/* One statistic of one row: msprobe's calc_summary_diff(). */
static void stat_diff_of(const compare_ctx *c, size_t i, int k, pyval vn, pyval vb, stat_diffs *out)
{
    double n, b;
    /* Equal floats give a zero difference whatever pandas reads them as. */
    int same = vn.kind == PV_FLOAT && vb.kind == PV_FLOAT && vn.num == vb.num;
    int ok_n = numeric_or_nan(&vn, &n, !same), ok_b = numeric_or_nan(&vb, &b, !same);
    if (!ok_n || !ok_b || !c->pairs[i].b) {
        out->kind[k] = DIFF_NA;
        return;
    }
    double d = n - b;
    if (isnan(d)) {
        out->kind[k] = DIFF_NAN;
        return;
    }
    out->kind[k] = DIFF_NUM;
    out->diff[k] = d;
    /* np.maximum propagates NaN, which then fails the comparison. The
     * difference goes through str() and pandas again; that only moves its
     * last bits, so re-parse only when the ratio is close to the limit. */
    double mx = isnan(n) || isnan(b) ? NAN : (n > b ? n : b);
    double den = fabs(mx) + 1e-10;
    double ratio = fabs(d) / den;
    if (fabs(ratio - 0.5) < 1e-9)
        ratio = fabs(pd_float_roundtrip(d)) / den;
    if (ratio > 0.5)
        out->warn |= (uint8_t)(1u << k);
}

static void stat_diff(const compare_ctx *c, size_t i, int k, stat_diffs *out)
{
    pyval vn, vb;
    cell_npu_stat(c, i, k, &vn);
    cell_bench_stat(c, i, k, &vb);
    stat_diff_of(c, i, k, vn, vb, out);
}

static void diffs_chunk(void *arg, size_t chunk)
{
    compare_ctx *c = arg;
    size_t from = chunk * DIFF_CHUNK, to = from + DIFF_CHUNK < c->npairs ? from + DIFF_CHUNK : c->npairs;
    for (size_t i = from; i < to; i++) {
        stat_diffs *d = &c->diffs[i];
        memset(d, 0, sizeof *d);
        for (int k = 0; k < 4; k++)
            stat_diff(c, i, k, d);
    }
}

void compute_diffs(compare_ctx *c, int threads)
{
    c->diffs = xmalloc_array(c->npairs ? c->npairs : 1, sizeof *c->diffs);
    pool_for((c->npairs + DIFF_CHUNK - 1) / DIFF_CHUNK, threads, diffs_chunk, c);
}

int cell_stat_diff_of(const compare_ctx *c, size_t i, int k, const pyval *vn, const pyval *vb, pyval *diff,
                      pyval *rel, char *relbuf)
{
    /* Without computed differences (the table's case: a million rows would
     * hold 40 bytes each), statistic k of row i is computed here, on the
     * thread formatting the row. */
    stat_diffs one;
    const stat_diffs *sd = c->diffs ? &c->diffs[i] : &one;
    if (!c->diffs) {
        memset(&one, 0, sizeof one);
        stat_diff_of(c, i, k, *vn, *vb, &one);
    }
    if (sd->kind[k] == DIFF_NA) {
        *diff = NA;
        *rel = NA;
        return 0;
    }
    if (sd->kind[k] == DIFF_NAN) {
        *diff = NAN_TEXT;
        *rel = NAN_TEXT;
        return 0;
    }
    double d = sd->diff[k];
    memset(diff, 0, sizeof *diff);
    diff->kind = PV_FLOAT;
    diff->num = d;
    /* bench == 0 and diff / bench use the bench value itself, not its
     * re-parsed text (a numeric string counts as its number). */
    double braw = vb->kind == PV_FLOAT || vb->kind == PV_INT || vb->kind == PV_BOOL ? vb->num : vb->pd_num;
    if (braw == 0) {
        *rel = NA;
    } else {
        /* str(abs(diff / bench * 100)) + '%' */
        size_t len = fmt_pyrepr(fabs(d / braw * 100), relbuf);
        relbuf[len++] = '%';
        relbuf[len] = 0;
        memset(rel, 0, sizeof *rel);
        rel->kind = PV_STR;
        rel->text = relbuf;
        rel->len = (uint32_t)len;
    }
    return (sd->warn >> k) & 1;
}

int cell_stat_diff(const compare_ctx *c, size_t i, int k, pyval *diff, pyval *rel, char *relbuf)
{
    pyval vn, vb;
    cell_npu_stat(c, i, k, &vn);
    cell_bench_stat(c, i, k, &vb);
    return cell_stat_diff_of(c, i, k, &vn, &vb, diff, rel, relbuf);
}

/* ALL mode: one of the six metrics of row i, a float or its reason text. */
void real_metric_cell(const compare_ctx *c, size_t i, int k, pyval *out)
{
    const tensor_metrics *m = &c->real[i].m;
    memset(out, 0, sizeof *out);
    if (m->kind[k] == MK_NUM) {
        out->kind = PV_FLOAT;
        out->num = m->value[k];
    } else {
        out->kind = PV_STR;
        out->text = metric_kind_text(m->kind[k]);
        out->len = (uint32_t)strlen(out->text);
    }
}
