/* Result tables: a header and rows of cells, streamed to a csv or xlsx file
 * that appears under its final name only when complete.
 *
 * xlsx goes through libxlsxwriter in constant-memory mode (rows are written
 * as they come, cells as inline strings, like openpyxl writes them), one
 * sheet named "Sheet"; a table longer than Excel's 1,048,576 rows continues
 * on "Sheet2", "Sheet3", ... each with the header. Row fills are solid red
 * (FF0000) or yellow (FFFF00). csv uses the same cell texts: numbers as
 * "%.16g" (what openpyxl stores), strings quoted when they contain a comma,
 * a quote or a line break.
 */
#ifndef MSP_TABLE_H
#define MSP_TABLE_H

#include <stddef.h>

#include "base/opts_table.h"
#include "base/outdir.h"
#include "base/strbuf.h"

/* CELL_BOOL: a boolean cell (num 0 or 1), "True"/"False" in csv, as pandas writes bools.
 * CELL_PYNUM: a number written to csv as Python writes it -- repr() of the
 * float, or the text `str` when given (an int's digits) -- rather than
 * with %.16g; in xlsx a number like CELL_NUM. */
enum cell_kind { CELL_EMPTY, CELL_NUM, CELL_STR, CELL_BOOL, CELL_PYNUM };

typedef struct {
    unsigned char kind;   /* cell_kind */
    double num;           /* CELL_NUM */
    const char *str;      /* CELL_STR: UTF-8 */
    size_t len;
} cell;

enum table_format { TABLE_CSV, TABLE_XLSX };
enum row_fill { FILL_NONE, FILL_RED, FILL_YELLOW };

/* The file extension of a table format, without the dot: "csv" or "xlsx"
 * (NULL for anything else). Every result name takes it from here. */
const char *table_ext(int format);

/* The --format choices of every command that writes a result table, in the
 * order --help lists them: xlsx (msprobe 8.1.0's), then csv. A command
 * that offers more formats (config_check's json) starts its own list with
 * TABLE_FORMAT_CHOICES; the others use table_formats. The command turns the
 * choice into a table_format once and hands that value down. */
#define TABLE_FORMAT_CHOICES {"xlsx", TABLE_XLSX, NULL}, {"csv", TABLE_CSV, NULL}
extern const opt_choice table_formats[];

/* Excel's limits. */
#define XLSX_MAX_ROWS 1048576
#define XLSX_MAX_CELL_CHARS 32767

typedef struct table_writer table_writer;

table_writer *table_open(const char *path, int format, const char *const *header, int ncols);
/* Several tables in one xlsx workbook, one sheet each: table_open_sheet()
 * names the first sheet (NULL: "Sheet"), table_next_sheet() starts the
 * next one with its own header (kept by pointer, like table_open's). A table
 * longer than Excel's limit continues on NAME2, NAME3, ... Sheet names
 * must be valid and distinct in Excel's terms (at most 31 characters, none
 * of []:*?/\). A csv table has one sheet: table_next_sheet() fails. */
table_writer *table_open_sheet(const char *path, int format, const char *sheet, const char *const *header, int ncols);
int table_next_sheet(table_writer *t, const char *sheet, const char *const *header, int ncols);
/* Options of table_open_opts(). */
enum {
    /* xlsx header cells as pandas' to_excel writes them: bold, a thin
     * border all round, centred, aligned to the top */
    TABLE_PANDAS_HEADER = 1,
};
table_writer *table_open_opts(const char *path, int format, const char *sheet, const char *const *header, int ncols,
                              unsigned flags);
int table_row(table_writer *t, const cell *cells, int fill);
/* Where the table is being written until table_close() moves it into
 * place (its size tells how far a long close got). */
const char *table_partial_path(const table_writer *t);
/* Finish and move into place; frees t. */
int table_close(table_writer *t);
/* The same, never replacing a file: *path (the name given to table_open,
 * malloc'ed) becomes a later free name when it exists (out_commit_new()).
 * 0, 1 (committed under a later name) or -1. */
int table_close_new(table_writer *t, char **path);
/* The same for a name the user gave (out_named()): replaces what is there
 * with out_run_replace()'s warning, and is remembered by r (may be NULL);
 * `what` names the file in the warning ("result"). */
int table_close_replace(table_writer *t, out_run *r, const char *what);
/* Drop the partial output; frees t. */
void table_abort(table_writer *t);

/* csv text of one row, appended to sb: lets callers format rows on several
 * threads and hand the text over in order with table_append_csv(). */
void csv_append_row(strbuf *sb, const cell *cells, int ncols);
int table_append_csv(table_writer *t, const char *text, size_t n);

static inline cell cell_str(const char *s, size_t n) { cell c = {CELL_STR, 0, s, n}; return c; }
static inline cell cell_num(double x) { cell c = {CELL_NUM, x, 0, 0}; return c; }
static inline cell cell_bool(int b) { cell c = {CELL_BOOL, b ? 1 : 0, 0, 0}; return c; }
static inline cell cell_pynum(double x, const char *text, size_t n) { cell c = {CELL_PYNUM, x, text, n}; return c; }

#endif
