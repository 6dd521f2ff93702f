/* msprobe graph: the model as a tree of modules (spec/visualization.md).
 *
 * One rank directory becomes a `rankdata` (dump.json mapped and indexed
 * entry by entry, construct.json and stack.json parsed) and a `graph` (the
 * nodes of construct.json, their parents and children). Node items (the
 * inputs and outputs of a node) are never kept: they are read again from the
 * mapped dump whenever they are needed (matching, writing), so memory holds
 * the tree, not the dump.
 *
 * Flow of one rank (build) or rank pair (compare):
 *   rank_load (both sides) -> graph_build (§4) -> [mode, layer mapping,
 *   matching and precision indexes (§5), tensor metrics] -> micro steps
 *   (§4.8) -> overflow levels (§6) -> [distributed links across the ranks
 *   of a step (§7)] -> the .vis file (§8), the .vis.db or the page.
 */
#ifndef MSP_GRAPH_GRAPH_H
#define MSP_GRAPH_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/files.h"
#include "base/progress.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "format/json.h"
#include "model/dump.h"
#include "model/metrics.h"
#include "model/stack.h"

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

/* ---- one rank directory -------------------------------------------------- */

/* An entry of dump.json's "data": where its value lies in the mapping. A
 * repeated name keeps its first place and its last value (a Python dict). */
typedef struct {
    const char *name;
    uint32_t namelen;
    uint8_t overflow;         /* enum ovf_level, with -oc */
    uint8_t has_md5;
    size_t off, len;
} rank_entry;

typedef struct {
    char *dir, *dump_path, *construct_path, *stack_path, *tensor_dir;
    mapped_file dump;         /* read under a file_guard by each reader */
    arena mem;                /* names with escapes, dump_data_dir, construct */
    rank_entry *entries;
    size_t nentries, cap;
    strmap by_name;           /* entry name -> index */
    char *task;               /* "task" when a string; NULL otherwise */
    int task_truthy;
    int has_md5;              /* msprobe's md5_find() over "data" */
    int framework;            /* 'p', 'm' or 0 (dump_framework's rules) */
    jval dump_data_dir;       /* copied; J_STRING "" when absent */
    mapped_file cfile;
    jval construct;           /* {node: parent | null}; parents made strings or null */
    stack_map stack;
} rankdata;

enum { RANK_NEED_MD5 = 1, RANK_NEED_OVERFLOW = 2 };

/* Read a rank directory: its three files must exist; dump.json is mapped
 * and indexed (with RANK_NEED_*: each entry parsed for its md5 / its
 * overflow scene). 0 or -1 (error recorded); rank_free() in either case. */
int rank_load(rankdata *rd, const char *dir, unsigned need, progress_job *pj);
void rank_free(rankdata *rd);
/* Index of an entry, or -1. */
long rank_entry_of(const rankdata *rd, const char *name, size_t len);

/* ---- the items of one entry (§4.4) ------------------------------------ */

/* One flattened leaf: its row (name = item key, dtype, shape, md5,
 * data_name, statistics, state) and the leaf object (NULL: a null item). */
typedef struct {
    uint32_t row;
    const jval *leaf;
} gitem;

/* A reader of entries: one per thread; reused from entry to entry. */
typedef struct {
    arena mem;                /* the parsed entry */
    dump_data rows;           /* its rows */
    gitem *in, *out;          /* input_data / output_data, in order */
    size_t nin, nout, capin, capout;
    const jval **leaves;      /* leaf of each row, while reading */
    size_t nleaves, capleaves;
    strmap seen;
    const rankdata *rd;
    const jval *value;        /* the entry's value */
} gitems;

void gitems_init(gitems *it);
void gitems_free(gitems *it);
/* Read entry `e` of rd (under a guard the caller holds on rd->dump); with
 * e < 0 the node has no entry and no items. 0 or -1. */
int gitems_read(gitems *it, const rankdata *rd, long e);
static inline const dump_row *gitem_row(const gitems *it, const gitem *g) { return &it->rows.rows[g->row]; }

/* The members of an item as the export writes them (§8.3), each
 * `"key": "value"` followed by '\n', then `cols` (the compare columns, in
 * the same form) unless the item collapses to {"value": "null"}. */
enum { ITEM_MD5 = 1, ITEM_BATCH_P2P = 2 };
void item_render(strbuf *sb, const gitems *it, const gitem *g, unsigned flags, const char *cols, size_t ncols);

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
} graph;

#define GRAPH_ROOT "DefaultModel"

/* Build the tree of a rank (§4.3-§4.7). 0 or -1. */
int graph_build(graph *g, rankdata *rd, const graph_opts *o);
void graph_free(graph *g);
long graph_find(const graph *g, const char *id, size_t len);
/* The op of a node name (§4.2). */
int graph_name_op(const char *name, size_t len);
/* Micro steps (§4.8): the NPU (or only) graph, and with a Bench graph the
 * propagation along the matched links. */
void graph_micro_steps(graph *n, graph *b);
/* -oc (§6): overflow levels from the entries' scenes. */
void graph_overflow(graph *g);
/* The path of node i (ancestors root first, then i): ids into *out (an
 * array of *n pointers, malloc'ed). A cycle gives just the node (after a
 * warning), as msprobe's empty ancestor list does. */
void graph_path(const graph *g, long i, const char ***out, size_t *n);

/* ---- compare (§5) -------------------------------------------------------- */

enum cmp_task { TASK_SUMMARY, TASK_MD5, TASK_REAL, TASK_STRUCTURE };

/* The tensor rows of a compare (task tensor): one per distinct NPU row
 * name, with the files of its last row and, once computed, its metrics. */
typedef struct {
    const char *name;
    const char *npu_file, *bench_file;   /* data names; "-1" none */
    tensor_metrics m;
} real_row;

typedef struct {
    graph *n, *b;
    int task;
    int cross_frame;
    const graph_opts *o;
    const char *const *mapping;  /* -lm: per NPU entry, the Bench entry name or NULL (N/A); NULL: none */
    arena mem;
    real_row *real;
    size_t nreal, realcap;
    strmap real_by_name;
    int32_t *queued;             /* tensor mode: NPU nodes compared, in order */
    size_t nqueued, qcap;
    progress_job *pj;
    /* statistics and md5: the compare cells of each compared NPU node's
     * items, kept from the walk for the writer (which then need not read
     * the Bench entry again): node_items[node] is the first of its items in
     * item_cells (inputs, then outputs; UINT32_MAX: not compared), and
     * item_cells[item] the first of its cells (UINT32_MAX: none) */
    uint32_t *node_items;
    uint32_t *item_cells;
    size_t nitem_cells, item_cap;
    struct scell *cells;
    size_t ncells, cell_cap;
    strbuf cell_text;            /* the digits of integers beyond 2**53 */
} gcompare;

/* The task of two dumps (§5.1). 0 or -1 with msprobe's error. */
int compare_task(const rankdata *n, const rankdata *b, int *task);
/* The cross-framework check and the layer mapping (§5.2). 0 or -1. */
int graph_compare_setup(gcompare *c);
/* Match and compare the graphs (§5.3-§5.7). 0 or -1. */
int graph_compare(gcompare *c);
void gcompare_free(gcompare *c);

/* The compare columns of NPU node i's items (§5.5), for the writer: per
 * item of `in` and `out` of the NPU node's gitems, the columns (name,
 * value) pairs to append, as JSON member text without indentation,
 * separated by '\n'. */
typedef struct {
    strbuf text;
    size_t *in_off, *out_off;    /* [i]..[i+1] in text; equal: none */
    size_t capin, capout;
} gcolumns;
void gcolumns_free(gcolumns *c);
int compare_columns(const gcompare *c, long i, const gitems *ni, gitems *bi, gcolumns *cols);

/* ---- distributed (§7) ---------------------------------------------------- */

/* Link the communication nodes of the graphs of one step (sorted by rank). */
void graph_distributed(graph **graphs, size_t n, int overflow_check);

/* ---- values (§8.3) --------------------------------------------------------- */

/* The text msprobe's export makes of a value: as JSON string contents
 * (escaped, ensure_ascii), appended to sb. */
void vis_value_json(strbuf *sb, const jval *v);
void vis_pyval(strbuf *sb, const pyval *v);
void vis_string(strbuf *sb, const char *s, size_t n);
void vis_float(strbuf *sb, double x);
/* repr(round(x, 6)) for a float whose repr has no exponent. */
size_t vis_round6(double x, char *buf);
/* "%.6f" of x, correctly rounded. */
size_t vis_fixed6(double x, char *buf);

#endif
