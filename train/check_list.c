/* Which metrics train_compare checks and with which tests (check_list.h):
 * Megatron's model_config.yaml, --metrics, --check, patterns. */
#include "train/check_list.h"
#include "format/yaml_read.h"
#include "base/arena.h"
#include "base/err.h"
#include "base/mem.h"

#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void checks_free(check_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].metric);
    free(l->v);
}

train_check *check_add(check_list *l, const char *metric, size_t len)
{
    for (size_t i = 0; i < l->n; i++)
        if (strlen(l->v[i].metric) == len && !memcmp(l->v[i].metric, metric, len))
            return &l->v[i];
    GROW(l->v, l->cap, l->n + 1);
    train_check *c = &l->v[l->n++];
    memset(c, 0, sizeof *c);
    c->metric = xstrndup(metric, len);
    return c;
}

static int no_thresholds(const char *metric)
{
    return err_set(ERR_USAGE, NULL, "'%s' has no thresholds in Megatron's table (%s, ...); give its tests with "
                                    "--check '%s:rtol=0.05'",
                   metric, train_threshold_metrics[0], metric);
}

/* A metric with the thresholds of Megatron's table; a pattern gets them
 * per metric it matches (ntests 0 until then). */
static int with_table(check_list *l, const char *metric, size_t len)
{
    train_check *c = check_add(l, metric, len);
    if (strpbrk(c->metric, "*?[")) {
        c->ntests = 0;
        return 0;
    }
    return train_thresholds(c->metric, c) ? 0 : no_thresholds(c->metric);
}

/* METRICS of a model_config.yaml, or Megatron's default. */
static int model_config_metrics(const char *path, check_list *l)
{
    arena a;
    arena_init(&a, 1 << 14);
    jval doc;
    int rc = yaml_load_file(path, YAML_ANY_NAME, &a, &doc);
    if (rc == 0 && doc.type != J_OBJECT)
        rc = err_input(path, "is not a model_config.yaml: it is not a mapping");
    const jval *m = rc == 0 ? json_get(&doc, "METRICS") : NULL;
    if (rc == 0 && !m) {
        rc = with_table(l, "lm loss", 7) || with_table(l, "num-zeros", 9) ? -1 : 0;
    } else if (rc == 0 && m->type != J_ARRAY) {
        rc = err_input(path, "METRICS is not a list of metric names");
    } else if (rc == 0) {
        for (uint32_t i = 0; i < m->len && rc == 0; i++) {
            const jval *x = &m->u.items[i];
            if (x->type != J_STRING)
                rc = err_input(path, "METRICS[%u] is not a metric name", i);
            else
                rc = with_table(l, x->u.str, x->len);
        }
    }
    arena_free(&a);
    return rc;
}

static int parse_number(const char *s, size_t n, double *x)
{
    char buf[64], *e;
    if (!n || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    *x = strtod(buf, &e);
    return e == buf + n && isfinite(*x) && *x >= 0 ? 0 : -1;
}

/* 'METRIC:TEST,TEST' (the metric is everything before the last ':'). */
static int parse_check(const char *spec_, check_list *l)
{
    const char *colon = strrchr(spec_, ':');
    if (!colon || colon == spec_)
        return err_set(ERR_USAGE, NULL, "--check '%s': needs METRIC:TEST,... (TEST exact, rtol=R or atol=A)", spec_);
    train_check *c = check_add(l, spec_, (size_t)(colon - spec_));
    c->ntests = 0;
    const char *p = colon + 1;
    while (1) {
        size_t n = strcspn(p, ",");
        const char *t = p;
        if (c->ntests == TRAIN_MAX_TESTS)
            return err_set(ERR_USAGE, NULL, "--check '%s': more than %d tests", spec_, TRAIN_MAX_TESTS);
        if (n == 5 && !memcmp(t, "exact", 5)) {
            c->tests[c->ntests++] = (train_test){TEST_DETERMINISTIC, 0, 0};
        } else {
            train_test tt = {TEST_APPROXIMATE, 0, 0};
            int any = 0;
            while (n) {
                size_t k = 0;
                while (k < n && t[k] != '+')
                    k++;
                double x;
                if (k > 5 && !memcmp(t, "rtol=", 5) && parse_number(t + 5, k - 5, &x) == 0)
                    tt.rtol = x, any = 1;
                else if (k > 5 && !memcmp(t, "atol=", 5) && parse_number(t + 5, k - 5, &x) == 0)
                    tt.atol = x, any = 1;
                else
                    return err_set(ERR_USAGE, NULL, "--check '%s': '%.*s' is no test (exact, rtol=R, atol=A, "
                                                    "rtol=R+atol=A)",
                                   spec_, (int)k, t);
                t += k + (k < n);
                n -= k + (k < n);
            }
            if (!any)
                return err_set(ERR_USAGE, NULL, "--check '%s': an empty test", spec_);
            c->tests[c->ntests++] = tt;
        }
        p += strcspn(p, ",");
        if (!*p)
            break;
        p++;
    }
    return 0;
}

int build_checks(const char *model_config, const char *metrics, char *const *checks, int nchecks, check_list *l)
{
    if (model_config && metrics)
        return err_set(ERR_USAGE, NULL, "give --model-config or --metrics, not both");
    if (model_config) {
        if (model_config_metrics(model_config, l) != 0)
            return -1;
    } else if (metrics) {
        for (const char *p = metrics; *p;) {
            size_t n = strcspn(p, ",");
            const char *s = p;
            size_t k = n;
            while (k && *s == ' ')
                s++, k--;
            while (k && s[k - 1] == ' ')
                k--;
            if (k && with_table(l, s, k) != 0)
                return -1;
            p += n + (p[n] == ',');
        }
        if (!l->n)
            return err_set(ERR_USAGE, NULL, "--metrics names no metric");
    } else if (!nchecks) {
        if (with_table(l, "lm loss", 7) || with_table(l, "num-zeros", 9))
            return -1;
    }
    for (int i = 0; i < nchecks; i++)
        if (parse_check(checks[i], l) != 0)
            return -1;
    return 0;
}

int is_pattern(const char *s) { return strpbrk(s, "*?[") != NULL; }

/* The series a run keeps: the checked metrics (names or patterns). */
int want_metric(void *ctx, const char *name, size_t len)
{
    const check_list *l = ctx;
    char buf[1024];
    int fits = len < sizeof buf;
    if (fits) {
        memcpy(buf, name, len);
        buf[len] = 0;
    }
    for (size_t i = 0; i < l->n; i++) {
        const char *m = l->v[i].metric;
        if (strlen(m) == len && !memcmp(m, name, len))
            return 1;
        if (fits && is_pattern(m) && fnmatch(m, buf, 0) == 0)
            return 1;
    }
    return 0;
}

/* A pattern's metrics, from the golden (in its order). */
int expand_patterns(check_list *l, const curves *golden, const char *golden_path)
{
    check_list out = {0};
    for (size_t i = 0; i < l->n; i++) {
        train_check *c = &l->v[i];
        if (!is_pattern(c->metric)) {
            train_check *d = check_add(&out, c->metric, strlen(c->metric));
            char *keep = d->metric;
            *d = *c;
            d->metric = keep;
            continue;
        }
        size_t found = 0;
        for (size_t k = 0; k < golden->n; k++)
            if (fnmatch(c->metric, golden->v[k].name, 0) == 0) {
                train_check *d = check_add(&out, golden->v[k].name, strlen(golden->v[k].name));
                char *keep = d->metric;
                *d = *c;
                d->metric = keep;
                if (!c->ntests && !train_thresholds(d->metric, d)) {
                    checks_free(&out);
                    return no_thresholds(golden->v[k].name);
                }
                found++;
            }
        if (!found) {
            checks_free(&out);
            return err_input(golden_path, "has no metric matching '%s'", c->metric);
        }
    }
    checks_free(l);
    *l = out;
    return 0;
}

