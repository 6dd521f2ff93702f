/* Micro-benchmark of lib/numfmt against glibc on compare-like data.
 *
 * usage: bench_numfmt [count]   (default 300000 values, best of 9 rounds)
 *
 * The values mimic what a compare prints and reads: statistics of float32
 * tensors (float32-rounded, magnitudes 1e-8..1e4), full-precision doubles,
 * small integers and short decimals like 0.125 or 1e-05.
 */
#include "py/numfmt.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ROUNDS = 9, TEXT_STRIDE = 32 };

static uint64_t rng_state = 0x5DEECE66Dull;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double rng_unit(void)
{
    return (double)(rng_next() >> 11) / 9007199254740992.0;
}

static double sample(size_t i)
{
    double mag = pow(10.0, rng_unit() * 12.0 - 8.0);
    double sign = (rng_next() & 1) ? -1.0 : 1.0;
    switch (i % 8) {
    case 0: case 1: case 2:
        return sign * (double)(float)(mag * rng_unit());
    case 3: case 4:
        return sign * mag * rng_unit();
    case 5:
        return (double)(int64_t)(rng_next() % 2001) - 1000.0;
    case 6:
        return (double)(rng_next() % 1000) / pow(10.0, (double)(rng_next() % 7));
    default:
        return sign * 1e-5 * (double)(rng_next() % 100);
    }
}

/* CPU time of this thread: the best round then ignores preemption by other
 * processes on a busy machine. */
static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static volatile size_t sink;

typedef size_t (*fmt_fn)(double, char *);

static size_t glibc_g16(double x, char *buf)
{
    return (size_t)snprintf(buf, NUMFMT_BUFSZ, "%.16g", x);
}

static size_t glibc_g17(double x, char *buf)
{
    return (size_t)snprintf(buf, NUMFMT_BUFSZ, "%.17g", x);
}

static double time_fmt(fmt_fn f, const double *v, size_t n)
{
    char buf[NUMFMT_BUFSZ];
    double best = INFINITY;
    for (int r = 0; r < ROUNDS; r++) {
        size_t acc = 0;
        double t0 = now_ns();
        for (size_t i = 0; i < n; i++)
            acc += f(v[i], buf) + (size_t)buf[0];
        double t = (now_ns() - t0) / (double)n;
        sink = acc;
        if (t < best)
            best = t;
    }
    return best;
}

static double time_parse(int use_strtod, const char *text, const size_t *len, size_t n)
{
    double best = INFINITY;
    for (int r = 0; r < ROUNDS; r++) {
        double acc = 0;
        double t0 = now_ns();
        for (size_t i = 0; i < n; i++) {
            const char *s = text + i * TEXT_STRIDE;
            acc += use_strtod ? strtod(s, NULL) : parse_double(s, len[i]);
        }
        double t = (now_ns() - t0) / (double)n;
        sink = (size_t)(acc != 0);
        if (t < best)
            best = t;
    }
    return best;
}

/* Formats every value with f into fixed-stride slots for the parse runs. */
static void make_text(fmt_fn f, const double *v, size_t n, char *text, size_t *len)
{
    for (size_t i = 0; i < n; i++)
        len[i] = f(v[i], text + i * TEXT_STRIDE);
}

static void report(const char *what, double mine, const char *base, double theirs)
{
    printf("%-34s %7.1f ns/op   %-22s %7.1f ns/op   x%.1f\n", what, mine, base, theirs,
           theirs / mine);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 300000;
    if (n == 0)
        n = 1;
    double *v = malloc(n * sizeof *v);
    char *text = malloc(n * TEXT_STRIDE);
    size_t *len = malloc(n * sizeof *len);
    if (!v || !text || !len)
        return 1;
    for (size_t i = 0; i < n; i++)
        v[i] = sample(i);

    printf("%zu compare-like values, best of %d rounds (thread CPU time)\n", n, ROUNDS);
    report("fmt_g16", time_fmt(fmt_g16, v, n), "snprintf %.16g", time_fmt(glibc_g16, v, n));
    report("fmt_pyrepr", time_fmt(fmt_pyrepr, v, n), "snprintf %.17g", time_fmt(glibc_g17, v, n));
    make_text(fmt_pyrepr, v, n, text, len);
    report("parse_double (repr text)", time_parse(0, text, len, n), "strtod",
           time_parse(1, text, len, n));
    make_text(glibc_g16, v, n, text, len);
    report("parse_double (%.16g text)", time_parse(0, text, len, n), "strtod",
           time_parse(1, text, len, n));
    for (size_t i = 0; i < n; i++)
        v[i] = (double)(float)(rng_unit() * 4.0 - 2.0) + rng_unit() * 1e-9;
    make_text(glibc_g17, v, n, text, len);
    report("parse_double (17 digits, ~1)", time_parse(0, text, len, n), "strtod",
           time_parse(1, text, len, n));
    free(v);
    free(text);
    free(len);
    return 0;
}
