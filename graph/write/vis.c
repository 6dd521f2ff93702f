/* The .vis file (spec §8): what Python's json.dump(result, indent=4) writes
 * for msprobe's export dict -- 4-space indentation, ensure_ascii escapes,
 * floats as repr, no final newline -- streamed node by node to a temporary
 * file beside the result. */
#include "graph/write/vis.h"
#include "graph/model/steps.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/outstream.h"
#include "base/pool.h"
#include "format/jsonw.h"
#include "model/overflow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* .vis is json.dump(indent=4) */
static void nl(strbuf *sb, int level) { jsonw_newline(sb, 4, level); }
static void key(strbuf *sb, int level, const char *k) { jsonw_key(sb, 4, level, k); }

/* Members rendered one a line ("key": value\n...) laid out at `level`. */
static void put_members(strbuf *sb, const char *text, size_t n, int level)
{
    if (n == 0) {
        sb_add(sb, "{}", 2);
        return;
    }
    sb_addc(sb, '{');
    for (size_t i = 0; i < n;) {
        const char *e = memchr(text + i, '\n', n - i);
        size_t len = e ? (size_t)(e - text - i) : n - i;
        if (i)
            sb_addc(sb, ',');
        nl(sb, level);
        sb_add(sb, text + i, len);
        i += len + 1;
    }
    nl(sb, level - 1);
    sb_addc(sb, '}');
}

void vis_px(strbuf *sb, const gnode *nd)
{
    if (nd->px_kind == PX_INT)
        sb_addf(sb, "%.0f", nd->px);
    else
        jsonw_double(sb, nd->px);
}

const char *vis_comm_type(int t) { return t == 0 ? "send" : t == 1 ? "receive" : "send_receive"; }

static void put_dist_entry(strbuf *sb, const gdist_entry *d, int level)
{
    sb_addc(sb, '{');
    key(sb, level, "communications_type");
    jsonw_str_ascii(sb, vis_comm_type(d->type), strlen(vis_comm_type(d->type)));
    sb_addc(sb, ',');
    key(sb, level, "nodes_info");
    if (!d->nranks) {
        sb_add(sb, "{}", 2);
    } else {
        sb_addc(sb, '{');
        for (uint32_t k = 0; k < d->nranks; k++) {
            if (k)
                sb_addc(sb, ',');
            key(sb, level + 1, d->rank[k]);
            sb_addc(sb, '[');
            nl(sb, level + 2);
            jsonw_str_ascii(sb, d->index[k], strlen(d->index[k]));
            sb_addc(sb, ',');
            nl(sb, level + 2);
            jsonw_str_ascii(sb, d->node[k], strlen(d->node[k]));
            nl(sb, level + 1);
            sb_addc(sb, ']');
        }
        nl(sb, level);
        sb_addc(sb, '}');
    }
    nl(sb, level - 1);
    sb_addc(sb, '}');
}

static void put_path(strbuf *sb, const graph *g, long i, int level)
{
    const char **v;
    size_t n;
    graph_path(g, i, &v, &n);
    sb_addc(sb, '[');
    for (size_t k = 0; k < n; k++) {
        if (k)
            sb_addc(sb, ',');
        nl(sb, level);
        jsonw_str_ascii(sb, v[k], strlen(v[k]));
    }
    nl(sb, level - 1);
    sb_addc(sb, ']');
    free(v);
}

static const char NO_FORWARD[] =
    "This backward node cannot find the forward node and cannot retrieve stack information.";

static void put_stack(strbuf *sb, const gnode *nd, int level)
{
    if (nd->stack_kind == STACK_NONE) {
        sb_add(sb, "[]", 2);
    } else if (nd->stack_kind == STACK_NO_FORWARD) {
        sb_addc(sb, '[');
        nl(sb, level);
        jsonw_str_ascii(sb, NO_FORWARD, sizeof NO_FORWARD - 1);
        nl(sb, level - 1);
        sb_addc(sb, ']');
    } else if (nd->stack_line >= 0) {
        sb_addc(sb, '[');
        nl(sb, level);
        jsonw_value(sb, &nd->stack->u.items[nd->stack_line], 4, level);
        nl(sb, level - 1);
        sb_addc(sb, ']');
    } else {
        jsonw_value(sb, nd->stack, 4, level - 1);
    }
}

int vis_items(vis_ctx *w, const graph *g, long i, int *have)
{
    const gnode *nd = &g->nodes[i];
    w->ncols = 0;
    if (gitems_read(&w->it, g->rd, nd->entry) != 0)
        return -1;
    *have = 1;
    w->cols_ok = 0;
    if (w->cmp && g->side == 1 && nd->cmp_with >= 0) {
        if (gcompare_columns(w->cmp, i, &w->it, &w->bit, &w->cols) != 0)
            return -1;
        w->cols_ok = 1;
    }
    return 0;
}

/* input_data or output_data of the node whose items vis_items() read */
void vis_item_map(vis_ctx *w, strbuf *sb, const graph *g, long i, int out, int level, int compact)
{
    const gnode *nd = &g->nodes[i];
    const gitem *v = out ? w->it.out : w->it.in;
    size_t n = out ? w->it.nout : w->it.nin;
    if (!n) {
        sb_add(sb, "{}", 2);
        return;
    }
    unsigned flags = w->item_flags | (memmem(nd->id, nd->idlen, "batch_isend_irecv", 17) ? ITEM_BATCH_P2P : 0);
    sb_addc(sb, '{');
    for (size_t k = 0; k < n; k++) {
        const dump_row *r = gitem_row(&w->it, &v[k]);
        const char *cols = "";
        size_t ncols = 0;
        if (w->cols_ok) {
            const size_t *off = out ? w->cols.out_off : w->cols.in_off;
            cols = w->cols.text.buf + off[k];
            ncols = off[k + 1] - off[k];
        }
        sb_reset(&w->tmp);
        item_render(&w->tmp, &w->it, &v[k], flags, cols, ncols);
        if (compact) {
            if (k)
                sb_add(sb, ", ", 2);
            jsonw_str_ascii(sb, r->name, strlen(r->name));
            sb_add(sb, ": {", 3);
            for (size_t a = 0; a < w->tmp.len;) {
                const char *e = memchr(w->tmp.buf + a, '\n', w->tmp.len - a);
                size_t len = (size_t)(e - w->tmp.buf) - a;
                if (a)
                    sb_add(sb, ", ", 2);
                sb_add(sb, w->tmp.buf + a, len);
                a += len + 1;
            }
            sb_addc(sb, '}');
            continue;
        }
        if (k)
            sb_addc(sb, ',');
        nl(sb, level);
        jsonw_str_ascii(sb, r->name, strlen(r->name));
        sb_add(sb, ": ", 2);
        put_members(sb, w->tmp.buf, w->tmp.len, level + 1);
    }
    if (compact) {
        sb_addc(sb, '}');
        return;
    }
    nl(sb, level - 1);
    sb_addc(sb, '}');
}

/* One node object, its members at `level`. */
static int put_node(vis_ctx *w, strbuf *sb, const graph *g, long i, int level)
{
    const gnode *nd = &g->nodes[i];
    int have = 0;
    if (vis_items(w, g, i, &have) != 0)
        return -1;
    sb_addc(sb, '{');
    key(sb, level, "id");
    jsonw_str_ascii(sb, nd->id, nd->idlen);
    sb_addc(sb, ',');
    key(sb, level, "node_type");
    sb_addf(sb, "%d,", nd->op);
    key(sb, level, "output_data");
    vis_item_map(w, sb, g, i, 1, level + 1, 0);
    sb_addc(sb, ',');
    key(sb, level, "input_data");
    vis_item_map(w, sb, g, i, 0, level + 1, 0);
    sb_addc(sb, ',');
    key(sb, level, "upnode");
    if (nd->up >= 0)
        jsonw_str_ascii(sb, g->nodes[nd->up].id, g->nodes[nd->up].idlen);
    else
        sb_add(sb, "\"None\"", 6);
    sb_addc(sb, ',');
    key(sb, level, "subnodes");
    if (!nd->nsub) {
        sb_add(sb, "[]", 2);
    } else {
        sb_addc(sb, '[');
        for (uint32_t k = 0; k < nd->nsub; k++) {
            if (k)
                sb_addc(sb, ',');
            nl(sb, level + 1);
            const gnode *c = &g->nodes[nd->sub[k]];
            jsonw_str_ascii(sb, c->id, c->idlen);
        }
        nl(sb, level);
        sb_addc(sb, ']');
    }
    sb_addc(sb, ',');
    key(sb, level, "matched_node_link");
    if (nd->link_side)
        put_path(sb, nd->link_side == g->side ? g : w->other, nd->link_node, level + 1);
    else
        sb_add(sb, "[]", 2);
    sb_addc(sb, ',');
    key(sb, level, "suggestions");
    sb_add(sb, "{},", 3);
    key(sb, level, "stack_info");
    put_stack(sb, nd, level + 1);
    sb_addc(sb, ',');
    if (nd->has_micro) {
        key(sb, level, "micro_step_id");
        sb_addf(sb, "%d,", nd->micro);
    }
    key(sb, level, "data");
    if (!nd->px_kind && !nd->md5_result && !nd->overflow) {
        sb_add(sb, "{}", 2);
    } else {
        sb_addc(sb, '{');
        int first = 1;
        if (nd->px_kind) {
            key(sb, level + 1, "precision_index");
            vis_px(sb, nd);
            first = 0;
        }
        if (nd->md5_result) {
            if (!first)
                sb_addc(sb, ',');
            key(sb, level + 1, "Result");
            sb_adds(sb, nd->md5_result == 1 ? "\"pass\"" : "\"Different\"");
            first = 0;
        }
        if (nd->overflow) {
            if (!first)
                sb_addc(sb, ',');
            key(sb, level + 1, "overflow_level");
            sb_addf(sb, "\"%s\"", ovf_level_name(nd->overflow));
        }
        nl(sb, level);
        sb_addc(sb, '}');
    }
    if (nd->dist) {
        sb_addc(sb, ',');
        key(sb, level, "matched_distributed");
        if (!nd->dist->is_list) {
            put_dist_entry(sb, &nd->dist->v[0], level + 1);
        } else {
            sb_addc(sb, '[');
            for (uint32_t k = 0; k < nd->dist->n; k++) {
                if (k)
                    sb_addc(sb, ',');
                nl(sb, level + 1);
                put_dist_entry(sb, &nd->dist->v[k], level + 2);
            }
            nl(sb, level);
            sb_addc(sb, ']');
        }
    }
    nl(sb, level - 1);
    sb_addc(sb, '}');
    return 0;
}

/* Nodes are rendered in chunks, a batch of chunks at a time on all the
 * threads given (each with its own readers and guards), and written out in
 * order: the memory held is one batch, not the file. */
enum { CHUNK_NODES = 256, CHUNKS_PER_THREAD = 8 };

typedef struct {
    const vis_ctx *proto;
    const graph *g, *other;
    int level;
    size_t first;             /* node of chunk 0 of the batch */
    strbuf *out;              /* per chunk */
    vis_ctx *ctx;             /* per thread slot, made on first use */
} render_batch;

static int render_chunk(void *arg, size_t k)
{
    render_batch *rb = arg;
    const graph *g = rb->g;
    size_t from = rb->first + k * CHUNK_NODES, to = from + CHUNK_NODES < g->n ? from + CHUNK_NODES : g->n;
    vis_ctx w;
    vis_ctx_init(&w, rb->proto->cmp);
    w.other = rb->other;
    strbuf *sb = &rb->out[k];
    sb_reset(sb);
    file_guard guard, bguard;
    file_guard_begin(&guard, &g->rd->dump);
    if (w.cmp && g->side == 1)
        file_guard_begin(&bguard, &w.cmp->b->rd->dump);
    int rc = 0;
    for (size_t i = from; i < to && rc == 0; i++) {
        if (i)
            sb_addc(sb, ',');
        nl(sb, rb->level + 1);
        jsonw_str_ascii(sb, g->nodes[i].id, g->nodes[i].idlen);
        sb_add(sb, ": ", 2);
        rc = put_node(&w, sb, g, (long)i, rb->level + 2);
    }
    if (w.cmp && g->side == 1 && file_guard_end(&bguard) != 0)
        rc = -1;
    if (file_guard_end(&guard) != 0)
        rc = -1;
    vis_ctx_free(&w);
    return rc;
}

/* "root", "dump_data_dir", "node" of a graph object at `level`. */
static int put_graph(vis_ctx *w, out_stream *os, const graph *g, const graph *other, int level, int threads)
{
    strbuf *sb = &os->sb;
    key(sb, level, "root");
    sb_adds(sb, "\"" GRAPH_ROOT "\",");
    key(sb, level, "dump_data_dir");
    jsonw_value(sb, &g->rd->dump_data_dir, 4, level);
    sb_addc(sb, ',');
    key(sb, level, "node");
    sb_addc(sb, '{');
    size_t per_batch = (size_t)(threads > 0 ? threads : 1) * CHUNKS_PER_THREAD;
    strbuf *bufs = xcalloc(per_batch, sizeof *bufs);
    render_batch rb = {.proto = w, .g = g, .other = other, .level = level, .out = bufs};
    int rc = 0;
    for (size_t first = 0; first < g->n && rc == 0; first += per_batch * CHUNK_NODES) {
        size_t chunks = (g->n - first + CHUNK_NODES - 1) / CHUNK_NODES;
        if (chunks > per_batch)
            chunks = per_batch;
        rb.first = first;
        rc = pool_run(chunks, threads, render_chunk, &rb, NULL);
        for (size_t k = 0; k < chunks && rc == 0; k++)
            rc = out_stream_write(os, bufs[k].buf, bufs[k].len);
    }
    for (size_t k = 0; k < per_batch; k++)
        sb_free(&bufs[k]);
    free(bufs);
    nl(sb, level);
    sb_addc(sb, '}');
    return rc;
}

void vis_ctx_init(vis_ctx *w, const gcompare *cmp)
{
    memset(w, 0, sizeof *w);
    w->cmp = cmp;
    gitems_init(&w->it);
    gitems_init(&w->bit);
    if (cmp && cmp->task == TASK_MD5)
        w->item_flags = ITEM_MD5;
}

void vis_ctx_free(vis_ctx *w)
{
    gitems_free(&w->it);
    gitems_free(&w->bit);
    gcolumns_free(&w->cols);
    sb_free(&w->tmp);
}

/* ---- compare: ToolTip and Colors (§8.4, §8.5) ----------------------------- */

static const char *const TASK_NAMES[] = {"summary", "md5", "all", "structure"};

const char *vis_task_name(int task) { return TASK_NAMES[task]; }

void vis_tool_tip(strbuf *sb, int task)
{
    static const char *const summary[] = {
        "Max diff", "NPU与标杆API统计信息比对，最大值的差值", "Min diff", "NPU与标杆API统计信息比对，最小值的差值",
        "Mean diff", "NPU与标杆API统计信息比对，平均值的差值", "L2norm diff",
        "NPU与标杆API统计信息比对，2范数（平方根）的差值", NULL};
    static const char *const md5[] = {"md5", "数据MD5信息，用于比较两个数据信息是否完全一致", NULL};
    static const char *const real[] = {
        "One Thousandth Err Ratio",
        "Tensor中的元素逐个与对应的标杆数据对比，相对误差小于千分之一的比例占总元素个数的比例，比例越接近1越好",
        "Five Thousandths Err Ratio",
        "Tensor中的元素逐个与对应的标杆数据对比，相对误差小于千分之五的比例占总元素个数的比例，比例越接近1越好",
        "Cosine",
        "通过计算两个向量的余弦值来判断其相似度，数值越接近于1说明计算出的两个张量越相似，实际可接受阈值为大于0.99。"
        "在计算中可能会存在nan，主要由于可能会出现其中一个向量为0",
        "MaxAbsErr", "当最大绝对误差越接近0表示其计算的误差越小，实际可接受阈值为小于0.001", "MaxRelativeErr",
        "当最大相对误差越接近0表示其计算的误差越小。当dump数据中存在0或Nan时，比对结果中最大相对误差则出现inf或Nan的情况，"
        "属于正常现象",
        NULL};
    const char *const *t = task == TASK_SUMMARY ? summary : task == TASK_MD5 ? md5 : real;
    sb_addc(sb, '{');
    for (int k = 0; t[k]; k += 2) {
        if (k)
            sb_add(sb, ", ", 2);
        jsonw_str_ascii(sb, t[k], strlen(t[k]));
        sb_add(sb, ": ", 2);
        jsonw_str_ascii(sb, t[k + 1], strlen(t[k + 1]));
    }
    sb_addc(sb, '}');
}

static const char SUMMARY_DESC[] = "此节点所有输入输出的统计量相对误差, 值越大代表测量值与标杆值的偏差越大, "
                                   "相对误差计算方式:|(测量值-标杆值)/标杆值|";
static const char REAL_DESC[] =
    "此节点所有输入的最小双千分之一和所有输出的最小双千分之一的差值的绝对值, 代表双千指标的变化情况, "
    "值越大代表测量值与标杆值的偏差越大, 双千分之一指标计算方式："
    "Tensor中的元素逐个与对应的标杆数据对比，相对误差小于千分之一的比例占总元素个数的比例，比例越接近1越好";
static const char MD5_Y[] = "与标杆相比, 此节点所有输入输出的md5值相同";
static const char MD5_N[] = "与标杆相比, 此节点任意输入输出的md5值不同";
static const char NOT_MATCHED[] = "比对过程中节点未匹配上";

const vis_color *vis_colors(int task, size_t *n)
{
    static const vis_color summary[] = {
        {"#FFFCF3", "0", "0.2", 0, 0.2, SUMMARY_DESC}, {"#FFEDBE", "0.2", "0.4", 0.2, 0.4, SUMMARY_DESC},
        {"#FFDC7F", "0.4", "0.6", 0.4, 0.6, SUMMARY_DESC}, {"#FFC62E", "0.6", "0.8", 0.6, 0.8, SUMMARY_DESC},
        {"#FF704D", "0.8", "1", 0.8, 1, SUMMARY_DESC},     {"#C7C7C7", NULL, NULL, 0, 0, NOT_MATCHED}};
    static const vis_color real[] = {
        {"#FFFCF3", "0", "0.05", 0, 0.05, REAL_DESC},    {"#FFEDBE", "0.05", "0.1", 0.05, 0.1, REAL_DESC},
        {"#FFDC7F", "0.1", "0.15", 0.1, 0.15, REAL_DESC}, {"#FFC62E", "0.15", "0.2", 0.15, 0.2, REAL_DESC},
        {"#FF704D", "0.2", "1", 0.2, 1, REAL_DESC},       {"#C7C7C7", NULL, NULL, 0, 0, NOT_MATCHED}};
    static const vis_color md5[] = {{"#FFFCF3", "1", "1", 1, 1, MD5_Y},
                                    {"#FF704D", "0", "0", 0, 0, MD5_N},
                                    {"#C7C7C7", NULL, NULL, 0, 0, NOT_MATCHED}};
    switch (task) {
    case TASK_SUMMARY:
        *n = 6;
        return summary;
    case TASK_REAL:
        *n = 6;
        return real;
    case TASK_MD5:
        *n = 3;
        return md5;
    default:
        *n = 1;
        return summary + 5;
    }
}

static void put_colors(strbuf *sb, int task, int level)
{
    size_t n;
    const vis_color *c = vis_colors(task, &n);
    sb_addc(sb, '{');
    for (size_t k = 0; k < n; k++) {
        if (k)
            sb_addc(sb, ',');
        key(sb, level, c[k].hex);
        sb_addc(sb, '{');
        key(sb, level + 1, "value");
        if (c[k].low) {
            sb_addc(sb, '[');
            nl(sb, level + 2);
            sb_adds(sb, c[k].low);
            sb_addc(sb, ',');
            nl(sb, level + 2);
            sb_adds(sb, c[k].high);
            nl(sb, level + 1);
            sb_addc(sb, ']');
        } else {
            sb_add(sb, "[]", 2);
        }
        sb_addc(sb, ',');
        key(sb, level + 1, "description");
        jsonw_str_ascii(sb, c[k].desc, strlen(c[k].desc));
        nl(sb, level);
        sb_addc(sb, '}');
    }
    nl(sb, level - 1);
    sb_addc(sb, '}');
}

int vis_render(out_stream *os, graph *n, graph *b, const gcompare *cmp, int overflow_check, int threads)
{
    vis_ctx w;
    vis_ctx_init(&w, cmp);
    strbuf *sb = &os->sb;
    int rc;
    sb_addc(sb, '{');
    if (!b) {
        rc = put_graph(&w, os, n, NULL, 1, threads);
    } else {
        key(sb, 1, "NPU");
        sb_addc(sb, '{');
        rc = put_graph(&w, os, n, b, 2, threads);
        nl(sb, 1);
        sb_add(sb, "},", 2);
        key(sb, 1, "Bench");
        sb_addc(sb, '{');
        if (rc == 0)
            rc = put_graph(&w, os, b, n, 2, threads);
        nl(sb, 1);
        sb_add(sb, "},", 2);
        key(sb, 1, "ToolTip");
        strbuf tip = STRBUF_INIT;
        vis_tool_tip(&tip, cmp->task);
        jsonw_str_ascii(sb, tip.buf, tip.len);
        sb_free(&tip);
        sb_addc(sb, ',');
        key(sb, 1, "Colors");
        put_colors(sb, cmp->task, 2);
    }
    sb_addc(sb, ',');
    key(sb, 1, "MicroSteps");
    sb_addf(sb, "%ld,", n->micro_steps);
    if (b) {
        key(sb, 1, "task");
        sb_addf(sb, "\"%s\",", vis_task_name(cmp->task));
    }
    key(sb, 1, "OverflowCheck");
    sb_adds(sb, overflow_check ? "true" : "false");
    nl(sb, 0);
    sb_addc(sb, '}');   /* and no newline after it, as json.dump */
    vis_ctx_free(&w);
    return rc;
}

int vis_write(char **path, graph *n, graph *b, const gcompare *cmp, int overflow_check, int threads)
{
    out_stream os;
    int rc = out_stream_open(&os, *path);
    *path = NULL;
    if (rc == 0)
        rc = vis_render(&os, n, b, cmp, overflow_check, threads);
    if (rc == 0)
        rc = out_stream_commit(&os);
    *path = os.path;
    out_stream_close(&os);
    return rc;
}

const char *vis_fill(int task, int px_kind, double px, int matched)
{
    if (!matched)
        return "#C7C7C7";
    if (px_kind == PX_NONE)
        return "#FFFFFF";
    size_t n;
    const vis_color *c = vis_colors(task, &n);
    for (size_t k = 0; k < n; k++) {
        if (!c[k].low)
            continue;
        if ((c[k].lo <= px && px < c[k].hi) || (c[k].hi == 1 && px == 1) || (c[k].lo == 0 && px == 0))
            return c[k].hex;
    }
    return "#FFFFFF";
}
