/* xlsx reader: workbooks written by our table writer (inline strings,
 * several sheets, continuation sheets), hand-made packages covering what
 * Excel and openpyxl write (shared strings with rich text and phonetic
 * runs, every cell type, prefixed names, relative and absolute targets,
 * entities, CDATA, line-end normalisation, sparse rows and cells), msprobe's
 * own result files checked against openpyxl's reading of them (the
 * *.derived.csv beside each one in ../shared/corpus; skipped when that
 * directory is absent), and clean errors for malformed packages, including
 * a file truncated at many lengths. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "format/csv_read.h"
#include "base/files.h"
#include "base/log.h"
#include "base/err.h"
#include "format/zip_write.h"
#include "base/strbuf.h"
#include "model/table.h"
#include "testutil.h"
#include "format/xlsx_read.h"
#include "format/zip.h"

#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static cell cs(const char *s) { return cell_str(s, strlen(s)); }

static xlsx_book *open_ok(const char *path)
{
    err_clear();
    xlsx_book *b = xlsx_open(path);
    if (!b)
        print_error("%s\n", err_message());
    assert_non_null(b);
    return b;
}

static void expect_str(const xlsx_row *r, size_t col, const char *want)
{
    assert_true(col < r->ncells);
    if (r->cells[col].kind != XC_STR || strcmp(r->cells[col].str, want))
        print_error("cell %zu: kind %d '%s', expected '%s'\n", col, r->cells[col].kind,
                    r->cells[col].str ? r->cells[col].str : "", want);
    assert_int_equal(r->cells[col].kind, XC_STR);
    assert_int_equal(r->cells[col].len, strlen(want));
    assert_string_equal(r->cells[col].str, want);
}

static void expect_num(const xlsx_row *r, size_t col, double want, int is_int)
{
    assert_true(col < r->ncells);
    assert_int_equal(r->cells[col].kind, XC_NUM);
    assert_true(r->cells[col].num == want);
    assert_int_equal(r->cells[col].is_int, is_int);
}

static void expect_empty(const xlsx_row *r, size_t col)
{
    assert_true(col >= r->ncells || r->cells[col].kind == XC_EMPTY);
}

/* ---- our own writer ------------------------------------------------------ */

static void test_reads_table_writer_output(void **state)
{
    char *path = tu_path(tu_dir, "ours.xlsx");
    static const char *const header[] = {"NPU Name", "value", "text", "empty"};
    table_writer *t = table_open(path, TABLE_XLSX, header, 4);
    assert_non_null(t);
    static const char tricky[] = "a&b <c> \"q\" 'a' \t tab\nline \xc3\xa9\xe4\xb8\xad \xf0\x9f\x98\x80";
    cell rows[][4] = {
        {cs("Functional.linear.0.forward.input.0"), cell_num(1.5), cs(tricky), {CELL_EMPTY, 0, NULL, 0}},
        {cs("  spaces  "), cell_num(-0.000123456789012345), cs("nan\t"), cs("")},
        {cs("=1+1"), cell_num(42), cs("N/A"), {CELL_EMPTY, 0, NULL, 0}},
        {cs("x"), cell_num(1e300), cs("1.5"), cell_num(NAN)},
    };
    for (int i = 0; i < 4; i++)
        assert_int_equal(table_row(t, rows[i], i == 1 ? FILL_RED : FILL_NONE), 0);
    assert_int_equal(table_close(t), 0);

    xlsx_book *b = open_ok(path);
    assert_int_equal(xlsx_sheet_count(b), 1);
    assert_string_equal(xlsx_sheet_name(b, 0), "Sheet");
    assert_int_equal(xlsx_sheet_find(b, "Sheet"), 0);
    assert_int_equal(xlsx_sheet_find(b, "Other"), -1);
    xlsx_table tab;
    assert_int_equal(xlsx_read_table(b, 0, &tab), 0);
    assert_int_equal(tab.nrows, 5);
    for (int c = 0; c < 4; c++)
        expect_str(&tab.rows[0], (size_t)c, header[c]);
    expect_str(&tab.rows[1], 0, "Functional.linear.0.forward.input.0");
    expect_num(&tab.rows[1], 1, 1.5, 0);
    expect_str(&tab.rows[1], 2, tricky);
    expect_empty(&tab.rows[1], 3);
    expect_str(&tab.rows[2], 0, "  spaces  ");
    expect_num(&tab.rows[2], 1, -0.000123456789012345, 0);
    expect_str(&tab.rows[2], 2, "nan\t");
    /* an empty string is written as no cell at all */
    expect_empty(&tab.rows[2], 3);
    expect_str(&tab.rows[3], 0, "=1+1");
    expect_num(&tab.rows[3], 1, 42, 1);
    expect_num(&tab.rows[4], 1, 1e300, 0);
    expect_str(&tab.rows[4], 2, "1.5");
    expect_str(&tab.rows[4], 3, "nan");
    xlsx_table_free(&tab);
    xlsx_close(b);
    free(path);
}

static void test_multi_sheet_workbook(void **state)
{
    char *path = tu_path(tu_dir, "sheets.xlsx");
    static const char *const h1[] = {"NPU Name", "rank0"};
    static const char *const h2[] = {"NPU Name", "rank0", "rank1"};
    table_writer *t = table_open_sheet(path, TABLE_XLSX, "Max diff", h1, 2);
    assert_non_null(t);
    cell r1[] = {cs("a.0"), cell_num(1)};
    assert_int_equal(table_row(t, r1, FILL_NONE), 0);
    assert_int_equal(table_next_sheet(t, "L2norm diff", h2, 3), 0);
    cell r2[] = {cs("b.0"), cs("NPU:1  Bench:2"), cell_num(0.25)};
    assert_int_equal(table_row(t, r2, FILL_NONE), 0);
    assert_int_equal(table_row(t, r2, FILL_NONE), 0);
    /* names Excel refuses, and duplicates, are errors */
    err_clear();
    assert_int_equal(table_next_sheet(t, "bad/name", h1, 2), -1);
    table_abort(t);
    assert_int_equal(path_kind(path), PATH_MISSING);

    t = table_open_sheet(path, TABLE_XLSX, "Max diff", h1, 2);
    assert_int_equal(table_row(t, r1, FILL_NONE), 0);
    assert_int_equal(table_next_sheet(t, "L2norm diff", h2, 3), 0);
    assert_int_equal(table_row(t, r2, FILL_NONE), 0);
    assert_int_equal(table_close(t), 0);
    xlsx_book *b = open_ok(path);
    assert_int_equal(xlsx_sheet_count(b), 2);
    assert_string_equal(xlsx_sheet_name(b, 0), "Max diff");
    assert_string_equal(xlsx_sheet_name(b, 1), "L2norm diff");
    xlsx_table tab;
    assert_int_equal(xlsx_read_table(b, 1, &tab), 0);
    assert_int_equal(tab.nrows, 2);
    assert_int_equal(tab.rows[0].ncells, 3);
    expect_str(&tab.rows[0], 2, "rank1");
    expect_str(&tab.rows[1], 1, "NPU:1  Bench:2");
    expect_num(&tab.rows[1], 2, 0.25, 0);
    xlsx_table_free(&tab);
    err_clear();
    assert_int_equal(xlsx_read_table(b, 2, &tab), -1);
    tu_assert_err("sheets.xlsx", "no sheet 3");
    xlsx_close(b);

    /* csv tables have one sheet */
    char *csv = tu_path(tu_dir, "one.csv");
    t = table_open_sheet(csv, TABLE_CSV, "x", h1, 2);
    assert_non_null(t);
    err_clear();
    assert_int_equal(table_next_sheet(t, "y", h1, 2), -1);
    table_abort(t);
    free(csv);
    free(path);
}

/* ---- hand-made packages --------------------------------------------------- */

typedef struct {
    const char *name, *text;
} part;

static const char content_types[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Types xmlns=\"http://schemas.openxmlformats.org/package/2006/"
    "content-types\"/>";
static const char pkg_rels[] =
    "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\"><Relationship Id=\"rId1\" "
    "Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument\" "
    "Target=\"xl/workbook.xml\"/></Relationships>";
static const char wb_rels[] =
    "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
    "<Relationship Id=\"rId1\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet\" "
    "Target=\"worksheets/sheet1.xml\"/>"
    "<Relationship Id=\"rId2\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet\" "
    "Target=\"/xl/worksheets/../worksheets/./sheet2.xml\"/>"
    "<Relationship Id=\"rId3\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
    "sharedStrings\" Target=\"sharedStrings.xml\"/></Relationships>";
static const char workbook[] =
    "<?xml version=\"1.0\"?>\r\n<x:workbook xmlns:x=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" "
    "xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\"><x:sheets>"
    "<x:sheet name=\"Data &amp; more\" sheetId=\"1\" r:id=\"rId1\"/><x:sheet name='Second' sheetId='2' r:id='rId2'/>"
    "</x:sheets></x:workbook>";
static const char shared[] =
    "<sst xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" count=\"4\" uniqueCount=\"4\">"
    "<si><t>plain</t></si>"
    "<si><r><rPr><b/></rPr><t>rich </t></r><r><t xml:space=\"preserve\">text </t></r>"
    "<rPh sb=\"0\" eb=\"1\"><t>PHONETIC</t></rPh></si>"
    "<si><t>a_x005F_x000D_b &#x4e2d;&#20013; &lt;&gt;&quot;&apos;&amp;</t></si>"
    "<si><t/></si></sst>";
static const char sheet1[] =
    "<worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\"><dimension ref=\"A1:F9\"/>"
    "<sheetData>"
    "<row r=\"1\"><c r=\"A1\" t=\"s\"><v>0</v></c><c r=\"B1\" t=\"s\"><v> 1 </v></c><c r=\"C1\" t=\"s\"><v>2</v></c>"
    "<c r=\"D1\" t=\"s\"><v>3</v></c></row>"
    "<row r=\"2\"><c r=\"A2\"><v>7</v></c><c r=\"B2\" t=\"n\"><v>2.50</v></c><c r=\"C2\"><v>-1E-3</v></c>"
    "<c r=\"D2\"><v>12345678901234567890</v></c><c r=\"E2\" s=\"1\"/><c r=\"F2\"><v></v></c></row>"
    "<row r=\"4\"><c r=\"B4\" t=\"b\"><v>1</v></c><c r=\"C4\" t=\"b\"><v>0</v></c><c r=\"D4\" t=\"e\"><v>#N/A</v></c>"
    "<c r=\"E4\" t=\"str\"><f>A1&amp;\"x\"</f><v>cached</v></c><c r=\"F4\"><f>1+1</f><v>2</v></c></row>"
    "<row><c t=\"inlineStr\"><is><t>no refs</t></is></c><c t=\"inlineStr\"/><c t=\"inlineStr\"><is><t></t></is></c>"
    "<c t=\"d\"><v>2024-01-01T00:00:00</v></c></row>"
    "<row r=\"7\"><c r=\"A7\" t=\"inlineStr\"><is><r><t>in</t></r><r><t>line</t></r></is></c>"
    "<c r=\"C7\" t=\"inlineStr\"><is><t><![CDATA[<raw> & ]]>text</t></is></c>"
    "<c r=\"D7\" t=\"inlineStr\"><v>ignored</v><is><t>crlf\r\nand\rcr</t></is></c>"
    "<c r=\"E7\" t=\"str\"><v>a_x000D_b</v></c></row>"
    "</sheetData><!-- a comment --><pageMargins left=\"0.7\"/></worksheet>";
static const char sheet2[] =
    "<worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\"><sheetData/></worksheet>";

static char *write_package(const char *name, const part *parts, size_t n, int method)
{
    char *path = tu_path(tu_dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    zip_writer w;
    zip_writer_init(&w, zip_sink_stdio, f);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(zip_writer_add(&w, parts[i].name, parts[i].text, strlen(parts[i].text), method), 0);
    assert_int_equal(zip_writer_finish(&w), 0);
    zip_writer_free(&w);
    assert_int_equal(fclose(f), 0);
    return path;
}

static const part good_parts[] = {
    {"[Content_Types].xml", content_types}, {"_rels/.rels", pkg_rels},
    {"xl/workbook.xml", workbook},          {"xl/_rels/workbook.xml.rels", wb_rels},
    {"xl/sharedStrings.xml", shared},       {"xl/worksheets/sheet1.xml", sheet1},
    {"xl/worksheets/sheet2.xml", sheet2},
};
#define NPARTS (sizeof good_parts / sizeof good_parts[0])

static void check_handmade(const char *path)
{
    xlsx_book *b = open_ok(path);
    assert_int_equal(xlsx_sheet_count(b), 2);
    assert_string_equal(xlsx_sheet_name(b, 0), "Data & more");
    assert_string_equal(xlsx_sheet_name(b, 1), "Second");
    xlsx_table t;
    assert_int_equal(xlsx_read_table(b, 0, &t), 0);
    assert_int_equal(t.nrows, 7);
    expect_str(&t.rows[0], 0, "plain");
    expect_str(&t.rows[0], 1, "rich text ");
    /* openpyxl drops "x005F_" from shared strings and keeps other escapes */
    expect_str(&t.rows[0], 2, "a_x000D_b \xe4\xb8\xad\xe4\xb8\xad <>\"'&");
    expect_str(&t.rows[0], 3, "");
    expect_num(&t.rows[1], 0, 7, 1);
    expect_num(&t.rows[1], 1, 2.5, 0);
    expect_num(&t.rows[1], 2, -1e-3, 0);
    expect_num(&t.rows[1], 3, 12345678901234567890.0, 1);
    expect_empty(&t.rows[1], 4);
    expect_empty(&t.rows[1], 5);
    assert_int_equal(t.rows[2].ncells, 0);   /* row 3 is not in the file */
    expect_empty(&t.rows[3], 0);
    assert_int_equal(t.rows[3].cells[1].kind, XC_BOOL);
    assert_true(t.rows[3].cells[1].num == 1);
    assert_int_equal(t.rows[3].cells[2].kind, XC_BOOL);
    assert_true(t.rows[3].cells[2].num == 0);
    assert_int_equal(t.rows[3].cells[3].kind, XC_ERROR);
    assert_string_equal(t.rows[3].cells[3].str, "#N/A");
    expect_str(&t.rows[3], 4, "cached");
    expect_num(&t.rows[3], 5, 2, 1);
    /* a row without r follows the previous one; cells without r too */
    expect_str(&t.rows[4], 0, "no refs");
    expect_empty(&t.rows[4], 1);
    expect_str(&t.rows[4], 2, "");
    expect_str(&t.rows[4], 3, "2024-01-01T00:00:00");
    assert_int_equal(t.rows[5].ncells, 0);
    expect_str(&t.rows[6], 0, "inline");
    expect_empty(&t.rows[6], 1);
    expect_str(&t.rows[6], 2, "<raw> & text");
    expect_str(&t.rows[6], 3, "crlf\nand\ncr");
    expect_str(&t.rows[6], 4, "a_x000D_b");
    xlsx_table_free(&t);
    assert_int_equal(xlsx_read_table(b, 1, &t), 0);
    assert_int_equal(t.nrows, 0);
    xlsx_table_free(&t);
    xlsx_close(b);
}

static void test_handmade_packages(void **state)
{
    char *stored = write_package("stored.xlsx", good_parts, NPARTS, 0);
    char *deflated = write_package("deflated.xlsx", good_parts, NPARTS, 8);
    check_handmade(stored);
    check_handmade(deflated);
    free(stored);
    free(deflated);
}

/* A row callback may stop the walk. */
static int stop_at_second(void *ctx, size_t row, const xcell *cells, size_t n)
{
    int *seen = ctx;
    return ++*seen == 2 ? 7 : 0;
}

static void test_callback_stops(void **state)
{
    char *path = write_package("stop.xlsx", good_parts, NPARTS, 8);
    xlsx_book *b = open_ok(path);
    int seen = 0;
    assert_int_equal(xlsx_read_rows(b, 0, stop_at_second, &seen), 7);
    assert_int_equal(seen, 2);
    xlsx_close(b);
    free(path);
}

/* A long sheet streams through a window far smaller than the part. */
static int count_rows(void *ctx, size_t row, const xcell *cells, size_t n)
{
    size_t *count = ctx;
    assert_int_equal(row, *count);
    assert_int_equal(n, 3);
    assert_int_equal(cells[0].kind, XC_STR);
    if (row > 0) {
        assert_true(cells[1].kind == XC_NUM && cells[1].num == (double)row);
        assert_int_equal(cells[2].len, 300);
    }
    (*count)++;
    return 0;
}

static void test_big_sheet_streams(void **state)
{
    char *path = tu_path(tu_dir, "big.xlsx");
    static const char *const header[] = {"name", "n", "pad"};
    table_writer *t = table_open(path, TABLE_XLSX, header, 3);
    char pad[301];
    memset(pad, 'p', 300);
    pad[300] = 0;
    for (int i = 1; i < 20000; i++) {
        char name[32];
        snprintf(name, sizeof name, "row %d &amp; <x>", i);
        cell r[] = {cs(name), cell_num(i), cs(pad)};
        assert_int_equal(table_row(t, r, FILL_NONE), 0);
    }
    assert_int_equal(table_close(t), 0);
    xlsx_book *b = open_ok(path);
    size_t count = 0;
    assert_int_equal(xlsx_read_rows(b, 0, count_rows, &count), 0);
    assert_int_equal(count, 20000);
    xlsx_close(b);
    free(path);
}

/* ---- malformed files -------------------------------------------------------- */

static void expect_open_fails(const char *path, const char *what)
{
    err_clear();
    xlsx_book *b = xlsx_open(path);
    if (b) {
        /* some damage only shows when the sheet is read */
        xlsx_table t;
        int rc = xlsx_read_table(b, 0, &t);
        xlsx_close(b);
        if (rc == 0) {
            xlsx_table_free(&t);
            print_error("accepted: %s\n", path);
            fail();
        }
    }
    tu_assert_err(what);
}

static char *with_part(const char *name, const char *part_name, const char *text, int method)
{
    part parts[NPARTS];
    memcpy(parts, good_parts, sizeof parts);
    for (size_t i = 0; i < NPARTS; i++)
        if (!strcmp(parts[i].name, part_name))
            parts[i].text = text;
    return write_package(name, parts, NPARTS, method);
}

static void test_malformed_packages(void **state)
{
    static const struct {
        const char *part, *text, *what;
    } cases[] = {
        {"xl/worksheets/sheet1.xml", "<worksheet><sheetData><row><c><v>1</v></row></sheetData></worksheet>",
         "</row> closes <c>"},
        {"xl/worksheets/sheet1.xml", "<worksheet><sheetData><row><c><v>1</v></c>", "ends inside <row>"},
        {"xl/worksheets/sheet1.xml", "<worksheet><sheetData><row><c t=\"s\"><v>9</v></c></row></sheetData></worksheet>",
         "shared string '9' does not exist (4 strings)"},
        {"xl/worksheets/sheet1.xml", "<worksheet><sheetData><row><c><v>1x</v></c></row></sheetData></worksheet>",
         "a number cell holds '1x'"},
        {"xl/worksheets/sheet1.xml", "<worksheet><sheetData><row><c t=\"b\"><v>yes</v></c></row></sheetData></worksheet>",
         "a boolean cell holds 'yes'"},
        {"xl/worksheets/sheet1.xml", "<worksheet><sheetData><row><c r=\"a1\"/></row></sheetData></worksheet>",
         "a bad cell reference 'a1'"},
        {"xl/worksheets/sheet1.xml", "<worksheet><sheetData><row><c r=\"XFE1\"/></row></sheetData></worksheet>",
         "a bad cell reference 'XFE1'"},
        {"xl/worksheets/sheet1.xml", "<worksheet><sheetData><row r=\"0\"/></sheetData></worksheet>",
         "a bad row number '0'"},
        {"xl/worksheets/sheet1.xml", "<worksheet><sheetData><row r=\"1048577\"/></sheetData></worksheet>",
         "a bad row number"},
        {"xl/worksheets/sheet1.xml", "<worksheet><sheetData><row><c t=\"inlineStr\"><is><t>a &bogus; b</t></is></c>"
                                     "</row></sheetData></worksheet>",
         "an unknown entity '&bogus;'"},
        {"xl/worksheets/sheet1.xml", "<worksheet><sheetData><row><c t=\"inlineStr\"><is><t>&#0;</t></is></c>"
                                     "</row></sheetData></worksheet>",
         "invalid character"},
        {"xl/worksheets/sheet1.xml", "<worksheet><sheetData><row><c t=\"inlineStr\"><is><t>a & b</t></is></c>"
                                     "</row></sheetData></worksheet>",
         "an '&' that starts no entity"},
        {"xl/worksheets/sheet1.xml", "<!DOCTYPE x [<!ENTITY a \"b\">]><worksheet/>", "DTD"},
        {"xl/worksheets/sheet1.xml", "<worksheet><sheetData><row><c r=A1/></row></sheetData></worksheet>",
         "unquoted attribute value"},
        {"xl/worksheets/sheet1.xml", "", "no XML element"},
        {"xl/worksheets/sheet1.xml", "<worksheet><sheetData><row><c <v>", "a '<' inside a tag"},
        {"xl/workbook.xml", "<workbook><sheets/></workbook>", "the workbook has no sheet"},
        {"xl/workbook.xml", "<workbook><sheets><sheet name=\"a\" r:id=\"rId9\"/></sheets></workbook>",
         "sheet a has no name or no relationship"},
        {"xl/_rels/workbook.xml.rels", "<Relationships><Relationship Id=\"rId1\"/></Relationships>",
         "a Relationship without Id or Target"},
        {"xl/sharedStrings.xml", "<sst><si><t>open</si></sst>", "</si> closes <t>"},
        {"xl/sharedStrings.xml", "<sst><si><t>a\xff</t></si></sst>", "invalid UTF-8 or a non-character in text"},
        {"xl/worksheets/sheet1.xml", "<worksheet><sheetData><row><c t=\"inlineStr\"><is><t>\xed\xa0\x80</t></is></c>"
                                     "</row></sheetData></worksheet>",
         "invalid UTF-8 or a non-character in text"},
        {"xl/worksheets/sheet1.xml", "<worksheet><sheetData><row><c t=\"inlineStr\"><is><t>&#xD800;</t></is></c>"
                                     "</row></sheetData></worksheet>",
         "invalid character"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int method = 0; method <= 8; method += 8) {
            char name[32];
            snprintf(name, sizeof name, "bad%zu_%d.xlsx", i, method);
            char *path = with_part(name, cases[i].part, cases[i].text, method);
            expect_open_fails(path, cases[i].what);
            tu_assert_err(name, "malformed xlsx");
            free(path);
        }
    }
    /* no workbook at all */
    part only[] = {{"[Content_Types].xml", content_types}};
    char *path = write_package("nowb.xlsx", only, 1, 8);
    expect_open_fails(path, "no workbook part xl/workbook.xml");
    free(path);
}

static void test_not_a_package(void **state)
{
    char *empty = tu_write(tu_dir, "empty.xlsx", "", 0);
    expect_open_fails(empty, "the file is empty");
    char *text = tu_write(tu_dir, "text.xlsx", "NPU Name,rank0\n", (size_t)-1);
    expect_open_fails(text, "not a zip package");
    char *missing = tu_path(tu_dir, "missing.xlsx");
    err_clear();
    assert_null(xlsx_open(missing));
    tu_assert_err("missing.xlsx");
    free(empty);
    free(text);
    free(missing);
}

/* Cut a real workbook at many lengths, and damage its deflate data. */
static void test_truncated_and_corrupt(void **state)
{
    char *path = write_package("whole.xlsx", good_parts, NPARTS, 8);
    size_t n;
    char *data = tu_read(path, &n);
    int failures = 0;
    for (size_t len = 0; len < n; len += len < 64 ? 1 : 37) {
        char *cut = tu_write(tu_dir, "cut.xlsx", data, len);
        expect_open_fails(cut, "malformed xlsx");
        failures++;
        free(cut);
    }
    assert_true(failures > 50);
    /* flip bytes inside the deflated sheet: CRC, size or deflate errors */
    const char *at = memmem(data, n, "xl/worksheets/sheet1.xml", 24);
    assert_non_null(at);
    size_t off = (size_t)(at - data) + 24 + 40;
    for (int k = 0; k < 8; k++)
        data[off + (size_t)k] ^= 0x5A;
    char *bad = tu_write(tu_dir, "corrupt.xlsx", data, n);
    expect_open_fails(bad, "xl/worksheets/sheet1.xml");
    free(bad);
    free(data);
    free(path);
}

/* ---- msprobe's own files ------------------------------------------------------ */

typedef struct {
    char **cells;   /* row-major, ncols per row */
    size_t nrows, ncols, cap;
} csv_table;

static int keep_csv(void *ctx, size_t row, const csv_field *f, size_t n)
{
    csv_table *t = ctx;
    if (row == 0)
        t->ncols = n;
    if (n != t->ncols)
        return -1;
    if ((t->nrows + 1) * n > t->cap) {
        t->cap = 2 * (t->nrows + 1) * n;
        t->cells = realloc(t->cells, t->cap * sizeof *t->cells);
        assert_non_null(t->cells);
    }
    for (size_t i = 0; i < n; i++)
        t->cells[t->nrows * n + i] = strdup(f[i].s);
    t->nrows++;
    return 0;
}

/* Each xlsx cell against openpyxl's reading in the derived csv (numbers
 * compared as values, the last column is the row fill, not a cell). */
static int check_against_derived(const char *xlsx, const char *derived)
{
    mapped_file f;
    assert_int_equal(file_map(derived, 0, &f), 0);
    csv_table want = {0};
    assert_int_equal(csv_read(derived, f.data, f.size, keep_csv, &want), 0);
    file_unmap(&f);
    xlsx_book *b = open_ok(xlsx);
    xlsx_table got;
    assert_int_equal(xlsx_read_table(b, 0, &got), 0);
    int bad = 0;
    assert_int_equal(got.nrows, want.nrows);
    for (size_t r = 0; r < want.nrows; r++) {
        for (size_t c = 0; c + 1 < want.ncols; c++) {
            const char *w = want.cells[r * want.ncols + c];
            const xcell *x = c < got.rows[r].ncells ? &got.rows[r].cells[c] : NULL;
            int ok;
            if (!x || x->kind == XC_EMPTY)
                ok = !*w;
            else if (x->kind == XC_NUM)
                ok = strtod(w, NULL) == x->num;
            else
                ok = x->kind == XC_STR && !strcmp(w, x->str);
            if (!ok && bad++ < 5)
                print_error("%s row %zu col %zu: '%s' vs kind %d\n", xlsx, r, c, w, x ? x->kind : -1);
        }
    }
    for (size_t i = 0; i < want.nrows * want.ncols; i++)
        free(want.cells[i]);
    free(want.cells);
    xlsx_table_free(&got);
    xlsx_close(b);
    return bad;
}

static void test_msprobe_corpus(void **state)
{
    glob_t g;
    int rc = glob("../shared/corpus/*/expected/*/*/*/*.xlsx.derived.csv", 0, NULL, &g);
    if (rc != 0) {
        print_message("skipped: ../shared/corpus is not there\n");
        skip();
    }
    int bad = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char *xlsx = strdup(g.gl_pathv[i]);
        xlsx[strlen(xlsx) - strlen(".derived.csv")] = 0;
        bad += check_against_derived(xlsx, g.gl_pathv[i]);
        free(xlsx);
    }
    print_message("%zu msprobe workbooks read like openpyxl reads them\n", g.gl_pathc);
    assert_true(g.gl_pathc >= 10);
    globfree(&g);
    assert_int_equal(bad, 0);
}

int main(void)
{
    log_set_prog("test_xlsx_read");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_table_writer_output),
        cmocka_unit_test(test_multi_sheet_workbook),
        cmocka_unit_test(test_handmade_packages),
        cmocka_unit_test(test_callback_stops),
        cmocka_unit_test(test_big_sheet_streams),
        cmocka_unit_test(test_malformed_packages),
        cmocka_unit_test(test_not_a_package),
        cmocka_unit_test(test_truncated_and_corrupt),
        cmocka_unit_test(test_msprobe_corpus),
    };
    return cmocka_run_group_tests(tests, tu_dir_setup, tu_dir_teardown);
}
