/* runstat: run a command several times; print the median, minimum and
 * maximum wall time and the peak resident memory of the command, on one
 * line that scripts can take apart:
 *
 *   median_s=0.0412 min_s=0.0398 max_s=0.0450 peak_rss_mb=38.2 cpu_s=0.0405 runs=5
 *
 * Memory is the largest ru_maxrss that wait4() reports for a run, which
 * covers the command and the children it waited for. cpu_s is the median
 * user + system time, steadier than wall time on a busy machine. The first failing run
 * stops everything: its exit status (or 128 + signal) becomes ours.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char USAGE[] =
    "usage: runstat [-n RUNS] [-w WARMUP] [-q] -- COMMAND [ARG...]\n"
    "  -n RUNS    timed runs (default 5)\n"
    "  -w WARMUP  untimed runs first, e.g. to fill the page cache (default 0)\n"
    "  -q         send the command's standard output to /dev/null\n";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, long n)
{
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One run: its wall and CPU time in *secs and *cpu, peak RSS in KiB in
 * *rss_kb. Returns the exit status, or 128 + signal number. */
static int run_once(char **cmd, int quiet, double *secs, double *cpu, long *rss_kb)
{
    fflush(stdout);
    double t0 = now();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "runstat: fork: %s\n", strerror(errno));
        exit(1);
    }
    if (pid == 0) {
        if (quiet) {
            int fd = open("/dev/null", O_WRONLY);
            if (fd >= 0 && fd != STDOUT_FILENO) {
                dup2(fd, STDOUT_FILENO);
                close(fd);
            }
        }
        execvp(cmd[0], cmd);
        fprintf(stderr, "runstat: %s: %s\n", cmd[0], strerror(errno));
        _exit(127);
    }
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "runstat: wait4: %s\n", strerror(errno));
            exit(1);
        }
    }
    *secs = now() - t0;
    *cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
    *rss_kb = ru.ru_maxrss;
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static long count_arg(const char *opt, const char *v, long lo)
{
    char *end;
    errno = 0;
    long n = v ? strtol(v, &end, 10) : -1;
    if (!v || errno || *end || n < lo || n > 100000) {
        fprintf(stderr, "runstat: %s needs a whole number from %ld\n%s", opt, lo, USAGE);
        exit(2);
    }
    return n;
}

int main(int argc, char **argv)
{
    long runs = 5, warmup = 0;
    int quiet = 0, i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (!strcmp(argv[i], "-n"))
            runs = count_arg("-n", argv[++i], 1);
        else if (!strcmp(argv[i], "-w"))
            warmup = count_arg("-w", argv[++i], 0);
        else if (!strcmp(argv[i], "-q"))
            quiet = 1;
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(USAGE, stdout);
            return 0;
        } else {
            fprintf(stderr, "runstat: unknown option '%s'\n%s", argv[i], USAGE);
            return 2;
        }
    }
    if (i >= argc - 1) {
        fprintf(stderr, "runstat: no command after --\n%s", USAGE);
        return 2;
    }
    char **cmd = argv + i + 1;
    double *t = malloc(2 * (size_t)runs * sizeof *t), *c = t + runs;
    if (!t) {
        fprintf(stderr, "runstat: out of memory\n");
        return 1;
    }
    long peak = 0;
    for (long r = -warmup; r < runs; r++) {
        double secs, cpu;
        long rss;
        int st = run_once(cmd, quiet, &secs, &cpu, &rss);
        if (st != 0) {
            fprintf(stderr, "runstat: %s run %ld of %ld failed: exit status %d\n", r < 0 ? "warm-up" : "timed",
                    r < 0 ? r + warmup + 1 : r + 1, r < 0 ? warmup : runs, st);
            free(t);
            return st;
        }
        if (r >= 0) {
            t[r] = secs;
            c[r] = cpu;
            if (rss > peak)
                peak = rss;
        }
    }
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    qsort(c, (size_t)runs, sizeof *c, cmp_double);
    printf("median_s=%.4f min_s=%.4f max_s=%.4f peak_rss_mb=%.1f cpu_s=%.4f runs=%ld\n", median(t, runs), t[0],
           t[runs - 1], (double)peak / 1024.0, median(c, runs), runs);
    free(t);
    return 0;
}
