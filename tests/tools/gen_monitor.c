/* gen_monitor: writes a training-monitor output tree the way msprobe's
 * TrainerMon (format csv) writes it, for benchmarks:
 *
 *   OUT/Nov25_01-23-20-rank{R}-0000abcd/{type}_{a}-{b}.csv
 *
 * for the 8 data types csv2tensorboard takes (actv, actv_grad, exp_avg,
 * exp_avg_sq, grad_unreduced, grad_reduced, param_origin, param_updated),
 * shaped like a Megatron-core GPT model with --layers transformer layers:
 * parameters named as TrainerMon's squash_name leaves them
 * ("0:3.self_attention.linear_qkv.weight"), activations of every module's
 * input and output per micro step, named by the module's path
 * ("0:module.decoder.layers.3.mlp.linear_fc1.output:1"), the
 * header vpp_stage,name,step[,micro_step],min,max,norm,zeros,nans,mean,
 * shape,dtype and values as Python prints round(x, 6). --steps steps in
 * files of --window steps. Ranks are written on all cores.
 *
 *   gen_monitor --out DIR [--ranks 64] [--layers 24] [--steps 100] [--window 50] [--micro 2] [--seed 1]
 *               [--unique 1] [--anomaly BYTES]
 *
 * --unique 1 names every activation row apart (":<step>" after the name,
 * as a monitor hooked on a module called anew each step names them): as
 * many series as rows, the case where a converter's memory follows the
 * series. --anomaly BYTES writes, instead of csv files, the monitor's
 * anomaly_detected/rank{R}/anomaly.json (json.dump(indent=1) of
 * GradAnomalyData records, as AnomalyDataWriter writes them), about BYTES
 * of them over all ranks.
 *
 * Prints the total size of the files on its last line:
 * "gen_monitor: N files, B bytes, R rows" (rows: records with --anomaly). */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const TYPES[] = {"actv",           "actv_grad",    "exp_avg",      "exp_avg_sq",
                                    "grad_unreduced", "grad_reduced", "param_origin", "param_updated"};
enum { NTYPES = 8 };

static const char *const PARAMS[] = {
    "input_layernorm.weight",        "input_layernorm.bias",          "self_attention.linear_qkv.weight",
    "self_attention.linear_qkv.bias", "self_attention.linear_proj.weight", "self_attention.linear_proj.bias",
    "pre_mlp_layernorm.weight",      "pre_mlp_layernorm.bias",        "mlp.linear_fc1.weight",
    "mlp.linear_fc1.bias",           "mlp.linear_fc2.weight",         "mlp.linear_fc2.bias"};
static const char *const PSHAPES[] = {"[4096]", "[4096]", "\"[12288, 4096]\"", "[12288]", "\"[4096, 4096]\"", "[4096]",
                                      "[4096]", "[4096]", "\"[16384, 4096]\"", "[16384]", "\"[4096, 16384]\"", "[4096]"};
static const char *const MODULES[] = {"input_layernorm", "self_attention.core_attention", "self_attention.linear_qkv",
                                      "self_attention.linear_proj", "pre_mlp_layernorm", "mlp.linear_fc1",
                                      "mlp.linear_fc2", "mlp"};
enum { NPARAMS = 12, NMODULES = 8 };

static const char *out_dir;
static int ranks = 64, layers = 24, steps = 100, window = 50, micro = 2;
static unsigned seed = 1;
static int unique_names;
static long long anomaly_bytes;
static uint64_t total_bytes, total_files, total_rows;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int next_rank;

typedef struct {
    uint64_t s;
} rng;

static uint64_t rnd(rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s;
}

/* repr(round(x, 6)) for a value of the given magnitude */
static int put_value(char *p, rng *r, double scale)
{
    double x = ((double)(rnd(r) % 2000001) / 1000000.0 - 1.0) * scale;
    long long micro_units = (long long)(x * 1e6 + (x < 0 ? -0.5 : 0.5));
    if (micro_units == 0)
        return sprintf(p, "0.0");
    /* below 1e-4 Python switches to exponent notation */
    long long u = llabs(micro_units);
    const char *sign = micro_units < 0 ? "-" : "";
    if (u < 10)
        return sprintf(p, "%s%llde-06", sign, u);
    if (u < 100)
        return u % 10 ? sprintf(p, "%s%lld.%llde-05", sign, u / 10, u % 10) : sprintf(p, "%s%llde-05", sign, u / 10);
    int n = sprintf(p, "%.6f", (double)micro_units / 1e6);
    while (n > 2 && p[n - 1] == '0' && p[n - 2] != '.')
        n--;
    p[n] = 0;
    return n;
}

static int write_file(const char *dir, int type, int a, int b, rng *r, uint64_t *bytes, uint64_t *rows)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s_%d-%d.csv", dir, TYPES[type], a, b);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    int is_actv = type <= 1;
    fprintf(f, "vpp_stage,name,step%s,min,max,norm,zeros,nans,mean,shape,dtype\n", is_actv ? ",micro_step" : "");
    char line[512];
    for (int step = a; step <= b && step < steps; step++) {
        if ((type == 2 || type == 3) && step == 0)
            continue;   /* no Adam state before the first step */
        int nm = is_actv ? micro : 1;
        for (int m = 0; m < nm; m++)
            for (int l = 0; l < layers; l++) {
                int n = is_actv ? NMODULES * 2 : NPARAMS;
                for (int k = 0; k < n; k++) {
                    int len;
                    if (is_actv && unique_names)
                        len = sprintf(line, "0,module.decoder.layers.%d.%s.%s:%d,%d,%d,", l, MODULES[k / 2],
                                      k & 1 ? "output" : "input", step, step, m);
                    else if (is_actv)
                        len = sprintf(line, "0,module.decoder.layers.%d.%s.%s,%d,%d,", l, MODULES[k / 2],
                                      k & 1 ? "output" : "input", step,
                                      m);
                    else
                        len = sprintf(line, "0,%d.%s,%d,", l, PARAMS[k], step);
                    double scale = type == 3 ? 1e-4 : type >= 4 && type <= 5 ? 1e-2 : 1.0;
                    len += put_value(line + len, r, scale);
                    line[len++] = ',';
                    len += put_value(line + len, r, scale);
                    line[len++] = ',';
                    len += put_value(line + len, r, scale * 100);
                    len += sprintf(line + len, ",0.0,0,");
                    len += put_value(line + len, r, scale * 0.01);
                    len += sprintf(line + len, ",%s,torch.bfloat16\n",
                                   is_actv ? "\"[4096, 1, 4096]\"" : PSHAPES[k]);
                    fwrite(line, 1, (size_t)len, f);
                    ++*rows;
                }
            }
    }
    long size = ftell(f);
    if (fclose(f) != 0)
        return -1;
    *bytes += (uint64_t)size;
    return 0;
}

/* One rank's anomaly.json of about `size` bytes. */
static int write_anomalies(const char *dir, int rank, long long size, rng *r, uint64_t *bytes, uint64_t *rows)
{
    static const char *const kinds[] = {"input_grad", "actv", "actv_grad", "exp_avg", "output"};
    char path[4200];
    snprintf(path, sizeof path, "%s/anomaly.json", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    fputs("{", f);
    for (long long i = 0; ftell(f) < size; i++) {
        char tag[160], v[32], mean[32];
        snprintf(tag, sizeof tag, "0:%lld.self_attention.core_attention_flash_%lld/rank%d/%s", i % layers, i % 7, rank,
                 kinds[rnd(r) % 5]);
        long long step = i / 200;
        put_value(v, r, 10.0);
        put_value(mean, r, 1.0);
        fprintf(f, "%s\n \"%s_step_%lld_call_%lld\": {\n  \"rank\": %d,\n  \"step\": %lld,\n  \"micro_step\": %lld,\n"
                   "  \"pp_stage\": 0,\n  \"vpp_stage\": 0,\n  \"call_id\": %lld,\n  \"tag_name\": \"%s\",\n"
                   "  \"message\": \"Rule AnomalyTurbulence reports anomaly signal in ('%s', 'min') at step %lld, current "
                   "value %s, history mean %s.\",\n  \"group_mates\": [\n   0,\n   1\n  ]\n }",
                i ? "," : "", tag, step, i, rank, step, i % 4, i, tag, tag, step, v, mean);
        ++*rows;
    }
    fputs("\n}", f);
    long end = ftell(f);
    if (fclose(f) != 0)
        return -1;
    *bytes += (uint64_t)end;
    return 0;
}

static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&lock);
        int rank = next_rank++;
        pthread_mutex_unlock(&lock);
        if (rank >= ranks)
            return NULL;
        char dir[4000];
        if (anomaly_bytes)
            snprintf(dir, sizeof dir, "%.3900s/anomaly_detected/rank%d", out_dir, rank);
        else
            snprintf(dir, sizeof dir, "%.3900s/Nov25_01-23-20-rank%d-%08x", out_dir, rank, 0xabcd0000u + (unsigned)rank);
        if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
            perror(dir);
            exit(1);
        }
        rng r = {seed * 0x9E3779B97F4A7C15ULL + (uint64_t)rank * 7919 + 1};
        uint64_t bytes = 0, files = 0, rows = 0;
        if (anomaly_bytes) {
            if (write_anomalies(dir, rank, anomaly_bytes / ranks, &r, &bytes, &rows) != 0) {
                perror(dir);
                exit(1);
            }
            files = 1;
        }
        for (int t = 0; t < NTYPES && !anomaly_bytes; t++)
            for (int a = 0; a < steps; a += window) {
                if (write_file(dir, t, a, a + window - 1, &r, &bytes, &rows) != 0) {
                    perror(dir);
                    exit(1);
                }
                files++;
            }
        pthread_mutex_lock(&lock);
        total_bytes += bytes;
        total_files += files;
        total_rows += rows;
        pthread_mutex_unlock(&lock);
    }
}

int main(int argc, char **argv)
{
    /* options and their values in pairs */
    for (int i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "gen_monitor: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--out"))
            out_dir = v;
        else if (!strcmp(a, "--ranks"))
            ranks = atoi(v);
        else if (!strcmp(a, "--layers"))
            layers = atoi(v);
        else if (!strcmp(a, "--steps"))
            steps = atoi(v);
        else if (!strcmp(a, "--window"))
            window = atoi(v);
        else if (!strcmp(a, "--micro"))
            micro = atoi(v);
        else if (!strcmp(a, "--seed"))
            seed = (unsigned)atoi(v);
        else if (!strcmp(a, "--unique"))
            unique_names = atoi(v);
        else if (!strcmp(a, "--anomaly"))
            anomaly_bytes = atoll(v);
        else {
            fprintf(stderr, "gen_monitor: unknown option %s\n", a);
            return 2;
        }
    }
    if (!out_dir || ranks < 1 || layers < 1 || steps < 1 || window < 1 || micro < 1) {
        fprintf(stderr, "usage: gen_monitor --out DIR [--ranks N] [--layers N] [--steps N] [--window N] [--micro N] "
                        "[--unique 1] [--anomaly BYTES]\n");
        return 2;
    }
    if (mkdir(out_dir, 0755) != 0 && errno != EEXIST) {
        perror(out_dir);
        return 1;
    }
    if (anomaly_bytes) {
        char dir[4000];
        snprintf(dir, sizeof dir, "%.3900s/anomaly_detected", out_dir);
        if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
            perror(dir);
            return 1;
        }
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = cpus > 0 ? (int)cpus : 1;
    pthread_t tid[256];
    if (nt > 256)
        nt = 256;
    for (int i = 0; i < nt; i++)
        pthread_create(&tid[i], NULL, worker, NULL);
    for (int i = 0; i < nt; i++)
        pthread_join(tid[i], NULL);
    printf("gen_monitor: %llu files, %llu bytes, %llu rows\n", (unsigned long long)total_files,
           (unsigned long long)total_bytes, (unsigned long long)total_rows);
    return 0;
}
