/* `config_check -c BENCH.zip CMP.zip`: run the six checkers on two packs
 * and write result.xlsx (or one csv per sheet) -- spec/configcheck.md §A.5. */
#include "config_check/cc.h"
#include "config_check/pack.h"
#include "base/err.h"
#include "base/files.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/outdir.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*checker)(cc_ctx *c, cc_sheet *out);

/* msprobe's registration order. */
static const checker checkers[] = {check_env, check_pip, check_dataset, check_weights, check_hyper, check_random};
enum { NCHECKERS = sizeof checkers / sizeof checkers[0] };

static const char *const summary_header[] = {"filename", "pass_check"};

/* The result names: result.xlsx, or result_<sheet>.csv for every sheet.
 * An existing result is replaced, as msprobe replaces it (8.1.0 deletes
 * the whole output directory first; we replace only our files). */
static char *result_name(const char *dir, int fmt, const char *sheet)
{
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "result");
    if (fmt == TABLE_CSV)
        sb_addf(&sb, "_%s", sheet);
    sb_addf(&sb, ".%s", table_ext(fmt));
    char *p = path_join(dir, sb_str(&sb));
    sb_free(&sb);
    return p;
}

static int write_sheet(table_writer **t, const char *path, int fmt, int first, const cc_sheet *s, unsigned flags)
{
    if (first || fmt == TABLE_CSV) {
        *t = table_open_opts(path, fmt, s->name, s->header, s->ncols, flags);
        if (!*t)
            return -1;
    } else if (table_next_sheet(*t, s->name, s->header, s->ncols) != 0) {
        return -1;
    }
    for (size_t r = 0; r < s->nrows; r++)
        if (table_row(*t, s->cells + r * (size_t)s->ncols, FILL_NONE) != 0)
            return -1;
    return 0;
}

/* Write the summary and the sheets; every file committed is remembered by
 * the run, so that a failure takes them back. */
static int write_results(const cc_opts *o, const cc_sheet *sheets, size_t ns, out_run *run, strbuf *shown)
{
    /* the summary sheet first, then the checkers' sheets */
    cc_sheet summary;
    sheet_init(&summary, "summary", summary_header, 2);
    for (size_t i = 0; i < ns; i++) {
        cell row[2] = {cell_str(sheets[i].name, strlen(sheets[i].name)), cell_bool(sheets[i].pass)};
        sheet_row(&summary, row);
    }
    int rc = 0;
    table_writer *t = NULL;
    for (size_t i = 0; i <= ns && rc == 0; i++) {
        const cc_sheet *s = i == 0 ? &summary : &sheets[i - 1];
        char *path = result_name(o->out, o->format, s->name);
        rc = out_check_replaceable(path) == 0 ? write_sheet(&t, path, o->format, i == 0, s, TABLE_PANDAS_HEADER) : -1;
        if (rc == 0 && (o->format == TABLE_CSV || i == ns)) {
            rc = table_close_replace(t, run, "result");
            t = NULL;
            if (rc == 0 && (!shown->len || o->format == TABLE_XLSX))
                sb_adds(shown, path);
        }
        free(path);
    }
    if (t)
        table_abort(t);
    sheet_free(&summary);
    return rc;
}

int cc_compare_packs(const cc_opts *o, const char *bench_path, const char *cmp_path)
{
    /* an output that cannot be written is found before the packs are read */
    out_run *run = out_run_new();
    char *first = result_name(o->out, o->format, "summary"), *checked = out_named(run, first, "", OUT_REPLACES, 0);
    int ready = checked != NULL;
    free(first);
    free(checked);
    pack bench, cmp;
    if (ready && pack_open(&bench, bench_path) != 0)
        ready = 0;
    if (ready && pack_open(&cmp, cmp_path) != 0) {
        pack_close(&bench);
        ready = 0;
    }
    if (!ready) {
        out_run_abandon(run);
        return -1;
    }
    arena a;
    arena_init(&a, 256 * 1024);
    cc_ctx ctx = {&bench, &cmp, &a, o->framework};
    cc_sheet sheets[NCHECKERS];
    size_t ns = 0;
    int rc = 0;
    for (size_t i = 0; i < NCHECKERS && rc == 0; i++) {
        memset(&sheets[ns], 0, sizeof sheets[ns]);
        int r = checkers[i](&ctx, &sheets[ns]);
        if (r < 0) {
            sheet_free(&sheets[ns]); /* what it filled before failing */
            rc = -1;
        }
        else if (r > 0)
            ns++;
    }
    /* the packs are read: a file changed meanwhile shows here, and is the
     * error to report (it explains any other) */
    if (pack_close(&cmp) != 0)
        rc = -1;
    if (pack_close(&bench) != 0)
        rc = -1;
    strbuf shown = STRBUF_INIT;
    if (rc == 0)
        rc = out_run_mkdir(run, o->out);
    if (rc == 0)
        rc = write_results(o, sheets, ns, run, &shown);
    if (rc != 0) {
        err_record e;
        err_take(&e);
        out_run_rollback(run);
        err_restore(&e);
    } else {
        strbuf line = STRBUF_INIT;
        for (size_t i = 0; i < ns; i++)
            sb_addf(&line, "%s%s %s (%zu rows)", i ? ", " : "", sheets[i].name, sheets[i].pass ? "pass" : "FAIL",
                    sheets[i].nrows);
        if (!ns)
            sb_adds(&line, "nothing to compare (no checker's entries are in both packs)");
        log_info("%s -> %s%s", sb_str(&line), sb_str(&shown), o->format == TABLE_CSV ? " ..." : "");
        sb_free(&line);
    }
    for (size_t i = 0; i < ns; i++)
        sheet_free(&sheets[i]);
    sb_free(&shown);
    out_run_free(run);
    arena_free(&a);
    return rc;
}
