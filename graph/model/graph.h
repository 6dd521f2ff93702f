/* msprobe graph: the model as a tree of modules (spec/visualization.md).
 *
 * One rank directory becomes a `rankdata` (model/rank.h: dump.json mapped
 * and indexed entry by entry, construct.json and stack.json parsed) and a
 * `graph` (the nodes of construct.json, their parents and children, built
 * by build.c). Node items (the inputs and outputs of a node) are never
 * kept: they are read again from the mapped dump whenever they are needed
 * (model/items.h), so memory holds the tree, not the dump.
 *
 * Flow of one rank (build) or rank pair (compare), stage by stage
 * (graph/README.md):
 *   model: rank_load (both sides) -> graph_build (§4)
 *   compare: mode, layer mapping, matching and precision indexes (§5),
 *            tensor metrics
 *   model: micro steps (§4.8) -> overflow levels (§6) -> [distributed links
 *          across the ranks of a step (§7)]
 *   write: the .vis file (§8), the .vis.db or the page. */
#ifndef MSP_GRAPH_GRAPH_H
#define MSP_GRAPH_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/strmap.h"
#include "format/json.h"
#include "graph/model/rank.h"

/* ---- options of a run ---------------------------------------------------- */

enum graph_format { GF_VIS, GF_DB };

typedef struct {
    int layer_mapping;        /* -lm given */
    const char *lm_file;      /* -lm FILE; NULL: no rules */
    struct lm_rules *lm_rules;/* parsed once per run */
    int overflow_check;       /* -oc */
    int fuzzy;                /* -f / -fm */
    int complete_stack;       /* -cs */
    int need_construct;       /* graph_visualize: an empty construct.json is refused, as the newest msprobe does */
    int format;               /* GF_VIS / GF_DB */
    int html;                 /* --html: also a page per result */
    int jobs;                 /* threads */
    int profile;              /* MSPROBE_PROFILE */
} graph_opts;

/* The .vis.db is the newest msprobe's file, so its tree and matching are
 * the newest msprobe's too: a node per counted parameters_grad entry, and
 * nodes matched by name (and ancestors) whatever their items; the .vis
 * keeps msprobe 8.1.0's. */
static inline int graph_newest_rules(const graph_opts *o) { return o->format == GF_DB; }

/* ---- the graph ------------------------------------------------------------- */

enum gop { GOP_MODULE = 0, GOP_API = 1, GOP_COLLECTION = 9 };

/* A value of `data` as msprobe holds it: absent, a Python int, a float. */
enum { PX_NONE, PX_INT, PX_FLOAT };

enum { STACK_NONE, STACK_LIST, STACK_NO_FORWARD };

/* matched_distributed of a node (§7): one entry, or a list (batch p2p). */
typedef struct {
    uint8_t type;             /* 0 send, 1 receive, 2 send_receive */
    uint32_t nranks;
    char **rank;              /* nodes_info keys (str() of the rank), in order */
    char **index;             /* str() of the target's index or level */
    const char **node;        /* the target node ids */
} gdist_entry;

typedef struct {
    int is_list;
    gdist_entry *v;
    uint32_t n;
} gdist;

/* batch_isend_irecv: one P2POp of its output (§7.4), as text: op (NULL:
 * None), str(peer) (NULL: None), group_id ("" unless a string). */
typedef struct {
    const char *op, *peer, *group_id;
} gp2p;

typedef struct {
    const char *id;
    uint32_t idlen;
    uint8_t op;
    uint8_t has_micro;
    uint8_t px_kind;          /* data.precision_index */
    uint8_t md5_result;       /* data.Result: 0 none, 1 pass, 2 Different */
    uint8_t overflow;         /* data.overflow_level (enum ovf_level) */
    uint8_t link_side;        /* matched_node_link: 0 none, else the path of link_node in graph 1 (NPU) / 2 (Bench) */
    uint8_t stack_kind;
    uint8_t visited;
    int32_t up;               /* parent, -1 none */
    int32_t link_node;
    int32_t cmp_with;         /* NPU side: the Bench node its rows were compared with, -1 */
    int32_t micro;
    long entry;               /* dump entry, -1 none */
    double px;
    const jval *stack;        /* STACK_LIST: the stack value */
    int32_t stack_line;       /* -1: the whole value; else the one line kept (§4.5) */
    uint32_t nsub;
    size_t subcap;
    uint32_t *sub;
    gdist *dist;
    gp2p *p2p;
    uint32_t np2p;
} gnode;

typedef struct {
    arena mem;
    gnode *nodes;
    size_t n, cap;
    strmap by_id;
    size_t ncollections;
    long micro_steps;         /* MicroSteps */
    rankdata *rd;
    int side;                 /* 1 NPU (or the one graph of a build), 2 Bench */
    long rank;                /* rank number (distributed matching) */
    int newest;               /* built by the newest msprobe's rules (graph_newest_rules) */
    int micro_inherit;        /* a node without a micro step takes its parent's (the newest msprobe,
                               * unless construct.json numbers the micro steps) */
} graph;

#define GRAPH_ROOT "DefaultModel"

/* Build the tree of a rank (§4.3-§4.7). 0 or -1. */
int graph_build(graph *g, rankdata *rd, const graph_opts *o);
void graph_free(graph *g);
/* the index of the node named id, or -1 (names.c) */
long graph_find(const graph *g, const char *id, size_t len);
/* The op of a node name (§4.2): msprobe 8.1.0's patterns, or (newest) the
 * newest msprobe's, which add DefaultModel to the modules and MindSpeed to
 * the APIs and log no warning. */
int graph_name_op(const char *name, size_t len);
int graph_name_op_newest(const char *name, size_t len);
/* a module's name by msprobe's patterns (Module., Cell., optimizer,
 * clip_grad), whichever msprobe */
int graph_module_name(const char *name, size_t len);

#endif
