/* The communication nodes of a rank and their links as the newest msprobe
 * makes them for its .vis.db (spec §7): it reads the nodes back from the
 * file it writes, so it knows them only by the texts the file holds -- an
 * item's members as strings, group_ranks as the text of a list -- and links
 * a send with its recv whatever their outputs. The ids and the link entries
 * are dist.c's. */
#include "graph/model/dist_comm.h"
#include "graph/model/steps.h"
#include "base/err.h"
#include "base/mem.h"
#include "py/pystr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The item `key` of node nd's inputs as the .vis.db holds it (its members'
 * texts, an object), or NULL. */
static const jval *db_item(arena *a, const gitems *it, const gnode *nd, const char *param)
{
    strbuf k = STRBUF_INIT;
    sb_addf(&k, "%s.input.%s", nd->id, param);
    const gitem *g = comm_find_item(it, k.buf, 0);
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
        py_str_json(&t, &v.u.items[k]);
        cn->group_ranks_text[cn->ngroup_ranks++] = arena_strndup(a, t.buf ? t.buf : "", t.len);
    }
    sb_free(&t);
    cn->group_id = id;
}

/* The communication nodes of a rank as the newest msprobe reads them back
 * from its .vis.db: the nodes of the tree (children first), their items'
 * texts; a batch_isend_irecv keeps no P2POp there, so it has no id. */
void comm_read_rank_db(rank_comm *rc, graph *g, arena *a, gitems *it)
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
        comm_node *cn = comm_add(rc, &cap, i, a);
        if (!cn)
            continue;
        if (!strcmp(cn->api, "batch_isend_irecv"))
            continue;
        if (gitems_read(it, g->rd, nd->entry) != 0) {
            err_clear();
            continue;
        }
        const comm_rule *rule = comm_rule_of(cn->api);
        if (rule)
            cn->param_text = db_text(a, db_item(a, it, nd, rule->param), "value");
        db_group(a, cn, db_item(a, it, nd, "group"));
        strbuf gid = STRBUF_INIT;
        if (rule && rule->p2p) {
            if (cn->param_text) {
                sb_addf(&gid, "%srank%s", cn->api, cn->param_text);
                comm_unique_id(rc, cn, &counts, &gid, a);
            }
        } else if (cn->group_id) {
            sb_addf(&gid, "%s%s", cn->group_id, cn->api);
            comm_unique_id(rc, cn, &counts, &gid, a);
        }
        sb_free(&gid);
    }
    if (file_guard_end(&guard) != 0)
        err_clear();
    free(order);
    strmap_free(&counts);
}

/* ---- matching (§7.3) --------------------------------------------------------- */

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
void comm_p2p_match_db(dist_ctx *d, rank_comm *rc, comm_node *cn, const comm_rule *rule)
{
    gnode *nd = &rc->g->nodes[cn->node];
    if (!cn->param_text)
        return;
    rank_comm *trc = rank_by_text(d, cn->param_text);
    long t = comm_target_node(trc, cn->uid, cn->param_text, rc->rank_text, cn->api, rule->target);
    comm_node *tc = t >= 0 ? comm_of(trc, t) : NULL;
    if (!tc || !tc->param_text || strcmp(tc->param_text, rc->rank_text) != 0)
        return;
    gnode *tn = &trc->g->nodes[t];
    comm_link_one(d, nd, rule->type, cn->param_text, tn);
    comm_link_one(d, tn, comm_rule_of(rule->target)->type, rc->rank_text, nd);
}

/* _collective_match() on the .vis.db */
void comm_collective_match_db(dist_ctx *d, rank_comm *rc, comm_node *cn, const comm_rule *rule)
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
        long t = comm_target_node(trc, cn->uid, NULL, NULL, cn->api, NULL);
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
        e.index[at] = comm_index_text(d, tn);
        e.node[at] = tn->id;
        if (rule)
            comm_link_one(d, tn, comm_opposite(rule->type), rc->rank_text, nd);
    }
    if (e.nranks) {
        gdist_entry *v = xmalloc(sizeof *v);
        *v = e;
        comm_set_dist(nd, v, 1, 0);
    } else {
        comm_free_entry(&e);
    }
}
