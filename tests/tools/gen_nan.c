/* gen_nan: writes one step of a distributed PyTorch run as msprobe 8.1.0
 * dumps it (task statistics, level L1, json.dump indent=1), for the
 * benchmark and tests of nan_analyze:
 *
 *   OUT/step0/rank{R}/{dump.json,stack.json,construct.json}
 *
 * Every rank runs ENTRIES API calls; every EVERY-th is a collective. With
 * tensor-parallel groups of TP ranks, the collectives cycle through
 *   all_reduce (TP group), all_gather_into_tensor (TP group), all_reduce,
 *   send/recv between neighbouring TP groups (even group sends to the next),
 *   all_reduce, all_gather_into_tensor, all_reduce, send/recv,
 *   broadcast from the TP group's first rank, all_reduce over every rank (no group).
 * One rank (--source-rank) turns a clean input into inf at one entry
 * (--source-at); from there everything it computes is NaN, and every
 * collective carries the NaN on: a rank turns bad at the collective that
 * first brings it NaN (clean input, NaN output), and stays bad.
 * The first NaN/Inf node nan_analyze must find is the source; gen_nan
 * prints it:  "gen_nan: source rank=537 op=Functional.gelu.123.forward".
 * Ranks are written on all cores; the bytes depend only on the options.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/pool.h"
#include "base/strbuf.h"

#include "pyrepr.h"

static const char USAGE[] =
    "usage: gen_nan --out DIR [--ranks R] [--entries E] [--every K] [--tp T]\n"
    "               [--source-rank S] [--source-at I] [--threads N]\n"
    "  --ranks R        ranks (default 8)\n"
    "  --entries E      API calls per rank (default 1000)\n"
    "  --every K        every K-th call is a collective (default 50)\n"
    "  --tp T           tensor-parallel group size (default 8)\n"
    "  --source-rank S  the rank that makes inf first (default R * 537 / 1000)\n"
    "  --source-at I    at its I-th call, not a collective (default: about E / 2)\n"
    "  --threads N      ranks written at once (default: all cores)\n";

typedef struct {
    const char *out;
    long ranks, entries, every, tp, source_rank, source_at;
    long *bad_at;            /* per rank: the call at which it turns bad (LONG_MAX: never) */
} cfg;

enum { C_TP_REDUCE, C_TP_GATHER, C_P2P, C_BROADCAST, C_WORLD, C_NONE };

/* The collective of slot c (every K-th call). */
static int kind_of(long c)
{
    static const int cycle[10] = {C_TP_REDUCE, C_TP_GATHER, C_TP_REDUCE, C_P2P,       C_TP_REDUCE,
                                  C_TP_GATHER, C_TP_REDUCE, C_P2P,       C_BROADCAST, C_WORLD};
    return cycle[c % 10];
}

static long group_first(const cfg *g, long r) { return r / g->tp * g->tp; }
static long group_end(const cfg *g, long r)
{
    long e = group_first(g, r) + g->tp;
    return e < g->ranks ? e : g->ranks;
}

/* Send/recv partner: ranks of an even TP group send to the same place in
 * the next group; -1 when there is none (the last group). */
static long p2p_peer(const cfg *g, long r, int *sends)
{
    long grp = r / g->tp;
    *sends = grp % 2 == 0;
    long peer = *sends ? r + g->tp : r - g->tp;
    return peer >= 0 && peer < g->ranks ? peer : -1;
}

/* Who is bad when: the source, then every collective that brings NaN. */
static void spread(cfg *g)
{
    g->bad_at = xmalloc_array((size_t)g->ranks, sizeof *g->bad_at);
    for (long r = 0; r < g->ranks; r++)
        g->bad_at[r] = LONG_MAX;
    g->bad_at[g->source_rank] = g->source_at;
    for (long i = g->every - 1; i < g->entries; i += g->every) {
        int k = kind_of(i / g->every);
        if (k == C_WORLD || k == C_TP_REDUCE || k == C_TP_GATHER || k == C_BROADCAST) {
            long step = k == C_WORLD ? g->ranks : g->tp;
            for (long first = 0; first < g->ranks; first += step) {
                long end = first + step < g->ranks ? first + step : g->ranks, bad = 0;
                for (long r = first; r < end; r++)
                    bad |= k == C_BROADCAST ? (r == first && g->bad_at[r] < i) : g->bad_at[r] < i;
                for (long r = first; r < end && bad; r++)
                    if (g->bad_at[r] > i)
                        g->bad_at[r] = i;
            }
        } else {
            /* senders first: a receiver turns bad when its sender was */
            for (long r = 0; r < g->ranks; r++) {
                int sends;
                long peer = p2p_peer(g, r, &sends);
                if (peer >= 0 && sends && g->bad_at[r] < i && g->bad_at[peer] > i)
                    g->bad_at[peer] = i;
            }
        }
    }
}

/* ---- JSON in msprobe's indent=1 spelling -------------------------------- */

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double unit(uint64_t *s)
{
    *s += 0x9e3779b97f4a7c15ULL;
    return (double)(mix(*s) >> 11) * 0x1p-53;
}

static void ind(strbuf *sb, int depth)
{
    sb_addc(sb, '\n');
    for (int i = 0; i < depth; i++)
        sb_addc(sb, ' ');
}

static void num(strbuf *sb, double v)
{
    sb_grow(sb, 40);
    sb->len += (size_t)pyrepr(sb->buf + sb->len, v);
    sb->buf[sb->len] = 0;
}

enum { T_CLEAN, T_INF, T_NAN };

/* One tensor leaf at `depth`; `how` its statistics. */
static void tensor(strbuf *sb, int depth, uint64_t *seed, int how, int rg)
{
    sb_addc(sb, '{');
    ind(sb, depth + 1);
    sb_adds(sb, "\"type\": \"torch.Tensor\",");
    ind(sb, depth + 1);
    sb_adds(sb, "\"dtype\": \"torch.bfloat16\",");
    ind(sb, depth + 1);
    sb_adds(sb, "\"shape\": [");
    ind(sb, depth + 2);
    sb_adds(sb, "4096,");
    ind(sb, depth + 2);
    sb_adds(sb, "1024");
    ind(sb, depth + 1);
    sb_adds(sb, "],");
    static const char *const keys[4] = {"Max", "Min", "Mean", "Norm"};
    double s = 1 + 4 * unit(seed);
    double v[4] = {s * (0.5 + unit(seed)), -s * (0.5 + unit(seed)), s * (unit(seed) - 0.5) * 0.01,
                   s * 600 * (1 + unit(seed))};
    for (int k = 0; k < 4; k++) {
        ind(sb, depth + 1);
        sb_addf(sb, "\"%s\": ", keys[k]);
        if (how == T_NAN)
            sb_adds(sb, "NaN");
        else if (how == T_INF && k != 1)
            sb_adds(sb, "Infinity");
        else
            num(sb, how == T_INF ? 0.0 : v[k]);
        sb_addc(sb, ',');
    }
    ind(sb, depth + 1);
    sb_adds(sb, rg ? "\"requires_grad\": true" : "\"requires_grad\": false");
    ind(sb, depth);
    sb_addc(sb, '}');
}

/* "key": [tensors] at depth 3 (the members of an entry) */
static void tensors(strbuf *sb, const char *key, int n, uint64_t *seed, int how)
{
    ind(sb, 3);
    sb_addf(sb, "\"%s\": [", key);
    for (int i = 0; i < n; i++) {
        ind(sb, 4);
        tensor(sb, 4, seed, how, i == 0);
        if (i + 1 < n)
            sb_addc(sb, ',');
    }
    ind(sb, 3);
    sb_addc(sb, ']');
}

static void int_arg(strbuf *sb, int depth, long v)
{
    sb_addc(sb, '{');
    ind(sb, depth + 1);
    sb_adds(sb, "\"type\": \"int\",");
    ind(sb, depth + 1);
    sb_addf(sb, "\"value\": %ld", v);
    ind(sb, depth);
    sb_addc(sb, '}');
}

static void group(strbuf *sb, int depth, long first, long end)
{
    sb_addc(sb, '{');
    ind(sb, depth + 1);
    sb_adds(sb, "\"type\": \"torch.ProcessGroup\",");
    ind(sb, depth + 1);
    sb_adds(sb, "\"group_ranks\": [");
    for (long r = first; r < end; r++) {
        ind(sb, depth + 2);
        sb_addf(sb, "%ld%s", r, r + 1 < end ? "," : "");
    }
    ind(sb, depth + 1);
    sb_adds(sb, "],");
    ind(sb, depth + 1);
    sb_addf(sb, "\"group_id\": \"%016llx\"", (unsigned long long)mix((uint64_t)first + 77));
    ind(sb, depth);
    sb_addc(sb, '}');
}

/* ---- one rank --------------------------------------------------------------- */

static const char *const compute_apis[] = {"Functional.linear", "Tensor.__add__", "Functional.gelu", "Torch.matmul",
                                           "Functional.layer_norm", "Tensor.mul", "Torch.softmax", "Tensor.view"};
#define NAPIS (sizeof compute_apis / sizeof compute_apis[0])

typedef struct {
    long counter[NAPIS + 8];
} counters;

/* Entry name; backward entries every 7th compute call. */
static void entry_name(strbuf *name, counters *c, int api, int backward)
{
    const char *n = api < (int)NAPIS ? compute_apis[api]
                    : api == (int)NAPIS ? "Distributed.all_reduce"
                    : api == (int)NAPIS + 1 ? "Distributed.all_gather_into_tensor"
                    : api == (int)NAPIS + 2 ? "Distributed.send"
                    : api == (int)NAPIS + 3 ? "Distributed.recv"
                                            : "Distributed.broadcast";
    sb_reset(name);
    sb_addf(name, "%s.%ld.%s", n, c->counter[api]++, backward ? "backward" : "forward");
}

static void write_file(const char *path, const strbuf *sb)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    size_t off = 0;
    while (fd >= 0 && off < sb->len) {
        ssize_t n = write(fd, sb->buf + off, sb->len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    if (fd < 0 || off < sb->len || close(fd) != 0) {
        fprintf(stderr, "gen_nan: %s: %s\n", path, strerror(errno));
        exit(1);
    }
}

static const cfg *G;

static void one_rank(void *arg, size_t ri)
{
    (void)arg;
    const cfg *g = G;
    long r = (long)ri;
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/step0/rank%ld", g->out, r);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "gen_nan: %s: %s\n", dir, strerror(errno));
        exit(1);
    }
    strbuf sb = STRBUF_INIT, name = STRBUF_INIT, construct = STRBUF_INIT, stack_names = STRBUF_INIT;
    counters c = {{0}};
    uint64_t seed = mix((uint64_t)r * 1000003 + 17);
    sb_adds(&sb, "{\n \"task\": \"statistics\",\n \"level\": \"L1\",\n \"framework\": \"pytorch\",\n"
                 " \"dump_data_dir\": null,\n \"data\": {");
    sb_adds(&construct, "{");
    long bad = g->bad_at[r];
    for (long i = 0; i < g->entries; i++) {
        int in = i <= bad ? T_CLEAN : T_NAN, out = i < bad ? T_CLEAN : i == bad ? T_INF : T_NAN;
        int collective = (i + 1) % g->every == 0;
        int k = collective ? kind_of(i / g->every) : C_NONE, sends = 0;
        long peer = k == C_P2P ? p2p_peer(g, r, &sends) : 0;
        if (k == C_P2P && peer < 0)
            k = C_NONE;
        if (collective && i == bad && r != g->source_rank)
            out = T_NAN;   /* NaN received */
        int api = k == C_NONE ? (int)(mix((uint64_t)i * 31 + (uint64_t)r) % NAPIS)
                  : k == C_TP_REDUCE || k == C_WORLD ? (int)NAPIS
                  : k == C_TP_GATHER ? (int)NAPIS + 1
                  : k == C_P2P ? (int)NAPIS + 2 + !sends
                               : (int)NAPIS + 4;
        int backward = k == C_NONE && i % 7 == 3 && i != g->source_at;
        entry_name(&name, &c, api, backward);
        if (i)
            sb_addc(&sb, ',');
        ind(&sb, 2);
        sb_addf(&sb, "\"%s\": {", name.buf);
        if (backward) {
            tensors(&sb, "input", 1, &seed, in);
            sb_addc(&sb, ',');
            tensors(&sb, "output", 1, &seed, out);
        } else if (k == C_NONE) {
            int binary = api == 1 || api == 3 || api == 5;
            tensors(&sb, "input_args", binary ? 2 : 1, &seed, in);
            sb_addc(&sb, ',');
            ind(&sb, 3);
            sb_adds(&sb, "\"input_kwargs\": {},");
            tensors(&sb, "output", 1, &seed, out);
        } else {
            int gather = k == C_TP_GATHER;
            /* all_gather_into_tensor's first argument is the output buffer */
            tensors(&sb, "input_args", gather ? 2 : 1, &seed, in);
            sb_addc(&sb, ',');
            ind(&sb, 3);
            sb_adds(&sb, "\"input_kwargs\": {");
            ind(&sb, 4);
            if (k == C_WORLD) {
                sb_adds(&sb, "\"op\": {");
                ind(&sb, 5);
                sb_adds(&sb, "\"type\": \"torch.distributed.ReduceOp\",");
                ind(&sb, 5);
                sb_adds(&sb, "\"value\": \"RedOpType.SUM\"");
                ind(&sb, 4);
                sb_addc(&sb, '}');
            } else if (k == C_P2P) {
                sb_adds(&sb, sends ? "\"dst\": " : "\"src\": ");
                int_arg(&sb, 4, peer);
            } else {
                if (k == C_BROADCAST) {
                    sb_adds(&sb, "\"src\": ");
                    int_arg(&sb, 4, group_first(g, r));
                    sb_addc(&sb, ',');
                    ind(&sb, 4);
                }
                sb_adds(&sb, "\"group\": ");
                group(&sb, 4, group_first(g, r), group_end(g, r));
            }
            ind(&sb, 3);
            sb_adds(&sb, "},");
            tensors(&sb, "output", 1, &seed, sends ? in : out);
        }
        ind(&sb, 2);
        sb_addc(&sb, '}');
        /* construct.json: the layer the call ran in */
        sb_addf(&construct, "%s\n \"%s\": \"Module.module.layers.%ld.%s.0\"", i ? "," : "", name.buf,
                i * 48 / g->entries, backward ? "backward" : "forward");
        sb_addf(&stack_names, "%s\n   \"%s\"", i ? "," : "", name.buf);
    }
    sb_adds(&sb, "\n }\n}");
    sb_adds(&construct, "\n}");
    snprintf(path, sizeof path, "%s/dump.json", dir);
    write_file(path, &sb);
    snprintf(path, sizeof path, "%s/construct.json", dir);
    write_file(path, &construct);
    /* stack.json, the de-duplicated layout: every call from one site */
    sb_reset(&sb);
    sb_addf(&sb, "{\n \"0\": [\n  [%s\n  ],\n  [\n   \"File /workspace/train.py, line 88, in forward_step, \\n "
                 "output = model(tokens)\",\n   \"File /workspace/train.py, line 142, in train, \\n "
                 "forward_step(batch)\"\n  ]\n ]\n}",
            stack_names.buf);
    snprintf(path, sizeof path, "%s/stack.json", dir);
    write_file(path, &sb);
    sb_free(&sb);
    sb_free(&name);
    sb_free(&construct);
    sb_free(&stack_names);
}

/* The source's entry name: its api and counter, as one_rank names it. */
static void source_name(const cfg *g, strbuf *name)
{
    counters c = {{0}};
    long r = g->source_rank;
    for (long i = 0; i <= g->source_at; i++) {
        int collective = (i + 1) % g->every == 0, sends = 0;
        int k = collective ? kind_of(i / g->every) : C_NONE;
        long peer = k == C_P2P ? p2p_peer(g, r, &sends) : 0;
        if (k == C_P2P && peer < 0)
            k = C_NONE;
        int api = k == C_NONE ? (int)(mix((uint64_t)i * 31 + (uint64_t)r) % NAPIS)
                  : k == C_TP_REDUCE || k == C_WORLD ? (int)NAPIS
                  : k == C_TP_GATHER ? (int)NAPIS + 1
                  : k == C_P2P ? (int)NAPIS + 2 + !sends
                               : (int)NAPIS + 4;
        entry_name(name, &c, api, k == C_NONE && i % 7 == 3 && i != g->source_at);
    }
}

static long arg_long(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        fputs(USAGE, stderr);
        exit(2);
    }
    char *end;
    long v = strtol(argv[++*i], &end, 10);
    if (*end || v < 0) {
        fprintf(stderr, "gen_nan: bad number '%s'\n", argv[*i]);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    cfg g = {.ranks = 8, .entries = 1000, .every = 50, .tp = 8, .source_rank = -1, .source_at = -1};
    long threads = pool_cpus();
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc)
            g.out = argv[++i];
        else if (!strcmp(argv[i], "--ranks"))
            g.ranks = arg_long(argc, argv, &i);
        else if (!strcmp(argv[i], "--entries"))
            g.entries = arg_long(argc, argv, &i);
        else if (!strcmp(argv[i], "--every"))
            g.every = arg_long(argc, argv, &i);
        else if (!strcmp(argv[i], "--tp"))
            g.tp = arg_long(argc, argv, &i);
        else if (!strcmp(argv[i], "--source-rank"))
            g.source_rank = arg_long(argc, argv, &i);
        else if (!strcmp(argv[i], "--source-at"))
            g.source_at = arg_long(argc, argv, &i);
        else if (!strcmp(argv[i], "--threads"))
            threads = arg_long(argc, argv, &i);
        else {
            fputs(USAGE, stderr);
            return 2;
        }
    }
    if (g.source_rank < 0)
        g.source_rank = g.ranks * 537 / 1000;
    if (g.source_at < 0) {
        /* the 8th call of the first stretch from the middle on that ends in
         * a TP all_reduce: NaN before a collective's input is what nan_analyze
         * traces back (before a recv it would not be: msprobe's rule) */
        long c = g.entries / 2 / g.every;
        while (kind_of(c) != C_TP_REDUCE)
            c++;
        g.source_at = c * g.every + 7;
    }
    if (!g.out || g.ranks < 1 || g.every < 2 || g.tp < 1 || g.source_rank >= g.ranks ||
        g.source_at >= g.entries || (g.source_at + 1) % g.every == 0) {
        fputs(USAGE, stderr);
        fputs("gen_nan: --source-at must be a call that is not a collective\n", stderr);
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/step0", g.out);
    if ((mkdir(g.out, 0755) != 0 && errno != EEXIST) || (mkdir(path, 0755) != 0 && errno != EEXIST)) {
        fprintf(stderr, "gen_nan: %s: %s\n", path, strerror(errno));
        return 1;
    }
    spread(&g);
    G = &g;
    pool_for((size_t)g.ranks, (int)threads, one_rank, NULL);
    strbuf name = STRBUF_INIT;
    source_name(&g, &name);
    long reached = 0;
    for (long r = 0; r < g.ranks; r++)
        reached += g.bad_at[r] != LONG_MAX;
    printf("gen_nan: %ld ranks, %ld entries each, a collective every %ld; NaN reaches %ld ranks\n", g.ranks,
           g.entries, g.every, reached);
    printf("gen_nan: source rank=%ld op=%s\n", g.source_rank, name.buf);
    sb_free(&name);
    free(g.bad_at);
    return 0;
}
