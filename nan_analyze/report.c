/* What a step found, written out: anomaly_analyze_{time_ns}.json as msprobe
 * writes it (spec/analyzers.md §A.9: json.dump with indent 2, the entry's
 * values as loaded from dump.json, construct_info root first, stack_info
 * from stack.json), the --all list (in the same file, under "anomalies",
 * and as a table), and the one summary line.
 *
 * Only the entries reported are read again, from the dump.json the search
 * read (checked to be the same file, unchanged). construct.json and
 * stack.json are read only for the ranks reported; a missing one is said
 * once and leaves construct_info as the op alone and stack_info as {}
 * (msprobe 8.1.0 refuses to start without them). */
#include "nan_analyze/nan.h"
#include "model/overflow.h"
#include "model/stack.h"
#include "model/table.h"
#include "base/err.h"
#include "base/files.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/outstream.h"
#include "format/json.h"
#include "format/jsonw.h"
#include "py/pystr.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A rank's dump.json mapped again, with the entries asked for parsed. */
typedef struct {
    const nan_rank *rk;
    mapped_file map;
    file_guard guard;
    arena mem;
} reopened;

static int reopen(const nan_rank *rk, reopened *d)
{
    memset(d, 0, sizeof *d);
    d->rk = rk;
    if (file_map(rk->dump_path, 0, &d->map) != 0)
        return -1;
    if (d->map.dev != rk->dev || d->map.ino != rk->ino || d->map.mtime_ns != rk->mtime_ns ||
        d->map.size != rk->size) {
        file_unmap(&d->map);
        return err_set(ERR_CHANGED, rk->dump_path, "changed during the run (it is read again for the report)");
    }
    arena_init(&d->mem, 64 * 1024);
    file_guard_begin(&d->guard, &d->map);
    return 0;
}

static int reclose(reopened *d)
{
    int rc = file_guard_end(&d->guard);
    arena_free(&d->mem);
    file_unmap(&d->map);
    return rc;
}

static int entry_at(reopened *d, nan_span at, jval *v)
{
    if (at.off > d->map.size || at.len > d->map.size - at.off)
        return err_set(ERR_CHANGED, d->rk->dump_path, "changed during the run");
    return json_parse(d->rk->dump_path, d->map.data + at.off, at.len, &d->mem, v);
}

/* ---- construct.json and stack.json ------------------------------------- */

typedef struct {
    char *construct_path, *stack_path;
    mapped_file construct_file;
    arena construct_mem;
    jval construct;          /* J_NULL when missing */
    stack_map stack;
    int have_stack;
} rank_files;

/* dir/name, or NULL when it does not exist (*bad: it exists but is no
 * regular file, an error recorded). */
static char *side_file(const char *dir, const char *name, int *bad)
{
    char *p = path_join(dir, name);
    enum path_kind k = path_kind(p);
    if (k == PATH_FILE)
        return p;
    if (k != PATH_MISSING) {
        path_require(p, 0);
        *bad = 1;
    }
    free(p);
    return NULL;
}

static int load_files(const nan_rank *rk, rank_files *f)
{
    memset(f, 0, sizeof *f);
    arena_init(&f->construct_mem, 64 * 1024);
    f->construct.type = J_NULL;
    int bad = 0;
    f->construct_path = side_file(rk->dir, "construct.json", &bad);
    if (!bad)
        f->stack_path = side_file(rk->dir, "stack.json", &bad);
    if (bad)
        return -1;
    if (!f->construct_path) {
        log_warn("%s holds no construct.json: construct_info holds the op alone", rk->dir);
    } else {
        if (json_load_file(f->construct_path, 0, &f->construct_file, &f->construct_mem, &f->construct,
                           "is not a JSON object of node: parent names") != 0)
            return -1;
    }
    if (!f->stack_path) {
        log_warn("%s holds no stack.json: stack_info is {}", rk->dir);
    } else {
        if (stack_load(f->stack_path, &f->stack) != 0) {
            stack_free(&f->stack);
            return -1;
        }
        f->have_stack = 1;
    }
    return 0;
}

static void free_files(rank_files *f)
{
    free(f->construct_path);
    free(f->stack_path);
    file_unmap(&f->construct_file);
    arena_free(&f->construct_mem);
    if (f->have_stack)
        stack_free(&f->stack);
}

/* A construct.json value as the name of a parent: a string (a list: its
 * first element, as the newest msprobe reads it); NULL ends the chain. */
static const jval *parent_of(const jval *construct, const char *name, size_t len)
{
    const jval *v = NULL;
    /* a parsed object holds each key once */
    for (uint32_t i = 0; i < construct->len && construct->type == J_OBJECT && !v; i++)
        if (construct->u.members[i].keylen == len && !memcmp(construct->u.members[i].key, name, len))
            v = json_member_value(construct, i);
    if (v && v->type == J_ARRAY)
        v = v->len ? &v->u.items[0] : NULL;
    return v && v->type == J_STRING && v->len ? v : NULL;
}

/* find_complete_construct(): the op's chain of parents, root first. As in
 * msprobe, the names seen start as the op name's characters (not the name
 * itself), so a chain that comes back to the op shows it once more. */
typedef struct {
    const char **names;
    size_t *lens;
    size_t n;
} chain;

static int seen_in(const chain *c, const char *op, const char *s, size_t n)
{
    if (n == 1 && memchr(op, s[0], strlen(op)))
        return 1;
    for (size_t i = 1; i < c->n; i++)
        if (c->lens[i] == n && !memcmp(c->names[i], s, n))
            return 1;
    return 0;
}

static void construct_chain(const rank_files *f, const char *op, chain *c)
{
    size_t cap = 0, lcap = 0;
    c->n = 0;
    GROW(c->names, cap, 1);
    GROW(c->lens, lcap, 1);
    c->names[0] = op;
    c->lens[0] = strlen(op);
    c->n = 1;
    const char *cur = op;
    size_t len = strlen(op);
    for (;;) {
        const jval *p = parent_of(&f->construct, cur, len);
        if (!p || seen_in(c, op, p->u.str, p->len))
            break;
        GROW(c->names, cap, c->n + 1);
        GROW(c->lens, lcap, c->n + 1);
        c->names[c->n] = p->u.str;
        c->lens[c->n++] = p->len;
        cur = p->u.str;
        len = p->len;
    }
}

/* find_stack(): the [1] of the first stack.json value of two or more items
 * whose [0] holds the op (a list: as an element; a text: as a substring).
 * An old-layout stack.json (name: stack) gives the op's own stack. */
static const jval *find_stack(rank_files *f, const char *op)
{
    if (!f->have_stack)
        return NULL;
    const jval *root = &f->stack.root;
    size_t n = strlen(op);
    for (uint32_t i = 0; i < root->len; i++) {
        const jval *v = json_member_value(root, i);
        if (v->type != J_ARRAY || v->len < 2)
            continue;
        const jval *names = &v->u.items[0];
        if (names->type == J_ARRAY) {
            for (uint32_t k = 0; k < names->len; k++)
                if (names->u.items[k].type == J_STRING && names->u.items[k].len == n &&
                    !memcmp(names->u.items[k].u.str, op, n))
                    return &v->u.items[1];
        } else if (names->type == J_STRING && memmem(names->u.str, names->len, op, n)) {
            return &v->u.items[1];
        }
    }
    if (json_truthy(json_get(root, "0")))
        return NULL;
    const stack_info *si = stack_find(&f->stack, op);
    return si ? si->value : NULL;
}

/* ---- the reported nodes ---------------------------------------------------- */

/* the report is json.dump(indent=2) */
static void key(strbuf *sb, int level, const char *k) { jsonw_key(sb, 2, level, k); }

static void member_or(strbuf *sb, const jval *entry, const char *k, const char *empty, int level)
{
    const jval *v = json_get(entry, k);
    key(sb, level, k);
    if (v)
        jsonw_value(sb, v, 2, level);
    else
        sb_adds(sb, empty);
}

/* gen_node_info() of one op, at nesting level 2; the summary line's part. */
static void write_node(strbuf *sb, rank_files *f, const nan_rank *rk, const char *op, const jval *entry,
                       strbuf *line)
{
    sb_addc(sb, '{');
    key(sb, 3, "op_name");
    jsonw_str_ascii(sb, op, strlen(op));
    sb_addc(sb, ',');
    key(sb, 3, "data_info");
    sb_addc(sb, '{');
    if (strstr(op, "forward")) {
        member_or(sb, entry, "input_args", "[]", 4);
        sb_addc(sb, ',');
        member_or(sb, entry, "input_kwargs", "{}", 4);
    } else {
        member_or(sb, entry, "input", "[]", 4);
    }
    sb_addc(sb, ',');
    member_or(sb, entry, "output", "{}", 4);
    jsonw_newline(sb, 2, 3);
    sb_adds(sb, "},");
    key(sb, 3, "construct_info");
    chain c = {0};
    construct_chain(f, op, &c);
    sb_addc(sb, '[');
    for (size_t i = c.n; i-- > 0;) {
        jsonw_newline(sb, 2, 4);
        jsonw_str_ascii(sb, c.names[i], c.lens[i]);
        if (i)
            sb_addc(sb, ',');
    }
    jsonw_newline(sb, 2, 3);
    sb_adds(sb, "],");
    key(sb, 3, "stack_info");
    const jval *stack = find_stack(f, op);
    if (stack)
        jsonw_value(sb, stack, 2, 3);
    else
        sb_adds(sb, "{}");
    jsonw_newline(sb, 2, 2);
    sb_addc(sb, '}');

    sb_addf(line, "rank %ld %s (inputs finite, output ", rk->rank, op);
    nan_output_kinds(entry, line);
    sb_addc(line, ')');
    if (c.n > 1)
        sb_addf(line, " in %.*s", (int)c.lens[1], c.names[1]);
    free(c.names);
    free(c.lens);
}

/* ---- the JSON, written as it is made ----------------------------------------- */

/* "rank_N": [nodes] of every rank with a finding, in the order found. */
static int write_found(nan_step *st, out_stream *of, strbuf *line, int *members)
{
    strbuf *sb = &of->sb;
    const cg_result *res = &st->res;
    uint8_t *done = xcalloc(res->nhits ? res->nhits : 1, 1);
    int rc = 0;
    for (size_t h = 0; h < res->nhits && rc == 0; h++) {
        if (done[h])
            continue;
        const nan_rank *rk = &st->ranks[res->hits[h].rank];
        reopened d;
        rank_files f;
        if (reopen(rk, &d) != 0) {
            rc = -1;
            break;
        }
        rc = load_files(rk, &f);
        if (rc == 0) {
            if ((*members)++)
                sb_addc(sb, ',');
            jsonw_newline(sb, 2, 1);
            sb_addf(sb, "\"rank_%ld\": [", rk->rank);
            int first = 1;
            for (size_t k = h; k < res->nhits && rc == 0; k++) {
                if (res->hits[k].rank != res->hits[h].rank)
                    continue;
                done[k] = 1;
                jval entry;
                rc = entry_at(&d, rk->at[res->hits[k].op], &entry);
                if (rc)
                    break;
                if (!first)
                    sb_addc(sb, ',');
                if (line->len)
                    sb_adds(line, "; ");
                first = 0;
                jsonw_newline(sb, 2, 2);
                write_node(sb, &f, rk, rk->ops[res->hits[k].op].name, &entry, line);
                if (out_stream_flush(of, OUT_STREAM_CHUNK) != 0)
                    rc = -1;
            }
            jsonw_newline(sb, 2, 1);
            sb_addc(sb, ']');
        }
        free_files(&f);
        if (reclose(&d) != 0)
            rc = -1;
    }
    free(done);
    return rc;
}

/* ---- --all: every anomalous API -------------------------------------------- */

/* One list of msprobe's get_details(): the indices (keys of a dict) whose
 * values are anomalous, as JSON at `level` and as Python's str(). */
static void anomaly_list(strbuf *sb, strbuf *text, const jval *v, int by_key, int level)
{
    int n = 0;
    sb_addc(sb, '[');
    sb_addc(text, '[');
    if (v && v->type == (by_key ? J_OBJECT : J_ARRAY)) {
        for (uint32_t i = 0; i < v->len; i++) {
            const jval *item = by_key ? json_member_value(v, i) : &v->u.items[i];
            if (!ovf_value_anomalous(item))
                continue;
            if (n++) {
                sb_addc(sb, ',');
                sb_adds(text, ", ");
            }
            jsonw_newline(sb, 2, level + 1);
            if (by_key) {
                jsonw_str_ascii(sb, v->u.members[i].key, v->u.members[i].keylen);
                py_repr_str(text, v->u.members[i].key, v->u.members[i].keylen);
            } else {
                sb_addf(sb, "%u", i);
                sb_addf(text, "%u", i);
            }
        }
    }
    if (n)
        jsonw_newline(sb, 2, level);
    sb_addc(sb, ']');
    sb_addc(text, ']');
}

static int is_first(const nan_step *st, size_t r, const char *name)
{
    for (size_t k = 0; k < st->res.nhits; k++)
        if (st->res.hits[k].rank == r && !strcmp(st->ranks[r].ops[st->res.hits[k].op].name, name))
            return 1;
    return 0;
}

static const char *const table_header[] = {"rank", "op_name", "scene_type", "level", "input_args_anomaly_indices",
                                           "input_kwargs_anomaly_keys", "output_anomaly_indices", "first_nan_inf"};

/* One API: its item in "anomalies" and, with a table, its row. */
static int write_api(strbuf *sb, const nan_api *a, const jval *entry, long rank, int first, table_writer *t)
{
    ovf_api api;
    ovf_api_of(entry, &api);
    const char *scene = ovf_scene_name(a->scene), *level = ovf_level_name(ovf_scene_level(a->scene));
    sb_addc(sb, '{');
    key(sb, 4, "op_name");
    jsonw_str_ascii(sb, a->name, strlen(a->name));
    sb_addc(sb, ',');
    key(sb, 4, "scene_type");
    jsonw_str(sb, scene);
    sb_addc(sb, ',');
    key(sb, 4, "level");
    jsonw_str(sb, level);
    const jval *lists[3] = {api.args, api.kwargs, api.outputs};
    strbuf text[3] = {STRBUF_INIT, STRBUF_INIT, STRBUF_INIT};
    for (int k = 0; k < 3; k++) {
        sb_addc(sb, ',');
        key(sb, 4, table_header[4 + k]);
        anomaly_list(sb, &text[k], lists[k], k == 1, 4);
    }
    jsonw_newline(sb, 2, 3);
    sb_addc(sb, '}');
    int rc = 0;
    if (t) {
        cell c[8] = {cell_num((double)rank),
                     cell_str(a->name, strlen(a->name)),
                     cell_str(scene, strlen(scene)),
                     cell_str(level, strlen(level)),
                     cell_str(text[0].buf, text[0].len),
                     cell_str(text[1].buf, text[1].len),
                     cell_str(text[2].buf, text[2].len),
                     cell_bool(first)};
        rc = table_row(t, c, FILL_NONE);
    }
    for (int k = 0; k < 3; k++)
        sb_free(&text[k]);
    return rc;
}

/* "anomalies": {"rank_N": [every API with a scene]}. */
static int write_all(nan_step *st, out_stream *of, table_writer *t, int *members)
{
    strbuf *sb = &of->sb;
    int any = 0, rc = 0;
    for (size_t r = 0; r < st->nranks && rc == 0; r++) {
        const nan_rank *rk = &st->ranks[r];
        if (!rk->napis)
            continue;
        if (!any++) {
            if ((*members)++)
                sb_addc(sb, ',');
            key(sb, 1, "anomalies");
            sb_addc(sb, '{');
        } else {
            sb_addc(sb, ',');
        }
        jsonw_newline(sb, 2, 2);
        sb_addf(sb, "\"rank_%ld\": [", rk->rank);
        reopened d;
        if (reopen(rk, &d) != 0)
            return -1;
        for (size_t i = 0; i < rk->napis && rc == 0; i++) {
            jval entry;
            arena_reset(&d.mem);
            rc = entry_at(&d, rk->apis[i].at, &entry);
            if (rc)
                break;
            if (i)
                sb_addc(sb, ',');
            jsonw_newline(sb, 2, 3);
            rc = write_api(sb, &rk->apis[i], &entry, rk->rank, is_first(st, r, rk->apis[i].name), t);
            if (rc == 0)
                rc = out_stream_flush(of, OUT_STREAM_CHUNK);
        }
        jsonw_newline(sb, 2, 2);
        sb_addc(sb, ']');
        if (reclose(&d) != 0)
            rc = -1;
    }
    if (any) {
        jsonw_newline(sb, 2, 1);
        sb_addc(sb, '}');
    }
    return rc;
}

/* anomaly_analyze_{time.time_ns()}.json */
static char *result_path(const char *out_dir)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    char name[64];
    snprintf(name, sizeof name, "anomaly_analyze_%lld%09ld.json", (long long)ts.tv_sec, (long)ts.tv_nsec);
    return path_join(out_dir, name);
}

int nan_report(nan_step *st, const nan_opts *o, const char *out_dir, out_run *outputs, strbuf *line, int *found)
{
    size_t napis = 0, with = 0;
    for (size_t r = 0; r < st->nranks; r++) {
        napis += st->ranks[r].napis;
        with += st->ranks[r].napis > 0;
    }
    *found = st->res.nhits || napis;
    if (!*found) {
        sb_adds(line, o->all ? "no NaN/Inf node found, no anomalous API" : "no NaN/Inf node found");
        return 0;
    }
    if (out_run_mkdir(outputs, out_dir) != 0)
        return -1;
    out_stream of;
    strbuf what = STRBUF_INIT;
    char *tpath = NULL;
    table_writer *t = NULL;
    int rc = out_stream_open(&of, result_path(out_dir));
    if (rc == 0 && o->table_format >= 0) {
        /* the table takes the result's name, its own extension */
        strbuf name = STRBUF_INIT;
        sb_add(&name, of.path, strlen(of.path) - strlen("json"));
        sb_adds(&name, table_ext(o->table_format));
        tpath = sb_detach(&name);
        t = table_open(tpath, o->table_format, table_header, 8);
        if (!t)
            rc = -1;
    }
    int members = 0;
    sb_addc(&of.sb, '{');
    if (rc == 0)
        rc = write_found(st, &of, &what, &members);
    if (rc == 0 && o->all)
        rc = write_all(st, &of, t, &members);
    jsonw_newline(&of.sb, 2, 0);
    sb_addc(&of.sb, '}');
    if (rc == 0)
        rc = out_stream_commit(&of);
    if (rc == 0)
        out_run_add(outputs, of.path);
    if (t) {
        if (rc == 0 && table_close_new(t, &tpath) >= 0)
            out_run_add(outputs, tpath);
        else if (rc == 0)
            rc = -1;
        else
            table_abort(t);
    }
    if (rc == 0) {
        if (st->res.nhits)
            sb_addf(line, "first NaN/Inf: %s", sb_str(&what));
        else
            sb_adds(line, "no first NaN/Inf node");
        if (o->all)
            sb_addf(line, "; %zu anomalous API%s on %zu rank%s", napis, napis == 1 ? "" : "s", with,
                    with == 1 ? "" : "s");
        sb_addf(line, " -> %s", of.path);
        if (tpath)
            sb_addf(line, ", %s", tpath);
    }
    out_stream_close(&of);
    free(of.path);
    free(tpath);
    sb_free(&what);
    return rc;
}
