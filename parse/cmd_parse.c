/* `msprobe parse`: look inside one tensor file (.npy or .pt), or compare two
 * with msprobe's ALL-mode metrics. */
#include "parse/commands.h"
#include "format/jsonw.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/err.h"
#include "base/mem.h"
#include "format/tensor_file.h"
#include "model/metrics.h"
#include "py/numfmt.h"
#include "base/strbuf.h"
#include "format/tensor.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DEFAULT_COUNT = 16, PER_ROW = 8, CHUNK = 1024 };

typedef struct {
    const char *file[2];
    int nfiles, json, zero_d_repeat;
    size_t count; /* values to print; SIZE_MAX: all */
    int count_arg, all;
} cli;

#define NOT_CONVERTER "the newest msprobe's parse converts Ascend dump files to .npy/.pt; this parse inspects .npy/.pt files given as arguments"

static const opt options[] = {
    OPT_STRING("FILE", cli, file[0], "FILE", "a tensor file (.npy or .pt, recognised by content)",
               .flags = OPT_REQUIRED | OPT_FILE),
    OPT_STRING("BENCH_FILE", cli, file[1], "BENCH_FILE", "a second one: compare FILE (the NPU side) with it",
               .flags = OPT_FILE),
    OPT_INT("-n --count", cli, count_arg, "N", 0, INT_MAX, "print the first N values", .def = "16"),
    OPT_BOOL("-a --all", cli, all, "print every value"),
    OPT_BOOL("--json", cli, json, "one JSON object on stdout instead of text"),
    OPT_BOOL("--zero-d-repeat | --compat", cli, zero_d_repeat,
             "repeat the 0-d tensor message 16 times in Err_message, as msprobe 8.1.0 does"),
    OPT_REFUSE("-d --dump_path", NOT_CONVERTER),
    OPT_REFUSE("-t --type", NOT_CONVERTER),
    OPT_REFUSE("-o --output_path", NOT_CONVERTER),
    OPT_END(),
};

static const opts_spec spec = {
    .usage = "[options] FILE\n"
             "[options] FILE BENCH_FILE",
    .about = "One tensor file (.npy or .pt, recognised by content): print its dtype, shape, element count, "
             "max/min/mean/L2 norm, NaN and inf counts and the first values.\n"
             "\n"
             "Two files: compare them as msprobe compare does in tensor mode and print the six metrics, the "
             "accuracy verdict and the Err_message.",
    .opts = options,
    .epilog = "Exit status: 0 done, 2 bad input or usage, 1 internal error.",
};

const command parse_command = {
    "parse", NULL, "inspect a tensor file (.npy, .pt), or compare two", &spec, cmd_parse,
};

static opts_result parse_args(int argc, char **argv, cli *o)
{
    memset(o, 0, sizeof *o);
    opts_result pr = opts_parse(&spec, argc, argv, o, 0, NULL);
    if (pr != OPTS_RUN)
        return pr;
    o->nfiles = o->file[1] ? 2 : 1;
    o->count = o->all ? SIZE_MAX : (size_t)o->count_arg;
    return OPTS_RUN;
}

/* ---- text of values ------------------------------------------------------ */

/* Text: Python's repr of a float of the tensor's dtype the way numpy
 * prints it, the shortest digits that read back as the same float16 /
 * bfloat16 / float32 (at most 9 digits, so the double nearest to them
 * reprints them unchanged).  JSON is for machines: the exact value, as
 * Python's json module writes the double. */
static void put_float(strbuf *sb, dtype_id dt, double v, int json)
{
    char buf[NUMFMT_BUFSZ];
    if (json) {
        jsonw_double(sb, v);
        return;
    }
    if (!isnan(v) && !isinf(v) && (dt == DT_F16 || dt == DT_BF16 || dt == DT_F32)) {
        float f = (float)v;
        for (int p = 1; p <= 9; p++) {
            char digits[32];
            snprintf(digits, sizeof digits, "%.*e", p - 1, v);
            float back = strtof(digits, NULL);
            int same = dt == DT_F32    ? back == f
                       : dt == DT_F16  ? f32_to_f16(back) == f32_to_f16(f)
                                       : f32_to_bf16(back) == f32_to_bf16(f);
            if (same) {
                v = strtod(digits, NULL);
                break;
            }
        }
    }
    fmt_pyrepr(v, buf);
    sb_adds(sb, buf);
}

/* Python's complex repr: "(1+2j)", "1.5j"; parts without a trailing ".0". */
static void put_complex(strbuf *sb, dtype_id part, double re, double im, int json)
{
    if (json) {
        sb_addc(sb, '[');
        put_float(sb, part, re, 1);
        sb_adds(sb, ", ");
        put_float(sb, part, im, 1);
        sb_addc(sb, ']');
        return;
    }
    strbuf t = STRBUF_INIT;
    int only_im = re == 0 && !signbit(re);
    if (!only_im) {
        put_float(&t, part, re, 0);
        if (t.len > 2 && !strcmp(t.buf + t.len - 2, ".0"))
            t.len -= 2;
        sb_addc(sb, '(');
        sb_add(sb, t.buf, t.len);
        if (!signbit(im) || isnan(im))
            sb_addc(sb, '+');
    }
    sb_reset(&t);
    put_float(&t, part, im, 0);
    if (t.len > 2 && !strcmp(t.buf + t.len - 2, ".0"))
        t.len -= 2;
    sb_add(sb, t.buf, t.len);
    sb_adds(sb, only_im ? "j" : "j)");
    sb_free(&t);
}

/* One element of any dtype, read in native byte order. */
typedef struct {
    double re, im;
    int64_t i;
    uint64_t u;
} value;

static int is_signed_int(dtype_id dt) { return dt == DT_I8 || dt == DT_I16 || dt == DT_I32 || dt == DT_I64; }

static void decode(dtype_id dt, const unsigned char *raw, const double *c, value *v)
{
    v->re = c[0];
    v->im = c[1];
    v->i = 0;
    v->u = 0;
    switch (dt) {
    case DT_BOOL: v->u = raw[0] != 0; break;
    case DT_I8: { int8_t x; memcpy(&x, raw, 1); v->i = x; break; }
    case DT_U8: v->u = raw[0]; break;
    case DT_I16: { int16_t x; memcpy(&x, raw, 2); v->i = x; break; }
    case DT_U16: { uint16_t x; memcpy(&x, raw, 2); v->u = x; break; }
    case DT_I32: { int32_t x; memcpy(&x, raw, 4); v->i = x; break; }
    case DT_U32: { uint32_t x; memcpy(&x, raw, 4); v->u = x; break; }
    case DT_I64: memcpy(&v->i, raw, 8); break;
    case DT_U64: memcpy(&v->u, raw, 8); break;
    default: break;
    }
}

static void put_value(strbuf *sb, dtype_id dt, const value *v, int json)
{
    if (dt == DT_BOOL)
        sb_adds(sb, v->u ? (json ? "true" : "True") : (json ? "false" : "False"));
    else if (is_signed_int(dt))
        sb_addf(sb, "%lld", (long long)v->i);
    else if (dtype_is_integer(dt))
        sb_addf(sb, "%llu", (unsigned long long)v->u);
    else if (dtype_is_complex(dt))
        put_complex(sb, dt == DT_C64 ? DT_F32 : DT_F64, v->re, v->im, json);
    else
        put_float(sb, dt, v->re, json);
}

/* Elements [start, start + n) of t, n <= CHUNK. */
static void read_values(const tensor *t, size_t start, size_t n, value *out)
{
    static const double zero[2] = {0, 0};
    unsigned char raw[CHUNK * 8];
    double c[2 * CHUNK];
    int ints = dtype_is_integer(t->dtype) || t->dtype == DT_BOOL;
    size_t es = dtype_size(t->dtype);
    if (ints)
        tensor_read_raw(t, start, n, raw);
    else
        tensor_read_complex(t, start, n, c);
    for (size_t k = 0; k < n; k++)
        decode(t->dtype, raw + k * (ints ? es : 0), ints ? zero : c + 2 * k, &out[k]);
}

/* ---- statistics ------------------------------------------------------------ */

typedef struct {
    value max, min;           /* by real part, NaN propagating like numpy */
    double sum, sum_im, sumsq;
    size_t nan, pinf, ninf;
} stats;

static int less(dtype_id dt, const value *a, const value *b)
{
    if (is_signed_int(dt))
        return a->i < b->i;
    if (dtype_is_integer(dt) || dt == DT_BOOL)
        return a->u < b->u;
    return a->re < b->re;
}

static double as_double(dtype_id dt, const value *v)
{
    if (is_signed_int(dt))
        return (double)v->i;
    if (dtype_is_integer(dt) || dt == DT_BOOL)
        return (double)v->u;
    return v->re;
}

static void compute_stats(const tensor *t, stats *s)
{
    memset(s, 0, sizeof *s);
    dtype_id dt = t->dtype;
    int has_nan = 0;
    value *vals = xmalloc_array(CHUNK, sizeof *vals);
    for (size_t start = 0; start < t->numel; start += CHUNK) {
        size_t n = t->numel - start < CHUNK ? t->numel - start : CHUNK;
        read_values(t, start, n, vals);
        /* per-chunk sums keep the rounding error of long tensors small */
        double sum = 0, sum_im = 0, sumsq = 0;
        for (size_t k = 0; k < n; k++) {
            const value *v = &vals[k];
            double x = as_double(dt, v);
            if (isnan(x) || isnan(v->im)) {
                s->nan++;
                has_nan = 1;
            } else if (isinf(x) || isinf(v->im)) {
                if ((isinf(x) ? x : v->im) > 0)
                    s->pinf++;
                else
                    s->ninf++;
            }
            if (start + k == 0) {
                s->max = s->min = *v;
            } else if (!has_nan) {
                if (less(dt, &s->max, v))
                    s->max = *v;
                if (less(dt, v, &s->min))
                    s->min = *v;
            }
            sum += x;
            sum_im += v->im;
            sumsq += x * x + v->im * v->im;
        }
        s->sum += sum;
        s->sum_im += sum_im;
        s->sumsq += sumsq;
    }
    if (has_nan) {
        s->max.re = s->min.re = NAN;
        s->max.im = s->min.im = 0;
    }
    free(vals);
}

/* ---- output ---------------------------------------------------------------- */

static void put_shape(strbuf *sb, const tensor *t)
{
    sb_addc(sb, '[');
    for (int d = 0; d < t->ndim; d++)
        sb_addf(sb, "%s%lld", d ? ", " : "", (long long)t->shape[d]);
    sb_addc(sb, ']');
}

/* A statistic as text: values of the tensor's dtype print like its
 * elements; a statistic that does not exist (max of an empty or complex
 * tensor) prints as N/A, or null in JSON. */
static void put_stat(strbuf *sb, const tensor *t, const value *v, int json)
{
    if (t->numel == 0 || dtype_is_complex(t->dtype)) {
        sb_adds(sb, json ? "null" : "N/A");
        return;
    }
    put_value(sb, t->dtype, v, json);
}

static void put_double(strbuf *sb, double x, int json) { put_float(sb, DT_F64, x, json); }

static void put_mean(strbuf *sb, const tensor *t, const stats *s, int json)
{
    if (t->numel == 0) {
        sb_adds(sb, json ? "null" : "N/A");
        return;
    }
    double n = (double)t->numel;
    if (dtype_is_complex(t->dtype))
        put_complex(sb, DT_F64, s->sum / n, s->sum_im / n, json);
    else
        put_double(sb, s->sum / n, json);
}

static void describe(const char *path, const tensor *t, const cli *o, strbuf *sb)
{
    stats s;
    compute_stats(t, &s);
    size_t shown = t->numel < o->count ? t->numel : o->count;
    int json = o->json;
    const char *const label[] = {"file", "dtype", "shape", "count", "max", "min", "mean", "l2norm", "nan", "+inf",
                                 "-inf"};
    for (int k = 0; k < 11; k++) {
        if (json)
            sb_adds(sb, k ? ", \"" : "{\"");
        sb_adds(sb, label[k]);
        sb_adds(sb, json ? "\": " : ":");
        if (!json)
            sb_addf(sb, "%*s", (int)(8 - strlen(label[k])), "");
        switch (k) {
        case 0: json ? jsonw_str(sb, path) : sb_adds(sb, path); break;
        case 1: json ? jsonw_str(sb, dtype_name(t->dtype)) : sb_adds(sb, dtype_name(t->dtype)); break;
        case 2: put_shape(sb, t); break;
        case 3: sb_addf(sb, "%zu", t->numel); break;
        case 4: put_stat(sb, t, &s.max, json); break;
        case 5: put_stat(sb, t, &s.min, json); break;
        case 6: put_mean(sb, t, &s, json); break;
        case 7: put_double(sb, sqrt(s.sumsq), json); break;
        case 8: sb_addf(sb, "%zu", s.nan); break;
        case 9: sb_addf(sb, "%zu", s.pinf); break;
        default: sb_addf(sb, "%zu", s.ninf); break;
        }
        if (!json)
            sb_addc(sb, '\n');
    }
    if (json)
        sb_adds(sb, ", \"values\": [");
    else if (shown < t->numel)
        sb_addf(sb, "values:  first %zu of %zu, row-major\n", shown, t->numel);
    else
        sb_addf(sb, "values:  %zu, row-major\n", t->numel);
    value *vals = xmalloc_array(CHUNK, sizeof *vals);
    for (size_t start = 0; start < shown; start += CHUNK) {
        size_t n = shown - start < CHUNK ? shown - start : CHUNK;
        read_values(t, start, n, vals);
        for (size_t k = 0; k < n; k++) {
            size_t i = start + k;
            if (json) {
                if (i)
                    sb_adds(sb, ", ");
            } else if (i % PER_ROW == 0) {
                sb_addf(sb, "%s%8zu:", i ? "\n" : "", i);
            }
            if (!json)
                sb_addc(sb, ' ');
            put_value(sb, t->dtype, &vals[k], json);
        }
    }
    free(vals);
    if (json)
        sb_addf(sb, "], \"truncated\": %s}\n", shown < t->numel ? "true" : "false");
    else if (shown)
        sb_addc(sb, '\n');
}

static void put_metric(strbuf *sb, const tensor_metrics *m, int i, int json)
{
    if (m->kind[i] != MK_NUM) {
        const char *text = metric_kind_text(m->kind[i]);
        json ? jsonw_str(sb, text) : sb_adds(sb, text);
    } else {
        put_double(sb, m->value[i], json);
    }
}

static void compare(const char *const path[2], const tensor t[2], const tensor_metrics *m, const cli *o,
                    strbuf *sb)
{
    static const char *const side[2] = {"npu", "bench"};
    strbuf msg = STRBUF_INIT;
    metrics_message(m, &msg);
    if (o->json) {
        sb_addc(sb, '{');
        for (int k = 0; k < 2; k++) {
            sb_addf(sb, "\"%s\": {\"file\": ", side[k]);
            jsonw_str(sb, path[k]);
            sb_adds(sb, ", \"dtype\": ");
            jsonw_str(sb, dtype_name(t[k].dtype));
            sb_adds(sb, ", \"shape\": ");
            put_shape(sb, &t[k]);
            sb_adds(sb, "}, ");
        }
        for (int i = 0; i < MET_COUNT; i++) {
            sb_addf(sb, "\"%s\": ", metric_names[i]);
            put_metric(sb, m, i, 1);
            sb_adds(sb, ", ");
        }
        sb_addf(sb, "\"Accuracy Reached or Not\": \"%s\", \"Err_message\": ", metrics_accuracy(m));
        jsonw_str(sb, sb_str(&msg));
        sb_adds(sb, "}\n");
    } else {
        for (int k = 0; k < 2; k++) {
            sb_addf(sb, "%-28s%s (%s, ", k ? "bench:" : "npu:", path[k], dtype_name(t[k].dtype));
            put_shape(sb, &t[k]);
            sb_adds(sb, ")\n");
        }
        for (int i = 0; i < MET_COUNT; i++) {
            sb_addf(sb, "%s:%*s", metric_names[i], (int)(27 - strlen(metric_names[i])), "");
            put_metric(sb, m, i, 0);
            sb_addc(sb, '\n');
        }
        sb_addf(sb, "%-28s%s\n", "Accuracy Reached or Not:", metrics_accuracy(m));
        sb_adds(sb, msg.len ? "Err_message:                " : "Err_message:");
        sb_adds(sb, sb_str(&msg));
        sb_addc(sb, '\n');
    }
    sb_free(&msg);
}

int cmd_parse(int argc, char **argv, const global_opts *g)
{
    (void)g;
    cli o;
    opts_result pr = parse_args(argc, argv, &o);
    if (pr != OPTS_RUN)
        return opts_exit_status(pr);
    tensor t[2];
    memset(t, 0, sizeof t);
    int status = EXIT_OK;
    for (int k = 0; k < o.nfiles && status == EXIT_OK; k++)
        if (tensor_load(o.file[k], &t[k]) != 0)
            status = err_report();
    strbuf out = STRBUF_INIT;
    if (status == EXIT_OK) {
        if (o.nfiles == 1) {
            /* the elements are read from the mapping: guarded (files.h) */
            file_guard guard;
            file_guard_begin(&guard, &t[0].map);
            describe(o.file[0], &t[0], &o, &out);
            if (file_guard_end(&guard) != 0)
                status = err_report();
        } else {
            tensor_metrics m;
            if (metrics_compare(&t[0], &t[1], o.zero_d_repeat ? METRICS_ZERO_D_REPEAT : 0, &m) != 0)
                status = err_report();
            else
                compare(o.file, t, &m, &o, &out);
        }
    }
    if (status == EXIT_OK && (fwrite(out.buf, 1, out.len, stdout) != out.len || fflush(stdout) != 0)) {
        fprintf(stderr, "%s: cannot write the output\n", log_prog());
        status = EXIT_INTERNAL;
    }
    sb_free(&out);
    tensor_free(&t[0]);
    tensor_free(&t[1]);
    return status;
}
