/* What both dialects of the links between ranks share (spec §7): the
 * table of communication APIs, a rank's communication nodes and their
 * unique ids, finding a node's peer by id, and the link entries written
 * into matched_distributed. dist.c reads and links msprobe 8.1.0's way,
 * dist_db.c the newest msprobe's; both stand on this file. */
#include "graph/model/dist_comm.h"
#include "base/mem.h"
#include "model/overflow.h"
#include "py/pystr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* msprobe's table: api -> target api, rank parameter, type, p2p */
static const comm_rule RULES[] = {
    {"send", "recv", "dst", COMM_SEND, 1},           {"isend", "irecv", "dst", COMM_SEND, 1},
    {"recv", "send", "src", COMM_RECEIVE, 1},        {"irecv", "isend", "src", COMM_RECEIVE, 1},
    {"broadcast", "broadcast", "1", COMM_SEND, 0},   {"scatter", "scatter", "src", COMM_SEND, 0},
    {"gather", "gather", "dst", COMM_RECEIVE, 0},    {"reduce", "reduce", "1", COMM_RECEIVE, 0},
};

const comm_rule *comm_rule_of(const char *api)
{
    for (size_t i = 0; i < sizeof RULES / sizeof *RULES; i++)
        if (!strcmp(RULES[i].api, api))
            return &RULES[i];
    return NULL;
}

const gitem *comm_find_item(const gitems *it, const char *key, int out)
{
    const gitem *v = out ? it->out : it->in;
    size_t n = out ? it->nout : it->nin;
    for (size_t k = 0; k < n; k++)
        if (!strcmp(gitem_row(it, &v[k])->name, key))
            return &v[k];
    return NULL;
}

/* ---- unique ids (§7.2) ------------------------------------------------------- */

char *comm_counted(arena *a, strmap *counts, const char *gid)
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
void comm_unique_id(rank_comm *rc, comm_node *cn, strmap *counts, strbuf *gid, arena *a)
{
    cn->uid = comm_counted(a, counts, sb_str(gid));
    int added;
    *strmap_put(&rc->by_uid, cn->uid, strlen(cn->uid), (size_t)cn->node, &added) = (size_t)cn->node;
}

/* Node i of rc's graph as a communication node (its id starts with
 * "Distributed"; the api is its second part), appended to rc->v; NULL when
 * it is none. */
comm_node *comm_add(rank_comm *rc, size_t *cap, size_t i, arena *a)
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

comm_node *comm_of(rank_comm *rc, long node)
{
    char key[32];
    int kl = snprintf(key, sizeof key, "%ld", node);
    const size_t *k = strmap_get(&rc->by_node, key, (size_t)kl);
    return k ? &rc->v[*k] : NULL;
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

long comm_target_node(rank_comm *tr, const char *uid, const char *from_rank, const char *to_rank, const char *api,
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
char *comm_index_text(const dist_ctx *d, const gnode *t)
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

gdist_entry comm_one_link(const dist_ctx *d, int type, const char *rank, const gnode *target)
{
    gdist_entry e = {.type = (uint8_t)type, .nranks = 1};
    e.rank = xmalloc(sizeof *e.rank);
    e.index = xmalloc(sizeof *e.index);
    e.node = xmalloc(sizeof *e.node);
    e.rank[0] = xstrdup(rank);
    e.index[0] = comm_index_text(d, target);
    e.node[0] = target->id;
    return e;
}

void comm_free_entry(gdist_entry *e)
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
void comm_set_dist(gnode *nd, gdist_entry *v, uint32_t n, int is_list)
{
    if (nd->dist) {
        for (uint32_t k = 0; k < nd->dist->n; k++)
            comm_free_entry(&nd->dist->v[k]);
        free(nd->dist->v);
        free(nd->dist);
    }
    nd->dist = xcalloc(1, sizeof *nd->dist);
    nd->dist->v = v;
    nd->dist->n = n;
    nd->dist->is_list = is_list;
}

void comm_link_one(const dist_ctx *d, gnode *nd, int type, const char *rank, const gnode *target)
{
    gdist_entry *e = xmalloc(sizeof *e);
    *e = comm_one_link(d, type, rank, target);
    comm_set_dist(nd, e, 1, 0);
}

int comm_opposite(int t) { return t == COMM_SEND ? COMM_RECEIVE : t == COMM_RECEIVE ? COMM_SEND : t; }

