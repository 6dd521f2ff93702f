/* xlsx2csv FILE [SHEET]: the cells of every sheet of an xlsx (or only the
 * named one) as csv, the way openpyxl reads them: numbers as Python prints
 * them (ints without ".0", floats by repr), booleans True/False. Each sheet
 * starts with a line "## NAME". Used by the CLI tests to compare written
 * workbooks with golden text. */
#include "base/log.h"
#include "base/err.h"
#include "py/numfmt.h"
#include "base/strbuf.h"
#include "model/table.h"
#include "format/xlsx_read.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int print_row(void *ctx, size_t row, const xcell *cells, size_t n)
{
    size_t *next = ctx;
    for (; *next < row; (*next)++)
        putchar('\n');
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        const xcell *c = &cells[i];
        if (i)
            sb_addc(&sb, ',');
        if (c->kind == XC_NUM && c->is_int && fabs(c->num) < 1e300) {
            sb_addf(&sb, "%.0f", c->num);
        } else if (c->kind == XC_NUM) {
            char buf[NUMFMT_BUFSZ];
            sb_add(&sb, buf, fmt_pyrepr(c->num, buf));
        } else if (c->kind == XC_BOOL) {
            sb_adds(&sb, c->num ? "True" : "False");
        } else if (c->kind == XC_STR || c->kind == XC_ERROR) {
            cell x = cell_str(c->str, c->len);
            csv_append_row(&sb, &x, 1);
            sb.len--;   /* csv_append_row ends the row */
        }
    }
    fwrite(sb.buf ? sb.buf : "", 1, sb.len, stdout);
    putchar('\n');
    sb_free(&sb);
    *next = row + 1;
    return 0;
}

int main(int argc, char **argv)
{
    log_set_prog("xlsx2csv");
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: xlsx2csv FILE.xlsx [SHEET]\n");
        return 2;
    }
    xlsx_book *b = xlsx_open(argv[1]);
    if (!b)
        return err_report();
    int rc = 0;
    for (size_t i = 0; i < xlsx_sheet_count(b) && rc == 0; i++) {
        if (argc == 3 && strcmp(argv[2], xlsx_sheet_name(b, i)))
            continue;
        printf("## %s\n", xlsx_sheet_name(b, i));
        size_t next = 0;
        if (xlsx_read_rows(b, i, print_row, &next) != 0)
            rc = err_report();
    }
    xlsx_close(b);
    return rc;
}
