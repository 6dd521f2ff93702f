/* `msprobe monitor summary`: what msprobe does not give — the first look at
 * a training monitor's output before opening TensorBoard: every series that
 * held NaN or Inf at some step and the largest jumps from one step to the
 * next (monitor/summary/events.c), then, for each data type, the parameters
 * and activations whose norm, max or NaN count changed most between two
 * step ranges (or from the first step to the last), every rank side by
 * side. */
#include "monitor/commands.h"
#include "monitor/convert/convert.h"
#include "monitor/summary/events.h"
#include "base/err.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/opts.h"
#include "base/pool.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "py/numfmt.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ACTION_SUMMARY };
static const opt_choice actions[] = {{"summary", ACTION_SUMMARY, NULL}, {NULL, 0, NULL}};

typedef struct {
    int action;
    conv_opts c;
    const char *vs;
    int top;
} cli;

static const opt options[] = {
    OPT_CHOICE("ACTION", cli, action, actions, "summary: NaN or Inf, jumps and the biggest changes", .flags = OPT_REQUIRED),
    OPT_STRING("-m --monitor_path | --monitor-path", cli, c.monitor_dir, "MONITOR_DIR",
               "the monitor's output directory: one {time}-rank{R}-{id} directory per rank",
               .flags = OPT_REQUIRED | OPT_DIR | OPT_INPUT),
    OPT_STRING("--steps", cli, c.steps, "LIST",
               "the steps to look at, e.g. 0-99; with --vs the first of the two ranges compared"),
    OPT_STRING("--vs", cli, vs, "LIST", "compare the mean over --steps with the mean over these steps"),
    OPT_STRING("--types | --data_type_list", cli, c.types, "LIST",
               "data types, comma-separated: actv, actv_grad, exp_avg, exp_avg_sq, grad_unreduced, grad_reduced, "
               "param_origin, param_updated, other (default: all)"),
    OPT_INT("-n --top", cli, top, "N", 1, 1000000, "show the first N jumps and the N biggest changes per data type",
            .def = "10"),
    OPT_STRING("--time-start | --time_start", cli, c.time_start, "STAMP",
               "only run directories whose time stamp is this one or later, e.g. Dec03_21-34-40"),
    OPT_STRING("--time-end | --time_end", cli, c.time_end, "STAMP",
               "only run directories whose time stamp is this one or earlier"),
    OPT_INT("-j --jobs", cli, c.jobs, "N", 1, 128, "threads (default: all cores)"),
    OPT_END(),
};

static const opts_spec spec = {
    .usage = "summary -m MONITOR_DIR [--steps LIST [--vs LIST]] [--types LIST] [-n N]",
    .about = "A first look at the csv output of msprobe's training monitor, in three tables. First every series "
             "(vp{vpp_stage}:{name}[:micro{micro_step}]) that held NaN or Inf at any step (a norm, max, min or "
             "mean not finite, or NaNs counted), by the first step and rank it did, with its stats then and how "
             "many steps and ranks did. Then the jumps from one step to the next: each norm and max against the "
             "median of the 8 values before it (once 3 are known), either way; the series whose largest jump is a "
             "factor of 10 or more (x927, x0.02), by step, the first N (without any, the largest there is). "
             "Then, for each data type, the series whose norm, max or NaN count changed most, with every rank's "
             "change side by side. Without --steps the first step of each series is compared with its "
             "last; with --steps alone, the first and last step of that range; with --steps A --vs B, the mean "
             "over A with the mean over B. Changes are growth factors (x12.5) for norm and max and differences "
             "(+16) for the NaN count; a value that turned NaN or infinite, or NaNs that appeared, rank first.",
    .opts = options,
    .epilog = "Exit status: 0 done, 2 bad input or usage, 1 internal error.",
};

const command monitor_command = {
    "monitor", NULL, "summary of a training monitor's output: NaN or Inf, jumps, biggest changes", &spec, cmd_monitor,
};

/* The stats looked at, as columns of the csv files: the first NSTATS are
 * compared between the ends, all of them watched for NaN and Inf (the
 * trackers' index of each in EV_OF). */
static const char *const STATS[] = {"norm", "max", "nans", "min", "mean"};
enum { NSTATS = 3, NANS = 2, NREAD = 5 };
static const int EV_OF[NREAD] = {EV_NORM, EV_MAX, EV_NANS, EV_MIN, EV_MEAN};

typedef struct {
    double a_sum, b_sum;
    long a_n, b_n;
    long long first_step, last_step;
    double first, last;
    int seen;
} acc;

typedef mon_series series;

typedef struct {
    const conv_plan *p;
    numlist a, b;
    int ranges;         /* --vs given */
    strmap index;       /* type + label -> series */
    series *s;
    size_t ns, cap;
    size_t nranks;
    acc *data;          /* [series][rank][stat] */
    size_t data_cap;
    strbuf key;
    ev_tracker events;  /* NaN/Inf and jumps */
    long long min_step, max_step;
    int any_step;
} summary;

static size_t rank_slot(const summary *sm, const monitor_run *run) { return (size_t)(run - sm->p->runs.v); }

static size_t series_of(summary *sm, int type, const mcsv_series *se, int has_micro)
{
    sb_reset(&sm->key);
    sb_addf(&sm->key, "%d|vp%lld:%s", type, se->vpp, se->name);
    if (has_micro)
        sb_addf(&sm->key, ":micro%lld", se->micro);
    size_t *v = strmap_get(&sm->index, sm->key.buf, sm->key.len);
    if (v)
        return *v;
    GROW(sm->s, sm->cap, sm->ns + 1);
    char *k = xstrndup(sm->key.buf, sm->key.len);
    sm->s[sm->ns] = (series){type, k, strchr(k, '|') + 1};
    int added;
    strmap_put(&sm->index, k, sm->key.len, sm->ns, &added);
    GROW_ZEROED(sm->data, sm->data_cap, (sm->ns + 1) * sm->nranks * NSTATS);
    return sm->ns++;
}

/* A row of a file, for taking them series by series in step order. */
typedef struct {
    uint32_t series;
    long long step;
    size_t row;
} row_ref;

static int by_series_step(const void *p, const void *q)
{
    const row_ref *x = p, *y = q;
    if (x->series != y->series)
        return x->series < y->series ? -1 : 1;
    return x->step < y->step ? -1 : x->step > y->step;
}

/* The trackers of events.h take a series' rows in step order. msprobe
 * writes a file step by step, every series of a step together, so a file's
 * rows already are in that order for each series; a file that is not (made
 * by other means) is taken sorted by series, then step. */
static void track_events(summary *sm, const conv_rows *rows, const int *col, const size_t *sid, size_t rank)
{
    long long *last = xmalloc_array(rows->nseries ? rows->nseries : 1, sizeof *last);
    int ordered = 1;
    for (size_t i = 0; i < rows->nseries; i++)
        last[i] = LLONG_MIN;
    for (size_t r = 0; r < rows->nrows && ordered; r++) {
        ordered = rows->row_step[r] > last[rows->row_series[r]];
        last[rows->row_series[r]] = rows->row_step[r];
    }
    free(last);
    row_ref *order = NULL;
    if (!ordered) {
        order = xmalloc_array(rows->nrows, sizeof *order);
        for (size_t r = 0; r < rows->nrows; r++)
            order[r] = (row_ref){rows->row_series[r], rows->row_step[r], r};
        qsort(order, rows->nrows, sizeof *order, by_series_step);
    }
    size_t nv = rows->h.nfile_ops;
    for (size_t k = 0; k < rows->nrows; k++) {
        size_t r = order ? order[k].row : k;
        double v[EV_NSTATS] = {0};
        unsigned present = 0;
        for (int i = 0; i < NREAD; i++)
            if (col[i] >= 0) {
                v[EV_OF[i]] = rows->values[r * nv + (size_t)col[i]];
                present |= 1u << EV_OF[i];
            }
        ev_row(&sm->events, sid[rows->row_series[r]], rank, rows->row_step[r], v, present);
    }
    free(order);
}

static int consume(void *ctx, const conv_task *t, const monitor_file *f, conv_rows *rows, int skipped, uint64_t b)
{
    summary *sm = ctx;
    int col[NREAD];
    for (int i = 0; i < NREAD; i++) {
        col[i] = -1;
        for (size_t k = 0; k < rows->h.nfile_ops; k++)
            if ((int)rows->h.file_ops[k] == i)
                col[i] = (int)k;
    }
    size_t nv = rows->h.nfile_ops, rank = rank_slot(sm, t->run);
    size_t *sid = xmalloc_array(rows->nseries ? rows->nseries : 1, sizeof *sid);
    for (size_t s = 0; s < rows->nseries; s++)
        sid[s] = series_of(sm, t->type, &rows->series[s], rows->h.has_micro);
    track_events(sm, rows, col, sid, rank);
    for (size_t r = 0; r < rows->nrows; r++) {
        long long step = rows->row_step[r];
        if (!sm->any_step || step < sm->min_step)
            sm->min_step = step;
        if (!sm->any_step || step > sm->max_step)
            sm->max_step = step;
        sm->any_step = 1;
        acc *a = sm->data + (sid[rows->row_series[r]] * sm->nranks + rank) * NSTATS;
        for (int i = 0; i < NSTATS; i++, a++) {
            if (col[i] < 0)
                continue;
            double v = rows->values[r * nv + (size_t)col[i]];
            if (sm->ranges) {
                if (numlist_has(&sm->a, (long)step)) {
                    a->a_sum += v;
                    a->a_n++;
                }
                if (numlist_has(&sm->b, (long)step)) {
                    a->b_sum += v;
                    a->b_n++;
                }
                continue;
            }
            if (!a->seen || step < a->first_step) {
                a->first_step = step;
                a->first = v;
            }
            if (!a->seen || step >= a->last_step) {
                a->last_step = step;
                a->last = v;
            }
            a->seen = 1;
        }
    }
    free(sid);
    (void)f;
    (void)skipped;
    (void)b;
    return 0;
}

/* Before and after of one series, rank and stat; 0 when not both known. */
static int before_after(const summary *sm, const acc *a, double *x, double *y)
{
    if (sm->ranges) {
        if (!a->a_n || !a->b_n)
            return 0;
        *x = a->a_sum / (double)a->a_n;
        *y = a->b_sum / (double)a->b_n;
        return 1;
    }
    if (!a->seen)
        return 0;
    *x = a->first;
    *y = a->last;
    return 1;
}

/* How much it changed: a tier (2: turned NaN or infinite, or NaNs appeared;
 * 1: from zero; 0: ordinary) and a score within it. */
static void change(int stat, double x, double y, int *tier, double *score)
{
    *tier = 0;
    *score = 0;
    if (stat == NANS) {
        if ((x == 0 && y > 0) || (isfinite(x) && !isfinite(y))) {
            *tier = 2;
            *score = y;
        } else if (isfinite(x) && isfinite(y)) {
            *score = log1p(fabs(y - x));
        }
        return;
    }
    if (isfinite(x) && !isfinite(y)) {
        *tier = 2;
    } else if (!isfinite(x) || !isfinite(y)) {
        *score = 0;
    } else if (x == 0 || y == 0) {
        *tier = x != y;
        *score = fabs(y - x);
    } else {
        *score = fabs(log(fabs(y / x)));
    }
}

static void change_text(int stat, double x, double y, char *buf, size_t cap)
{
    char a[24], b[24];
    if (stat == NANS && isfinite(x) && isfinite(y)) {
        /* counts, or their means over --steps and --vs (+0.4, not +0) */
        snprintf(buf, cap, "%+.3g", y - x);
        return;
    }
    if (isfinite(x) && isfinite(y) && x != 0) {
        snprintf(buf, cap, "x%.3g", y / x);
        return;
    }
    snprintf(a, sizeof a, "%.4g", x);
    snprintf(b, sizeof b, "%.4g", y);
    snprintf(buf, cap, "%s->%s", a, b);
}

typedef struct {
    size_t series;
    int stat, tier;
    double score;
    size_t worst_rank;
} finding;

static int by_change(const void *p, const void *q)
{
    const finding *x = p, *y = q;
    if (x->tier != y->tier)
        return x->tier > y->tier ? -1 : 1;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return x->series < y->series ? -1 : x->series > y->series;
}

static void print_type(const summary *sm, int type, int top)
{
    finding *f = NULL;
    size_t nf = 0, cap = 0;
    for (size_t s = 0; s < sm->ns; s++) {
        if (sm->s[s].type != type)
            continue;
        for (int st = 0; st < NSTATS; st++) {
            finding best = {s, st, -1, 0, 0};
            for (size_t r = 0; r < sm->nranks; r++) {
                double x, y;
                const acc *a = sm->data + (s * sm->nranks + r) * NSTATS + st;
                if (!before_after(sm, a, &x, &y))
                    continue;
                int tier;
                double score;
                change(st, x, y, &tier, &score);
                if (tier > best.tier || (tier == best.tier && score > best.score)) {
                    best.tier = tier;
                    best.score = score;
                    best.worst_rank = r;
                }
            }
            if (best.tier < 0 || (best.tier == 0 && best.score == 0))
                continue;
            GROW(f, cap, nf + 1);
            f[nf++] = best;
        }
    }
    if (!nf) {
        free(f);
        return;
    }
    qsort(f, nf, sizeof *f, by_change);
    if (nf > (size_t)top)
        nf = (size_t)top;
    size_t wname = 4;
    for (size_t i = 0; i < nf; i++)
        if (strlen(sm->s[f[i].series].label) > wname)
            wname = strlen(sm->s[f[i].series].label);
    printf("\n%s\n  %-*s  %-4s  %-16s", monitor_type_names[type], (int)wname, "name", "stat", "worst");
    for (size_t r = 0; r < sm->nranks; r++) {
        char rk[32];
        snprintf(rk, sizeof rk, "rank%ld", sm->p->runs.v[r].rank);
        printf("  %-*s", r + 1 < sm->nranks ? 14 : 0, rk);
    }
    printf("\n");
    for (size_t i = 0; i < nf; i++) {
        char text[80], worst[112];
        double x = 0, y = 0;
        const acc *a = sm->data + (f[i].series * sm->nranks + f[i].worst_rank) * NSTATS + f[i].stat;
        before_after(sm, a, &x, &y);
        change_text(f[i].stat, x, y, text, sizeof text);
        snprintf(worst, sizeof worst, "%s@rank%ld", text, sm->p->runs.v[f[i].worst_rank].rank);
        printf("  %-*s  %-4s  %-16s", (int)wname, sm->s[f[i].series].label, STATS[f[i].stat], worst);
        for (size_t r = 0; r < sm->nranks; r++) {
            a = sm->data + (f[i].series * sm->nranks + r) * NSTATS + f[i].stat;
            if (before_after(sm, a, &x, &y))
                change_text(f[i].stat, x, y, text, sizeof text);
            else
                strcpy(text, "-");
            printf("  %-*s", r + 1 < sm->nranks ? 14 : 0, text);
        }
        printf("\n");
    }
    free(f);
}

int cmd_monitor(int argc, char **argv, const global_opts *g)
{
    cli o;
    memset(&o, 0, sizeof o);
    o.c.jobs = pool_cpus();
    opts_result pr = opts_parse(&spec, argc, argv, &o, 0, NULL);
    if (pr != OPTS_RUN)
        return opts_exit_status(pr);
    summary sm;
    memset(&sm, 0, sizeof sm);
    strbuf both = STRBUF_INIT;
    const char *first = o.c.steps;
    if (o.vs) {
        if (!o.c.steps) {
            err_set(ERR_USAGE, NULL, "--vs needs --steps: the range it is compared with");
            return err_report();
        }
        if (numlist_parse(o.c.steps, "--steps", &sm.a) != 0 || numlist_parse(o.vs, "--vs", &sm.b) != 0) {
            numlist_free(&sm.a);
            return err_report();
        }
        sm.ranges = 1;
        sb_addf(&both, "%s,%s", o.c.steps, o.vs);
        o.c.steps = sb_str(&both);
    }
    conv_plan p;
    int status = EXIT_OK;
    if (conv_plan_make(&o.c, (1u << MT_COUNT) - 1, &p) != 0) {
        status = err_report();
        goto out;
    }
    if (p.nfiles == 0) {
        char *why = p.runs.n ? xstrdup("the run directories hold no csv files of these types and steps")
                             : monitor_runs_absent(o.c.monitor_dir, o.c.time_start || o.c.time_end, "-m");
        err_input(o.c.monitor_dir, "%s", why);
        free(why);
        status = err_report();
        conv_plan_free(&p);
        goto out;
    }
    sm.p = &p;
    sm.nranks = p.runs.n;
    strmap_init(&sm.index, 1024);
    ev_init(&sm.events, sm.nranks);
    if (conv_read_ordered(&o.c, &p, STATS, NREAD, NULL, consume, &sm) != 0) {
        status = err_report();
    } else {
        printf("%s: %zu rank%s, %zu csv files, steps %lld-%lld\n", o.c.monitor_dir, sm.nranks,
               sm.nranks == 1 ? "" : "s", p.nfiles, sm.min_step, sm.max_step);
        ev_print(&sm.events, sm.s, sm.ns, &p.runs, o.top);
        if (sm.ranges)
            printf("\nmean of steps %s vs mean of steps %s, the %d biggest changes per data type\n", first, o.vs, o.top);
        else
            printf("\nfirst step vs last step of each series%s%s, the %d biggest changes per data type\n",
                   o.c.steps ? " in steps " : "", o.c.steps ? o.c.steps : "", o.top);
        for (int t = 0; t < MT_COUNT; t++)
            print_type(&sm, t, o.top);
    }
    for (size_t i = 0; i < sm.ns; i++)
        free(sm.s[i].key);
    strmap_free(&sm.index);
    free(sm.s);
    free(sm.data);
    sb_free(&sm.key);
    ev_free(&sm.events);
    conv_plan_free(&p);
out:
    numlist_free(&sm.a);
    numlist_free(&sm.b);
    sb_free(&both);
    return status;
}
