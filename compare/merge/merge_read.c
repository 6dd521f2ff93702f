/* One rank's compare result for merge_result: streamed row by row from an
 * xlsx (first sheet) or from our own csv, reduced to the rows of the chosen
 * APIs, with every value typed the way pandas.read_excel(keep_default_na=
 * False) types it in msprobe:
 *
 *   - a cell first becomes a Python object: empty → "", a number → int when
 *     integral else float, an error cell → nan, text → str, boolean → bool;
 *   - then each column as a whole: when every value is a number or numeric
 *     text (no "" at all), the column turns numeric: int64, or float64 as
 *     soon as one value is not integral (2 then prints "2.0"); else when
 *     every value is a bool or "True"/"False" text, a bool column; else the
 *     objects stay as they are.
 *
 * Only per-column flags are kept while streaming, and the cells of the
 * chosen rows; the values are typed once the whole column has been seen. */
#include "format/csv_read.h"
#include "base/files.h"
#include "base/mem.h"
#include "compare/merge/merge.h"
#include "py/numfmt.h"
#include "py/pystr.h"
#include "base/strmap.h"
#include "format/xlsx_read.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- msprobe's result layouts ------------------------------------------------ */

static const char *const summary_index[] = {"Max diff",       "Min diff",       "Mean diff",       "L2norm diff",
                                            "MaxRelativeErr", "MinRelativeErr", "MeanRelativeErr", "NormRelativeErr",
                                            "Requires_grad Consistent"};
static const char *const all_index[] = {"Cosine", "EucDist", "MaxAbsErr", "MaxRelativeErr", "One Thousandth Err Ratio",
                                        "Five Thousandths Err Ratio", "Requires_grad Consistent"};

size_t merge_mode_indexes(int mode, const char *const **names)
{
    int summary = mode == MM_SUMMARY || mode == MM_SUMMARY_NEW;
    *names = summary ? summary_index : all_index;
    switch (mode) {
    case MM_SUMMARY: return 8;
    case MM_ALL: return 6;
    case MM_SUMMARY_NEW: return 9;
    case MM_ALL_NEW: return 7;
    default: return 0;
    }
}

static const char *const summary_header[] = {
    "NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape", "Bench Tensor Shape",
    "Max diff", "Min diff", "Mean diff", "L2norm diff", "MaxRelativeErr", "MinRelativeErr",
    "MeanRelativeErr", "NormRelativeErr", "NPU max", "NPU min", "NPU mean", "NPU l2norm",
    "Bench max", "Bench min", "Bench mean", "Bench l2norm", "Result", "Err_message", NULL};
static const char *const all_header[] = {
    "NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape", "Bench Tensor Shape",
    "Cosine", "EucDist", "MaxAbsErr", "MaxRelativeErr", "One Thousandth Err Ratio", "Five Thousandths Err Ratio",
    "NPU max", "NPU min", "NPU mean", "NPU l2norm", "Bench max", "Bench min", "Bench mean", "Bench l2norm",
    "Accuracy Reached or Not", "Err_message", NULL};
static const char *const md5_header[] = {"NPU Name",         "Bench Name",         "NPU Dtype", "Bench Dtype",
                                         "NPU Tensor Shape", "Bench Tensor Shape", "NPU MD5",   "BENCH MD5",
                                         "Result",           NULL};

/* the newest msprobe's (CompareConst.*_COMPARE_RESULT_HEADER) */
#define BASIC_NEW                                                                                                     \
    "NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape", "Bench Tensor Shape", "NPU Requires_grad", \
        "Bench Requires_grad"
#define STATS "NPU max", "NPU min", "NPU mean", "NPU l2norm", "Bench max", "Bench min", "Bench mean", "Bench l2norm"
#define EXTRACT "Requires_grad Consistent", "Result", "Err_message"
static const char *const summary_header_new[] = {BASIC_NEW,        "Max diff",       "Min diff",
                                                 "Mean diff",      "L2norm diff",    "MaxRelativeErr",
                                                 "MinRelativeErr", "MeanRelativeErr", "NormRelativeErr",
                                                 STATS,            EXTRACT,          NULL};
static const char *const all_header_new[] = {BASIC_NEW,
                                             "Cosine",
                                             "EucDist",
                                             "MaxAbsErr",
                                             "MaxRelativeErr",
                                             "One Thousandth Err Ratio",
                                             "Five Thousandths Err Ratio",
                                             STATS,
                                             EXTRACT,
                                             NULL};
static const char *const md5_header_new[] = {BASIC_NEW, "NPU MD5", "BENCH MD5", EXTRACT, NULL};

/* Whether the header cells are exactly `want` (+ NPU_Stack_Info when
 * `stack`; ALL results end with Data_name after that). */
static int header_is(const xcell *cells, size_t n, const char *const *want, int stack, int data_name)
{
    size_t k = 0;
    for (; want[k]; k++)
        if (k >= n || cells[k].kind != XC_STR || strcmp(cells[k].str, want[k]))
            return 0;
    const char *tail[2];
    size_t ntail = 0;
    if (stack)
        tail[ntail++] = "NPU_Stack_Info";
    if (data_name)
        tail[ntail++] = "Data_name";
    for (size_t t = 0; t < ntail; t++, k++)
        if (k >= n || cells[k].kind != XC_STR || strcmp(cells[k].str, tail[t]))
            return 0;
    return k == n;
}

static int header_mode(const xcell *cells, size_t n)
{
    for (int stack = 0; stack <= 1; stack++) {
        if (header_is(cells, n, all_header, stack, 1))
            return MM_ALL;
        if (header_is(cells, n, summary_header, stack, 0))
            return MM_SUMMARY;
        if (header_is(cells, n, md5_header, stack, 0))
            return MM_MD5;
        if (header_is(cells, n, all_header_new, stack, 1))
            return MM_ALL_NEW;
        if (header_is(cells, n, summary_header_new, stack, 0))
            return MM_SUMMARY_NEW;
        if (header_is(cells, n, md5_header_new, stack, 0))
            return MM_MD5;
    }
    return -1;
}

/* ---- Python and pandas number parsing ------------------------------------------- */

/* pandas' floatify(): decimal text with optional blanks around it, or
 * inf/infinity with a sign (not nan). *is_int when it has no '.' or
 * exponent; -1 when it is not a number. */
static int pandas_number(const char *s, size_t n, double *out, int *is_int)
{
    py_strip(&s, &n);
    size_t sign = n && (s[0] == '+' || s[0] == '-'), wl = n - sign;
    /* floatify only knows these spellings as whole words */
    if ((wl == 3 && !strncasecmp(s + sign, "inf", 3)) || (wl == 8 && !strncasecmp(s + sign, "infinity", 8))) {
        *out = s[0] == '-' ? -INFINITY : INFINITY;
        *is_int = 0;
        return 0;
    }
    return py_decimal_number(s, n, out, is_int);
}

int py_float_text(const char *s, size_t n)
{
    /* float() strips blanks, takes inf/infinity/nan in any case and digits
     * grouped by single underscores */
    py_strip(&s, &n);
    size_t i = n && (s[0] == '+' || s[0] == '-');
    static const char *const words[] = {"inf", "infinity", "nan"};
    for (size_t w = 0; w < 3; w++)
        if (n - i == strlen(words[w]) && !strncasecmp(s + i, words[w], n - i))
            return 1;
    size_t digits = 0;
    int prev_digit = 0;
    for (int part = 0; part < 2; part++) {
        for (; i < n; i++) {
            if (s[i] >= '0' && s[i] <= '9') {
                digits++;
                prev_digit = 1;
            } else if (s[i] == '_' && prev_digit && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9') {
                prev_digit = 0;
            } else {
                break;
            }
        }
        if (part == 0 && i < n && s[i] == '.') {
            i++;
            prev_digit = 0;
        } else {
            break;
        }
    }
    if (!digits)
        return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t ex = 0;
        prev_digit = 0;
        for (; i < n; i++) {
            if (s[i] >= '0' && s[i] <= '9')
                ex++, prev_digit = 1;
            else if (s[i] == '_' && prev_digit && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')
                prev_digit = 0;
            else
                break;
        }
        if (!ex)
            return 0;
    }
    return i == n;
}

/* ---- column typing ------------------------------------------------------------ */

enum col_type { COL_OBJECT, COL_INT, COL_FLOAT, COL_BOOL };

typedef struct {
    unsigned char numeric;     /* maybe_convert_numeric would succeed */
    unsigned char any_float;   /* ... into float64 */
    unsigned char any_number;  /* a number other than a bool was seen */
    unsigned char any_bool;
    unsigned char bool_like;   /* maybe_convert_bool would succeed */
    /* pandas leaves an object column to sanitize_objects(), whose memo
     * gives every value the object of the first value equal to it: a bool
     * after the number 1 (or 0) becomes that int, a number after a bool
     * the bool. Per value 0 and 1: 1 a bool came first, 2 a number. */
    unsigned char first01[2];
} col_stat;

static int bool_word(const char *s, size_t n, int *value)
{
    static const char *const t[] = {"True", "TRUE", "true"}, *const f[] = {"False", "FALSE", "false"};
    for (int i = 0; i < 3; i++) {
        if (n == strlen(t[i]) && !memcmp(s, t[i], n))
            return *value = 1, 1;
        if (n == strlen(f[i]) && !memcmp(s, f[i], n))
            return *value = 0, 1;
    }
    return 0;
}

static const xcell empty_cell = {XC_EMPTY, 0, 0, NULL, 0};

static int is_empty_cell(const xcell *c) { return c->kind == XC_EMPTY || (c->kind == XC_STR && c->len == 0); }

static void stat_add(col_stat *st, const xcell *c)
{
    double x;
    int is_int, b;
    if (is_empty_cell(c)) {
        st->numeric = st->bool_like = 0;   /* "Empty string encountered" */
    } else if (c->kind == XC_NUM) {
        st->any_number = 1;
        st->bool_like = 0;
        if ((c->num == 0 || c->num == 1) && !st->first01[c->num == 1])
            st->first01[c->num == 1] = 2;
        /* pandas makes integral numbers ints; beyond 64 bits they force float64 */
        if (c->num != floor(c->num) || fabs(c->num) >= 18446744073709551616.0)
            st->any_float = 1;
    } else if (c->kind == XC_ERROR) {
        st->any_float = 1;   /* nan */
        st->bool_like = 0;
    } else if (c->kind == XC_BOOL) {
        st->any_bool = 1;
        if (!st->first01[c->num != 0])
            st->first01[c->num != 0] = 1;
    } else {
        if (!bool_word(c->str, c->len, &b))
            st->bool_like = 0;
        if (pandas_number(c->str, c->len, &x, &is_int) != 0) {
            st->numeric = 0;
        } else {
            st->any_number = 1;
            if (!is_int)
                st->any_float = 1;
            else if (x >= 18446744073709551616.0 || x < -9223372036854775808.0)
                st->numeric = 0;   /* "Integer out of range." */
        }
    }
}

static int col_type(const col_stat *st)
{
    if (st->numeric)
        return st->any_float ? COL_FLOAT : st->any_number ? COL_INT : COL_BOOL;
    return st->bool_like ? COL_BOOL : COL_OBJECT;
}

/* The Python value of cell c in a column of type t (text is borrowed). */
static pyval typed(const xcell *c, int t, const col_stat *st)
{
    pyval v = {.kind = PV_STR, .text = ""};
    double x = 0;
    int is_int, b = 0;
    if (t == COL_OBJECT) {
        if (c->kind == XC_NUM) {
            v.kind = c->num == floor(c->num) && isfinite(c->num) ? PV_INT : PV_FLOAT;
            if ((c->num == 0 || c->num == 1) && st->first01[c->num == 1] == 1)
                v.kind = PV_BOOL;
            v.num = c->num;
            v.text = NULL;
        } else if (c->kind == XC_BOOL) {
            v.kind = st->first01[c->num != 0] == 2 ? PV_INT : PV_BOOL;
            v.num = c->num;
            v.text = NULL;
        } else if (c->kind == XC_ERROR) {
            v.kind = PV_FLOAT;
            v.num = NAN;
            v.text = NULL;
        } else if (c->kind == XC_STR) {
            v.text = c->str;
            v.len = (uint32_t)c->len;
        }
        return v;
    }
    if (c->kind == XC_NUM || c->kind == XC_BOOL)
        x = c->num;
    else if (c->kind == XC_ERROR)
        x = NAN;
    else if (t == COL_BOOL)
        x = bool_word(c->str, c->len, &b) && b;
    else
        pandas_number(c->str, c->len, &x, &is_int);
    v.kind = t == COL_FLOAT ? PV_FLOAT : t == COL_INT ? PV_INT : PV_BOOL;
    v.num = t == COL_BOOL ? x != 0 : x;
    v.text = NULL;
    return v;
}

/* ---- streaming a result --------------------------------------------------------- */

/* Columns kept: NPU Name, the mode's indexes, NPU max, Bench max. */
#define MAX_KEPT (1 + MERGE_MAX_INDEXES + 2)

typedef struct {
    size_t *ids;
    size_t n, cap;
} id_list;

typedef struct {
    merge_rank *r;
    const merge_apis *apis;
    int seen_header, mode;
    size_t header_width, max_width;
    size_t nkept, stride;        /* stride: kept cells of a chosen row */
    size_t col[MAX_KEPT];
    col_stat stat[MAX_KEPT];
    size_t data_rows, pending_empty, next_row;
    strmap chosen;               /* name → index into `cells` rows */
    xcell *cells;                /* chosen rows × (nkept - 1) */
    size_t nchosen, capchosen;
    const char **chosen_names;
    size_t *chosen_lens;
    id_list *per_api;
    strbuf pat;
} rank_reader;

static size_t trimmed_width(const xcell *cells, size_t n)
{
    while (n && is_empty_cell(&cells[n - 1]))
        n--;
    return n;
}

static void set_columns(rank_reader *rr, const xcell *cells, size_t n)
{
    const char *const *idx;
    size_t nidx = merge_mode_indexes(rr->mode, &idx);
    const char *want[MAX_KEPT];
    size_t k = 0;
    want[k++] = "NPU Name";
    for (size_t i = 0; i < nidx; i++)
        want[k++] = idx[i];
    want[k++] = "NPU max";
    want[k++] = "Bench max";
    rr->nkept = rr->mode == MM_MD5 ? 1 : k;
    rr->stride = rr->nkept - 1;
    for (size_t j = 0; j < rr->nkept; j++) {
        for (size_t c = 0; c < n; c++)
            if (!strcmp(cells[c].str, want[j]))
                rr->col[j] = c;
        rr->stat[j] = (col_stat){.numeric = 1, .bool_like = 1};
    }
}

static void add_empty_rows(rank_reader *rr)
{
    if (rr->pending_empty)
        for (size_t j = 0; j < rr->nkept; j++)
            stat_add(&rr->stat[j], &empty_cell);
    rr->data_rows += rr->pending_empty;
    rr->pending_empty = 0;
}

static void choose(rank_reader *rr, const xcell *cells, size_t n, const xcell *name)
{
    size_t id = (size_t)-1;
    for (size_t a = 0; a < rr->apis->n; a++) {
        /* msprobe: str.contains(api + ".") with the dots escaped: a substring */
        sb_reset(&rr->pat);
        sb_add(&rr->pat, rr->apis->api[a], rr->apis->len[a]);
        sb_addc(&rr->pat, '.');
        if (!memmem(name->str, name->len, rr->pat.buf, rr->pat.len))
            continue;
        rr->r->api_rows[a]++;
        if (id == (size_t)-1) {
            size_t *known = strmap_get(&rr->chosen, name->str, name->len);
            if (known) {
                id = *known;
            } else {
                id = rr->nchosen++;
                if (id == rr->capchosen) {
                    /* three arrays, one capacity (cells: `stride` per name) */
                    size_t cap = rr->capchosen;
                    GROW(rr->chosen_names, rr->capchosen, id + 1);
                    GROW(rr->chosen_lens, cap, id + 1);
                    rr->cells = xrealloc(rr->cells, rr->capchosen * rr->stride * sizeof *rr->cells);
                }
                const char *copy = arena_strndup(&rr->r->a, name->str, name->len);
                rr->chosen_names[id] = copy;
                rr->chosen_lens[id] = name->len;
                strmap_put(&rr->chosen, copy, name->len, id, NULL);
                /* the first row of a name gives its values */
                for (size_t j = 1; j < rr->nkept; j++) {
                    xcell *dst = &rr->cells[id * rr->stride + j - 1];
                    *dst = rr->col[j] < n ? cells[rr->col[j]] : empty_cell;
                    if (dst->kind == XC_STR || dst->kind == XC_ERROR)
                        dst->str = arena_strndup(&rr->r->a, dst->str, dst->len);
                }
            }
        }
        id_list *l = &rr->per_api[a];
        GROW(l->ids, l->cap, l->n + 1);
        l->ids[l->n++] = id;
    }
}

static int on_row(void *ctx, size_t row, const xcell *cells, size_t n)
{
    rank_reader *rr = ctx;
    size_t w = trimmed_width(cells, n);
    if (!rr->seen_header) {
        rr->seen_header = 1;
        /* rows before the first one in the file are empty: the header too */
        rr->mode = row == 0 ? header_mode(cells, w) : -1;
        rr->header_width = row == 0 ? w : 0;
        if (rr->mode >= 0)
            set_columns(rr, cells, w);
        rr->pending_empty = row == 0 ? 0 : row - 1;
        rr->next_row = row == 0 ? 1 : row;
        if (row == 0)
            return 0;
    }
    /* rows missing from the file are empty rows (a row given out of order
     * is taken where it comes) */
    if (row > rr->next_row)
        rr->pending_empty += row - rr->next_row;
    if (row >= rr->next_row)
        rr->next_row = row + 1;
    if (w == 0) {
        /* empty rows count only when data follows them */
        rr->pending_empty++;
        return 0;
    }
    add_empty_rows(rr);
    rr->data_rows++;
    if (w > rr->max_width)
        rr->max_width = w;
    if (rr->mode < 0 || rr->mode == MM_MD5)
        return 0;
    for (size_t j = 0; j < rr->nkept; j++)
        stat_add(&rr->stat[j], rr->col[j] < n ? &cells[rr->col[j]] : &empty_cell);
    const xcell *name = rr->col[0] < n ? &cells[rr->col[0]] : &empty_cell;
    if (name->kind == XC_STR && name->len)
        choose(rr, cells, n, name);
    return 0;
}

/* Our csv: quoted fields are text; unquoted ones are numbers when they read
 * as numbers the way the table writer prints them; "nan"/"inf" stay text,
 * as in the xlsx the same writer produces. */
static int on_csv_row(void *ctx, size_t row, const csv_field *f, size_t n)
{
    rank_reader *rr = ctx;
    xcell stack_cells[32] = {{0}};
    xcell *cells = n <= 32 ? stack_cells : xmalloc_array(n, sizeof *cells);
    /* the newest msprobe writes its statistics differences as texts (its
     * xlsx holds "0" and "1.5" as strings): so are they read from its csv */
    size_t text_from = (size_t)-1, text_to = 0;
    if (rr->seen_header && rr->mode == MM_SUMMARY_NEW)
        text_from = rr->col[1], text_to = rr->col[8] + 1;
    for (size_t i = 0; i < n; i++) {
        xcell *c = &cells[i];
        memset(c, 0, sizeof *c);
        double x;
        int is_int;
        const char *s = f[i].s;
        int plain = !f[i].quoted && f[i].len && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) &&
                    !py_is_blank(s[f[i].len - 1]) && !strpbrk(s, "inIN");
        if (!f[i].len && !f[i].quoted) {
            c->kind = XC_EMPTY;
        } else if (plain && !(i >= text_from && i < text_to) && pandas_number(s, f[i].len, &x, &is_int) == 0) {
            c->kind = XC_NUM;
            c->num = x;
            c->is_int = (unsigned char)is_int;
        } else {
            c->kind = XC_STR;
            c->str = s;
            c->len = f[i].len;
        }
    }
    int rc = on_row(ctx, row, cells, n);
    if (cells != stack_cells)
        free(cells);
    return rc;
}

static int read_source(merge_rank *r, rank_reader *rr)
{
    if (path_has_suffix(r->path, ".csv")) {
        mapped_file f;
        if (file_load(r->path, XLSX_MAX_FILE_SIZE - 1, &f) != 0)
            return -1;
        int rc = csv_read(r->path, f.data ? (const void *)f.data : "", f.size, on_csv_row, rr);
        file_unmap(&f);
        return rc;
    }
    xlsx_book *b = xlsx_open(r->path);
    if (!b)
        return -1;
    int rc = xlsx_read_rows(b, 0, on_row, rr);
    xlsx_close(b);
    return rc;
}

/* The chosen rows in msprobe's order (API by API, rows in file order,
 * each name once) with their typed values. */
static void finish(merge_rank *r, rank_reader *rr)
{
    unsigned char *done = xcalloc(rr->nchosen ? rr->nchosen : 1, 1);
    size_t *order = xmalloc_array(rr->nchosen ? rr->nchosen : 1, sizeof *order);
    size_t n = 0;
    for (size_t a = 0; a < rr->apis->n; a++)
        for (size_t k = 0; k < rr->per_api[a].n; k++) {
            size_t id = rr->per_api[a].ids[k];
            if (!done[id]) {
                done[id] = 1;
                order[n++] = id;
            }
        }
    r->nnames = n;
    r->names = arena_alloc(&r->a, (n ? n : 1) * sizeof *r->names);
    r->name_lens = arena_alloc(&r->a, (n ? n : 1) * sizeof *r->name_lens);
    size_t ncols = rr->nkept - 1;
    r->vals = arena_alloc(&r->a, (n && ncols ? n * ncols : 1) * sizeof *r->vals);
    for (size_t j = 0; j < ncols; j++) {
        int t = col_type(&rr->stat[j + 1]);
        for (size_t i = 0; i < n; i++)
            r->vals[j * n + i] = typed(&rr->cells[order[i] * rr->stride + j], t, &rr->stat[j + 1]);
    }
    for (size_t i = 0; i < n; i++) {
        r->names[i] = rr->chosen_names[order[i]];
        r->name_lens[i] = rr->chosen_lens[order[i]];
    }
    free(done);
    free(order);
}

int merge_read_rank(merge_rank *r, const merge_apis *apis)
{
    arena_init(&r->a, 1 << 14);
    r->api_rows = xcalloc(apis->n ? apis->n : 1, sizeof *r->api_rows);
    rank_reader rr;
    memset(&rr, 0, sizeof rr);
    rr.r = r;
    rr.apis = apis;
    rr.mode = -1;
    rr.per_api = xcalloc(apis->n ? apis->n : 1, sizeof *rr.per_api);
    strmap_init(&rr.chosen, 64);
    int rc = read_source(r, &rr);
    if (rc == 0) {
        /* a data row wider than the header gives pandas "Unnamed" columns */
        if (!rr.seen_header || rr.data_rows == 0)
            r->status = RANK_EMPTY;
        else if (rr.mode < 0 || rr.max_width > rr.header_width)
            r->status = RANK_UNKNOWN;
        else if (rr.mode == MM_MD5)
            r->status = RANK_MD5;
        else
            r->status = RANK_OK;
        r->mode = rr.mode;
        if (r->status == RANK_OK)
            finish(r, &rr);
    }
    for (size_t a = 0; a < apis->n; a++)
        free(rr.per_api[a].ids);
    free(rr.per_api);
    free(rr.cells);
    free(rr.chosen_names);
    free(rr.chosen_lens);
    strmap_free(&rr.chosen);
    sb_free(&rr.pat);
    return rc;
}

void merge_rank_free(merge_rank *r)
{
    arena_free(&r->a);
    free(r->api_rows);
    free(r->path);
    memset(r, 0, sizeof *r);
}
