/* What happened between the ends of a training monitor's series, for
 * `msprobe monitor summary`: comparing a series' first step with its last
 * misses a NaN at step 21 that is gone by step 29, or a gradient spike at
 * step 13. Two trackers per series and rank, fed its rows in step order:
 *
 *  - NaN or Inf: the first step whose norm, max, min or mean is not finite
 *    or whose nans count is not zero, what those stats were then, and how
 *    many steps were like it;
 *  - jumps: each norm and max against the median of the EV_WINDOW finite
 *    values before it (a spike does not move a median, so the step after
 *    it is judged against the usual values), the largest ratio either way.
 *
 * Memory is a fixed few hundred bytes per series and rank, whatever the
 * number of steps. */
#ifndef MSP_MONITOR_SUMMARY_EVENTS_H
#define MSP_MONITOR_SUMMARY_EVENTS_H

#include "model/monitor_tree.h"

#include <stddef.h>

/* The stats the trackers look at, as csv columns. */
enum { EV_NORM, EV_MAX, EV_MIN, EV_MEAN, EV_NANS, EV_NSTATS };
extern const char *const ev_stat_names[EV_NSTATS];

/* The median of up to EV_WINDOW values before a step; a ratio needs at
 * least EV_HISTORY of them. */
enum { EV_WINDOW = 8, EV_HISTORY = 3 };
/* A jump worth listing: a factor of EV_JUMP either way, an order of
 * magnitude (below it, the largest one is shown for scale). */
enum { EV_JUMP = 10 };

/* One series of a summary: its data type and its name as TensorBoard
 * tags it, vp{vpp_stage}:{name}[:micro{micro_step}]. */
typedef struct {
    int type;
    char *key;          /* "{type}|{label}", the summary's index key */
    const char *label;  /* in key */
} mon_series;

typedef struct ev_cell ev_cell;

typedef struct {
    size_t nranks;
    ev_cell *cells;     /* [series][rank] */
    size_t cap;         /* in cells */
} ev_tracker;

void ev_init(ev_tracker *t, size_t nranks);
void ev_free(ev_tracker *t);

/* One row of series `series` on rank slot `rank`: v[EV_NSTATS], `present`
 * a bit per stat the file has. Rows of one series and rank must come in
 * ascending step order. */
void ev_row(ev_tracker *t, size_t series, size_t rank, long long step, const double *v, unsigned present);

/* The two tables on stdout: every series that held NaN or Inf (by first
 * step), then the `top` largest jumps (one per series); `runs` names the
 * rank of each slot. */
void ev_print(const ev_tracker *t, const mon_series *s, size_t ns, const monitor_runs *runs, int top);

#endif
