/* Reading csv text the way Python's csv module reads what our table writer
 * (and csv.writer with QUOTE_MINIMAL) writes: fields separated by commas,
 * rows ending in "\n" or "\r\n", a field in double quotes may hold commas,
 * line breaks and doubled quotes. Like Python's reader (strict=False) a
 * quote inside an unquoted field is kept as it is, and text after a closing
 * quote is appended; only a quoted field left open at the end of the input
 * is an error.
 *
 * The input is a buffer (a mapped file); rows are handed to a callback one
 * by one, so a big file is never held twice. Thread-safe.
 */
#ifndef MSP_CSV_READ_H
#define MSP_CSV_READ_H

#include <stddef.h>

typedef struct {
    const char *s;      /* field text, quotes removed; NUL-terminated */
    size_t len;
    int quoted;         /* the field was written in quotes */
} csv_field;

/* Called for each row (0-based), fields valid during the call only. A
 * non-zero return stops the walk and is returned. An empty line is a row
 * without fields (Python: []). */
typedef int (*csv_row_fn)(void *ctx, size_t row, const csv_field *fields, size_t n);

/* `path` is used in error messages. 0, the callback's value, or -1. */
int csv_read(const char *path, const void *buf, size_t len, csv_row_fn fn, void *ctx);

/* The same without copying: a field that was not quoted points into buf
 * itself and is NOT NUL-terminated (use len); quoted ones are copied and
 * terminated. For big files whose fields are mostly plain (monitor csv).
 * The UTF-8 check comes at the end (one pass less over the file), so the
 * callback may have seen rows of a file that is then refused (-1): the
 * caller drops what it made of them. */
int csv_read_fields(const char *path, const void *buf, size_t len, csv_row_fn fn, void *ctx);

#endif
