/* merge_result (spec/compare.md §8): find the per-rank results, check the
 * config, read the ranks in parallel, combine them in rank order the way
 * msprobe's result_process / df_merge do, write one sheet per index.
 *
 * Warnings are held back and printed only when the merge succeeds; a
 * failing run prints one error line (naming the reason the last rank was
 * skipped when nothing could be merged), writes nothing and exits 2. */
#include "base/files.h"
#include "base/outdir.h"
#include "base/log.h"
#include "base/err.h"
#include "base/mem.h"
#include "compare/merge/merge.h"
#include "base/pool.h"
#include "base/progress.h"
#include "py/pystr.h"
#include "base/strmap.h"
#include "model/table.h"
#include "format/yaml_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    strbuf text;     /* NUL-separated lines */
    size_t n;
} warnings;

static void warn(warnings *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(warnings *w, const char *fmt, ...)
{
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n > 0) {
        sb_grow(&w->text, (size_t)n + 1);
        vsnprintf(w->text.buf + w->text.len, (size_t)n + 1, fmt, again);
        w->text.len += (size_t)n;
    }
    va_end(again);
    sb_addc(&w->text, 0);
    w->n++;
}

static void warnings_print(const warnings *w)
{
    const char *p = w->text.buf;
    for (size_t i = 0; i < w->n; i++, p += strlen(p) + 1)
        log_warn("%s", p);
}

/* ---- finding the results -------------------------------------------------------- */

/* ^compare_result_rank(\d+)(?:-rank\1)?_\d{14}\.(xlsx|csv)$ → 1 with the
 * rank; ^compare_result_(rank|rank-rank)_\d{14}\. → 2 (a single-rank
 * result); anything else 0. */
static int result_name(const char *name, const char *ext, unsigned long long *rank)
{
    static const char prefix[] = "compare_result_";
    size_t plen = sizeof prefix - 1, elen = strlen(ext), n = strlen(name);
    if (n < plen + 1 + 14 + elen || strncmp(name, prefix, plen) || strcmp(name + n - elen, ext))
        return 0;
    const char *p = name + plen, *stamp = name + n - elen - 14;
    for (const char *q = stamp; q < name + n - elen; q++)
        if (*q < '0' || *q > '9')
            return 0;
    if (stamp[-1] != '_')
        return 0;
    size_t mid = (size_t)(stamp - 1 - p);   /* between "compare_result_" and "_stamp" */
    if ((mid == 4 && !strncmp(p, "rank", 4)) || (mid == 9 && !strncmp(p, "rank-rank", 9)))
        return 2;
    if (mid < 5 || strncmp(p, "rank", 4))
        return 0;
    const char *d = p + 4;
    size_t nd = strspn(d, "0123456789");
    if (!nd)
        return 0;
    if (mid != 4 + nd && !(mid == 4 + nd + 5 + nd && !strncmp(d + nd, "-rank", 5) && !strncmp(d + nd + 5, d, nd)))
        return 0;
    unsigned long long v = 0;
    for (size_t i = 0; i < nd; i++) {
        if (v > (~0ULL - 9) / 10)
            return 0;
        v = v * 10 + (unsigned long long)(d[i] - '0');
    }
    *rank = v;
    return 1;
}

static int by_rank(const void *a, const void *b)
{
    const merge_rank *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return strcmp(x->path, y->path);
}

static int find_results(const char *dir, merge_rank **out, size_t *nout, warnings *w)
{
    char **names;
    long n = dir_list(dir, &names);
    if (n < 0)
        return -1;
    merge_rank *r = xcalloc((size_t)n + 1, sizeof *r);
    size_t k = 0;
    int rc = 0;
    for (long i = 0; i < n && rc == 0; i++) {
        const char *ext = path_has_suffix(names[i], ".xlsx") ? ".xlsx"
                          : path_has_suffix(names[i], ".csv") && !strncmp(names[i], "compare_result", 14) ? ".csv"
                                                                                                            : NULL;
        if (!ext)
            continue;
        char *full = path_join(dir, names[i]);
        unsigned long long rank = 0;
        int kind = path_kind(full);
        int what = result_name(names[i], ext, &rank);
        if (kind == PATH_LINK)
            rc = err_input(full, "is a symbolic link, which is not allowed for safety");
        else if (kind != PATH_FILE)
            rc = err_input(full, "should be a file");
        else if (what == 0)
            rc = err_input(full, "Wrong compare result name: %s, please check! (expected "
                                 "compare_result_rank{N}_{timestamp}%s)", names[i], ext);
        else if (what == 2)
            warn(w, "%s: Single rank compare result do not need to be merged.", full);
        if (rc == 0 && what == 1) {
            r[k].path = full;
            r[k].rank = rank;
            k++;
        } else {
            free(full);
        }
    }
    names_free(names, n);
    qsort(r, k, sizeof *r, by_rank);
    for (size_t i = 1; i < k && rc == 0; i++)
        if (r[i].rank == r[i - 1].rank)
            rc = err_input(dir, "two compare results for rank%llu: %s and %s", r[i].rank, r[i - 1].path, r[i].path);
    if (rc == 0 && k < 2)
        rc = err_input(dir, "Number of compare result is no more than 1, no need to merge. (found %zu "
                            "compare_result_rank{N}_{timestamp}.xlsx)", k);
    if (rc) {
        for (size_t i = 0; i < k; i++)
            free(r[i].path);
        free(r);
        return -1;
    }
    *out = r;
    *nout = k;
    return 0;
}

/* ---- the config ---------------------------------------------------------------- */

typedef struct {
    arena a;
    merge_apis apis;
    const char *index[MERGE_MAX_INDEXES];   /* deduplicated, config order */
    size_t nindex;
} merge_config;

static const char *canonical_index(const char *s, size_t n)
{
    for (int mode = MM_SUMMARY; mode <= MM_ALL_NEW; mode++) {
        const char *const *names;
        size_t k = merge_mode_indexes(mode, &names);
        for (size_t i = 0; i < k; i++)
            if (strlen(names[i]) == n && !memcmp(names[i], s, n))
                return names[i];
    }
    return NULL;
}

/* msprobe's check_config(), with the item checks it leaves to a crash. */
static int load_config(const char *path, merge_config *c)
{
    memset(c, 0, sizeof *c);
    arena_init(&c->a, 4096);
    jval root;
    if (yaml_load_file(path, YAML_SUFFIX_YAML_OR_YML, &c->a, &root) != 0)
        return -1;
    if (!json_truthy(&root))
        return err_input(path, "the config is empty, please check.");
    if (root.type != J_OBJECT)
        return err_input(path, "the config must be a mapping with 'api' (a list of API names) and optionally "
                               "'compare_index'");
    const jval *api = json_get(&root, "api");
    if (!json_truthy(api))
        return err_input(path, "The APIs required to merge data were not found.");
    if (api->type != J_ARRAY)
        return err_input(path, "The config format of 'api' is incorrect, please check.");
    c->apis.n = api->len;
    c->apis.api = arena_alloc(&c->a, api->len * sizeof *c->apis.api);
    c->apis.len = arena_alloc(&c->a, api->len * sizeof *c->apis.len);
    for (uint32_t i = 0; i < api->len; i++) {
        const jval *v = &api->u.items[i];
        if (v->type != J_STRING || memchr(v->u.str, 0, v->len))
            return err_input(path, "The config format of 'api' is incorrect, please check. (item %u is not a "
                                   "string)", i + 1);
        c->apis.api[i] = v->u.str;
        c->apis.len[i] = v->len;
    }
    const jval *idx = json_get(&root, "compare_index");
    if (!idx || idx->type == J_NULL)
        return 0;
    if (idx->type != J_ARRAY)
        return err_input(path, "The config format of 'compare_index' is incorrect, please check.");
    for (uint32_t i = 0; i < idx->len; i++) {
        const jval *v = &idx->u.items[i];
        if (v->type != J_STRING)
            return err_input(path, "The config format of 'compare_index' is incorrect, please check. (item %u is "
                                   "not a string)", i + 1);
        const char *name = canonical_index(v->u.str, v->len);
        if (!name)
            return err_input(path, "'%.*s' is not a compare index; summary results have Max diff, Min diff, "
                                   "Mean diff, L2norm diff, MaxRelativeErr, MinRelativeErr, MeanRelativeErr, "
                                   "NormRelativeErr; tensor results Cosine, EucDist, MaxAbsErr, MaxRelativeErr, "
                                   "One Thousandth Err Ratio, Five Thousandths Err Ratio",
                             (int)(v->len > 100 ? 100 : v->len), v->u.str);
        /* a repeated index would give msprobe two sheets of one name */
        size_t k = 0;
        while (k < c->nindex && c->index[k] != name)
            k++;
        if (k == c->nindex)
            c->index[c->nindex++] = name;
    }
    return 0;
}

/* ---- reading the ranks ------------------------------------------------------------ */

typedef struct {
    merge_rank *ranks;
    const merge_apis *apis;
    progress_job *progress;
} read_state;

static int read_one(void *arg, size_t i)
{
    read_state *s = arg;
    int rc = merge_read_rank(&s->ranks[i], s->apis);
    progress_add(s->progress, 1);
    return rc;
}

static int read_ranks(merge_rank *r, size_t n, const merge_apis *apis, progress_job *pj)
{
    progress_phase(pj, "read results", n, PROGRESS_ITEMS);
    read_state s = {r, apis, pj};
    return pool_run(n, pool_cpus(), read_one, &s, NULL);
}

/* ---- combining ------------------------------------------------------------------- */

/* Position of index `name` among the mode's indexes, or -1. */
static int index_pos(int mode, const char *name)
{
    const char *const *names;
    size_t k = merge_mode_indexes(mode, &names);
    for (size_t i = 0; i < k; i++)
        if (!strcmp(names[i], name))
            return (int)i;
    return -1;
}

static int checked_value(const merge_rank *r, const char *s, size_t n)
{
    if (py_float_text(s, n) || !py_blacklisted(s, n))
        return 0;
    return err_input(r->path, "Malicious value [%.*s] is not allowed to be written into the merged xlsx.",
                     (int)(n > 200 ? 200 : n), s);
}

/* msprobe's table_value_check on every name and value it will write
 * (NPU max and Bench max included), index by index. */
static int check_values(const merge_rank *r, const int *pos, size_t npos)
{
    int rc = 0;
    for (size_t k = 0; k < npos && rc == 0; k++)
        for (size_t i = 0; i < r->nnames && rc == 0; i++) {
            const pyval *v = &r->vals[(size_t)pos[k] * r->nnames + i];
            if ((rc = checked_value(r, r->names[i], r->name_lens[i])) == 0 && v->kind == PV_STR)
                rc = checked_value(r, v->text, v->len);
        }
    return rc;
}

/* N/A, unsupported and Nan become "NPU:{NPU max}  Bench:{Bench max}". */
static void substitute(merge_rank *r, const int *pos, size_t nidx, int npu_max, int bench_max)
{
    strbuf sb = STRBUF_INIT;
    for (size_t k = 0; k < nidx; k++)
        for (size_t i = 0; i < r->nnames; i++) {
            pyval *v = &r->vals[(size_t)pos[k] * r->nnames + i];
            if (v->kind != PV_STR || !((v->len == 3 && !memcmp(v->text, "N/A", 3)) ||
                                       (v->len == 11 && !memcmp(v->text, "unsupported", 11)) ||
                                       (v->len == 3 && !memcmp(v->text, "Nan", 3))))
                continue;
            sb_reset(&sb);
            sb_adds(&sb, "NPU:");
            py_str_value(&sb, &r->vals[(size_t)npu_max * r->nnames + i]);
            sb_adds(&sb, "  Bench:");
            py_str_value(&sb, &r->vals[(size_t)bench_max * r->nnames + i]);
            v->text = arena_strndup(&r->a, sb.buf, sb.len);
            v->len = (uint32_t)sb.len;
        }
    sb_free(&sb);
}

static void print_set(strbuf *sb, const char *const *names, size_t n)
{
    sb_addc(sb, '{');
    for (size_t i = 0; i < n; i++) {
        if (i)
            sb_adds(sb, ", ");
        py_repr_str(sb, names[i], strlen(names[i]));
    }
    sb_addc(sb, '}');
}

typedef struct {
    merge_rank **ranks;        /* the ranks shown, in rank order */
    int (*pos)[MERGE_MAX_INDEXES];
    size_t n;
    const char *index[MERGE_MAX_INDEXES];
    size_t nindex;
} merged;

/* msprobe's result_process over all ranks, one after the other. Returns
 * 0, or -1 with an error when no rank can be shown. */
static int combine(merge_rank *r, size_t n, const merge_config *c, merged *m, warnings *w)
{
    memset(m, 0, sizeof *m);
    memcpy(m->index, c->index, sizeof m->index);
    m->nindex = c->nindex;
    m->ranks = xcalloc(n, sizeof *m->ranks);
    m->pos = xcalloc(n, sizeof *m->pos);
    strbuf last = STRBUF_INIT;   /* why the last rank was left out */
    for (size_t i = 0; i < n; i++) {
        merge_rank *rk = &r[i];
        sb_reset(&last);
        if (rk->status == RANK_EMPTY) {
            sb_addf(&last, "Rank%llu compare result is empty and will not shown in merged result.", rk->rank);
        } else if (rk->status == RANK_UNKNOWN) {
            sb_addf(&last, "A valid dump task can not be identified from rank%llu compare result, please check! "
                           "The compare result will not be shown in merged result.", rk->rank);
        } else if (rk->status == RANK_MD5) {
            sb_addf(&last, "Rank%llu compare result is 'md5' dump task and does not support merging result, please "
                           "check! The compare result will not be shown in merged result.", rk->rank);
        }
        if (last.len) {
            warn(w, "%s: %s", rk->path, last.buf);
            continue;
        }
        const char *const *mode_index;
        size_t nmode = merge_mode_indexes(rk->mode, &mode_index);
        if (!m->nindex) {
            /* no index in the config: the first usable result fixes them */
            for (size_t k = 0; k < nmode; k++)
                m->index[k] = mode_index[k];
            m->nindex = nmode;
        }
        int pos[MERGE_MAX_INDEXES + 2];
        const char *invalid[MERGE_MAX_INDEXES];
        size_t ninvalid = 0;
        for (size_t k = 0; k < m->nindex; k++)
            if ((pos[k] = index_pos(rk->mode, m->index[k])) < 0)
                invalid[ninvalid++] = m->index[k];
        if (ninvalid) {
            sb_addf(&last, "Compare indexes in rank%llu compare result are not consistent with those in other "
                           "compare results, please check! The compare result will not be shown in merged result. "
                           "The invalid compare indexes: ", rk->rank);
            print_set(&last, invalid, ninvalid);
            warn(w, "%s: %s", rk->path, last.buf);
            continue;
        }
        for (size_t a = 0; a < c->apis.n; a++)
            if (!rk->api_rows[a])
                warn(w, "%s: %.*s not found in rank%llu compare result.", rk->path, (int)c->apis.len[a],
                     c->apis.api[a], rk->rank);
        pos[m->nindex] = (int)nmode;           /* NPU max */
        pos[m->nindex + 1] = (int)nmode + 1;   /* Bench max */
        if (check_values(rk, pos, m->nindex + 2) != 0) {
            sb_free(&last);
            return -1;
        }
        substitute(rk, pos, m->nindex, (int)nmode, (int)nmode + 1);
        memcpy(m->pos[m->n], pos, sizeof m->pos[m->n]);
        m->ranks[m->n++] = rk;
    }
    int rc = 0;
    if (!m->n)
        rc = err_input(r[n - 1].path, "Nothing to merge: %s", last.buf);
    sb_free(&last);
    return rc;
}

/* ---- writing ------------------------------------------------------------------------ */

static cell value_cell(const pyval *v)
{
    cell c = {CELL_EMPTY, 0, NULL, 0};
    switch (v->kind) {
    case PV_INT:
    case PV_FLOAT:
        /* pandas writes NaN (a missing value) as an empty cell */
        if (!isnan(v->num))
            c = cell_num(v->num);
        break;
    case PV_STR:
        c = cell_str(v->text, v->len);
        break;
    case PV_BOOL:
        c = cell_bool(v->num != 0);
        break;
    default:
        break;
    }
    return c;
}

/* Outer join on NPU Name: names in order of first appearance, rank by rank. */
static int write_merged(char **path, const merged *m, size_t *nrows_out, progress_job *pj)
{
    strmap rows;
    strmap_init(&rows, 256);
    const char **names = NULL;
    size_t *lens = NULL, nrows = 0, cap = 0;
    size_t **slot = xcalloc(m->n, sizeof *slot);
    for (size_t c = 0; c < m->n; c++) {
        const merge_rank *rk = m->ranks[c];
        for (size_t i = 0; i < rk->nnames; i++) {
            int added;
            strmap_put(&rows, rk->names[i], rk->name_lens[i], nrows, &added);
            if (added) {
                if (nrows == cap) {
                    size_t cap2 = cap;
                    GROW(names, cap, nrows + 1);
                    GROW(lens, cap2, nrows + 1);
                }
                names[nrows] = rk->names[i];
                lens[nrows] = rk->name_lens[i];
                nrows++;
            }
        }
    }
    for (size_t c = 0; c < m->n; c++) {
        const merge_rank *rk = m->ranks[c];
        slot[c] = xmalloc_array(nrows ? nrows : 1, sizeof **slot);
        for (size_t j = 0; j < nrows; j++)
            slot[c][j] = (size_t)-1;
        for (size_t i = 0; i < rk->nnames; i++)
            slot[c][*strmap_get(&rows, rk->names[i], rk->name_lens[i])] = i;
    }
    const char **header = xcalloc(m->n + 1, sizeof *header);
    char **owned = xcalloc(m->n, sizeof *owned);
    header[0] = "NPU Name";
    for (size_t c = 0; c < m->n; c++) {
        strbuf sb = STRBUF_INIT;
        sb_addf(&sb, "rank%llu", m->ranks[c]->rank);
        header[c + 1] = owned[c] = sb_detach(&sb);
    }
    int ncols = (int)(m->n + 1);
    cell *cells = xmalloc_array(m->n + 1, sizeof *cells);
    progress_phase(pj, "write", (uint64_t)m->nindex * nrows, PROGRESS_ITEMS);
    table_writer *t = table_open_sheet(*path, TABLE_XLSX, m->index[0], header, ncols);
    int rc = t ? 0 : -1;
    /* a rank without the row: pandas' NaN, an empty cell */
    static const pyval missing = {.kind = PV_FLOAT, .num = NAN};
    for (size_t k = 0; k < m->nindex && rc == 0; k++) {
        if (k && (rc = table_next_sheet(t, m->index[k], header, ncols)) != 0)
            break;
        for (size_t j = 0; j < nrows && rc == 0; j++) {
            cells[0] = cell_str(names[j], lens[j]);
            for (size_t c = 0; c < m->n; c++) {
                const merge_rank *rk = m->ranks[c];
                size_t i = slot[c][j];
                cells[c + 1] = value_cell(i == (size_t)-1 ? &missing : &rk->vals[(size_t)m->pos[c][k] * rk->nnames + i]);
            }
            rc = table_row(t, cells, FILL_NONE);
        }
        progress_add(pj, nrows);
    }
    progress_phase(pj, "compress", 0, PROGRESS_BYTES);
    if (t)
        progress_watch_file(pj, table_partial_path(t));
    if (t && rc == 0)
        rc = table_close_new(t, path) < 0 ? -1 : 0;
    else if (t)
        table_abort(t);
    for (size_t c = 0; c < m->n; c++) {
        free(slot[c]);
        free(owned[c]);
    }
    free(slot);
    free(owned);
    free(header);
    free(cells);
    free(names);
    free(lens);
    strmap_free(&rows);
    *nrows_out = nrows;
    return rc;
}

/* ---- the command ---------------------------------------------------------------------- */

int merge_result_run(const merge_opts *o)
{
    warnings w = {STRBUF_INIT, 0};
    merge_rank *ranks = NULL;
    size_t nranks = 0;
    merge_config cfg;
    memset(&cfg, 0, sizeof cfg);
    merged m;
    memset(&m, 0, sizeof m);
    char stamp[15];
    time_stamp(stamp);
    char *out = NULL;
    int status = EXIT_OK;
    out_run *outputs = out_run_new();
    progress_run_begin(&(progress_opts){.jobs = 1});
    progress_job *pj = progress_job_begin("");
    progress_phase(pj, "find results", 0, PROGRESS_ITEMS);
    int failed = path_require(o->input_dir, 1) != 0 || find_results(o->input_dir, &ranks, &nranks, &w) != 0 ||
                 load_config(o->config, &cfg) != 0 || read_ranks(ranks, nranks, &cfg.apis, pj) != 0;
    if (!failed) {
        progress_phase(pj, "merge", 0, PROGRESS_ITEMS);
        failed = combine(ranks, nranks, &cfg, &m, &w) != 0 || out_run_mkdir(outputs, o->output_dir) != 0;
    }
    if (failed) {
        progress_job_end(pj);
        progress_run_end();
        status = err_report();
        goto done;
    }
    /* msprobe replaces a merge of the same second ("will be deleted"); we
     * take the next free second, and never replace a file when writing */
    for (;;) {
        char name[64];
        snprintf(name, sizeof name, "multi_ranks_compare_merge_%s.xlsx", stamp);
        out = path_join(o->output_dir, name);
        if (!out_name_taken(out) || stamp_next(stamp, stamp) != 0)
            break;
        free(out);
    }
    size_t nrows;
    failed = write_merged(&out, &m, &nrows, pj) != 0;
    progress_job_end(pj);
    progress_run_end();
    if (failed) {
        status = err_report();
        goto done;
    }
    warnings_print(&w);
    log_info("The compare results of the multi-ranks are merged and saved in: %s.", out);
    log_info("merged %zu of %zu ranks: %zu rows, %zu sheets (%s%s)", m.n, nranks, nrows, m.nindex, m.index[0],
             m.nindex > 1 ? ", ..." : "");
done:
    if (status != EXIT_OK)
        out_run_rollback(outputs);
    out_run_free(outputs);
    for (size_t i = 0; i < nranks; i++)
        merge_rank_free(&ranks[i]);
    free(ranks);
    free(m.ranks);
    free(m.pos);
    arena_free(&cfg.a);
    sb_free(&w.text);
    free(out);
    return status;
}
