/* What train_compare reports (train.h): the table on standard output, the
 * summary JSON, the step-by-step table. */
#include "train/train.h"
#include "format/jsonw.h"
#include "model/table.h"
#include "py/numfmt.h"
#include "base/mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *why_text(int why)
{
    switch (why) {
    case WHY_MISSING_ACTUAL: return "missing in the actual";
    case WHY_MISSING_GOLDEN: return "missing in the golden";
    case WHY_NO_GOLDEN_VALUES: return "no golden value at the compared steps";
    case WHY_NO_FINITE: return "no finite golden value";
    case WHY_NO_STEADY: return "no finite golden value after the warm-up window";
    default: return "";
    }
}

static void num(strbuf *sb, double x)
{
    char buf[NUMFMT_BUFSZ];
    if (isnan(x))
        sb_adds(sb, "nan");
    else if (isinf(x))
        sb_adds(sb, x > 0 ? "inf" : "-inf");
    else
        sb_addf(sb, "%.6g", x);
    (void)buf;
}

/* The combined verdict of a metric's tests of one kind: FAILED over
 * PASSED over SKIPPED; -1 when it has none. */
static int kind_verdict(const train_metric *m, int kind)
{
    int v = -1;
    for (int k = 0; k < m->check.ntests; k++) {
        if (m->check.tests[k].kind != kind)
            continue;
        int x = m->res.r[k].verdict;
        if (v < 0 || x == V_FAILED || (x == V_PASSED && v == V_SKIPPED))
            v = x;
    }
    return v;
}

typedef struct {
    int64_t step;
    size_t m;
} first_out;

static int by_step(const void *a, const void *b)
{
    const first_out *x = a, *y = b;
    if (x->step != y->step)
        return x->step < y->step ? -1 : 1;
    return x->m < y->m ? -1 : x->m > y->m;
}

/* Metrics that left their tolerance, the earliest first. */
static size_t first_outs(const train_run *r, first_out **out)
{
    first_out *v = xmalloc_array(r->nm ? r->nm : 1, sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < r->nm; i++)
        if (r->m[i].res.first_out >= 0)
            v[n++] = (first_out){r->m[i].res.first_out, i};
    qsort(v, n, sizeof *v, by_step);
    *out = v;
    return n;
}

void train_report_text(const train_run *r, strbuf *sb)
{
    size_t w = 6;
    for (size_t i = 0; i < r->nm; i++) {
        size_t l = strlen(r->m[i].check.metric);
        if (l > w)
            w = l;
    }
    if (w > 60)
        w = 60;   /* longer names break the alignment rather than being cut */
    sb_addf(sb, "%-*s  %-13s  %-7s  %7s  %7s  %-13s  %s\n", (int)w, "metric", "test", "result", "failing", "allowed",
            "first failing", "max rel diff");
    size_t passed = 0, failed = 0, skipped = 0;
    for (size_t i = 0; i < r->nm; i++) {
        const train_metric *m = &r->m[i];
        for (int k = 0; k < m->check.ntests; k++) {
            const train_test *t = &m->check.tests[k];
            const test_result *x = &m->res.r[k];
            passed += x->verdict == V_PASSED;
            failed += x->verdict == V_FAILED;
            skipped += x->verdict == V_SKIPPED;
            sb_addf(sb, "%-*s  %-13s  %-7s  ", (int)w, m->check.metric, train_test_names[t->kind],
                    train_verdict_names[x->verdict]);
            if (x->verdict == V_SKIPPED) {
                sb_adds(sb, "(approximate mode)\n");
                continue;
            }
            if (x->why) {
                sb_addf(sb, "%s\n", why_text(x->why));
                continue;
            }
            if (x->median) {
                sb_adds(sb, "median ");
                num(sb, x->actual_median);
                sb_adds(sb, " vs golden ");
                num(sb, x->golden_median);
                sb_addf(sb, " over %zu step%s %lld..%lld", x->nwindow, x->nwindow == 1 ? "" : "s",
                        (long long)x->first_window_step, (long long)x->last_window_step);
                if (t->kind == TEST_APPROXIMATE)
                    sb_addf(sb, " (rtol %g)", t->rtol);
                sb_addc(sb, '\n');
                continue;
            }
            sb_addf(sb, "%7zu  %7zu  ", x->failing, x->allowed);
            if (x->first_failing >= 0)
                sb_addf(sb, "step %-8lld  ", (long long)x->first_failing);
            else
                sb_addf(sb, "%-13s  ", "-");
            if (isnan(x->max_rel_diff))
                sb_adds(sb, "-");
            else
                num(sb, x->max_rel_diff);
            sb_addf(sb, " of %zu step%s", x->n, x->n == 1 ? "" : "s");
            if (x->masked)
                sb_addf(sb, "; %zu golden \"nan\" met missing steps (counted close, as Megatron does)", x->masked);
            sb_addc(sb, '\n');
        }
    }
    first_out *fo;
    size_t nfo = first_outs(r, &fo);
    if (nfo) {
        sb_addf(sb, "first out of tolerance: %s at step %lld", r->m[fo[0].m].check.metric, (long long)fo[0].step);
        for (size_t i = 1; i < nfo && i < 8; i++)
            sb_addf(sb, "%s%s at step %lld", i == 1 ? ", then " : ", ", r->m[fo[i].m].check.metric,
                    (long long)fo[i].step);
        if (nfo > 8)
            sb_addf(sb, " and %zu more", nfo - 8);
        sb_addc(sb, '\n');
    }
    free(fo);
    if (r->have_config) {
        if (!r->ncfg) {
            sb_adds(sb, "configuration: the same\n");
        } else {
            sb_addf(sb, "configuration: %zu key%s differ%s:", r->ncfg, r->ncfg == 1 ? "" : "s", r->ncfg == 1 ? "s" : "");
            for (size_t i = 0; i < r->ncfg && i < 10; i++)
                sb_addf(sb, "%s %s: %.60s -> %.60s", i ? ";" : "", r->cfg[i].key,
                        r->cfg[i].golden ? r->cfg[i].golden : "(absent)", r->cfg[i].actual ? r->cfg[i].actual : "(absent)");
            if (r->ncfg > 10)
                sb_addf(sb, "; and %zu more", r->ncfg - 10);
            sb_addc(sb, '\n');
        }
    }
    sb_addf(sb, "overall: %s (%zu passed, %zu failed, %zu skipped)\n", r->overall_failed ? "FAILED" : "PASSED", passed,
            failed, skipped);
}

static void json_num(strbuf *sb, double x)
{
    if (isfinite(x))
        jsonw_double(sb, x);
    else
        sb_adds(sb, "null");
}

void train_report_json(const train_run *r, strbuf *sb)
{
    sb_addc(sb, '{');
    jsonw_key(sb, 2, 1, "overall");
    sb_adds(sb, r->overall_failed ? "\"FAILED\"," : "\"PASSED\",");
    jsonw_key(sb, 2, 1, "mode");
    sb_adds(sb, r->approximate_only ? "\"approximate\"," : "\"both\",");
    jsonw_key(sb, 2, 1, "actual");
    jsonw_str_ascii(sb, r->actual_path, strlen(r->actual_path));
    sb_addc(sb, ',');
    jsonw_key(sb, 2, 1, "golden");
    sb_addc(sb, '[');
    for (size_t i = 0; i < r->ngolden; i++) {
        if (i)
            sb_adds(sb, ", ");
        jsonw_str_ascii(sb, r->golden_paths[i], strlen(r->golden_paths[i]));
    }
    sb_adds(sb, "],");
    jsonw_key(sb, 2, 1, "metrics");
    sb_addc(sb, '{');
    size_t passed = 0, failed = 0, skipped = 0;
    for (size_t i = 0; i < r->nm; i++) {
        const train_metric *m = &r->m[i];
        if (i)
            sb_addc(sb, ',');
        jsonw_key(sb, 2, 2, m->check.metric);
        sb_addc(sb, '{');
        int any = 0;
        for (int kind = TEST_DETERMINISTIC; kind <= TEST_APPROXIMATE; kind++) {
            int v = kind_verdict(m, kind);
            if (v < 0)
                continue;
            sb_addf(sb, "%s\"%s\": \"%s\"", any++ ? ", " : "", train_test_names[kind], train_verdict_names[v]);
        }
        sb_addc(sb, '}');
        for (int k = 0; k < m->check.ntests; k++) {
            passed += m->res.r[k].verdict == V_PASSED;
            failed += m->res.r[k].verdict == V_FAILED;
            skipped += m->res.r[k].verdict == V_SKIPPED;
        }
    }
    jsonw_newline(sb, 2, 1);
    sb_adds(sb, "},");
    jsonw_key(sb, 2, 1, "tests");
    sb_addf(sb, "{\"passed\": %zu, \"failed\": %zu, \"skipped\": %zu},", passed, failed, skipped);
    jsonw_key(sb, 2, 1, "counts");
    sb_addc(sb, '{');
    for (size_t i = 0; i < r->nm; i++) {
        const train_metric *m = &r->m[i];
        if (i)
            sb_addc(sb, ',');
        jsonw_key(sb, 2, 2, m->check.metric);
        sb_addc(sb, '[');
        for (int k = 0; k < m->check.ntests; k++) {
            const train_test *t = &m->check.tests[k];
            const test_result *x = &m->res.r[k];
            if (k)
                sb_addc(sb, ',');
            jsonw_newline(sb, 2, 3);
            sb_addf(sb, "{\"test\": \"%s\", \"rtol\": ", train_test_names[t->kind]);
            json_num(sb, t->rtol);
            sb_adds(sb, ", \"atol\": ");
            json_num(sb, t->atol);
            sb_addf(sb, ", \"result\": \"%s\"", train_verdict_names[x->verdict]);
            if (x->verdict == V_SKIPPED) {
                sb_addc(sb, '}');
                continue;
            }
            if (x->why)
                sb_addf(sb, ", \"reason\": \"%s\"", why_text(x->why));
            sb_addf(sb, ", \"steps\": %zu, \"failing\": %zu, \"allowed\": %zu, \"first_failing_step\": ", x->n,
                    x->failing, x->allowed);
            if (x->first_failing >= 0)
                sb_addf(sb, "%lld", (long long)x->first_failing);
            else
                sb_adds(sb, "null");
            sb_adds(sb, ", \"max_rel_diff\": ");
            json_num(sb, x->max_rel_diff);
            if (x->masked)
                sb_addf(sb, ", \"nan_masking_missing_steps\": %zu", x->masked);
            if (x->median) {
                sb_addf(sb, ", \"window\": [%lld, %lld], \"window_steps\": %zu, \"golden_median\": ",
                        (long long)x->first_window_step, (long long)x->last_window_step, x->nwindow);
                json_num(sb, x->golden_median);
                sb_adds(sb, ", \"actual_median\": ");
                json_num(sb, x->actual_median);
            }
            sb_addc(sb, '}');
        }
        jsonw_newline(sb, 2, 2);
        sb_addc(sb, ']');
    }
    jsonw_newline(sb, 2, 1);
    sb_adds(sb, "},");
    jsonw_key(sb, 2, 1, "first_out_of_tolerance");
    sb_addc(sb, '[');
    first_out *fo;
    size_t nfo = first_outs(r, &fo);
    for (size_t i = 0; i < nfo; i++) {
        if (i)
            sb_adds(sb, ", ");
        sb_adds(sb, "{\"metric\": ");
        const char *name = r->m[fo[i].m].check.metric;
        jsonw_str_ascii(sb, name, strlen(name));
        sb_addf(sb, ", \"step\": %lld}", (long long)fo[i].step);
    }
    free(fo);
    sb_adds(sb, "],");
    jsonw_key(sb, 2, 1, "config_differences");
    if (!r->have_config) {
        sb_adds(sb, "null");
    } else {
        sb_addc(sb, '[');
        for (size_t i = 0; i < r->ncfg; i++) {
            const train_config_diff *d = &r->cfg[i];
            if (i)
                sb_addc(sb, ',');
            jsonw_newline(sb, 2, 2);
            sb_adds(sb, "{\"key\": ");
            jsonw_str_ascii(sb, d->key, strlen(d->key));
            sb_adds(sb, ", \"golden\": ");
            if (d->golden)
                jsonw_str_ascii(sb, d->golden, strlen(d->golden));
            else
                sb_adds(sb, "null");
            sb_adds(sb, ", \"actual\": ");
            if (d->actual)
                jsonw_str_ascii(sb, d->actual, strlen(d->actual));
            else
                sb_adds(sb, "null");
            sb_addc(sb, '}');
        }
        if (r->ncfg)
            jsonw_newline(sb, 2, 1);
        sb_addc(sb, ']');
    }
    jsonw_newline(sb, 2, 0);
    sb_adds(sb, "}\n");
}

static const char *const STEP_HEADER[] = {"metric", "step", "golden", "actual", "abs diff", "rel diff",
                                          "tolerance", "within tolerance", "golden std"};

static cell value_cell(const curve *s, size_t i)
{
    if (curve_kind_at(s, i) == CV_STR)
        return cell_str(s->text[i], strlen(s->text[i]));
    return cell_num(s->value[i]);
}

int train_report_steps(const train_run *r, char **path, int format)
{
    int band = 0;
    for (size_t i = 0; i < r->nm; i++)
        band |= r->m[i].std != NULL;
    int ncols = band ? 9 : 8;
    table_writer *t = table_open(*path, format, STEP_HEADER, ncols);
    if (!t)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < r->nm && rc == 0; i++) {
        const train_metric *m = &r->m[i];
        const curve *g = m->golden, *a = m->actual;
        if (!g)
            continue;
        const train_test *d = train_display_test(&m->check);
        int exact = 0;
        for (int k = 0; k < m->check.ntests; k++)
            exact |= m->check.tests[k].kind == TEST_DETERMINISTIC && m->res.r[k].verdict != V_SKIPPED;
        train_band bd = {m->std, r->band_k};
        for (size_t s = 0; s < g->n && rc == 0; s++) {
            cell c[9];
            c[0] = cell_str(m->check.metric, strlen(m->check.metric));
            c[1] = cell_num((double)g->step[s]);
            c[2] = value_cell(g, s);
            long k = a ? curve_find_step(a, g->step[s]) : -1;
            double av = k >= 0 ? a->value[k] : INFINITY, gv = g->value[s];
            c[3] = k >= 0 ? value_cell(a, (size_t)k) : (cell){CELL_EMPTY, 0, 0, 0};
            if (k >= 0 && isfinite(av) && isfinite(gv)) {
                c[4] = cell_num(fabs(av - gv));
                c[5] = gv != 0 ? cell_num(fabs(av - gv) / fabs(gv)) : (cell){CELL_EMPTY, 0, 0, 0};
            } else {
                c[4] = c[5] = (cell){CELL_EMPTY, 0, 0, 0};
            }
            double tol = d ? train_tolerance(d, g, s, m->std ? &bd : NULL) : 0;
            c[6] = cell_num(tol);
            int within = d ? (isfinite(av) && isfinite(gv) ? fabs(av - gv) <= tol : av == gv) : 1;
            c[7] = cell_bool(within);
            if (band)
                c[8] = m->std && s < m->std->n ? cell_num(m->std->value[s]) : (cell){CELL_EMPTY, 0, 0, 0};
            int fill = !within ? FILL_RED : (exact && (k < 0 || !(av == gv))) ? FILL_YELLOW : FILL_NONE;
            rc = table_row(t, c, fill);
        }
    }
    if (rc != 0) {
        table_abort(t);
        return -1;
    }
    return table_close_new(t, path) < 0 ? -1 : 0;
}
