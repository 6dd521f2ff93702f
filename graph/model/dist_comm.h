/* The communication nodes of the ranks of a step and what reading and
 * linking them needs in both dialects (dist_comm.c): graph/model/dist.c
 * does both msprobe 8.1.0's way, dist_db.c the newest msprobe's (from what
 * its .vis.db holds). Internal to graph/model/. */
#ifndef MSP_GRAPH_DIST_COMM_H
#define MSP_GRAPH_DIST_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "format/json.h"
#include "graph/model/graph.h"
#include "graph/model/items.h"

enum { COMM_SEND, COMM_RECEIVE, COMM_SEND_RECEIVE };

/* msprobe's table: api -> target api, rank parameter, type, p2p */
typedef struct {
    const char *api, *target, *param;
    int type, p2p;
} comm_rule;

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

typedef struct {
    rank_comm *ranks;
    size_t n;
    int overflow_check;
    int newest;                 /* the .vis.db's rules */
    arena *a;
} dist_ctx;

/* the rule of a communication api (send, broadcast, ...), or NULL */
const comm_rule *comm_rule_of(const char *api);
/* the input (out: output) item named `key` of the items read, or NULL */
const gitem *comm_find_item(const gitems *it, const char *key, int out);
/* node i of rc's graph appended to rc->v as a communication node; NULL when
 * its id does not start with "Distributed" */
comm_node *comm_add(rank_comm *rc, size_t *cap, size_t i, arena *a);
/* "gid_N", N the times the rank has met gid (counts), in the arena */
char *comm_counted(arena *a, strmap *counts, const char *gid);
/* cn's unique id from its group id `gid` and how often the rank met it */
void comm_unique_id(rank_comm *rc, comm_node *cn, strmap *counts, strbuf *gid, arena *a);
/* the communication node of rc's node `node`, or NULL */
comm_node *comm_of(rank_comm *rc, long node);
/* the node of rank tr whose unique id is uid with (when target_api is not
 * NULL) from_rank made to_rank and api made target_api; -1: none */
long comm_target_node(rank_comm *tr, const char *uid, const char *from_rank, const char *to_rank, const char *api,
                      const char *target_api);
/* str() of the target's precision index or overflow level, malloc'd */
char *comm_index_text(const dist_ctx *d, const gnode *t);
void comm_free_entry(gdist_entry *e);
/* the entry linking to the one node `target` of rank `rank` */
gdist_entry comm_one_link(const dist_ctx *d, int type, const char *rank, const gnode *target);
/* nd's matched_distributed made v[0..n) (taken), replacing what it had */
void comm_set_dist(gnode *nd, gdist_entry *v, uint32_t n, int is_list);
/* nd linked to the one node `target` of rank `rank` */
void comm_link_one(const dist_ctx *d, gnode *nd, int type, const char *rank, const gnode *target);
/* a send's type is a receive's, and back */
int comm_opposite(int t);

/* dist_db.c: the newest msprobe's reading of a rank and its matching */
void comm_read_rank_db(rank_comm *rc, graph *g, arena *a, gitems *it);
void comm_p2p_match_db(dist_ctx *d, rank_comm *rc, comm_node *cn, const comm_rule *rule);
void comm_collective_match_db(dist_ctx *d, rank_comm *rc, comm_node *cn, const comm_rule *rule);

#endif
