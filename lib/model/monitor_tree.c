/* Finding a monitor's run directories and csv files (monitor_tree.h). */
#include "model/monitor_tree.h"
#include "base/err.h"
#include "base/files.h"
#include "base/mem.h"
#include "base/strbuf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const monitor_type_names[MT_COUNT] = {
    "actv", "actv_grad", "exp_avg", "exp_avg_sq", "grad_unreduced", "grad_reduced", "param_origin", "param_updated",
    "other",
};

int monitor_type_of(const char *name, size_t n)
{
    for (int t = 0; t < MT_COUNT; t++)
        if (strlen(monitor_type_names[t]) == n && !memcmp(monitor_type_names[t], name, n))
            return t;
    return -1;
}

/* ---- time stamps ---------------------------------------------------------- */

/* One numeric field of strptime's regex at s[*i]: two digits in [lo2, hi]
 * first, else one digit (or " d" for the day); the regex engine tries the
 * alternatives in that order and backtracks, so the caller tries both. */
static int field2(const char *s, size_t n, size_t i, int min, int max, int *v)
{
    if (i + 2 > n || !isdigit((unsigned char)s[i]) || !isdigit((unsigned char)s[i + 1]))
        return 0;
    *v = (s[i] - '0') * 10 + (s[i + 1] - '0');
    /* %d's two-digit forms are 01..31 (a leading zero needs a non-zero digit) */
    return *v >= min && *v <= max;
}

static const int MONTH_DAYS[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};   /* 1900: no leap year */

/* The fields from the day on: day, '_', hour, '-', minute, '-', second, end. */
static long long rest(const char *s, size_t n, size_t i, int field, long long acc)
{
    static const struct {
        int min2, max, sep;
    } f[4] = {{1, 31, '_'}, {0, 23, '-'}, {0, 59, '-'}, {0, 59, 0}};
    if (field == 4)
        return i == n ? acc : -1;
    int v;
    for (int width = 2; width >= 0; width--) {
        size_t j = i;
        if (width == 2) {
            if (!field2(s, n, i, f[field].min2, f[field].max, &v))
                continue;
            j = i + 2;
        } else if (width == 1) {
            if (i >= n || !isdigit((unsigned char)s[i]) || (field == 0 && s[i] == '0'))
                continue;
            v = s[i] - '0';
            j = i + 1;
        } else {
            /* %d also takes " 5" */
            if (field != 0 || i + 2 > n || s[i] != ' ' || s[i + 1] < '1' || s[i + 1] > '9')
                continue;
            v = s[i + 1] - '0';
            j = i + 2;
        }
        if (f[field].sep) {
            if (j >= n || s[j] != f[field].sep)
                continue;
            j++;
        }
        long long a = acc;
        if (field == 0) {
            int month = (int)(acc / 100);
            if (v > MONTH_DAYS[month])
                continue;
            long long days = v - 1;
            for (int m = 0; m < month; m++)
                days += MONTH_DAYS[m];
            a = days * 86400;
        } else {
            static const int unit[4] = {0, 3600, 60, 1};
            a += (long long)v * unit[field];
        }
        long long r = rest(s, n, j, field + 1, a);
        if (r >= 0)
            return r;
    }
    return -1;
}

long long monitor_time_parse(const char *s, size_t n)
{
    static const char months[12][4] = {"jan", "feb", "mar", "apr", "may", "jun",
                                       "jul", "aug", "sep", "oct", "nov", "dec"};
    if (n < 3)
        return -1;
    for (int m = 0; m < 12; m++)
        if (!strncasecmp(s, months[m], 3))
            return rest(s, n, 3, 0, (long long)m * 100);
    return -1;
}

/* ---- run directories ------------------------------------------------------- */

/* msprobe's re.match(r"([\w-]{0,20})-rank(\d{1,5})-", name): the length of
 * the stamp (group 1) and the rank, or -1. Python's \w is any Unicode word
 * character; a byte of a multi-byte UTF-8 sequence counts as one here. The
 * greedy group takes the longest prefix that lets the rest match. */
static long run_name(const char *name, size_t *stamp_len)
{
    size_t n = strlen(name), chars = 0, maxlen = 0;
    for (size_t i = 0; i < n && chars < 20; i++) {
        unsigned char c = (unsigned char)name[i];
        if (!(isalnum(c) || c == '_' || c == '-' || c >= 0x80))
            break;
        if ((c & 0xC0) != 0x80)
            chars++;
        maxlen = i + 1;
    }
    /* the remaining continuation bytes of the last character */
    while (maxlen < n && ((unsigned char)name[maxlen] & 0xC0) == 0x80)
        maxlen++;
    for (size_t len = maxlen + 1; len-- > 0;) {
        if (len < n && ((unsigned char)name[len] & 0xC0) == 0x80)
            continue;
        const char *p = name + len;
        if (strncmp(p, "-rank", 5) != 0)
            continue;
        p += 5;
        size_t d = 0;
        long rank = 0;
        while (d < 5 && isdigit((unsigned char)p[d]))
            rank = rank * 10 + (p[d++] - '0');
        if (d == 0 || p[d] != '-')
            continue;
        *stamp_len = len;
        return rank;
    }
    return -1;
}

void monitor_runs_free(monitor_runs *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].name);
        free(r->v[i].path);
    }
    free(r->v);
    names_free(r->bad, (long)r->nbad);
    memset(r, 0, sizeof *r);
}

static int by_rank(const void *a, const void *b)
{
    const monitor_run *x = a, *y = b;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

int monitor_runs_find(const char *root, long long t_start, long long t_end, monitor_runs *out, size_t *dropped)
{
    memset(out, 0, sizeof *out);
    *dropped = 0;
    if (path_require(root, 1) != 0)
        return -1;
    char **names;
    long n = dir_list(root, &names);
    if (n < 0)
        return -1;
    for (long i = 0; i < n; i++) {
        size_t stamp_len;
        long rank = run_name(names[i], &stamp_len);
        if (rank < 0)
            continue;
        char *path = path_join(root, names[i]);
        if (path_kind(path) != PATH_DIR) {
            free(path);
            continue;
        }
        long long t = monitor_time_parse(names[i], stamp_len);
        if (t < 0) {
            GROW(out->bad, out->badcap, out->nbad + 1);
            out->bad[out->nbad++] = xstrdup(names[i]);
            free(path);
            continue;
        }
        if ((t_start >= 0 && t < t_start) || (t_end >= 0 && t > t_end)) {
            free(path);
            continue;
        }
        size_t k = 0;
        while (k < out->n && out->v[k].rank != rank)
            k++;
        if (k < out->n) {
            /* names are listed in byte order: on a tie of stamps the later name wins */
            ++*dropped;
            if (t < out->v[k].time) {
                free(path);
                continue;
            }
            free(out->v[k].name);
            free(out->v[k].path);
        } else {
            GROW(out->v, out->cap, out->n + 1);
            out->n++;
        }
        out->v[k] = (monitor_run){xstrdup(names[i]), path, rank, t};
    }
    names_free(names, n);
    /* a run directory given where the directory of runs is expected: the
     * set of that one run */
    size_t stamp_len;
    char *base = path_basename(root);
    long rank = out->n == 0 && out->nbad == 0 ? run_name(base, &stamp_len) : -1;
    long long t = rank >= 0 ? monitor_time_parse(base, stamp_len) : -1;
    if (t >= 0 && !(t_start >= 0 && t < t_start) && !(t_end >= 0 && t > t_end)) {
        GROW(out->v, out->cap, out->n + 1);
        out->v[out->n++] = (monitor_run){xstrdup(base), xstrdup(root), rank, t};
    }
    free(base);
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, by_rank);
    return 0;
}

/* Does dir hold a run directory? */
static int holds_runs(const char *dir)
{
    char **names;
    long n = dir_list(dir, &names);
    int found = 0;
    for (long i = 0; i < n && !found; i++) {
        size_t stamp_len;
        if (run_name(names[i], &stamp_len) >= 0) {
            char *p = path_join(dir, names[i]);
            found = path_kind(p) == PATH_DIR;
            free(p);
        }
    }
    names_free(names, n);
    return found;
}

char *monitor_runs_absent(const char *root, int windowed, const char *option)
{
    strbuf sb = STRBUF_INIT;
    char *base = path_basename(root);
    monitor_runs all;
    size_t dropped;
    if (windowed && monitor_runs_find(root, -1, -1, &all, &dropped) == 0 && all.n) {
        sb_adds(&sb, "holds no monitor run directory in the chosen time window (--time-start, --time-end)");
    } else if (!strcmp(base, "anomaly_detected")) {
        sb_addf(&sb, "this is the monitor's anomaly_detected directory; %s takes the directory above it, which "
                     "holds the run directories ({time}-rank{R}-{id})", option);
    } else {
        /* too shallow: the runs are one level down */
        char **names;
        long n = dir_list(root, &names);
        for (long i = 0; i < n && !sb.len; i++) {
            char *p = path_join(root, names[i]);
            if (path_kind(p) == PATH_DIR && holds_runs(p))
                sb_addf(&sb, "holds no monitor run directory ({time}-rank{R}-{id}), but %s does: %s takes that "
                             "directory", p, option);
            free(p);
        }
        names_free(names, n);
        if (!sb.len)
            sb_adds(&sb, "holds no monitor run directory ({time}-rank{R}-{id})");
    }
    err_clear();
    if (windowed)
        monitor_runs_free(&all);
    free(base);
    return sb_detach(&sb);
}

/* ---- csv files ----------------------------------------------------------- */

void monitor_files_free(monitor_files *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->v[i].name);
        free(f->v[i].path);
    }
    free(f->v);
    memset(f, 0, sizeof *f);
}

/* digits at *p up to a non-digit: the number, or -1 */
static long long number_at(const char **p)
{
    const char *s = *p;
    long long v = 0;
    if (!isdigit((unsigned char)*s))
        return -1;
    for (; isdigit((unsigned char)*s); s++) {
        if (v > 100000000000000LL)
            return -1;
        v = v * 10 + (*s - '0');
    }
    *p = s;
    return v;
}

static int by_type_start(const void *a, const void *b)
{
    const monitor_file *x = a, *y = b;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return strcmp(x->name, y->name);
}

int monitor_files_find(const char *run_dir, unsigned types, monitor_files *out)
{
    memset(out, 0, sizeof *out);
    char **names;
    long n = dir_list(run_dir, &names);
    if (n < 0)
        return -1;
    for (long i = 0; i < n; i++) {
        const char *nm = names[i];
        /* the type is everything before the last '_' (msprobe: "_".join(split('_')[:-1])) */
        const char *us = strrchr(nm, '_');
        if (!us)
            continue;
        int type = monitor_type_of(nm, (size_t)(us - nm));
        if (type < 0 || !(types & (1u << type)))
            continue;
        const char *p = us + 1;
        long long a = number_at(&p);
        if (a < 0 || *p++ != '-')
            continue;
        long long b = number_at(&p);
        if (b < 0 || strcmp(p, ".csv") != 0)
            continue;
        char *path = path_join(run_dir, nm);
        if (path_kind(path) != PATH_FILE) {
            free(path);
            continue;
        }
        GROW(out->v, out->cap, out->n + 1);
        out->v[out->n++] = (monitor_file){type, a, b, xstrdup(nm), path};
    }
    names_free(names, n);
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, by_type_start);
    return 0;
}
