/* A node's name (spec §4.2): whether it names a module or an API -- by
 * msprobe 8.1.0's patterns or the newest msprobe's -- and the node of a
 * name in a built graph. Below the builder (build.c) and the newest
 * msprobe's passes over its tree (newest.c), which both ask. */
#include "graph/model/graph.h"
#include "base/log.h"

#include <string.h>

static const char NAME_OP[] = "node names parsed as modules";

static int starts(const char *s, size_t n, const char *p)
{
    size_t l = strlen(p);
    return n >= l && !memcmp(s, p, l);
}

/* msprobe's patterns are re.match() with an unescaped '.': "Module." is
 * "Module" and any one character (spec §10 #10). */
static int starts_any(const char *s, size_t n, const char *p)
{
    size_t l = strlen(p);
    return n > l && !memcmp(s, p, l);
}

int graph_module_name(const char *s, size_t n)
{
    return starts_any(s, n, "Module") || starts_any(s, n, "Cell") || starts(s, n, "optimizer") ||
           starts(s, n, "clip_grad");
}

static int is_api_name(const char *s, size_t n)
{
    static const char *const apis[] = {"Tensor", "Torch", "Functional", "NPU", "VF", "Distributed", "Aten",
                                       "Mint", "Primitive", "Jit", "MintFunctional"};
    for (size_t i = 0; i < sizeof apis / sizeof *apis; i++)
        if (starts_any(s, n, apis[i]))
            return 1;
    return 0;
}

int graph_name_op(const char *s, size_t n)
{
    if (graph_module_name(s, n))
        return GOP_MODULE;
    if (is_api_name(s, n))
        return GOP_API;
    log_warn_as(NAME_OP, "Cannot parse node_name %.*s into NodeOp, default parsing as module.", (int)n, s);
    return GOP_MODULE;
}

int graph_name_op_newest(const char *s, size_t n)
{
    if (graph_module_name(s, n) || starts(s, n, "DefaultModel"))
        return GOP_MODULE;
    if (is_api_name(s, n) || starts_any(s, n, "MindSpeed"))
        return GOP_API;
    /* the newest msprobe says so at debug level only */
    return GOP_MODULE;
}

long graph_find(const graph *g, const char *id, size_t len)
{
    const size_t *i = strmap_get(&g->by_id, id, len);
    return i ? (long)*i : -1;
}

