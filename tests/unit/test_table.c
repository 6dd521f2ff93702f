/* Result tables: csv text (quoting, "%.16g" numbers, empty cells), xlsx
 * content read back with our own zip reader (cells, red/yellow row fills,
 * sheet names, continuation sheets past Excel's row limit, long cells), and
 * the atomic-output promise: nothing under the final name until the table
 * is complete, nothing at all after an abort. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/files.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "model/table.h"
#include "testutil.h"
#include "format/zip.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static cell cs(const char *s) { return cell_str(s, strlen(s)); }
static const cell empty_cell = {CELL_EMPTY, 0, NULL, 0};

/* A fresh directory per test, so that leftovers are easy to count. */
static char *fresh_dir(const char *name)
{
    char *p = tu_path(tu_dir, name);
    assert_int_equal(mkdir(p, 0700), 0);
    return p;
}

static int entries(const char *d)
{
    char **names;
    long n = dir_list(d, &names);
    assert_true(n >= 0);
    names_free(names, n);
    return (int)n;
}

/* ---- csv ---------------------------------------------------------------- */

static char *write_csv(const char *d, const char *const *header, int ncols, const cell *rows, int nrows)
{
    char *path = tu_path(d, "out.csv");
    err_clear();
    table_writer *t = table_open(path, TABLE_CSV, header, ncols);
    assert_non_null(t);
    for (int i = 0; i < nrows; i++)
        assert_int_equal(table_row(t, rows + (size_t)i * (size_t)ncols, i % 3), 0);
    assert_int_equal(table_close(t), 0);
    assert_int_equal(err_kind(), 0);
    return path;
}

static void test_csv_quoting(void **state)
{
    char *d = fresh_dir("csv_quoting");
    static const char *const header[] = {"NPU Name", "Bench, Name", "say \"x\""};
    /* a view into a longer text: only `len` bytes are the cell */
    static const char longer[] = "abcDEF";
    char *exact = malloc(3);
    memcpy(exact, "x,y", 3);
    const cell rows[] = {
        cs("plain"),       cs("a,b"),           cs("q\"uote"),
        cs("line\nbreak"), cs("cr\rhere"),      cs("crlf\r\n"),
        cs("tab\there"),   cs("  spaced  "),    cs("\xe4\xb8\xad\xe6\x96\x87"),
        empty_cell,        cell_str("", 0),     empty_cell,
        cs("\"\""),        cell_str(longer, 3), cell_str(exact, 3),
        cs("'single'"),    cs(";=1"),           cs("a\"b,c\nd"),
    };
    char *path = write_csv(d, header, 3, rows, 6);
    char *text = tu_read(path, NULL);
    assert_string_equal(text, "NPU Name,\"Bench, Name\",\"say \"\"x\"\"\"\n"
                              "plain,\"a,b\",\"q\"\"uote\"\n"
                              "\"line\nbreak\",\"cr\rhere\",\"crlf\r\n\"\n"
                              "tab\there,  spaced  ,\xe4\xb8\xad\xe6\x96\x87\n"
                              ",,\n"
                              "\"\"\"\"\"\",abc,\"x,y\"\n"
                              "'single',;=1,\"a\"\"b,c\nd\"\n");
    free(text);
    free(exact);
    free(path);
    free(d);
}

static void test_csv_numbers(void **state)
{
    char *d = fresh_dir("csv_numbers");
    static const struct {
        double x;
        const char *text;
    } cases[] = {
        {0.1, "0.1"},
        {1.0 / 3, "0.3333333333333333"},
        {2.0 / 3, "0.6666666666666666"},
        {1e16, "1e+16"},
        {123456789012345678.0, "1.234567890123457e+17"},
        {-0.0, "-0"},
        {0.0, "0"},
        {1e-5, "1e-05"},
        {100, "100"},
        {2.5, "2.5"},
        {5e-324, "4.940656458412465e-324"},
        {1.7976931348623157e308, "1.797693134862316e+308"},
        {-1234.5678, "-1234.5678"},
        {0.1 + 0.2, "0.3"},
        {9007199254740993.0, "9007199254740992"},
        {NAN, "nan"},
        {-NAN, "nan"},
        {INFINITY, "inf"},
        {-INFINITY, "-inf"},
    };
    enum { N = sizeof cases / sizeof cases[0] };
    static const char *const header[] = {"x", "y"};
    cell rows[2 * N];
    for (int i = 0; i < N; i++) {
        rows[2 * i] = cell_num(cases[i].x);
        rows[2 * i + 1] = cs("|");
    }
    char *path = write_csv(d, header, 2, rows, N);
    char *text = tu_read(path, NULL);
    char *line = strchr(text, '\n') + 1;
    for (int i = 0; i < N; i++) {
        char *end = strchr(line, '\n');
        assert_non_null(end);
        *end = 0;
        char want[64];
        snprintf(want, sizeof want, "%s,|", cases[i].text);
        assert_string_equal(line, want);
        line = end + 1;
    }
    assert_int_equal(*line, 0);
    free(text);
    free(path);

    /* random doubles of every magnitude: exactly what printf("%.16g") gives */
    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    enum { R = 3000 };
    cell *rnd = malloc(R * sizeof *rnd);
    double *vals = malloc(R * sizeof *vals);
    for (int i = 0; i < R; i++) {
        do {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            memcpy(&vals[i], &seed, sizeof(double));
        } while (!isfinite(vals[i]));
        rnd[i] = cell_num(vals[i]);
    }
    static const char *const h1[] = {"v"};
    char *p = tu_path(d, "rnd.csv");
    table_writer *t = table_open(p, TABLE_CSV, h1, 1);
    for (int i = 0; i < R; i++)
        assert_int_equal(table_row(t, &rnd[i], FILL_NONE), 0);
    assert_int_equal(table_close(t), 0);
    text = tu_read(p, NULL);
    line = strchr(text, '\n') + 1;
    for (int i = 0; i < R; i++) {
        char want[40];
        snprintf(want, sizeof want, "%.16g\n", vals[i]);
        assert_memory_equal(line, want, strlen(want));
        line += strlen(want);
    }
    assert_int_equal(*line, 0);
    free(text);
    free(p);
    free(rnd);
    free(vals);
    free(d);
}

/* Rows formatted elsewhere (csv_append_row) and handed over in order
 * (table_append_csv) read exactly like rows written with table_row. */
static void test_csv_preformatted(void **state)
{
    char *d = fresh_dir("csv_pre");
    static const char *const header[] = {"a", "b", "c"};
    const cell r1[] = {cs("one"), cell_num(1), empty_cell};
    const cell r2[] = {cs("t,wo"), cell_num(NAN), cs("x\"y")};
    const cell r3[] = {empty_cell, cell_num(0.1), cell_str("threeXX", 5)};
    const cell r4[] = {cs("four"), cell_num(-INFINITY), cs("")};

    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "keep:");
    csv_append_row(&sb, r2, 3);
    assert_string_equal(sb_str(&sb), "keep:\"t,wo\",nan,\"x\"\"y\"\n");
    sb_reset(&sb);
    csv_append_row(&sb, r2, 3);
    csv_append_row(&sb, r3, 3);

    char *path = tu_path(d, "out.csv");
    table_writer *t = table_open(path, TABLE_CSV, header, 3);
    assert_non_null(t);
    assert_int_equal(table_row(t, r1, FILL_NONE), 0);
    assert_int_equal(table_append_csv(t, sb.buf, sb.len), 0);
    assert_int_equal(table_append_csv(t, "", 0), 0);
    assert_int_equal(table_row(t, r4, FILL_RED), 0);
    assert_int_equal(table_close(t), 0);
    char *text = tu_read(path, NULL);
    assert_string_equal(text, "a,b,c\none,1,\n\"t,wo\",nan,\"x\"\"y\"\n,0.1,three\nfour,-inf,\n");
    free(text);

    /* the same through table_row only */
    char *p2 = tu_path(d, "rows.csv");
    t = table_open(p2, TABLE_CSV, header, 3);
    const cell *all[] = {r1, r2, r3, r4};
    for (int i = 0; i < 4; i++)
        assert_int_equal(table_row(t, all[i], FILL_NONE), 0);
    assert_int_equal(table_close(t), 0);
    char *a = tu_read(path, NULL), *b = tu_read(p2, NULL);
    assert_string_equal(a, b);
    free(a);
    free(b);
    sb_free(&sb);
    free(p2);
    free(path);
    free(d);
}

/* A big table goes out in several flushes and arrives whole, under its
 * final name only at the end, with mode 0640. */
static void test_csv_large_and_atomic(void **state)
{
    char *d = fresh_dir("csv_large");
    char *path = tu_path(d, "big.csv");
    static const char *const header[] = {"name", "value", "note"};
    table_writer *t = table_open(path, TABLE_CSV, header, 3);
    assert_non_null(t);
    char name[64];
    for (int i = 0; i < 60000; i++) {
        snprintf(name, sizeof name, "Functional.conv2d.%d.forward.input.0", i);
        cell row[3] = {cs(name), cell_num(i * 0.5), i % 7 ? empty_cell : cs("seven, days")};
        assert_int_equal(table_row(t, row, FILL_NONE), 0);
    }
    /* still only the hidden temporary */
    assert_int_equal(path_kind(path), PATH_MISSING);
    assert_int_equal(entries(d), 1);
    assert_int_equal(table_close(t), 0);
    assert_int_equal(entries(d), 1);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);
    assert_true(st.st_size > (1 << 21));
    size_t len;
    char *text = tu_read(path, &len);
    assert_memory_equal(text, "name,value,note\nFunctional.conv2d.0.forward.input.0,0,\"seven, days\"\n", 68);
    const char *last = "Functional.conv2d.59999.forward.input.0,29999.5,\n";
    assert_memory_equal(text + len - strlen(last), last, strlen(last));
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    assert_int_equal(lines, 60001);
    free(text);
    free(path);
    free(d);
}

static void test_abort_and_open_failure(void **state)
{
    char *d = fresh_dir("abort");
    static const char *const header[] = {"a", "b"};
    for (int format = TABLE_CSV; format <= TABLE_XLSX; format++) {
        char *path = tu_path(d, format == TABLE_CSV ? "r.csv" : "r.xlsx");
        table_writer *t = table_open(path, format, header, 2);
        assert_non_null(t);
        for (int i = 0; i < 5000; i++) {
            cell row[2] = {cs("x"), cell_num(i)};
            assert_int_equal(table_row(t, row, i % 3), 0);
        }
        table_abort(t);
        assert_int_equal(entries(d), 0);
        free(path);
    }
    table_abort(NULL);

    /* no directory to write into: no writer, a message naming the file */
    for (int format = TABLE_CSV; format <= TABLE_XLSX; format++) {
        char *path = tu_path(d, "missing/r.out");
        err_clear();
        assert_null(table_open(path, format, header, 2));
        tu_assert_err(path, "cannot create output file");
        free(path);
    }
    assert_int_equal(entries(d), 0);
    free(d);
}

/* ---- xlsx --------------------------------------------------------------- */

typedef struct {
    mapped_file map;
    zip_archive zip;
} xlsx_file;

static void xlsx_open(xlsx_file *x, const char *path)
{
    err_clear();
    if (file_map(path, 0, &x->map) != 0 || zip_open(&x->zip, path, x->map.data, x->map.size) != 0)
        fail_msg("%s", err_message());
}

static void xlsx_close(xlsx_file *x)
{
    zip_close(&x->zip);
    file_unmap(&x->map);
}

/* A part of the package as a malloc'ed NUL-terminated text, or NULL. */
static char *xlsx_part(xlsx_file *x, const char *name)
{
    const zip_entry *e = zip_find(&x->zip, name, strlen(name));
    if (!e)
        return NULL;
    const unsigned char *data;
    size_t size;
    void *owned;
    assert_int_equal(zip_read(&x->zip, e, 0, &data, &size, &owned), 0);
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    free(owned);
    return text;
}

/* The XML of row r (1-based) of a sheet, malloc'ed, or NULL. */
static char *sheet_row(const char *sheet, long r)
{
    char tag[32];
    snprintf(tag, sizeof tag, "<row r=\"%ld\"", r);
    const char *p = strstr(sheet, tag);
    if (!p)
        return NULL;
    const char *end = strstr(p, "</row>");
    assert_non_null(end);
    return strndup(p, (size_t)(end - p));
}

/* The fill colour (ARGB) of cell style s, "" for none. */
static void style_fill(const char *styles, int s, char rgb[9])
{
    const char *p = strstr(styles, "<cellXfs");
    assert_non_null(p);
    for (int i = 0; i <= s; i++) {
        p = strstr(p + 1, "<xf ");
        assert_non_null(p);
    }
    const char *f = strstr(p, "fillId=\"");
    assert_non_null(f);
    int fill = atoi(f + 8);
    const char *q = strstr(styles, "<fills");
    assert_non_null(q);
    for (int i = 0; i <= fill; i++) {
        q = strstr(q + 1, "<fill>");
        assert_non_null(q);
    }
    const char *end = strstr(q, "</fill>");
    const char *c = strstr(q, "rgb=\"");
    rgb[0] = 0;
    if (c && c < end) {
        memcpy(rgb, c + 5, 8);
        rgb[8] = 0;
    }
}

/* Every cell of the row XML uses style s (0: no style attribute). */
static int row_style(const char *row)
{
    const char *c = strstr(row, "<c ");
    assert_non_null(c);
    const char *s = strstr(c, " s=\"");
    const char *close = strchr(c, '>');
    return s && s < close ? atoi(s + 4) : 0;
}

static void test_xlsx_cells_and_fills(void **state)
{
    char *d = fresh_dir("xlsx");
    char *path = tu_path(d, "result.xlsx");
    static const char *const header[] = {"NPU Name", "Max diff", "Err_message"};
    table_writer *t = table_open(path, TABLE_XLSX, header, 3);
    assert_non_null(t);
    /* a cell of exactly its length, no terminator after it */
    char *exact = malloc(5);
    memcpy(exact, "exact", 5);
    const cell rows[][3] = {
        {cs("plain"), cell_num(1.5), cs("a<b & \"c\"")},
        {cs("red row"), cell_num(NAN), empty_cell},
        {cs("yellow row"), cell_num(-INFINITY), cs("\xe4\xb8\xad\xe6\x96\x87")},
        {cell_str(exact, 5), cell_num(INFINITY), cell_str("", 0)},
        {empty_cell, cell_num(-0.25), cell_num(1e300)},
    };
    static const int fills[] = {FILL_NONE, FILL_RED, FILL_YELLOW, FILL_NONE, FILL_RED};
    for (int i = 0; i < 5; i++)
        assert_int_equal(table_row(t, rows[i], fills[i]), 0);
    free(exact);
    assert_int_equal(path_kind(path), PATH_MISSING);
    assert_int_equal(table_close(t), 0);
    assert_int_equal(entries(d), 1);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);

    xlsx_file x;
    xlsx_open(&x, path);
    char *wb = xlsx_part(&x, "xl/workbook.xml");
    char *sheet = xlsx_part(&x, "xl/worksheets/sheet1.xml");
    char *styles = xlsx_part(&x, "xl/styles.xml");
    assert_non_null(wb);
    assert_non_null(sheet);
    assert_non_null(styles);
    assert_null(xlsx_part(&x, "xl/worksheets/sheet2.xml"));
    assert_non_null(strstr(wb, "<sheet name=\"Sheet\" sheetId=\"1\""));
    assert_null(strstr(wb, "<sheet name=\"Sheet2\""));

    char *r = sheet_row(sheet, 1);
    assert_non_null(strstr(r, "<c r=\"A1\" t=\"inlineStr\"><is><t>NPU Name</t></is></c>"));
    assert_non_null(strstr(r, "<t>Max diff</t>"));
    assert_non_null(strstr(r, "<c r=\"C1\" t=\"inlineStr\"><is><t>Err_message</t></is></c>"));
    assert_int_equal(row_style(r), 0);
    free(r);

    r = sheet_row(sheet, 2);
    assert_non_null(strstr(r, "<t>plain</t>"));
    assert_non_null(strstr(r, "<c r=\"B2\"><v>1.5</v></c>"));
    assert_non_null(strstr(r, "<t>a&lt;b &amp; \"c\"</t>"));
    assert_int_equal(row_style(r), 0);
    free(r);

    char rgb[9];
    r = sheet_row(sheet, 3);
    int red = row_style(r);
    assert_true(red > 0);
    style_fill(styles, red, rgb);
    assert_string_equal(rgb, "FFFF0000");
    assert_non_null(strstr(r, "<t>red row</t>"));
    assert_non_null(strstr(r, "<t>nan</t>"));
    /* an empty cell of a filled row is still painted */
    char want[64];
    snprintf(want, sizeof want, "<c r=\"C3\" s=\"%d\"/>", red);
    assert_non_null(strstr(r, want));
    free(r);

    r = sheet_row(sheet, 4);
    int yellow = row_style(r);
    assert_true(yellow > 0 && yellow != red);
    style_fill(styles, yellow, rgb);
    assert_string_equal(rgb, "FFFFFF00");
    assert_non_null(strstr(r, "<t>-inf</t>"));
    assert_non_null(strstr(r, "<t>\xe4\xb8\xad\xe6\x96\x87</t>"));
    snprintf(want, sizeof want, "<c r=\"A4\" s=\"%d\"", yellow);
    assert_non_null(strstr(r, want));
    free(r);

    r = sheet_row(sheet, 5);
    assert_int_equal(row_style(r), 0);
    assert_non_null(strstr(r, "<c r=\"A5\" t=\"inlineStr\"><is><t>exact</t></is></c>"));
    assert_non_null(strstr(r, "<t>inf</t>"));
    /* an empty string in an unfilled row writes no cell */
    assert_null(strstr(r, "C5"));
    free(r);

    r = sheet_row(sheet, 6);
    assert_int_equal(row_style(r), red);
    assert_non_null(strstr(r, "<c r=\"A6\" s="));
    assert_non_null(strstr(r, "<v>-0.25</v>"));
    assert_non_null(strstr(r, "<v>1E+300</v>"));
    free(r);
    assert_null(sheet_row(sheet, 7));
    assert_non_null(strstr(sheet, "<dimension ref=\"A1:C6\"/>"));

    free(wb);
    free(sheet);
    free(styles);
    xlsx_close(&x);
    free(path);
    free(d);
}

/* Excel counts a cell's length in UTF-16 units and refuses more than
 * 32767: longer texts are cut at a character boundary. */
/* Control characters (a JSON name may hold them as \u0001 escapes) are not
 * allowed in XML: libxlsxwriter writes Excel's _xHHHH_ escapes, which Excel
 * and openpyxl read back as the character, so the workbook stays valid.
 * (msprobe 8.1.0 stops there instead: openpyxl refuses to write them.) */
static void test_xlsx_control_characters(void **state)
{
    char *d = fresh_dir("xlsx_ctrl");
    char *path = tu_path(d, "ctrl.xlsx");
    static const char *const header[] = {"NPU Name"};
    table_writer *t = table_open(path, TABLE_XLSX, header, 1);
    cell row[1] = {cell_str("a\001b\037c\td\ne\x7f", 11)};
    assert_int_equal(table_row(t, row, FILL_NONE), 0);
    assert_int_equal(table_close(t), 0);
    xlsx_file x;
    xlsx_open(&x, path);
    char *sheet = xlsx_part(&x, "xl/worksheets/sheet1.xml");
    for (const char *p = sheet; *p; p++)
        if ((unsigned char)*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')
            fail_msg("raw control character 0x%02x in the sheet XML", *p);
    char *r = sheet_row(sheet, 2);
    assert_non_null(strstr(r, "<t>a_x0001_b_x001F_c\td\ne\x7f</t>"));
    free(r);
    free(sheet);
    xlsx_close(&x);
    free(path);
    free(d);
}

static void test_xlsx_long_cells(void **state)
{
    char *d = fresh_dir("xlsx_long");
    char *path = tu_path(d, "long.xlsx");
    static const char *const header[] = {"ascii", "emoji", "cjk"};
    size_t na = 40000, ne = 20000, nc = 40000;
    char *ascii = malloc(na), *emoji = malloc(ne * 4), *cjk = malloc(nc * 3);
    memset(ascii, 'a', na);
    for (size_t i = 0; i < ne; i++)
        memcpy(emoji + 4 * i, "\xf0\x9f\x98\x80", 4);
    for (size_t i = 0; i < nc; i++)
        memcpy(cjk + 3 * i, "\xe4\xb8\xad", 3);
    table_writer *t = table_open(path, TABLE_XLSX, header, 3);
    cell row[3] = {cell_str(ascii, na), cell_str(emoji, ne * 4), cell_str(cjk, nc * 3)};
    assert_int_equal(table_row(t, row, FILL_NONE), 0);
    /* just under the limit: kept whole */
    cell row2[3] = {cell_str(ascii, 32767), cell_str(emoji, 16383 * 4), cell_str(cjk, 32767 * 3)};
    assert_int_equal(table_row(t, row2, FILL_NONE), 0);
    assert_int_equal(table_close(t), 0);

    xlsx_file x;
    xlsx_open(&x, path);
    char *sheet = xlsx_part(&x, "xl/worksheets/sheet1.xml");
    for (long r = 2; r <= 3; r++) {
        char *xml = sheet_row(sheet, r);
        assert_non_null(xml);
        const char *p = xml;
        static const size_t want_bytes[] = {32767, 16383 * 4, 32767 * 3};
        for (int c = 0; c < 3; c++) {
            p = strstr(p, "<t>");
            assert_non_null(p);
            p += 3;
            const char *end = strstr(p, "</t>");
            assert_int_equal((size_t)(end - p), want_bytes[c]);
            p = end;
        }
        free(xml);
    }
    free(sheet);
    xlsx_close(&x);
    free(ascii);
    free(emoji);
    free(cjk);
    free(path);
    free(d);
}

/* Past 1,048,576 rows (header included) the table continues on "Sheet2",
 * which repeats the header. Unfilled empty rows cost libxlsxwriter
 * nothing, so this stays fast; only the rows around the break hold data. */
static void test_xlsx_second_sheet(void **state)
{
    char *d = fresh_dir("xlsx_sheets");
    char *path = tu_path(d, "many.xlsx");
    static const char *const header[] = {"index", "text"};
    table_writer *t = table_open(path, TABLE_XLSX, header, 2);
    const long total = XLSX_MAX_ROWS + 2;
    for (long i = 0; i < total; i++) {
        int marked = i < 2 || (i >= XLSX_MAX_ROWS - 3 && i < XLSX_MAX_ROWS) || i >= total - 3;
        cell row[2] = {marked ? cell_num((double)i) : empty_cell, empty_cell};
        assert_int_equal(table_row(t, row, i == total - 1 ? FILL_YELLOW : FILL_NONE), 0);
    }
    assert_int_equal(table_close(t), 0);

    xlsx_file x;
    xlsx_open(&x, path);
    char *wb = xlsx_part(&x, "xl/workbook.xml");
    assert_non_null(strstr(wb, "<sheet name=\"Sheet\" sheetId=\"1\""));
    assert_non_null(strstr(wb, "<sheet name=\"Sheet2\" sheetId=\"2\""));
    assert_null(strstr(wb, "Sheet3"));
    char *s1 = xlsx_part(&x, "xl/worksheets/sheet1.xml"), *s2 = xlsx_part(&x, "xl/worksheets/sheet2.xml");
    assert_non_null(s1);
    assert_non_null(s2);

    /* sheet 1: header + data rows 0 .. 1048574 */
    char *r = sheet_row(s1, 2);
    assert_non_null(strstr(r, "<v>0</v>"));
    free(r);
    r = sheet_row(s1, XLSX_MAX_ROWS);
    assert_non_null(r);
    assert_non_null(strstr(r, "<c r=\"A1048576\"><v>1048574</v></c>"));
    free(r);
    /* sheet 2: the header again, then data rows 1048575 .. */
    r = sheet_row(s2, 1);
    assert_non_null(strstr(r, "<t>index</t>"));
    assert_non_null(strstr(r, "<t>text</t>"));
    free(r);
    r = sheet_row(s2, 2);
    assert_non_null(strstr(r, "<c r=\"A2\"><v>1048575</v></c>"));
    free(r);
    r = sheet_row(s2, 4);
    assert_non_null(strstr(r, "<v>1048577</v>"));
    assert_true(row_style(r) > 0);
    free(r);
    assert_null(sheet_row(s2, 5));
    free(wb);
    free(s1);
    free(s2);
    xlsx_close(&x);
    free(path);
    free(d);
}

/* The one place result names take their extension from, and the --format
 * choices: each name a user types is its format's extension. */
static void test_formats_and_extensions(void **state)
{
    (void)state;
    assert_string_equal(table_ext(TABLE_CSV), "csv");
    assert_string_equal(table_ext(TABLE_XLSX), "xlsx");
    assert_null(table_ext(-1));
    assert_null(table_ext(TABLE_XLSX + 1));
    size_t n = 0;
    for (const opt_choice *c = table_formats; c->name; c++, n++) {
        assert_null(c->refusal);
        assert_string_equal(table_ext(c->value), c->name);
    }
    assert_int_equal(n, 2);
    /* xlsx first: msprobe 8.1.0's format, the default where there is one */
    assert_string_equal(table_formats[0].name, "xlsx");
    assert_string_equal(table_formats[1].name, "csv");
    /* a longer list starts with the same two */
    static const opt_choice more[] = {TABLE_FORMAT_CHOICES, {"json", 2, NULL}, {NULL, 0, NULL}};
    for (int i = 0; i < 2; i++) {
        assert_string_equal(more[i].name, table_formats[i].name);
        assert_int_equal(more[i].value, table_formats[i].value);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_quoting),
        cmocka_unit_test(test_csv_numbers),
        cmocka_unit_test(test_csv_preformatted),
        cmocka_unit_test(test_csv_large_and_atomic),
        cmocka_unit_test(test_abort_and_open_failure),
        cmocka_unit_test(test_xlsx_cells_and_fills),
        cmocka_unit_test(test_xlsx_control_characters),
        cmocka_unit_test(test_xlsx_long_cells),
        cmocka_unit_test(test_xlsx_second_sheet),
        cmocka_unit_test(test_formats_and_extensions),
    };
    return cmocka_run_group_tests(tests, tu_dir_setup, tu_dir_teardown);
}
