/* xlsx workbooks (format/xlsx_read.h): the package, the workbook and its
 * relationships, shared strings, then every sheet streamed row by row and
 * read as a table. */
#include "tests/fuzz/fuzz.h"

#include "format/xlsx_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int on_row(void *ctx, size_t row, const xcell *cells, size_t n)
{
    size_t *count = ctx;
    for (size_t i = 0; i < n; i++)
        if ((cells[i].kind == XC_STR || cells[i].kind == XC_ERROR) && cells[i].str[cells[i].len] != 0) {
            fprintf(stderr, "fz_xlsx: a string cell not NUL-terminated\n");
            abort();
        }
    *count += n + row * 0;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    fz_write("book.xlsx", data, size);
    char *path = fz_path("book.xlsx");
    xlsx_book *b = xlsx_open(path);
    fz_done(b ? 0 : -1);
    if (b) {
        size_t n = xlsx_sheet_count(b);
        for (size_t i = 0; i < n && i < 8; i++) {
            const char *name = xlsx_sheet_name(b, i);
            if (xlsx_sheet_find(b, name) < 0) {
                fprintf(stderr, "fz_xlsx: sheet '%s' not found by its name\n", name);
                abort();
            }
            size_t cells = 0;
            fz_done(xlsx_read_rows(b, i, on_row, &cells));
            xlsx_table t;
            int rc = xlsx_read_table(b, i, &t);
            fz_done(rc);
            if (rc == 0)
                xlsx_table_free(&t);
        }
        xlsx_close(b);
    }
    free(path);
    return 0;
}
