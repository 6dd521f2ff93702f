/* Megatron's checks (check.h). */
#include "train/check.h"
#include "base/mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const train_test_names[2] = {"DETERMINISTIC", "APPROXIMATE"};
const char *const train_verdict_names[3] = {"PASSED", "FAILED", "SKIPPED"};

/* test_pretraining_regular_pipeline.py's CHECK_THRESHOLDS: atol is 0
 * throughout */
static const struct {
    const char *metric;
    int deterministic;
    double rtol;
} THRESHOLDS[] = {
    {"iteration-time", 0, 0.05},   {"mem-allocated-bytes", 0, 0.05}, {"mem-max-allocated-bytes", 0, 0.05},
    {"lm loss", 1, 0.05},          {"mtp_1 loss", 1, 0.05},          {"mtp_2 loss", 1, 0.05},
    {"num-zeros", 1, 0.20},        {"generated_tokens", 1, 0.05},    {"logprobs", 1, 0.05},
    {"total loss", 1, 0.05},
};
enum { NTHRESHOLDS = sizeof THRESHOLDS / sizeof THRESHOLDS[0] };

const char *const train_threshold_metrics[] = {
    "iteration-time", "mem-allocated-bytes", "mem-max-allocated-bytes", "lm loss", "mtp_1 loss", "mtp_2 loss",
    "num-zeros",      "generated_tokens",    "logprobs",                "total loss", NULL,
};

int train_thresholds(const char *metric, train_check *out)
{
    for (size_t i = 0; i < NTHRESHOLDS; i++) {
        if (strcmp(THRESHOLDS[i].metric, metric) != 0)
            continue;
        out->ntests = 0;
        if (THRESHOLDS[i].deterministic)
            out->tests[out->ntests++] = (train_test){TEST_DETERMINISTIC, 0, 0};
        out->tests[out->ntests++] = (train_test){TEST_APPROXIMATE, THRESHOLDS[i].rtol, 0};
        return 1;
    }
    return 0;
}

int train_isclose(double a, double b, double rtol, double atol)
{
    if (isfinite(a) && isfinite(b))
        return fabs(a - b) <= atol + rtol * fabs(b);
    return a == b;
}

double train_tolerance(const train_test *t, const curve *golden, size_t i, const train_band *band)
{
    if (t->kind == TEST_DETERMINISTIC)
        return 0;
    double tol = t->atol + t->rtol * fabs(golden->value[i]);
    if (band && band->std && i < band->std->n && isfinite(band->std->value[i])) {
        double w = band->k * band->std->value[i];
        if (w > tol)
            tol = w;
    }
    return tol;
}

static int close_at(const train_test *t, double a, const curve *g, size_t i, const train_band *band)
{
    if (t->kind == TEST_DETERMINISTIC)
        return train_isclose(a, g->value[i], 0, 0);
    if (!band)
        return train_isclose(a, g->value[i], t->rtol, t->atol);
    double b = g->value[i];
    if (isfinite(a) && isfinite(b))
        return fabs(a - b) <= train_tolerance(t, g, i, band);
    return a == b;
}

const train_test *train_display_test(const train_check *chk)
{
    for (int i = chk->ntests; i-- > 0;)
        if (chk->tests[i].kind == TEST_APPROXIMATE)
            return &chk->tests[i];
    return chk->ntests ? &chk->tests[0] : NULL;
}

/* The actual's value at a golden step: a missing step is the string "nan",
 * and a string is inf (strings are stored as +inf already). Golden steps
 * come in order: *cur walks the actual along with them (no search). */
static double actual_at(const curve *a, int64_t step, int *missing, size_t *cur)
{
    size_t k = *cur;
    if (k > 0 && a->step[k - 1] >= step)
        k = 0;   /* not in order after all: start over */
    while (k < a->n && a->step[k] < step)
        k++;
    *cur = k;
    *missing = !(k < a->n && a->step[k] == step);
    return *missing ? INFINITY : a->value[k];
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* np.median: NaN when any value is NaN, else the middle value or the mean
 * of the two middle ones ((a + b) / 2, as np.mean adds then divides). */
static double median(double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isnan(v[i]))
            return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* iteration-time: the median over the golden's steady window. */
static void iteration_time(const train_test *t, const curve *g, const curve *a, test_result *r)
{
    size_t nf = 0;
    int64_t last = 0;
    for (size_t i = 0; i < g->n; i++)
        if (curve_kind_at(g, i) != CV_STR && isfinite(g->value[i]))
            nf++, last = g->step[i];
    if (!nf) {
        r->verdict = V_FAILED;
        r->why = WHY_NO_FINITE;
        return;
    }
    int64_t lo = last <= 25 ? 5 : 30, hi = last <= 25 ? 20 : 45;
    size_t *pick = xmalloc_array(nf, sizeof *pick), np = 0;
    for (size_t i = 0; i < g->n; i++)
        if (curve_kind_at(g, i) != CV_STR && isfinite(g->value[i]) && g->step[i] >= lo && g->step[i] <= hi)
            pick[np++] = i;
    if (!np)
        for (size_t i = 0; i < g->n && np < 4; i++)
            if (curve_kind_at(g, i) != CV_STR && isfinite(g->value[i]) && g->step[i] >= lo)
                pick[np++] = i;
    r->median = 1;
    r->window_lo = lo;
    r->window_hi = hi;
    if (!np) {
        free(pick);
        r->verdict = V_FAILED;
        r->why = WHY_NO_STEADY;
        return;
    }
    double *gv = xmalloc_array(np, sizeof *gv), *av = xmalloc_array(np, sizeof *av);
    size_t cur = 0;
    for (size_t k = 0; k < np; k++) {
        int missing;
        gv[k] = g->value[pick[k]];
        av[k] = actual_at(a, g->step[pick[k]], &missing, &cur);
    }
    r->nwindow = np;
    r->first_window_step = g->step[pick[0]];
    r->last_window_step = g->step[pick[np - 1]];
    r->golden_median = median(gv, np);
    r->actual_median = median(av, np);
    r->n = 1;
    int ok = train_isclose(r->actual_median, r->golden_median, t->kind == TEST_DETERMINISTIC ? 0 : t->rtol,
                           t->kind == TEST_DETERMINISTIC ? 0 : t->atol);
    r->failing = !ok;
    r->first_failing = -1;
    if (isfinite(r->golden_median) && isfinite(r->actual_median) && r->golden_median != 0)
        r->max_rel_diff = fabs(r->actual_median - r->golden_median) / fabs(r->golden_median);
    r->verdict = ok ? V_PASSED : V_FAILED;
    free(pick);
    free(gv);
    free(av);
}

static void run_test(const char *metric, const train_test *t, const curve *g, const curve *a, const train_band *band,
                     test_result *r)
{
    if (!g->n) {
        r->verdict = V_FAILED;
        r->why = WHY_NO_GOLDEN_VALUES;
        return;
    }
    if (!strcmp(metric, "iteration-time")) {
        iteration_time(t, g, a, r);
        return;
    }
    size_t nclose = 0, cur = 0;
    for (size_t i = 0; i < g->n; i++) {
        int missing;
        double av = actual_at(a, g->step[i], &missing, &cur), gv = g->value[i];
        int ok = close_at(t, av, g, i, band);
        nclose += (size_t)ok;
        if (!ok && r->first_failing < 0)
            r->first_failing = g->step[i];
        if (missing && curve_kind_at(g, i) == CV_STR)
            r->masked++;
        if (isfinite(av) && isfinite(gv) && gv != 0) {
            double rel = fabs(av - gv) / fabs(gv);
            if (isnan(r->max_rel_diff) || rel > r->max_rel_diff)
                r->max_rel_diff = rel;
        }
    }
    size_t n = g->n;
    r->n = n;
    r->failing = n - nclose;
    if (t->kind == TEST_DETERMINISTIC || n == 1) {
        r->allowed = 0;
        r->verdict = nclose == n ? V_PASSED : V_FAILED;
    } else {
        size_t allowed = n / 100;
        allowed = allowed < 1 ? 1 : allowed > 50 ? 50 : allowed;
        r->allowed = allowed;
        /* as the checker computes it: the mean of the booleans against
         * 1 - allowed / n, both in floating point (for n = 3 one failing
         * step is then not allowed: 2/3 < 1 - 1/3) */
        double mean = (double)nclose / (double)n;
        r->verdict = mean >= 1.0 - (double)allowed / (double)n ? V_PASSED : V_FAILED;
    }
}

void train_check_metric(const train_check *chk, const curve *golden, const curve *actual, int approximate_only,
                        const train_band *band, metric_result *out)
{
    memset(out, 0, sizeof *out);
    out->check = chk;
    out->first_out = -1;
    for (int k = 0; k < chk->ntests; k++) {
        const train_test *t = &chk->tests[k];
        test_result *r = &out->r[k];
        r->first_failing = -1;
        r->max_rel_diff = NAN;
        if (approximate_only && t->kind == TEST_DETERMINISTIC) {
            r->verdict = V_SKIPPED;
            continue;
        }
        if (!golden || !actual) {
            r->verdict = V_FAILED;
            r->why = !golden ? WHY_MISSING_GOLDEN : WHY_MISSING_ACTUAL;
        } else {
            run_test(chk->metric, t, golden, actual, t->kind == TEST_APPROXIMATE ? band : NULL, r);
        }
        if (r->verdict == V_FAILED)
            out->failed = 1;
    }
    /* the first step out of the loosest tolerance (not for a median) */
    const train_test *d = train_display_test(chk);
    size_t cur = 0;
    if (d && golden && actual && strcmp(chk->metric, "iteration-time") != 0)
        for (size_t i = 0; i < golden->n; i++) {
            int missing;
            double av = actual_at(actual, golden->step[i], &missing, &cur);
            if (!close_at(d, av, golden, i, d->kind == TEST_APPROXIMATE ? band : NULL)) {
                out->first_out = golden->step[i];
                break;
            }
        }
}
