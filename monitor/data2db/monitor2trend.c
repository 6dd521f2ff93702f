/* data2db's monitor importer (monitor2trend.h), after the newest msprobe's
 * csv2db: a first pass over the csv files collects each metric's targets
 * (in order of appearance), its stat columns and the steps (with
 * --micro_step, how many micro steps each step has: step s of micro step m
 * becomes global step prefix[s] + m); a second pass writes the rows. */
#include "monitor/data2db/monitor2trend.h"
#include "monitor/data2db/tags.h"
#include "monitor/data2db/trend_db.h"
#include "monitor/convert/convert.h"
#include "base/err.h"
#include "base/files.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "base/strmap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Data2DBConst.OP_TRENDVIS_SUPPORTED */
static const char *const OPS[] = {"norm", "min", "max", "zeros", "nans", "mean", "entropy", "softmax_max",
                                  "sr", "kernel_norm", "std_x", "jacobian", "proxy", "token_similarity"};
enum { NOPS = sizeof OPS / sizeof OPS[0], BATCH = 5000 };

typedef struct {
    const char *name;
    size_t len;
    long long vpp, micro;
} mtarget;

typedef struct {
    strmap seen;
    mtarget *v;
    size_t n, cap;
    int has_file;
    int stats[NOPS];
} metric_scan;

typedef struct {
    const monitor2trend_opts *o;
    metric_scan m[MT_COUNT];
    arena a;
    strbuf name, key;
    long long *micro_count;     /* by step: micro steps (with --micro_step) */
    long long *steps;
    size_t nsteps, steps_cap;
    strmap step_index;
    long long min_step, max_step;
    int have_step;
    long max_rank;
    /* the writing pass */
    trend_db t;
    int metric_of[MT_COUNT];    /* trend metric index, -1: none */
    int nall;
    int all[NOPS];              /* trend_data's stat columns */
    long long *prefix;          /* by step index: the first global step */
    uint64_t rows;
} importer;

/* The name after --mapping, in im->name. */
static void mapped_name(importer *im, const char *s, size_t n)
{
    strbuf tmp = STRBUF_INIT;
    sb_reset(&im->name);
    sb_add(&im->name, s, n);
    for (size_t i = 0; i < im->o->nmap; i++) {
        const char *a = im->o->map_from[i], *b = im->o->map_to[i];
        size_t an = strlen(a);
        sb_reset(&tmp);
        const char *cur = im->name.buf ? im->name.buf : "";
        size_t cn = im->name.len;
        if (!an) {
            sb_adds(&tmp, b);
            for (size_t k = 0; k < cn; k++) {
                sb_addc(&tmp, cur[k]);
                sb_adds(&tmp, b);
            }
        } else {
            for (size_t k = 0; k < cn;) {
                if (k + an <= cn && !memcmp(cur + k, a, an)) {
                    sb_adds(&tmp, b);
                    k += an;
                } else {
                    sb_addc(&tmp, cur[k++]);
                }
            }
        }
        sb_reset(&im->name);
        sb_add(&im->name, tmp.buf ? tmp.buf : "", tmp.len);
    }
    sb_free(&tmp);
}

static size_t step_slot(importer *im, long long step)
{
    size_t *s = strmap_get(&im->step_index, (const char *)&step, sizeof step);
    if (s)
        return *s;
    GROW(im->steps, im->steps_cap, im->nsteps + 1);
    im->micro_count = xrealloc(im->micro_count, im->steps_cap * sizeof *im->micro_count);
    im->steps[im->nsteps] = step;
    im->micro_count[im->nsteps] = 0;
    int added;
    char *key = arena_strndup(&im->a, (const char *)&step, sizeof step);
    strmap_put(&im->step_index, key, sizeof step, im->nsteps, &added);
    return im->nsteps++;
}

static int scan_file(void *ctx, const conv_task *t, const monitor_file *f, conv_rows *rows, int skipped, uint64_t b)
{
    importer *im = ctx;
    metric_scan *m = &im->m[t->type];
    m->has_file = 1;
    if (t->run->rank > im->max_rank)
        im->max_rank = t->run->rank;
    for (size_t i = 0; i < rows->h.nfile_ops; i++)
        m->stats[rows->h.file_ops[i]] = 1;
    for (size_t r = 0; r < rows->nrows; r++) {
        const mcsv_series *s = &rows->series[rows->row_series[r]];
        long long step = rows->row_step[r], micro = s->micro;
        if (im->o->micro_step) {
            size_t k = step_slot(im, step);
            if (micro + 1 > im->micro_count[k])
                im->micro_count[k] = micro + 1;
            micro = 0;
        } else {
            if (!im->have_step || step < im->min_step)
                im->min_step = step;
            if (!im->have_step || step > im->max_step)
                im->max_step = step;
            im->have_step = 1;
        }
        mapped_name(im, s->name, s->name_len);
        sb_reset(&im->key);
        sb_add(&im->key, &s->vpp, sizeof s->vpp);
        sb_add(&im->key, &micro, sizeof micro);
        sb_add(&im->key, im->name.buf ? im->name.buf : "", im->name.len);
        int added;
        char *k = arena_strndup(&im->a, im->key.buf, im->key.len);
        strmap_put(&m->seen, k, im->key.len, m->n, &added);
        if (added) {
            GROW(m->v, m->cap, m->n + 1);
            m->v[m->n++] = (mtarget){k + 2 * sizeof(long long), im->name.len, s->vpp, micro};
        }
    }
    (void)f;
    (void)skipped;
    (void)b;
    return 0;
}

/* process_tensor_value of a csv number: NaN stands for NULL. */
static double trend_value(double x)
{
    if (isnan(x))
        return NAN;
    if (isinf(x))
        return x > 0 ? 1e9 + 1 : -1e9 - 1;
    return x > 1e9 ? 1e9 : x < -1e9 ? -1e9 : x;
}

static int write_file(void *ctx, const conv_task *t, const monitor_file *f, conv_rows *rows, int skipped, uint64_t b)
{
    importer *im = ctx;
    int mi = im->metric_of[t->type];
    if (mi < 0)
        return 0;
    int col[NOPS];
    for (int i = 0; i < im->nall; i++) {
        col[i] = -1;
        for (size_t k = 0; k < rows->h.nfile_ops; k++)
            if ((int)rows->h.file_ops[k] == im->all[i])
                col[i] = (int)k;
    }
    size_t nv = rows->h.nfile_ops, pending = 0;
    for (size_t r = 0; r < rows->nrows; r++) {
        const mcsv_series *s = &rows->series[rows->row_series[r]];
        long long step = rows->row_step[r], micro = s->micro;
        if (im->o->micro_step) {
            size_t *k = strmap_get(&im->step_index, (const char *)&step, sizeof step);
            step = (k ? im->prefix[*k] : 0) + micro;
            micro = 0;
        }
        mapped_name(im, s->name, s->name_len);
        size_t tg = trend_target_of(&im->t, mi, im->name.buf ? im->name.buf : "", im->name.len, s->vpp, micro);
        trend_row *row = trend_add_row(&im->t);
        row->rank = (uint64_t)t->run->rank;
        row->step = step;
        row->target = tg;
        row->metric = mi;
        const double *x = rows->values + r * nv;
        for (int i = 0; i < im->nall; i++)
            row->value[i] = col[i] >= 0 ? trend_value(x[col[i]]) : NAN;
        im->rows++;
        if (++pending == BATCH) {
            pending = 0;
            if (trend_flush(&im->t) != 0)
                return -1;
        }
    }
    (void)f;
    (void)skipped;
    (void)b;
    return trend_flush(&im->t);
}

static int by_step(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

int monitor2trend_run(const monitor2trend_opts *o, out_run *outputs, char **why)
{
    *why = NULL;
    conv_opts co = {.monitor_dir = o->data, .jobs = o->jobs, .quiet = o->quiet};
    conv_plan p;
    if (conv_plan_make(&co, (1u << MT_COUNT) - 1, &p) != 0)
        return -1;
    if (p.nfiles == 0) {
        *why = p.runs.n ? xstrdup("the monitor run directories hold no csv files")
                        : monitor_runs_absent(o->data, 0, "--data");
        conv_plan_free(&p);
        return 1;
    }
    importer im;
    memset(&im, 0, sizeof im);
    im.o = o;
    arena_init(&im.a, 1 << 16);
    strmap_init(&im.step_index, 1024);
    for (int t = 0; t < MT_COUNT; t++)
        strmap_init(&im.m[t].seen, 256);
    int rc = conv_read_ordered(&co, &p, OPS, NOPS, NULL, scan_file, &im);
    char *final = path_join(o->db_dir, "monitor_data.trend.db");
    if (rc == 0) {
        im.nall = 0;
        for (int i = 0; i < NOPS; i++) {
            int any = 0;
            for (int t = 0; t < MT_COUNT; t++)
                any |= im.m[t].stats[i];
            if (any)
                im.all[im.nall++] = i;
        }
        const char *cols[NOPS];
        for (int i = 0; i < im.nall; i++)
            cols[i] = OPS[im.all[i]];
        if (out_run_mkdir(outputs, o->db_dir) != 0 || trend_open(&im.t, final, cols, im.nall) != 0)
            rc = -1;
    }
    /* metrics with targets, in msprobe's order, their targets inserted
     * metric by metric */
    for (int t = 0; t < MT_COUNT && rc == 0; t++) {
        im.metric_of[t] = -1;
        if (!im.m[t].n)
            continue;
        if ((im.metric_of[t] = trend_add_metric(&im.t, monitor_type_names[t])) < 0)
            rc = -1;
    }
    for (int t = 0; t < MT_COUNT && rc == 0; t++)
        for (size_t i = 0; i < im.m[t].n; i++) {
            const mtarget *x = &im.m[t].v[i];
            trend_target_of(&im.t, im.metric_of[t], x->name, x->len, x->vpp, x->micro);
        }
    if (rc == 0)
        rc = trend_flush(&im.t);
    long long min_step = im.min_step, max_step = im.max_step;
    if (rc == 0 && o->micro_step) {
        /* steps in order, each the sum of the micro steps before it */
        long long *sorted = xmalloc_array(im.nsteps ? im.nsteps : 1, sizeof *sorted);
        memcpy(sorted, im.steps, im.nsteps * sizeof *sorted);
        qsort(sorted, im.nsteps, sizeof *sorted, by_step);
        im.prefix = xcalloc(im.nsteps ? im.nsteps : 1, sizeof *im.prefix);
        long long sum = 0;
        for (size_t i = 0; i < im.nsteps; i++) {
            size_t *k = strmap_get(&im.step_index, (const char *)&sorted[i], sizeof sorted[i]);
            im.prefix[*k] = sum;
            sum += im.micro_count[*k];
        }
        free(sorted);
        min_step = 0;
        max_step = im.nsteps ? sum - 1 : 0;
    }
    if (rc == 0) {
        strbuf cols = STRBUF_INIT, vals = STRBUF_INIT;
        sb_adds(&cols, "min_step INTEGER DEFAULT 0, max_step INTEGER DEFAULT 0, max_rank INTEGER DEFAULT 0");
        sb_addf(&vals, "%lld, %lld, %ld", min_step, max_step, im.max_rank);
        for (int t = 0; t < MT_COUNT; t++) {
            if (!im.m[t].has_file)
                continue;
            sb_addf(&cols, ", %s TEXT DEFAULT NULL", monitor_type_names[t]);
            sb_adds(&vals, ", '");
            for (int i = 0, k = 0; i < NOPS; i++)
                if (im.m[t].stats[i])
                    sb_addf(&vals, "%s%s", k++ ? "," : "", OPS[i]);
            sb_addc(&vals, '\'');
        }
        if (trend_global_stats(&im.t, sb_str(&cols), sb_str(&vals)) != 0 ||
            trend_write_tags(&im.t, monitor_tags) != 0)
            rc = -1;
        sb_free(&cols);
        sb_free(&vals);
    }
    if (rc == 0)
        rc = conv_read_ordered(&co, &p, OPS, NOPS, NULL, write_file, &im);
    size_t ntargets = im.t.ntargets;
    rc = trend_finish(&im.t, rc, outputs);
    if (rc == 0 && !o->quiet)
        printf("monitor: %zu rank%s, %zu csv files, %llu rows, %zu targets -> %s\n", p.runs.n,
               p.runs.n == 1 ? "" : "s", p.nfiles, (unsigned long long)im.rows, ntargets, final);
    for (int t = 0; t < MT_COUNT; t++) {
        strmap_free(&im.m[t].seen);
        free(im.m[t].v);
    }
    strmap_free(&im.step_index);
    free(im.steps);
    free(im.micro_count);
    free(im.prefix);
    arena_free(&im.a);
    sb_free(&im.name);
    sb_free(&im.key);
    free(final);
    conv_plan_free(&p);
    return rc;
}
