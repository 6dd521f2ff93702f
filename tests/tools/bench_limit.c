/* The machine's limit for a tensor compare, measured on the compare's own
 * files: every pair of tensor files (the same name in both dump_tensor_data
 * directories) mapped page-cached, and the dot product and both squared
 * norms summed in double by a plain vector loop (float32 and bfloat16 read
 * in place, float16 widened; sixteen double lanes) -- the least any compare
 * must do: read every byte once and touch it with the vector units. No
 * relative error, no maxima, no checks.
 *
 * usage: bench_limit [-j THREADS] [-r ROUNDS] TARGET_TENSOR_DIR BENCH_TENSOR_DIR
 *
 * Prints "limit_gbs=G median_s=S bytes=B files=N threads=T": both sides'
 * file bytes per second of wall time, median of ROUNDS (default 5) after
 * one warm-up round. THREADS (default 1) take the pairs in turn, as the
 * compare's threads do.
 */
#include "base/err.h"
#include "base/files.h"
#include "base/mem.h"
#include "base/pool.h"
#include "format/tensor.h"
#include "format/tensor_file.h"

#include <dirent.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#pragma GCC diagnostic ignored "-Wpsabi"

typedef double v8d __attribute__((vector_size(64)));
typedef float v8f __attribute__((vector_size(32)));
typedef uint16_t v8h __attribute__((vector_size(16)));
typedef int32_t v8i __attribute__((vector_size(32)));

typedef struct {
    double dot, nn, bb;
} sums;

/* Eight elements of float32 / bfloat16 / float16 storage as doubles, into
 * *out (not returned: a function returning a 64-byte vector has no ABI the
 * baseline target knows, and clang refuses it). */
static inline __attribute__((always_inline)) void load8(v8d *out, const unsigned char *p, int dt)
{
    if (dt == DT_F32) {
        v8f f;
        memcpy(&f, p, sizeof f);
        *out = __builtin_convertvector(f, v8d);
        return;
    }
    v8h h;
    memcpy(&h, p, sizeof h);
    v8i w = __builtin_convertvector(h, v8i);
    if (dt == DT_BF16) {
        *out = __builtin_convertvector((v8f)(w << 16), v8d);
        return;
    }
    /* float16: normal numbers only need the exponent rebias; this is a
     * bandwidth probe, not a converter */
    v8i f = ((w & 0x8000) << 16) | (((w & 0x7fff) << 13) + ((127 - 15) << 23));
    *out = __builtin_convertvector((v8f)f, v8d);
}

/* Two accumulators per sum (the additions' latency would bound the loop
 * otherwise) and a software prefetch 2 KB ahead, as the metrics kernel has
 * (the hardware's stops at page boundaries). */
#define DOT_LOOP(dx, dy)                                                                                     \
    {                                                                                                        \
        v8d d0 = {0}, d1 = {0}, x0 = {0}, x1 = {0}, y0 = {0}, y1 = {0};                                      \
        size_t ex = dtype_size(dx), ey = dtype_size(dy);                                                     \
        for (; i + 16 <= n; i += 16) {                                                                       \
            __builtin_prefetch(px + ex * i + 2048);                                                          \
            __builtin_prefetch(py + ey * i + 2048);                                                          \
            v8d a, b, c, e;                                                                                  \
            load8(&a, px + ex * i, dx);                                                                      \
            load8(&b, py + ey * i, dy);                                                                      \
            load8(&c, px + ex * (i + 8), dx);                                                                \
            load8(&e, py + ey * (i + 8), dy);                                                                \
            d0 += a * b;                                                                                     \
            x0 += a * a;                                                                                     \
            y0 += b * b;                                                                                     \
            d1 += c * e;                                                                                     \
            x1 += c * c;                                                                                     \
            y1 += e * e;                                                                                     \
        }                                                                                                    \
        d = d0 + d1;                                                                                         \
        x2 = x0 + x1;                                                                                        \
        y2 = y0 + y1;                                                                                        \
    }

/* One loop per pair of storage formats (dtype known at compile time). */
#define DOT_BODY                                                                                             \
    v8d d = {0}, x2 = {0}, y2 = {0};                                                                         \
    size_t i = 0;                                                                                            \
    if (dx == DT_F32 && dy == DT_F32)                                                                        \
        DOT_LOOP(DT_F32, DT_F32)                                                                             \
    else if (dx == DT_BF16 && dy == DT_BF16)                                                                 \
        DOT_LOOP(DT_BF16, DT_BF16)                                                                           \
    else if (dx == DT_BF16 && dy == DT_F32)                                                                  \
        DOT_LOOP(DT_BF16, DT_F32)                                                                            \
    else if (dx == DT_F32 && dy == DT_BF16)                                                                  \
        DOT_LOOP(DT_F32, DT_BF16)                                                                            \
    else                                                                                                     \
        DOT_LOOP(dx, dy)                                                                                     \
    sums s = {0, 0, 0};                                                                                      \
    for (int k = 0; k < 8; k++) {                                                                            \
        s.dot += d[k];                                                                                       \
        s.nn += x2[k];                                                                                       \
        s.bb += y2[k];                                                                                       \
    }                                                                                                        \
    return s;

#if defined(__x86_64__)
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma"))) static sums
dot_avx512(const unsigned char *px, int dx, const unsigned char *py, int dy, size_t n)
{
    DOT_BODY
}
__attribute__((target("avx2,fma"))) static sums dot_avx2(const unsigned char *px, int dx, const unsigned char *py,
                                                          int dy, size_t n)
{
    DOT_BODY
}
#endif
static sums dot_base(const unsigned char *px, int dx, const unsigned char *py, int dy, size_t n) { DOT_BODY }

typedef sums dot_fn(const unsigned char *, int, const unsigned char *, int, size_t);
static dot_fn *dot = dot_base;

typedef struct {
    char **a, **b;
    size_t n;
    atomic_size_t bytes;
    _Atomic double sink;
} job;

static int one_pair(void *arg, size_t i)
{
    job *j = arg;
    tensor ta, tb;
    if (tensor_load(j->a[i], &ta) != 0)
        return 0; /* not a tensor file: not part of the compare either */
    if (tensor_load(j->b[i], &tb) != 0) {
        tensor_free(&ta);
        return 0;
    }
    const unsigned char *pa = tensor_contiguous_data(&ta), *pb = tensor_contiguous_data(&tb);
    int ok = pa && pb && ta.numel == tb.numel && !ta.byteswap && !tb.byteswap &&
             (ta.dtype == DT_F32 || ta.dtype == DT_BF16 || ta.dtype == DT_F16) &&
             (tb.dtype == DT_F32 || tb.dtype == DT_BF16 || tb.dtype == DT_F16);
    if (ok) {
        sums s = dot(pa, ta.dtype, pb, tb.dtype, ta.numel);
        j->sink = s.dot + s.nn + s.bb;
    }
    atomic_fetch_add(&j->bytes, ta.map.size + tb.map.size);
    tensor_free(&ta);
    tensor_free(&tb);
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static int cmp_str(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

int main(int argc, char **argv)
{
    int threads = 1, rounds = 5, argi = 1;
    for (; argi + 1 < argc && argv[argi][0] == '-'; argi += 2) {
        if (!strcmp(argv[argi], "-j"))
            threads = atoi(argv[argi + 1]);
        else if (!strcmp(argv[argi], "-r"))
            rounds = atoi(argv[argi + 1]);
        else
            break;
    }
    if (argc - argi != 2 || threads < 1 || rounds < 1) {
        fprintf(stderr, "usage: bench_limit [-j THREADS] [-r ROUNDS] TARGET_TENSOR_DIR BENCH_TENSOR_DIR\n");
        return 2;
    }
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
        dot = dot_avx512;
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        dot = dot_avx2;
#endif
    const char *da = argv[argi], *db = argv[argi + 1];
    DIR *d = opendir(da);
    if (!d) {
        fprintf(stderr, "bench_limit: cannot open %s\n", da);
        return 2;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        GROW(names, cap, n + 1);
        names[n++] = xstrdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str); /* the dump's order is by name too */
    job j = {.a = xcalloc(n ? n : 1, sizeof(char *)), .b = xcalloc(n ? n : 1, sizeof(char *)), .n = n};
    for (size_t i = 0; i < n; i++) {
        j.a[i] = path_join(da, names[i]);
        j.b[i] = path_join(db, names[i]);
    }
    double *times = xcalloc((size_t)rounds, sizeof *times);
    size_t bytes = 0;
    for (int r = -1; r < rounds; r++) {
        atomic_store(&j.bytes, 0);
        double t0 = now();
        pool_run(n, threads, one_pair, &j, NULL);
        double t = now() - t0;
        bytes = atomic_load(&j.bytes);
        if (r >= 0)
            times[r] = t;
    }
    qsort(times, (size_t)rounds, sizeof *times, cmp_double);
    double med = rounds % 2 ? times[rounds / 2] : (times[rounds / 2 - 1] + times[rounds / 2]) / 2;
    printf("limit_gbs=%.2f median_s=%.4f bytes=%zu files=%zu threads=%d\n", (double)bytes / 1e9 / med, med, bytes,
           2 * n, threads);
    for (size_t i = 0; i < n; i++) {
        free(j.a[i]);
        free(j.b[i]);
        free(names[i]);
    }
    free(j.a);
    free(j.b);
    free(names);
    free(times);
    return 0;
}
