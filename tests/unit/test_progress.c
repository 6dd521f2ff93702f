/* The progress reporter and the terminal it shares with messages: one line
 * for a run of many jobs (the job furthest behind is shown), counters that
 * many threads add to, the line cleared before every message and drawn
 * again after, capped warnings with their totals, -q, lines of libraries
 * that print on stderr themselves. Output is captured by pointing file
 * descriptor 2 at a file while a test runs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/log.h"
#include "base/progress.h"
#include "testutil.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The clock the reporter reads (CLOCK_MONOTONIC), in seconds. */
static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- capturing stderr ------------------------------------------------------ */

static int saved_fd = -1;
static char capture_path[] = "/tmp/msprobe-progress-XXXXXX";

static void capture_begin(void)
{
    int fd = mkstemp(capture_path);
    assert_true(fd >= 0);
    fflush(stderr);
    saved_fd = dup(STDERR_FILENO);
    assert_true(saved_fd >= 0);
    assert_true(dup2(fd, STDERR_FILENO) >= 0);
    close(fd);
}

/* What was written to stderr since capture_begin (malloc'ed). */
static char *capture_end(void)
{
    fflush(stderr);
    assert_true(dup2(saved_fd, STDERR_FILENO) >= 0);
    close(saved_fd);
    saved_fd = -1;
    FILE *f = fopen(capture_path, "rb");
    assert_non_null(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    unlink(capture_path);
    strcpy(capture_path, "/tmp/msprobe-progress-XXXXXX");
    return strdup(buf);
}

/* The screen a terminal would show for `out`: '\r' returns to column 0,
 * ESC[K erases to the end of the line, '\n' starts the next line. Lines
 * are returned joined by '\n'. */
static char *screen(const char *out)
{
    size_t cap = strlen(out) + 2;
    char *scr = calloc(1, cap), *line = calloc(1, cap);
    size_t col = 0, len = 0, slen = 0;
    for (const char *p = out; *p; p++) {
        if (*p == '\r') {
            col = 0;
        } else if (*p == '\033' && p[1] == '[' && p[2] == 'K') {
            len = col;
            p += 2;
        } else if (*p == '\n') {
            memcpy(scr + slen, line, len);
            slen += len;
            scr[slen++] = '\n';
            col = len = 0;
        } else {
            line[col++] = *p;
            len = col > len ? col : len;
        }
    }
    memcpy(scr + slen, line, len);
    scr[slen + len] = 0;
    free(line);
    return scr;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* Status lines written twice in a row with no message between: the
 * reporter writes a line only when it changed ("\r<line>\033[K"; a
 * message is "\r\033[K<text>\n"). */
static int repeated_draws(const char *out)
{
    static const char prefix[] = "\rmsprobe test: ";
    int n = 0;
    const char *prev = NULL;
    size_t prev_len = 0;
    for (const char *p = out; *p;) {
        if (!strncmp(p, prefix, sizeof prefix - 1)) {
            const char *end = strstr(p, "\033[K");
            if (!end)
                break;
            size_t len = (size_t)(end - p);
            if (prev && len == prev_len && !memcmp(prev, p, len))
                n++;
            prev = p;
            prev_len = len;
            p = end + 3;
        } else {
            if (*p == '\n')
                prev = NULL;
            p++;
        }
    }
    return n;
}

static int setup(void **state)
{
    (void)state;
    log_set_prog("msprobe test");
    log_set_quiet(0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    /* a failed check left stderr captured: cmocka's report must be seen */
    if (saved_fd >= 0)
        free(capture_end());
    progress_run_end();
    log_warn_totals();
    log_set_quiet(0);
    return 0;
}

/* ---- the line -------------------------------------------------------------- */

/* `line` is `want` followed by what the time the test takes decides: the
 * rate (" | 1.2 MB/s", once half a second has gone by while bytes come)
 * and the clock (" | 0:00"). A loaded machine can spend seconds on these
 * few calls, so only their form is checked here (the rate and the clock
 * themselves: test_rate_and_file). */
static void assert_line(const char *line, const char *want)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", line);
    char *cut = strrchr(buf, '|');
    int min = -1, sec = -1, used = 0;
    if (!cut || cut == buf || cut[-1] != ' ' || sscanf(cut, "| %d:%2d%n", &min, &sec, &used) != 2 || cut[used])
        fail_msg("'%s' does not end with the clock (' | m:ss')", line);
    cut[-1] = 0;
    cut = strrchr(buf, '|');
    size_t n = strlen(buf);
    if (cut && cut > buf && cut[-1] == ' ' && n > 2 && !strcmp(buf + n - 2, "/s"))
        cut[-1] = 0;
    if (strcmp(buf, want))
        fail_msg("'%s' is not '%s' with the rate and the clock after it", line, want);
}

static void test_no_run(void **state)
{
    (void)state;
    assert_null(progress_job_begin("rank0"));
    /* library code reports unconditionally: NULL is a job that is not shown */
    progress_phase(NULL, "load", 10, PROGRESS_BYTES);
    progress_expect(NULL, 5);
    progress_add(NULL, 3);
    progress_bytes(NULL, 3);
    progress_watch_file(NULL, "/nonexistent");
    progress_job_end(NULL);
    char line[128] = "x";
    assert_int_equal(progress_line(line, sizeof line), 0);
    assert_string_equal(line, "");
    assert_false(progress_shown());
}

static void test_single_job(void **state)
{
    (void)state;
    progress_run_begin(&(progress_opts){.jobs = 1, .manual = 1, .force = 1});
    assert_true(progress_shown());
    progress_job *j = progress_job_begin("");
    assert_non_null(j);
    progress_phase(j, "load", 0, PROGRESS_BYTES);
    progress_expect(j, 1000);
    progress_expect(j, 1000);
    progress_add(j, 500);
    char line[256];
    progress_line(line, sizeof line);
    /* one job: no "done" count, no label */
    assert_line(line, "msprobe test: load 25%");
    progress_add(j, 5000);
    progress_line(line, sizeof line);
    assert_non_null(strstr(line, "load 100%"));
    /* a phase without a total shows what is done, if anything */
    progress_phase(j, "match", 0, PROGRESS_ITEMS);
    progress_line(line, sizeof line);
    assert_line(line, "msprobe test: match");
    progress_add(j, 42);
    progress_line(line, sizeof line);
    assert_line(line, "msprobe test: match 42");
    progress_job_end(j);
    progress_run_end();
}

/* Several jobs at once: one line, the job furthest behind on it. */
static void test_aggregate(void **state)
{
    (void)state;
    progress_run_begin(&(progress_opts){.jobs = 4, .manual = 1, .force = 1});
    progress_job *a = progress_job_begin("rank0"), *b = progress_job_begin("rank1"), *c = progress_job_begin("rank2");
    progress_phase(a, "load", 100, PROGRESS_BYTES);
    progress_phase(a, "tensors", 100, PROGRESS_ITEMS);
    progress_add(a, 80);
    progress_phase(b, "load", 100, PROGRESS_BYTES);
    progress_add(b, 10);
    progress_phase(c, "load", 100, PROGRESS_BYTES);
    progress_add(c, 40);
    char line[256];
    progress_line(line, sizeof line);
    assert_line(line, "msprobe test: 0/4 done | rank1 load 10%");
    /* rank1 catches up and passes rank2: still rank1 is named (ranks that
     * take turns a few percent apart would make the name flicker) */
    progress_add(b, 50);
    progress_line(line, sizeof line);
    assert_line(line, "msprobe test: 0/4 done | rank1 load 60%");
    /* until it is a whole phase ahead of another */
    progress_phase(b, "tensors", 10, PROGRESS_ITEMS);
    progress_line(line, sizeof line);
    assert_line(line, "msprobe test: 0/4 done | rank2 load 40%");
    progress_phase(c, "tensors", 10, PROGRESS_ITEMS);
    progress_add(c, 9);
    progress_add(b, 1);
    progress_line(line, sizeof line);
    assert_line(line, "msprobe test: 0/4 done | rank2 tensors 90%");
    /* ended jobs count as done and are no longer shown */
    progress_job_end(b);
    progress_job_end(c);
    progress_line(line, sizeof line);
    assert_line(line, "msprobe test: 2/4 done | rank0 tensors 80%");
    progress_job_end(a);
    progress_line(line, sizeof line);
    assert_line(line, "msprobe test: 3/4 done");
    /* every slot taken: a fifth job is not reported, and nothing breaks */
    progress_job *d = progress_job_begin("rank3");
    assert_non_null(d);
    assert_null(progress_job_begin("rank4"));
    progress_job_end(d);
    progress_run_end();
}

/* The time left, once a job has ended, at the pace jobs ended so far. */
static void test_time_left(void **state)
{
    (void)state;
    progress_run_begin(&(progress_opts){.jobs = 4, .manual = 1, .force = 1});
    progress_job *a = progress_job_begin("rank0"), *b = progress_job_begin("rank1");
    progress_phase(a, "load", 0, PROGRESS_ITEMS);
    progress_phase(b, "load", 0, PROGRESS_ITEMS);
    char line[256];
    progress_line(line, sizeof line);
    assert_null(strstr(line, "left"));
    progress_job_end(a);
    struct timespec ts = {1, 100000000};
    nanosleep(&ts, NULL);
    /* 1 of 4 in 1.1 s (more on a busy machine): 3 more take 3 times that */
    progress_line(line, sizeof line);
    int m1, s1, m2, s2, n = 0;
    assert_int_equal(sscanf(line, "msprobe test: 1/4 done | rank1 load | %d:%d, %d:%d left%n", &m1, &s1, &m2, &s2, &n), 4);
    assert_int_equal((size_t)n, strlen(line));
    int took = m1 * 60 + s1, left = m2 * 60 + s2;
    assert_true(took >= 1 && left >= 3 && left <= 3 * took + 3);
    progress_job_end(b);
    progress_run_end();
}

typedef struct {
    progress_job *job;
    int adds;
} adder;

static void *add_many(void *arg)
{
    adder *a = arg;
    for (int i = 0; i < a->adds; i++) {
        progress_add(a->job, 1);
        progress_bytes(a->job, 3);
    }
    return NULL;
}

/* Threads of two jobs add at once while the drawing thread redraws:
 * nothing is lost. */
static void test_threads(void **state)
{
    (void)state;
    capture_begin();
    progress_run_begin(&(progress_opts){.jobs = 2, .force = 1});
    progress_job *j[2] = {progress_job_begin("rank0"), progress_job_begin("rank1")};
    enum { PER_THREAD = 200000, THREADS = 4 };
    for (int k = 0; k < 2; k++)
        progress_phase(j[k], "tensors", (uint64_t)PER_THREAD * THREADS / 2, PROGRESS_ITEMS);
    pthread_t t[THREADS];
    adder a[THREADS];
    for (int i = 0; i < THREADS; i++) {
        a[i] = (adder){j[i % 2], PER_THREAD / 2};
        assert_int_equal(pthread_create(&t[i], NULL, add_many, &a[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    char line[256];
    progress_line(line, sizeof line);
    assert_non_null(strstr(line, "0/2 done | rank0 tensors 50%"));
    for (int i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_create(&t[i], NULL, add_many, &a[i]), 0);
        pthread_join(t[i], NULL);
    }
    progress_line(line, sizeof line);
    assert_non_null(strstr(line, "tensors 100%"));
    progress_run_end();
    char *out = capture_end();
    /* whatever the drawing thread drew, it was cleared at the end */
    char *scr = screen(out);
    assert_string_equal(scr, "");
    free(scr);
    free(out);
}

static void test_width(void **state)
{
    (void)state;
    char prog[200];
    memset(prog, 'p', sizeof prog - 1);
    prog[sizeof prog - 1] = 0;
    log_set_prog(prog);
    capture_begin();
    progress_run_begin(&(progress_opts){.jobs = 1, .manual = 1, .force = 1});
    progress_job *j = progress_job_begin("rank0");
    progress_phase(j, "load", 0, PROGRESS_BYTES);
    char line[512];
    /* not a terminal: 80 columns, and a line that wraps cannot be redrawn */
    assert_int_equal(progress_line(line, sizeof line), 79);
    progress_run_end();
    free(capture_end());
    log_set_prog("msprobe test");
}

static void test_rate_and_file(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    char *path = tu_write(dir, "partial.xlsx", "0123456789", 10);
    capture_begin();
    double before = seconds_now();
    progress_run_begin(&(progress_opts){.jobs = 1, .manual = 1, .force = 1});
    progress_job *j = progress_job_begin("");
    progress_phase(j, "load", 4000000, PROGRESS_BYTES);
    progress_add(j, 1000000);
    usleep(1100 * 1000);
    progress_add(j, 1000000);
    char line[256];
    progress_line(line, sizeof line);
    /* 2 MB in a little over a second (one window), shown while bytes keep
     * coming. A loaded machine may sleep longer than asked: what the line
     * says is checked against the time that really went by, at least 1.1 s
     * and at most `took` (a fixed "0:01" failed once beside another build). */
    double took = seconds_now() - before;
    double value = 0, want_lo = 2.0 / took, want_hi = 2.0 / 1.1;
    char unit = 0;
    int min = -1, sec = -1;
    const char *rate = strstr(line, "load 50% | ");
    assert_non_null(rate);
    print_message("after %.2f s: %s\n", took, rate);
    assert_int_equal(sscanf(rate, "load 50%% | %lf %cB/s | %d:%d", &value, &unit, &min, &sec), 4);
    assert_true(unit == 'M' || unit == 'k');
    double mbs = unit == 'M' ? value : value / 1000;
    /* printed with one decimal (MB/s) or none (kB/s) */
    if (mbs < want_lo - 0.051 || mbs > want_hi + 0.051)
        fail_msg("%.3f MB/s shown after %.2f s; expected %.3f to %.3f", mbs, took, want_lo, want_hi);
    assert_true(min * 60 + sec >= 1 && min * 60 + sec <= (int)took);
    progress_phase(j, "compress", 0, PROGRESS_BYTES);
    progress_watch_file(j, path);
    progress_draw();
    progress_line(line, sizeof line);
    assert_non_null(strstr(line, "compress 10 B"));
    char more[2500];
    memset(more, 'x', sizeof more);
    free(tu_write(dir, "partial.xlsx", more, sizeof more));
    progress_draw();
    progress_line(line, sizeof line);
    assert_non_null(strstr(line, "compress 2.5 kB"));
    progress_job_end(j);
    progress_run_end();
    free(capture_end());
    free(path);
    tu_rmtree(dir);
    free(dir);
}

/* ---- the line and messages --------------------------------------------- */

static void test_cleared_before_messages(void **state)
{
    (void)state;
    capture_begin();
    progress_run_begin(&(progress_opts){.jobs = 1, .manual = 1, .force = 1});
    progress_job *j = progress_job_begin("rank0");
    progress_phase(j, "tensors", 4, PROGRESS_ITEMS);
    progress_add(j, 1);
    progress_draw();
    /* an unchanged line is not written again */
    progress_draw();
    log_warn("rank0/a.pt: does not exist");
    progress_draw();
    progress_add(j, 1);
    progress_draw();
    log_error("rank0/b.pt: truncated");
    progress_draw();
    progress_run_end();
    char *out = capture_end();
    /* each drawn, then drawn again after the message: twice, or three
     * times when the clock at the end of the line turned a second in
     * between (a loaded machine); never the same line twice in a row */
    assert_in_range(count(out, "rank0 tensors 25%"), 2, 3);
    assert_in_range(count(out, "rank0 tensors 50%"), 2, 3);
    assert_int_equal(repeated_draws(out), 0);
    /* each message begins right after the line was erased */
    assert_non_null(strstr(out, "\r\033[Kmsprobe test: warning: rank0/a.pt: does not exist\n"));
    assert_non_null(strstr(out, "\r\033[Kmsprobe test: rank0/b.pt: truncated\n"));
    char *scr = screen(out);
    assert_string_equal(scr, "msprobe test: warning: rank0/a.pt: does not exist\n"
                             "msprobe test: rank0/b.pt: truncated\n");
    free(scr);
    free(out);
}

static void test_capped_warnings(void **state)
{
    (void)state;
    capture_begin();
    for (int i = 0; i < 8; i++)
        log_warn_as("tensor files missing", "t%d.pt: does not exist", i);
    log_warn_as("tensor files unreadable", "u.pt: truncated");
    log_warn_as("tensor files unreadable", "v.pt: truncated");
    assert_int_equal(log_warn_count("tensor files missing"), 8);
    log_warn_totals();
    assert_int_equal(log_warn_count("tensor files missing"), 0);
    /* the counts start afresh */
    log_warn_as("tensor files missing", "again.pt: does not exist");
    log_warn_totals();
    char *out = capture_end();
    assert_string_equal(out, "msprobe test: warning: t0.pt: does not exist\n"
                             "msprobe test: warning: t1.pt: does not exist\n"
                             "msprobe test: warning: t2.pt: does not exist\n"
                             "msprobe test: warning: t3.pt: does not exist\n"
                             "msprobe test: warning: t4.pt: does not exist\n"
                             "msprobe test: warning: u.pt: truncated\n"
                             "msprobe test: warning: v.pt: truncated\n"
                             "msprobe test: warning: ... and 3 more tensor files missing\n"
                             "msprobe test: warning: again.pt: does not exist\n");
    free(out);
}

static void test_quiet(void **state)
{
    (void)state;
    log_set_quiet(1);
    capture_begin();
    progress_run_begin(&(progress_opts){.jobs = 1, .manual = 1, .force = 1});
    assert_false(progress_shown());
    progress_job *j = progress_job_begin("");
    progress_phase(j, "load", 10, PROGRESS_BYTES);
    progress_draw();
    log_warn("plain");
    for (int i = 0; i < 7; i++)
        log_warn_as("tensor files missing", "t%d.pt", i);
    assert_int_equal(log_warn_count("tensor files missing"), 7);
    log_warn_totals();
    log_note("profile: load");
    log_info("summary");
    log_error("the error");
    progress_job_end(j);
    progress_run_end();
    char *out = capture_end();
    /* errors only */
    assert_string_equal(out, "msprobe test: the error\n");
    free(out);
}

/* Lines that libraries print with fprintf(stderr): they too clear the
 * line first; a muted thread's are dropped, other threads' are not. */
static void *print_foreign(void *arg)
{
    fprintf(stderr, "%s\n", (const char *)arg);
    return NULL;
}

static void test_foreign_stderr(void **state)
{
    (void)state;
    capture_begin();
    assert_int_equal(log_own_stderr(), 0);
    progress_run_begin(&(progress_opts){.jobs = 1, .manual = 1, .force = 1});
    progress_job *j = progress_job_begin("");
    progress_phase(j, "compress", 0, PROGRESS_BYTES);
    progress_draw();
    fprintf(stderr, "[ERROR] from a library\n");
    progress_draw();
    log_mute_thread(1);
    fprintf(stderr, "[ERROR] dropped\n");
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, print_foreign, "[WARNING] another thread"), 0);
    pthread_join(t, NULL);
    log_mute_thread(0);
    /* a partial line: the status line waits, a message starts on a new line */
    fprintf(stderr, "partial");
    assert_false(log_status("msprobe test: compress | 0:00"));
    log_warn("after a partial line");
    assert_true(log_status("msprobe test: compress | 0:00"));
    progress_run_end();
    char *out = capture_end();
    char *scr = screen(out);
    assert_string_equal(scr, "[ERROR] from a library\n"
                             "[WARNING] another thread\n"
                             "partial\n"
                             "msprobe test: warning: after a partial line\n");
    assert_null(strstr(out, "dropped"));
    free(scr);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_no_run, setup, teardown),
        cmocka_unit_test_setup_teardown(test_single_job, setup, teardown),
        cmocka_unit_test_setup_teardown(test_aggregate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_time_left, setup, teardown),
        cmocka_unit_test_setup_teardown(test_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_width, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rate_and_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cleared_before_messages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capped_warnings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_quiet, setup, teardown),
        /* last: it replaces stdio's stderr for the rest of the process */
        cmocka_unit_test_setup_teardown(test_foreign_stderr, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
