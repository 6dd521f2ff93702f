/* Megatron golden values (golden_values.h). The file is walked member by
 * member rather than loaded as a tree: the tree keeps a repeated key once
 * (a dict), and a step given twice with different values must be seen. */
#include "format/golden_values.h"
#include "format/json.h"
#include "format/jsonw.h"
#include "py/numfmt.h"
#include "base/arena.h"
#include "base/err.h"
#include "base/files.h"
#include "base/mem.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int golden_sniff(const void *data, size_t n)
{
    const unsigned char *p = data;
    size_t i = 0;
    if (n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF)
        i = 3;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
        i++;
    return i < n && p[i] == '{';
}

/* "is not Megatron golden values: <why>" (names in the why are cut at 200
 * bytes by the callers' %.200s). */
static int not_golden(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int not_golden(const char *path, const char *fmt, ...)
{
    char why[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return err_input(path, "is not Megatron golden values: %s", why);
}

/* A step key as pydantic reads an int from a string: optional blanks and
 * sign, decimal digits. */
static int step_of(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    while (n > i && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    int neg = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    if (i == n)
        return -1;
    uint64_t v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (uint64_t)INT64_MAX / 10)
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > (uint64_t)INT64_MAX)
        return -1;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

static int integral(const jval *v)
{
    return v && v->type == J_NUMBER && isfinite(v->u.num) && floor(v->u.num) == v->u.num;
}

static int same_value(const curve *s, size_t i, size_t j)
{
    int ki = curve_kind_at(s, i), kj = curve_kind_at(s, j);
    if ((ki == CV_STR) != (kj == CV_STR))
        return 0;
    if (ki == CV_STR)
        return strcmp(s->text[i], s->text[j]) == 0;
    double a = s->value[i], b = s->value[j];
    return a == b || (isnan(a) && isnan(b));
}

/* After the values of a metric: steps in order, a repeated one refused
 * unless it repeats the same value. */
static int settle_metric(const char *path, curve *s)
{
    size_t *order = xmalloc_array(s->n ? s->n : 1, sizeof *order);
    for (size_t i = 0; i < s->n; i++)
        order[i] = i;
    /* values come in step order nearly always: insertion sort */
    for (size_t i = 1; i < s->n; i++) {
        size_t x = order[i], j = i;
        while (j > 0 && s->step[order[j - 1]] > s->step[x]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = x;
    }
    int rc = 0;
    for (size_t i = 1; i < s->n && rc == 0; i++)
        if (s->step[order[i]] == s->step[order[i - 1]] && !same_value(s, order[i], order[i - 1]))
            rc = not_golden(path, "step %lld of metric '%.200s' is given twice with different values",
                            (long long)s->step[order[i]], s->name);
    free(order);
    if (rc == 0)
        curve_settle(s, 1);
    return rc;
}

static int read_values(const char *path, jparser *jp, arena *a, curve *s)
{
    if (jp_peek(jp) != '{') {
        if (jp_peek(jp) == '[')
            return not_golden(path, "the values of metric '%.200s' are a list (the old format), not an object of steps",
                              s->name);
        return not_golden(path, "the values of metric '%.200s' are not an object of steps", s->name);
    }
    if (jp_object_begin(jp) != 0)
        return -1;
    const char *key;
    size_t keylen;
    int k;
    while ((k = jp_object_next(jp, a, &key, &keylen)) > 0) {
        int64_t step;
        if (step_of(key, keylen, &step) != 0)
            return not_golden(path, "step '%.*s' of metric '%.200s' is not an integer", (int)(keylen > 60 ? 60 : keylen),
                              key, s->name);
        jval v;
        if (jp_value(jp, a, &v) != 0)
            return -1;
        if (v.type == J_NUMBER)
            curve_push(s, step, v.u.num, v.is_int ? CV_INT : CV_FLOAT);
        else if (v.type == J_STRING)
            curve_push_text(s, step, v.u.str, v.len);
        else
            return not_golden(path, "the value of step %lld of metric '%.200s' is neither a number nor a string",
                              (long long)step, s->name);
    }
    if (k < 0)
        return -1;
    if (s->n == 0)
        return not_golden(path, "metric '%.200s' has no values", s->name);
    return settle_metric(path, s);
}

static int read_metric(const char *path, jparser *jp, arena *a, curves *out, const char *name, size_t len)
{
    if (curves_find(out, name, len))
        return not_golden(path, "metric '%.200s' is given twice", name);
    curve *s = curves_get(out, name, len);
    if (jp_peek(jp) != '{')
        return not_golden(path, "metric '%.200s' is not an object", name);
    if (jp_object_begin(jp) != 0)
        return -1;
    const char *key;
    size_t keylen;
    int k, have_values = 0;
    static const char *const fields[] = {"start_step", "end_step", "step_interval"};
    int have[3] = {0, 0, 0};
    while ((k = jp_object_next(jp, a, &key, &keylen)) > 0) {
        if (keylen == 6 && !memcmp(key, "values", 6)) {
            /* a repeated "values" member: the last one counts, as in a dict */
            s = curves_find(out, name, len);
            curve_clear(s);
            if (read_values(path, jp, a, s) != 0)
                return -1;
            have_values = 1;
            continue;
        }
        int f = -1;
        for (int i = 0; i < 3; i++)
            if (keylen == strlen(fields[i]) && !memcmp(key, fields[i], keylen))
                f = i;
        jval v;
        if (jp_value(jp, a, &v) != 0)
            return -1;
        if (f < 0)
            continue;   /* pydantic ignores other fields */
        if (!integral(&v))
            return not_golden(path, "%s of metric '%.200s' is not an integer", fields[f], name);
        have[f] = 1;
    }
    if (k < 0)
        return -1;
    for (int i = 0; i < 3; i++)
        if (!have[i])
            return not_golden(path, "metric '%.200s' has no %s", name, fields[i]);
    if (!have_values)
        return not_golden(path, "metric '%.200s' has no values", name);
    return 0;
}

int golden_parse(const char *path, const void *buf, size_t len, curves *out)
{
    jparser jp;
    arena a;
    jp_init(&jp, path, buf, len);
    arena_init(&a, 1 << 16);
    int rc = 0;
    int first = jp_peek(&jp);
    if (first < 0) {
        rc = err_input(path, "is empty");
        goto done;
    }
    if (first != '{') {
        /* malformed JSON gets the reader's message; a list or a number is
         * no golden values */
        jval v;
        rc = jp_value(&jp, &a, &v) != 0 ? -1 : not_golden(path, "it is not a JSON object");
        goto done;
    }
    if ((rc = jp_object_begin(&jp)) != 0)
        goto done;
    const char *key;
    size_t keylen;
    int k;
    while ((k = jp_object_next(&jp, &a, &key, &keylen)) > 0) {
        /* the key lives in the arena, reset below: copy it before */
        char *name = xstrndup(key, keylen);
        rc = read_metric(path, &jp, &a, out, name, keylen);
        free(name);
        if (rc != 0)
            goto done;
    }
    if (k < 0 || (rc = jp_end(&jp)) != 0) {
        rc = -1;
        goto done;
    }
    if (out->n == 0)
        rc = not_golden(path, "it holds no metric");
done:
    arena_free(&a);
    jp_free(&jp);
    return rc;
}

int golden_read(const char *path, curves *out)
{
    mapped_file f;
    if (file_load(path, 0, &f) != 0)
        return -1;
    int rc = golden_parse(path, f.data, f.size, out);
    file_unmap(&f);
    return rc;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    if (a < 0)
        a = -a;
    if (b < 0)
        b = -b;
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int64_t golden_step_interval(const int64_t *steps, size_t n, int64_t start_idx, int64_t default_)
{
    int64_t g = 0, prev = 0;
    size_t cadence = 0;
    for (size_t i = 0; i < n; i++) {
        if (steps[i] == start_idx)
            continue;
        if (cadence++)
            g = gcd64(g, steps[i] - prev);
        prev = steps[i];
    }
    return cadence < 2 ? default_ : g;
}

void golden_format(strbuf *sb, const curves *c, int64_t start_idx, int64_t default_interval)
{
    int any = 0;
    sb_addc(sb, '{');
    for (size_t m = 0; m < c->n; m++) {
        const curve *s = &c->v[m];
        if (!s->n)
            continue;
        if (any++)
            sb_addc(sb, ',');
        jsonw_newline(sb, 4, 1);
        jsonw_str_ascii(sb, s->name, strlen(s->name));
        sb_adds(sb, ": {");
        jsonw_key(sb, 4, 2, "start_step");
        sb_addf(sb, "%lld,", (long long)s->step[0]);
        jsonw_key(sb, 4, 2, "end_step");
        sb_addf(sb, "%lld,", (long long)s->step[s->n - 1]);
        jsonw_key(sb, 4, 2, "step_interval");
        sb_addf(sb, "%lld,", (long long)golden_step_interval(s->step, s->n, start_idx, default_interval));
        jsonw_key(sb, 4, 2, "values");
        sb_addc(sb, '{');
        for (size_t i = 0; i < s->n; i++) {
            if (i)
                sb_addc(sb, ',');
            jsonw_newline(sb, 4, 3);
            sb_addf(sb, "\"%lld\": ", (long long)s->step[i]);
            int kind = curve_kind_at(s, i);
            double x = s->value[i];
            if (kind == CV_STR)
                jsonw_str_ascii(sb, s->text[i], strlen(s->text[i]));
            else if (isnan(x))
                sb_adds(sb, "\"nan\"");
            else if (kind == CV_INT && fabs(x) < 9007199254740992.0)
                sb_addf(sb, "%lld", (long long)x);
            else
                jsonw_double(sb, x);
        }
        jsonw_newline(sb, 4, 2);
        sb_adds(sb, "}");
        jsonw_newline(sb, 4, 1);
        sb_addc(sb, '}');
    }
    jsonw_newline(sb, 4, 0);
    sb_addc(sb, '}');
}
