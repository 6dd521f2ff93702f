/* The anomaly scenes of overflow.h, read from one dump.json entry already
 * parsed into a value tree: NaN/Inf tests on the statistics, the four
 * scenes tried in msprobe's order, and msprobe's shipped ignore rules as a
 * table here (a list of APIs whose uninitialised buffers may hold NaN/Inf
 * at given argument positions). Every test keeps Python's reading of odd
 * values -- a bool Norm counts as 1, iterating a dict gives its keys --
 * because the scene decides which rows nan_analyze and graph report.
 */
#include "model/overflow.h"

#include <math.h>
#include <string.h>

/* msprobe's recursion_depth_decorator limit for _has_anomaly. */
enum { MAX_DEPTH = 10 };

static int text_is(const char *s, size_t n, const char *word)
{
    if (strlen(word) != n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != word[i])
            return 0;
    }
    return 1;
}

int ovf_is_nan_inf(const jval *v, int tab_too)
{
    if (!v)
        return 0;
    if (v->type == J_NUMBER)
        return !v->is_int && (isnan(v->u.num) || isinf(v->u.num));
    if (v->type != J_STRING)
        return 0;
    /* str.lower() maps no non-ASCII letter onto these words */
    static const char *const words[] = {"nan", "inf", "-inf", "nan\t", "inf\t", "-inf\t"};
    for (int i = 0; i < (tab_too ? 6 : 3); i++)
        if (text_is(v->u.str, v->len, words[i]))
            return 1;
    return 0;
}

int ovf_stats_anomalous(const jval *v)
{
    if (!v || v->type != J_OBJECT)
        return 0;
    static const char *const keys[] = {"Max", "Min", "Mean"};
    for (int k = 0; k < 3; k++)
        if (ovf_is_nan_inf(json_get(v, keys[k]), 0))
            return 1;
    return 0;
}

static int anomalous(const jval *v, int depth)
{
    if (!v)
        return 0;
    if (v->type == J_OBJECT)
        return ovf_stats_anomalous(v);
    if (v->type != J_ARRAY || depth >= MAX_DEPTH)
        return 0;
    for (uint32_t i = 0; i < v->len; i++)
        if (anomalous(&v->u.items[i], depth + 1))
            return 1;
    return 0;
}

int ovf_value_anomalous(const jval *v) { return anomalous(v, 0); }

void ovf_api_of(const jval *entry, ovf_api *api)
{
    api->args = json_get(entry, "input_args");
    if (!api->args)
        api->args = json_get(entry, "input");
    api->kwargs = json_get(entry, "input_kwargs");
    api->outputs = json_get(entry, "output");
}

/* any(_has_anomaly(x) for x in list): iterating a dict gives its keys,
 * which are never anomalous. */
static int any_item(const jval *list)
{
    if (!list || list->type != J_ARRAY)
        return 0;
    for (uint32_t i = 0; i < list->len; i++)
        if (ovf_value_anomalous(&list->u.items[i]))
            return 1;
    return 0;
}

static int any_value(const jval *dict)
{
    if (!dict || dict->type != J_OBJECT)
        return 0;
    for (uint32_t i = 0; i < dict->len; i++)
        if (ovf_value_anomalous(json_member_value(dict, i)))
            return 1;
    return 0;
}

/* The Norm of every torch.Tensor dict among the values, NaN left out;
 * returns whether there was one, the largest in *max. */
static int max_norm(const jval *container, double *max)
{
    int any = 0;
    if (!container || (container->type != J_ARRAY && container->type != J_OBJECT))
        return 0;
    for (uint32_t i = 0; i < container->len; i++) {
        const jval *d = container->type == J_ARRAY ? &container->u.items[i] : json_member_value(container, i);
        if (d->type != J_OBJECT || !json_str_eq(json_get(d, "type"), "torch.Tensor"))
            continue;
        const jval *n = json_get(d, "Norm");
        double x;
        if (n && n->type == J_NUMBER)
            x = n->u.num;
        else if (n && (n->type == J_TRUE || n->type == J_FALSE))
            x = n->type == J_TRUE;   /* np.isnan(True) is False: the bool counts as 1 */
        else
            continue;                /* None, or text (np.isnan raises there) */
        if (isnan(x))
            continue;
        if (!any || x > *max)
            *max = x;
        any = 1;
    }
    return any;
}

static int numerical_mutation(const ovf_api *api)
{
    double in = 0, kw = 0, out = 0;
    int have_in = api->args && api->args->type == J_ARRAY && max_norm(api->args, &in);
    int have_kw = api->kwargs && api->kwargs->type == J_OBJECT && max_norm(api->kwargs, &kw);
    int have_out = api->outputs && api->outputs->type == J_ARRAY && max_norm(api->outputs, &out);
    if (!(have_in || have_kw) || !have_out)
        return 0;
    if (!have_in || (have_kw && kw > in))
        in = kw;
    if (in == 0)
        return out > OVF_MUTATION_THRESHOLD;
    return out / in > OVF_MUTATION_THRESHOLD;
}

int ovf_scene_of(const ovf_api *api)
{
    int in = any_item(api->args) || any_value(api->kwargs);
    int out = any_item(api->outputs);
    if (!in && out)
        return OVF_INPUT_NORMAL_OUTPUT_ANOMALY;
    if (in && out)
        return OVF_INPUT_ANOMALY_OUTPUT_ANOMALY;
    if (in)
        return OVF_INPUT_ANOMALY_OUTPUT_NORMAL;
    return numerical_mutation(api) ? OVF_NUMERICAL_MUTATION : OVF_NONE;
}

/* ignore_rules.yaml as msprobe ships it: NaN/Inf that uninitialised buffers
 * may hold. Index lists end with -1. */
typedef struct {
    const char *api;
    int in_index[2];
    const char *in_name;
    int out_index[2];
} ignore_rule;

static const ignore_rule rules[] = {
    {"torch.empty", {-1}, NULL, {0, -1}},
    {"torch.empty_like", {-1}, NULL, {0, -1}},
    {"torch.empty_strided", {-1}, NULL, {0, -1}},
    {"distributed.recv", {0, -1}, "tensor", {-1}},
    {"distributed.all_gather", {0, -1}, NULL, {-1}},
    {"distributed.reduce_scatter", {0, -1}, "output", {-1}},
    {"distributed._reduce_scatter_base", {0, -1}, NULL, {-1}},
    {"distributed.all_gather_into_tensor", {0, -1}, NULL, {-1}},
    {"distributed.reduce_scatter_tensor", {0, -1}, NULL, {-1}},
    {"tensor.masked_fill_", {0, -1}, NULL, {-1}},
};

static int has_index(const int *list, uint32_t i)
{
    for (; *list >= 0; list++)
        if ((uint32_t)*list == i)
            return 1;
    return 0;
}

/* Every flagged item of the list has an index the rule ignores. */
static int indices_ignored(const jval *list, const int *ignore)
{
    if (ignore[0] < 0 || !list || list->type != J_ARRAY)
        return 1;
    for (uint32_t i = 0; i < list->len; i++)
        if (ovf_stats_anomalous(&list->u.items[i]) && !has_index(ignore, i))
            return 0;
    return 1;
}

/* extract_torch_api(): the first two dot-separated fields, lower-cased. */
static size_t torch_api(const char *name, char *buf, size_t cap)
{
    const char *dot = strchr(name, '.');
    const char *end = dot ? strchr(dot + 1, '.') : NULL;
    size_t n = end ? (size_t)(end - name) : strlen(name);
    if (n >= cap)
        return 0;
    for (size_t i = 0; i < n; i++)
        buf[i] = name[i] >= 'A' && name[i] <= 'Z' ? (char)(name[i] - 'A' + 'a') : name[i];
    buf[n] = 0;
    return n;
}

int ovf_ignored(const char *name, const ovf_api *api)
{
    char key[64];
    if (!torch_api(name, key, sizeof key))
        return 0;
    for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
        const ignore_rule *rule = &rules[r];
        if (strcmp(rule->api, key) != 0)
            continue;
        if (!indices_ignored(api->args, rule->in_index) || !indices_ignored(api->outputs, rule->out_index))
            return 0;
        const jval *kw = api->kwargs;
        if (rule->in_name && kw && kw->type == J_OBJECT)
            for (uint32_t i = 0; i < kw->len; i++) {
                const jmember *m = &kw->u.members[i];
                if (ovf_stats_anomalous(&m->val) &&
                    !(m->keylen == strlen(rule->in_name) && !memcmp(m->key, rule->in_name, m->keylen)))
                    return 0;
            }
        return 1;
    }
    return 0;
}

int ovf_classify(const char *name, const jval *entry)
{
    ovf_api api;
    ovf_api_of(entry, &api);
    int scene = ovf_scene_of(&api);
    return scene && !ovf_ignored(name, &api) ? scene : OVF_NONE;
}

int ovf_scene_level(int scene)
{
    switch (scene) {
    case OVF_INPUT_NORMAL_OUTPUT_ANOMALY: return OVF_CRITICAL;
    case OVF_INPUT_ANOMALY_OUTPUT_ANOMALY: return OVF_HIGH;
    case OVF_INPUT_ANOMALY_OUTPUT_NORMAL: return OVF_MEDIUM;
    case OVF_NUMERICAL_MUTATION: return OVF_HIGH;
    default: return OVF_LEVEL_NONE;
    }
}

const char *ovf_scene_name(int scene)
{
    static const char *const names[] = {"", "InputNormalOutputAnomalyScene", "InputAnomalyOutputAnomalyScene",
                                        "InputAnomalyOutputNormalScene", "NumericalMutationScene"};
    return scene >= 0 && scene <= OVF_NUMERICAL_MUTATION ? names[scene] : "";
}

const char *ovf_level_name(int level)
{
    static const char *const names[] = {"", "medium", "high", "critical"};
    return level >= 0 && level <= OVF_CRITICAL ? names[level] : "";
}
