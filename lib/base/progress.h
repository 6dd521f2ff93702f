/* Progress of a run: one status line on stderr for a whole subcommand run,
 * however many jobs it runs at once, for example
 *
 *   msprobe compare: 3/8 done | rank5 tensors 45% | 1.2 GB/s | 0:12
 *
 * The line starts with the program's name (log_prog()). Shown only when
 * stderr is a terminal and not under -q. A run has job
 * slots (one per rank pair, per file, ...); each job goes through named
 * phases, each with a total (shown as a percent) or without one (what is
 * done so far, if anything, and the clock keep moving). The line shows how many jobs are done,
 * the job furthest behind (earliest phase, then smallest fraction; kept
 * while it runs unless another falls a whole phase behind it, so that the
 * name does not flicker), the bytes read per second over all jobs, the time
 * since the run began and, once a job has ended, the time left at the pace
 * jobs ended so far:
 *
 *   msprobe compare: 3/8 done | rank5 tensors 45% | 1.2 GB/s | 0:12, 0:20 left
 *
 * Reporting is an atomic add and never waits: a drawing thread that the
 * run owns redraws the line at most ten times a second (through log.h,
 * whose messages clear the line first). Every function accepts a NULL job
 * and does nothing then, so library code can report unconditionally.
 *
 * Use in a subcommand:
 *
 *   progress_run_begin(&(progress_opts){.jobs = n});
 *   ... in each job, on any thread:
 *   progress_job *pj = progress_job_begin("rank3");
 *   progress_phase(pj, "load", 0, PROGRESS_BYTES);
 *   progress_expect(pj, file_size);       -- the total may grow
 *   progress_add(pj, bytes_parsed);       -- from every thread of the job
 *   progress_phase(pj, "tensors", rows, PROGRESS_ITEMS);
 *   progress_add(pj, 16); progress_bytes(pj, tensor_bytes);
 *   progress_job_end(pj);
 *   ...
 *   progress_run_end();
 *   log_warn_totals();
 */
#ifndef MSP_PROGRESS_H
#define MSP_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    size_t jobs;             /* jobs the run will have (slots); 0 counts as 1 */
    int profile;             /* print the time of each phase of each job on stderr */
    int force;               /* draw even when stderr is not a terminal (tests) */
    int manual;              /* no drawing thread: progress_draw() draws (tests) */
} progress_opts;

/* Start and end the run; before and after the threads that report. At most
 * one run at a time. progress_run_end() clears the line. */
void progress_run_begin(const progress_opts *o);
void progress_run_end(void);

typedef struct progress_job progress_job;

/* Take the next job slot, `label` ("rank3"; copied) naming the job on the
 * line. NULL when no run is active or every slot is taken. */
progress_job *progress_job_begin(const char *label);
/* The job is done: it counts as done, its last phase ends. */
void progress_job_end(progress_job *j);

enum { PROGRESS_ITEMS, PROGRESS_BYTES };
/* Begin the next phase of the job (the previous one ends): `name` a literal,
 * `total` in `unit`s, 0 when unknown (no percent). Progress in bytes also
 * counts as bytes read for the rate. */
void progress_phase(progress_job *j, const char *name, uint64_t total, int unit);
/* Raise the current phase's total by n (a file found on the way). */
void progress_expect(progress_job *j, uint64_t n);
/* n more units of the current phase done. */
void progress_add(progress_job *j, uint64_t n);
/* n bytes read, for the rate only (the phase counts something else). */
void progress_bytes(progress_job *j, uint64_t n);
/* The current phase's progress is the size of the file at `path` (copied),
 * which a library writes without telling us how far it got: shown in bytes
 * until the next phase. */
void progress_watch_file(progress_job *j, const char *path);

/* Is a line being drawn (a terminal, not quiet, a run active)? */
int progress_shown(void);

/* The line as it would be drawn now (for tests), and a redraw now (manual
 * runs). progress_line returns the length written into buf (NUL-terminated). */
size_t progress_line(char *buf, size_t cap);
void progress_draw(void);

#endif
