/* Links between the communication nodes of the ranks of a step (spec §7):
 * every Distributed.* node gets a unique id per rank -- its peer or group
 * and its running count -- and each is matched with the node of the same
 * id (a send's with the recv's) in the ranks it talks to. Two dialects
 * share the ids, targets and links here: msprobe 8.1.0's (the .vis: its
 * graphs' nodes and items) and the newest msprobe's (the .vis.db: what it
 * reads back from its file). */
#include "graph/model/dist.h"
#include "graph/model/items.h"
#include "graph/model/steps.h"
#include "base/err.h"
#include "base/log.h"
#include "base/mem.h"
#include "model/overflow.h"
#include "py/pyeq.h"
#include "py/pystr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { COMM_SEND, COMM_RECEIVE, COMM_SEND_RECEIVE };

/* msprobe's table: api -> target api, rank parameter, type, p2p */
typedef struct {
    const char *api, *target, *param;
    int type, p2p;
} comm_rule;

static const comm_rule RULES[] = {
    {"send", "recv", "dst", COMM_SEND, 1},           {"isend", "irecv", "dst", COMM_SEND, 1},
    {"recv", "send", "src", COMM_RECEIVE, 1},        {"irecv", "isend", "src", COMM_RECEIVE, 1},
    {"broadcast", "broadcast", "1", COMM_SEND, 0},   {"scatter", "scatter", "src", COMM_SEND, 0},
    {"gather", "gather", "dst", COMM_RECEIVE, 0},    {"reduce", "reduce", "1", COMM_RECEIVE, 0},
};

static const comm_rule *rule_of(const char *api)
{
    for (size_t i = 0; i < sizeof RULES / sizeof *RULES; i++)
        if (!strcmp(RULES[i].api, api))
            return &RULES[i];
    return NULL;
}

static const char CANNOT[] = "distributed nodes not matched";

/* What matching needs of a communication node, copied out of its entry. */
typedef struct {
    long node;
    char *api;
    const jval *param;          /* the rank parameter's value; NULL: none */
    const jval *group_ranks;    /* a non-empty list, or NULL */
    const char *group_id;       /* non-empty text, or NULL */
    int has_out;                /* {id}.output.0 exists */
    jval out[6];                /* its dtype, shape, Max, Min, Mean, Norm */
    char *uid;                  /* its unique id, or NULL */
    char **uids;                /* batch_isend_irecv: one per P2POp */
    size_t nuids;
    /* the newest msprobe's: the texts its .vis.db holds */
    const char *param_text;     /* the rank parameter's "value", or NULL */
    const char **group_ranks_text;  /* str() of each rank of a valid group */
    size_t ngroup_ranks;
} comm_node;

typedef struct {
    graph *g;
    comm_node *v;
    size_t n;
    strmap by_uid;              /* uid -> node index in g */
    strmap by_node;             /* node index (as text) -> index in v */
    char rank_text[24];         /* str(rank) */
} rank_comm;

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

static const gitem *find_item(const gitems *it, const char *key, int out)
{
    const gitem *v = out ? it->out : it->in;
    size_t n = out ? it->nout : it->nin;
    for (size_t k = 0; k < n; k++)
        if (!strcmp(gitem_row(it, &v[k])->name, key))
            return &v[k];
    return NULL;
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
    const gitem *g = find_item(it, k.buf, 0);
    sb_free(&k);
    if (!g)
        return NULL;
    jval *v = arena_alloc(a, sizeof *v);
    *v = item_value(a, it, g, key);
    return v->type == J_NULL ? NULL : v;
}

static void str_of(strbuf *sb, const jval *v) { py_str_json(sb, v); }

/* ---- unique ids (§7.2) ------------------------------------------------------- */

static char *counted(arena *a, strmap *counts, const char *gid)
{
    int added;
    size_t len = strlen(gid);
    char *key = arena_strndup(a, gid, len);
    size_t *c = strmap_put(counts, key, len, 0, &added);
    (*c)++;
    strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "%s_%zu", gid, *c);
    char *uid = arena_strndup(a, sb.buf, sb.len);
    sb_free(&sb);
    return uid;
}

/* cn's unique id: its group id `gid` and how often the rank met it (§7.2) */
static void unique_id(rank_comm *rc, comm_node *cn, strmap *counts, strbuf *gid, arena *a)
{
    cn->uid = counted(a, counts, sb_str(gid));
    int added;
    *strmap_put(&rc->by_uid, cn->uid, strlen(cn->uid), (size_t)cn->node, &added) = (size_t)cn->node;
}

/* Node i of rc's graph as a communication node (its id starts with
 * "Distributed"; the api is its second part), appended to rc->v; NULL when
 * it is none. */
static comm_node *add_comm(rank_comm *rc, size_t *cap, size_t i, arena *a)
{
    const gnode *nd = &rc->g->nodes[i];
    if (nd->idlen < 11 || memcmp(nd->id, "Distributed", 11) != 0)
        return NULL;
    const char *dot = memchr(nd->id, '.', nd->idlen);
    if (!dot)
        return NULL;   /* msprobe raises on such a name */
    const char *end = memchr(dot + 1, '.', nd->idlen - (size_t)(dot + 1 - nd->id));
    size_t alen = end ? (size_t)(end - dot - 1) : nd->idlen - (size_t)(dot + 1 - nd->id);
    GROW(rc->v, *cap, rc->n + 1);
    comm_node *cn = &rc->v[rc->n];
    memset(cn, 0, sizeof *cn);
    cn->node = (long)i;
    cn->api = arena_strndup(a, dot + 1, alen);
    char key[32];
    int kl = snprintf(key, sizeof key, "%zu", i);
    int added;
    strmap_put(&rc->by_node, arena_strndup(a, key, (size_t)kl), (size_t)kl, rc->n, &added);
    rc->n++;
    return cn;
}

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
        comm_node *cn = add_comm(rc, &cap, i, a);
        if (!cn)
            continue;
        int added;
        if (gitems_read(it, g->rd, nd->entry) != 0) {
            err_clear();
            continue;
        }
        const comm_rule *rule = rule_of(cn->api);
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
        const gitem *o = find_item(it, ok.buf, 1);
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
                char *uid = counted(a, &batch_counts, sb_str(&gid));
                cn->uids[cn->nuids++] = uid;
                *strmap_put(&rc->by_uid, uid, strlen(uid), i, &added) = i;
            }
        } else if (rule && rule->p2p) {
            if (cn->param) {
                sb_addf(&gid, "%srank", cn->api);
                str_of(&gid, cn->param);
                unique_id(rc, cn, &counts, &gid, a);
            } else {
                log_warn_as(CANNOT, "The parameter %s of node %s does not exist, cannot match distributed node in "
                                    "rank%ld", rule->param, nd->id, g->rank);
            }
        } else if (cn->group_id) {
            sb_addf(&gid, "%s%s", cn->group_id, cn->api);
            unique_id(rc, cn, &counts, &gid, a);
        }
        sb_free(&gid);
    }
    if (file_guard_end(&guard) != 0)
        err_clear();
    strmap_free(&counts);
    strmap_free(&batch_counts);
}

/* ---- the newest msprobe's: from the .vis.db's texts ------------------------- */

/* The item `key` of node nd's inputs as the .vis.db holds it (its members'
 * texts, an object), or NULL. */
static const jval *db_item(arena *a, const gitems *it, const gnode *nd, const char *param)
{
    strbuf k = STRBUF_INIT;
    sb_addf(&k, "%s.input.%s", nd->id, param);
    const gitem *g = find_item(it, k.buf, 0);
    sb_free(&k);
    if (!g)
        return NULL;
    /* members as '"k": "v"' lines, made an object */
    strbuf t = STRBUF_INIT;
    sb_addc(&t, '{');
    size_t at = t.len;
    item_render(&t, it, g, 0, "", 0);
    for (size_t i = at; i + 1 < t.len; i++)
        if (t.buf[i] == '\n')
            t.buf[i] = ',';
    if (t.len > at && t.buf[t.len - 1] == '\n')
        t.len--;
    sb_addc(&t, '}');
    /* the parsed strings may point into the text: kept in the arena */
    const char *text = arena_strndup(a, t.buf, t.len);
    size_t len = t.len;
    sb_free(&t);
    jparser jp;
    jp_init(&jp, "item", text, len);
    jval *v = arena_alloc(a, sizeof *v);
    int rc = jp_value(&jp, a, v);
    jp_free(&jp);
    if (rc != 0) {
        err_clear();
        return NULL;
    }
    return v;
}

/* a text member of a db item; "" counts as none where msprobe tests it */
static const char *db_text(arena *a, const jval *item, const char *key)
{
    const jval *v = item ? json_get(item, key) : NULL;
    if (!v || v->type != J_STRING)
        return NULL;
    return arena_strndup(a, v->u.str, v->len);
}

/* _get_group_info() on the .vis.db: group_ranks a text that json.loads()
 * makes a non-empty list, and a group_id. */
static void db_group(arena *a, comm_node *cn, const jval *group)
{
    const char *ranks = db_text(a, group, "group_ranks");
    const char *id = db_text(a, group, "group_id");
    if (!ranks || !*ranks || !id || !*id)
        return;
    jparser jp;
    jp_init(&jp, "group_ranks", ranks, strlen(ranks));
    jval v;
    int rc = jp_value(&jp, a, &v);
    jp_free(&jp);
    if (rc != 0) {
        err_clear();
        return;
    }
    if (v.type != J_ARRAY || !v.len)
        return;
    cn->group_ranks_text = arena_alloc(a, v.len * sizeof *cn->group_ranks_text);
    strbuf t = STRBUF_INIT;
    for (uint32_t k = 0; k < v.len; k++) {
        sb_reset(&t);
        str_of(&t, &v.u.items[k]);
        cn->group_ranks_text[cn->ngroup_ranks++] = arena_strndup(a, t.buf ? t.buf : "", t.len);
    }
    sb_free(&t);
    cn->group_id = id;
}

/* The communication nodes of a rank as the newest msprobe reads them back
 * from its .vis.db: the nodes of the tree (children first), their items'
 * texts; a batch_isend_irecv keeps no P2POp there, so it has no id. */
static void read_rank_db(rank_comm *rc, graph *g, arena *a, gitems *it)
{
    memset(rc, 0, sizeof *rc);
    rc->g = g;
    snprintf(rc->rank_text, sizeof rc->rank_text, "%ld", g->rank);
    strmap_init(&rc->by_uid, 64);
    strmap_init(&rc->by_node, 64);
    strmap counts;
    strmap_init(&counts, 64);
    size_t cap = 0;
    uint32_t *order = xmalloc_array(g->n + 1, sizeof *order);
    size_t norder = graph_sorted_nodes(g, order);
    file_guard guard;
    file_guard_begin(&guard, &g->rd->dump);
    for (size_t o = 0; o < norder; o++) {
        size_t i = order[o];
        const gnode *nd = &g->nodes[i];
        comm_node *cn = add_comm(rc, &cap, i, a);
        if (!cn)
            continue;
        if (!strcmp(cn->api, "batch_isend_irecv"))
            continue;
        if (gitems_read(it, g->rd, nd->entry) != 0) {
            err_clear();
            continue;
        }
        const comm_rule *rule = rule_of(cn->api);
        if (rule)
            cn->param_text = db_text(a, db_item(a, it, nd, rule->param), "value");
        db_group(a, cn, db_item(a, it, nd, "group"));
        strbuf gid = STRBUF_INIT;
        if (rule && rule->p2p) {
            if (cn->param_text) {
                sb_addf(&gid, "%srank%s", cn->api, cn->param_text);
                unique_id(rc, cn, &counts, &gid, a);
            }
        } else if (cn->group_id) {
            sb_addf(&gid, "%s%s", cn->group_id, cn->api);
            unique_id(rc, cn, &counts, &gid, a);
        }
        sb_free(&gid);
    }
    if (file_guard_end(&guard) != 0)
        err_clear();
    free(order);
    strmap_free(&counts);
}

static comm_node *comm_of(rank_comm *rc, long node)
{
    char key[32];
    int kl = snprintf(key, sizeof key, "%ld", node);
    const size_t *k = strmap_get(&rc->by_node, key, (size_t)kl);
    return k ? &rc->v[*k] : NULL;
}

/* ---- matching (§7.3) --------------------------------------------------------- */

typedef struct {
    rank_comm *ranks;
    size_t n;
    int overflow_check;
    int newest;                 /* the .vis.db's rules */
    arena *a;
} dist_ctx;

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

static void replace_all(strbuf *out, const char *s, const char *from, const char *to)
{
    size_t fl = strlen(from);
    sb_reset(out);
    for (const char *p = s; *p;) {
        if (fl && !strncmp(p, from, fl)) {
            sb_adds(out, to);
            p += fl;
        } else {
            sb_addc(out, *p++);
        }
    }
    sb_str(out);
}

static long target_node(rank_comm *tr, const char *uid, const char *from_rank, const char *to_rank, const char *api,
                        const char *target_api)
{
    if (!tr)
        return -1;
    strbuf a = STRBUF_INIT, b = STRBUF_INIT;
    const char *key = uid ? uid : "";
    if (target_api) {
        strbuf f = STRBUF_INIT, t = STRBUF_INIT;
        sb_addf(&f, "rank%s", from_rank);
        sb_addf(&t, "rank%s", to_rank);
        replace_all(&a, key, sb_str(&f), sb_str(&t));
        replace_all(&b, a.buf, api, target_api);
        key = b.buf;
        sb_free(&f);
        sb_free(&t);
    }
    const size_t *v = strmap_get(&tr->by_uid, key, strlen(key));
    sb_free(&a);
    sb_free(&b);
    return v ? (long)*v : -1;
}

/* str() of the target's index or level ("Nan" when it has none); the
 * newest msprobe reads the index back from its .vis.db, whose INTEGER
 * column keeps an integral float as an int */
static char *index_text(const dist_ctx *d, const gnode *t)
{
    strbuf sb = STRBUF_INIT;
    if (d->overflow_check) {
        sb_adds(&sb, t->overflow ? ovf_level_name(t->overflow) : "Nan");
    } else if (d->newest && t->px_kind == PX_FLOAT && isnan(t->px)) {
        sb_adds(&sb, "Nan");
    } else if (d->newest && t->px_kind == PX_FLOAT && t->px == floor(t->px) && fabs(t->px) < 9e15) {
        sb_addf(&sb, "%.0f", t->px);
    } else if (t->px_kind) {
        gnode tmp = *t;
        if (t->px_kind == PX_INT)
            sb_addf(&sb, "%.0f", tmp.px);
        else
            py_repr_float(&sb, tmp.px);
    } else {
        sb_adds(&sb, "Nan");
    }
    return sb_detach(&sb);
}

static gdist_entry one_link(const dist_ctx *d, int type, const char *rank, const gnode *target)
{
    gdist_entry e = {.type = (uint8_t)type, .nranks = 1};
    e.rank = xmalloc(sizeof *e.rank);
    e.index = xmalloc(sizeof *e.index);
    e.node = xmalloc(sizeof *e.node);
    e.rank[0] = xstrdup(rank);
    e.index[0] = index_text(d, target);
    e.node[0] = target->id;
    return e;
}

static void free_entry(gdist_entry *e)
{
    for (uint32_t j = 0; j < e->nranks; j++) {
        free(e->rank[j]);
        free(e->index[j]);
    }
    free(e->rank);
    free(e->index);
    free(e->node);
}

/* node.matched_distributed = {...}, replacing what it had */
static void set_dist(gnode *nd, gdist_entry *v, uint32_t n, int is_list)
{
    if (nd->dist) {
        for (uint32_t k = 0; k < nd->dist->n; k++)
            free_entry(&nd->dist->v[k]);
        free(nd->dist->v);
        free(nd->dist);
    }
    nd->dist = xcalloc(1, sizeof *nd->dist);
    nd->dist->v = v;
    nd->dist->n = n;
    nd->dist->is_list = is_list;
}

static void link_one(const dist_ctx *d, gnode *nd, int type, const char *rank, const gnode *target)
{
    gdist_entry *e = xmalloc(sizeof *e);
    *e = one_link(d, type, rank, target);
    set_dist(nd, e, 1, 0);
}

static int opposite(int t) { return t == COMM_SEND ? COMM_RECEIVE : t == COMM_RECEIVE ? COMM_SEND : t; }

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
    long t = target_node(trc, cn->uid, sb_str(&tr), sb_str(&me), cn->api, rule->target);
    if (!trc)
        log_warn_as(CANNOT, "Graph data does not exist, cannot match distributed node in rank%s", sb_str(&tr));
    comm_node *tc = t >= 0 ? comm_of(trc, t) : NULL;
    const comm_rule *trule = rule_of(rule->target);
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
                link_one(d, nd, rule->type, sb_str(&tr), tn);
                link_one(d, tn, trule->type, sb_str(&me), nd);
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
        long t = target_node(trc, cn->uid, NULL, NULL, cn->api, NULL);
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
        e.index[at] = index_text(d, tn);
        e.node[at] = tn->id;
        if (rule)
            link_one(d, tn, opposite(rule->type), sb_str(&me), nd);
    }
    sb_free(&rs);
    if (e.nranks) {
        gdist_entry *v = xmalloc(sizeof *v);
        *v = e;
        set_dist(nd, v, 1, 0);
    } else {
        free_entry(&e);
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
        const comm_rule *rule = rule_of(api);
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
        long t = target_node(trc, uid, sb_str(&tr), sb_str(&me), api, rule->target);
        if (t >= 0)
            v[n++] = one_link(d, rule->type, sb_str(&tr), &trc->g->nodes[t]);
        sb_free(&tr);
    }
    sb_free(&me);
    if (n)
        set_dist(nd, v, n, cn->nuids > 1);
    else
        free(v);
}

/* The graph of the rank named `text` (str(rank) as the .vis.db's rows key it). */
static rank_comm *rank_by_text(dist_ctx *d, const char *text)
{
    rank_comm *hit = NULL;
    for (size_t k = 0; k < d->n; k++)
        if (text && !strcmp(d->ranks[k].rank_text, text))
            hit = &d->ranks[k];
    return hit;
}

/* _p2p_match() on the .vis.db: no test of the outputs (the newest msprobe
 * defines it and calls it nowhere) */
static void p2p_match_db(dist_ctx *d, rank_comm *rc, comm_node *cn, const comm_rule *rule)
{
    gnode *nd = &rc->g->nodes[cn->node];
    if (!cn->param_text)
        return;
    rank_comm *trc = rank_by_text(d, cn->param_text);
    long t = target_node(trc, cn->uid, cn->param_text, rc->rank_text, cn->api, rule->target);
    comm_node *tc = t >= 0 ? comm_of(trc, t) : NULL;
    if (!tc || !tc->param_text || strcmp(tc->param_text, rc->rank_text) != 0)
        return;
    gnode *tn = &trc->g->nodes[t];
    link_one(d, nd, rule->type, cn->param_text, tn);
    link_one(d, tn, rule_of(rule->target)->type, rc->rank_text, nd);
}

/* _collective_match() on the .vis.db */
static void collective_match_db(dist_ctx *d, rank_comm *rc, comm_node *cn, const comm_rule *rule)
{
    gnode *nd = &rc->g->nodes[cn->node];
    int type = COMM_SEND_RECEIVE;
    if (rule) {
        /* broadcast, scatter, gather, reduce: on the root rank only */
        if (!cn->param_text || strcmp(cn->param_text, rc->rank_text) != 0)
            return;
        type = rule->type;
    }
    if (!cn->ngroup_ranks)
        return;
    gdist_entry e = {.type = (uint8_t)type};
    size_t cap = cn->ngroup_ranks + 1;
    e.rank = xmalloc_array(cap, sizeof *e.rank);
    e.index = xmalloc_array(cap, sizeof *e.index);
    e.node = xmalloc_array(cap, sizeof *e.node);
    for (size_t k = 0; k < cn->ngroup_ranks; k++) {
        const char *r = cn->group_ranks_text[k];
        if (!strcmp(r, rc->rank_text))
            continue;
        rank_comm *trc = rank_by_text(d, r);
        long t = target_node(trc, cn->uid, NULL, NULL, cn->api, NULL);
        comm_node *tc = t >= 0 ? comm_of(trc, t) : NULL;
        if (!tc || !tc->ngroup_ranks || strcmp(tc->group_id, cn->group_id) != 0)
            continue;
        gnode *tn = &trc->g->nodes[t];
        /* a repeated rank of the group replaces its entry, as a dict key */
        uint32_t at = e.nranks;
        for (uint32_t j = 0; j < e.nranks; j++)
            if (!strcmp(e.rank[j], r))
                at = j;
        if (at < e.nranks) {
            free(e.rank[at]);
            free(e.index[at]);
        } else {
            e.nranks++;
        }
        e.rank[at] = xstrdup(r);
        e.index[at] = index_text(d, tn);
        e.node[at] = tn->id;
        if (rule)
            link_one(d, tn, opposite(rule->type), rc->rank_text, nd);
    }
    if (e.nranks) {
        gdist_entry *v = xmalloc(sizeof *v);
        *v = e;
        set_dist(nd, v, 1, 0);
    } else {
        free_entry(&e);
    }
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
            read_rank_db(&d.ranks[r], graphs[r], &a, &it);
        else
            read_rank(&d.ranks[r], graphs[r], &a, &it);
    }
    for (size_t r = 0; r < n; r++) {
        rank_comm *rc = &d.ranks[r];
        for (size_t k = 0; k < rc->n; k++) {
            comm_node *cn = &rc->v[k];
            if (rc->g->nodes[cn->node].dist)
                continue;
            const comm_rule *rule = rule_of(cn->api);
            if (newest) {
                /* a batch_isend_irecv has nothing to match by there */
                if (!strcmp(cn->api, "batch_isend_irecv"))
                    continue;
                if (rule && rule->p2p)
                    p2p_match_db(&d, rc, cn, rule);
                else
                    collective_match_db(&d, rc, cn, rule);
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
