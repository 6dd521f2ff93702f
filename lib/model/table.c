/* The table writer of table.h, into a temporary file of files.h that is
 * committed at table_close. csv rows are formatted into a buffer and
 * written a megabyte at a time; the formatting is tuned because compare
 * writes millions of cells: quoting is tested eight bytes at a time, cell
 * bytes are copied in fixed-size pieces, and the %.16g text of a number is
 * memoised per thread by its bits (dumps repeat their numbers). xlsx rows
 * go to libxlsxwriter in constant-memory mode, a new sheet with the header
 * again when one is full, and cells clipped to what Excel accepts.
 */
#include "model/table.h"
#include "base/memo.h"
#include "base/files.h"
#include "base/outdir.h"
#include "base/err.h"
#include "base/log.h"
#include "base/mem.h"
#include "py/numfmt.h"
#include "base/strbuf.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xlsxwriter.h>

struct table_writer {
    int format;
    char *path, *tmp;
    const char *const *header;
    int ncols;
    /* csv */
    FILE *fp;
    strbuf csv;        /* rows not yet written */
    /* xlsx */
    lxw_workbook *wb;
    lxw_worksheet *ws;
    lxw_format *red, *yellow, *head;
    long sheet_rows;   /* rows written on the current sheet, header included */
    int sheets;        /* sheets of the current table (continuations count) */
    char *sheet;       /* name of the current table's first sheet */
};

/* ---- csv ---------------------------------------------------------------- */

/* Fields are quoted only when they hold a comma, a quote or a line break
 * (Python's csv QUOTE_MINIMAL); checked eight bytes at a time. */
static int csv_needs_quotes(const char *s, size_t n)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v, a, b, c, d;
        memcpy(&v, s + i, 8);
        a = v ^ (ones * ','), b = v ^ (ones * '"'), c = v ^ (ones * '\n'), d = v ^ (ones * '\r');
        if ((((a - ones) & ~a) | ((b - ones) & ~b) | ((c - ones) & ~c) | ((d - ones) & ~d)) & highs)
            break;
    }
    for (; i < n; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r')
            return 1;
    return 0;
}

/* A cell's bytes appended: fixed-size copies (16 bytes, the last one
 * overlapping) instead of the inline variable-length copy the compiler
 * makes of memcpy, whose start-up cost was a third of formatting a row. */
static inline void csv_add(strbuf *sb, const char *s, size_t n)
{
    sb_grow(sb, n);
    char *d = sb->buf + sb->len;
    if (n >= 16) {
        for (size_t i = 0; i + 16 < n; i += 16)
            memcpy(d + i, s + i, 16);
        memcpy(d + n - 16, s + n - 16, 16);
    } else if (n >= 8) {
        memcpy(d, s, 8);
        memcpy(d + n - 8, s + n - 8, 8);
    } else if (n >= 4) {
        memcpy(d, s, 4);
        memcpy(d + n - 4, s + n - 4, 4);
    } else {
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    }
    sb->len += n;
    sb->buf[sb->len] = 0;
}

static void csv_text(strbuf *sb, const char *s, size_t n)
{
    if (!csv_needs_quotes(s, n)) {
        csv_add(sb, s, n);
        return;
    }
    sb_grow(sb, 2 * n + 3);
    char *o = sb->buf + sb->len;
    *o++ = '"';
    /* long texts (a stack) are copied in spans between quotes */
    while (n) {
        const char *q = memchr(s, '"', n);
        size_t k = q ? (size_t)(q - s) + 1 : n;
        memcpy(o, s, k);
        o += k;
        if (q)
            *o++ = '"';
        s += k;
        n -= k;
    }
    *o++ = '"';
    sb->len = (size_t)(o - sb->buf);
    sb->buf[sb->len] = 0;
}

/* A number's csv text, by the number's bits. */
static _Thread_local memo g16_memo;

static void csv_num(strbuf *sb, double x)
{
    if (isnan(x) || isinf(x)) {
        sb_adds(sb, isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
        return;
    }
    const memo_slot *hit = memo_get(&g16_memo, &x, sizeof x);
    if (hit) {
        csv_add(sb, hit->value, hit->value_len);
        return;
    }
    char buf[NUMFMT_BUFSZ];
    size_t n = fmt_g16(x, buf);
    memo_put(&g16_memo, &x, sizeof x, buf, n);
    csv_add(sb, buf, n);
}

/* Python's repr() of a float, by its bits. */
static _Thread_local memo repr_memo;

static void csv_pynum(strbuf *sb, const cell *x)
{
    if (x->str) {
        csv_text(sb, x->str, x->len);
        return;
    }
    const memo_slot *hit = memo_get(&repr_memo, &x->num, sizeof x->num);
    if (hit) {
        csv_add(sb, hit->value, hit->value_len);
        return;
    }
    char buf[NUMFMT_BUFSZ];
    size_t n = fmt_pyrepr(x->num, buf);
    memo_put(&repr_memo, &x->num, sizeof x->num, buf, n);
    csv_add(sb, buf, n);
}

void csv_append_row(strbuf *sb, const cell *cells, int ncols)
{
    for (int c = 0; c < ncols; c++) {
        if (c)
            sb_addc(sb, ',');
        if (cells[c].kind == CELL_NUM)
            csv_num(sb, cells[c].num);
        else if (cells[c].kind == CELL_PYNUM)
            csv_pynum(sb, &cells[c]);
        else if (cells[c].kind == CELL_STR)
            csv_text(sb, cells[c].str, cells[c].len);
        else if (cells[c].kind == CELL_BOOL)
            sb_adds(sb, cells[c].num ? "True" : "False");
    }
    sb_addc(sb, '\n');
}

static int csv_flush(table_writer *t)
{
    if (t->csv.len && fwrite(t->csv.buf, 1, t->csv.len, t->fp) != t->csv.len)
        return err_set(ERR_OUTPUT, t->path, "cannot write: %s", strerror(errno));
    sb_reset(&t->csv);
    return 0;
}

static int csv_row(table_writer *t, const cell *cells)
{
    csv_append_row(&t->csv, cells, t->ncols);
    return t->csv.len >= (1 << 20) ? csv_flush(t) : 0;
}

int table_append_csv(table_writer *t, const char *text, size_t n)
{
    if (csv_flush(t) != 0)
        return -1;
    if (n && fwrite(text, 1, n, t->fp) != n)
        return err_set(ERR_OUTPUT, t->path, "cannot write: %s", strerror(errno));
    return 0;
}

/* ---- xlsx --------------------------------------------------------------- */

static int xlsx_fail(table_writer *t, lxw_error e)
{
    return err_set(ERR_OUTPUT, t->path, "cannot write xlsx: %s", lxw_strerror(e));
}

/* workbook_close() packs the zip file, where a full disk or a file size
 * limit shows. libxlsxwriter then prints lines of its own on stderr besides
 * returning the error; our one line says it all, so this thread's stdio
 * output is dropped meanwhile (log_mute_thread: other threads keep
 * stderr, file descriptor 2 is never touched). *sys_errno: errno as the
 * close left it. */
static lxw_error workbook_close_quietly(lxw_workbook *wb, int *sys_errno)
{
    log_mute_thread(1);
    errno = 0;
    lxw_error e = workbook_close(wb);
    *sys_errno = errno;
    log_mute_thread(0);
    return e;
}

static int xlsx_new_sheet(table_writer *t)
{
    /* Excel's limit is 31 characters; continuations append a number */
    char name[32];
    if (t->sheets == 0)
        snprintf(name, sizeof name, "%s", t->sheet);
    else
        snprintf(name, sizeof name, "%.*s%d", 31 - snprintf(NULL, 0, "%d", t->sheets + 1), t->sheet, t->sheets + 1);
    t->ws = workbook_add_worksheet(t->wb, name);
    if (!t->ws)
        return err_internal(t->path, "cannot add worksheet %s", name);
    t->sheets++;
    t->sheet_rows = 0;
    for (int c = 0; c < t->ncols; c++) {
        lxw_error e = worksheet_write_string(t->ws, 0, (lxw_col_t)c, t->header[c], t->head);
        if (e)
            return xlsx_fail(t, e);
    }
    t->sheet_rows = 1;
    return 0;
}

/* Excel refuses longer cells; cut at a UTF-8 character boundary. */
static size_t xlsx_clip(const char *s, size_t n)
{
    if (n <= XLSX_MAX_CELL_CHARS)
        return n;
    size_t chars = 0, i = 0;
    while (i < n && chars < XLSX_MAX_CELL_CHARS) {
        unsigned char c = (unsigned char)s[i];
        size_t step = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        /* UTF-16 units: characters beyond the BMP count twice in Excel. */
        chars += step == 4 ? 2 : 1;
        if (chars > XLSX_MAX_CELL_CHARS)
            break;
        i += step;
    }
    return i > n ? n : i;
}

static int xlsx_row(table_writer *t, const cell *cells, int fill)
{
    if (t->sheet_rows >= XLSX_MAX_ROWS && xlsx_new_sheet(t) != 0)
        return -1;
    lxw_row_t r = (lxw_row_t)t->sheet_rows++;
    lxw_format *fmt = fill == FILL_RED ? t->red : fill == FILL_YELLOW ? t->yellow : NULL;
    char small[XLSX_MAX_CELL_CHARS * 4 + 1];
    for (int c = 0; c < t->ncols; c++) {
        const cell *x = &cells[c];
        lxw_error e = LXW_NO_ERROR;
        if ((x->kind == CELL_NUM || x->kind == CELL_PYNUM) && isfinite(x->num)) {
            e = worksheet_write_number(t->ws, r, (lxw_col_t)c, x->num, fmt);
        } else if (x->kind == CELL_NUM || x->kind == CELL_PYNUM) {
            const char *s = isnan(x->num) ? "nan" : x->num > 0 ? "inf" : "-inf";
            e = worksheet_write_string(t->ws, r, (lxw_col_t)c, s, fmt);
        } else if (x->kind == CELL_BOOL) {
            e = worksheet_write_boolean(t->ws, r, (lxw_col_t)c, x->num != 0, fmt);
        } else if (x->kind == CELL_STR && x->len) {
            /* libxlsxwriter wants NUL-terminated text, but a cell is a
             * pointer and a length: str[len] need not be readable (a view
             * into a mapped file or a buffer of exactly that size). */
            size_t n = xlsx_clip(x->str, x->len);
            memcpy(small, x->str, n);
            small[n] = 0;
            e = worksheet_write_string(t->ws, r, (lxw_col_t)c, small, fmt);
        } else if (fmt) {
            e = worksheet_write_blank(t->ws, r, (lxw_col_t)c, fmt);
        }
        if (e)
            return xlsx_fail(t, e);
    }
    return 0;
}

/* ---- common ------------------------------------------------------------- */

const opt_choice table_formats[] = {TABLE_FORMAT_CHOICES, {NULL, 0, NULL}};

const char *table_ext(int format)
{
    switch (format) {
    case TABLE_CSV:
        return "csv";
    case TABLE_XLSX:
        return "xlsx";
    default:
        return NULL;
    }
}

table_writer *table_open(const char *path, int format, const char *const *header, int ncols)
{
    return table_open_sheet(path, format, NULL, header, ncols);
}

table_writer *table_open_sheet(const char *path, int format, const char *sheet, const char *const *header, int ncols)
{
    return table_open_opts(path, format, sheet, header, ncols, 0);
}

table_writer *table_open_opts(const char *path, int format, const char *sheet, const char *const *header, int ncols,
                              unsigned flags)
{
    table_writer *t = xcalloc(1, sizeof *t);
    t->format = format;
    t->path = xstrdup(path);
    t->sheet = xstrdup(sheet ? sheet : "Sheet");
    t->header = header;
    t->ncols = ncols;
    t->tmp = out_tmp_create(path);
    if (!t->tmp) {
        free(t->path);
        free(t->sheet);
        free(t);
        return NULL;
    }
    if (format == TABLE_CSV) {
        t->fp = out_tmp_fopen(t->tmp);
        if (!t->fp) {
            err_set(ERR_OUTPUT, path, "cannot write: %s", strerror(errno));
            table_abort(t);
            return NULL;
        }
        cell *h = xmalloc_array((size_t)ncols, sizeof *h);
        for (int c = 0; c < ncols; c++)
            h[c] = cell_str(header[c], strlen(header[c]));
        csv_append_row(&t->csv, h, ncols);
        free(h);
        return t;
    }
    lxw_workbook_options wb_opts = {.constant_memory = LXW_TRUE, .tmpdir = NULL, .use_zip64 = LXW_TRUE};
    t->wb = workbook_new_opt(t->tmp, &wb_opts);
    if (!t->wb) {
        err_set(ERR_OUTPUT, path, "cannot create xlsx workbook");
        table_abort(t);
        return NULL;
    }
    t->red = workbook_add_format(t->wb);
    format_set_pattern(t->red, LXW_PATTERN_SOLID);
    format_set_bg_color(t->red, 0xFF0000);
    t->yellow = workbook_add_format(t->wb);
    format_set_pattern(t->yellow, LXW_PATTERN_SOLID);
    format_set_bg_color(t->yellow, 0xFFFF00);
    if (flags & TABLE_PANDAS_HEADER) {
        t->head = workbook_add_format(t->wb);
        format_set_bold(t->head);
        format_set_border(t->head, LXW_BORDER_THIN);
        format_set_align(t->head, LXW_ALIGN_CENTER);
        format_set_align(t->head, LXW_ALIGN_VERTICAL_TOP);
    }
    if (xlsx_new_sheet(t) != 0) {
        table_abort(t);
        return NULL;
    }
    return t;
}

int table_next_sheet(table_writer *t, const char *sheet, const char *const *header, int ncols)
{
    if (t->format != TABLE_XLSX)
        return err_internal(t->path, "a csv table has a single sheet");
    free(t->sheet);
    t->sheet = xstrdup(sheet);
    t->header = header;
    t->ncols = ncols;
    t->sheets = 0;
    return xlsx_new_sheet(t);
}

int table_row(table_writer *t, const cell *cells, int fill)
{
    return t->format == TABLE_CSV ? csv_row(t, cells) : xlsx_row(t, cells, fill);
}

static void table_release(table_writer *t)
{
    sb_free(&t->csv);
    free(t->sheet);
    free(t->path);
    free(t);
}

const char *table_partial_path(const table_writer *t) { return t->tmp; }

/* Finish the file; 0 with the temporary file complete, else -1 with it
 * removed. */
static int table_finish(table_writer *t)
{
    int rc = 0;
    if (t->format == TABLE_CSV) {
        rc = csv_flush(t);
        if (fclose(t->fp) != 0 && rc == 0)
            rc = err_set(ERR_OUTPUT, t->path, "cannot write: %s", strerror(errno));
        t->fp = NULL;
    } else {
        int sys_errno;
        lxw_error e = workbook_close_quietly(t->wb, &sys_errno);
        t->wb = NULL;
        if (e && sys_errno)
            rc = err_set(ERR_OUTPUT, t->path, "cannot write xlsx: %s", strerror(sys_errno));
        else if (e)
            rc = xlsx_fail(t, e);
    }
    if (rc) {
        out_tmp_discard(t->tmp);
        t->tmp = NULL;
    }
    return rc;
}

int table_close(table_writer *t)
{
    int rc = table_finish(t);
    if (rc == 0)
        rc = out_tmp_commit(t->tmp, t->path);
    t->tmp = NULL;
    table_release(t);
    return rc;
}

int table_close_new(table_writer *t, char **path)
{
    int rc = table_finish(t);
    if (rc == 0)
        rc = out_commit_new(t->tmp, path);
    t->tmp = NULL;
    table_release(t);
    return rc;
}

int table_close_replace(table_writer *t, out_run *r, const char *what)
{
    int rc = table_finish(t);
    if (rc == 0)
        rc = out_run_replace(r, t->tmp, t->path, what);
    t->tmp = NULL;
    table_release(t);
    return rc;
}

void table_abort(table_writer *t)
{
    if (!t)
        return;
    if (t->fp)
        fclose(t->fp);
    if (t->wb) {
        /* libxlsxwriter has no discard: finish into the temp file, then
         * remove it. */
        int sys_errno;
        workbook_close_quietly(t->wb, &sys_errno);
    }
    out_tmp_discard(t->tmp);
    table_release(t);
}
