/* The newest msprobe's .vis.db (spec §11.1-§11.2, its db_utils.py): one
 * SQLite file for the run, which the current TensorBoard plugin reads --
 * tb_nodes (the nodes reachable from the root, children before their
 * parent), tb_stack (each graph's distinct stacks, whole: the newest msprobe
 * no longer keeps only the calling line), tb_config (the first result's
 * settings, the ranks and steps of the run) and seven indexes. Node values,
 * precision indexes and the legend are those of our .vis (msprobe 8.1.0's),
 * not the newest msprobe's 0 / 0.5 / 1.
 *
 * The file is made under a temporary name beside the result, in one
 * transaction through format/sqlite_write (private until renamed: no syncs),
 * and renamed when complete. */
#include "graph/write/visdb.h"
#include "graph/write/vis.h"
#include "graph/model/steps.h"
#include "base/err.h"
#include "base/files.h"
#include "base/mem.h"
#include "base/outdir.h"
#include "format/jsonw.h"
#include "format/sqlite_write.h"
#include "model/overflow.h"

#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char NODES_SQL[] = "CREATE TABLE IF NOT EXISTS tb_nodes (\n"
                                "    id TEXT PRIMARY KEY,\n"
                                "    graph_id TEXT NOT NULL,\n"
                                "    node_order INTEGER NOT NULL,\n"
                                "    node_name TEXT NOT NULL,\n"
                                "    node_type TEXT NOT NULL,\n"
                                "    up_node TEXT,\n"
                                "    sub_nodes TEXT,\n"
                                "    precision_index INTEGER,\n"
                                "    overflow_level TEXT,\n"
                                "    micro_step_id INTEGER NOT NULL,\n"
                                "    matched_node_link TEXT,\n"
                                "    stack_id TEXT,\n"
                                "    parallel_merge_info TEXT,\n"
                                "    matched_distributed TEXT,\n"
                                "    modified INTEGER NOT NULL,\n"
                                "    input_data TEXT,\n"
                                "    output_data TEXT,\n"
                                "    data_source TEXT,\n"
                                "    dump_data_dir TEXT,\n"
                                "    step INTEGER NOT NULL,\n"
                                "    rank INTEGER NOT NULL,\n"
                                "    is_distributed INTEGER\n"
                                ");";
static const char STACK_SQL[] = "CREATE TABLE IF NOT EXISTS tb_stack (\n"
                                "    id TEXT PRIMARY KEY,\n"
                                "    stack_info TEXT\n"
                                ");";
static const char CONFIG_SQL[] = "CREATE TABLE IF NOT EXISTS tb_config (\n"
                                 "    id TEXT PRIMARY KEY,\n"
                                 "    graph_type TEXT NOT NULL,\n"
                                 "    task TEXT,\n"
                                 "    tool_tip TEXT,\n"
                                 "    micro_steps INTEGER,\n"
                                 "    overflow_check INTEGER,\n"
                                 "    node_colors TEXT NOT NULL,\n"
                                 "    rank_list TEXT NOT NULL,\n"
                                 "    step_list TEXT NOT NULL\n"
                                 ");";
static const char *const INDEXES[] = {
    "CREATE INDEX IF NOT EXISTS index1 ON tb_nodes (step, rank, data_source, up_node, node_order);",
    "CREATE INDEX IF NOT EXISTS index2 ON tb_nodes (step, rank, data_source, node_name);",
    "CREATE INDEX IF NOT EXISTS index3 ON tb_nodes (step, rank, data_source, node_order);",
    "CREATE INDEX IF NOT EXISTS index4 ON tb_nodes (step, rank, node_order);",
    "CREATE INDEX IF NOT EXISTS index5 ON tb_nodes (step, rank, micro_step_id, node_order);",
    "CREATE INDEX IF NOT EXISTS index6 ON tb_nodes (step, rank, modified, matched_node_link);",
    "CREATE INDEX IF NOT EXISTS index7 ON tb_nodes (is_distributed);",
};

struct visdb {
    char *path, *tmp;
    sqlw w;
    int opened;
    sqlite3_stmt *node, *stack;
    int compare;
    /* tb_config: the first result's, and every rank and step */
    int have_config;
    int task, overflow_check;
    long micro_steps;
    long *ranks, *steps;
    size_t nranks, nsteps, capr, caps;
};

static void remove_tmp(visdb *v)
{
    if (!v->tmp)
        return;
    char side[4096];
    snprintf(side, sizeof side, "%s-wal", v->tmp);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", v->tmp);
    unlink(side);
    out_tmp_discard(v->tmp);
    v->tmp = NULL;
}

visdb *visdb_open(const char *path, int compare)
{
    visdb *v = xcalloc(1, sizeof *v);
    v->path = xstrdup(path);
    v->compare = compare;
    v->tmp = out_tmp_create(path);
    if (!v->tmp) {
        visdb_abort(v);
        return NULL;
    }
    v->opened = sqlw_open(&v->w, v->tmp, v->path) == 0;
    /* as the newest msprobe: a WAL database, tables in the order it makes them */
    if (!v->opened || sqlw_exec(&v->w, "PRAGMA journal_mode=WAL") != 0 || sqlw_exec(&v->w, NODES_SQL) != 0 ||
        sqlw_exec(&v->w, STACK_SQL) != 0 || sqlw_begin(&v->w) != 0 ||
        sqlw_prepare(&v->w,
                     "INSERT INTO tb_nodes (id, graph_id, node_order, node_name, node_type, up_node, sub_nodes, "
                     "precision_index, overflow_level, micro_step_id, matched_node_link, stack_id, "
                     "parallel_merge_info, matched_distributed, modified, input_data, output_data, data_source, "
                     "dump_data_dir, step, rank, is_distributed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                     "?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     &v->node) != 0 ||
        sqlw_prepare(&v->w, "INSERT INTO tb_stack (id, stack_info) VALUES (?, ?)", &v->stack) != 0) {
        visdb_abort(v);
        return NULL;
    }
    return v;
}

static void json_path(strbuf *sb, const graph *g, long i)
{
    const char **p;
    size_t n;
    graph_path(g, i, &p, &n);
    sb_addc(sb, '[');
    for (size_t k = 0; k < n; k++) {
        if (k)
            sb_add(sb, ", ", 2);
        jsonw_str_ascii(sb, p[k], strlen(p[k]));
    }
    sb_addc(sb, ']');
    free(p);
}

static void json_dist_entry(strbuf *sb, const gdist_entry *d)
{
    sb_adds(sb, "{\"communications_type\": ");
    jsonw_str_ascii(sb, vis_comm_type(d->type), strlen(vis_comm_type(d->type)));
    sb_adds(sb, ", \"nodes_info\": {");
    for (uint32_t k = 0; k < d->nranks; k++) {
        if (k)
            sb_add(sb, ", ", 2);
        jsonw_str_ascii(sb, d->rank[k], strlen(d->rank[k]));
        sb_add(sb, ": [", 3);
        jsonw_str_ascii(sb, d->index[k], strlen(d->index[k]));
        sb_add(sb, ", ", 2);
        jsonw_str_ascii(sb, d->node[k], strlen(d->node[k]));
        sb_addc(sb, ']');
    }
    sb_add(sb, "}}", 2);
}

/* json.dumps(stack_info): the whole stack */
static void json_stack(strbuf *sb, const gnode *nd)
{
    static const char NO_FORWARD[] =
        "This backward node cannot find the forward node and cannot retrieve stack information.";
    if (nd->stack_kind == STACK_LIST) {
        /* jsonw_value with indent 0 is json.dumps with its default
         * separators only for scalars; lists are written here */
        const jval *v = nd->stack;
        if (v->type == J_ARRAY) {
            sb_addc(sb, '[');
            for (uint32_t k = 0; k < v->len; k++) {
                if (k)
                    sb_add(sb, ", ", 2);
                strbuf t = STRBUF_INIT;
                jsonw_value(&t, &v->u.items[k], 0, 0);
                sb_add(sb, t.buf, t.len);
                sb_free(&t);
            }
            sb_addc(sb, ']');
        } else {
            jsonw_value(sb, v, 0, 0);
        }
    } else if (nd->stack_kind == STACK_NO_FORWARD) {
        sb_addc(sb, '[');
        jsonw_str_ascii(sb, NO_FORWARD, sizeof NO_FORWARD - 1);
        sb_addc(sb, ']');
    } else {
        sb_add(sb, "[]", 2);
    }
}

static int bind_text(sqlite3_stmt *st, int col, const char *s, size_t n)
{
    return sqlite3_bind_text(st, col, s, (int)n, SQLITE_TRANSIENT);
}

/* The rows of one graph being added: tb_nodes rows, and its distinct
 * stacks as tb_stack rows. */
typedef struct {
    visdb *v;
    vis_ctx *w;
    const graph *g, *other;
    long step, rank;
    const char *source;       /* "NPU" or "Bench" */
    char gid[128];            /* graph_id: {source}_{step}_{rank} */
    char *tensor_dir;         /* dump_data_dir when the dump was moved, else NULL */
    strmap stacks;            /* stack text -> its number in this graph */
    long *micro;              /* micro_step_id of each node */
    arena mem;
    strbuf sb, stack;
} graph_rows;

/* the newest msprobe's dump_data_dir: the tensor directory beside the dump
 * when the recorded one is elsewhere (the dump was moved); NULL otherwise */
static char *moved_tensor_dir(const rankdata *rd)
{
    const jval *dd = &rd->dump_data_dir;
    if (dd->type != J_STRING || !dd->len)
        return NULL;
    char *tensor_dir = NULL;
    char *rec = xstrndup(dd->u.str, dd->len);
    char *rec_dir = path_dirname(rec);
    char *here = realpath(rd->dir, NULL);
    if (here && strcmp(rec_dir, here) != 0)
        tensor_dir = path_join(here, "dump_tensor_data");
    free(here);
    free(rec_dir);
    free(rec);
    return tensor_dir;
}

/* sub_nodes: json.dumps of the children's ids, "" without children */
static void json_sub_nodes(strbuf *sb, const graph *g, const gnode *nd)
{
    if (!nd->nsub)
        return;
    sb_addc(sb, '[');
    for (uint32_t c = 0; c < nd->nsub; c++) {
        if (c)
            sb_add(sb, ", ", 2);
        jsonw_str_ascii(sb, g->nodes[nd->sub[c]].id, g->nodes[nd->sub[c]].idlen);
    }
    sb_addc(sb, ']');
}

/* matched_distributed: {} without links, one entry, or a list of them */
static void json_dist(strbuf *sb, const gnode *nd)
{
    if (!nd->dist) {
        sb_add(sb, "{}", 2);
    } else if (!nd->dist->is_list) {
        json_dist_entry(sb, &nd->dist->v[0]);
    } else {
        sb_addc(sb, '[');
        for (uint32_t d = 0; d < nd->dist->n; d++) {
            if (d)
                sb_add(sb, ", ", 2);
            json_dist_entry(sb, &nd->dist->v[d]);
        }
        sb_addc(sb, ']');
    }
}

/* The stack_id of node nd: its stack's row of tb_stack, written when this
 * graph has not met that stack yet. 0 or -1. */
static int add_stack(graph_rows *r, const gnode *nd, char stack_id[160])
{
    sb_reset(&r->stack);
    json_stack(&r->stack, nd);
    int added;
    size_t *sid = strmap_put(&r->stacks, arena_strndup(&r->mem, r->stack.buf, r->stack.len), r->stack.len,
                             r->stacks.count, &added);
    snprintf(stack_id, 160, "%s_%zu", r->gid, *sid);
    if (!added)
        return 0;
    sqlite3_reset(r->v->stack);
    bind_text(r->v->stack, 1, stack_id, strlen(stack_id));
    bind_text(r->v->stack, 2, r->stack.buf, r->stack.len);
    return sqlw_step(&r->v->w, r->v->stack);
}

static void bind_dump_data_dir(sqlite3_stmt *st, int col, graph_rows *r)
{
    const jval *dir = &r->g->rd->dump_data_dir;
    if (r->tensor_dir) {
        bind_text(st, col, r->tensor_dir, strlen(r->tensor_dir));
    } else if (dir->type == J_STRING) {
        bind_text(st, col, dir->u.str, dir->len);
    } else if (dir->type != J_NULL) {
        sb_reset(&r->sb);
        jsonw_value(&r->sb, dir, 0, 0);
        bind_text(st, col, r->sb.buf, r->sb.len);
    }
}

/* The micro step of every node: its own (a root child's), else its
 * nearest ancestor's -- the newest msprobe hands it down to every
 * descendant, unless construct.json numbered them -- else 0. Each node is
 * resolved once. */
static long *micro_steps_down(const graph *g)
{
    long *micro = xmalloc_array(g->n + 1, sizeof *micro);
    if (!g->micro_inherit) {
        for (size_t i = 0; i < g->n; i++)
            micro[i] = g->nodes[i].has_micro ? g->nodes[i].micro : 0;
        return micro;
    }
    uint8_t *known = xcalloc(g->n + 1, 1);
    uint32_t *path = xmalloc_array(g->n + 1, sizeof *path);
    for (size_t i = 0; i < g->n; i++) {
        size_t np = 0;
        long j = (long)i;
        /* a cycle (malformed tree) stops the walk after n steps: 0 */
        while (j >= 0 && !known[j] && !g->nodes[j].has_micro && np < g->n) {
            path[np++] = (uint32_t)j;
            j = g->nodes[j].up;
        }
        long m = 0;
        if (j >= 0 && np < g->n)
            m = known[j] ? micro[j] : g->nodes[j].micro;
        if (j >= 0 && !known[j] && np < g->n) {
            micro[j] = m;
            known[j] = 1;
        }
        for (size_t k = 0; k < np; k++) {
            micro[path[k]] = m;
            known[path[k]] = 1;
        }
    }
    free(known);
    free(path);
    return micro;
}

/* Node i, the k-th in tb_nodes order: its row (and its stack's). 0 or -1. */
static int add_node(graph_rows *r, size_t k, long i)
{
    const graph *g = r->g;
    const gnode *nd = &g->nodes[i];
    strbuf *sb = &r->sb;
    sqlite3_stmt *st = r->v->node;
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    sb_reset(sb);
    sb_addf(sb, "%s_%s", r->gid, nd->id);
    bind_text(st, 1, sb->buf, sb->len);
    bind_text(st, 2, r->gid, strlen(r->gid));
    sqlite3_bind_int64(st, 3, (sqlite3_int64)k);
    bind_text(st, 4, nd->id, nd->idlen);
    char op[8];
    snprintf(op, sizeof op, "%d", nd->op);
    bind_text(st, 5, op, strlen(op));
    if (nd->up >= 0)
        bind_text(st, 6, g->nodes[nd->up].id, g->nodes[nd->up].idlen);
    else
        bind_text(st, 6, "", 0);
    sb_reset(sb);
    json_sub_nodes(sb, g, nd);
    bind_text(st, 7, sb->buf ? sb->buf : "", sb->len);
    if (nd->px_kind == PX_INT)
        sqlite3_bind_int64(st, 8, (sqlite3_int64)nd->px);
    else if (nd->px_kind == PX_FLOAT)
        sqlite3_bind_double(st, 8, nd->px);
    if (nd->overflow)
        bind_text(st, 9, ovf_level_name(nd->overflow), strlen(ovf_level_name(nd->overflow)));
    sqlite3_bind_int64(st, 10, r->micro[i]);
    sb_reset(sb);
    if (nd->link_side)
        json_path(sb, nd->link_side == g->side ? g : r->other, nd->link_node);
    else
        sb_add(sb, "[]", 2);
    bind_text(st, 11, sb->buf, sb->len);
    char stack_id[160];
    int rc = add_stack(r, nd, stack_id);
    bind_text(st, 12, stack_id, strlen(stack_id));
    bind_text(st, 13, "", 0);
    sb_reset(sb);
    json_dist(sb, nd);
    bind_text(st, 14, sb->buf, sb->len);
    sqlite3_bind_int(st, 15, 0);
    int have;
    if (rc == 0 && vis_items(r->w, g, i, &have) != 0)
        rc = -1;
    for (int out = 0; out < 2 && rc == 0; out++) {
        sb_reset(sb);
        vis_item_map(r->w, sb, g, i, out, 0, 1);
        bind_text(st, 16 + out, sb->buf, sb->len);
    }
    bind_text(st, 18, r->source, strlen(r->source));
    bind_dump_data_dir(st, 19, r);
    sqlite3_bind_int64(st, 20, r->step);
    sqlite3_bind_int64(st, 21, r->rank);
    sqlite3_bind_int(st, 22, nd->idlen >= 11 && !memcmp(nd->id, "Distributed", 11));
    return rc == 0 ? sqlw_step(&r->v->w, st) : rc;
}

static int add_graph(visdb *v, vis_ctx *w, const graph *g, const graph *other, long step, long rank)
{
    graph_rows r = {.v = v, .w = w, .g = g, .other = other, .step = step, .rank = rank,
                    .source = g->side == 2 ? "Bench" : "NPU", .sb = STRBUF_INIT, .stack = STRBUF_INIT};
    snprintf(r.gid, sizeof r.gid, "%s_%ld_%ld", r.source, step, rank);
    r.tensor_dir = moved_tensor_dir(g->rd);
    strmap_init(&r.stacks, 256);
    arena_init(&r.mem, 1 << 16);
    w->other = other;
    r.micro = micro_steps_down(g);
    uint32_t *order = xmalloc_array(g->n + 1, sizeof *order);
    size_t n = graph_sorted_nodes(g, order);
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++)
        rc = add_node(&r, k, order[k]);
    free(order);
    free(r.micro);
    free(r.tensor_dir);
    sb_free(&r.sb);
    sb_free(&r.stack);
    strmap_free(&r.stacks);
    arena_free(&r.mem);
    return rc;
}

static void add_number(long **v, size_t *n, size_t *cap, long x)
{
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i] == x)
            return;
    GROW(*v, *cap, *n + 1);
    (*v)[(*n)++] = x;
}

int visdb_add(visdb *v, graph *n, graph *b, const gcompare *cmp, long step, long rank)
{
    if (!v->have_config) {
        v->have_config = 1;
        v->micro_steps = n->micro_steps;
        v->task = cmp ? cmp->task : -1;
    }
    add_number(&v->ranks, &v->nranks, &v->capr, rank);
    add_number(&v->steps, &v->nsteps, &v->caps, step);
    vis_ctx w;
    vis_ctx_init(&w, cmp);
    file_guard gn, gb;
    file_guard_begin(&gn, &n->rd->dump);
    if (b)
        file_guard_begin(&gb, &b->rd->dump);
    int rc = add_graph(v, &w, n, b, step, rank);
    if (rc == 0 && b)
        rc = add_graph(v, &w, b, n, step, rank);
    if (b && file_guard_end(&gb) != 0)
        rc = -1;
    if (file_guard_end(&gn) != 0)
        rc = -1;
    vis_ctx_free(&w);
    return rc;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

static void json_numbers(strbuf *sb, long *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_long);
    sb_addc(sb, '[');
    for (size_t i = 0; i < n; i++)
        sb_addf(sb, "%s%ld", i ? ", " : "", v[i]);
    if (!n)
        sb_addc(sb, '0');
    sb_addc(sb, ']');
}

/* json.dumps(node_colors): the legend of the .vis, compact */
static void json_colors(strbuf *sb, int task)
{
    size_t n;
    const vis_color *c = vis_colors(task, &n);
    sb_addc(sb, '{');
    for (size_t k = 0; k < n; k++) {
        if (k)
            sb_add(sb, ", ", 2);
        jsonw_str_ascii(sb, c[k].hex, strlen(c[k].hex));
        sb_adds(sb, ": {\"value\": [");
        if (c[k].low)
            sb_addf(sb, "%s, %s", c[k].low, c[k].high);
        sb_adds(sb, "], \"description\": ");
        jsonw_str_ascii(sb, c[k].desc, strlen(c[k].desc));
        sb_addc(sb, '}');
    }
    sb_addc(sb, '}');
}

int visdb_finish(visdb *v, char **path, int overflow_check)
{
    sqlite3_stmt *st = NULL;
    strbuf tip = STRBUF_INIT, colors = STRBUF_INIT, ranks = STRBUF_INIT, steps = STRBUF_INIT;
    int rc = sqlw_exec(&v->w, CONFIG_SQL);
    if (rc == 0)
        rc = sqlw_prepare(&v->w,
                          "INSERT OR IGNORE INTO tb_config (id, graph_type, task, tool_tip, micro_steps, "
                          "overflow_check, node_colors, rank_list, step_list) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                          &st);
    if (rc == 0) {
        bind_text(st, 1, "1", 1);
        const char *type = v->compare ? "compare" : "build";
        bind_text(st, 2, type, strlen(type));
        if (v->compare) {
            const char *task = vis_task_name(v->task);
            bind_text(st, 3, task, strlen(task));
            vis_tool_tip(&tip, v->task);
            bind_text(st, 4, tip.buf, tip.len);
            json_colors(&colors, v->task);
            bind_text(st, 7, colors.buf, colors.len);
        } else {
            /* a build has no task, tips nor legend: "", None, json.dumps(None) */
            bind_text(st, 3, "", 0);
            bind_text(st, 7, "null", 4);
        }
        sqlite3_bind_int64(st, 5, v->micro_steps);
        sqlite3_bind_int(st, 6, overflow_check != 0);
        json_numbers(&ranks, v->ranks, v->nranks);
        json_numbers(&steps, v->steps, v->nsteps);
        bind_text(st, 8, ranks.buf, ranks.len);
        bind_text(st, 9, steps.buf, steps.len);
        rc = sqlw_step(&v->w, st);
    }
    sqlite3_finalize(st);
    for (size_t k = 0; k < sizeof INDEXES / sizeof *INDEXES && rc == 0; k++)
        rc = sqlw_exec(&v->w, INDEXES[k]);
    sqlite3_finalize(v->node);
    sqlite3_finalize(v->stack);
    v->node = v->stack = NULL;
    /* commits; closing the last connection folds the WAL back into the file */
    if (rc == 0)
        rc = sqlw_close(&v->w);
    v->opened = rc == 0 ? 0 : v->opened;
    sb_free(&tip);
    sb_free(&colors);
    sb_free(&ranks);
    sb_free(&steps);
    if (rc == 0) {
        *path = xstrdup(v->path);
        char *tmp = v->tmp;
        v->tmp = NULL;
        rc = out_commit_new(tmp, path) < 0 ? -1 : 0;
        if (rc != 0) {
            free(*path);
            *path = NULL;
        }
    }
    visdb_abort(v);
    return rc;
}

void visdb_abort(visdb *v)
{
    if (!v)
        return;
    sqlite3_finalize(v->node);
    sqlite3_finalize(v->stack);
    if (v->opened) {
        /* the file is discarded: what the close commits is never seen */
        err_record saved;
        err_take(&saved);
        sqlw_close(&v->w);
        if (saved.cause != ERR_NONE)
            err_restore(&saved);
        else
            err_clear();
    }
    remove_tmp(v);
    free(v->path);
    free(v->ranks);
    free(v->steps);
    free(v);
}
