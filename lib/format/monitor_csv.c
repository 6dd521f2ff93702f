/* Monitor csv reader (monitor_csv.h), on top of the csv tokenizer. */
#include "format/monitor_csv.h"
#include "format/csv_read.h"
#include "base/arena.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "py/pdnum.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* pandas' default missing-value words (na_values; "None" since pandas 2). */
static int is_na(const char *s, size_t n)
{
#define W(w) {w, sizeof(w) - 1}
    static const struct {
        const char *w;
        size_t n;
    } words[] = {W("nan"), W("NaN"), W("-nan"), W("-NaN"), W("NA"), W("N/A"), W("n/a"), W("NULL"), W("null"),
                 W("None"), W("<NA>"), W("#N/A"), W("#NA"), W("1.#IND"), W("-1.#IND"), W("1.#QNAN"),
                 W("-1.#QNAN"), W("#N/A N/A")};
#undef W
    if (n == 0)
        return 1;
    /* every word ends in something else than a digit, as no number does */
    if (n > 8 || (s[n - 1] >= '0' && s[n - 1] <= '9'))
        return 0;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (words[i].n == n && memcmp(words[i].w, s, n) == 0)
            return 1;
    return 0;
}

/* pandas' int64 cells: optional spaces around an optional sign and digits. */
static int parse_int(const char *s, size_t n, long long *out)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    int neg = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    size_t d0 = i;
    unsigned long long v = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        if (v > 922337203685477580ULL)
            return 0;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    if (i == d0 || v > 9223372036854775807ULL)
        return 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (i != n)
        return 0;
    *out = neg ? -(long long)v : (long long)v;
    return 1;
}

/* A cell of a numeric column: a number, or NaN for a missing value. A
 * column pandas reads as integers gives exactly that integer as a double. */
static int parse_value(const char *s, size_t n, double *out)
{
    if (pd_to_numeric(s, n, out)) {
        /* pandas reads a column of integers as int64, exactly; its float
         * parser gives the same double up to 15 digits */
        long long iv;
        if (n >= 16 && n < 20 && parse_int(s, n, &iv))
            *out = (double)iv;
        return 1;
    }
    if (is_na(s, n)) {
        *out = NAN;
        return 1;
    }
    return 0;
}

typedef struct {
    long long step;
    uint32_t series;
    uint32_t used;
} seen_slot;

typedef struct {
    const char *path;
    const mcsv_reader *r;
    mcsv_header h;
    int header_done;
    int col_vpp, col_name, col_step, col_micro;
    int *op_of_col;          /* wanted index of each column, or -1 */
    arena names;
    strmap series_map;
    mcsv_series *series;
    size_t nseries, series_cap, last_series;
    strbuf key;
    seen_slot *seen;
    size_t seen_cap, seen_count;
    double value[MCSV_MAX_OPS];
    int stop_after_header;
} reader;

static int header_row(reader *rd, const csv_field *f, size_t n)
{
    const mcsv_reader *r = rd->r;
    rd->col_vpp = rd->col_name = rd->col_step = rd->col_micro = -1;
    rd->op_of_col = xmalloc((n ? n : 1) * sizeof *rd->op_of_col);
    memset(&rd->h, 0, sizeof rd->h);
    rd->h.ncols = n;
    for (size_t c = 0; c < n; c++) {
        const char *s = f[c].s;
        size_t len = f[c].len;
        if (c == 0 && len >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) {   /* a byte order mark */
            s += 3;
            len -= 3;
        }
        rd->op_of_col[c] = -1;
        /* pandas renames a repeated column ("norm.1"): only the first counts */
        int repeated = 0;
        for (size_t k = 0; k < c && !repeated; k++)
            repeated = f[k].len == len && !memcmp(f[k].s, s, len);
        if (repeated)
            continue;
#define IS(w) (len == sizeof(w) - 1 && !memcmp(s, w, len))
        if (IS("vpp_stage"))
            rd->col_vpp = (int)c;
        else if (IS("name"))
            rd->col_name = (int)c;
        else if (IS("step"))
            rd->col_step = (int)c;
        else if (IS("micro_step"))
            rd->col_micro = (int)c;
#undef IS
        for (size_t w = 0; w < r->nwanted; w++)
            if (strlen(r->wanted[w]) == len && !memcmp(r->wanted[w], s, len) && !rd->h.present[w]) {
                rd->op_of_col[c] = (int)w;
                rd->h.present[w] = 1;
                rd->h.file_ops[rd->h.nfile_ops++] = w;
            }
    }
    const char *missing = rd->col_vpp < 0 ? "vpp_stage" : rd->col_name < 0 ? "name" : rd->col_step < 0 ? "step" : NULL;
    if (missing)
        return err_input(rd->path, "line 1: the header has no column '%s': not a monitor csv file", missing);
    rd->h.has_micro = rd->col_micro >= 0;
    rd->header_done = 1;
    if (r->on_header)
        return r->on_header(r->ctx, &rd->h);
    return 0;
}

static uint64_t seen_hash(size_t series, long long step)
{
    uint64_t h = ((uint64_t)series * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)step * 0xC2B2AE3D27D4EB4FULL);
    return h ^ (h >> 29);
}

static int seen_used(const void *slot) { return ((const seen_slot *)slot)->used != 0; }
static uint64_t seen_slot_hash(const void *slot)
{
    const seen_slot *s = slot;
    return seen_hash(s->series, s->step);
}

/* Has (series, step) been seen? Records it if not. */
static int seen_before(reader *rd, size_t series, long long step)
{
    if ((rd->seen_count + 1) * 2 > rd->seen_cap)
        GROW_TABLE(rd->seen, rd->seen_cap, 1024, seen_used, seen_slot_hash);
    size_t j = seen_hash(series, step) & (rd->seen_cap - 1);
    while (rd->seen[j].used) {
        if (rd->seen[j].series == series && rd->seen[j].step == step)
            return 1;
        j = (j + 1) & (rd->seen_cap - 1);
    }
    rd->seen[j] = (seen_slot){step, (uint32_t)series, 1};
    rd->seen_count++;
    return 0;
}

static size_t series_of(reader *rd, long long vpp, long long micro, const char *name, size_t nlen)
{
    /* each step lists the series in the same order: the one after the
     * previous row's is the likely one, checked without hashing */
    if (rd->nseries) {
        size_t guess = rd->last_series + 1 < rd->nseries ? rd->last_series + 1 : 0;
        const mcsv_series *g = &rd->series[guess];
        if (g->vpp == vpp && g->micro == micro && g->name_len == nlen && !memcmp(g->name, name, nlen))
            return rd->last_series = guess;
    }
    sb_reset(&rd->key);
    sb_add(&rd->key, &vpp, sizeof vpp);
    sb_add(&rd->key, &micro, sizeof micro);
    sb_add(&rd->key, name, nlen);
    size_t *v = strmap_get(&rd->series_map, rd->key.buf, rd->key.len);
    if (v)
        return rd->last_series = *v;
    char *k = arena_alloc(rd->r->names ? rd->r->names : &rd->names, rd->key.len + 1);
    memcpy(k, rd->key.buf, rd->key.len);
    k[rd->key.len] = 0;
    GROW(rd->series, rd->series_cap, rd->nseries + 1);
    rd->series[rd->nseries] = (mcsv_series){vpp, micro, k + 2 * sizeof(long long), nlen};
    int added;
    strmap_put(&rd->series_map, k, rd->key.len, rd->nseries, &added);
    return rd->last_series = rd->nseries++;
}

static const char *field_text(const csv_field *f, char *buf, size_t cap)
{
    size_t n = f->len < cap - 1 ? f->len : cap - 1;
    memcpy(buf, f->s, n);
    buf[n] = 0;
    return buf;
}

static int data_row(reader *rd, size_t row, const csv_field *f, size_t n)
{
    size_t line = row + 1;
    char shown[64];
    if (n != rd->h.ncols)
        return err_input(rd->path, "line %zu: %zu fields, the header has %zu%s", line, n, rd->h.ncols,
                         n < rd->h.ncols ? " (a truncated line?)" : "");
    long long vpp, step, micro = 0;
    if (!parse_int(f[rd->col_vpp].s, f[rd->col_vpp].len, &vpp))
        return err_input(rd->path, "line %zu: vpp_stage '%s' is not an integer", line,
                         field_text(&f[rd->col_vpp], shown, sizeof shown));
    if (!parse_int(f[rd->col_step].s, f[rd->col_step].len, &step))
        return err_input(rd->path, "line %zu: step '%s' is not an integer", line,
                         field_text(&f[rd->col_step], shown, sizeof shown));
    if (rd->col_micro >= 0 && !parse_int(f[rd->col_micro].s, f[rd->col_micro].len, &micro))
        return err_input(rd->path, "line %zu: micro_step '%s' is not an integer", line,
                         field_text(&f[rd->col_micro], shown, sizeof shown));
    const char *name = f[rd->col_name].s;
    size_t nlen = f[rd->col_name].len;
    if (is_na(name, nlen)) {
        name = "nan";
        nlen = 3;
    }
    const mcsv_reader *r = rd->r;
    for (size_t w = 0; w < r->nwanted; w++)
        rd->value[w] = NAN;
    for (size_t c = 0; c < n; c++) {
        int w = rd->op_of_col[c];
        if (w >= 0 && !parse_value(f[c].s, f[c].len, &rd->value[w]))
            return err_input(rd->path, "line %zu: %s '%s' is not a number", line, r->wanted[w],
                             field_text(&f[c], shown, sizeof shown));
    }
    size_t s = series_of(rd, vpp, micro, name, nlen);
    if (seen_before(rd, s, step))
        return err_input(rd->path, "line %zu: step %lld of '%.*s'%s appears twice (duplicated step)", line, step,
                         (int)(rd->series[s].name_len < 200 ? rd->series[s].name_len : 200), rd->series[s].name,
                         rd->col_micro >= 0 ? " at this micro_step" : "");
    mcsv_row out = {line, s, &rd->series[s], step, rd->value};
    return r->on_row ? r->on_row(r->ctx, &out) : 0;
}

static int on_csv_row(void *ctx, size_t row, const csv_field *f, size_t n)
{
    reader *rd = ctx;
    if (!rd->header_done) {
        if (n == 0)
            return err_input(rd->path, "line %zu: empty line before the header: not a monitor csv file", row + 1);
        int rc = header_row(rd, f, n);
        return rc ? rc : rd->stop_after_header ? 1 : 0;
    }
    if (n == 0)
        return 0;   /* pandas skips blank lines */
    return data_row(rd, row, f, n);
}

static int run(const char *path, const void *buf, size_t len, const mcsv_reader *r, int header_only,
               mcsv_header *h)
{
    if (r->nwanted > MCSV_MAX_OPS)
        return err_internal(path, "too many op columns wanted");
    reader rd;
    memset(&rd, 0, sizeof rd);
    rd.path = path;
    rd.r = r;
    rd.stop_after_header = header_only;
    arena_init(&rd.names, 1 << 14);
    strmap_init(&rd.series_map, 64);
    sb_reset(&rd.key);
    int rc = csv_read_fields(path, buf, len, on_csv_row, &rd);
    if (rc == 1 && header_only)
        rc = 0;
    if (rc == 0 && !rd.header_done)
        rc = err_input(path, "is empty: no header line");
    if (rc == 0 && h)
        *h = rd.h;
    free(rd.op_of_col);
    free(rd.series);
    free(rd.seen);
    sb_free(&rd.key);
    strmap_free(&rd.series_map);
    arena_free(&rd.names);
    return rc;
}

int mcsv_read(const char *path, const void *buf, size_t len, const mcsv_reader *r)
{
    return run(path, buf, len, r, 0, NULL);
}

int mcsv_read_header(const char *path, const void *buf, size_t len, const mcsv_reader *r, mcsv_header *h)
{
    /* the first line only (outside quotes): the rest need not even be valid */
    const char *p = buf;
    size_t end = 0;
    int quoted = 0;
    while (end < len && (quoted || p[end] != '\n')) {
        quoted ^= p[end] == '"';
        end++;
    }
    return run(path, buf, end, r, 1, h);
}
