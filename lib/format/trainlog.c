/* Training logs (trainlog.h). A line is recognised by its fixed words
 * ("iteration N/ M |", "{ Epoch:[", "validation loss at iteration"), then
 * split into its "key: value" fields; nothing is copied but the names of
 * new series and the values. */
#include "format/trainlog.h"
#include "py/numfmt.h"
#include "base/err.h"
#include "base/files.h"
#include "base/mem.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A name met in the log: its series, or -1 when the caller does not want
 * it (decided once per name). */
typedef struct {
    char *name;
    size_t len;
    long series;
} known_name;

enum { FIELD_CACHE = 64 };

struct trainlog_state {
    const char *path;
    curves *out;
    int (*want)(void *ctx, const char *name, size_t len);
    void *want_ctx;
    strmap names;            /* name -> position in known */
    known_name *known;
    size_t nknown, knowncap;
    /* the k-th "key: value" field of the last Megatron line: lines repeat
     * their fields in the same order, so one memcmp of the printed key
     * finds its series (and whether its value is wanted at all) */
    struct {
        char *key;          /* as printed */
        size_t len;
        long known;
        double scale;
    } field[FIELD_CACHE];
    int in_args;             /* inside Megatron's argument dump */
    int64_t mf_step;         /* the step of the last MindFormers loss line, -1 none */
    size_t recognised;
    const char *data;        /* the whole log, when trainlog_parse reads it (to name lines) */
    size_t size;
};

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

static void trim(const char **s, size_t *n)
{
    while (*n && is_space(**s))
        (*s)++, (*n)--;
    while (*n && is_space((*s)[*n - 1]))
        (*n)--;
}

static const char *find(const char *s, size_t n, const char *what)
{
    return memmem(s, n, what, strlen(what));
}

/* JSON's number grammar: what parse_double reads. */
static int json_shaped(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && s[i] == '-')
        i++;
    if (i == n || s[i] < '0' || s[i] > '9')
        return 0;
    if (s[i] == '0' && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')
        return 0;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    if (i < n && s[i] == '.') {
        if (++i == n || s[i] < '0' || s[i] > '9')
            return 0;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i == n || s[i] < '0' || s[i] > '9')
            return 0;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    return i == n;
}

/* A number as Python prints it (%f, %E, str(): JSON-shaped digits), or
 * nan / inf in any case, signed; other decimal spellings ("+1", "1.",
 * "007") as strtod reads them. 0 with *x, -1 when it is none. */
static int number(const char *s, size_t n, double *x)
{
    trim(&s, &n);
    if (!n || n > 64)
        return -1;
    if (json_shaped(s, n)) {
        *x = parse_double(s, n);
        return 0;
    }
    const char *p = s;
    size_t k = n;
    int neg = 0;
    if (*p == '-' || *p == '+')
        neg = *p == '-', p++, k--;
    if (k == 3 && !strncasecmp(p, "nan", 3)) {
        *x = neg ? -NAN : NAN;
        return 0;
    }
    if ((k == 3 && !strncasecmp(p, "inf", 3)) || (k == 8 && !strncasecmp(p, "infinity", 8))) {
        *x = neg ? -INFINITY : INFINITY;
        return 0;
    }
    for (size_t i = 0; i < k; i++)
        if (!((p[i] >= '0' && p[i] <= '9') || p[i] == '.' || p[i] == 'e' || p[i] == 'E' || p[i] == '+' ||
              p[i] == '-'))
            return -1;
    char buf[72], *e;
    memcpy(buf, s, n);
    buf[n] = 0;
    *x = strtod(buf, &e);
    return e == buf + n && e != buf ? 0 : -1;
}

static long known_of(trainlog_state *st, const char *name, size_t len)
{
    size_t *at = strmap_get(&st->names, name, len);
    if (at)
        return (long)*at;
    GROW(st->known, st->knowncap, st->nknown + 1);
    known_name *k = &st->known[st->nknown];
    k->name = xstrndup(name, len);
    k->len = len;
    k->series = -1;
    if (!st->want || st->want(st->want_ctx, name, len))
        k->series = (long)(curves_get(st->out, name, len) - st->out->v);
    int added;
    strmap_put(&st->names, k->name, len, st->nknown, &added);
    return (long)st->nknown++;
}

static void push(trainlog_state *st, long known, int64_t step, double x)
{
    long series = st->known[known].series;
    if (series >= 0)
        curve_push(&st->out->v[series], step, x, CV_FLOAT);
}

static void put(trainlog_state *st, const char *name, size_t len, int64_t step, double x)
{
    push(st, known_of(st, name, len), step, x);
}

/* A Megatron field's printed name, as its TensorBoard tag; scale is what
 * the value is multiplied by. NULL: the name as printed. */
static const char *megatron_tag(const char *k, size_t n, double *scale)
{
    static const struct {
        const char *printed, *tag;
        double scale;
    } map[] = {
        {"grad norm", "grad-norm", 1},
        {"num zeros", "num-zeros", 1},
        {"params norm", "params-norm", 1},
        {"learning rate", "learning-rate", 1},
        {"loss scale", "loss-scale", 1},
        {"global batch size", "batch-size", 1},
        {"throughput per GPU (TFLOP/s/GPU)", "throughput", 1},
        {"elapsed time per iteration (ms)", "iteration-time", 1e-3},
    };
    *scale = 1;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].printed[0] == k[0] && strlen(map[i].printed) == n && !memcmp(map[i].printed, k, n)) {
            *scale = map[i].scale;
            return map[i].tag;
        }
    return NULL;
}

/* "key: value" fields separated by '|' in s[0..n); `suffix` mode names
 * validation fields. */
static void megatron_fields(trainlog_state *st, const char *s, size_t n, int64_t step, const char *vsuffix,
                            size_t vslen)
{
    int ordinal = 0;
    while (n) {
        const char *bar = memchr(s, '|', n);
        size_t flen = bar ? (size_t)(bar - s) : n;
        const char *f = s;
        size_t fl = flen;
        s += flen + (bar != NULL);
        n -= flen + (bar != NULL);
        trim(&f, &fl);
        const char *colon = NULL;
        for (size_t i = fl; i-- > 0;)
            if (f[i] == ':') {
                colon = f + i;
                break;
            }
        if (!colon)
            continue;
        const char *k = f;
        size_t kl = (size_t)(colon - f);
        trim(&k, &kl);
        if (!kl)
            continue;
        const char *v = colon + 1;
        size_t vl = (size_t)(f + fl - colon - 1);
        double x;
        if (!vsuffix) {
            int at = ordinal++;
            if (at < FIELD_CACHE && st->field[at].key && st->field[at].len == kl && !memcmp(st->field[at].key, k, kl)) {
                long kn = st->field[at].known;
                if (st->known[kn].series >= 0 && number(v, vl, &x) == 0)
                    push(st, kn, step, x * st->field[at].scale);
                continue;
            }
            if (number(v, vl, &x) != 0) {
                ordinal--;
                continue;
            }
            double scale;
            const char *tag = megatron_tag(k, kl, &scale);
            long kn = tag ? known_of(st, tag, strlen(tag)) : known_of(st, k, kl);
            if (at < FIELD_CACHE) {
                free(st->field[at].key);
                st->field[at].key = xstrndup(k, kl);
                st->field[at].len = kl;
                st->field[at].known = kn;
                st->field[at].scale = scale;
            }
            push(st, kn, step, x * scale);
            continue;
        }
        if (number(v, vl, &x) != 0)
            continue;
        {
            /* "lm loss value" -> "lm loss validation", "lm loss PPL" -> "... validation ppl" */
            char name[600];
            int ppl = kl > 4 && !memcmp(k + kl - 4, " PPL", 4), val = kl > 6 && !memcmp(k + kl - 6, " value", 6);
            if ((!ppl && !val) || kl > 400)
                continue;
            size_t base = kl - (ppl ? 4 : 6);
            int w = snprintf(name, sizeof name, "%.*s validation%.*s%s", (int)base, k, (int)vslen, vsuffix,
                             ppl ? " ppl" : "");
            put(st, name, (size_t)w, step, x);
        }
    }
}

/* An unsigned decimal at *p (spaces before it skipped): 0 and moved past,
 * -1 when none. */
static int uint_at(const char **p, const char *end, int64_t *v)
{
    const char *q = *p;
    while (q < end && *q == ' ')
        q++;
    if (q == end || *q < '0' || *q > '9')
        return -1;
    int64_t x = 0;
    while (q < end && *q >= '0' && *q <= '9') {
        if (x > (INT64_MAX - 9) / 10)
            return -1;
        x = x * 10 + (*q++ - '0');
    }
    *v = x;
    *p = q;
    return 0;
}

static int megatron_line(trainlog_state *st, const char *s, size_t n)
{
    const char *end = s + n, *it = find(s, n, "iteration ");
    if (!it || (it > s && it[-1] != ' ' && it[-1] != ']'))
        return 0;
    /* a validation line: "validation[-name] loss at iteration N | ..." */
    const char *v = find(s, (size_t)(it - s), "validation");
    const char *p = it + 10;
    int64_t step, total;
    if (uint_at(&p, end, &step) != 0)
        return 0;
    if (v) {
        const char *at = find(v, (size_t)(it - v), " loss at ");
        if (!at || at + 9 != it)
            return 0;
        while (p < end && *p == ' ')
            p++;
        if (p == end || *p != '|')
            return 0;
        megatron_fields(st, p + 1, (size_t)(end - p - 1), step, v + 10, (size_t)(at - v - 10));
        return 1;
    }
    if (p == end || *p != '/')
        return 0;
    p++;
    if (uint_at(&p, end, &total) != 0)
        return 0;
    while (p < end && *p == ' ')
        p++;
    if (p == end || *p != '|')
        return 0;
    megatron_fields(st, p + 1, (size_t)(end - p - 1), step, NULL, 0);
    return 1;
}

/* "Epoch:[  1/  2], step:[    1/  100]": the global step. */
static int mf_step(const char *s, size_t n, const char **rest, int64_t *step)
{
    const char *end = s + n, *e = find(s, n, "Epoch:[");
    if (!e)
        return 0;
    const char *p = e + 7;
    int64_t epoch, epochs, cur, per;
    if (uint_at(&p, end, &epoch) || p == end || *p++ != '/' || uint_at(&p, end, &epochs) || end - p < 9 ||
        memcmp(p, "], step:[", 9) != 0)
        return 0;
    p += 9;
    if (uint_at(&p, end, &cur) || p == end || *p++ != '/' || uint_at(&p, end, &per) || p == end || *p++ != ']')
        return 0;
    if (epoch < 1 || per < 1 || epoch > INT64_MAX / per)
        return 0;
    *step = (epoch - 1) * per + cur;
    *rest = p;
    return 1;
}

/* "[1.567]" or "1.567" or "12.3T" or "622ms": the number inside. */
static int mf_number(const char *s, size_t n, const char *unit, double *x)
{
    trim(&s, &n);
    if (n >= 2 && s[0] == '[' && s[n - 1] == ']')
        s++, n -= 2;
    size_t u = unit ? strlen(unit) : 0;
    if (u && n > u && !memcmp(s + n - u, unit, u))
        n -= u;
    return number(s, n, x);
}

static int mindformers_line(trainlog_state *st, const char *s, size_t n)
{
    const char *end = s + n, *p;
    int64_t step;
    if (!mf_step(s, n, &p, &step)) {
        /* "  4.2% |███   | 12.86000 samples/s/p  0:01:02 }" after a loss line */
        const char *sp = find(s, n, " samples/s/p");
        if (!sp || st->mf_step < 0)
            return 0;
        const char *b = sp;
        while (b > s && b[-1] != ' ')
            b--;
        double x;
        if (number(b, (size_t)(sp - b), &x) != 0)
            return 0;
        put(st, "throughput", 10, st->mf_step, x);
        st->mf_step = -1;
        return 1;
    }
    if (p < end && *p == ' ') {
        /* TrainingStateMonitor: "... step:[ 5/100] local_norm/w: 0.1234" */
        const char *q = p + 1, *colon = NULL;
        for (const char *c = end; c-- > q;)
            if (*c == ':') {
                colon = c;
                break;
            }
        double x;
        if (!colon || colon == q || number(colon + 1, (size_t)(end - colon - 1), &x) != 0)
            return 0;
        const char *k = q;
        size_t kl = (size_t)(colon - q);
        trim(&k, &kl);
        put(st, k, kl, step, x);
        return 1;
    }
    if (p == end || *p != ',')
        return 0;
    /* ", loss:[6.381/6.381], per_step_time: 622ms, lr: 1e-04, ...": fields
     * split at ", " (no value holds one: lr and global_norm are printed
     * from 0-d arrays) */
    p++;
    int any = 0;
    while (p < end) {
        const char *c = find(p, (size_t)(end - p), ", ");
        const char *f = p, *fe = c ? c : end;
        p = c ? c + 2 : end;
        const char *colon = memchr(f, ':', (size_t)(fe - f));
        if (!colon)
            continue;
        const char *k = f;
        size_t kl = (size_t)(colon - f);
        trim(&k, &kl);
        const char *v = colon + 1;
        size_t vl = (size_t)(fe - v);
        double x;
        if (kl == 4 && !memcmp(k, "loss", 4)) {
            /* "loss:[6.381/6.381]" (the step's and the mean) or "loss: 6.381" */
            trim(&v, &vl);
            if (vl && v[0] == '[') {
                const char *slash = memchr(v, '/', vl);
                if (!slash)
                    continue;
                vl = (size_t)(slash - v - 1);
                v++;
            }
            if (number(v, vl, &x) == 0)
                put(st, "loss", 4, step, x), any = 1;
        } else if (kl == 13 && !memcmp(k, "per_step_time", 13)) {
            if (mf_number(v, vl, "ms", &x) == 0)
                put(st, "iteration-time", 14, step, x);
        } else if (kl == 2 && !memcmp(k, "lr", 2)) {
            if (mf_number(v, vl, NULL, &x) == 0)
                put(st, "learning-rate", 13, step, x);
        } else if (kl == 10 && !memcmp(k, "loss_scale", 10)) {
            if (mf_number(v, vl, NULL, &x) == 0)
                put(st, "loss-scale", 10, step, x);
        } else if (kl == 11 && !memcmp(k, "global_norm", 11)) {
            if (mf_number(v, vl, NULL, &x) == 0)
                put(st, "grad-norm", 9, step, x);
        } else if (kl == 24 && !memcmp(k, "train_throughput_per_npu", 24)) {
            if (mf_number(v, vl, "T", &x) == 0)
                put(st, "model-flops-throughput-per-npu", 30, step, x);
        } else if (kl && mf_number(v, vl, NULL, &x) == 0) {
            put(st, k, kl, step, x);
        }
    }
    if (!any)
        return 0;
    st->mf_step = step;
    return 1;
}

/* "  lr ........................................ 0.0001" */
static int args_line(trainlog_state *st, const char *s, size_t n)
{
    if (n < 3 || s[0] != ' ' || s[1] != ' ' || s[2] == ' ')
        return 0;
    const char *end = s + n, *k = s + 2, *p = k;
    while (p < end && *p != ' ')
        p++;
    size_t kl = (size_t)(p - k);
    if (p == end)
        return 0;
    p++;
    while (p < end && *p == '.')
        p++;
    if (p < end && *p == ' ')
        p++;
    while (end > p && (end[-1] == '\r'))
        end--;
    curves_config_set(st->out, k, kl, p, (size_t)(end - p));
    return 1;
}

trainlog_state *trainlog_begin(const char *path, curves *out, int (*want)(void *, const char *, size_t), void *ctx)
{
    trainlog_state *st = xcalloc(1, sizeof *st);
    st->path = path;
    st->out = out;
    st->want = want;
    st->want_ctx = ctx;
    strmap_init(&st->names, 64);
    st->mf_step = -1;
    return st;
}

int trainlog_line(trainlog_state *st, const char *s, size_t n)
{
    if (n && s[n - 1] == '\r')
        n--;
    if (find(s, n, " arguments ---") && s[0] == '-') {
        st->in_args = !find(s, n, "end of arguments");
        return 0;
    }
    if (st->in_args) {
        if (args_line(st, s, n))
            return 0;
        st->in_args = 0;
    }
    /* Megatron's lines first: a log is made of them */
    int got = find(s, n, "iteration ") ? megatron_line(st, s, n) : 0;
    if (!got && (find(s, n, "Epoch:[") || find(s, n, "samples/s/p")))
        got = mindformers_line(st, s, n);
    st->recognised += (size_t)got;
    return got;
}

typedef struct {
    int64_t step;
    double value;
    size_t at;
} step_value;

static int by_step_at(const void *x, const void *y)
{
    const step_value *a = x, *b = y;
    if (a->step != b->step)
        return a->step < b->step ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

static int want_one(void *ctx, const char *name, size_t len)
{
    const char *w = ctx;
    return strlen(w) == len && !memcmp(w, name, len);
}

/* The lines of the first two values of `name` at `step` (reading the log
 * again: the values keep no line numbers, this is the error's path only). */
static void find_lines(const trainlog_state *st, const char *name, int64_t step, size_t line[2])
{
    line[0] = line[1] = 0;
    if (!st->data)
        return;
    curves c;
    curves_init(&c);
    trainlog_state *t = trainlog_begin(st->path, &c, want_one, (void *)name);
    const char *p = st->data, *end = p + st->size;
    size_t n = 0, found = 0;
    while (p < end && found < 2) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        size_t before = c.n ? c.v[0].n : 0;
        trainlog_line(t, p, (size_t)(le - p));
        n++;
        if (c.n && c.v[0].n > before && c.v[0].step[c.v[0].n - 1] == step)
            line[found++] = n;
        p = nl ? nl + 1 : end;
    }
    t->recognised = 1;
    trainlog_end(t);
    curves_free(&c);
}

/* Order every series by step; a step given twice must repeat its value. */
static int settle(trainlog_state *st)
{
    for (size_t c = 0; c < st->out->n; c++) {
        curve *s = &st->out->v[c];
        int ordered = 1;
        for (size_t i = 1; i < s->n && ordered; i++)
            ordered = s->step[i] > s->step[i - 1];
        if (!ordered) {
            step_value *v = xmalloc_array(s->n, sizeof *v);
            for (size_t i = 0; i < s->n; i++)
                v[i] = (step_value){s->step[i], s->value[i], i};
            qsort(v, s->n, sizeof *v, by_step_at);
            for (size_t i = 1; i < s->n; i++) {
                double x = v[i - 1].value, y = v[i].value;
                if (v[i].step == v[i - 1].step && x != y && !(isnan(x) && isnan(y))) {
                    size_t line[2];
                    find_lines(st, s->name, v[i].step, line);
                    int rc = err_input(st->path, "step %lld of '%s' is given twice with different values (lines %zu "
                                                 "and %zu); a log of two attempts at the same steps must be cut first",
                                       (long long)v[i].step, s->name, line[0], line[1]);
                    free(v);
                    return rc;
                }
            }
            free(v);
        }
        curve_settle(s, 1);
    }
    return 0;
}

int trainlog_end(trainlog_state *st)
{
    int rc = 0;
    if (!st->recognised)
        rc = err_input(st->path, "is no training log: no line of Megatron-LM, MindSpeed or MindSpore Transformers "
                                 "('iteration N/ M | ... | lm loss: ...', '{ Epoch:[...], step:[...], loss: ...') "
                                 "was found");
    else
        rc = settle(st);
    for (size_t i = 0; i < st->nknown; i++)
        free(st->known[i].name);
    for (int k = 0; k < FIELD_CACHE; k++)
        free(st->field[k].key);
    free(st->known);
    strmap_free(&st->names);
    free(st);
    return rc;
}

/* Every line of data[0..n); a mapped file's pages leave the process as
 * they are done (they stay in the page cache: the error path reads them
 * again). */
static int parse(const char *path, const void *data, size_t n, const mapped_file *f, curves *out,
                 int (*want)(void *ctx, const char *name, size_t len), void *ctx)
{
    trainlog_state *st = trainlog_begin(path, out, want, ctx);
    st->data = data;
    st->size = n;
    const char *s = data, *end = s + n, *dropped = s;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end;
        trainlog_line(st, s, (size_t)(le - s));
        s = nl ? nl + 1 : end;
        if (f && s - dropped >= (32 << 20)) {
            file_map_drop(f, 0, (size_t)(s - (const char *)data));
            dropped = s;
        }
    }
    return trainlog_end(st);
}

int trainlog_parse(const char *path, const void *data, size_t n, curves *out,
                   int (*want)(void *ctx, const char *name, size_t len), void *ctx)
{
    return parse(path, data, n, NULL, out, want, ctx);
}

int trainlog_parse_mapped(const char *path, const mapped_file *f, curves *out,
                          int (*want)(void *ctx, const char *name, size_t len), void *ctx)
{
    return parse(path, f->data, f->size, f, out, want, ctx);
}

int trainlog_sniff(const void *data, size_t n)
{
    curves c;
    curves_init(&c);
    trainlog_state *st = trainlog_begin("", &c, NULL, NULL);
    const char *s = data, *end = s + (n > (1 << 16) ? (1 << 16) : n);
    while (s < end && !st->recognised) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end;
        trainlog_line(st, s, (size_t)(le - s));
        s = nl ? nl + 1 : end;
    }
    int got = st->recognised > 0;
    st->recognised = 1;   /* no error for the sniff */
    trainlog_end(st);
    err_clear();
    curves_free(&c);
    return got;
}
