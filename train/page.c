/* train_compare's page (train.h): one self-contained HTML file -- the
 * results and curves as JSON in a script element (every '<', '>' and '&'
 * escaped, so that no value can end it; NaN and infinities as null, which
 * JSON has), our script and style sheet (train/page/, built into the
 * binary) drawing each checked metric as inline SVG. Nothing is fetched. */
#include "train/train.h"
#include "format/htmlw.h"
#include "format/jsonw.h"
#include "py/numfmt.h"

#include <math.h>
#include <string.h>

extern const char train_page_js[], train_page_css[];

/* A JSON string safe inside <script>. */
static void jstr(strbuf *sb, const char *s)
{
    strbuf t = STRBUF_INIT;
    jsonw_str_ascii(&t, s, strlen(s));
    for (size_t i = 0; i < t.len; i++) {
        char c = t.buf[i];
        if (c == '<' || c == '>' || c == '&')
            sb_addf(sb, "\\u%04x", (unsigned char)c);
        else
            sb_addc(sb, c);
    }
    sb_free(&t);
}

static void jnum(strbuf *sb, double x)
{
    if (isfinite(x))
        jsonw_double(sb, x);
    else
        sb_adds(sb, "null");
}

static void points(strbuf *sb, const curve *c)
{
    sb_addc(sb, '[');
    for (size_t i = 0; c && i < c->n; i++) {
        sb_addf(sb, "%s[%lld,", i ? "," : "", (long long)c->step[i]);
        jnum(sb, curve_kind_at(c, i) == CV_STR ? NAN : c->value[i]);
        sb_addc(sb, ']');
    }
    sb_addc(sb, ']');
}

static void metric_json(strbuf *sb, const train_run *r, const train_metric *m)
{
    sb_adds(sb, "{\"name\":");
    jstr(sb, m->check.metric);
    sb_adds(sb, ",\"tests\":[");
    for (int k = 0; k < m->check.ntests; k++) {
        const train_test *t = &m->check.tests[k];
        const test_result *x = &m->res.r[k];
        sb_addf(sb, "%s{\"test\":\"%s\",\"verdict\":\"%s\",\"note\":", k ? "," : "", train_test_names[t->kind],
                train_verdict_names[x->verdict]);
        strbuf note = STRBUF_INIT;
        if (x->verdict == V_SKIPPED)
            ;
        else if (x->why == WHY_MISSING_ACTUAL)
            sb_adds(&note, "missing in the actual");
        else if (x->why == WHY_MISSING_GOLDEN)
            sb_adds(&note, "missing in the golden");
        else if (x->why)
            sb_adds(&note, "no golden value to compare");
        else if (x->median)
            sb_addf(&note, "median %.6g vs golden %.6g over %zu steps %lld..%lld", x->actual_median, x->golden_median,
                    x->nwindow, (long long)x->first_window_step, (long long)x->last_window_step);
        else
            sb_addf(&note, "%zu of %zu steps out of tolerance, %zu allowed", x->failing, x->n, x->allowed);
        if (t->kind == TEST_APPROXIMATE && x->verdict != V_SKIPPED)
            sb_addf(&note, " (rtol %g, atol %g)", t->rtol, t->atol);
        jstr(sb, sb_str(&note));
        sb_free(&note);
        sb_addc(sb, '}');
    }
    sb_adds(sb, "],\"golden\":[");
    const curve *g = m->golden, *a = m->actual;
    const train_test *d = train_display_test(&m->check);
    train_band bd = {m->std, r->band_k};
    for (size_t i = 0; g && i < g->n; i++) {
        double gv = curve_kind_at(g, i) == CV_STR ? NAN : g->value[i];
        double tol = d ? train_tolerance(d, g, i, m->std ? &bd : NULL) : 0;
        sb_addf(sb, "%s[%lld,", i ? "," : "", (long long)g->step[i]);
        jnum(sb, gv);
        sb_addc(sb, ',');
        jnum(sb, gv - tol);
        sb_addc(sb, ',');
        jnum(sb, gv + tol);
        sb_addc(sb, ']');
    }
    sb_adds(sb, "],\"actual\":");
    points(sb, a);
    /* the steps out of the displayed tolerance */
    sb_adds(sb, ",\"failing\":[");
    int any = 0;
    for (size_t i = 0; g && a && d && i < g->n; i++) {
        long k = curve_find_step(a, g->step[i]);
        double av = k >= 0 ? a->value[k] : INFINITY, gv = g->value[i];
        double tol = train_tolerance(d, g, i, m->std ? &bd : NULL);
        int within = isfinite(av) && isfinite(gv) ? fabs(av - gv) <= tol : av == gv;
        if (!within)
            sb_addf(sb, "%s%lld", any++ ? "," : "", (long long)g->step[i]);
    }
    sb_adds(sb, "],\"runs\":[");
    for (size_t k = 0; m->std && k < r->ngolden; k++) {
        if (k)
            sb_addc(sb, ',');
        const curve *run = curves_find(&r->golden[k].c, m->check.metric, strlen(m->check.metric));
        points(sb, run);
    }
    sb_adds(sb, "]}");
}

void train_page(const train_run *r, strbuf *sb)
{
    sb_adds(sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>train_compare: ");
    htmlw_text(sb, r->actual_path);
    sb_adds(sb, "</title>\n<style>\n");
    sb_adds(sb, train_page_css);
    sb_adds(sb, "</style></head><body>\n<h1>train_compare <span class=\"verdict ");
    sb_adds(sb, r->overall_failed ? "FAILED\">FAILED" : "PASSED\">PASSED");
    sb_adds(sb, "</span></h1>\n<div class=\"sub\">actual: ");
    htmlw_text(sb, r->actual_path);
    sb_adds(sb, r->ngolden > 1 ? "<br>golden runs: " : "<br>golden: ");
    for (size_t i = 0; i < r->ngolden; i++) {
        if (i)
            sb_adds(sb, ", ");
        htmlw_text(sb, r->golden_paths[i]);
    }
    sb_addf(sb, "<br>mode: %s", r->approximate_only ? "approximate (deterministic tests skipped)" : "both");
    if (r->band_k > 0)
        sb_addf(sb, "; band: mean &plusmn; %g standard deviations of the golden runs", r->band_k);
    sb_adds(sb, "</div>\n<div class=\"bar\"><label><input type=\"checkbox\" id=\"log\"> log scale</label>"
                "<span class=\"legend\"><span><i style=\"background:#2b6cb0\"></i>golden</span>"
                "<span><i style=\"background:#dd6b20\"></i>actual</span>"
                "<span><i style=\"background:#2b6cb0;opacity:.25;height:10px\"></i>tolerance</span>"
                "<span><i style=\"background:#d00000;height:6px;width:6px;border-radius:3px\"></i>out of "
                "tolerance</span></span></div>\n");
    /* which metric left its tolerance first */
    int64_t best = -1;
    const char *first = NULL;
    for (size_t i = 0; i < r->nm; i++)
        if (r->m[i].res.first_out >= 0 && (best < 0 || r->m[i].res.first_out < best))
            best = r->m[i].res.first_out, first = r->m[i].check.metric;
    if (first) {
        sb_adds(sb, "<p>First out of tolerance: <b>");
        htmlw_text(sb, first);
        sb_addf(sb, "</b> at step %lld.</p>\n", (long long)best);
    }
    if (r->have_config && r->ncfg) {
        sb_addf(sb, "<details><summary>%zu configuration key%s differ</summary><table><tr><th>key</th><th>golden"
                    "</th><th>actual</th></tr>\n",
                r->ncfg, r->ncfg == 1 ? "" : "s");
        for (size_t i = 0; i < r->ncfg; i++) {
            sb_adds(sb, "<tr><td>");
            htmlw_text(sb, r->cfg[i].key);
            sb_adds(sb, "</td><td>");
            htmlw_text(sb, r->cfg[i].golden ? r->cfg[i].golden : "(absent)");
            sb_adds(sb, "</td><td>");
            htmlw_text(sb, r->cfg[i].actual ? r->cfg[i].actual : "(absent)");
            sb_adds(sb, "</td></tr>\n");
        }
        sb_adds(sb, "</table></details>\n");
    }
    sb_adds(sb, "<div id=\"cards\"></div>\n<script type=\"application/json\" id=\"data\">{\"metrics\":[");
    for (size_t i = 0; i < r->nm; i++) {
        if (i)
            sb_addc(sb, ',');
        metric_json(sb, r, &r->m[i]);
    }
    sb_adds(sb, "]}</script>\n<script>\n");
    sb_adds(sb, train_page_js);
    sb_adds(sb, "</script>\n</body></html>\n");
}
