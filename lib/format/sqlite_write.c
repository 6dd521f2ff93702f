/* SQLite output (sqlite_write.h). */
#include "format/sqlite_write.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/strbuf.h"

#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(sqlw *w, const char *what)
{
    int code = w->db ? sqlite3_errcode(w->db) : SQLITE_CANTOPEN;
    const char *msg = w->db ? sqlite3_errmsg(w->db) : "cannot open";
    /* a full disk, a read-only place, I/O: the output's fault; else ours */
    int cause = code == SQLITE_FULL || code == SQLITE_IOERR || code == SQLITE_CANTOPEN || code == SQLITE_READONLY ||
                        code == SQLITE_PERM || code == SQLITE_NOTADB || code == SQLITE_CORRUPT
                    ? ERR_OUTPUT
                    : ERR_INTERNAL;
    return err_set(cause, w->name, "SQLite: %s: %s", what, msg);
}

int sqlw_open(sqlw *w, const char *path, const char *name)
{
    memset(w, 0, sizeof *w);
    w->name = name;
    if (sqlite3_open_v2(path, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        int rc = fail(w, "cannot open the database");
        sqlite3_close(w->db);
        w->db = NULL;
        return rc;
    }
    sqlite3_extended_result_codes(w->db, 0);
    /* private until renamed into place: no journal, no syncs; a 64 MB page
     * cache holds the B-tree pages being appended to */
    return sqlw_exec(w, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE; "
                        "PRAGMA temp_store=MEMORY; PRAGMA cache_size=-65536");
}

int sqlw_close(sqlw *w)
{
    int rc = 0;
    if (w->db && w->in_tx)
        rc = sqlw_commit(w);
    if (w->db && sqlite3_close(w->db) != SQLITE_OK && rc == 0)
        rc = fail(w, "cannot close the database");
    w->db = NULL;
    return rc;
}

int sqlw_exec(sqlw *w, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(w->db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return 0;
    sqlite3_free(msg);
    return fail(w, sql);
}

int sqlw_execf(sqlw *w, const char *fmt, ...)
{
    strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    char tmp[2];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap2);
    va_end(ap2);
    sb_grow(&sb, (size_t)n + 1);
    vsnprintf(sb.buf, (size_t)n + 1, fmt, ap);
    sb.len = (size_t)n;
    va_end(ap);
    int rc = sqlw_exec(w, sb.buf);
    sb_free(&sb);
    return rc;
}

int sqlw_prepare(sqlw *w, const char *sql, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v2(w->db, sql, -1, st, NULL) == SQLITE_OK)
        return 0;
    *st = NULL;
    return fail(w, sql);
}

int sqlw_step(sqlw *w, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : fail(w, sqlite3_sql(st));
}

int sqlw_begin(sqlw *w)
{
    if (sqlw_exec(w, "BEGIN") != 0)
        return -1;
    w->in_tx = 1;
    return 0;
}

int sqlw_commit(sqlw *w)
{
    w->in_tx = 0;
    return sqlw_exec(w, "COMMIT");
}

int sqlw_commit_begin(sqlw *w) { return sqlw_commit(w) != 0 ? -1 : sqlw_begin(w); }

static char *insert_sql(const char *head, int ncols, int rows)
{
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, head);
    sb_adds(&sb, " VALUES ");
    for (int r = 0; r < rows; r++) {
        sb_adds(&sb, r ? ",(" : "(");
        for (int c = 0; c < ncols; c++)
            sb_adds(&sb, c ? ",?" : "?");
        sb_addc(&sb, ')');
    }
    return sb_detach(&sb);
}

int sqlw_batch_init(sqlw_batch *b, sqlw *w, const char *head, int ncols)
{
    memset(b, 0, sizeof *b);
    b->w = w;
    b->ncols = ncols;
    b->vals = xcalloc((size_t)SQLW_ROWS * (size_t)ncols, sizeof *b->vals);
    char *many = insert_sql(head, ncols, SQLW_ROWS), *one = insert_sql(head, ncols, 1);
    int rc = sqlw_prepare(w, many, &b->many) != 0 || sqlw_prepare(w, one, &b->one) != 0 ? -1 : 0;
    free(many);
    free(one);
    if (rc)
        sqlw_batch_free(b);
    return rc;
}

sqlw_value *sqlw_batch_row(sqlw_batch *b)
{
    sqlw_value *v = b->vals + (size_t)b->pending * (size_t)b->ncols;
    memset(v, 0, (size_t)b->ncols * sizeof *v);
    return v;
}

void sqlw_set_text(sqlw_batch *b, sqlw_value *v, const char *s, size_t n)
{
    if (b->text_len + n > b->text_cap) {
        b->text_cap = (b->text_len + n) * 2 + 256;
        b->text = xrealloc(b->text, b->text_cap);
    }
    memcpy(b->text + b->text_len, s, n);
    v->type = 3;
    v->u.t.off = b->text_len;
    v->u.t.len = n;
    b->text_len += n;
}

/* Bind rows [first, first + n) of the held ones to st, from parameter 1. */
static void bind_rows(sqlw_batch *b, sqlite3_stmt *st, int first, int n)
{
    int p = 1;
    const sqlw_value *v = b->vals + (size_t)first * (size_t)b->ncols;
    for (int i = 0; i < n * b->ncols; i++, v++, p++) {
        switch (v->type) {
        case 1: sqlite3_bind_int64(st, p, v->u.i); break;
        case 2: sqlite3_bind_double(st, p, v->u.d); break;
        case 3: sqlite3_bind_text(st, p, b->text + v->u.t.off, (int)v->u.t.len, SQLITE_STATIC); break;
        default: sqlite3_bind_null(st, p); break;
        }
    }
}

int sqlw_batch_end_row(sqlw_batch *b)
{
    if (++b->pending < SQLW_ROWS)
        return 0;
    bind_rows(b, b->many, 0, SQLW_ROWS);
    b->pending = 0;
    b->text_len = 0;
    b->rows += SQLW_ROWS;
    return sqlw_step(b->w, b->many);
}

int sqlw_batch_flush(sqlw_batch *b)
{
    int rc = 0;
    for (int r = 0; r < b->pending && rc == 0; r++) {
        bind_rows(b, b->one, r, 1);
        rc = sqlw_step(b->w, b->one);
    }
    b->rows += (uint64_t)b->pending;
    b->pending = 0;
    b->text_len = 0;
    return rc;
}

void sqlw_batch_free(sqlw_batch *b)
{
    sqlite3_finalize(b->many);
    sqlite3_finalize(b->one);
    free(b->vals);
    free(b->text);
    memset(b, 0, sizeof *b);
}

int sqlw_identifier_ok(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return 1;
}
