/* The newest msprobe's Result and Err_message (its indicator_analysis):
 * the rows of one API (one entry of the target dump) are its inputs (every
 * row whose name has no ".output.") and its outputs, and a list of checks
 * runs over them. Each check marks rows "error" or "warning" with one
 * message; a row's Result is the worst mark (else "pass") and its
 * Err_message the JSON list of its messages in the order the checks ran.
 *
 *   statistics  nan/inf, NormRelativeErr of outputs, requires_grad, scalar
 *               arguments, dtype, shape; warning: output NormRelativeErr 10x
 *               the inputs'
 *   tensors     nan/inf, One Thousandth Err Ratio, requires_grad, scalar
 *               arguments, dtype, shape; warning: Cosine drop
 *   md5         CRC-32 differs (error), or one side has none (warning)
 *
 * APIs whose inputs are placeholders skip the checks of inputs; a few that
 * only allocate skip all. */
#include "compare/pipeline/compare.h"
#include "base/mem.h"
#include "base/pool.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const msg_text[] = {
    "error: There is nan/inf/-inf in the maximum or minimum value of NPU.",
    "error: The NormRelativeErr of output is greater than 0.5.",
    "error: The input/parameters of One Thousandth Err Ratio > 0.9 while the output < 0.6.",
    "error: The Required_Grad of NPU and Bench are inconsistent",
    "error: The scalar parameters of NPU and Bench are inconsistent.",
    "error: The dtype of NPU and Bench are inconsistent.",
    "error: The shape of NPU and Bench are inconsistent.",
    "warning: The norm relative error of output is 10 times that of input.",
    "warning: The input/parameters of Cosine > 0.9, and input/parameters - output > 0.1",
    "error: The CRC-32 value of NPU differs from that of the bench.",
    "warning: The parameter of NPU does not match the bench.",
};
#define NMSG (sizeof msg_text / sizeof msg_text[0])
#define WARNINGS (CK_REL_WARN | CK_COSINE_WARN | CK_PARAM_UNMATCHED)

const char *check_level_text(int level)
{
    return level == LEVEL_ERROR ? "error" : level == LEVEL_WARNING ? "warning" : "pass";
}

void check_message(uint16_t bits, strbuf *sb)
{
    /* json.dumps() of the list: ", " between items; the texts need no escapes */
    sb_addc(sb, '[');
    int first = 1;
    for (unsigned i = 0; i < NMSG; i++) {
        if (!(bits & (1u << i)))
            continue;
        if (!first)
            sb_add(sb, ", ", 2);
        first = 0;
        sb_addc(sb, '"');
        sb_adds(sb, msg_text[i]);
        sb_addc(sb, '"');
    }
    sb_addc(sb, ']');
}

const char *requires_grad_text(const dump_row *r)
{
    if (!r || !(r->flags & ROW_RG_SET))
        return "N/A";
    return r->flags & ROW_RG_TRUE ? "True" : "False";
}

/* What the checks read of one row. */
typedef struct {
    uint8_t matched, output;
    uint8_t npu_bad, bench_bad;   /* max or min is nan, inf or -inf */
    uint8_t norm_pct;             /* NormRelativeErr is a percentage */
    uint8_t onek_num, cos_num;    /* the tensor metrics are numbers */
    double norm;                  /* NormRelativeErr: the percentage / 100 */
    double norm_f;                /* msprobe's str2float() of it */
    double onek, cos;
} row_facts;

/* is_inf_or_nan() of a statistics cell */
static int bad_value(const pyval *v)
{
    if (v->kind == PV_FLOAT)
        return isnan(v->num) || isinf(v->num);
    if (v->kind != PV_STR)
        return 0;
    const char *s = v->text, *e = v->text + v->len;
    while (s < e && isspace((unsigned char)*s))
        s++;
    while (e > s && isspace((unsigned char)e[-1]))
        e--;
    size_t n = (size_t)(e - s);
    char low[5] = {0};
    if (n > 4)
        return 0;
    for (size_t i = 0; i < n; i++)
        low[i] = (char)tolower((unsigned char)s[i]);
    return !strcmp(low, "inf") || !strcmp(low, "-inf") || !strcmp(low, "nan");
}

/* float(text.strip('%')) / 100, or 0 when Python's float() refuses it */
static double str2float(const char *s)
{
    size_t n = strlen(s);
    while (n && s[n - 1] == '%')
        n--;
    while (n && *s == '%')
        s++, n--;
    char buf[NEWEST_DIFF_BUFSZ];
    if (n == 0 || n >= sizeof buf)
        return 0;
    memcpy(buf, s, n);
    buf[n] = 0;
    if (strchr(buf, 'x') || strchr(buf, 'X'))
        return 0;
    char *end;
    double x = strtod(buf, &end);
    return *end ? 0 : x / 100;
}

static void facts_of(const compare_ctx *c, size_t i, row_facts *f)
{
    const match_pair *p = &c->pairs[i];
    memset(f, 0, sizeof *f);
    f->matched = p->b != NULL;
    f->output = strstr(p->n->name, ".output.") != NULL;
    if (c->mode == MODE_MD5)
        return;
    pyval v;
    for (int k = 0; k < 2; k++) {
        newest_stat(c, i, k, 0, &v);
        f->npu_bad |= (uint8_t)bad_value(&v);
        newest_stat(c, i, k, 1, &v);
        f->bench_bad |= (uint8_t)bad_value(&v);
    }
    if (c->mode == MODE_SUMMARY) {
        pyval vn, vb;
        char diff[NEWEST_DIFF_BUFSZ], rel[NEWEST_DIFF_BUFSZ];
        newest_stat(c, i, 3, 0, &vn);
        newest_stat(c, i, 3, 1, &vb);
        newest_stat_diff(c, 3, &vn, &vb, diff, rel);
        f->norm_f = str2float(rel);
        size_t n = strlen(rel);
        if (n && rel[n - 1] == '%') {
            f->norm_pct = 1;
            f->norm = f->norm_f;
        }
    } else {
        const tensor_metrics *m = &c->real[i].m;
        f->onek_num = m->kind[MET_ONE_THOUSANDTH] == MK_NUM;
        f->onek = m->value[MET_ONE_THOUSANDTH];
        f->cos_num = m->kind[MET_COSINE] == MK_NUM;
        f->cos = m->value[MET_COSINE];
    }
}

/* Python's == of two statistics cells: numbers (bools too) by value,
 * texts by text, a number never equals a text. */
static int py_equal(const pyval *a, const pyval *b)
{
    int na = a->kind == PV_BOOL || a->kind == PV_INT || a->kind == PV_FLOAT;
    int nb = b->kind == PV_BOOL || b->kind == PV_INT || b->kind == PV_FLOAT;
    if (na || nb) {
        if (!(na && nb))
            return 0;
        if (a->kind == PV_INT && b->kind == PV_INT && (a->text || b->text))
            return a->text && b->text && a->len == b->len && !memcmp(a->text, b->text, a->len);
        return a->num == b->num;
    }
    if (a->kind == PV_NONE || b->kind == PV_NONE)
        return a->kind == b->kind;
    return a->len == b->len && !memcmp(a->text, b->text, a->len);
}

static int contains(const char *s, const char *w) { return strstr(s, w) != NULL; }

enum { IGNORE_NONE, IGNORE_INPUTS, IGNORE_ALL };

/* ApiIndicatorCalculator.get_api_ignore_info(): by the second part of the
 * first input's name */
static int ignore_of(const char *name)
{
    static const char *const all[] = {"empty", "empty_like", "numpy", "to", "__setitem__", "empty_with_format",
                                      "new_empty_strided", "new_empty", "empty_strided", NULL};
    static const char *const inputs[] = {"_reduce_scatter_base", "_all_gather_base", "all_to_all_single",
                                         "batch_isend_irecv", NULL};
    const char *dot = strchr(name, '.');
    if (!dot)
        return IGNORE_NONE;
    const char *s = dot + 1, *e = strchr(s, '.');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    for (int i = 0; all[i]; i++)
        if (strlen(all[i]) == n && !memcmp(all[i], s, n))
            return IGNORE_ALL;
    for (int i = 0; inputs[i]; i++)
        if (strlen(inputs[i]) == n && !memcmp(inputs[i], s, n))
            return IGNORE_INPUTS;
    return IGNORE_NONE;
}

typedef struct {
    compare_ctx *c;
    size_t from, to;          /* the API's rows */
    const row_facts *f;       /* per row, from `from` */
    int ignore;
} api_rows;

static void mark(api_rows *a, size_t row, unsigned bit)
{
    a->c->checks[row] |= (uint16_t)bit;
    uint8_t level = (bit & WARNINGS) ? LEVEL_WARNING : LEVEL_ERROR;
    if (level > a->c->level[row])
        a->c->level[row] = level;
}

/* The rows a check over "all data" reads: none, the outputs, or all. */
static int reads(const api_rows *a, size_t r)
{
    return a->ignore == IGNORE_NONE || (a->ignore == IGNORE_INPUTS && a->f[r - a->from].output);
}

static size_t first_output(const api_rows *a)
{
    for (size_t r = a->from; r < a->to; r++)
        if (a->f[r - a->from].output)
            return r;
    return (size_t)-1;
}

/* get_min_or_max_value(): over the inputs or the outputs, the numbers
 * only, starting from `start` */
typedef enum { V_NORM, V_ONEK, V_COS } which_value;

static double extreme(const api_rows *a, int outputs, int is_min, which_value w)
{
    double acc = is_min ? 1.0 : 0.0;
    for (size_t r = a->from; r < a->to; r++) {
        const row_facts *f = &a->f[r - a->from];
        if (f->output != outputs)
            continue;
        double x;
        if (w == V_NORM && f->norm_pct)
            x = f->norm;
        else if (w == V_ONEK && f->onek_num)
            x = f->onek;
        else if (w == V_COS && f->cos_num)
            x = f->cos;
        else
            continue;
        if (is_min ? x < acc : x > acc)
            acc = x;
    }
    return acc;
}

static void check_inf_nan(api_rows *a)
{
    for (size_t r = a->from; r < a->to; r++) {
        const row_facts *f = &a->f[r - a->from];
        if (reads(a, r) && !f->bench_bad && f->npu_bad)
            mark(a, r, CK_INF_NAN);
    }
}

static void check_rel_err(api_rows *a)
{
    if (a->ignore != IGNORE_NONE || fabs(extreme(a, 0, 0, V_NORM)) >= 0.1)
        return;
    for (size_t r = a->from; r < a->to; r++)
        if (a->f[r - a->from].output && fabs(a->f[r - a->from].norm_f) > 0.5)
            mark(a, r, CK_REL_ERR);
}

static void check_one_thousandth(api_rows *a)
{
    size_t out = first_output(a);
    if (a->ignore != IGNORE_NONE || out == (size_t)-1)
        return;
    if (extreme(a, 0, 1, V_ONEK) > 0.9 && extreme(a, 1, 1, V_ONEK) < 0.1)
        mark(a, out, CK_ONE_THOUSANDTH);
}

static void check_cosine(api_rows *a)
{
    size_t out = first_output(a);
    if (a->ignore != IGNORE_NONE || out == (size_t)-1)
        return;
    double in = extreme(a, 0, 1, V_COS), o = extreme(a, 1, 1, V_COS);
    if (in > 0.9 && in - o > 0.1)
        mark(a, out, CK_COSINE_WARN);
}

static void check_rel_warn(api_rows *a)
{
    size_t out = first_output(a);
    if (a->ignore != IGNORE_NONE || out == (size_t)-1)
        return;
    double in = fabs(extreme(a, 0, 0, V_NORM)), o = fabs(extreme(a, 1, 0, V_NORM));
    if (in == 0 ? o > 0.1 : o / in > 10)
        mark(a, out, CK_REL_WARN);
}

/* CRC32ErrChecker's null_set */
static int unset_md5(const char *m) { return !*m || !strcmp(m, "N/A") || !strcmp(m, "Nan"); }

static void check_pairs(api_rows *a)
{
    const compare_ctx *c = a->c;
    for (size_t r = a->from; r < a->to; r++) {
        const row_facts *f = &a->f[r - a->from];
        const dump_row *n = c->pairs[r].n, *b = c->pairs[r].b;
        if (!reads(a, r))
            continue;
        if (c->mode == MODE_MD5) {
            /* unmatched rows too: their bench side is "N/A" */
            const char *mn = n->md5 ? n->md5 : "N/A", *mb = b && b->md5 ? b->md5 : "N/A";
            if (strcmp(mn, mb) != 0)
                mark(a, r, unset_md5(mn) || unset_md5(mb) ? CK_PARAM_UNMATCHED : CK_CRC);
            continue;
        }
        if (!f->matched)
            continue;
        if (strcmp(requires_grad_text(n), requires_grad_text(b)) != 0)
            mark(a, r, CK_REQUIRES_GRAD);
        /* scalar arguments: inputs only, and not of APIs whose inputs are placeholders */
        if (a->ignore == IGNORE_NONE && !f->output && contains(n->dtype, "class") && contains(b->dtype, "class") &&
            !strcmp(n->shape, "[]")) {
            pyval vn, vb;
            newest_stat(c, r, 0, 0, &vn);
            newest_stat(c, r, 0, 1, &vb);
            if (!py_equal(&vn, &vb))
                mark(a, r, CK_PARAMETERS);
        }
        if (!contains(b->name, "qkv") && !contains(b->name, "gate_up") && strcmp(n->dtype, b->dtype) != 0)
            mark(a, r, CK_DTYPE);
        if (strcmp(n->shape, b->shape) != 0)
            mark(a, r, CK_SHAPE);
    }
}

/* The checks of one API, in msprobe's order (TENSOR_CHECKERS,
 * STATISTICS_CHECKERS, MD5_CHECKERS); the message bits are in that order
 * too, so a row's list comes out in it whichever check marked it first. */
static void check_api(api_rows *a)
{
    if (a->c->mode == MODE_MD5) {
        check_pairs(a);
        return;
    }
    check_inf_nan(a);
    if (a->c->mode == MODE_SUMMARY) {
        check_rel_err(a);
        check_rel_warn(a);
    } else {
        check_one_thousandth(a);
        check_cosine(a);
    }
    check_pairs(a);
}

#define CHECK_CHUNK 65536

typedef struct {
    compare_ctx *c;
    const size_t *starts;     /* first row of each API, and npairs at the end */
    size_t napis;
} check_job;

static void check_chunk(void *arg, size_t k)
{
    check_job *j = arg;
    size_t to = (k + 1) * CHECK_CHUNK < j->napis ? (k + 1) * CHECK_CHUNK : j->napis;
    row_facts *facts = NULL;
    size_t cap = 0;
    for (size_t api = k * CHECK_CHUNK; api < to; api++) {
        size_t from = j->starts[api], end = j->starts[api + 1];
        GROW(facts, cap, end - from);
        api_rows a = {.c = j->c, .from = from, .to = end, .f = facts};
        size_t first_input = (size_t)-1;
        for (size_t r = from; r < end; r++) {
            facts_of(j->c, r, &facts[r - from]);
            if (first_input == (size_t)-1 && !facts[r - from].output)
                first_input = r;
        }
        a.ignore = first_input == (size_t)-1 ? IGNORE_NONE : ignore_of(j->c->pairs[first_input].n->name);
        check_api(&a);
    }
    free(facts);
}

int check_rows(compare_ctx *c)
{
    size_t n = c->npairs;
    c->level = xcalloc(n ? n : 1, 1);
    c->checks = xcalloc(n ? n : 1, sizeof *c->checks);
    /* an API's rows: consecutive rows of one target entry */
    size_t *starts = xmalloc_array(n + 1, sizeof *starts), napis = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || c->pairs[i].n->entry != c->pairs[i - 1].n->entry)
            starts[napis++] = i;
    starts[napis] = n;
    check_job j = {.c = c, .starts = starts, .napis = napis};
    pool_for((napis + CHECK_CHUNK - 1) / CHECK_CHUNK, c->opts->threads > 0 ? c->opts->threads : 1, check_chunk, &j);
    free(starts);
    return 0;
}
