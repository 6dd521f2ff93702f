/* The statistics cells of the newest msprobe's table and their differences
 * (its acc_compare.py CreateTable.set_summary and CalcStatsDiff, with
 * stats_diff_calc.py's value types).
 *
 * A statistic is held as the dump has it -- a float, an int, a text; None
 * as the text "None", a NaN as "Nan", a tensor's bool statistic as the text
 * "True"/"False" (a scalar argument's bool value stays a bool) -- and the
 * differences are texts: "0" when both sides print the same, else by the
 * pair of value types:
 *
 *     number  number    npu - bench, |diff / bench * 100| "%" ("inf" when bench is 0)
 *     nan     number, nan, +-inf           "Nan"
 *     +-inf   number or the other infinity "inf" / "-inf" (the sign of npu - bench)
 *     N/A     anything                     "N/A"
 *     device or other text vs anything     "Diff" (device vs device: "N/A")
 *
 * Numbers are what pandas.to_numeric() reads back from str(value), as
 * msprobe computes them (py/pdnum.h), and the difference is printed the way
 * numpy prints a float64 (Python's repr), or as an int when pandas read
 * both whole columns as integers. */
#include "compare/pipeline/compare.h"
#include "py/numfmt.h"
#include "py/pdnum.h"
#include "base/strbuf.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define TEXT(s) {.kind = PV_STR, .len = sizeof(s) - 1, .text = (s)}
static const pyval NA = TEXT("N/A"), NAN_TEXT = TEXT("Nan"), NONE_TEXT = TEXT("None"), TRUE_TEXT = TEXT("True"),
                   FALSE_TEXT = TEXT("False");

static int lower_is(const char *s, size_t n, const char *w)
{
    size_t l = strlen(w);
    if (n != l)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)s[i]) != w[i])
            return 0;
    return 1;
}

void newest_stat(const compare_ctx *c, size_t i, int k, int bench, pyval *out)
{
    const match_pair *p = &c->pairs[i];
    const dump_row *r = bench ? p->b : p->n;
    if (!r) {
        *out = NA;
        return;
    }
    *out = dump_stat(r, k);
    switch (out->kind) {
    case PV_INT:
        if (bench ? c->bench_float_stats : c->npu_float_stats || (!p->b && c->unmatched_float[k])) {
            out->kind = PV_FLOAT;
            out->text = NULL;
            out->len = 0;
        }
        break;
    case PV_NONE:
        *out = NONE_TEXT;
        break;
    case PV_BOOL:
        /* msprobe's gen_op_item() makes texts of a leaf's bools */
        if (!(r->flags & ROW_VALUE_STATS))
            *out = out->num ? TRUE_TEXT : FALSE_TEXT;
        break;
    case PV_FLOAT:
        if (isnan(out->num))
            *out = NAN_TEXT;
        break;
    case PV_STR:
    case PV_OTHER:
        if (lower_is(out->text, out->len, "nan"))
            *out = NAN_TEXT;
        break;
    }
}

/* stats_diff_calc.ValType */
enum { VT_NUM, VT_NAN, VT_INF, VT_NEG_INF, VT_DEVICE, VT_NA, VT_OTHER };

static int has_device(const char *s, size_t n)
{
    for (size_t i = 0; i + 2 < n; i++) {
        if ((lower_is(s + i, 3, "npu") || lower_is(s + i, 3, "cpu")))
            return 1;
        if (i + 3 < n && lower_is(s + i, 4, "cuda"))
            return 1;
    }
    return 0;
}

/* CalcStatsDiff.classify() of one value; *num: its number for VT_NUM, as
 * pandas reads str(value) back. */
static int classify(const pyval *v, double *num)
{
    switch (v->kind) {
    case PV_FLOAT:
        if (isinf(v->num))
            return v->num > 0 ? VT_INF : VT_NEG_INF;
        *num = pd_float_roundtrip(v->num);
        return VT_NUM;
    case PV_INT:
        *num = v->num;
        return VT_NUM;
    case PV_BOOL:
        return VT_OTHER; /* "True" / "False" are not numbers to msprobe */
    default:
        break;
    }
    const char *s = v->text ? v->text : "";
    size_t n = v->text ? v->len : 0;
    if (lower_is(s, n, "nan"))
        return VT_NAN;
    if (lower_is(s, n, "inf"))
        return VT_INF;
    if (lower_is(s, n, "-inf"))
        return VT_NEG_INF;
    if (v->kind == PV_STR && !lower_is(s, n, "true") && !lower_is(s, n, "false") && pd_to_numeric(s, n, num))
        return VT_NUM;
    if (has_device(s, n))
        return VT_DEVICE;
    if (n == 3 && !memcmp(s, "N/A", 3))
        return VT_NA;
    return VT_OTHER;
}

/* str(a) == str(b) */
static int same_text(const pyval *a, const pyval *b)
{
    if (a->kind == b->kind) {
        switch (a->kind) {
        case PV_FLOAT:
            return a->num == b->num && signbit(a->num) == signbit(b->num);
        case PV_BOOL:
            return a->num == b->num;
        case PV_INT:
            if (a->text || b->text)
                break;
            return a->num == b->num;
        case PV_STR:
        case PV_OTHER:
            return a->len == b->len && !memcmp(a->text, b->text, a->len);
        default:
            return 1;
        }
    }
    strbuf x = STRBUF_INIT, y = STRBUF_INIT;
    py_str_value(&x, a);
    py_str_value(&y, b);
    int same = x.len == y.len && !memcmp(sb_str(&x), sb_str(&y), x.len);
    sb_free(&x);
    sb_free(&y);
    return same;
}

static void put(char *buf, const char *s) { snprintf(buf, NEWEST_DIFF_BUFSZ, "%s", s); }

void newest_stat_diff(const compare_ctx *c, int k, const pyval *vn, const pyval *vb, char *diff, char *rel)
{
    if (same_text(vn, vb)) {
        put(diff, "0");
        put(rel, "0");
        return;
    }
    double n = 0, b = 0;
    int tn = classify(vn, &n), tb = classify(vb, &b);
    if (tn == VT_NA || tb == VT_NA) {
        put(diff, "N/A");
        put(rel, "N/A");
    } else if (tn == VT_DEVICE && tb == VT_DEVICE) {
        put(diff, "N/A");
        put(rel, "N/A");
    } else if (tn == VT_DEVICE || tb == VT_DEVICE || tn == VT_OTHER || tb == VT_OTHER) {
        put(diff, "Diff");
        put(rel, "Diff");
    } else if (tn == VT_NAN || tb == VT_NAN) {
        put(diff, "Nan");
        put(rel, "Nan");
    } else if (tn == VT_NUM && tb == VT_NUM) {
        double d;
        if (c->npu_int_col[k] && c->bench_int_col[k]) {
            /* int64 columns: an int difference */
            int64_t di = (int64_t)n - (int64_t)b;
            snprintf(diff, NEWEST_DIFF_BUFSZ, "%" PRId64, di);
            d = (double)di;
        } else {
            d = n - b;
            diff[fmt_pyrepr(d, diff)] = 0;
        }
        if (b == 0) {
            put(rel, "inf");
        } else {
            size_t len = fmt_pyrepr(fabs(d / b * 100), rel);
            rel[len++] = '%';
            rel[len] = 0;
        }
    } else {
        /* infinities: the sign of npu - bench */
        const char *s = tn == VT_INF || tb == VT_NEG_INF ? "inf" : "-inf";
        if (tn == tb) /* "inf" vs "Inf": not among msprobe's rules */
            s = "N/A";
        put(diff, s);
        put(rel, s);
    }
}

/* Whether str(v) is an integer to pandas (digits, an optional sign). */
static int int_text(const pyval *v)
{
    if (v->kind == PV_INT)
        return 1;
    if (v->kind != PV_STR || !v->len)
        return 0;
    size_t i = v->text[0] == '-' || v->text[0] == '+';
    if (i == v->len)
        return 0;
    for (; i < v->len; i++)
        if (!isdigit((unsigned char)v->text[i]))
            return 0;
    return 1;
}

/* The dtype pandas infers for one statistics column of a side. */
enum { PD_EMPTY, PD_INT, PD_FLOAT, PD_BOOL, PD_OBJECT };

static int column_dtype(const compare_ctx *c, int k, int bench)
{
    int any_int = 0, any_float = 0, any_bool = 0;
    for (size_t i = 0; i < c->npairs; i++) {
        const match_pair *p = &c->pairs[i];
        const dump_row *r = bench ? p->b : p->n;
        if (!r)
            return PD_OBJECT; /* "N/A" */
        pyval v = dump_stat(r, k);
        if (v.kind == PV_INT && !v.wide_int)
            any_int = 1;
        else if (v.kind == PV_FLOAT && !isnan(v.num))
            any_float = 1;
        else if (v.kind == PV_BOOL && (r->flags & ROW_VALUE_STATS))
            any_bool = 1;
        else
            return PD_OBJECT; /* texts: "None", "Nan", "True", ... */
    }
    if (any_bool)
        return any_int || any_float ? PD_OBJECT : PD_BOOL;
    return any_float ? PD_FLOAT : any_int ? PD_INT : PD_EMPTY;
}

/* make_result_df() assigns a side's four statistics as a list of lists:
 * pandas builds a frame of them (each column its own dtype) and takes its
 * values as one array, float64 when every column is numeric and one is
 * float. */
static int float_stats(const compare_ctx *c, int bench)
{
    int any_float = 0;
    for (int k = 0; k < 4; k++) {
        int t = column_dtype(c, k, bench);
        if (t != PD_INT && t != PD_FLOAT)
            return 0;
        any_float |= t == PD_FLOAT;
    }
    return any_float;
}

/* calc_accuracy() sets the unmatched rows to their fillna(): on object
 * columns pandas then converts each column of those rows that holds only
 * numbers (ints become floats when one is a float) */
static int unmatched_float(const compare_ctx *c, int k)
{
    int any_float = 0;
    for (size_t i = 0; i < c->npairs; i++) {
        const match_pair *p = &c->pairs[i];
        if (p->b)
            continue;
        pyval v = dump_stat(p->n, k);
        if (v.kind == PV_FLOAT && !isnan(v.num))
            any_float = 1;
        else if (v.kind != PV_INT || v.wide_int)
            return 0;
    }
    return any_float;
}

void newest_column_types(compare_ctx *c)
{
    c->npu_float_stats = (uint8_t)float_stats(c, 0);
    c->bench_float_stats = (uint8_t)float_stats(c, 1);
    for (int k = 0; k < 4; k++)
        c->unmatched_float[k] = (uint8_t)unmatched_float(c, k);
    for (int k = 0; k < 4; k++) {
        int ni = c->npairs > 0, bi = c->npairs > 0;
        for (size_t i = 0; i < c->npairs && (ni || bi); i++) {
            pyval v;
            if (ni) {
                newest_stat(c, i, k, 0, &v);
                ni = int_text(&v);
            }
            if (bi) {
                newest_stat(c, i, k, 1, &v);
                bi = int_text(&v);
            }
        }
        c->npu_int_col[k] = (uint8_t)ni;
        c->bench_int_col[k] = (uint8_t)bi;
    }
}
