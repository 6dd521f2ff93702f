/* `msprobe train_compare`: a training run's curves against a golden run's,
 * with the checks of Megatron-LM's functional tests (check.h); or any
 * run written as Megatron golden values (--save-golden). */
#include "train/commands.h"
#include "train/check_list.h"
#include "train/train.h"
#include "format/golden_values.h"
#include "model/table.h"
#include "base/err.h"
#include "base/files.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/opts.h"
#include "base/outdir.h"
#include "base/pool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *actual, *out_dir, *model_config, *metrics, *steps, *summary_json, *band, *save_golden;
    opt_list golden, checks;
    int mode, format, html, train_iters, start_step, step_interval, tb_file_index, tb_order, round, jobs, quiet;
} cli;

enum { MODE_BOTH, MODE_APPROXIMATE };

static const opt_choice modes[] = {
    {"both", MODE_BOTH, NULL}, {"approximate", MODE_APPROXIMATE, NULL}, {"deterministic", MODE_BOTH, NULL},
    {NULL, 0, NULL}};
static const opt_choice orders[] = {{"mtime", TB_ORDER_MTIME, NULL}, {"name", TB_ORDER_NAME, NULL}, {NULL, 0, NULL}};

static const opt options[] = {
    OPT_STRING("-n --actual_path|--actual", cli, actual, "ACTUAL",
               "the run to check: a directory of TensorBoard event files, Megatron golden values (JSON), a training "
               "log (Megatron-LM, MindSpeed, MindSpore Transformers) or a training-monitor output directory",
               .flags = OPT_REQUIRED | OPT_FILE | OPT_INPUT),
    OPT_LIST("-b --golden_path|--golden", cli, golden, "GOLDEN", 1, 1,
             "the golden run, read the same ways; given several times, the golden runs' spread is the tolerance band "
             "(--band)",
             .flags = OPT_FILE | OPT_APPEND | OPT_INPUT),
    OPT_STRING("-o --output_path", cli, out_dir, "DIR",
               "write the step-by-step table (and with --html the page) there, created if needed", .flags = OPT_DIR),
    OPT_STRING("--model-config|--model_config", cli, model_config, "FILE",
               "Megatron's model_config.yaml: the metrics to check are its METRICS (default: lm loss, num-zeros)",
               .flags = OPT_FILE),
    OPT_STRING("--metrics", cli, metrics, "A,B",
               "the metrics to check, comma-separated (shell patterns match several: 'local_norm/*'), with the "
               "thresholds of Megatron's table"),
    OPT_LIST("--check", cli, checks, "'METRIC:TEST,...'", 1, 1,
             "the tests of a metric, replacing the table's: exact (the deterministic test), rtol=R or atol=A (an "
             "approximate test; rtol=R+atol=A both); may be given several times",
             .flags = OPT_APPEND),
    OPT_CHOICE("--mode", cli, mode, modes,
               "approximate: skip the deterministic tests (Megatron's --allow-nondeterministic-algo); both: run "
               "both kinds (deterministic is Megatron's name for it)",
               .def = "both"),
    OPT_STRING("--steps", cli, steps, "A-B", "compare only these steps (Megatron's resume check: 51-100 of 100)"),
    OPT_STRING("--summary-json|--summary_json", cli, summary_json, "FILE",
               "write the verdicts as JSON: overall, per metric and test PASSED/FAILED/SKIPPED, counts",
               .flags = OPT_FILE),
    OPT_CHOICE("--format", cli, format, table_formats, "the step table's format", .def = "xlsx"),
    OPT_BOOL("--html", cli, html, "also write a self-contained page of the curves into -o"),
    OPT_STRING("--band", cli, band, "K",
               "with several golden runs: an approximate test also passes within K standard deviations of their mean "
               "(default 3)"),
    OPT_STRING("--save-golden|--save_golden", cli, save_golden, "FILE",
               "write -n as Megatron golden values instead of comparing (all series, or --metrics)",
               .flags = OPT_FILE),
    OPT_INT("--train-iters|--train_iters", cli, train_iters, "N", 1, 2147483647,
            "keep steps up to N of every input but golden values (Megatron's train_iters)"),
    OPT_INT("--start-step|--start_step", cli, start_step, "S", 0, 2147483647,
            "the first step kept (Megatron's start_idx; 0 keeps step 0, which Megatron never does)", .def = "1"),
    OPT_INT("--step-interval|--step_interval", cli, step_interval, "K", 1, 2147483647,
            "keep the first step and every K-th after it (Megatron's step_size)", .def = "1"),
    OPT_INT("--tb-file-index|--tb_file_index", cli, tb_file_index, "I", -1, 2147483647,
            "read only the I-th event file with scalars (0: Megatron's normal tests); -1 merges them all", .def = "-1"),
    OPT_CHOICE("--tb-order|--tb_order", cli, tb_order, orders,
               "the order of event files: mtime (Megatron's: by modification time) or name (the writer's time stamp)",
               .def = "mtime"),
    OPT_INT("--round", cli, round, "DIGITS", -1, 17,
            "round every value read but golden values to DIGITS decimals, as Megatron does (-1: not at all)",
            .def = "5"),
    OPT_INT("-j --jobs", cli, jobs, "N", 1, 4096, "event files read at once (default: all cores)"),
    OPT_BOOL("-q --quiet", cli, quiet, "print nothing but errors"),
    OPT_END(),
};

static const opts_spec spec = {
    .usage = "-n ACTUAL -b GOLDEN [-b GOLDEN ...] [--model-config FILE | --metrics A,B] [--check 'M:TEST,...'] "
             "[--mode approximate|both] [--steps A-B] [-o DIR [--format csv|xlsx] [--html]] [--summary-json FILE]\n"
             "-n INPUT --save-golden FILE [--train-iters N] [--start-step S] [--step-interval K] [--tb-file-index I]",
    .about = "Gate a training run on its curves, as Megatron-LM's functional tests do: every checked metric (lm loss, "
             "num-zeros, iteration-time, memory, ...) of the actual run against the golden run, step by step, with "
             "Megatron's tests -- deterministic (exact) and approximate (rtol, atol) -- its thresholds, its allowance "
             "of failing steps, its \"nan\" strings and its steady-window median of iteration-time. Either side may be "
             "TensorBoard event files (simple values or scalar tensors), Megatron golden values, a Megatron-LM, "
             "MindSpeed or MindSpore Transformers training log, or a training-monitor output directory. Prints the "
             "verdict of each metric and test, which metric left its tolerance first, and the configuration keys "
             "that differ; --save-golden writes any of them as golden values with Megatron's sampling and rounding.",
    .opts = options,
    .epilog = "Exit status: 0 every check passed (or the golden values were written), 3 a check failed, 2 bad input "
              "or usage, 1 internal error.",
};

const command train_compare_command = {
    "train_compare", NULL, "gate a training run on its curves against golden values, as Megatron's CI does", &spec,
    cmd_train_compare,
};

/* Report the recorded error: a usage error with its "Try --help" line,
 * anything else as one line. Returns the exit status. */
static int fail(void)
{
    if (err_cause() == ERR_USAGE) {
        log_usage("%s", err_message());
        err_clear();
        return EXIT_BADINPUT;
    }
    return err_report();
}

static int parse_steps(const char *s, int64_t *lo, int64_t *hi)
{
    char *e;
    *lo = 0;
    *hi = INT64_MAX;
    if (!s)
        return 0;
    long long a = strtoll(s, &e, 10);
    if (e == s || a < 0)
        return -1;
    *lo = a;
    if (!*e) {
        *hi = a;
        return 0;
    }
    if (*e != '-')
        return -1;
    const char *b = e + 1;
    if (!*b)
        return 0;
    long long z = strtoll(b, &e, 10);
    if (e == b || *e || z < a)
        return -1;
    *hi = z;
    return 0;
}

/* ---- reading ---- */

static int read_input(const char *path, const cli *o, check_list *want, train_input *in)
{
    train_read_opts ro = {o->tb_file_index, o->tb_order, o->jobs, want ? want_metric : NULL, want};
    if (train_input_read(path, &ro, in) != 0)
        return -1;
    if (in->kind != TRAIN_GOLDEN) {
        train_sampling s = {o->train_iters, o->start_step, o->step_interval, o->round};
        train_sample(&in->c, &s);
    }
    return 0;
}

static int save_golden(const cli *o)
{
    check_list want = {0};
    int rc = 0;
    if (o->metrics)
        for (const char *p = o->metrics; *p;) {
            size_t n = strcspn(p, ",");
            if (n)
                check_add(&want, p, n);
            p += n + (p[n] == ',');
        }
    train_input in;
    int have = 0;
    if (out_check_replaceable(o->save_golden) != 0)
        rc = -1;
    else
        rc = read_input(o->actual, o, want.n ? &want : NULL, &in), have = 1;
    if (rc == 0) {
        if (in.kind == TRAIN_GOLDEN) {
            /* golden values are sampled (not rounded) only when asked */
            train_sampling s = {o->train_iters, o->start_step, o->step_interval, -1};
            train_sample(&in.c, &s);
        }
        for (size_t i = 0; i < want.n; i++)
            if (!is_pattern(want.v[i].metric) && !curves_find(&in.c, want.v[i].metric, strlen(want.v[i].metric)))
                log_warn("%s: no '%s' on the sampling grid: not written", o->actual, want.v[i].metric);
        if (!in.c.n) {
            rc = err_input(o->actual, "has no series on the sampling grid (steps %d.. every %d%s): nothing to write",
                           o->start_step, o->step_interval, o->train_iters ? " up to --train-iters" : "");
        } else {
            strbuf sb = STRBUF_INIT;
            golden_format(&sb, &in.c, o->start_step, o->step_interval);
            rc = file_write_atomic(o->save_golden, sb.buf, sb.len);
            if (rc == 0 && !o->quiet)
                log_info("%s: %zu metric%s of %s written as golden values", o->save_golden, in.c.n,
                         in.c.n == 1 ? "" : "s", train_kind_names[in.kind]);
            sb_free(&sb);
        }
    }
    if (have)
        train_input_free(&in);
    checks_free(&want);
    return rc == 0 ? EXIT_OK : fail();
}

/* ---- comparing ---- */

/* A copy of s cut to the steps [lo, hi], named mark + its name in store. */
static curve *cut(const curve *s, const char *mark, int64_t lo, int64_t hi, curves *store)
{
    strbuf name = STRBUF_INIT;
    sb_addf(&name, "%s%s", mark, s->name);
    curve *d = curves_get(store, name.buf, name.len);
    sb_free(&name);
    for (size_t i = 0; i < s->n; i++) {
        if (s->step[i] < lo || s->step[i] > hi)
            continue;
        if (curve_kind_at(s, i) == CV_STR)
            curve_push_text(d, s->step[i], s->text[i], strlen(s->text[i]));
        else
            curve_push(d, s->step[i], s->value[i], curve_kind_at(s, i));
    }
    return d;
}

static const curve *cut_find(const curves *store, const char *mark, const char *metric)
{
    strbuf name = STRBUF_INIT;
    sb_addf(&name, "%s%s", mark, metric);
    const curve *c = curves_find(store, name.buf, name.len);
    sb_free(&name);
    return c;
}

/* The band of several golden runs at the first run's steps: the mean and
 * the sample standard deviation of the runs' numbers there (strings and
 * NaN left out, as compute_golden_statistics.py does); a step where no run
 * has a number keeps the first run's value. */
static void band_of(const curve *const *runs, size_t nruns, curve *mean, curve *std)
{
    const curve *r0 = runs[0];
    double *x = xmalloc_array(nruns, sizeof *x);
    for (size_t i = 0; i < r0->n; i++) {
        int64_t st = r0->step[i];
        size_t k = 0;
        for (size_t r = 0; r < nruns; r++) {
            if (!runs[r])
                continue;
            long j = curve_find_step(runs[r], st);
            if (j >= 0 && curve_kind_at(runs[r], (size_t)j) != CV_STR && !isnan(runs[r]->value[j]))
                x[k++] = runs[r]->value[j];
        }
        if (!k) {
            if (curve_kind_at(r0, i) == CV_STR)
                curve_push_text(mean, st, r0->text[i], strlen(r0->text[i]));
            else
                curve_push(mean, st, r0->value[i], CV_FLOAT);
            curve_push(std, st, NAN, CV_FLOAT);
            continue;
        }
        /* x0 + mean of the differences: exactly x0 when the runs agree */
        double d = 0;
        for (size_t j = 0; j < k; j++)
            d += x[j] - x[0];
        double m = x[0] + d / (double)k, ss = 0;
        for (size_t j = 0; j < k; j++)
            ss += (x[j] - m) * (x[j] - m);
        curve_push(mean, st, m, CV_FLOAT);
        curve_push(std, st, k > 1 ? sqrt(ss / (double)(k - 1)) : 0, CV_FLOAT);
    }
    free(x);
}

/* Keys of the two configurations whose values differ. */
static void config_diff(train_run *r)
{
    const curves *g = &r->golden[0].c, *a = &r->actual.c;
    r->have_config = g->ncfg && a->ncfg;
    if (!r->have_config)
        return;
    size_t cap = 0;
    for (size_t i = 0; i < g->ncfg; i++) {
        const char *av = curves_config_get(a, g->cfg[i].key);
        if (av && !strcmp(av, g->cfg[i].value))
            continue;
        GROW(r->cfg, cap, r->ncfg + 1);
        r->cfg[r->ncfg++] = (train_config_diff){g->cfg[i].key, g->cfg[i].value, av};
    }
    for (size_t i = 0; i < a->ncfg; i++) {
        if (curves_config_get(g, a->cfg[i].key))
            continue;
        GROW(r->cfg, cap, r->ncfg + 1);
        r->cfg[r->ncfg++] = (train_config_diff){a->cfg[i].key, NULL, a->cfg[i].value};
    }
}

static int write_outputs(const cli *o, const train_run *r)
{
    int rc = 0;
    out_run *outputs = out_run_new();
    if (o->out_dir) {
        char stamp[15];
        time_stamp(stamp);
        if (out_run_mkdir(outputs, o->out_dir) != 0) {
            rc = -1;
        } else {
            strbuf name = STRBUF_INIT;
            sb_addf(&name, "train_compare_%s.%s", stamp, table_ext(o->format));
            char *path = path_join(o->out_dir, sb_str(&name));
            rc = train_report_steps(r, &path, o->format);
            if (rc == 0) {
                out_run_add(outputs, path);
                if (!o->quiet)
                    log_info("step table: %s", path);
            }
            free(path);
            if (rc == 0 && o->html) {
                strbuf page = STRBUF_INIT;
                train_page(r, &page);
                sb_reset(&name);
                sb_addf(&name, "train_compare_%s.html", stamp);
                char *hp = path_join(o->out_dir, sb_str(&name));
                rc = file_write_new(&hp, page.buf, page.len);
                if (rc == 0) {
                    out_run_add(outputs, hp);
                    if (!o->quiet)
                        log_info("page: %s", hp);
                }
                free(hp);
                sb_free(&page);
            }
            sb_free(&name);
        }
    }
    if (rc == 0 && o->summary_json) {
        strbuf sb = STRBUF_INIT;
        train_report_json(r, &sb);
        rc = file_write_atomic(o->summary_json, sb.buf, sb.len);
        sb_free(&sb);
    }
    if (rc != 0)
        out_run_rollback(outputs);
    out_run_free(outputs);
    return rc;
}

static int compare(const cli *o)
{
    check_list checks = {0};
    train_run r;
    memset(&r, 0, sizeof r);
    r.actual_path = o->actual;
    r.golden_paths = (const char *const *)o->golden.v;
    r.ngolden = (size_t)o->golden.n;
    r.approximate_only = o->mode == MODE_APPROXIMATE;
    /* the copies the metrics' curves may point into: cut to --steps, and
     * a band's mean and deviation */
    curves cutstore, means, stds;
    curves_init(&cutstore);
    curves_init(&means);
    curves_init(&stds);
    int rc = build_checks(o->model_config, o->metrics, o->checks.v, o->checks.n, &checks);
    if (rc == 0 && parse_steps(o->steps, &r.steps_lo, &r.steps_hi) != 0)
        rc = err_set(ERR_USAGE, NULL, "--steps '%s': needs A-B (A <= B), A- or A", o->steps);
    if (rc == 0 && o->band) {
        char *e;
        r.band_k = strtod(o->band, &e);
        if (*e || e == o->band || !(r.band_k > 0) || !isfinite(r.band_k))
            rc = err_set(ERR_USAGE, NULL, "--band '%s': needs a positive number of standard deviations", o->band);
        else if (r.ngolden < 2)
            rc = err_set(ERR_USAGE, NULL, "--band needs several golden runs (-b A -b B ...)");
    } else if (r.ngolden >= 2) {
        r.band_k = 3;
    }
    if (rc == 0 && ((o->summary_json && out_check_replaceable(o->summary_json) != 0)))
        rc = -1;
    if (rc == 0 && o->html && !o->out_dir)
        rc = err_set(ERR_USAGE, NULL, "--html writes its page into -o DIR: give -o");
    if (rc != 0) {
        checks_free(&checks);
        curves_free(&cutstore);
        curves_free(&means);
        curves_free(&stds);
        return fail();
    }
    /* read every side (the goldens first: patterns expand against them) */
    r.golden = xcalloc(r.ngolden, sizeof *r.golden);
    size_t nread = 0;
    for (size_t i = 0; i < r.ngolden && rc == 0; i++, nread++)
        rc = read_input(r.golden_paths[i], o, &checks, &r.golden[i]);
    int actual_read = 0;
    if (rc == 0)
        rc = expand_patterns(&checks, &r.golden[0].c, r.golden_paths[0]);
    if (rc == 0)
        rc = read_input(o->actual, o, &checks, &r.actual), actual_read = 1;
    if (rc == 0) {
        r.nm = checks.n;
        r.m = xcalloc(r.nm ? r.nm : 1, sizeof *r.m);
        int cutting = r.steps_lo > 0 || r.steps_hi < INT64_MAX;
        for (size_t i = 0; i < r.nm; i++) {
            train_metric *m = &r.m[i];
            m->check = checks.v[i];
            const char *name = m->check.metric;
            size_t len = strlen(name);
            const curve *g = curves_find(&r.golden[0].c, name, len);
            if (g && r.ngolden > 1) {
                const curve **runs = xcalloc(r.ngolden, sizeof *runs);
                for (size_t k = 0; k < r.ngolden; k++)
                    runs[k] = curves_find(&r.golden[k].c, name, len);
                curve *mean = curves_get(&means, name, len), *sd = curves_get(&stds, name, len);
                band_of(runs, r.ngolden, mean, sd);
                free(runs);
                g = mean;
            }
            const curve *a = curves_find(&r.actual.c, name, len);
            const curve *sd = r.ngolden > 1 && g ? curves_find(&stds, name, len) : NULL;
            if (cutting) {
                /* cut to --steps, each side a copy of its own (the golden
                 * under its name, the actual and the band under marked ones) */
                g = g ? cut(g, "", r.steps_lo, r.steps_hi, &cutstore) : NULL;
                a = a ? cut(a, "\x01", r.steps_lo, r.steps_hi, &cutstore) : NULL;
                sd = sd ? cut(sd, "\x02", r.steps_lo, r.steps_hi, &cutstore) : NULL;
            }
            m->golden = g;
            m->actual = a;
            m->std = sd;
        }
        /* curves_get moved the copies while they were made: find them again */
        for (size_t i = 0; cutting && i < r.nm; i++) {
            train_metric *m = &r.m[i];
            m->golden = m->golden ? cut_find(&cutstore, "", m->check.metric) : NULL;
            m->actual = m->actual ? cut_find(&cutstore, "\x01", m->check.metric) : NULL;
            m->std = m->std ? cut_find(&cutstore, "\x02", m->check.metric) : NULL;
        }
        /* the means and deviations of a band are final only now, too */
        for (size_t i = 0; !cutting && r.ngolden > 1 && i < r.nm; i++) {
            train_metric *m = &r.m[i];
            const char *name = m->check.metric;
            if (m->golden)
                m->golden = curves_find(&means, name, strlen(name));
            if (m->std)
                m->std = curves_find(&stds, name, strlen(name));
        }
        for (size_t i = 0; i < r.nm; i++) {
            train_metric *m = &r.m[i];
            train_band band = {m->std, r.band_k};
            train_check_metric(&m->check, m->golden, m->actual, r.approximate_only, m->std ? &band : NULL, &m->res);
            if (m->res.failed)
                r.overall_failed = 1;
        }
        config_diff(&r);
        if (!o->quiet) {
            strbuf sb = STRBUF_INIT;
            train_report_text(&r, &sb);
            fwrite(sb.buf, 1, sb.len, stdout);
            fflush(stdout);
            sb_free(&sb);
        }
        rc = write_outputs(o, &r);
    }
    int status = rc != 0 ? fail() : r.overall_failed ? EXIT_GATE : EXIT_OK;
    for (size_t i = 0; i < nread; i++)
        train_input_free(&r.golden[i]);
    free(r.golden);
    if (actual_read)
        train_input_free(&r.actual);
    free(r.m);
    free(r.cfg);
    curves_free(&cutstore);
    curves_free(&means);
    curves_free(&stds);
    /* the checks' names were moved into r.m; the list's own are freed here */
    checks_free(&checks);
    return status;
}

int cmd_train_compare(int argc, char **argv, const global_opts *g)
{
    (void)g;
    cli o;
    memset(&o, 0, sizeof o);
    o.jobs = pool_cpus();
    opts_result pr = opts_parse(&spec, argc, argv, &o, 0, NULL);
    int status;
    if (pr != OPTS_RUN) {
        status = opts_exit_status(pr);
    } else {
        if (o.quiet)
            log_set_quiet(1);
        if (o.save_golden) {
            if (o.golden.n || o.checks.n || o.model_config || o.out_dir || o.summary_json || o.html || o.steps)
                status = log_usage("--save-golden writes -n as golden values: -b, --check, --model-config, -o, "
                                   "--summary-json, --html and --steps belong to a comparison"),
                status = EXIT_BADINPUT;
            else
                status = save_golden(&o);
        } else if (!o.golden.n) {
            status = log_usage("the following arguments are required: -b/--golden_path (or --save-golden)"),
            status = EXIT_BADINPUT;
        } else {
            status = compare(&o);
        }
    }
    opts_list_free(&o.golden);
    opts_list_free(&o.checks);
    return status;
}
