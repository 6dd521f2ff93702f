/* Reading the cells of xlsx workbooks: those msprobe writes (openpyxl:
 * inline strings), those we write (libxlsxwriter, constant-memory mode:
 * inline strings too) and Excel's (shared strings, rich text runs).
 *
 * What a cell reads as follows openpyxl 3.0.9 in data_only mode, i.e. what
 * pandas.read_excel sees in msprobe:
 *   - t="n" (or no t): a number; `is_int` when its text has no '.', 'e' or
 *     'E' (openpyxl gives an int then); number formats are not applied
 *     (a date-formatted number stays a number);
 *   - t="s": the shared string; t="inlineStr": the <is> text; rich text is
 *     the concatenation of its runs, phonetic runs (<rPh>) left out; in
 *     shared strings the text "x005F_" is removed, as openpyxl does; other
 *     _xHHHH_ escapes are kept as written;
 *   - t="str" (a formula's cached string), t="d" (ISO date text): a string;
 *   - t="b": a boolean; t="e": an error value such as "#N/A";
 *   - a formula gives its cached value, never the formula;
 *   - a cell without a value, or an inlineStr cell without <is>, is empty.
 *
 * The sheets are found the way Excel does: _rels/.rels names the workbook
 * part, its <sheets> give the order and names, its relationships the sheet
 * parts. Files must be smaller than XLSX_MAX_FILE_SIZE (msprobe's limit);
 * every part is inflated as a stream (see xmltok.h). Malformed files give
 * one error (err_input): "path: malformed xlsx: ...".
 *
 * A book may be read by one thread at a time; separate books share nothing.
 */
#ifndef MSP_XLSX_READ_H
#define MSP_XLSX_READ_H

#include <stddef.h>
#include <stdint.h>

#define XLSX_MAX_FILE_SIZE ((size_t)1 << 30)        /* refused from this size on */
#define XLSX_MAX_PART_SIZE ((uint64_t)1 << 36)      /* inflated bytes of one part */
#define XLSX_MAX_COLS 16384                          /* Excel's limits */
#define XLSX_MAX_ROW 1048576

enum xcell_kind { XC_EMPTY, XC_NUM, XC_STR, XC_BOOL, XC_ERROR };

typedef struct {
    unsigned char kind;     /* xcell_kind */
    unsigned char is_int;   /* XC_NUM written as an integer */
    double num;             /* XC_NUM; XC_BOOL: 0 or 1 */
    const char *str;        /* XC_STR, XC_ERROR: UTF-8, NUL-terminated */
    size_t len;
} xcell;

typedef struct xlsx_book xlsx_book;

/* Open and check the package, read the workbook, its relationships and the
 * shared strings. NULL on error (recorded). */
xlsx_book *xlsx_open(const char *path);
void xlsx_close(xlsx_book *b);

size_t xlsx_sheet_count(const xlsx_book *b);
const char *xlsx_sheet_name(const xlsx_book *b, size_t index);
/* Index of the sheet with this name, or -1. */
long xlsx_sheet_find(const xlsx_book *b, const char *name);

/* Streaming: fn is called for each <row> of sheet `index` in file order,
 * with its 0-based row number and its cells from column A to the last cell
 * present (gaps are XC_EMPTY). Pointers are valid during the call only.
 * A non-zero return from fn stops the walk and is returned. Rows that do
 * not appear in the file (no <row> element) are not reported. */
typedef int (*xlsx_row_fn)(void *ctx, size_t row, const xcell *cells, size_t ncells);
int xlsx_read_rows(xlsx_book *b, size_t index, xlsx_row_fn fn, void *ctx);

/* The whole sheet in memory: rows[r] for r < nrows (a missing row has
 * ncells == 0); strings are owned by the table. */
typedef struct {
    xcell *cells;
    size_t ncells;
} xlsx_row;

typedef struct {
    xlsx_row *rows;
    size_t nrows;
    void *mem;              /* private */
} xlsx_table;

int xlsx_read_table(xlsx_book *b, size_t index, xlsx_table *t);
void xlsx_table_free(xlsx_table *t);

#endif
