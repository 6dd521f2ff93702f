/* The status line of progress.h. Jobs report with atomic adds into their
 * slot and never wait; a drawing thread owned by the run reads every slot
 * ten times a second (a slot in the middle of a phase change is skipped,
 * told by a sequence counter), finds the job furthest behind (kept while it
 * runs unless another falls a phase behind it), the byte rate, the clock
 * and the time left, and draws the line through log.h. Nothing is drawn
 * for a run shorter than a quarter of a second, nor when stderr is not a
 * terminal. With the profile option (MSPROBE_PROFILE) each phase's wall
 * time, CPU time and resident memory are printed when it ends.
 */
#include "base/progress.h"
#include "base/log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct progress_job {
    char label[48];
    /* A phase change makes seq odd, rewrites the phase, makes it even: a
     * reader that sees seq change (or odd) skips the job this time. */
    atomic_uint seq;
    atomic_int running;                /* begun and not yet ended */
    _Atomic(const char *) phase;
    atomic_uint_least64_t done, total;
    atomic_int unit;
    /* the job's own thread only (profile) */
    double phase_t0;
    double phase_cpu0;       /* process CPU time at phase_t0 (profile) */
    /* a file whose size is the progress (run.watch_mu) */
    char *watch;
};

/* The one run. Set up by progress_run_begin before the threads that report
 * exist, torn down by progress_run_end after they are gone. */
static struct {
    int active;
    int draw;                          /* a line is drawn */
    progress_opts o;
    progress_job *slots;
    size_t nslots;
    atomic_size_t next, ended;
    atomic_uint_least64_t bytes;       /* read so far, all jobs */
    double t0;
    /* the drawing thread */
    pthread_t thread;
    int have_thread, stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* held by the drawing thread while it looks at watched files, by a job
     * while it changes its own: a stat(2) long, nothing taken inside */
    pthread_mutex_t watch_mu;
    /* the rate, kept by whoever draws (one thread at a time) */
    double rate_t, rate, moved_t;
    uint64_t rate_bytes, last_bytes;
    /* the job named on the line, + 1 (0: none yet); kept by whoever draws */
    size_t shown;
} run;

#define FIRST_DRAW_MS 250   /* a run shorter than this shows nothing */
#define REDRAW_MS 100

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Resident memory in MB (profile), -1 when /proc is not there. */
static long rss_mb(void)
{
    long pages = -1, resident = -1;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return -1;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = -1;
    fclose(f);
    return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024) / 1024;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- reporting -------------------------------------------------------------- */

progress_job *progress_job_begin(const char *label)
{
    if (!run.active)
        return NULL;
    size_t i = atomic_fetch_add(&run.next, 1);
    if (i >= run.nslots)
        return NULL;
    progress_job *j = &run.slots[i];
    snprintf(j->label, sizeof j->label, "%s", label ? label : "");
    j->phase_t0 = now_s();
    j->phase_cpu0 = cpu_s();
    atomic_store(&j->running, 1);
    return j;
}

static void phase_time(progress_job *j)
{
    const char *name = atomic_load(&j->phase);
    double t = now_s(), cpu = cpu_s();
    /* CPU time is the whole process's: over wall time it says how many
     * cores the phase kept busy (with one job at a time) */
    if (run.o.profile && name)
        log_note("profile: %s%s%-10s %9.2f ms  cpu %9.2f ms  rss %ld MB", j->label, j->label[0] ? " " : "", name,
                 (t - j->phase_t0) * 1e3, (cpu - j->phase_cpu0) * 1e3, rss_mb());
    j->phase_t0 = t;
    j->phase_cpu0 = cpu;
}

void progress_job_end(progress_job *j)
{
    if (!j)
        return;
    phase_time(j);
    atomic_store(&j->running, 0);
    atomic_fetch_add(&run.ended, 1);
}

static void set_watch(progress_job *j, const char *path)
{
    char *copy = path ? strdup(path) : NULL;
    pthread_mutex_lock(&run.watch_mu);
    free(j->watch);
    j->watch = copy;
    pthread_mutex_unlock(&run.watch_mu);
}

void progress_watch_file(progress_job *j, const char *path)
{
    if (j) {
        atomic_store(&j->unit, PROGRESS_BYTES);
        set_watch(j, path);
    }
}

void progress_phase(progress_job *j, const char *name, uint64_t total, int unit)
{
    if (!j)
        return;
    phase_time(j);
    if (j->watch)
        set_watch(j, NULL);
    atomic_fetch_add(&j->seq, 1);
    atomic_store(&j->done, 0);
    atomic_store(&j->total, total);
    atomic_store(&j->unit, unit);
    atomic_store(&j->phase, name);
    atomic_fetch_add(&j->seq, 1);
}

void progress_expect(progress_job *j, uint64_t n)
{
    if (j)
        atomic_fetch_add_explicit(&j->total, n, memory_order_relaxed);
}

void progress_add(progress_job *j, uint64_t n)
{
    if (!j)
        return;
    atomic_fetch_add_explicit(&j->done, n, memory_order_relaxed);
    if (atomic_load_explicit(&j->unit, memory_order_relaxed) == PROGRESS_BYTES)
        atomic_fetch_add_explicit(&run.bytes, n, memory_order_relaxed);
}

void progress_bytes(progress_job *j, uint64_t n)
{
    if (j)
        atomic_fetch_add_explicit(&run.bytes, n, memory_order_relaxed);
}

/* ---- the line ------------------------------------------------------------------ */

typedef struct {
    const char *label, *phase;
    unsigned seq;
    int unit;
    uint64_t done, total;
} job_view;

/* A consistent reading of a running job, or 0. */
static int view(progress_job *j, job_view *v)
{
    if (!atomic_load(&j->running))
        return 0;
    unsigned s1 = atomic_load(&j->seq);
    if (s1 & 1)
        return 0;
    v->label = j->label;
    v->phase = atomic_load(&j->phase);
    v->total = atomic_load(&j->total);
    v->done = atomic_load(&j->done);
    v->unit = atomic_load(&j->unit);
    v->seq = s1;
    return atomic_load(&j->seq) == s1 && v->phase;
}

/* Is a behind b: an earlier phase, or the same with a smaller fraction? */
static int behind(const job_view *a, const job_view *b)
{
    if (a->seq != b->seq)
        return a->seq < b->seq;
    double fa = a->total ? (double)a->done / (double)a->total : 0;
    double fb = b->total ? (double)b->done / (double)b->total : 0;
    return fa < fb;
}

/* The job to name: the one furthest behind, kept while it runs -- ranks
 * that take turns a few percent apart would make the name flicker -- unless
 * another falls a whole phase behind it (a phase change adds 2 to seq). */
static int slowest(job_view *show)
{
    job_view v, kept;
    int have = 0;
    size_t seen = atomic_load(&run.next), pick = 0;
    for (size_t i = 0; i < seen && i < run.nslots; i++)
        if (view(&run.slots[i], &v) && (!have || behind(&v, show))) {
            *show = v;
            pick = i + 1;
            have = 1;
        }
    progress_job *k = run.shown ? &run.slots[run.shown - 1] : NULL;
    if (k && atomic_load(&k->running)) {
        /* (a phase change under way: the one found this time, and the
         * choice stays) */
        if (!view(k, &kept))
            return have;
        if (!(have && show->seq + 2 <= kept.seq)) {
            *show = kept;
            return 1;
        }
    }
    run.shown = pick;
    return have;
}

/* "h:mm:ss" or "m:ss" */
static void clock_text(char *buf, size_t cap, long secs)
{
    if (secs >= 3600)
        snprintf(buf, cap, "%ld:%02ld:%02ld", secs / 3600, secs / 60 % 60, secs % 60);
    else
        snprintf(buf, cap, "%ld:%02ld", secs / 60, secs % 60);
}

/* "1.2 GB" (decimal units); `per` is "" or "/s". */
static void human_bytes(char *buf, size_t cap, double b, const char *per)
{
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB"};
    int u = 0;
    while (b >= 1000 && u < 4) {
        b /= 1000;
        u++;
    }
    snprintf(buf, cap, b < 10 && u ? "%.1f %s%s" : "%.0f %s%s", b, units[u], per);
}

/* Sizes of the watched files into their jobs' counters. */
static void poll_watched(void)
{
    pthread_mutex_lock(&run.watch_mu);
    size_t seen = atomic_load(&run.next);
    for (size_t i = 0; i < seen && i < run.nslots; i++) {
        struct stat st;
        progress_job *j = &run.slots[i];
        if (j->watch && stat(j->watch, &st) == 0)
            atomic_store(&j->done, (uint64_t)st.st_size);
    }
    pthread_mutex_unlock(&run.watch_mu);
}

/* Columns of the terminal, less one: a line that wraps cannot be redrawn. */
static size_t width(void)
{
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return (size_t)ws.ws_col - 1;
    return 79;
}

/* Cut s to `cols` characters (UTF-8 lead bytes count; labels are paths). */
static void fit(char *s, size_t cols)
{
    size_t chars = 0;
    for (char *p = s; *p; p++) {
        if (((unsigned char)*p & 0xC0) == 0x80)
            continue;
        if (chars++ == cols) {
            *p = 0;
            return;
        }
    }
}

static size_t render(char *buf, size_t cap, double now)
{
    size_t len = 0;
#define ADD(...) (len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, __VA_ARGS__), len = len < cap ? len : cap - 1)
    buf[0] = 0;
    ADD("%s:", log_prog());
    if (run.nslots > 1)
        ADD(" %zu/%zu done", atomic_load(&run.ended), run.nslots);
    job_view show = {0};
    if (slowest(&show)) {
        ADD("%s%s%s %s", run.nslots > 1 ? " |" : "", show.label[0] ? " " : "", show.label, show.phase);
        if (show.total) {
            ADD(" %d%%", (int)(show.done >= show.total ? 100 : show.done * 100 / show.total));
        } else if (show.done && show.unit == PROGRESS_BYTES) {
            char b[32];
            human_bytes(b, sizeof b, (double)show.done, "");
            ADD(" %s", b);
        } else if (show.done) {
            ADD(" %llu", (unsigned long long)show.done);
        }
    }
    /* the rate over the last half second, while bytes are being read */
    uint64_t bytes = atomic_load(&run.bytes);
    if (bytes != run.last_bytes) {
        run.last_bytes = bytes;
        run.moved_t = now;
    }
    if (now - run.rate_t >= 0.5) {
        run.rate = (double)(bytes - run.rate_bytes) / (now - run.rate_t);
        run.rate_t = now;
        run.rate_bytes = bytes;
    }
    if (run.rate > 0 && now - run.moved_t < 0.5) {
        char r[32];
        human_bytes(r, sizeof r, run.rate, "/s");
        ADD(" | %s", r);
    }
    char t[32];
    clock_text(t, sizeof t, (long)(now - run.t0));
    ADD(" | %s", t);
    /* the time left, once jobs have ended: at the pace they ended so far
     * (the ranks of a step take about as long each) */
    size_t ended = atomic_load(&run.ended);
    if (run.nslots > 1 && ended && ended < run.nslots && now - run.t0 >= 1) {
        clock_text(t, sizeof t, (long)((now - run.t0) / (double)ended * (double)(run.nslots - ended) + 0.5));
        ADD(", %s left", t);
    }
#undef ADD
    fit(buf, width());
    return strlen(buf);
}

size_t progress_line(char *buf, size_t cap)
{
    if (!cap)
        return 0;
    if (!run.active) {
        buf[0] = 0;
        return 0;
    }
    return render(buf, cap, now_s());
}

void progress_draw(void)
{
    if (!run.active || !run.draw)
        return;
    poll_watched();
    char line[512];
    render(line, sizeof line, now_s());
    log_status(line);
}

int progress_shown(void) { return run.active && run.draw; }

static void *drawer(void *arg)
{
    (void)arg;
    struct timespec due;
    clock_gettime(CLOCK_MONOTONIC, &due);
    long step_ms = FIRST_DRAW_MS;
    pthread_mutex_lock(&run.mu);
    for (;;) {
        due.tv_nsec += step_ms * 1000000L;
        due.tv_sec += due.tv_nsec / 1000000000L;
        due.tv_nsec %= 1000000000L;
        while (!run.stop && pthread_cond_timedwait(&run.cv, &run.mu, &due) == 0)
            ;
        if (run.stop)
            break;
        pthread_mutex_unlock(&run.mu);
        progress_draw();
        pthread_mutex_lock(&run.mu);
        step_ms = REDRAW_MS;
    }
    pthread_mutex_unlock(&run.mu);
    return NULL;
}

/* ---- the run ------------------------------------------------------------------- */

void progress_run_begin(const progress_opts *o)
{
    if (run.active)
        progress_run_end();
    memset(&run, 0, sizeof run);
    run.o = *o;
    run.nslots = o->jobs ? o->jobs : 1;
    run.slots = calloc(run.nslots, sizeof *run.slots);
    if (!run.slots)
        log_fatal("out of memory (progress of %zu jobs)", run.nslots);
    for (size_t i = 0; i < run.nslots; i++) {
        progress_job *j = &run.slots[i];
        atomic_init(&j->seq, 0);
        atomic_init(&j->running, 0);
        atomic_init(&j->phase, NULL);
        atomic_init(&j->done, 0);
        atomic_init(&j->total, 0);
        atomic_init(&j->unit, PROGRESS_ITEMS);
    }
    atomic_init(&run.next, 0);
    atomic_init(&run.ended, 0);
    atomic_init(&run.bytes, 0);
    run.t0 = run.rate_t = run.moved_t = now_s();
    pthread_mutex_init(&run.watch_mu, NULL);
    run.draw = !log_quiet() && (o->force || isatty(STDERR_FILENO));
    run.active = 1;
    if (!run.draw || o->manual)
        return;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&run.cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&run.mu, NULL);
    /* without the thread the run goes on, silently */
    run.have_thread = pthread_create(&run.thread, NULL, drawer, NULL) == 0;
    if (!run.have_thread) {
        pthread_cond_destroy(&run.cv);
        pthread_mutex_destroy(&run.mu);
    }
}

void progress_run_end(void)
{
    if (!run.active)
        return;
    if (run.have_thread) {
        pthread_mutex_lock(&run.mu);
        run.stop = 1;
        pthread_cond_signal(&run.cv);
        pthread_mutex_unlock(&run.mu);
        pthread_join(run.thread, NULL);
        pthread_cond_destroy(&run.cv);
        pthread_mutex_destroy(&run.mu);
    }
    if (run.draw)
        log_status(NULL);
    for (size_t i = 0; i < run.nslots; i++)
        free(run.slots[i].watch);
    pthread_mutex_destroy(&run.watch_mu);
    free(run.slots);
    memset(&run, 0, sizeof run);
}
