/* The first op that goes wrong in a distributed run, following communication
 * between ranks (spec/analyzers.md §A.5-A.9 for nan_analyze, §C.3 for the
 * first-diff analysis of compare -da).
 *
 * Each rank runs its ops in order; communication ops (send/recv, broadcast,
 * all_reduce, ...) tie the ranks together. A bad value that crosses a
 * communication op shows up on every rank after it, so the op to report is
 * the earliest one in that partial order:
 *   1. before any rank communicates: the first flagged op of every rank;
 *   2. else along the communication graph: the comm ops of a rank form a
 *      chain (layers 0, 1, 2, ...); partners on other ranks are connected
 *      (the partner takes the layer of the op that found it); comm ops with
 *      nothing flagged about them or before them are pruned; then connected
 *      groups are examined in layer order and the flagged ops of the first
 *      group(s) that have any win, the smallest (layer, sub_layer);
 *   3. else the first flagged op after the last comm op of every rank.
 *
 * The engine reads no file: a caller describes every op of every rank (is it
 * a comm op, is it flagged, whom does it talk to) and chooses the variant
 * rules of the analyzer it implements. Everything is deterministic: groups
 * list their members by rank position, then dump order.
 *
 * Cost: connecting is one partner lookup per (comm op, later rank it talks
 * to) -- R^2/2 per collective over all R ranks, each a few array reads
 * (rank numbers to positions by table, APIs by number, big rank sets as
 * bitmaps); everything else is linear in the ops given.
 */
#ifndef MSP_COMMGRAPH_H
#define MSP_COMMGRAPH_H

#include <stddef.h>
#include <stdint.h>

/* How a comm op takes part: sender/root (src), receiver (dst), or a
 * collective where nobody leads (link). */
enum cg_type { CG_LINK, CG_SRC, CG_DST };

enum cg_flag {
    CG_COMM = 1u << 0,          /* a communication op */
    CG_IGNORED = 1u << 1,       /* never a candidate, not counted (Torch.empty, ...) */
    CG_FLAGGED = 1u << 2,       /* a candidate: NaN/Inf produced here (nan_analyze), is_diff (-da) */
    CG_KEEP = 1u << 3,          /* comm op: kept by the pruning by itself (has_nan_inf / is_diff) */
    CG_INPUT_FLAGGED = 1u << 4, /* comm op: its input is already bad (nan_analyze) */
    CG_DIRECTED = 1u << 5,      /* comm op: its api has a direction (send, recv, broadcast, ...) */
};

typedef struct {
    const char *name;       /* op name, e.g. "Distributed.send.0.forward" */
    uint32_t flags;         /* cg_flag */
    /* comm ops only: */
    uint8_t type;           /* cg_type */
    const char *api;        /* what it is, e.g. "Distributed.send" */
    const char *peer_api;   /* what a partner must be, e.g. "Distributed.recv" */
    const long *ranks;      /* the ranks it talks to; none: every rank. Ops with
                               the same set may share one array: a big set is
                               then indexed once */
    size_t nranks;
    /* ops without flags: */
    uint32_t repeat;        /* this op stands for 1 + repeat plain compute ops in a row
                               (a caller may fold the ops that play no part) */
} cg_op;

typedef struct {
    long rank;              /* rank number */
    const cg_op *ops;       /* in execution (dump) order */
    size_t nops;
} cg_rank;

enum cg_level { CG_DEBUG, CG_INFO, CG_WARN };

typedef struct {
    /* the variant rules (0 = nan_analyze 8.1.0, 1 = find_first of msprobe 8.3) */
    int skip_ignored_first;   /* phase 1 skips ignored ops before the comm test */
    int monotonic_layers;     /* while connecting, a rank's chain never goes down in layer */
    int exact_api;            /* a partner's api equals peer_api; else its name starts with peer_api */
    int grouping_defect;      /* 8.1.0: a node outside the round's first group is dropped (§A.7.4) */
    int all_compute_ops;      /* flagged compute ops of every group node count; else only those
                                 before a src/link node whose input is flagged */
    int keep_all_minima;      /* every candidate of the smallest (layer, sub_layer); else the first */
    int unconnected_level;    /* level of "Cannot find connected communication node" */
    /* messages: called for levels >= log_level; msg is one line */
    void (*log)(void *arg, int level, const char *msg);
    void *log_arg;
    int log_level;
} cg_params;

typedef struct {
    size_t rank;            /* index into the ranks given */
    size_t op;              /* index into that rank's ops */
    long layer;
    size_t sub_layer;
} cg_hit;

typedef struct {
    int phase;              /* 1 before, 2 during, 3 after communication; 0 nothing found */
    cg_hit *hits;           /* in report order */
    size_t nhits;
} cg_result;

void cg_search(const cg_rank *ranks, size_t nranks, const cg_params *p, cg_result *out);
void cg_result_free(cg_result *r);

#endif
