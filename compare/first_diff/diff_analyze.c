/* compare -da, second half: msprobe 8.3's DiffAnalyzer (find_first) over the
 * per-rank first-diff results, with its defects fixed (README, Differences):
 *   - a src/dst argument is compared with the rank as a number (8.3 compares
 *     the text "0" with the int 0, so a broadcast's root looked like a
 *     receiver and a gather's root like a sender);
 *   - rank 0 named by src/dst counts as a partner (8.3 dropped it);
 *   - a partner must carry the op's own API family (MintDistributed.*,
 *     communication.comm_func.*), not always "Distributed.", and exactly its
 *     API (send does not pair with send_object_list);
 *   - a partner rank without a result is skipped with a warning (8.3 crashed);
 *   - a value that is no rank (a non-integer, a P2POp without peer) is
 *     ignored instead of aborting the run.
 */
#include "compare/first_diff/diff_analyze.h"
#include "model/commgraph.h"
#include "base/files.h"
#include "base/outdir.h"
#include "format/json.h"
#include "format/jsonw.h"
#include "base/log.h"
#include "base/err.h"
#include "base/mem.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* An op's rows of one state as msprobe's DataNode keeps them: a dict keyed by
 * NPU Name (first position, last row). */
typedef struct {
    const jval *name;        /* NPU Name (any JSON value; NULL: missing) */
    const jval *row;
} io_row;

typedef struct {
    io_row *v;
    size_t n;
} io_rows;

/* A rank's result as the search needs it: op names and descriptions. The
 * parsed file is dropped after reading (results can be big) and read again
 * only for a rank that holds a finding. */
typedef struct {
    long rank;
    const char *path;
    size_t nops;
    const char **names;      /* entry names, NUL-terminated */
    uint32_t *member;        /* the entry's member index in the file's object */
    cg_op *ops;
} da_rank;

static const char *const comm_keywords[] = {
    "send", "recv", "broadcast", "all_reduce", "reduce", "all_gather", "gather", "isend", "irecv", "scatter",
    "reduce_scatter", "_reduce_scatter_base", "_all_gather_base", "all_to_all_single", "all_to_all",
    "all_gather_into_tensor", "reduce_scatter_tensor", "send_object_list", "recv_object_list"};
static const char *const comm_families[] = {"Distributed", "MintDistributed", "communication.comm_func"};
static const char *const ignore_words[] = {"Torch.empty", "Torch.fill", "Tensor.__setitem__", "parameters_grad",
                                           "Tensor.to"};
static const char *const p2p_pairs[][2] = {
    {"send", "recv"}, {"isend", "irecv"}, {"send_object_list", "recv_object_list"}};
static const char *const directed[] = {"send", "recv", "isend", "irecv", "broadcast", "scatter", "gather",
                                       "send_object_list", "recv_object_list"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int is_comm_op(const char *name)
{
    int family = 0;
    for (size_t i = 0; i < COUNT(comm_families) && !family; i++)
        family = !strncmp(name, comm_families[i], strlen(comm_families[i]));
    for (size_t i = 0; i < COUNT(comm_keywords) && family; i++)
        if (strstr(name, comm_keywords[i]))
            return 1;
    return 0;
}

static int is_ignored(const char *name)
{
    for (size_t i = 0; i < COUNT(ignore_words); i++)
        if (strstr(name, ignore_words[i]))
            return 1;
    return 0;
}

static int in_list(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(s, list[i]))
            return 1;
    return 0;
}

/* A value that names a rank: an integer, or text of one ("1" as compare
 * writes it). */
static int as_rank(const jval *v, long *out)
{
    double x;
    if (v && v->type == J_NUMBER) {
        x = v->u.num;
    } else if (v && v->type == J_STRING && v->len && v->len < 32) {
        char buf[32], *end;
        memcpy(buf, v->u.str, v->len);
        buf[v->len] = 0;
        /* decimal text only: no "inf", "nan" or hex */
        if (strspn(buf, " \t\n0123456789+-.eE") != v->len)
            return 0;
        x = strtod(buf, &end);
        while (isspace((unsigned char)*end))
            end++;
        if (end == buf || *end)
            return 0;
    } else {
        return 0;
    }
    if (!isfinite(x) || x != floor(x) || fabs(x) > 1e15)
        return 0;
    *out = (long)x;
    return 1;
}

/* What a row holds for rank tests: NPU MD5 in md5 mode, else NPU max. */
static const jval *metric_value(const jval *row)
{
    const jval *max = json_get(row, "NPU max");
    if (max)
        return max;
    return json_get(row, "NPU MD5");
}

static int same_name(const jval *a, const jval *b)
{
    if (!a || !b)
        return a == b || (!a && b->type == J_NULL) || (!b && a->type == J_NULL);
    if (a->type != b->type)
        return 0;
    if (a->type == J_STRING)
        return a->len == b->len && !memcmp(a->u.str, b->u.str, a->len);
    if (a->type == J_NUMBER)
        return a->u.num == b->u.num;
    return a->type == J_NULL || a->type == J_TRUE || a->type == J_FALSE;
}

static void collect(const jval *items, const char *state, io_rows *out)
{
    out->v = NULL;
    out->n = 0;
    if (!items || items->type != J_ARRAY)
        return;
    out->v = xmalloc_array(items->len ? items->len : 1, sizeof *out->v);
    for (uint32_t i = 0; i < items->len; i++) {
        const jval *row = &items->u.items[i];
        if (!json_str_eq(json_get(row, "state"), state))
            continue;
        const jval *name = json_get(row, "NPU Name");
        size_t k = 0;
        while (k < out->n && !same_name(out->v[k].name, name))
            k++;
        if (k == out->n)
            out->v[out->n++].name = name;
        out->v[k].row = row;
    }
}

/* A name as the text the substring tests of msprobe look at. */
static const char *name_text(const io_row *r, char *buf, size_t cap)
{
    if (r->name && r->name->type == J_STRING) {
        size_t n = r->name->len < cap - 1 ? r->name->len : cap - 1;
        memcpy(buf, r->name->u.str, n);
        buf[n] = 0;
        return buf;
    }
    return "";
}

typedef struct {
    long *v;
    size_t n, cap;
} rank_set;

static void rank_add(rank_set *s, long r)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i] == r)
            return;
    GROW(s->v, s->cap, s->n + 1);
    s->v[s->n++] = r;
}

/* "[0, 1, 2]" as compare writes a ProcessGroup. */
static void add_group(rank_set *s, const jval *v)
{
    if (!v || v->type != J_STRING || v->len < 2 || v->u.str[0] != '[' || v->u.str[v->len - 1] != ']')
        return;
    const char *p = v->u.str + 1, *end = v->u.str + v->len - 1;
    while (p < end) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *stop = comma ? comma : end;
        jval part = {.type = J_STRING, .len = (uint32_t)(stop - p), .u.str = p};
        long r;
        if (as_rank(&part, &r))
            rank_add(s, r);
        p = stop + 1;
    }
}

/* A comm op's kind and partners from its input rows (find_first's
 * _resolve_type and find_connected_nodes, fixed). */
static int describe_comm(da_rank *rk, size_t i, const jval *value, arena *a)
{
    cg_op *o = &rk->ops[i];
    const char *name = rk->names[i];
    const char *fam_end;
    size_t famlen = strlen("communication.comm_func");
    if (!strncmp(name, "communication.comm_func.", famlen + 1))
        fam_end = name + famlen;
    else
        fam_end = strchr(name, '.');
    size_t dots = 0;
    for (const char *p = name; *p; p++)
        dots += *p == '.';
    const char *api = fam_end ? fam_end + 1 : NULL;
    const char *api_end = api ? strchr(api, '.') : NULL;
    if (dots < 3 || !api_end)
        return err_input(rk->path, "invalid op_name: %s (a communication op has at least 4 dot-separated fields)",
                         name);
    size_t flen = (size_t)(fam_end - name), alen = (size_t)(api_end - api);
    char *own = arena_strndup(a, name, flen + 1 + alen);
    const char *mine = own + flen + 1;
    const char *peer = mine;
    for (size_t k = 0; k < COUNT(p2p_pairs); k++)
        for (int d = 0; d < 2; d++)
            if (!strcmp(mine, p2p_pairs[k][d]))
                peer = p2p_pairs[k][1 - d];
    strbuf sb = STRBUF_INIT;
    sb_add(&sb, name, flen + 1);
    sb_adds(&sb, peer);
    o->api = own;
    o->peer_api = arena_strndup(a, sb.buf, sb.len);
    sb_free(&sb);
    if (in_list(mine, directed, COUNT(directed)))
        o->flags |= CG_DIRECTED;

    io_rows in;
    collect(json_get(value, "op_items"), "input", &in);
    char buf[512];
    o->type = CG_LINK;
    int decided = 0;
    static const char *const dirs[2] = {"src", "dst"};
    for (int d = 0; d < 2 && !decided; d++)
        for (size_t k = 0; k < in.n && !decided; k++) {
            if (!strstr(name_text(&in.v[k], buf, sizeof buf), dirs[d]))
                continue;
            long r;
            int mine_rank = as_rank(metric_value(in.v[k].row), &r) && r == rk->rank;
            /* the rank named by src is the sender's: am I it? */
            o->type = (uint8_t)((d == 0) == mine_rank ? CG_SRC : CG_DST);
            decided = 1;
        }
    rank_set rs = {0};
    for (size_t k = 0; k < in.n; k++) {
        const char *t = name_text(&in.v[k], buf, sizeof buf);
        size_t tl = strlen(t);
        long r;
        if (strstr(t, "dst") || strstr(t, "src")) {
            if (as_rank(metric_value(in.v[k].row), &r))
                rank_add(&rs, r);
        } else if (tl >= 6 && !strcmp(t + tl - 6, ".group")) {
            add_group(&rs, metric_value(in.v[k].row));
        } else {
            const jval *peer_v = json_get(in.v[k].row, "NPU P2POp peer");
            if (!json_str_eq(peer_v, "None") && as_rank(peer_v, &r))
                rank_add(&rs, r);
        }
    }
    free(in.v);
    if (rs.n) {
        long *keep = arena_alloc(a, rs.n * sizeof *keep);
        memcpy(keep, rs.v, rs.n * sizeof *keep);
        o->ranks = keep;
        o->nranks = rs.n;
    }
    free(rs.v);
    return 0;
}

/* The parsed result file of a rank (in `tmp`), checked to be an object. */
static const jval *parse_result(const char *path, mapped_file *map, arena *tmp)
{
    jval *root = arena_alloc(tmp, sizeof *root);
    if (json_load_file(path, 0, map, tmp, root,
                       "is not a JSON object of API results (compare_result_rank*.json of compare -da)") != 0)
        return NULL;
    return root;
}

static int read_ops(da_rank *rk, const jval *root, arena *a)
{
    rk->names = arena_alloc(a, (root->len + 1) * sizeof *rk->names);
    rk->member = arena_alloc(a, (root->len + 1) * sizeof *rk->member);
    rk->ops = arena_calloc(a, (root->len + 1) * sizeof *rk->ops);
    for (uint32_t m = 0; m < root->len; m++) {
        const jval *v = json_member_value(root, m);
        if (!v)
            continue;
        const jmember *mem = &root->u.members[m];
        size_t i = rk->nops++;
        rk->names[i] = arena_strndup(a, mem->key, mem->keylen);
        rk->member[i] = m;
        if (v->type != J_OBJECT)
            return err_input(rk->path, "entry %s is not an object with is_same and op_items", rk->names[i]);
        const jval *items = json_get(v, "op_items");
        if (items && items->type != J_ARRAY && items->type != J_NULL)
            return err_input(rk->path, "op_items of %s is not a list", rk->names[i]);
        for (uint32_t k = 0; items && items->type == J_ARRAY && k < items->len; k++)
            if (items->u.items[k].type != J_OBJECT)
                return err_input(rk->path, "op_items of %s holds a row that is not an object", rk->names[i]);
        const jval *same = json_get(v, "is_same");
        cg_op *o = &rk->ops[i];
        o->name = rk->names[i];
        if (same && !json_truthy(same))
            o->flags |= CG_FLAGGED | CG_KEEP;
        if (is_ignored(o->name))
            o->flags |= CG_IGNORED;
        if (is_comm_op(o->name)) {
            o->flags |= CG_COMM;
            if (describe_comm(rk, i, v, a) != 0)
                return -1;
        }
    }
    return 0;
}

static int load_rank(da_rank *rk, arena *a)
{
    mapped_file map = {0};
    arena tmp;
    arena_init(&tmp, 1 << 20);
    const jval *root = parse_result(rk->path, &map, &tmp);
    int rc = root ? read_ops(rk, root, a) : -1;
    arena_free(&tmp);
    file_unmap(&map);
    return rc;
}

static void engine_log(void *arg, int level, const char *msg)
{
    if (level >= CG_WARN)
        log_warn("%s", msg);
}

/* A dict key as json.dump writes a Python key. */
static void write_key(strbuf *sb, const jval *k)
{
    if (!k || k->type == J_NULL) {
        sb_adds(sb, "\"null\"");
    } else if (k->type == J_STRING) {
        jsonw_str_ascii(sb, k->u.str, k->len);
    } else {
        strbuf t = STRBUF_INIT;
        if (k->type == J_TRUE || k->type == J_FALSE)
            sb_adds(&t, k->type == J_TRUE ? "true" : "false");
        else
            jsonw_value(&t, k, 0, 0);
        jsonw_str_ascii(sb, t.buf, t.len);
        sb_free(&t);
    }
}

static void write_value(strbuf *sb, const jval *v, int level)
{
    if (v)
        jsonw_value(sb, v, 2, level);
    else
        sb_adds(sb, "null");
}

/* DataNode's metrics of a row: the four NPU statistics (or the md5), and
 * the P2POp peer when the table has that column. */
static void write_metrics(strbuf *sb, const jval *row, int level)
{
    static const char *const stats[4] = {"NPU max", "NPU min", "NPU mean", "NPU l2norm"};
    const char *keys[5];
    size_t n = 0;
    if (json_get(row, "NPU max"))
        for (int k = 0; k < 4; k++)
            keys[n++] = stats[k];
    else if (json_get(row, "NPU MD5"))
        keys[n++] = "NPU MD5";
    if (json_get(row, "NPU P2POp peer"))
        keys[n++] = "NPU P2POp peer";
    if (!n) {
        sb_adds(sb, "{}");
        return;
    }
    sb_addc(sb, '{');
    for (size_t k = 0; k < n; k++) {
        if (k)
            sb_addc(sb, ',');
        jsonw_newline(sb, 2, level + 1);
        jsonw_str_ascii(sb, keys[k], strlen(keys[k]));
        sb_add(sb, ": ", 2);
        write_value(sb, json_get(row, keys[k]), level + 1);
    }
    jsonw_newline(sb, 2, level);
    sb_addc(sb, '}');
}

static void write_rows(strbuf *sb, const io_rows *rows, int level)
{
    if (!rows->n) {
        sb_adds(sb, "{}");
        return;
    }
    sb_addc(sb, '{');
    for (size_t k = 0; k < rows->n; k++) {
        if (k)
            sb_addc(sb, ',');
        jsonw_newline(sb, 2, level + 1);
        write_key(sb, rows->v[k].name);
        sb_add(sb, ": ", 2);
        write_metrics(sb, rows->v[k].row, level + 1);
    }
    jsonw_newline(sb, 2, level);
    sb_addc(sb, '}');
}

/* gen_node_info() of one op, at nesting level 2. */
static void write_node(strbuf *sb, const char *name, const jval *value)
{
    const jval *items = json_get(value, "op_items");
    io_rows in, out;
    collect(items, "input", &in);
    collect(items, "output", &out);
    /* the first stack that is not "N/A" and not empty; msprobe keeps
     * looking while what it holds is falsy */
    const jval *stack = NULL;
    for (uint32_t k = 0; items && items->type == J_ARRAY && k < items->len; k++) {
        const jval *s = json_get(&items->u.items[k], "NPU_Stack_Info");
        if (!json_str_eq(s, "N/A") && !json_truthy(stack))
            stack = s;
    }
    sb_addc(sb, '{');
    jsonw_newline(sb, 2, 3);
    sb_adds(sb, "\"op_name\": ");
    jsonw_str_ascii(sb, name, strlen(name));
    sb_addc(sb, ',');
    jsonw_newline(sb, 2, 3);
    sb_adds(sb, "\"data_info\": {");
    jsonw_newline(sb, 2, 4);
    sb_adds(sb, "\"input\": ");
    write_rows(sb, &in, 4);
    sb_addc(sb, ',');
    jsonw_newline(sb, 2, 4);
    sb_adds(sb, "\"output\": ");
    write_rows(sb, &out, 4);
    jsonw_newline(sb, 2, 3);
    sb_adds(sb, "},");
    jsonw_newline(sb, 2, 3);
    sb_adds(sb, "\"stack_info\": ");
    write_value(sb, stack, 3);
    jsonw_newline(sb, 2, 2);
    sb_addc(sb, '}');
    free(in.v);
    free(out.v);
}

static int write_analysis(const da_rank *rk, const cg_result *res, char **path)
{
    strbuf sb = STRBUF_INIT;
    sb_addc(&sb, '{');
    uint8_t *done = xcalloc(res->nhits, 1);
    int rc = 0, first_rank = 1;
    for (size_t h = 0; h < res->nhits && rc == 0; h++) {
        if (done[h])
            continue;
        const da_rank *r = &rk[res->hits[h].rank];
        mapped_file map = {0};
        arena tmp;
        arena_init(&tmp, 1 << 20);
        const jval *root = parse_result(r->path, &map, &tmp);
        if (!root) {
            rc = -1;
        } else {
            if (!first_rank)
                sb_addc(&sb, ',');
            first_rank = 0;
            jsonw_newline(&sb, 2, 1);
            sb_addf(&sb, "\"rank_%ld\": [", r->rank);
            int first = 1;
            for (size_t k = h; k < res->nhits; k++) {
                if (res->hits[k].rank != res->hits[h].rank)
                    continue;
                done[k] = 1;
                if (!first)
                    sb_addc(&sb, ',');
                first = 0;
                jsonw_newline(&sb, 2, 2);
                size_t op = res->hits[k].op;
                write_node(&sb, r->names[op], json_member_value(root, r->member[op]));
            }
            jsonw_newline(&sb, 2, 1);
            sb_addc(&sb, ']');
        }
        arena_free(&tmp);
        file_unmap(&map);
    }
    free(done);
    jsonw_newline(&sb, 2, 0);
    sb_addc(&sb, '}');
    /* never over another file: a taken name moves on by a nanosecond */
    if (rc == 0)
        rc = file_write_new(path, sb.buf, sb.len) < 0 ? -1 : 0;
    sb_free(&sb);
    return rc;
}

static int by_rank(const void *a, const void *b)
{
    const da_input *x = a, *y = b;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

int diff_analyze(const da_input *in, size_t n, const char *out_dir, char **result_path, strbuf *line)
{
    *result_path = NULL;
    /* ranks in ascending order; a rank given twice keeps its last file */
    da_input *sorted = xmalloc_array(n ? n : 1, sizeof *sorted);
    memcpy(sorted, in, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, by_rank);
    size_t nr = 0;
    for (size_t i = 0; i < n; i++) {
        if (nr && sorted[nr - 1].rank == sorted[i].rank)
            nr--;
        sorted[nr++] = sorted[i];
    }
    da_rank *rk = xcalloc(nr ? nr : 1, sizeof *rk);
    cg_rank *cr = xcalloc(nr ? nr : 1, sizeof *cr);
    arena a;
    arena_init(&a, 1 << 20);
    int rc = 0;
    for (size_t i = 0; i < nr && rc == 0; i++) {
        rk[i].rank = sorted[i].rank;
        rk[i].path = sorted[i].path;
        rc = load_rank(&rk[i], &a);
        cr[i] = (cg_rank){.rank = rk[i].rank, .ops = rk[i].ops, .nops = rk[i].nops};
    }
    if (rc == 0) {
        cg_params p = {.skip_ignored_first = 1,
                       .monotonic_layers = 1,
                       .exact_api = 1,
                       .all_compute_ops = 1,
                       .keep_all_minima = 1,
                       .unconnected_level = CG_DEBUG,
                       .log = engine_log,
                       .log_level = CG_WARN};
        cg_result res;
        cg_search(cr, nr, &p, &res);
        if (res.nhits) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            char name[64];
            snprintf(name, sizeof name, "diff_analyze_%lld%09ld.json", (long long)ts.tv_sec, (long)ts.tv_nsec);
            char *path = path_join(out_dir, name);
            rc = dir_create(out_dir) != 0 ? -1 : write_analysis(rk, &res, &path);
            if (rc == 0) {
                sb_adds(line, "first diff: ");
                for (size_t h = 0; h < res.nhits; h++)
                    sb_addf(line, "%srank %ld op %s", h ? ", " : "", rk[res.hits[h].rank].rank,
                            rk[res.hits[h].rank].names[res.hits[h].op]);
                sb_addf(line, " -> %s", path);
                *result_path = path;
            } else {
                free(path);
            }
        } else {
            sb_adds(line, "no diff node found");
        }
        cg_result_free(&res);
    }
    arena_free(&a);
    free(rk);
    free(cr);
    free(sorted);
    return rc;
}

int diff_analyze_prepare(const char *npu, job_list *jobs)
{
    if (jobs->n && !jobs->v[0].suffix[0])
        return err_input(npu, "-da follows communication between ranks: it needs step directories (holding rank0, "
                              "rank1, ...) or a dump root, not a single dump");
    /* msprobe 8.3 compares debug.json too, into the same file name as
     * dump.json, so the analysis read whichever came last */
    size_t k = 0, dropped = 0;
    for (size_t i = 0; i < jobs->n; i++) {
        compare_job *j = &jobs->v[i];
        if (!path_has_suffix(j->npu_json, "/debug.json") && strcmp(j->npu_json, "debug.json") != 0) {
            jobs->v[k++] = *j;
            continue;
        }
        dropped++;
        job_free(j);
    }
    jobs->n = k;
    if (dropped)
        log_warn("-da analyzes dump.json: %zu debug.json pair(s) left out", dropped);
    if (!jobs->n)
        return err_input(npu, "-da found no dump.json to compare (only debug.json)");
    return 0;
}

/* "_rank" -> 0, "_rank12" -> 12: the rank of a step directory's result. */
static long suffix_rank(const char *suffix)
{
    const char *d = strstr(suffix, "rank");
    return d && d[4] ? strtol(d + 4, NULL, 10) : 0;
}

int diff_analyze_jobs(const job_list *jobs, const compare_result *results, out_run *outputs)
{
    for (size_t i = 0; i < jobs->n;) {
        size_t j = i;
        while (j < jobs->n && !strcmp(jobs->v[j].out_dir, jobs->v[i].out_dir))
            j++;
        da_input *in = xmalloc_array(j - i, sizeof *in);
        size_t n = 0;
        for (size_t k = i; k < j; k++)
            if (results[k].result_path)
                in[n++] = (da_input){.rank = suffix_rank(jobs->v[k].suffix), .path = results[k].result_path};
        char *path = NULL;
        strbuf line = STRBUF_INIT;
        int rc = out_run_mkdir(outputs, jobs->v[i].out_dir);
        if (rc == 0)
            rc = diff_analyze(in, n, jobs->v[i].out_dir, &path, &line);
        out_run_add(outputs, path);
        free(in);
        if (rc != 0) {
            sb_free(&line);
            return err_report();
        }
        /* a dump root: say which step */
        const char *slash = strchr(jobs->v[i].label, '/');
        if (slash)
            log_info("%.*s: %s", (int)(slash - jobs->v[i].label), jobs->v[i].label, sb_str(&line));
        else
            log_info("%s", sb_str(&line));
        free(path);
        sb_free(&line);
        i = j;
    }
    return EXIT_OK;
}
