/* The NaN/Inf and jump tables of `msprobe monitor summary` (events.h). */
#include "monitor/summary/events.h"
#include "base/mem.h"
#include "base/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ev_stat_names[EV_NSTATS] = {"norm", "max", "min", "mean", "nans"};

/* The stats whose jumps are looked for: the size of a tensor and its
 * largest element. min and mean cross zero in ordinary training, where a
 * ratio means nothing; a NaN count is the other table's. */
static const int JUMP_STATS[] = {EV_NORM, EV_MAX};
enum { NJUMP = 2 };

typedef struct {
    double win[EV_WINDOW];  /* the last finite values, a ring */
    double sorted[EV_WINDOW]; /* the same values, ascending */
    unsigned long n;        /* values seen; the next goes to win[n % EV_WINDOW] */
    double best;            /* the largest jump: value / median or its inverse, >= 1; 0 none */
    double value, median;
    long long step;
} jump_track;

typedef struct {
    int seen;
    long long first_step;
    unsigned long nsteps;
    double at_first[EV_NSTATS];
    unsigned present;       /* the stats the first such row had */
} bad_track;

struct ev_cell {
    jump_track jump[NJUMP];
    bad_track bad;
};

void ev_init(ev_tracker *t, size_t nranks)
{
    memset(t, 0, sizeof *t);
    t->nranks = nranks ? nranks : 1;
}

void ev_free(ev_tracker *t)
{
    free(t->cells);
    memset(t, 0, sizeof *t);
}

/* The cells of one series, grown (zeroed) on first sight. */
static ev_cell *cells_of(ev_tracker *t, size_t series)
{
    GROW_ZEROED(t->cells, t->cap, (series + 1) * t->nranks);
    return t->cells + series * t->nranks;
}

/* A row holds NaN or Inf: a stat not finite, or NaNs counted. */
static int is_bad(int stat, double v)
{
    return stat == EV_NANS ? v != 0 : !isfinite(v);
}

/* The window kept sorted as it slides: the oldest value out, the new one
 * in, each place found by counting the values below it (no branch to
 * mispredict: this runs for every row of every series), so the median is
 * two reads. */
static size_t below(const double *v, size_t n, double x)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += v[i] < x;
    return k;
}

static void slide(jump_track *j, double x)
{
    size_t n = j->n < EV_WINDOW ? (size_t)j->n : EV_WINDOW;
    double *s = j->sorted;
    if (n == EV_WINDOW) {
        size_t k = below(s, n, j->win[j->n % EV_WINDOW]);   /* s[k] is the oldest value */
        memmove(s + k, s + k + 1, (n - k - 1) * sizeof *s);
        n--;
    }
    size_t p = below(s, n, x);
    memmove(s + p + 1, s + p, (n - p) * sizeof *s);
    s[p] = x;
    j->win[j->n % EV_WINDOW] = x;
    j->n++;
}

static double median(const jump_track *j)
{
    size_t n = j->n < EV_WINDOW ? (size_t)j->n : EV_WINDOW;
    return n % 2 ? j->sorted[n / 2] : (j->sorted[n / 2 - 1] + j->sorted[n / 2]) / 2;
}

void ev_row(ev_tracker *t, size_t series, size_t rank, long long step, const double *v, unsigned present)
{
    ev_cell *c = cells_of(t, series) + rank;
    int bad = 0;
    for (int s = 0; s < EV_NSTATS; s++)
        if ((present >> s & 1) && is_bad(s, v[s]))
            bad = 1;
    if (bad) {
        bad_track *b = &c->bad;
        if (!b->seen || step < b->first_step) {
            b->first_step = step;
            memcpy(b->at_first, v, sizeof b->at_first);
            b->present = present;
        }
        b->seen = 1;
        b->nsteps++;
    }
    for (int k = 0; k < NJUMP; k++) {
        int s = JUMP_STATS[k];
        double x = v[s];
        if (!(present >> s & 1) || !isfinite(x))
            continue;
        jump_track *j = &c->jump[k];
        if (j->n >= EV_HISTORY) {
            double m = median(j);
            if (m != 0 && x != 0) {
                double q = fabs(x / m), score = q >= 1 ? q : 1 / q;
                if (score > j->best) {
                    j->best = score;
                    j->value = x;
                    j->median = m;
                    j->step = step;
                }
            }
        }
        slide(j, x);
    }
}

static void number_text(double v, char *buf, size_t cap)
{
    if (isnan(v))
        snprintf(buf, cap, "nan");
    else if (isinf(v))
        snprintf(buf, cap, v > 0 ? "inf" : "-inf");
    else
        snprintf(buf, cap, "%.4g", v);
}

/* "norm,max,min,mean=nan nans=512": the stats that were NaN or Inf (or
 * counted NaNs), those of one value together. */
static void bad_text(const bad_track *b, strbuf *sb)
{
    char text[EV_NSTATS][32];
    int done[EV_NSTATS] = {0};
    for (int s = 0; s < EV_NSTATS; s++)
        number_text(b->at_first[s], text[s], sizeof text[s]);
    for (int s = 0; s < EV_NSTATS; s++) {
        if (done[s] || !(b->present >> s & 1) || !is_bad(s, b->at_first[s]))
            continue;
        if (sb->len)
            sb_addc(sb, ' ');
        for (int o = s; o < EV_NSTATS; o++)
            if (!done[o] && (b->present >> o & 1) && is_bad(o, b->at_first[o]) && !strcmp(text[o], text[s])) {
                sb_addf(sb, "%s%s", o == s ? "" : ",", ev_stat_names[o]);
                done[o] = 1;
            }
        sb_addf(sb, "=%s", text[s]);
    }
}

typedef struct {
    size_t series, rank;
    long long step;
    int type, stat;
    double score;
    size_t ranks;
} ev_line;

static int by_first_step(const void *p, const void *q)
{
    const ev_line *x = p, *y = q;
    if (x->step != y->step)
        return x->step < y->step ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    return x->series < y->series ? -1 : x->series > y->series;
}

static int by_jump(const void *p, const void *q)
{
    const ev_line *x = p, *y = q;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return x->series < y->series ? -1 : x->series > y->series;
}

static size_t width(size_t w, const char *s)
{
    size_t n = strlen(s);
    return n > w ? n : w;
}

static void print_bad(const ev_tracker *t, const mon_series *s, size_t ns, const monitor_runs *runs)
{
    ev_line *v = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < ns && (i + 1) * t->nranks <= t->cap; i++) {
        const ev_cell *c = t->cells + i * t->nranks;
        ev_line l = {i, 0, 0, s[i].type, 0, 0, 0};
        for (size_t r = 0; r < t->nranks; r++) {
            if (!c[r].bad.seen)
                continue;
            if (!l.ranks || c[r].bad.first_step < l.step) {
                l.step = c[r].bad.first_step;
                l.rank = r;
            }
            l.ranks++;
        }
        if (!l.ranks)
            continue;
        GROW(v, cap, n + 1);
        v[n++] = l;
    }
    if (!n) {
        printf("\nNaN or Inf at any step: none\n");
        return;
    }
    qsort(v, n, sizeof *v, by_first_step);
    printf("\nNaN or Inf at any step: %zu series, the first at step %lld on rank %ld\n", n, v[0].step,
           runs->v[v[0].rank].rank);
    size_t wt = 4, wn = 4, wx = 12;
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        wt = width(wt, monitor_type_names[v[i].type]);
        wn = width(wn, s[v[i].series].label);
        sb_reset(&sb);
        bad_text(&t->cells[v[i].series * t->nranks + v[i].rank].bad, &sb);
        wx = width(wx, sb_str(&sb));
    }
    printf("  %-*s  %-*s  %5s  %4s  %-*s  %5s  %5s\n", (int)wt, "type", (int)wn, "name", "step", "rank", (int)wx,
           "at that step", "steps", "ranks");
    for (size_t i = 0; i < n; i++) {
        const bad_track *b = &t->cells[v[i].series * t->nranks + v[i].rank].bad;
        sb_reset(&sb);
        bad_text(b, &sb);
        printf("  %-*s  %-*s  %5lld  %4ld  %-*s  %5lu  %5zu\n", (int)wt, monitor_type_names[v[i].type], (int)wn,
               s[v[i].series].label, v[i].step, runs->v[v[i].rank].rank, (int)wx, sb_str(&sb), b->nsteps,
               v[i].ranks);
    }
    sb_free(&sb);
    free(v);
}

static int by_step_then_jump(const void *p, const void *q)
{
    const ev_line *x = p, *y = q;
    if (x->step != y->step)
        return x->step < y->step ? -1 : 1;
    return by_jump(p, q);
}

/* Every series' largest jump, those of an order of magnitude (EV_JUMP)
 * listed by step: the first is usually the cause, what follows its echo (a
 * gradient spike at step 13, Adam's second moment at step 14). */
static void print_jumps(const ev_tracker *t, const mon_series *s, size_t ns, const monitor_runs *runs, int top)
{
    ev_line *v = NULL;
    size_t n = 0, cap = 0, big = 0;
    for (size_t i = 0; i < ns && (i + 1) * t->nranks <= t->cap; i++) {
        const ev_cell *c = t->cells + i * t->nranks;
        ev_line l = {i, 0, 0, s[i].type, 0, 0, 0};
        for (size_t r = 0; r < t->nranks; r++)
            for (int k = 0; k < NJUMP; k++)
                if (c[r].jump[k].best > l.score) {
                    l.score = c[r].jump[k].best;
                    l.rank = r;
                    l.stat = k;
                    l.step = c[r].jump[k].step;
                }
        if (l.score > 0) {
            GROW(v, cap, n + 1);
            v[n++] = l;
        }
    }
    /* the big ones first, by step; the largest of the rest after them */
    if (n)
        qsort(v, n, sizeof *v, by_jump);
    while (big < n && v[big].score >= EV_JUMP)
        big++;
    if (big)
        qsort(v, big, sizeof *v, by_step_then_jump);
    printf("\njumps of x%d or more (or x1/%d) from the median of the %d values before:", EV_JUMP, EV_JUMP, EV_WINDOW);
    if (!big) {
        printf(" none\n");
    } else {
        printf(" %zu series, at step", big);
        size_t shown = 0;
        for (size_t i = 0; i < big; i++) {
            size_t k = i;
            while (k + 1 < big && v[k + 1].step == v[i].step)
                k++;
            if (shown++ == 6) {
                printf(", ...");
                break;
            }
            printf("%s %lld (%zu)", i ? "," : "", v[i].step, k - i + 1);
            i = k;
        }
        printf("\n");
    }
    /* without a big one, the largest there is, for scale */
    size_t rows = big ? big : n ? 1 : 0;
    if (rows > (size_t)top)
        rows = (size_t)top;
    if (!rows) {
        free(v);
        return;
    }
    if (!big)
        printf("  the largest:\n");
    size_t wt = 4, wn = 4;
    for (size_t i = 0; i < rows; i++) {
        wt = width(wt, monitor_type_names[v[i].type]);
        wn = width(wn, s[v[i].series].label);
    }
    printf("  %-*s  %-*s  %-4s  %5s  %4s  %-10s  %-10s  %s\n", (int)wt, "type", (int)wn, "name", "stat", "step", "rank",
           "value", "median", "jump");
    for (size_t i = 0; i < rows; i++) {
        const jump_track *j = &t->cells[v[i].series * t->nranks + v[i].rank].jump[v[i].stat];
        char value[32], med[32];
        number_text(j->value, value, sizeof value);
        number_text(j->median, med, sizeof med);
        /* x1400 rather than x1.4e+03 while the digits are few */
        double ratio = fabs(j->value / j->median);
        char jump[32];
        snprintf(jump, sizeof jump, ratio >= 100 && ratio < 1e7 ? "x%.0f" : "x%.3g", ratio);
        printf("  %-*s  %-*s  %-4s  %5lld  %4ld  %-10s  %-10s  %s\n", (int)wt, monitor_type_names[v[i].type],
               (int)wn, s[v[i].series].label, ev_stat_names[JUMP_STATS[v[i].stat]], v[i].step,
               runs->v[v[i].rank].rank, value, med, jump);
    }
    if (big > rows)
        printf("  ... %zu more (-n)\n", big - rows);
    free(v);
}

void ev_print(const ev_tracker *t, const mon_series *s, size_t ns, const monitor_runs *runs, int top)
{
    print_bad(t, s, ns, runs);
    print_jumps(t, s, ns, runs, top);
}
