/* gen_dump: writes a pair of msprobe 8.1.0 PyTorch dump trees (task
 * "statistics" or "tensor", level "mix") shaped like one training step of a
 * Megatron GPT model, for benchmarks: TARGET (the "NPU" run) and BENCH.
 *
 *   OUT/{target,bench}/step{S}/rank{R}/{dump.json,stack.json,construct.json}
 *   OUT/{target,bench}/step{S}/rank{R}/dump_tensor_data/    (--mode tensor)
 *
 * The bytes follow what msprobe's json.dump(..., indent=1) writes: key
 * order, NaN/Infinity tokens, Python float repr, the de-duplicated
 * stack.json and the construct.json parent map. Both sides are produced by
 * the same deterministic walk over the model; the target's statistics are
 * the bench's with a small drift, a few much larger errors, optional
 * NaN/inf, and optionally a hand-written GELU that shifts call counters.
 * In tensor mode every tensor leaf also gets its file (gen_data.h) and its
 * statistics are those of the file's elements; the model is then narrow
 * (hidden 128) so that sizes follow --tensor-scale.
 * Each (side, step, rank) is a separate job, so jobs run on all cores.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "base/arena.h"
#include "base/files.h"
#include "base/log.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/strbuf.h"

#include "gen_model.h"
#include "gen_json.h"
#include "gen_data.h"
#include "gen_walk.h"

static const char USAGE[] =
    "usage: gen_dump --out DIR [--entries N] [--layers L] [--ranks R] [--steps S]\n"
    "                [--mode statistics|md5|tensor] [--format pt|npy] [--tensor-scale K]\n"
    "                [--seed K] [--drift X] [--nan-rate P] [--hot-rate P] [--extra-calls]\n"
    "                [--threads T]\n";
static const char OPTIONS[] =
    "  --entries N    entries per dump.json (bench side; default: one micro-batch)\n"
    "  --layers L     transformer layers (default 24)\n"
    "  --ranks R      tensor-parallel ranks, dirs rank0..rank{R-1} (default 1: dir \"rank\")\n"
    "  --mode M       statistics, md5 (an md5 in every tensor leaf) or tensor (every tensor\n"
    "                 leaf also saved in dump_tensor_data/; default statistics)\n"
    "  --format F     tensor files: pt (torch.save, default) or npy (bfloat16 saved as\n"
    "                 float32, as MindSpore does; the walk and dump.json stay PyTorch's)\n"
    "  --tensor-scale K  tensor mode: sequence length 32*K (default 1). With --layers 2:\n"
    "                 --entries 235 K=1 is msprobe's toy transformer (9.5 MB of .pt a side);\n"
    "                 a whole step (575 entries) is 139 MB for both sides at K=2, 1.23 GB\n"
    "                 at K=12 (56% bfloat16, 44% float32 bytes); .npy: 1.4 GB at K=10\n"
    "  --seed K       same seed, same bytes (default 1)\n"
    "  --drift X      relative target/bench drift of statistics (default 0.002)\n"
    "  --nan-rate P   share of target tensors with NaN/inf statistics (default 0)\n"
    "  --hot-rate P   share of target tensors with a large error (default 0.004)\n"
    "  --extra-calls  the target computes one GELU by hand (extra API calls)\n"
    "  --threads T    jobs at once (default: all cores)\n";

/* ------------------------------------------------------------ statistics */

static inline uint64_t rnd(G *g)
{
    uint64_t z = (g->rs += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline double uni(G *g) { return (double)(rnd(g) >> 11) * 0x1p-53; }

/* Roughly standard normal, cheap. */
static inline double nrm(G *g) { return (uni(g) + uni(g) + uni(g) + uni(g) - 2.0) * 1.7320508; }

static double to_bf16(double v)
{
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7f800000u) != 0x7f800000u)
        u += 0x7fffu + ((u >> 16) & 1u);
    u &= 0xffff0000u;
    memcpy(&f, &u, 4);
    return f;
}

static double round_dt(int dt, double v)
{
    return dt == GT_BF16 ? to_bf16(v) : (double)(float)v;
}

static double numel(const gtensor *x)
{
    double n = 1;
    for (int i = 0; i < x->nd; i++)
        n *= x->sh[i];
    return n;
}

/* Bench statistics of a fresh tensor, then the target's: the same tensor
 * computed elsewhere. Both sides draw the same random numbers, so the two
 * jobs of a pair stay in step whatever either of them writes. */
static gtensor *tnew(G *g, int dt, int rg, int kind, double r, int nd, const int *sh)
{
    gtensor *x = arena_calloc(g->cur, sizeof *x);
    x->dt = (unsigned char)dt;
    x->rg = (unsigned char)rg;
    x->nd = (unsigned char)nd;
    if (nd)
        memcpy(x->sh, sh, (size_t)nd * sizeof(int));
    x->seed = rnd(g);
    x->kind = (unsigned char)kind;
    x->r = r;
    double n = numel(x), *b = x->v[0], *t = x->v[1];
    double a = r * (2.5 + 3 * uni(g)), c = r * (2.5 + 3 * uni(g));
    int exact = dt == GT_I64 || dt == GT_BOOL || kind == KIND_RANGE || kind == KIND_ONES;
    switch (kind) {
    case KIND_POS:      /* softmax probabilities */
        b[0] = 0.05 + 0.95 * uni(g), b[1] = 0.0, b[2] = 1.0 / sh[nd - 1];
        b[3] = sqrt(n / sh[nd - 1]) * (0.1 + 0.3 * uni(g));
        break;
    case KIND_GELU:
        b[0] = a, b[1] = -0.16997 + 0.0002 * uni(g), b[2] = r * (0.1 + 0.2 * uni(g));
        b[3] = r * sqrt(n) * (0.5 + 0.3 * uni(g));
        break;
    case KIND_ONE:      /* layer-norm weights */
        b[0] = 1.0 + 0.05 * uni(g), b[1] = 1.0 - 0.05 * uni(g), b[2] = 1.0 + 0.002 * nrm(g);
        b[3] = sqrt(n) * (1.0 + 0.001 * nrm(g));
        break;
    case KIND_ZERO:     /* biases: zero until the first update */
        b[0] = b[1] = b[2] = b[3] = 0.0;
        if (g->step)
            b[0] = r * (1 + uni(g)), b[1] = -r * (1 + uni(g)), b[2] = r * 0.01 * nrm(g), b[3] = r * sqrt(n) * 0.5;
        break;
    case KIND_IDS:
        b[0] = floor(r * (0.95 + 0.05 * uni(g))) - 1, b[1] = floor(3 + 10 * uni(g));
        b[2] = r * (0.45 + 0.1 * uni(g)), b[3] = b[2] * sqrt(n) * 1.15;
        break;
    case KIND_SCALAR:   /* 0-d: the value itself four times */
        b[0] = b[1] = b[2] = b[3] = r * (dt == GT_I64 ? 1 : 1 + 0.05 * nrm(g));
        break;
    case KIND_RANGE:    /* arange(n) */
        b[0] = n - 1, b[1] = 0, b[2] = (n - 1) / 2, b[3] = sqrt((n - 1) * n * (2 * n - 1) / 6);
        break;
    case KIND_ONES:
        b[0] = b[1] = b[2] = 1.0, b[3] = sqrt(n);
        break;
    default:            /* activations, weights, gradients */
        b[0] = a, b[1] = -c, b[2] = r * 0.03 * nrm(g), b[3] = r * sqrt(n) * (0.85 + 0.3 * uni(g));
        break;
    }
    if (n == 0)
        x->empty = 1;
    if (exact) {
        for (int i = 0; i < 4; i++)
            t[i] = b[i] = dt == GT_I64 && nd == 0 ? b[i] : (double)(float)b[i];
        return x;
    }
    /* Parameters come from one checkpoint: identical in step 0. */
    int param = kind == KIND_W || kind == KIND_ONE || kind == KIND_ZERO;
    double d = param ? (g->step ? g->o->drift * 0.01 : 0.0) : kind == KIND_GRAD ? 2 * g->o->drift : g->o->drift;
    double e[4] = {nrm(g), nrm(g), nrm(g), nrm(g)};
    t[0] = b[0] * (1 + d * e[0]);
    t[1] = b[1] * (1 + d * e[1]);
    t[2] = b[2] + d * r * 0.1 * e[2];
    t[3] = b[3] * (1 + d * 0.3 * e[3]);
    x->drift = d;
    if (nd == 0)
        t[1] = t[2] = t[3] = t[0];
    double hot = uni(g), size = uni(g), bad = uni(g), pick = uni(g);
    if (!param && hot < g->o->hot_rate) {
        double f = size < 0.6 ? 0.15 + 0.25 * pick : 0.6 + 0.9 * pick;
        x->hot = f;
        t[0] *= 1 + f, t[1] *= 1 + f * 0.5, t[3] *= 1 + f * 0.3;
    }
    if (!param && bad < g->o->nan_rate)
        x->bad = (unsigned char)(1 + (int)(pick * 3));
    for (int i = 0; i < 4; i++) {
        b[i] = round_dt(dt, b[i]);
        t[i] = round_dt(dt, t[i]);
    }
    return x;
}

/* Gradient statistics come from the tensor's own seed: whichever side asks
 * first, and in whatever order, both get the same numbers. */
static gtensor *grad_of(G *g, gtensor *x)
{
    if (!x->grad) {
        arena *keep = g->cur;
        uint64_t rs = g->rs;
        g->cur = x->perm ? &g->perm : &g->mb;
        g->rs = x->seed;
        double r = pow(10, -3 - 3 * uni(g));
        x->grad = tnew(g, x->dt, 0, KIND_GRAD, r, x->nd, x->sh);
        x->grad->perm = x->perm;
        g->rs = rs;
        g->cur = keep;
    }
    return x->grad;
}

/* ---------------------------------------------------------------- leaves */

static const char *const DTYPES[] = {"torch.float32", "torch.bfloat16", "torch.int64", "torch.bool"};

static void w_stat(G *g, const gtensor *x, int i)
{
    jw *w = &g->dump;
    static const char *const KEYS[] = {"Max", "Min", "Mean", "Norm"};
    jw_key(w, KEYS[i], i < 2 ? 3 : 4);
    double v = x->v[g->side][i];
    if (x->empty) {
        JW_LIT(w, "null");
    } else if (x->dt == GT_BOOL) {
        /* statistics: always any() then not all(); tensor: from the data */
        int on = g->o->tensor ? v != 0 : i == 0;
        if (i >= 2)
            JW_LIT(w, "null");
        else if (on)
            JW_LIT(w, "true");
        else
            JW_LIT(w, "false");
    } else if (x->dt == GT_I64 && x->nd == 0) {
        jw_int(w, (long long)v);
    } else {
        if (g->side && x->bad && !g->o->tensor) {   /* the target overflowed here */
            static const double INF = 1e308 * 10;
            double pat[3][4] = {{INF, v, INF, INF}, {v, -INF, -INF, INF}, {NAN, NAN, NAN, NAN}};
            if (i != 0 || x->bad != 2)
                v = pat[x->bad - 1][i];
        }
        jw_num(w, v);
    }
}

static void w_tensor(G *g, gtensor *x)
{
    jw *w = &g->dump;
    char data_name[sizeof g->dn + 8];
    if (g->o->tensor) {
        snprintf(data_name, sizeof data_name, "%s%s", g->dn, g->o->npy ? ".npy" : ".pt");
        gd_write(g, x, data_name);
    }
    jw_open(w, '{');
    JW_KEY(w, "type");
    JW_LIT(w, "\"torch.Tensor\"");
    JW_KEY(w, "dtype");
    jw_str(w, DTYPES[x->dt]);
    JW_KEY(w, "shape");
    if (x->nd == 0) {
        JW_LIT(w, "[]");
    } else {
        jw_open(w, '[');
        for (int i = 0; i < x->nd; i++) {
            jw_sep(w);
            jw_int(w, x->sh[i]);
        }
        jw_close(w, ']');
    }
    for (int i = 0; i < 4; i++)
        w_stat(g, x, i);
    JW_KEY(w, "requires_grad");
    if (x->rg)
        JW_LIT(w, "true");
    else
        JW_LIT(w, "false");
    if (g->o->md5) {
        /* Stands in for the CRC-32 of the data: equal statistics, equal md5. */
        uLong crc = crc32(0L, (const Bytef *)x->v[g->side], sizeof x->v[0]);
        crc = crc32(crc, (const Bytef *)x->sh, sizeof x->sh);
        if (g->side && x->bad)
            crc ^= 0x5a5a5a5au;
        JW_KEY(w, "md5");
        w->len += (size_t)sprintf(w->buf + w->len, "\"%08lx\"", (unsigned long)crc);
    }
    if (g->o->tensor) {
        JW_KEY(w, "data_name");
        jw_str(w, data_name);
    }
    jw_close(w, '}');
    g->rows++;
}

static void w_leaf(G *g, const char *type, const char *value_key)
{
    jw *w = &g->dump;
    jw_open(w, '{');
    JW_KEY(w, "type");
    jw_str(w, type);
    jw_key(w, value_key, strlen(value_key));
    g->rows++;
}

static void w_item(G *g, const item *it)
{
    jw *w = &g->dump;
    char buf[64];
    switch (it->k) {
    case K_TENSOR:
        w_tensor(g, it->u.t);
        return;
    case K_NULL:
        JW_LIT(w, "null");
        g->rows++;
        return;
    case K_EMPTY:
        JW_LIT(w, "{}");
        return;
    case K_LIST:
        if (it->n == 0) {
            JW_LIT(w, "[]");
            return;
        }
        jw_open(w, '[');
        for (int i = 0; i < it->n; i++) {
            jw_sep(w);
            size_t keep = dn_push(g, NULL, i);
            w_item(g, &it->u.l[i]);
            dn_pop(g, keep);
        }
        jw_close(w, ']');
        return;
    case K_INT:
        w_leaf(g, "int", "value");
        jw_int(w, it->u.i);
        break;
    case K_FLOAT:
        w_leaf(g, "float", "value");
        jw_num(w, it->u.f);
        break;
    case K_BOOL:
        w_leaf(g, "bool", "value");
        if (it->u.i)
            JW_LIT(w, "true");
        else
            JW_LIT(w, "false");
        break;
    case K_STR:
        w_leaf(g, "str", "value");
        jw_str(w, it->u.s);
        break;
    case K_DTYPE:
        w_leaf(g, "torch.dtype", "value");
        jw_str(w, it->u.s);
        break;
    case K_DEVICE:   /* the two runs ran on different devices */
        w_leaf(g, "torch.device", "value");
        snprintf(buf, sizeof buf, "%s:%d", g->side ? "npu" : "cuda", (int)it->u.i);
        jw_str(w, buf);
        break;
    case K_MEMFMT:
        w_leaf(g, "torch.memory_format", "format");
        jw_str(w, it->u.s);
        break;
    case K_REDOP:
        w_leaf(g, "torch.distributed.ReduceOp", "value");
        jw_str(w, it->u.s);
        break;
    case K_ELLIPSIS:
        w_leaf(g, "ellipsis", "value");
        JW_LIT(w, "\"...\"");
        break;
    case K_SIZE:
    case K_SLICE:
        w_leaf(g, it->k == K_SIZE ? "torch.Size" : "slice", "value");
        jw_open(w, '[');
        for (int i = 0; i < it->n; i++) {
            jw_sep(w);
            if (it->u.sz[i] == NONE)
                JW_LIT(w, "null");
            else
                jw_int(w, it->u.sz[i]);
        }
        jw_close(w, ']');
        break;
    case K_PG: {
        w_leaf(g, "torch.ProcessGroup", "group_ranks");
        strbuf r = STRBUF_INIT;
        sb_addc(&r, '[');
        jw_open(w, '[');
        for (int i = 0; i < g->tp; i++) {
            jw_sep(w);
            jw_int(w, i);
            sb_addf(&r, "%s%d", i ? ", " : "", i);
        }
        jw_close(w, ']');
        sb_addc(&r, ']');
        JW_KEY(w, "group_id");
        snprintf(buf, sizeof buf, "%08lx", (unsigned long)crc32(0L, (const Bytef *)r.buf, (uInt)r.len));
        jw_str(w, buf);
        sb_free(&r);
        break;
    }
    }
    jw_close(w, '}');
}

/* A list of items at the current position (input_args, output, ...). */
static void w_items(G *g, const item *its, int n)
{
    item l = {.k = K_LIST, .n = (unsigned char)n, .u.l = its};
    w_item(g, &l);
}

/* A dict of keyed items (input_kwargs, parameters). */
static void w_dict(G *g, const item *its, int n)
{
    jw *w = &g->dump;
    if (n == 0) {
        JW_LIT(w, "{}");
        return;
    }
    jw_open(w, '{');
    for (int i = 0; i < n; i++) {
        jw_key(w, its[i].key, strlen(its[i].key));
        size_t keep = dn_push(g, its[i].key, 0);
        w_item(g, &its[i]);
        dn_pop(g, keep);
    }
    jw_close(w, '}');
}

/* ------------------------------------------------------------------ jobs */

typedef struct {
    const opts *o;
    int side, step, rank;
    char dir[PATH_MAX];
    long entries, rows, files;
    unsigned long long bytes[3], file_bytes;
} job;

static void run_job(job *jb)
{
    G *g = xcalloc(1, sizeof *g);
    g->o = jb->o;
    g->side = jb->side;
    g->step = jb->step;
    g->rank = jb->rank;
    g->tp = jb->o->ranks;
    g->rs = jb->o->seed * 0x100000001b3ULL + (uint64_t)jb->step * 7919 + (uint64_t)jb->rank * 104729;
    g->limit = jb->o->entries > 0 ? jb->o->entries : LONG_MAX;
    arena_init(&g->perm, 1 << 20);
    arena_init(&g->mb, 1 << 22);
    g->cur = &g->mb;

    char path[PATH_MAX + 32];
    if (dir_create(jb->dir) != 0)
        exit(err_report());
    snprintf(path, sizeof path, "%s/dump.json", jb->dir);
    jw_init(&g->dump, path);
    snprintf(path, sizeof path, "%s/construct.json", jb->dir);
    jw_init(&g->cons, path);
    if (g->o->tensor) {
        /* msprobe records the absolute path; compare ignores it */
        snprintf(path, sizeof path, "%s/dump_tensor_data", jb->dir);
        if (dir_create(path) != 0)
            exit(err_report());
        g->tdir = realpath(path, NULL);
        if (!g->tdir) {
            fprintf(stderr, "gen_dump: %s: %s\n", path, strerror(errno));
            exit(1);
        }
        strbuf q = STRBUF_INIT;
        json_quote(&q, g->tdir);
        JW_LIT(&g->dump, "{\n \"task\": \"tensor\",\n \"level\": \"mix\",\n \"framework\": \"pytorch\",\n"
                         " \"dump_data_dir\": ");
        jw_put(&g->dump, q.buf, q.len);
        JW_LIT(&g->dump, ",\n \"data\": {");
        sb_free(&q);
    } else {
        JW_LIT(&g->dump, "{\n \"task\": \"statistics\",\n \"level\": \"mix\",\n \"framework\": \"pytorch\",\n"
                         " \"dump_data_dir\": null,\n \"data\": {");
    }
    g->dump.depth = 2;
    g->dump.first[2] = 1;
    JW_LIT(&g->cons, "{");
    g->cons.depth = 1;
    g->cons.first[1] = 1;

    model_step(g);

    g->dump.depth = 2;
    jw_close(&g->dump, '}');
    JW_LIT(&g->dump, "\n}");
    jw_close(&g->cons, '}');
    jb->entries = g->emitted;
    jb->rows = g->rows;
    jb->files = g->files;
    jb->file_bytes = g->file_bytes;
    gd_release(g, 0);
    gd_release(g, 1);
    free(g->tdir);
    jw_close_file(&g->dump);
    jw_close_file(&g->cons);
    jb->bytes[0] = g->dump.total;
    jb->bytes[2] = g->cons.total;
    snprintf(path, sizeof path, "%s/stack.json", jb->dir);
    write_stack_json(g, path);
    struct stat st;
    jb->bytes[1] = stat(path, &st) == 0 ? (unsigned long long)st.st_size : 0;
    for (int s = 0; s < NSLOT; s++)
        sb_free(&g->names[s]);
    free(g->tape);
    arena_free(&g->perm);
    arena_free(&g->mb);
    free(g);
}

static job *jobs;
static int njobs, next_job;
static pthread_mutex_t job_lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&job_lock);
        int i = next_job < njobs ? next_job++ : -1;
        pthread_mutex_unlock(&job_lock);
        if (i < 0)
            return NULL;
        run_job(&jobs[i]);
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long num_arg(const char *opt, const char *v, long lo, long hi)
{
    char *end;
    errno = 0;
    long n = v ? strtol(v, &end, 10) : 0;
    if (!v || errno || *end || n < lo || n > hi) {
        fprintf(stderr, "gen_dump: %s needs an integer in %ld..%ld\n%s", opt, lo, hi, USAGE);
        exit(2);
    }
    return n;
}

static double rate_arg(const char *opt, const char *v)
{
    char *end;
    double x = v ? strtod(v, &end) : -1;
    if (!v || *end || !(x >= 0 && x <= 1)) {
        fprintf(stderr, "gen_dump: %s needs a number in 0..1\n%s", opt, USAGE);
        exit(2);
    }
    return x;
}

int main(int argc, char **argv)
{
    opts o = {.layers = 24, .ranks = 1, .steps = 1, .seed = 1, .drift = 0.002, .hot_rate = 0.004, .tscale = 1};
    log_set_prog("gen_dump");
    long threads = sysconf(_SC_NPROCESSORS_ONLN);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int used = 1;
        if (!strcmp(a, "--out") && v)
            o.out = v;
        else if (!strcmp(a, "--entries"))
            o.entries = num_arg(a, v, 1, 100000000);
        else if (!strcmp(a, "--layers"))
            o.layers = (int)num_arg(a, v, 1, 10000);
        else if (!strcmp(a, "--ranks"))
            o.ranks = (int)num_arg(a, v, 1, 64);
        else if (!strcmp(a, "--steps"))
            o.steps = (int)num_arg(a, v, 1, 1000);
        else if (!strcmp(a, "--seed"))
            o.seed = (unsigned long long)num_arg(a, v, 0, LONG_MAX);
        else if (!strcmp(a, "--threads"))
            threads = num_arg(a, v, 1, 256);
        else if (!strcmp(a, "--drift"))
            o.drift = rate_arg(a, v);
        else if (!strcmp(a, "--nan-rate"))
            o.nan_rate = rate_arg(a, v);
        else if (!strcmp(a, "--hot-rate"))
            o.hot_rate = rate_arg(a, v);
        else if (!strcmp(a, "--mode")) {
            if (!v || (strcmp(v, "statistics") && strcmp(v, "md5") && strcmp(v, "tensor"))) {
                fprintf(stderr, "gen_dump: --mode is statistics, md5 or tensor\n%s", USAGE);
                return 2;
            }
            o.md5 = !strcmp(v, "md5");
            o.tensor = !strcmp(v, "tensor");
        } else if (!strcmp(a, "--format")) {
            if (!v || (strcmp(v, "pt") && strcmp(v, "npy"))) {
                fprintf(stderr, "gen_dump: --format is pt or npy\n%s", USAGE);
                return 2;
            }
            o.npy = !strcmp(v, "npy");
        } else if (!strcmp(a, "--tensor-scale"))
            o.tscale = (int)num_arg(a, v, 1, 64);
        else if (!strcmp(a, "--extra-calls"))
            o.extra = 1, used = 0;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(USAGE, stdout);
            fputs(OPTIONS, stdout);
            return 0;
        } else {
            fprintf(stderr, "gen_dump: bad argument '%s'\n%s", a, USAGE);
            return 2;
        }
        i += used;
    }
    if (!o.out) {
        fprintf(stderr, "gen_dump: --out is required\n%s", USAGE);
        return 2;
    }
    if (16 % o.ranks != 0) {
        fprintf(stderr, "gen_dump: --ranks must divide the 16 attention heads\n");
        return 2;
    }
    build_stacks();
    njobs = 2 * o.steps * o.ranks;
    jobs = xcalloc((size_t)njobs, sizeof *jobs);
    for (int i = 0; i < njobs; i++) {
        job *jb = &jobs[i];
        jb->o = &o;
        jb->side = i % 2 == 0;      /* target first */
        jb->step = i / 2 / o.ranks;
        jb->rank = i / 2 % o.ranks;
        char rank[24];
        snprintf(rank, sizeof rank, o.ranks > 1 ? "rank%d" : "rank", jb->rank);
        snprintf(jb->dir, sizeof jb->dir, "%s/%s/step%d/%s", o.out, jb->side ? "target" : "bench",
                 jb->step, rank);
    }
    double t0 = now();
    if (threads > njobs)
        threads = njobs;
    pthread_t tid[256];
    for (long i = 0; i < threads; i++)
        if (pthread_create(&tid[i], NULL, worker, NULL) != 0) {
            fprintf(stderr, "gen_dump: cannot start a thread\n");
            return 1;
        }
    for (long i = 0; i < threads; i++)
        pthread_join(tid[i], NULL);
    double total = 0, tensor_bytes = 0;
    long files = 0;
    for (int i = 0; i < njobs; i++) {
        job *jb = &jobs[i];
        printf("gen_dump: side=%s step=%d rank=%d entries=%ld rows=%ld dump_bytes=%llu "
               "stack_bytes=%llu construct_bytes=%llu",
               jb->side ? "target" : "bench", jb->step, jb->rank, jb->entries, jb->rows,
               jb->bytes[0], jb->bytes[1], jb->bytes[2]);
        if (o.tensor)
            printf(" tensor_files=%ld tensor_bytes=%llu", jb->files, jb->file_bytes);
        putchar('\n');
        total += (double)(jb->bytes[0] + jb->bytes[1] + jb->bytes[2]);
        tensor_bytes += (double)jb->file_bytes;
        files += jb->files;
    }
    if (o.tensor)
        printf("gen_dump: tensor data: %ld files, %.0f bytes (%.1f MB)\n", files, tensor_bytes,
               tensor_bytes / 1e6);
    printf("gen_dump: wrote %d dump dirs, %.1f MB in %.2f s\n", njobs, (total + tensor_bytes) / 1e6,
           now() - t0);
    for (int s = 0; s < NSLOT; s++)
        free(stack_text[s]);
    free(jobs);
    return 0;
}
