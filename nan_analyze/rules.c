/* What one dump.json entry is to nan_analyze (spec/analyzers.md §A.4, §A.5),
 * with msprobe 8.1.0's defects fixed (README, Differences):
 *   - NaN/Inf is looked for inside nested lists and dicts too (a tensor_list
 *     argument, a P2POp's tensor): 8.1.0 looks at the top-level items only;
 *   - a non-dict argument before the int that gives a directed op its role
 *     is passed over (8.1.0 raises AttributeError);
 *   - batch_isend_irecv talks to the peers of its P2POps (8.1.0 finds no
 *     rank in its nested list and connects it with every rank).
 */
#include "nan_analyze/nan.h"
#include "model/overflow.h"
#include "base/err.h"
#include "base/mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Deeper than this, nested arguments are not looked into (JSON written by
 * msprobe nests a few levels). */
enum { MAX_NEST = 32 };

static int bad_stats(const jval *item)
{
    return ovf_is_nan_inf(json_get(item, "Max"), 1) || ovf_is_nan_inf(json_get(item, "Min"), 1);
}

static int nested_anomaly(const jval *v, int depth)
{
    if (depth > MAX_NEST)
        return 0;
    if (v->type == J_OBJECT) {
        if (bad_stats(v))
            return 1;
        for (uint32_t i = 0; i < v->len; i++) {
            const jval *m = json_member_value(v, i);
            if ((m->type == J_OBJECT || m->type == J_ARRAY) && nested_anomaly(m, depth + 1))
                return 1;
        }
    } else if (v->type == J_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++)
            if (nested_anomaly(&v->u.items[i], depth + 1))
                return 1;
    }
    return 0;
}

int nan_item_anomaly(const jval *param)
{
    if (!param || (param->type != J_ARRAY && param->type != J_OBJECT))
        return 0;
    for (uint32_t i = 0; i < param->len; i++) {
        const jval *item = param->type == J_ARRAY ? &param->u.items[i] : json_member_value(param, i);
        if (nested_anomaly(item, 0))
            return 1;
    }
    return 0;
}

static const char *const comm_keywords[] = {
    "send", "recv", "broadcast", "all_reduce", "reduce", "all_gather", "gather", "isend", "irecv", "scatter",
    "reduce_scatter", "_reduce_scatter_base", "_all_gather_base", "all_to_all_single", "all_to_all",
    "all_gather_into_tensor", "reduce_scatter_tensor", "send_object_list", "recv_object_list"};

int nan_is_comm_op(const char *name)
{
    if (strncmp(name, "Distributed.", 12) != 0)
        return 0;
    for (size_t i = 0; i < COUNT(comm_keywords); i++)
        if (strstr(name, comm_keywords[i]))
            return 1;
    return 0;
}

int nan_is_ignored(const char *name) { return strstr(name, "Torch.empty") || strstr(name, "Torch.fill"); }

/* ---- a communication op's role and partners (§A.5) ----------------------- */

static const char *const p2p_pairs[][2] = {
    {"send", "recv"}, {"isend", "irecv"}, {"send_object_list", "recv_object_list"}};

/* DIRECTED_API: the role of the rank an int argument names. */
static const struct {
    const char *api;
    uint8_t type;
} directed[] = {{"send", CG_DST},    {"recv", CG_SRC},    {"isend", CG_DST},
                {"irecv", CG_SRC},   {"broadcast", CG_SRC}, {"scatter", CG_SRC},
                {"gather", CG_DST},  {"send_object_list", CG_DST}, {"recv_object_list", CG_SRC}};

static uint8_t opposite(uint8_t t) { return t == CG_SRC ? CG_DST : CG_SRC; }

/* v.get('value') of a kwarg such as {"type": "int", "value": 1}; a bare
 * number stands for itself (msprobe raises on it). */
static const jval *arg_value(const jval *v)
{
    if (v && v->type == J_OBJECT)
        return json_get(v, "value");
    return v && v->type == J_NUMBER ? v : NULL;
}

/* A JSON value as a rank number: an integral number (Python's == makes
 * 1.0 and True equal 1 too). */
static int as_rank(const jval *v, long *out)
{
    double x;
    if (v && v->type == J_NUMBER)
        x = v->u.num;
    else if (v && (v->type == J_TRUE || v->type == J_FALSE))
        x = v->type == J_TRUE;
    else
        return 0;
    if (!isfinite(x) || x != floor(x) || fabs(x) > 1e15)
        return 0;
    *out = (long)x;
    return 1;
}

static int names_rank(const jval *v, long rank)
{
    long r;
    return as_rank(arg_value(v), &r) && r == rank;
}

static int is_int_arg(const jval *v) { return v->type == J_OBJECT && json_str_eq(json_get(v, "type"), "int"); }

/* _resolve_type(). */
static uint8_t resolve_type(const char *api, const jval *args, const jval *kwargs, long rank)
{
    static const char *const srcs[] = {"src", "src_group"}, *const dsts[] = {"dst", "dst_group"};
    for (int k = 0; k < 2; k++) {
        const jval *v = json_get(kwargs, srcs[k]);
        if (v && json_truthy(v))
            return names_rank(v, rank) ? CG_SRC : CG_DST;
    }
    for (int k = 0; k < 2; k++) {
        const jval *v = json_get(kwargs, dsts[k]);
        if (v && json_truthy(v))
            return names_rank(v, rank) ? CG_DST : CG_SRC;
    }
    for (size_t d = 0; d < COUNT(directed); d++) {
        if (strcmp(api, directed[d].api) != 0)
            continue;
        for (uint32_t i = 0; args && args->type == J_ARRAY && i < args->len; i++)
            if (is_int_arg(&args->u.items[i]))
                return names_rank(&args->u.items[i], rank) ? directed[d].type : opposite(directed[d].type);
        break;
    }
    return CG_LINK;
}

typedef struct {
    long *v;
    size_t n, cap;
} longs;

static void add_rank(longs *s, const jval *v)
{
    long r;
    if (!as_rank(v, &r))
        return;
    GROW(s->v, s->cap, s->n + 1);
    s->v[s->n++] = r;
}

static int is_p2pop(const jval *v)
{
    const jval *c = json_get(v, "class_type");
    return json_str_eq(c, "torch.distributed.P2POp") || json_str_eq(c, "mindspore.mint.distributed.P2POp");
}

/* The peers of the P2POps among the (nested) arguments. */
static void p2p_peers(const jval *v, int depth, longs *s)
{
    if (depth > MAX_NEST)
        return;
    if (v->type == J_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++)
            p2p_peers(&v->u.items[i], depth + 1, s);
    } else if (v->type == J_OBJECT && is_p2pop(v)) {
        add_rank(s, json_get(v, "peer"));
    }
}

/* find_connected_nodes()'s ranks. */
static void partner_ranks(const jval *args, const jval *kwargs, longs *s)
{
    static const char *const keys[2][2] = {{"dst", "dst_group"}, {"src", "src_group"}};
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < 2; k++) {
            const jval *v = json_get(kwargs, keys[d][k]);
            if (!v)
                continue;
            if (json_truthy(v))
                add_rank(s, arg_value(v));
            break;
        }
    if (!s->n && args && args->type == J_ARRAY)
        for (uint32_t i = 0; i < args->len; i++)
            if (is_int_arg(&args->u.items[i]))
                add_rank(s, json_get(&args->u.items[i], "value"));
    if (!s->n && args)
        p2p_peers(args, 0, s);
    const jval *group = json_get(kwargs, "group");
    const jval *members = group && json_truthy(group) ? json_get(group, "group_ranks") : NULL;
    for (uint32_t i = 0; members && members->type == J_ARRAY && i < members->len; i++)
        add_rank(s, &members->u.items[i]);
}

/* Equal rank lists of a rank share one array: the engine then indexes a big
 * group once, not once per collective. */
struct rank_sets {
    const long **v;
    size_t *n;
    size_t count, cap, ncap;
};

enum { MAX_SETS = 256 };

rank_sets *rank_sets_new(void) { return xcalloc(1, sizeof(rank_sets)); }

void rank_sets_free(rank_sets *s)
{
    if (!s)
        return;
    free(s->v);
    free(s->n);
    free(s);
}

static const long *keep_set(rank_sets *sets, const longs *s, arena *a)
{
    for (size_t i = 0; sets && i < sets->count; i++)
        if (sets->n[i] == s->n && !memcmp(sets->v[i], s->v, s->n * sizeof *s->v))
            return sets->v[i];
    long *copy = arena_alloc(a, s->n * sizeof *copy);
    memcpy(copy, s->v, s->n * sizeof *copy);
    if (sets && sets->count < MAX_SETS) {
        GROW(sets->v, sets->cap, sets->count + 1);
        GROW(sets->n, sets->ncap, sets->count + 1);
        sets->v[sets->count] = copy;
        sets->n[sets->count++] = s->n;
    }
    return copy;
}

static int describe_comm(const char *path, const char *name, const jval *args, const jval *kwargs, long rank, arena *a,
                         rank_sets *sets, cg_op *op)
{
    /* Distributed.<api>.<call count>.<direction>, at least */
    const char *api = name + 12;
    const char *api_end = strchr(api, '.');
    size_t dots = 0;
    for (const char *p = name; *p; p++)
        dots += *p == '.';
    if (dots < 3 || !api_end)
        return err_input(path, "invalid op_name: %s (a communication op has at least 4 dot-separated fields)", name);
    size_t alen = (size_t)(api_end - api);
    char *mine = arena_strndup(a, api, alen);
    const char *peer = mine;
    for (size_t k = 0; k < COUNT(p2p_pairs); k++)
        for (int d = 0; d < 2; d++)
            if (!strcmp(mine, p2p_pairs[k][d]))
                peer = p2p_pairs[k][1 - d];
    size_t plen = strlen(peer);
    char *own = arena_alloc(a, 12 + alen + 1), *other = arena_alloc(a, 12 + plen + 1);
    memcpy(own, name, 12 + alen);
    own[12 + alen] = 0;
    memcpy(other, name, 12);
    memcpy(other + 12, peer, plen + 1);
    op->api = own;
    op->peer_api = other;
    for (size_t d = 0; d < COUNT(directed); d++)
        if (!strcmp(mine, directed[d].api))
            op->flags |= CG_DIRECTED;
    const jval *kw = kwargs && kwargs->type == J_OBJECT ? kwargs : NULL;
    op->type = resolve_type(mine, args, kw, rank);
    longs s = {0};
    partner_ranks(args, kw, &s);
    if (s.n) {
        op->ranks = keep_set(sets, &s, a);
        op->nranks = s.n;
    }
    free(s.v);
    return 0;
}

int nan_describe(const char *path, const char *name, const jval *entry, long rank, arena *a, rank_sets *sets,
                 cg_op *op)
{
    memset(op, 0, sizeof *op);
    op->name = name;
    const jval *args = json_get(entry, "input_args"), *kwargs = json_get(entry, "input_kwargs");
    int bad_args = nan_item_anomaly(args), bad_kwargs = nan_item_anomaly(kwargs);
    int bad_in = bad_args || bad_kwargs || nan_item_anomaly(json_get(entry, "input"));
    int bad_out = nan_item_anomaly(json_get(entry, "output"));
    int ignored = nan_is_ignored(name);
    if (ignored)
        op->flags |= CG_IGNORED;
    /* DataNode.is_anomaly(): clean inputs, NaN/Inf out */
    if (!ignored && !bad_in && bad_out)
        op->flags |= CG_FLAGGED;
    if (!nan_is_comm_op(name))
        return 0;
    op->flags |= CG_COMM;
    /* the comm node's own test looks at input_args and input_kwargs only */
    if (bad_args || bad_kwargs)
        op->flags |= CG_INPUT_FLAGGED | CG_KEEP;
    if (bad_out)
        op->flags |= CG_KEEP;
    return describe_comm(path, name, args, kwargs, rank, a, sets, op);
}

/* ---- the summary line ------------------------------------------------------ */

static unsigned kinds_of(const jval *v, int depth)
{
    unsigned k = 0;
    if (depth > MAX_NEST)
        return 0;
    if (v->type == J_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++)
            k |= kinds_of(&v->u.items[i], depth + 1);
    } else if (v->type == J_OBJECT) {
        static const char *const stats[] = {"Max", "Min"};
        for (int s = 0; s < 2; s++) {
            const jval *x = json_get(v, stats[s]);
            if (!ovf_is_nan_inf(x, 1))
                continue;
            if (x->type == J_NUMBER)
                k |= isnan(x->u.num) ? 1u : x->u.num > 0 ? 2u : 4u;
            else
                k |= (x->u.str[0] | 0x20) == 'n' ? 1u : x->u.str[0] == '-' ? 4u : 2u;
        }
        for (uint32_t i = 0; i < v->len; i++) {
            const jval *m = json_member_value(v, i);
            if (m->type == J_OBJECT || m->type == J_ARRAY)
                k |= kinds_of(m, depth + 1);
        }
    }
    return k;
}

void nan_output_kinds(const jval *entry, strbuf *sb)
{
    const jval *out = json_get(entry, "output");
    unsigned k = out ? kinds_of(out, 0) : 0;
    static const char *const names[] = {"nan", "inf", "-inf"};
    int any = 0;
    for (int i = 0; i < 3; i++)
        if (k & (1u << i))
            sb_addf(sb, "%s%s", any++ ? ", " : "", names[i]);
    if (!any)
        sb_adds(sb, "nan/inf");
}
