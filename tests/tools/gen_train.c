/* gen_train: training curves in the files train_compare reads, for tests
 * and benchmarks:
 *
 *   gen_train --tb DIR [--tags 8] [--steps 100] [--files 1] [--seed 1] [--drift 0] [--tensor] [--text]
 *       TensorBoard event files as torch's SummaryWriter writes them, the
 *       steps split over --files files (sessions of one resumed run: names
 *       and modification times in order); tags "lm loss", "grad-norm",
 *       "num-zeros", "iteration-time", "learning-rate", then
 *       "layers.{i}/grad-norm"; --tensor writes every scalar as a
 *       one-element tensor (float, double, half and bfloat16 in turn, the
 *       newer writers' form), --text adds the arguments as text summaries
 *   gen_train --log FILE [--tags 8] [--steps 100] [--mb 0] [--seed 1] [--drift 0]
 *       a Megatron-LM training log (training_log's lines, the argument
 *       dump, validation lines every 50 iterations) of the same curves as
 *       the event files of the same seed and tags; --mb: as many
 *       iterations as make that many megabytes
 *
 * The curves are a decaying loss with noise; --drift scales the noise of a
 * second run (0.2: a fifth more). Prints "gen_train: N files, B bytes". */
#include "format/protobuf.h"
#include "format/tensor.h"
#include "format/tfevents.h"
#include "format/tfrecord.h"

#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

static uint64_t rng = 1;
static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static const char *const BASE_TAGS[] = {"lm loss", "grad-norm", "num-zeros", "iteration-time", "learning-rate"};
enum { NBASE = 5 };

static double value_of(int tag, long step, double drift)
{
    double noise = (uniform() - 0.5) * (1 + drift);
    switch (tag) {
    case 0: return 10.8 * exp(-step / 3000.0) + 1.5 + 0.02 * noise;
    case 1: return 1.2 + 0.1 * noise;
    case 2: return floor(25000 + 500 * noise);
    case 3: return 0.25 + 0.01 * noise;
    case 4: return 1e-4 * (step < 100 ? step / 100.0 : 1.0);
    default: return 0.01 * tag + 0.001 * noise;
    }
}

static void tag_name(int t, char *buf, size_t n)
{
    if (t < NBASE)
        snprintf(buf, n, "%s", BASE_TAGS[t]);
    else
        snprintf(buf, n, "layers.%d/grad-norm", t - NBASE);
}

/* An Event{wall_time, step, summary{value{tag, tensor{dtype, shape [], one value}}}}. */
static size_t tensor_event(uint8_t *out, double wall, long step, const char *tag, double v, int form)
{
    uint8_t tbuf[64], *p = tbuf;
    static const int dtypes[] = {TF_DT_FLOAT, TF_DT_DOUBLE, TF_DT_HALF, TF_DT_BFLOAT16};
    int dt = dtypes[form & 3];
    p = pb_varint(pb_key(p, 1, PB_VARINT), (uint64_t)dt);
    p = pb_len(p, 2, 0);                       /* tensor_shape {} : a scalar */
    if (dt == TF_DT_FLOAT) {
        p = pb_len(p, 5, 4);
        uint32_t b;
        float f = (float)v;
        memcpy(&b, &f, 4);
        p = pb_le(p, b, 4);
    } else if (dt == TF_DT_DOUBLE) {
        p = pb_double(p, 6, v);
    } else {
        uint16_t h = dt == TF_DT_HALF ? f32_to_f16((float)v) : f32_to_bf16((float)v);
        p = pb_len(p, 13, pb_varint_size(h));
        p = pb_varint(p, h);
    }
    size_t tlen = (size_t)(p - tbuf), taglen = strlen(tag);
    const char scalars[] = "scalars";
    /* Value{tag, metadata{plugin_data{plugin_name}}, tensor} */
    size_t meta = pb_len_size(1, pb_len_size(1, sizeof scalars - 1));
    size_t value = pb_len_size(1, taglen) + pb_len_size(9, meta) + pb_len_size(8, tlen);
    uint8_t *q = pb_double(out, 1, wall);
    if (step)
        q = pb_int64(q, 2, step);
    q = pb_len(q, 5, pb_len_size(1, value));
    q = pb_len(q, 1, value);
    q = pb_bytes(q, 1, tag, taglen);
    q = pb_len(q, 9, meta);
    q = pb_len(q, 1, pb_len_size(1, sizeof scalars - 1));
    q = pb_bytes(q, 1, scalars, sizeof scalars - 1);
    q = pb_bytes(q, 8, tbuf, tlen);
    return (size_t)(q - out);
}

/* add_text(key, text): Value{tag "key/text_summary", metadata{plugin text}, tensor{DT_STRING, string_val}} */
static size_t text_event(uint8_t *out, double wall, const char *key, const char *text)
{
    char tag[256];
    snprintf(tag, sizeof tag, "%s/text_summary", key);
    size_t taglen = strlen(tag), n = strlen(text);
    const char plugin[] = "text";
    uint8_t tbuf[512], *p = tbuf;
    p = pb_varint(pb_key(p, 1, PB_VARINT), TF_DT_STRING);
    p = pb_len(p, 2, 4);   /* tensor_shape { dim { size: 1 } } */
    p = pb_len(p, 2, 2);
    p = pb_varint(pb_key(p, 1, PB_VARINT), 1);
    p = pb_bytes(p, 8, text, n);
    size_t tlen = (size_t)(p - tbuf);
    size_t meta = pb_len_size(1, pb_len_size(1, sizeof plugin - 1));
    size_t value = pb_len_size(1, taglen) + pb_len_size(9, meta) + pb_len_size(8, tlen);
    uint8_t *q = pb_double(out, 1, wall);
    q = pb_len(q, 5, pb_len_size(1, value));
    q = pb_len(q, 1, value);
    q = pb_bytes(q, 1, tag, taglen);
    q = pb_len(q, 9, meta);
    q = pb_len(q, 1, pb_len_size(1, sizeof plugin - 1));
    q = pb_bytes(q, 1, plugin, sizeof plugin - 1);
    q = pb_bytes(q, 8, tbuf, tlen);
    return (size_t)(q - out);
}

/* mkdir -p of path, or of its directory (parent_only) */
static void make_dirs(const char *path, int parent_only)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    if (parent_only) {
        char *slash = strrchr(buf, '/');
        if (!slash)
            return;
        *slash = 0;
    }
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(buf, 0755);
            *p = '/';
        }
    mkdir(buf, 0755);
}

static int gen_tb(const char *dir, int tags, long steps, int files, double drift, int as_tensor, int text)
{
    make_dirs(dir, 0);
    uint64_t bytes = 0;
    uint8_t (*enc)[256] = malloc((size_t)tags * sizeof *enc);
    size_t *enclen = malloc((size_t)tags * sizeof *enclen);
    char **names = malloc((size_t)tags * sizeof *names);
    for (int t = 0; t < tags; t++) {
        char name[64];
        tag_name(t, name, sizeof name);
        names[t] = strdup(name);
        enclen[t] = tfevents_tag_encode(enc[t], name, strlen(name));
    }
    long per = (steps + files - 1) / files;
    double wall0 = 1700000000.0;
    for (int f = 0; f < files; f++) {
        double wall = wall0 + 100.0 * f;
        char path[4096];
        snprintf(path, sizeof path, "%s/events.out.tfevents.%010ld.gen.%d.0", dir, (long)wall, 1000 + f);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || close(fd) != 0) {
            perror(path);
            return 1;
        }
        tfevents_writer w;
        if (tfevents_open(&w, path, path, wall) != 0) {
            fprintf(stderr, "gen_train: cannot write %s\n", path);
            return 1;
        }
        if (text && f == 0) {
            static const char *const args[][2] = {{"lr", "0.0001"}, {"seed", "1234"}, {"micro_batch_size", "4"}};
            for (size_t i = 0; i < 3; i++) {
                uint8_t *p = tfrecord_reserve(&w.rec, 1024);
                tfrecord_commit(&w.rec, text_event(p, wall, args[i][0], i == 1 && drift > 0 ? "4321" : args[i][1]));
            }
        }
        for (long s = 1 + f * per; s <= steps && s <= (f + 1) * per; s++)
            for (int t = 0; t < tags; t++) {
                double v = value_of(t, s, drift);
                if (as_tensor) {
                    uint8_t *p = tfrecord_reserve(&w.rec, 512);
                    tfrecord_commit(&w.rec, tensor_event(p, wall, s, names[t], v, (int)(s + t)));
                } else {
                    tfevents_add_encoded(&w, s, enc[t], enclen[t], (float)v);
                }
            }
        bytes += tfrecord_size(&w.rec);
        if (tfevents_close(&w) != 0) {
            fprintf(stderr, "gen_train: cannot write %s\n", path);
            return 1;
        }
        /* modification times in session order, as a resumed run leaves them */
        struct timeval tv[2] = {{(long)wall + 50, 0}, {(long)wall + 50, 0}};
        utimes(path, tv);
    }
    for (int t = 0; t < tags; t++)
        free(names[t]);
    free(names);
    free(enc);
    free(enclen);
    printf("gen_train: %d files, %llu bytes\n", files, (unsigned long long)bytes);
    return 0;
}

static int gen_log(const char *path, int tags, long steps, double mb, double drift)
{
    make_dirs(path, 1);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 1;
    }
    fprintf(f, "------------------------ arguments ------------------------\n");
    static const char *const args[][2] = {{"lr", "0.0001"}, {"micro_batch_size", "4"}, {"seed", "1234"},
                                          {"train_iters", "100"}};
    for (size_t i = 0; i < 4; i++) {
        const char *v = i == 2 && drift > 0 ? "4321" : args[i][1];
        fprintf(f, "  %s %.*s %s\n", args[i][0], (int)(48 - strlen(args[i][0])),
                "................................................", v);
    }
    fprintf(f, "-------------------- end of arguments ---------------------\n");
    uint64_t limit = mb > 0 ? (uint64_t)(mb * 1e6) : 0;
    long total = limit ? 100000000 : steps;
    for (long s = 1; s <= total; s++) {
        /* the same draws as the event files of the same seed and tags */
        double v[NBASE] = {0};
        for (int t = 0; t < tags; t++) {
            double x = value_of(t, s, drift);
            if (t < NBASE)
                v[t] = x;
        }
        double loss = v[0], gn = v[1], nz = v[2], it = v[3], lr = v[4];
        fprintf(f,
                " [2025-01-01 10:00:00.000000] iteration %8ld/%8ld | consumed samples: %12ld | elapsed time per "
                "iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch "
                "size: %5d | lm loss: %.6E | loss scale: %.1f | grad norm: %.3f | num zeros: %.1f | params norm: "
                "%.3f | number of skipped iterations: %3d | number of nan iterations: %3d |\n",
                s, total, s * 32, it * 1000, 123.4, lr, 32, loss, 1.0, gn, nz, 210.5 + s * 1e-3, 0, 0);
        if (s % 50 == 0) {
            char line[256];
            int n = snprintf(line, sizeof line, " validation loss at iteration %ld | lm loss value: %.6E | lm loss PPL: "
                                                "%.6E | ", s, loss + 0.1, exp(loss + 0.1));
            fprintf(f, "%.*s\n", n + 1 > 2 ? n + 1 : 0, "------------------------------------------------------------"
                                                          "------------------------------------------------------");
            fprintf(f, "%s\n", line);
            fprintf(f, "%.*s\n", n + 1 > 2 ? n + 1 : 0, "------------------------------------------------------------"
                                                          "------------------------------------------------------");
        }
        if (limit && (uint64_t)ftell(f) >= limit)
            break;
    }
    long bytes = ftell(f);
    if (fclose(f) != 0) {
        perror(path);
        return 1;
    }
    printf("gen_train: 1 files, %ld bytes\n", bytes);
    return 0;
}

int main(int argc, char **argv)
{
    const char *tb = NULL, *log = NULL;
    int tags = 8, files = 1, as_tensor = 0, text = 0;
    long steps = 100;
    double drift = 0, mb = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--tensor")) {
            as_tensor = 1;
            continue;
        }
        if (!strcmp(a, "--text")) {
            text = 1;
            continue;
        }
        if (!v) {
            fprintf(stderr, "gen_train: %s needs a value\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "--tb"))
            tb = v;
        else if (!strcmp(a, "--log"))
            log = v;
        else if (!strcmp(a, "--tags"))
            tags = atoi(v);
        else if (!strcmp(a, "--steps"))
            steps = atol(v);
        else if (!strcmp(a, "--files"))
            files = atoi(v);
        else if (!strcmp(a, "--seed"))
            rng = strtoull(v, NULL, 10) * 0x9E3779B97F4A7C15ull + 1;
        else if (!strcmp(a, "--drift"))
            drift = atof(v);
        else if (!strcmp(a, "--mb"))
            mb = atof(v);
        else {
            fprintf(stderr, "gen_train: unknown option %s\n", a);
            return 2;
        }
    }
    if (tags < 1 || steps < 1 || files < 1 || (!tb && !log)) {
        fprintf(stderr, "usage: gen_train --tb DIR | --log FILE [--tags N] [--steps N] [--files N] [--seed N]\n");
        return 2;
    }
    return tb ? gen_tb(tb, tags, steps, files, drift, as_tensor, text) : gen_log(log, tags, steps, mb, drift);
}
