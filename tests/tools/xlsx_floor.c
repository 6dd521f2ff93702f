/* xlsx_floor: the time libxlsxwriter alone needs to write a table shaped
 * like a statistics compare result, the floor under `msprobe compare
 * --format xlsx`: the same cells, constant_memory mode, nothing else.
 *
 * Per row, like msprobe's SUMMARY table (24 columns): two long row names,
 * four short strings (dtypes, shapes), four numbers, four relative-error
 * strings ("0.4273504273504274%"), eight numbers, then Result and
 * Err_message, empty on most rows. Other column counts keep the two names
 * and four short strings in front and the two texts at the end, filling
 * the middle with numbers and four relative-error strings. Every cell of a
 * few rows gets a red or yellow fill, as highlighted rows do.
 *
 * With --cells CSV the cells are those of a compare result instead (a cell
 * that reads entirely as a finite number is written as a number, others as
 * text), loaded before the clock starts: the floor for exactly that table.
 * The time of the writing alone is printed as write_s=.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xlsxwriter.h>

static const char USAGE[] =
    "usage: xlsx_floor [--rows R] [--cols C] [--cells CSV] [--out FILE] [--fill-rate P] [--seed K]\n"
    "  --rows R       data rows below the header (default 18000)\n"
    "  --cols C       columns (default 24)\n"
    "  --cells CSV    write the header and cells of this csv instead (sets rows and cols)\n"
    "  --out FILE     the workbook to write (default floor.xlsx)\n"
    "  --fill-rate P  share of highlighted rows (default 0.002)\n";

enum { SHEET_ROWS = 1048576 };

static uint64_t rs;

static uint64_t rnd(void)
{
    uint64_t z = (rs += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double uni(void) { return (double)(rnd() >> 11) * 0x1p-53; }

static const char *const HEADERS[] = {
    "NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape", "Bench Tensor Shape",
    "Max diff", "Min diff", "Mean diff", "L2norm diff", "MaxRelativeErr", "MinRelativeErr",
    "MeanRelativeErr", "NormRelativeErr", "NPU max", "NPU min", "NPU mean", "NPU l2norm",
    "Bench max", "Bench min", "Bench mean", "Bench l2norm", "Result", "Err_message",
};

enum { C_NAME, C_SHORT, C_NUM, C_PCT, C_RESULT, C_MESSAGE };

static int col_kind(int c, int cols)
{
    if (c < 2)
        return C_NAME;
    if (c < 6)
        return C_SHORT;
    if (cols >= 8 && c == cols - 2)
        return C_RESULT;
    if (cols >= 8 && c == cols - 1)
        return C_MESSAGE;
    return c >= 10 && c < 14 ? C_PCT : C_NUM;
}

static void fail(const char *what, lxw_error e)
{
    fprintf(stderr, "xlsx_floor: %s: %s\n", what, lxw_strerror(e));
    exit(1);
}

static void *xalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "xlsx_floor: out of memory\n");
        exit(1);
    }
    return p;
}

/* A csv table held in memory: cell strings (NULL when empty) and, for
 * cells that are numbers, their value. Row 0 is the header. */
typedef struct {
    long rows, cols;   /* rows without the header */
    char **text;
    double *num;
    unsigned char *is_num;
} table;

/* RFC 4180: quoted fields may hold commas, doubled quotes and newlines. */
static void load_csv(const char *path, table *t)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "xlsx_floor: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    size_t cap = 1 << 16, n = 0, ncells = 0, cells_cap = 1 << 12;
    char *field = xalloc(cap);
    char **cells = xalloc(cells_cap * sizeof *cells);
    long cols = 0, in_row = 0;
    int c, quoted = 0, was_quoted = 0, ended = 1;
    for (;;) {
        c = getc(f);
        if (quoted) {
            if (c == EOF)
                break;
            if (c == '"') {
                int d = getc(f);
                if (d != '"') {
                    quoted = 0;
                    ungetc(d, f);
                    continue;
                }
            }
        } else if (c == '"' && n == 0) {
            quoted = was_quoted = 1;
            ended = 0;
            continue;
        } else if (c == ',' || c == '\n' || c == EOF) {
            if (c == EOF && ended)
                break;
            if (n && field[n - 1] == '\r' && !was_quoted)
                n--;
            if (ncells == cells_cap)
                cells = realloc(cells, (cells_cap *= 2) * sizeof *cells);
            if (!cells) {
                fprintf(stderr, "xlsx_floor: out of memory\n");
                exit(1);
            }
            field[n] = '\0';
            cells[ncells++] = n ? strcpy(xalloc(n + 1), field) : NULL;
            in_row++;
            n = 0;
            was_quoted = 0;
            ended = c != ',';
            if (ended) {
                if (cols == 0)
                    cols = in_row;
                else if (in_row != cols) {
                    fprintf(stderr, "xlsx_floor: %s: a row with %ld fields, the header has %ld\n", path, in_row, cols);
                    exit(1);
                }
                in_row = 0;
            }
            if (c == EOF)
                break;
            continue;
        }
        ended = 0;
        if (n + 1 >= cap)
            field = realloc(field, cap *= 2);
        if (!field) {
            fprintf(stderr, "xlsx_floor: out of memory\n");
            exit(1);
        }
        field[n++] = (char)c;
    }
    fclose(f);
    free(field);
    if (cols == 0) {
        fprintf(stderr, "xlsx_floor: %s: no header\n", path);
        exit(1);
    }
    t->cols = cols;
    t->rows = (long)ncells / cols - 1;
    t->text = cells;
    t->num = xalloc(ncells * sizeof *t->num);
    t->is_num = xalloc(ncells);
    for (size_t i = 0; i < ncells; i++) {
        char *end;
        t->is_num[i] = 0;
        if (i >= (size_t)cols && cells[i]) {
            t->num[i] = strtod(cells[i], &end);
            t->is_num[i] = *end == '\0' && isfinite(t->num[i]);
        }
    }
}

static const char *const DTYPES[] = {"torch.bfloat16", "torch.float32", "torch.int64", "torch.bool"};
static const char *const SHAPES[] = {"[2048, 1, 2048]", "[2048, 1, 16, 128]", "[16, 2048, 2048]", "[6144, 2048]",
                                     "[2048]", "[]", "[1, 1, 2048, 2048]"};
static const char *const APIS[] = {"Functional.linear", "Tensor.__mul__", "Torch.cat", "Tensor.view",
                                   "Functional.layer_norm", "Tensor.__add__", "Torch.baddbmm"};

static void check(lxw_error e)
{
    if (e != LXW_NO_ERROR)
        fail("write cell", e);
}

/* Data row r (0-based) of the synthetic table at sheet row `row`. */
static void synthetic_row(lxw_worksheet *ws, lxw_row_t row, long r, long cols, lxw_format *f)
{
    char name[160], pct[40];
    int warn = uni() < 0.012 || f;
    uint64_t pick = rnd();
    if (pick % 3 == 0)
        snprintf(name, sizeof name, "Module.decoder.layers.%d.self_attention.linear_qkv.ColumnParallelLinear."
                 "forward.%d.input.0", (int)(pick >> 8) % 24, (int)(pick >> 16) % 4);
    else
        snprintf(name, sizeof name, "%s.%ld.forward.%s.%d", APIS[(pick >> 8) % 7], r / 3,
                 pick & 8 ? "output" : "input", (int)(pick >> 20) % 3);
    for (long c = 0; c < cols; c++) {
        lxw_col_t col = (lxw_col_t)c;
        switch (col_kind((int)c, (int)cols)) {
        case C_NAME:
            check(worksheet_write_string(ws, row, col, name, f));
            break;
        case C_SHORT:
            check(worksheet_write_string(ws, row, col, c < 4 ? DTYPES[pick % 4] : SHAPES[(pick >> 4) % 7], f));
            break;
        case C_NUM:
            check(worksheet_write_number(ws, row, col, (uni() - 0.5) * 8 * (1 + (double)(rnd() % 1000)), f));
            break;
        case C_PCT:
            snprintf(pct, sizeof pct, "%.16g%%", uni() * 3);
            check(worksheet_write_string(ws, row, col, pct, f));
            break;
        case C_RESULT:
        case C_MESSAGE:
            if (warn)
                check(worksheet_write_string(ws, row, col, c == cols - 2 ? "Warning"
                                             : "Need double check api accuracy.", f));
            else if (f)
                check(worksheet_write_blank(ws, row, col, f));
            break;
        }
    }
}

static void csv_row(lxw_worksheet *ws, lxw_row_t row, const table *t, long r, lxw_format *f)
{
    for (long c = 0; c < t->cols; c++) {
        size_t i = (size_t)r * (size_t)t->cols + (size_t)c;
        if (t->is_num[i])
            check(worksheet_write_number(ws, row, (lxw_col_t)c, t->num[i], f));
        else if (t->text[i])
            check(worksheet_write_string(ws, row, (lxw_col_t)c, t->text[i], f));
        else if (f)
            check(worksheet_write_blank(ws, row, (lxw_col_t)c, f));
    }
}

static long num_arg(const char *opt, const char *v, long lo, long hi)
{
    char *end;
    errno = 0;
    long n = v ? strtol(v, &end, 10) : 0;
    if (!v || errno || *end || n < lo || n > hi) {
        fprintf(stderr, "xlsx_floor: %s needs a whole number in %ld..%ld\n%s", opt, lo, hi, USAGE);
        exit(2);
    }
    return n;
}

int main(int argc, char **argv)
{
    long rows = 18000, cols = 24;
    double fill_rate = 0.002;
    const char *out = "floor.xlsx", *cells = NULL;
    rs = 1;
    for (int i = 1; i < argc; i += 2) {   /* every option takes a value */
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--rows"))
            rows = num_arg(a, v, 0, 100000000);
        else if (!strcmp(a, "--cols"))
            cols = num_arg(a, v, 1, 16384);
        else if (!strcmp(a, "--seed"))
            rs = (uint64_t)num_arg(a, v, 0, 1L << 62);
        else if (!strcmp(a, "--out") && v)
            out = v;
        else if (!strcmp(a, "--cells") && v)
            cells = v;
        else if (!strcmp(a, "--fill-rate") && v) {
            char *end;
            fill_rate = strtod(v, &end);
            if (*end || !(fill_rate >= 0 && fill_rate <= 1)) {
                fprintf(stderr, "xlsx_floor: --fill-rate needs a number in 0..1\n");
                return 2;
            }
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(USAGE, stdout);
            return 0;
        } else {
            fprintf(stderr, "xlsx_floor: bad argument '%s'\n%s", a, USAGE);
            return 2;
        }
    }
    table t = {0};
    if (cells) {
        load_csv(cells, &t);
        rows = t.rows;
        cols = t.cols;
    }

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    lxw_workbook_options wo = {.constant_memory = LXW_TRUE, .tmpdir = NULL,
                               .use_zip64 = rows * cols > 20000000 ? LXW_TRUE : LXW_FALSE};
    lxw_workbook *wb = workbook_new_opt(out, &wo);
    if (!wb) {
        fprintf(stderr, "xlsx_floor: %s: cannot create the workbook\n", out);
        return 1;
    }
    lxw_format *fills[2];
    for (int k = 0; k < 2; k++) {
        fills[k] = workbook_add_format(wb);
        format_set_pattern(fills[k], LXW_PATTERN_SOLID);
        format_set_bg_color(fills[k], k ? 0xFFFF00 : 0xFF0000);
    }
    lxw_worksheet *ws = NULL;
    long sheet_row = SHEET_ROWS;
    int sheets = 0;
    for (long r = 0; r < rows; r++) {
        if (sheet_row == SHEET_ROWS) {   /* a full sheet continues on the next */
            ws = workbook_add_worksheet(wb, NULL);
            if (!ws)
                fail("add worksheet", LXW_ERROR_MEMORY_MALLOC_FAILED);
            sheets++;
            if (cells) {
                csv_row(ws, 0, &t, 0, NULL);
            } else {
                for (long c = 0; c < cols; c++) {
                    char text[32];
                    snprintf(text, sizeof text, "Extra %ld", c - 23);
                    check(worksheet_write_string(ws, 0, (lxw_col_t)c, c < 24 ? HEADERS[c] : text, NULL));
                }
            }
            sheet_row = 1;
        }
        double hl = uni();
        lxw_format *f = hl < fill_rate ? fills[hl < fill_rate / 2] : NULL;
        lxw_row_t row = (lxw_row_t)sheet_row++;
        if (cells)
            csv_row(ws, row, &t, r + 1, f);
        else
            synthetic_row(ws, row, r, cols, f);
    }
    lxw_error e = workbook_close(wb);
    if (e != LXW_NO_ERROR)
        fail(out, e);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("xlsx_floor: rows=%ld cols=%ld sheets=%d cells=%ld write_s=%.4f file=%s\n", rows, cols, sheets,
           rows * cols, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9, out);
    if (cells) {
        for (long i = 0; i < (rows + 1) * cols; i++)
            free(t.text[i]);
        free(t.text);
        free(t.num);
        free(t.is_num);
    }
    return 0;
}
