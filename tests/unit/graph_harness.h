/* Helpers of the graph unit tests: a rank directory written from three JSON
 * texts, loaded and built; two of them compared; the .vis they give. Static
 * inline, include after <cmocka.h> and testutil.h. */
#ifndef MSP_GRAPH_HARNESS_H
#define MSP_GRAPH_HARNESS_H

#include "graph/compare/match.h"
#include "graph/model/graph.h"
#include "graph/model/rank.h"
#include "graph/model/steps.h"
#include "graph/write/vis.h"
#include "base/files.h"
#include "base/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GH_TENSOR                                                                                                  \
    "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2, 3], \"Max\": 2.0, \"Min\": -1.0, " \
    "\"Mean\": 0.25, \"Norm\": 2.5, \"requires_grad\": false}"

/* §9 example C, md5 dumps: __imul__ (a norm jump) and add (NaN out) */
#define GH_I64(v, md5)                                                                                             \
    "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.int64\", \"shape\": [], \"Max\": " v ", \"Min\": " v           \
    ", \"Mean\": " v ", \"Norm\": " v ", \"requires_grad\": false, \"md5\": \"" md5 "\"}"
#define GH_F2(v, md5)                                                                                              \
    "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], \"Max\": " v ", \"Min\": " v        \
    ", \"Mean\": " v ", \"Norm\": " v ", \"requires_grad\": false, \"md5\": \"" md5 "\"}"
#define GH_EXAMPLE_C(md5_b, out)                                                                                   \
    "{\"task\": \"statistics\", \"level\": \"L1\", \"framework\": \"pytorch\", \"dump_data_dir\": null, \"data\": {" \
    "\"Tensor.__imul__.0.forward\": {\"input_args\": [" GH_I64("16388", "a563a4ea") ", " GH_I64("4097", md5_b)    \
    "], \"input_kwargs\": {}, \"output\": [" GH_I64("67141636", "0b5e8a07") "]},"                                 \
    "\"Torch.add.0.forward\": {\"input_args\": [" GH_F2("1.5", "aaaaaaaa") ", {\"type\": \"int\", \"value\": 2}], " \
    "\"input_kwargs\": {\"alpha\": {\"type\": \"int\", \"value\": 1}}, \"output\": [" GH_F2(out, "bbbbbbbb") "]}}}"
#define GH_EXAMPLE_C_NPU GH_EXAMPLE_C("ce564339", "NaN")
#define GH_EXAMPLE_C_BENCH GH_EXAMPLE_C("ce564559", "3.5")

typedef struct {
    char *dir;
    rankdata rd;
    graph g;
    graph_opts o;
} gh_side;

static inline void gh_make_opts(gh_side *s, const char *construct, const char *dump, const char *stack, unsigned need,
                                const graph_opts *o)
{
    memset(s, 0, sizeof *s);
    if (o)
        s->o = *o;
    s->dir = tu_mkdtemp();
    free(tu_write(s->dir, "construct.json", construct, (size_t)-1));
    free(tu_write(s->dir, "dump.json", !strcmp(dump, "{}") ? "{\"task\": \"statistics\", \"data\": {}}" : dump,
                  (size_t)-1));
    free(tu_write(s->dir, "stack.json", stack, (size_t)-1));
    err_clear();
    if (rank_load(&s->rd, s->dir, need, NULL) != 0 || graph_build(&s->g, &s->rd, &s->o) != 0)
        fail_msg("%s", err_message());
    s->g.side = 1;
}

static inline void gh_make_need(gh_side *s, const char *construct, const char *dump, const char *stack, unsigned need)
{
    gh_make_opts(s, construct, dump, stack, need, NULL);
}

static inline void gh_make(gh_side *s, const char *construct, const char *dump, const char *stack)
{
    gh_make_opts(s, construct, dump, stack, RANK_NEED_MD5, NULL);
}

static inline void gh_free(gh_side *s)
{
    graph_free(&s->g);
    rank_free(&s->rd);
    tu_rmtree(s->dir);
    free(s->dir);
}

/* The id of a node's parent, NULL for none. */
static inline const char *gh_parent(const graph *g, const char *id)
{
    long i = graph_find(g, id, strlen(id));
    if (i < 0)
        fail_msg("no node %s", id);
    return g->nodes[i].up >= 0 ? g->nodes[g->nodes[i].up].id : NULL;
}

/* node_map order, ids separated by blanks */
static inline void gh_expect_order(const graph *g, const char *want)
{
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < g->n; i++)
        sb_addf(&sb, "%s%s", i ? " " : "", g->nodes[i].id);
    assert_string_equal(sb_str(&sb), want);
    sb_free(&sb);
}

/* The .vis of a build (c NULL) or a compare, as text (malloc'ed). */
static inline char *gh_vis(gh_side *n, gh_side *b, const gcompare *c, int overflow_check)
{
    char *dir = tu_mkdtemp();
    char *path = tu_path(dir, "x.vis");
    err_clear();
    if (vis_write(&path, &n->g, b ? &b->g : NULL, c, overflow_check, 2) != 0)
        fail_msg("%s", err_message());
    mapped_file f;
    if (file_load(path, 0, &f) != 0)
        fail_msg("%s", err_message());
    char *text = xstrndup((const char *)f.data, f.size);
    file_unmap(&f);
    free(path);
    tu_rmtree(dir);
    free(dir);
    return text;
}

static inline void gh_check_vis(gh_side *n, gh_side *b, const gcompare *c, const char *text, int want)
{
    char *vis = gh_vis(n, b, c, n->o.overflow_check);
    if ((strstr(vis, text) != NULL) != want) {
        /* the whole file, for a look */
        FILE *f = fopen("/tmp/msprobe-unit-graph-failed.vis", "w");
        if (f) {
            fputs(vis, f);
            fclose(f);
        }
        fail_msg("the .vis %s '%s' (written to /tmp/msprobe-unit-graph-failed.vis)", want ? "lacks" : "has", text);
    }
    free(vis);
}

static inline void gh_expect_vis(gh_side *s, const gcompare *c, const char *text) { gh_check_vis(s, NULL, c, text, 1); }
static inline void gh_expect_no_vis(gh_side *s, const gcompare *c, const char *text)
{
    gh_check_vis(s, NULL, c, text, 0);
}

/* Two sides compared as graph_run does. */
typedef struct {
    gh_side n, b;
    gcompare c;
} gh_pair;

static inline void gh_compare(gh_pair *p, const graph_opts *o)
{
    memset(&p->c, 0, sizeof p->c);
    p->n.g.side = 1;
    p->b.g.side = 2;
    p->c.n = &p->n.g;
    p->c.b = &p->b.g;
    p->c.o = o;
    err_clear();
    if (gcompare_task(&p->n.rd, &p->b.rd, &p->c.task) != 0 || gcompare_setup(&p->c) != 0 ||
        gcompare_run(&p->c) != 0)
        fail_msg("%s", err_message());
    graph_micro_steps(&p->n.g, &p->b.g);
    if (o->overflow_check) {
        graph_overflow(&p->n.g);
        graph_overflow(&p->b.g);
    }
}

static inline void gh_pair_free(gh_pair *p)
{
    gcompare_free(&p->c);
    gh_free(&p->n);
    gh_free(&p->b);
}

static inline void gh_pair_expect(gh_pair *p, const char *text, int want)
{
    gh_check_vis(&p->n, &p->b, &p->c, text, want);
}

static inline const gnode *gh_node(const graph *g, const char *id)
{
    long i = graph_find(g, id, strlen(id));
    if (i < 0)
        fail_msg("no node %s", id);
    return &g->nodes[i];
}

#endif
