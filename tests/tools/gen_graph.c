/* gen_graph: a pair of mix-level statistics dumps for `msprobe graph`
 * benchmarks, as msprobe 8.1.0 writes them (json.dump indent=1):
 *
 *   OUT/{target,bench}/{dump.json,stack.json,construct.json}
 *
 * BLOCKS modules Module.model.layers.{i}.Block.forward.0 at the root, each
 * holding Functional.linear, Functional.gelu, Functional.linear and
 * Torch.add: 5 entries per block (1,250 blocks: 6,250 entries, 4.3 MB of
 * dump.json a side). The target's statistics are the bench's with a small
 * drift. --blocks 20000 gives the 100,000-entry pair.
 *
 *   gen_graph --out DIR [--blocks N] [--seed K]
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/strbuf.h"
#include "py/numfmt.h"

static uint64_t rng = 88172645463325252ull;

static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static void num(strbuf *sb, double x)
{
    char buf[NUMFMT_BUFSZ];
    sb_add(sb, buf, fmt_pyrepr(x, buf));
}

/* shapes as json.dump(indent=1) writes them inside a leaf at level 5 */
static const char X[] = "[\n      4,\n      128,\n      1024\n     ]";
static const char W[] = "[\n      1024,\n      1024\n     ]";
static const char B[] = "[\n      1024\n     ]";

/* a bfloat16 statistic: 8 significant bits, a short repr */
static double bf16(double x)
{
    int e;
    double m = frexp(x, &e);
    return ldexp(nearbyint(m * 256) / 256, e);
}

/* one tensor leaf at indent 3 (inside a list inside an entry) */
static void tensor(strbuf *sb, int level, const char *dtype, const char *shape, double scale, double drift, int rg)
{
    char pad[16];
    memset(pad, ' ', sizeof pad);
    double mx = scale * (1 + uniform()), mn = -scale * (1 + uniform()), mean = scale * (uniform() - 0.5) * 0.1,
           norm = scale * 64 * (1 + uniform());
    mx *= 1 + drift;
    mn *= 1 + drift;
    mean *= 1 + drift;
    norm *= 1 + drift;
    if (!strcmp(dtype, "torch.bfloat16")) {
        mx = bf16(mx);
        mn = bf16(mn);
        mean = bf16(mean);
        norm = bf16(norm);
    }
    sb_addf(sb, "{\n%.*s\"type\": \"torch.Tensor\",\n", level + 1, pad);
    sb_addf(sb, "%.*s\"dtype\": \"%s\",\n", level + 1, pad, dtype);
    sb_addf(sb, "%.*s\"shape\": %s,\n", level + 1, pad, shape);
    sb_addf(sb, "%.*s\"Max\": ", level + 1, pad);
    num(sb, mx);
    sb_addf(sb, ",\n%.*s\"Min\": ", level + 1, pad);
    num(sb, mn);
    sb_addf(sb, ",\n%.*s\"Mean\": ", level + 1, pad);
    num(sb, mean);
    sb_addf(sb, ",\n%.*s\"Norm\": ", level + 1, pad);
    num(sb, norm);
    sb_addf(sb, ",\n%.*s\"requires_grad\": %s\n%.*s}", level + 1, pad, rg ? "true" : "false", level, pad);
}

/* an API entry: input_args (n tensors), input_kwargs {}, output [tensor] */
static void api(strbuf *sb, const char *name, int nin, double drift, int first)
{
    sb_addf(sb, "%s\n  \"%s\": {\n   \"input_args\": [\n    ", first ? "" : ",", name);
    const char *shapes[3] = {X, W, B};
    for (int k = 0; k < nin; k++) {
        if (k)
            sb_adds(sb, ",\n    ");
        tensor(sb, 4, "torch.float32", nin == 3 ? shapes[k] : X, 1 + k, drift, k > 0);
    }
    sb_adds(sb, "\n   ],\n   \"input_kwargs\": {},\n   \"output\": [\n    ");
    tensor(sb, 4, "torch.bfloat16", X, 2, drift, 1);
    sb_adds(sb, "\n   ]\n  }");
}

static void write_file(const char *dir, const char *name, const strbuf *sb)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fwrite(sb->buf, 1, sb->len, f) != sb->len || fclose(f) != 0) {
        fprintf(stderr, "gen_graph: %s: %s\n", path, strerror(errno));
        exit(1);
    }
}

static void side(const char *out, const char *which, long blocks, double drift, uint64_t seed)
{
    rng = seed;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", out, which);
    mkdir(out, 0755);
    mkdir(dir, 0755);
    strbuf d = STRBUF_INIT, c = STRBUF_INIT, s = STRBUF_INIT;
    sb_adds(&d, "{\n \"task\": \"statistics\",\n \"level\": \"mix\",\n \"framework\": \"pytorch\",\n"
                " \"dump_data_dir\": null,\n \"data\": {");
    sb_adds(&c, "{");
    sb_adds(&s, "{");
    char name[256], block[256];
    for (long i = 0; i < blocks; i++) {
        snprintf(block, sizeof block, "Module.model.layers.%ld.Block.forward.0", i);
        /* the block: its input, its output, the parameters of its first linear */
        sb_addf(&d, "%s\n  \"%s\": {\n   \"input_args\": [\n    ", i ? "," : "", block);
        tensor(&d, 4, "torch.float32", X, 1, drift, 0);
        sb_adds(&d, "\n   ],\n   \"input_kwargs\": {},\n   \"output\": [\n    ");
        tensor(&d, 4, "torch.bfloat16", X, 2, drift, 1);
        sb_adds(&d, "\n   ]\n  }");
        sb_addf(&c, "%s\n \"%s\": null", i ? "," : "", block);
        const char *apis[4][2] = {{"Functional.linear", "3"}, {"Functional.gelu", "1"}, {"Functional.linear", "3"},
                                  {"Torch.add", "2"}};
        long counter[4] = {2 * i, i, 2 * i + 1, i};
        sb_addf(&s, "%s\n \"%ld\": [\n  [\n   \"%s\"", i ? "," : "", i, block);
        for (int k = 0; k < 4; k++) {
            snprintf(name, sizeof name, "%s.%ld.forward", apis[k][0], counter[k]);
            api(&d, name, atoi(apis[k][1]), drift, 0);
            sb_addf(&c, ",\n \"%s\": \"%s\"", name, block);
            sb_addf(&s, ",\n   \"%s\"", name);
        }
        sb_addf(&s, "\n  ],\n  [\n   \"File /work/model.py, line %ld, in forward, \\n x = self.layers[%ld](x)\"\n  ]\n ]",
                10 + i % 50, i);
    }
    sb_adds(&d, "\n }\n}");
    sb_adds(&c, "\n}");
    sb_adds(&s, "\n}");
    write_file(dir, "dump.json", &d);
    write_file(dir, "construct.json", &c);
    write_file(dir, "stack.json", &s);
    sb_free(&d);
    sb_free(&c);
    sb_free(&s);
}

int main(int argc, char **argv)
{
    const char *out = NULL;
    long blocks = 1250;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--blocks") && i + 1 < argc)
            blocks = atol(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else
            out = NULL, i = argc;
    }
    if (!out || blocks <= 0) {
        fprintf(stderr, "usage: gen_graph --out DIR [--blocks N] [--seed K]\n");
        return 2;
    }
    side(out, "bench", blocks, 0, seed * 7919 + 1);
    side(out, "target", blocks, 0.001, seed * 7919 + 1);
    return 0;
}
