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

struct trainlog_state {
    const char *path;
    curves *out;
    size_t **lines;          /* per series, the line of each value */
    size_t nlines;           /* series with a lines array */
    int in_args;             /* inside Megatron's argument dump */
    int64_t mf_step;         /* the step of the last MindFormers loss line, -1 none */
    size_t recognised;
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

static void note_line(trainlog_state *st, curve *s, size_t line)
{
    size_t ci = (size_t)(s - st->out->v);
    if (ci >= st->nlines) {
        size_t n = st->out->n;
        st->lines = xrealloc(st->lines, n * sizeof *st->lines);
        memset(st->lines + st->nlines, 0, (n - st->nlines) * sizeof *st->lines);
        st->nlines = n;
    }
    /* the lines array grows with the series' values (same capacity) */
    st->lines[ci] = xrealloc(st->lines[ci], s->cap * sizeof **st->lines);
    st->lines[ci][s->n - 1] = line;
}

static void put(trainlog_state *st, const char *name, size_t len, int64_t step, double x, size_t line)
{
    curve *s = curves_get(st->out, name, len);
    curve_push(s, step, x, CV_FLOAT);
    note_line(st, s, line);
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
        if (strlen(map[i].printed) == n && !memcmp(map[i].printed, k, n)) {
            *scale = map[i].scale;
            return map[i].tag;
        }
    return NULL;
}

/* "key: value" fields separated by '|' in s[0..n); `suffix` mode names
 * validation fields. */
static void megatron_fields(trainlog_state *st, const char *s, size_t n, int64_t step, size_t line, const char *vsuffix,
                            size_t vslen)
{
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
        double x;
        if (!kl || number(colon + 1, (size_t)(f + fl - colon - 1), &x) != 0)
            continue;
        if (vsuffix) {
            /* "lm loss value" -> "lm loss validation", "lm loss PPL" -> "... validation ppl" */
            char name[600];
            int ppl = kl > 4 && !memcmp(k + kl - 4, " PPL", 4), val = kl > 6 && !memcmp(k + kl - 6, " value", 6);
            if ((!ppl && !val) || kl > 400)
                continue;
            size_t base = kl - (ppl ? 4 : 6);
            int w = snprintf(name, sizeof name, "%.*s validation%.*s%s", (int)base, k, (int)vslen, vsuffix,
                             ppl ? " ppl" : "");
            put(st, name, (size_t)w, step, x, line);
            continue;
        }
        double scale;
        const char *tag = megatron_tag(k, kl, &scale);
        if (tag)
            put(st, tag, strlen(tag), step, x * scale, line);
        else
            put(st, k, kl, step, x, line);
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

static int megatron_line(trainlog_state *st, const char *s, size_t n, size_t line)
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
        megatron_fields(st, p + 1, (size_t)(end - p - 1), step, line, v + 10, (size_t)(at - v - 10));
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
    megatron_fields(st, p + 1, (size_t)(end - p - 1), step, line, NULL, 0);
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

static int mindformers_line(trainlog_state *st, const char *s, size_t n, size_t line)
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
        put(st, "throughput", 10, st->mf_step, x, line);
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
        put(st, k, kl, step, x, line);
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
                put(st, "loss", 4, step, x, line), any = 1;
        } else if (kl == 13 && !memcmp(k, "per_step_time", 13)) {
            if (mf_number(v, vl, "ms", &x) == 0)
                put(st, "iteration-time", 14, step, x, line);
        } else if (kl == 2 && !memcmp(k, "lr", 2)) {
            if (mf_number(v, vl, NULL, &x) == 0)
                put(st, "learning-rate", 13, step, x, line);
        } else if (kl == 10 && !memcmp(k, "loss_scale", 10)) {
            if (mf_number(v, vl, NULL, &x) == 0)
                put(st, "loss-scale", 10, step, x, line);
        } else if (kl == 11 && !memcmp(k, "global_norm", 11)) {
            if (mf_number(v, vl, NULL, &x) == 0)
                put(st, "grad-norm", 9, step, x, line);
        } else if (kl == 24 && !memcmp(k, "train_throughput_per_npu", 24)) {
            if (mf_number(v, vl, "T", &x) == 0)
                put(st, "model-flops-throughput-per-npu", 30, step, x, line);
        } else if (kl && mf_number(v, vl, NULL, &x) == 0) {
            put(st, k, kl, step, x, line);
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

trainlog_state *trainlog_begin(const char *path, curves *out)
{
    trainlog_state *st = xcalloc(1, sizeof *st);
    st->path = path;
    st->out = out;
    st->mf_step = -1;
    return st;
}

int trainlog_line(trainlog_state *st, const char *s, size_t n, size_t line)
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
    int got = find(s, n, "Epoch:[") ? mindformers_line(st, s, n, line) : 0;
    if (!got && find(s, n, "samples/s/p"))
        got = mindformers_line(st, s, n, line);
    if (!got && find(s, n, "iteration "))
        got = megatron_line(st, s, n, line);
    st->recognised += (size_t)got;
    return got;
}

static int settle(trainlog_state *st)
{
    for (size_t c = 0; c < st->out->n; c++) {
        curve *s = &st->out->v[c];
        size_t *lines = c < st->nlines ? st->lines[c] : NULL;
        /* order positions by step (stable); a repeat must repeat the value */
        size_t *order = xmalloc_array(s->n ? s->n : 1, sizeof *order);
        for (size_t i = 0; i < s->n; i++)
            order[i] = i;
        for (size_t i = 1; i < s->n; i++) {
            size_t x = order[i], j = i;
            if (s->step[order[j - 1]] <= s->step[x])
                continue;
            while (j > 0 && s->step[order[j - 1]] > s->step[x]) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = x;
        }
        int rc = 0;
        for (size_t i = 1; i < s->n && rc == 0; i++) {
            size_t a = order[i - 1], b = order[i];
            double x = s->value[a], y = s->value[b];
            if (s->step[a] == s->step[b] && x != y && !(isnan(x) && isnan(y)))
                rc = err_input(st->path, "step %lld of '%s' is given twice with different values (lines %zu and %zu); "
                                         "a log of two attempts at the same steps must be cut first",
                               (long long)s->step[a], s->name, lines ? lines[a] : 0, lines ? lines[b] : 0);
        }
        free(order);
        if (rc != 0)
            return -1;
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
    for (size_t i = 0; i < st->nlines; i++)
        free(st->lines[i]);
    free(st->lines);
    free(st);
    return rc;
}

int trainlog_parse(const char *path, const void *data, size_t n, curves *out)
{
    trainlog_state *st = trainlog_begin(path, out);
    const char *s = data, *end = s + n;
    size_t line = 0;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end;
        trainlog_line(st, s, (size_t)(le - s), ++line);
        s = nl ? nl + 1 : end;
    }
    return trainlog_end(st);
}

int trainlog_sniff(const void *data, size_t n)
{
    curves c;
    curves_init(&c);
    trainlog_state *st = trainlog_begin("", &c);
    const char *s = data, *end = s + (n > (1 << 16) ? (1 << 16) : n);
    size_t line = 0;
    while (s < end && !st->recognised) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end;
        trainlog_line(st, s, (size_t)(le - s), ++line);
        s = nl ? nl + 1 : end;
    }
    int got = st->recognised > 0;
    st->recognised = 1;   /* no error for the sniff */
    trainlog_end(st);
    err_clear();
    curves_free(&c);
    return got;
}
