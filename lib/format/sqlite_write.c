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

/* ---- msprobe_rows: the rows of the current batch as a virtual table ---- */

struct sqlw_source {
    const sqlw_value *vals;
    const char *text;
    int ncols;
    size_t nrows;
};

typedef struct {
    sqlite3_vtab base;
    sqlw_source *src;
} rows_vtab;

typedef struct {
    sqlite3_vtab_cursor base;
    size_t row;
} rows_cursor;

static int rows_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "CREATE TABLE x(");
    for (int i = 0; i < SQLW_MAX_COLS; i++)
        sb_addf(&sb, "%sc%d", i ? ", " : "", i);
    sb_addc(&sb, ')');
    int rc = sqlite3_declare_vtab(db, sb_str(&sb));
    sb_free(&sb);
    if (rc != SQLITE_OK)
        return rc;
    rows_vtab *t = sqlite3_malloc(sizeof *t);
    if (!t)
        return SQLITE_NOMEM;
    memset(t, 0, sizeof *t);
    t->src = aux;
    *out = &t->base;
    return SQLITE_OK;
}

static int rows_best_index(sqlite3_vtab *t, sqlite3_index_info *info)
{
    info->estimatedCost = (double)((rows_vtab *)t)->src->nrows + 1;
    info->estimatedRows = (sqlite3_int64)((rows_vtab *)t)->src->nrows;
    return SQLITE_OK;
}

static int rows_disconnect(sqlite3_vtab *t)
{
    sqlite3_free(t);
    return SQLITE_OK;
}

static int rows_open(sqlite3_vtab *t, sqlite3_vtab_cursor **out)
{
    rows_cursor *c = sqlite3_malloc(sizeof *c);
    if (!c)
        return SQLITE_NOMEM;
    memset(c, 0, sizeof *c);
    *out = &c->base;
    return SQLITE_OK;
}

static int rows_close(sqlite3_vtab_cursor *c)
{
    sqlite3_free(c);
    return SQLITE_OK;
}

static int rows_filter(sqlite3_vtab_cursor *c, int idx, const char *s, int argc, sqlite3_value **argv)
{
    ((rows_cursor *)c)->row = 0;
    return SQLITE_OK;
}

static int rows_next(sqlite3_vtab_cursor *c)
{
    ((rows_cursor *)c)->row++;
    return SQLITE_OK;
}

static int rows_eof(sqlite3_vtab_cursor *c)
{
    return ((rows_cursor *)c)->row >= ((rows_vtab *)c->pVtab)->src->nrows;
}

static int rows_column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int col)
{
    const sqlw_source *s = ((rows_vtab *)c->pVtab)->src;
    if (col >= s->ncols) {
        sqlite3_result_null(ctx);
        return SQLITE_OK;
    }
    const sqlw_value *v = s->vals + ((rows_cursor *)c)->row * (size_t)s->ncols + (size_t)col;
    switch (v->type) {
    case 1: sqlite3_result_int64(ctx, v->u.i); break;
    case 2: sqlite3_result_double(ctx, v->u.d); break;
    case 3: sqlite3_result_text(ctx, s->text + v->u.t.off, (int)v->u.t.len, SQLITE_STATIC); break;
    default: sqlite3_result_null(ctx); break;
    }
    return SQLITE_OK;
}

static int rows_rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *id)
{
    *id = (sqlite3_int64)((rows_cursor *)c)->row;
    return SQLITE_OK;
}

/* eponymous-only (no xCreate), read-only */
static const sqlite3_module rows_module = {
    .iVersion = 0,
    .xConnect = rows_connect,
    .xBestIndex = rows_best_index,
    .xDisconnect = rows_disconnect,
    .xOpen = rows_open,
    .xClose = rows_close,
    .xFilter = rows_filter,
    .xNext = rows_next,
    .xEof = rows_eof,
    .xColumn = rows_column,
    .xRowid = rows_rowid,
};

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
    w->src = xcalloc(1, sizeof *w->src);
    if (sqlite3_create_module(w->db, "msprobe_rows", &rows_module, w->src) != SQLITE_OK)
        return fail(w, "cannot register the rows of inserts");
    /* private until renamed into place: no journal, no syncs; a 16 MB page
     * cache holds the B-tree pages being appended to (tables filled in key
     * order touch few pages at a time; a bigger cache only held more of a
     * big database in memory, to no gain measured) */
    return sqlw_exec(w, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE; "
                        "PRAGMA temp_store=MEMORY; PRAGMA cache_size=-16384");
}

int sqlw_close(sqlw *w)
{
    int rc = 0;
    if (w->db && w->in_tx)
        rc = sqlw_commit(w);
    if (w->db && sqlite3_close(w->db) != SQLITE_OK && rc == 0)
        rc = fail(w, "cannot close the database");
    w->db = NULL;
    free(w->src);
    w->src = NULL;
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

int sqlw_batch_init(sqlw_batch *b, sqlw *w, const char *head, int ncols)
{
    memset(b, 0, sizeof *b);
    if (ncols < 1 || ncols > SQLW_MAX_COLS)
        return err_internal(w->name, "a batch of %d columns", ncols);
    b->w = w;
    b->ncols = ncols;
    b->vals = xcalloc((size_t)SQLW_ROWS * (size_t)ncols, sizeof *b->vals);
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, head);
    sb_adds(&sb, " SELECT ");
    for (int c = 0; c < ncols; c++)
        sb_addf(&sb, "%sc%d", c ? ", " : "", c);
    sb_adds(&sb, " FROM msprobe_rows");
    int rc = sqlw_prepare(w, sb_str(&sb), &b->insert);
    sb_free(&sb);
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

int sqlw_batch_end_row(sqlw_batch *b)
{
    return ++b->pending < SQLW_ROWS ? 0 : sqlw_batch_flush(b);
}

int sqlw_batch_flush(sqlw_batch *b)
{
    if (!b->pending)
        return 0;
    sqlw_source *s = b->w->src;
    *s = (sqlw_source){b->vals, b->text, b->ncols, (size_t)b->pending};
    int rc = sqlw_step(b->w, b->insert);
    *s = (sqlw_source){NULL, NULL, 0, 0};
    b->rows += (uint64_t)b->pending;
    b->pending = 0;
    b->text_len = 0;
    return rc;
}

int sqlw_batch_insert(sqlw_batch *b, const sqlw_value *vals, size_t nrows)
{
    if (sqlw_batch_flush(b) != 0)
        return -1;
    if (!nrows)
        return 0;
    sqlw_source *s = b->w->src;
    *s = (sqlw_source){vals, NULL, b->ncols, nrows};
    int rc = sqlw_step(b->w, b->insert);
    *s = (sqlw_source){NULL, NULL, 0, 0};
    b->rows += nrows;
    return rc;
}

void sqlw_batch_free(sqlw_batch *b)
{
    sqlite3_finalize(b->insert);
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
