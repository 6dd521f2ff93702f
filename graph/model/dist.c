/* Links between the communication nodes of the ranks of a step (spec §7):
 * every Distributed.* node gets a unique id per rank -- its peer or group
 * and its running count -- and each is matched with the node of the same
 * id (a send's with the recv's) in the ranks it talks to. Here msprobe
 * 8.1.0's way for the .vis (its graphs' nodes and items) and the entry
 * point for both dialects; the newest msprobe's for the .vis.db (what it
 * reads back from its file) is dist_db.c; the ids, lookups and link
 * entries both use are dist_comm.c. */
#include "graph/model/dist.h"
#include "graph/model/dist_comm.h"
#include "graph/model/items.h"
#include "graph/model/steps.h"
#include "base/err.h"
#include "base/log.h"
#include "base/mem.h"
#include "py/pyeq.h"
#include "py/pystr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char CANNOT[] = "distributed nodes not matched";

static jval jcopy(arena *a, const jval *v)
{
    jval c = *v;
    if (v->type == J_STRING) {
        c.u.str = arena_strndup(a, v->u.str, v->len);
    } else if (v->type == J_NUMBER) {
        c.text = arena_strndup(a, v->text, v->len);
    } else if (v->type == J_ARRAY) {
        jval *items = arena_alloc(a, (v->len ? v->len : 1) * sizeof *items);
        for (uint32_t i = 0; i < v->len; i++)
            items[i] = jcopy(a, &v->u.items[i]);
        c.u.items = items;
    } else if (v->type == J_OBJECT) {
        jmember *m = arena_alloc(a, (v->len ? v->len : 1) * sizeof *m);
        for (uint32_t i = 0; i < v->len; i++) {
            m[i].key = arena_strndup(a, v->u.members[i].key, v->u.members[i].keylen);
            m[i].keylen = v->u.members[i].keylen;
            m[i].val = jcopy(a, &v->u.members[i].val);
        }
        c.u.members = m;
    }
    return c;
}

/* An item dict's value of `key` (gen_op_item's fill included), copied. */
static jval item_value(arena *a, const gitems *it, const gitem *g, const char *key)
{
    jval r = {.type = J_NULL};
    if (!g->leaf)
        return r;
    const dump_row *row = gitem_row(it, g);
    int filled = !json_truthy(json_get(g->leaf, "dtype"));
    if (filled && (!strcmp(key, "dtype") || !strcmp(key, "shape"))) {
        const char *s = !strcmp(key, "dtype") ? row->dtype : row->shape;
        r.type = J_STRING;
        r.len = (uint32_t)strlen(s);
        r.u.str = arena_strndup(a, s, r.len);
        return r;
    }
    static const char *const stats[4] = {"Max", "Min", "Mean", "Norm"};
    for (int k = 0; k < 4; k++) {
        if (strcmp(key, stats[k]) != 0)
            continue;
        const pyval pv = dump_stat(row, k), *p = &pv;
        switch (p->kind) {
        case PV_BOOL:
            r.type = p->num ? J_TRUE : J_FALSE;
            break;
        case PV_INT:
        case PV_FLOAT:
            r.type = J_NUMBER;
            r.is_int = p->kind == PV_INT;
            r.u.num = p->num;
            r.text = "";
            break;
        case PV_STR:
        case PV_OTHER:
            r.type = J_STRING;
            r.len = p->len;
            r.u.str = arena_strndup(a, p->text ? p->text : "", p->len);
            break;
        default:
            break;
        }
        return r;
    }
    const jval *v = json_get(g->leaf, key);
    return v ? jcopy(a, v) : r;
}

/* The item value `.get(key)` of input item {id}.input.{param}, or NULL. */
static const jval *input_value(arena *a, const gitems *it, const char *id, const char *param, const char *key)
{
    strbuf k = STRBUF_INIT;
    sb_addf(&k, "%s.input.%s", id, param);
    const gitem *g = comm_find_item(it, k.buf, 0);
    sb_free(&k);
    if (!g)
        return NULL;
    jval *v = arena_alloc(a, sizeof *v);
    *v = item_value(a, it, g, key);
    return v->type == J_NULL ? NULL : v;
}

static void str_of(strbuf *sb, const jval *v) { py_str_json(sb, v); }

static void read_rank(rank_comm *rc, graph *g, arena *a, gitems *it)
{
    memset(rc, 0, sizeof *rc);
    rc->g = g;
    strmap_init(&rc->by_uid, 64);
    strmap_init(&rc->by_node, 64);
    strmap counts, batch_counts;
    strmap_init(&counts, 64);
    strmap_init(&batch_counts, 16);
    size_t cap = 0;
    file_guard guard;
    file_guard_begin(&guard, &g->rd->dump);
    for (size_t i = 0; i < g->n; i++) {
        const gnode *nd = &g->nodes[i];
        comm_node *cn = comm_add(rc, &cap, i, a);
        if (!cn)
            continue;
        int added;
        if (gitems_read(it, g->rd, nd->entry) != 0) {
            err_clear();
            continue;
        }
        const comm_rule *rule = comm_rule_of(cn->api);
        if (rule)
            cn->param = input_value(a, it, nd->id, rule->param, "value");
        /* the group: {id}.input.group with non-empty group_ranks and group_id */
        const jval *gr = input_value(a, it, nd->id, "group", "group_ranks");
        const jval *gi = input_value(a, it, nd->id, "group", "group_id");
        if (gr && json_truthy(gr) && gi && json_truthy(gi)) {
            cn->group_ranks = gr;
            if (gi->type == J_STRING)
                cn->group_id = arena_strndup(a, gi->u.str, gi->len);
        }
        strbuf ok = STRBUF_INIT;
        sb_addf(&ok, "%s.output.0", nd->id);
        const gitem *o = comm_find_item(it, ok.buf, 1);
        sb_free(&ok);
        if (o) {
            static const char *const keys[6] = {"dtype", "shape", "Max", "Min", "Mean", "Norm"};
            cn->has_out = 1;
            for (int k = 0; k < 6; k++)
                cn->out[k] = item_value(a, it, o, keys[k]);
        }
        /* its unique id */
        strbuf gid = STRBUF_INIT;
        if (!strcmp(cn->api, "batch_isend_irecv")) {
            cn->uids = arena_alloc(a, (nd->np2p + 1) * sizeof *cn->uids);
            for (uint32_t k = 0; k < nd->np2p; k++) {
                const gp2p *p = &nd->p2p[k];
                if (!p->op || !p->peer) {
                    log_warn_as(CANNOT, "Cannot get param op or peer.");
                    continue;
                }
                sb_reset(&gid);
                sb_addf(&gid, "%s_rank%s_%s", p->op, p->peer, p->group_id);
                char *uid = comm_counted(a, &batch_counts, sb_str(&gid));
                cn->uids[cn->nuids++] = uid;
                *strmap_put(&rc->by_uid, uid, strlen(uid), i, &added) = i;
            }
        } else if (rule && rule->p2p) {
            if (cn->param) {
                sb_addf(&gid, "%srank", cn->api);
                str_of(&gid, cn->param);
                comm_unique_id(rc, cn, &counts, &gid, a);
            } else {
                log_warn_as(CANNOT, "The parameter %s of node %s does not exist, cannot match distributed node in "
                                    "rank%ld", rule->param, nd->id, g->rank);
            }
        } else if (cn->group_id) {
            sb_addf(&gid, "%s%s", cn->group_id, cn->api);
            comm_unique_id(rc, cn, &counts, &gid, a);
        }
        sb_free(&gid);
    }
    if (file_guard_end(&guard) != 0)
        err_clear();
    strmap_free(&counts);
    strmap_free(&batch_counts);
}

/* ---- matching (§7.3) --------------------------------------------------------- */

/* The graph of rank `r` (a JSON integer), or NULL. */
static rank_comm *rank_graph(dist_ctx *d, const jval *r)
{
    if (!r || r->type != J_NUMBER || !r->is_int)
        return NULL;
    rank_comm *hit = NULL;
    for (size_t k = 0; k < d->n; k++)
        if ((double)d->ranks[k].g->rank == r->u.num)
            hit = &d->ranks[k];   /* a later directory of one rank wins, as a dict */
    return hit;
}

static rank_comm *rank_graph_n(dist_ctx *d, long r)
{
    jval v = {.type = J_NUMBER, .is_int = 1, .u.num = (double)r};
    return rank_graph(d, &v);
}

static void p2p_match(dist_ctx *d, rank_comm *rc, comm_node *cn, const comm_rule *rule)
{
    graph *g = rc->g;
    gnode *nd = &g->nodes[cn->node];
    if (!cn->param)
        return;
    strbuf tr = STRBUF_INIT, me = STRBUF_INIT;
    str_of(&tr, cn->param);
    sb_addf(&me, "%ld", g->rank);
    rank_comm *trc = rank_graph(d, cn->param);
    long t = comm_target_node(trc, cn->uid, sb_str(&tr), sb_str(&me), cn->api, rule->target);
    if (!trc)
        log_warn_as(CANNOT, "Graph data does not exist, cannot match distributed node in rank%s", sb_str(&tr));
    comm_node *tc = t >= 0 ? comm_of(trc, t) : NULL;
    const comm_rule *trule = comm_rule_of(rule->target);
    if (tc) {
        gnode *tn = &trc->g->nodes[t];
        jval mine = {.type = J_NUMBER, .is_int = 1, .u.num = (double)g->rank};
        if (!tc->param) {
            log_warn_as(CANNOT, "The kwarg %s of node %s does not exist, cannot match distributed node in rank%s",
                        trule->param, tn->id, sb_str(&tr));
        } else if (!py_json_equal(tc->param, &mine)) {
            log_warn_as(CANNOT, "%s of rank%ld is expected to communicate with %s of rank%s, but the data shows "
                                "otherwise: cannot match distributed node",
                        nd->id, g->rank, tn->id, sb_str(&tr));
        } else {
            /* both outputs must be equal; a missing one matches nothing
             * (msprobe crashes, spec §10 #4) */
            int eq = cn->has_out && tc->has_out;
            for (int k = 0; k < 6 && eq; k++) {
                const jval *x = &cn->out[k], *y = &tc->out[k];
                eq = (x->type == J_NULL && y->type == J_NULL) || py_json_equal(x, y);
            }
            if (!eq) {
                log_warn_as(CANNOT, "%s output of rank%ld is different from the %s output of rank%s, cannot match "
                                    "distributed node",
                            nd->id, g->rank, tn->id, sb_str(&tr));
            } else {
                comm_link_one(d, nd, rule->type, sb_str(&tr), tn);
                comm_link_one(d, tn, trule->type, sb_str(&me), nd);
            }
        }
    }
    sb_free(&tr);
    sb_free(&me);
}

static void collective_match(dist_ctx *d, rank_comm *rc, comm_node *cn, const comm_rule *rule)
{
    graph *g = rc->g;
    gnode *nd = &g->nodes[cn->node];
    int type = COMM_SEND_RECEIVE;
    strbuf me = STRBUF_INIT;
    sb_addf(&me, "%ld", g->rank);
    if (rule) {
        /* broadcast, scatter, gather, reduce: on the root rank only */
        strbuf src = STRBUF_INIT;
        if (cn->param)
            str_of(&src, cn->param);
        int root = cn->param && !strcmp(sb_str(&src), sb_str(&me));
        sb_free(&src);
        if (!root) {
            sb_free(&me);
            return;
        }
        type = rule->type;
    }
    if (!cn->group_ranks || !cn->group_id || cn->group_ranks->type != J_ARRAY) {
        sb_free(&me);
        return;
    }
    gdist_entry e = {.type = (uint8_t)type};
    size_t cap = cn->group_ranks->len + 1;
    e.rank = xmalloc_array(cap, sizeof *e.rank);
    e.index = xmalloc_array(cap, sizeof *e.index);
    e.node = xmalloc_array(cap, sizeof *e.node);
    strbuf rs = STRBUF_INIT;
    for (uint32_t k = 0; k < cn->group_ranks->len; k++) {
        const jval *r = &cn->group_ranks->u.items[k];
        sb_reset(&rs);
        str_of(&rs, r);
        if (!strcmp(sb_str(&rs), sb_str(&me)))
            continue;
        rank_comm *trc = rank_graph(d, r);
        long t = comm_target_node(trc, cn->uid, NULL, NULL, cn->api, NULL);
        if (t < 0)
            continue;
        comm_node *tc = comm_of(trc, t);
        if (!tc || !tc->group_id)
            continue;
        gnode *tn = &trc->g->nodes[t];
        if (strcmp(tc->group_id, cn->group_id) != 0) {
            log_warn_as(CANNOT, "%s of rank%ld is expected to communicate with %s of rank%s, but the group ids of the "
                                "two nodes are different, cannot match distributed node",
                        nd->id, g->rank, tn->id, sb_str(&rs));
            continue;
        }
        /* a repeated rank of the group replaces its entry, as a dict key */
        uint32_t at = e.nranks;
        for (uint32_t j = 0; j < e.nranks; j++)
            if (!strcmp(e.rank[j], sb_str(&rs)))
                at = j;
        if (at < e.nranks) {
            free(e.rank[at]);
            free(e.index[at]);
        } else {
            e.nranks++;
        }
        e.rank[at] = xstrdup(sb_str(&rs));
        e.index[at] = comm_index_text(d, tn);
        e.node[at] = tn->id;
        if (rule)
            comm_link_one(d, tn, comm_opposite(rule->type), sb_str(&me), nd);
    }
    sb_free(&rs);
    if (e.nranks) {
        gdist_entry *v = xmalloc(sizeof *v);
        *v = e;
        comm_set_dist(nd, v, 1, 0);
    } else {
        comm_free_entry(&e);
    }
    sb_free(&me);
}

static void batch_match(dist_ctx *d, rank_comm *rc, comm_node *cn)
{
    graph *g = rc->g;
    gnode *nd = &g->nodes[cn->node];
    if (!cn->nuids)
        return;
    gdist_entry *v = xcalloc(cn->nuids, sizeof *v);
    uint32_t n = 0;
    strbuf me = STRBUF_INIT;
    sb_addf(&me, "%ld", g->rank);
    for (size_t k = 0; k < cn->nuids; k++) {
        const char *uid = cn->uids[k];
        /* "isend_rank1_group_1": api, target rank */
        const char *u1 = strchr(uid, '_');
        const char *u2 = u1 ? strchr(u1 + 1, '_') : NULL;
        if (!u1 || !u2)
            continue;
        char api[64];
        size_t al = (size_t)(u1 - uid);
        if (al >= sizeof api)
            continue;
        memcpy(api, uid, al);
        api[al] = 0;
        const comm_rule *rule = comm_rule_of(api);
        const char *r = u1 + 1;
        if (!rule || strncmp(r, "rank", 4) != 0)
            continue;
        char *endp;
        long target = strtol(r + 4, &endp, 10);
        if (endp != u2 || endp == r + 4)
            continue;
        strbuf tr = STRBUF_INIT;
        sb_addf(&tr, "%ld", target);
        rank_comm *trc = rank_graph_n(d, target);
        long t = comm_target_node(trc, uid, sb_str(&tr), sb_str(&me), api, rule->target);
        if (t >= 0)
            v[n++] = comm_one_link(d, rule->type, sb_str(&tr), &trc->g->nodes[t]);
        sb_free(&tr);
    }
    sb_free(&me);
    if (n)
        comm_set_dist(nd, v, n, cn->nuids > 1);
    else
        free(v);
}

void graph_distributed(graph **graphs, size_t n, int overflow_check, int newest)
{
    arena a;
    arena_init(&a, 1 << 16);
    gitems it;
    gitems_init(&it);
    dist_ctx d = {.ranks = xcalloc(n, sizeof(rank_comm)), .n = n, .overflow_check = overflow_check,
                  .newest = newest, .a = &a};
    for (size_t r = 0; r < n; r++) {
        if (newest)
            comm_read_rank_db(&d.ranks[r], graphs[r], &a, &it);
        else
            read_rank(&d.ranks[r], graphs[r], &a, &it);
    }
    for (size_t r = 0; r < n; r++) {
        rank_comm *rc = &d.ranks[r];
        for (size_t k = 0; k < rc->n; k++) {
            comm_node *cn = &rc->v[k];
            if (rc->g->nodes[cn->node].dist)
                continue;
            const comm_rule *rule = comm_rule_of(cn->api);
            if (newest) {
                /* a batch_isend_irecv has nothing to match by there */
                if (!strcmp(cn->api, "batch_isend_irecv"))
                    continue;
                if (rule && rule->p2p)
                    comm_p2p_match_db(&d, rc, cn, rule);
                else
                    comm_collective_match_db(&d, rc, cn, rule);
            } else if (!strcmp(cn->api, "batch_isend_irecv"))
                batch_match(&d, rc, cn);
            else if (rule && rule->p2p)
                p2p_match(&d, rc, cn, rule);
            else
                collective_match(&d, rc, cn, rule);
        }
    }
    for (size_t r = 0; r < n; r++) {
        free(d.ranks[r].v);
        strmap_free(&d.ranks[r].by_uid);
        strmap_free(&d.ranks[r].by_node);
    }
    free(d.ranks);
    gitems_free(&it);
    arena_free(&a);
}
