/* Throughput of metrics_compare (the six ALL-mode metrics in one pass).
 *
 * usage: bench_metrics [-n MELEMS | -k KELEMS] [-r ROUNDS] [-d DIR] [-t DTYPE] [-s SIMD] [-j THREADS] [--scalar]
 *
 * Builds NPU/bench pairs of float32, bfloat16, float16 and float64 tensors of
 * MELEMS million elements (default 64) in memory and times metrics_compare
 * on one thread, best of ROUNDS (default 5).  With -d, the float32 pair is
 * also saved as .npy and the bfloat16 pair as .pt in DIR and timed
 * through tensor_load (page-cached after the first round), load + compare
 * + free per round.  -t restricts the in-memory runs to one dtype (float32,
 * bfloat16, float16, float64).  -k sizes the tensors in thousands of
 * elements instead (KELEMS * 1024; small ones stay in the CPU's caches);
 * -s picks the instruction set (sse2/neon, avx2, avx512; default: the best
 * the CPU runs); -j splits each tensor across THREADS threads (pieces of
 * 2^22 elements; the figure is then per process, not per core).  Reported: GB/s of tensor data (both tensors) per core,
 * and the instruction set used.
 */
#include "base/log.h"
#include "base/err.h"
#include "base/mem.h"
#include "pt_write.h"
#include "npy_write.h"
#include "format/tensor_file.h"
#include "model/metrics.h"
#include "model/metrics_kern.h"
#include "format/npy.h"
#include "format/pt.h"
#include "format/tensor.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng_state = 0x243F6A8885A308D3ull;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Roughly normal activations (sum of uniforms) and a bench that differs by
 * a relative error up to ~1e-3, with a few exact zeros. */
static void make_values(size_t n, double *x, double *y)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng_next();
        double v = ((double)(r & 0xffff) + (double)((r >> 16) & 0xffff) + (double)((r >> 32) & 0xffff)) / 65536.0 - 1.5;
        double noise = ((double)(r >> 54) - 512.0) / 512.0 * 1e-3;
        if ((r & 0x3ff00000000000ull) == 0)
            v = 0;
        x[i] = v;
        y[i] = v * (1 + noise);
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void mem_tensor(tensor *t, dtype_id dt, size_t n, void *data)
{
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    int64_t shape = (int64_t)n;
    if (tensor_set_shape(t, "mem", 1, &shape, 0) != 0)
        exit(err_report());
    t->storage = data;
    t->storage_size = n * dtype_size(dt);
    if (tensor_check_view(t, "mem") != 0)
        exit(err_report());
}

static void *convert(dtype_id dt, size_t n, const double *v)
{
    void *out = xmalloc_array(n, dtype_size(dt));
    for (size_t i = 0; i < n; i++) {
        switch (dt) {
        case DT_F32: ((float *)out)[i] = (float)v[i]; break;
        case DT_BF16: ((uint16_t *)out)[i] = f32_to_bf16((float)v[i]); break;
        case DT_F16: ((uint16_t *)out)[i] = f32_to_f16((float)v[i]); break;
        default: ((double *)out)[i] = v[i]; break;
        }
    }
    return out;
}

static void report(const char *what, size_t bytes, double best, const tensor_metrics *m)
{
    printf("%-28s %8.1f MB  %7.3f s  %6.2f GB/s per core   cos=%.12g maxabs=%.12g 1/1000=%.6g\n", what,
           (double)bytes / 1e6, best, (double)bytes / best / 1e9, m->value[MET_COSINE], m->value[MET_MAXABS],
           m->value[MET_ONE_THOUSANDTH]);
}

static void bench_mem(dtype_id dt, size_t n, const double *x, const double *y, int rounds, unsigned flags)
{
    void *dx = convert(dt, n, x), *dy = convert(dt, n, y);
    tensor a, b;
    mem_tensor(&a, dt, n, dx);
    mem_tensor(&b, dt, n, dy);
    tensor_metrics m;
    double best = 1e30;
    for (int r = 0; r < rounds; r++) {
        double t0 = now();
        if (metrics_compare(&a, &b, flags, &m) != 0)
            exit(err_report());
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    char what[64];
    int level = METRICS_SIMD_OF(flags) ? (int)METRICS_SIMD_OF(flags) : simd_best();
    snprintf(what, sizeof what, "%s in memory (%s)", dtype_name(dt), flags & METRICS_SCALAR ? "scalar" : simd_name(level));
    report(what, 2 * n * dtype_size(dt), best, &m);
    free(dx);
    free(dy);
}

static void bench_files(dtype_id dt, const char *dir, size_t n, const double *x, const double *y, int rounds,
                        unsigned flags)
{
    const char *ext = dt == DT_BF16 ? "pt" : "npy";
    char pa[4096], pb[4096];
    snprintf(pa, sizeof pa, "%s/bench_npu_%s.%s", dir, dtype_name(dt), ext);
    snprintf(pb, sizeof pb, "%s/bench_gpu_%s.%s", dir, dtype_name(dt), ext);
    void *dx = convert(dt, n, x), *dy = convert(dt, n, y);
    int64_t shape[2] = {(int64_t)(n / 1024), 1024};
    int rc = dt == DT_BF16 ? pt_save(pa, dt, 2, shape, dx) | pt_save(pb, dt, 2, shape, dy)
                           : npy_save(pa, dt, 2, shape, dx) | npy_save(pb, dt, 2, shape, dy);
    free(dx);
    free(dy);
    if (rc != 0)
        exit(err_report());
    tensor_metrics m;
    double best = 1e30;
    for (int r = 0; r < rounds; r++) {
        double t0 = now();
        tensor a, b;
        if (tensor_load(pa, &a) != 0 || tensor_load(pb, &b) != 0 || metrics_compare(&a, &b, flags, &m) != 0)
            exit(err_report());
        tensor_free(&a);
        tensor_free(&b);
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    char what[64];
    snprintf(what, sizeof what, "%s .%s files (cached)", dtype_name(dt), ext);
    report(what, 2 * (n / 1024 * 1024) * dtype_size(dt), best, &m);
    remove(pa);
    remove(pb);
}

int main(int argc, char **argv)
{
    size_t melems = 64, kelems = 0;
    int rounds = 5;
    const char *dir = NULL, *only = NULL;
    unsigned flags = 0;
    log_set_prog("bench_metrics");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc)
            melems = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "-j") && i + 1 < argc) {
            int threads = atoi(argv[++i]);
            flags |= METRICS_THREADS(threads);
        } else if (!strcmp(argv[i], "-k") && i + 1 < argc)
            kelems = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
            const char *name = argv[++i];
            int level = 0;
            for (int l = SIMD_PORTABLE; l < SIMD_COUNT; l++)
                if (!strcmp(name, simd_name(l)))
                    level = l;
            if (!level || !simd_available(level)) {
                fprintf(stderr, "bench_metrics: instruction set %s is not available here\n", name);
                return 2;
            }
            flags |= METRICS_SIMD(level);
        } else if (!strcmp(argv[i], "-r") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-d") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "-t") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--scalar"))
            flags |= METRICS_SCALAR;
        else {
            fprintf(stderr, "usage: bench_metrics [-n MELEMS | -k KELEMS] [-r ROUNDS] [-d DIR] [-t DTYPE] [-s SIMD] "
                            "[-j THREADS] [--scalar]\n");
            return 2;
        }
    }
    if (melems < 1 || rounds < 1) {
        fprintf(stderr, "bench_metrics: -n and -r must be positive\n");
        return 2;
    }
    size_t n = kelems ? kelems << 10 : melems << 20;
    double *x = xmalloc_array(n, sizeof *x), *y = xmalloc_array(n, sizeof *y);
    make_values(n, x, y);
    static const dtype_id types[] = {DT_F32, DT_BF16, DT_F16, DT_F64};
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
        if (!only || !strcmp(only, dtype_name(types[k])))
            bench_mem(types[k], n, x, y, rounds, flags);
    if (dir) {
        bench_files(DT_F32, dir, n, x, y, rounds, flags);
        bench_files(DT_BF16, dir, n, x, y, rounds, flags);
    }
    free(x);
    free(y);
    return 0;
}
