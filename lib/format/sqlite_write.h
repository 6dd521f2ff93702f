/* Writing SQLite databases through libsqlite3: a database built from
 * scratch in a file the caller created (a temporary output, renamed into
 * place by the caller once complete), with prepared statements and
 * bulk inserts. Every failure is recorded (ERR_OUTPUT, or
 * ERR_INTERNAL for a statement SQLite refuses) naming the final file.
 *
 * The file is private until committed, so durability is traded for speed:
 * no rollback journal, no syncs (a crash leaves only a temporary file,
 * which is never renamed). One connection per database, used by one
 * thread at a time. */
#ifndef MSP_SQLITE_WRITE_H
#define MSP_SQLITE_WRITE_H

#include <stddef.h>
#include <stdint.h>

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;

typedef struct sqlw_source sqlw_source;

typedef struct {
    sqlite3 *db;
    const char *name;     /* the final name, for messages */
    int in_tx;
    sqlw_source *src;     /* the rows a batch hands to SQLite (see below) */
} sqlw;

/* Open the (empty) file `path` as a new database; `name` must outlive w. */
int sqlw_open(sqlw *w, const char *path, const char *name);
/* Commit what is pending and close; 0 or -1. Safe after a failure. */
int sqlw_close(sqlw *w);

/* Run SQL without results (several statements allowed). */
int sqlw_exec(sqlw *w, const char *sql);
int sqlw_execf(sqlw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int sqlw_prepare(sqlw *w, const char *sql, sqlite3_stmt **st);
/* Step a statement that returns no row, then reset it (bindings kept). */
int sqlw_step(sqlw *w, sqlite3_stmt *st);

/* Transactions: one open at a time; sqlw_commit_begin ends the current one
 * and opens the next (a batch boundary). */
int sqlw_begin(sqlw *w);
int sqlw_commit(sqlw *w);
int sqlw_commit_begin(sqlw *w);

/* Bulk inserts: rows are held here, SQLW_ROWS at a time, and handed to
 * SQLite as the rows of a virtual table over that memory, by one prepared
 * "INSERT OR IGNORE INTO table SELECT c0, c1, ... FROM msprobe_rows" per
 * batch: SQLite reads each value straight from the row (no per-value bind
 * call, no statement per row), a third faster than multi-row VALUES. Rows
 * are inserted in the order they were added, so the first of two
 * conflicting rows wins, as with single inserts. */
enum { SQLW_ROWS = 2048, SQLW_MAX_COLS = 32 };
typedef struct {
    int type;             /* 0 null, 1 integer, 2 real, 3 text (offset into the batch's text) */
    union {
        int64_t i;
        double d;
        struct {
            size_t off, len;
        } t;
    } u;
} sqlw_value;

typedef struct {
    sqlw *w;
    sqlite3_stmt *insert;
    int ncols;
    int pending;          /* rows held in `vals` */
    sqlw_value *vals;     /* SQLW_ROWS * ncols */
    char *text;           /* the text values of the held rows */
    size_t text_len, text_cap;
    uint64_t rows;        /* rows handed to SQLite */
} sqlw_batch;

/* `head` is "INSERT OR IGNORE INTO t" (or with a column list); ncols at
 * most SQLW_MAX_COLS. */
int sqlw_batch_init(sqlw_batch *b, sqlw *w, const char *head, int ncols);
/* The next row: sqlw_batch_row gives its ncols values to fill (all NULL
 * to begin with), sqlw_batch_end_row hands it over. */
sqlw_value *sqlw_batch_row(sqlw_batch *b);
static inline void sqlw_set_int(sqlw_value *v, int64_t i) { v->type = 1; v->u.i = i; }
/* NaN stays NULL, as SQLite stores a NaN anyway. */
static inline void sqlw_set_double(sqlw_value *v, double d) { if (d == d) { v->type = 2; v->u.d = d; } }
void sqlw_set_text(sqlw_batch *b, sqlw_value *v, const char *s, size_t n);
int sqlw_batch_end_row(sqlw_batch *b);
/* Insert nrows rows the caller holds (ncols values each, in the batch's
 * layout; no text values), after the rows held so far: no copy at all. */
int sqlw_batch_insert(sqlw_batch *b, const sqlw_value *vals, size_t nrows);
/* Insert the rows held so far. */
int sqlw_batch_flush(sqlw_batch *b);
void sqlw_batch_free(sqlw_batch *b);

/* An identifier we write into SQL text unquoted: [A-Za-z0-9_]+ only
 * (msprobe checks its table and column names the same way). */
int sqlw_identifier_ok(const char *s);

#endif
