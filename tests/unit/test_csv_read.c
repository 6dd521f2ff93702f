/* csv reader: what Python's csv module reads from the text our table
 * writer produces (quoted commas, quotes and line breaks, empty fields,
 * "\r\n" rows, empty lines), its lenient cases, the one error (a quote left
 * open), and a round trip through csv_append_row. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "format/csv_read.h"
#include "base/log.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "model/table.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

/* Rows joined as "a|b|c" lines, quoted fields marked with a leading '^'. */
static int collect(void *ctx, size_t row, const csv_field *f, size_t n)
{
    strbuf *sb = ctx;
    for (size_t i = 0; i < n; i++) {
        if (i)
            sb_addc(sb, '|');
        if (f[i].quoted)
            sb_addc(sb, '^');
        assert_int_equal(strlen(f[i].s), f[i].len);
        sb_add(sb, f[i].s, f[i].len);
    }
    sb_addc(sb, '\n');
    return row == 99 ? 5 : 0;
}

static char *read_all(const char *text, int *rc)
{
    size_t n = strlen(text);
    char *buf = malloc(n ? n : 1);
    assert_non_null(buf);
    memcpy(buf, text, n);
    strbuf sb = STRBUF_INIT;
    err_clear();
    *rc = csv_read("t.csv", buf, n, collect, &sb);
    free(buf);
    return sb_detach(&sb);
}

static void test_fields(void **state)
{
    static const struct {
        const char *csv, *rows;
    } cases[] = {
        {"a,b,c\n1,,3\n", "a|b|c\n1||3\n"},
        {"\"x, y\",\"say \"\"hi\"\"\",\"two\nlines\"\n", "^x, y|^say \"hi\"|^two\nlines\n"},
        {"a,b\r\nc,d\r\n", "a|b\nc|d\n"},
        {"a\n\nb\n", "a\n\nb\n"},
        {"no newline at end", "no newline at end\n"},
        {"", ""},
        {",\n", "|\n"},
        {"a\"b,\"c\"d\n", "a\"b|^cd\n"},
        {"\"\"\n", "^\n"},
        {"nan\t,inf\n", "nan\t|inf\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc;
        char *got = read_all(cases[i].csv, &rc);
        assert_int_equal(rc, 0);
        assert_string_equal(got ? got : "", cases[i].rows);
        free(got);
    }
}

static void test_open_quote(void **state)
{
    int rc;
    free(read_all("a,b\n\"open,\nstill\n", &rc));
    assert_int_equal(rc, -1);
    tu_assert_err("t.csv: malformed csv: a quoted field of row 2 is never closed");
}

/* pandas decodes the whole file first: a byte that is not UTF-8 anywhere
 * refuses it; valid UTF-8 of every length is text. */
static void test_utf8(void **state)
{
    int rc;
    char *got = read_all("\xc3\xa9,\xe4\xb8\xad\n\"\xf0\x9f\x98\x80\"\n", &rc);
    assert_int_equal(rc, 0);
    assert_string_equal(got, "\xc3\xa9|\xe4\xb8\xad\n^\xf0\x9f\x98\x80\n");
    free(got);
    static const char *const bad[] = {"a,b\nc,\xff\n", "\"\xed\xa0\x80\"\n", "x,\xe4\xb8"};
    static const char *const at[] = {"at byte 6", "at byte 1", "at byte 2"};
    for (int i = 0; i < 3; i++) {
        free(read_all(bad[i], &rc));
        assert_int_equal(rc, -1);
        tu_assert_err("t.csv: malformed csv: invalid UTF-8", at[i]);
    }
}

static void test_callback_stops(void **state)
{
    strbuf text = STRBUF_INIT;
    for (int i = 0; i < 200; i++)
        sb_addf(&text, "%d\n", i);
    strbuf rows = STRBUF_INIT;
    assert_int_equal(csv_read("t.csv", text.buf, text.len, collect, &rows), 5);
    sb_free(&text);
    sb_free(&rows);
}

static void test_round_trip(void **state)
{
    static const char *const texts[] = {"plain", "a,b", "\"quoted\"", "line\nbreak", "cr\r\nlf", "", "tab\t", "é中"};
    cell cells[8];
    for (int i = 0; i < 8; i++)
        cells[i] = cell_str(texts[i], strlen(texts[i]));
    strbuf sb = STRBUF_INIT;
    csv_append_row(&sb, cells, 8);
    csv_append_row(&sb, cells, 8);
    strbuf rows = STRBUF_INIT;
    assert_int_equal(csv_read("t.csv", sb.buf, sb.len, collect, &rows), 0);
    strbuf want = STRBUF_INIT;
    for (int r = 0; r < 2; r++) {
        for (int i = 0; i < 8; i++) {
            if (i)
                sb_addc(&want, '|');
            if (strpbrk(texts[i], ",\"\r\n"))
                sb_addc(&want, '^');
            sb_adds(&want, texts[i]);
        }
        sb_addc(&want, '\n');
    }
    assert_string_equal(sb_str(&rows), sb_str(&want));
    sb_free(&sb);
    sb_free(&rows);
    sb_free(&want);
}

/* csv_read_fields: plain fields point into the buffer (no terminator),
 * quoted ones are copied; the same rows as csv_read; a byte that is not
 * UTF-8 is found at the end, after the rows were handed over. */
static int collect_len(void *ctx, size_t row, const csv_field *f, size_t n)
{
    strbuf *sb = ctx;
    for (size_t i = 0; i < n; i++) {
        if (i)
            sb_addc(sb, '|');
        sb_add(sb, f[i].s, f[i].len);
    }
    sb_addc(sb, '\n');
    return 0;
}

static void test_fields_in_place(void **state)
{
    static const char text[] = "alpha,\"b,\"\"c\"\"\",3.25\r\nlonger field here,x\ry,\n\nend";
    strbuf a = STRBUF_INIT, b = STRBUF_INIT;
    assert_int_equal(csv_read("t.csv", text, sizeof text - 1, collect_len, &a), 0);
    assert_int_equal(csv_read_fields("t.csv", text, sizeof text - 1, collect_len, &b), 0);
    assert_string_equal(sb_str(&a), sb_str(&b));
    assert_string_equal(sb_str(&b), "alpha|b,\"c\"|3.25\nlonger field here|x\ry|\n\nend\n");
    sb_free(&a);
    sb_free(&b);
    static const char bad[] = "a,b\nc,d\xff\ne,f\n";
    assert_int_equal(csv_read_fields("t.csv", bad, sizeof bad - 1, collect_len, &b), -1);
    tu_assert_err("t.csv: malformed csv: invalid UTF-8 at byte 7");
    assert_string_equal(sb_str(&b), "a|b\nc|d\xff\ne|f\n");
    sb_free(&b);
    static const char ok[] = "\xc3\xa9,\"\xe4\xb8\xad\"\n";
    assert_int_equal(csv_read_fields("t.csv", ok, sizeof ok - 1, collect_len, &b), 0);
    sb_free(&b);
}

int main(void)
{
    log_set_prog("test_csv_read");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_open_quote),
        cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_callback_stops),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_fields_in_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
