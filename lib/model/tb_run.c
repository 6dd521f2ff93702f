/* TensorBoard directories (tb_run.h).
 *
 * Each event file is mapped and walked once (format/tfevents), on its own
 * thread, into per-file series: of a tag, the values in file order, a step
 * given twice keeping the later one (the checker's dict), values at or
 * after a SessionLog START's step dropped (TensorBoard's purge). Then the
 * files with scalars are merged in order, a step keeping the earliest
 * file's value. Tags are looked up by predicting the next one (writers log
 * their tags in the same order every step), a hash lookup only when the
 * guess is wrong. */
#include "model/tb_run.h"
#include "format/tfevents.h"
#include "py/pylit.h"
#include "base/err.h"
#include "base/files.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/pool.h"
#include "base/strbuf.h"
#include "base/strmap.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- finding and ordering the files ---- */

typedef struct {
    char *path;
    const char *name;       /* its basename */
    long long mtime_ns;
    int in_results;         /* found in dir/results */
    long long stamp;        /* the writer's time stamp in the name, -1 */
} ev_file;

static int is_event_name(const char *n)
{
    /* glob events*tfevents*: starts with "events", holds "tfevents" after */
    return !strncmp(n, "events", 6) && strstr(n + 6, "tfevents") != NULL;
}

static long long name_stamp(const char *n)
{
    const char *p = strstr(n, "tfevents.");
    if (!p)
        return -1;
    p += 9;
    long long v = 0;
    int d = 0;
    while (*p >= '0' && *p <= '9' && d < 18)
        v = v * 10 + (*p++ - '0'), d++;
    return d ? v : -1;
}

static int add_files(const char *dir, int in_results, ev_file **v, size_t *n, size_t *cap)
{
    if (path_kind(dir) != PATH_DIR)
        return 0;
    char **names;
    long k = dir_list(dir, &names);
    if (k < 0)
        return -1;
    for (long i = 0; i < k; i++) {
        if (!is_event_name(names[i]))
            continue;
        char *p = path_join(dir, names[i]);
        struct stat st;
        if (lstat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(p);
            continue;
        }
        GROW(*v, *cap, *n + 1);
        ev_file *f = &(*v)[(*n)++];
        f->path = p;
        f->name = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
        f->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
        f->in_results = in_results;
        f->stamp = name_stamp(f->name);
    }
    names_free(names, k);
    return 0;
}

static int by_mtime(const void *a, const void *b)
{
    const ev_file *x = a, *y = b;
    if (x->mtime_ns != y->mtime_ns)
        return x->mtime_ns < y->mtime_ns ? -1 : 1;
    if (x->in_results != y->in_results)
        return x->in_results - y->in_results;
    return strcmp(x->name, y->name);
}

static int by_name(const void *a, const void *b)
{
    const ev_file *x = a, *y = b;
    if (x->stamp != y->stamp)
        return x->stamp < y->stamp ? -1 : 1;
    int c = strcmp(x->name, y->name);
    return c ? c : x->in_results - y->in_results;
}

int tb_run_files(const char *dir, int order, char ***files, size_t *n)
{
    ev_file *v = NULL;
    size_t nv = 0, cap = 0;
    char *res = path_join(dir, "results");
    int rc = add_files(dir, 0, &v, &nv, &cap);
    if (rc == 0)
        rc = add_files(res, 1, &v, &nv, &cap);
    free(res);
    *files = NULL;
    *n = 0;
    if (rc != 0 || nv == 0) {
        for (size_t i = 0; i < nv; i++)
            free(v[i].path);
        free(v);
        return rc;
    }
    qsort(v, nv, sizeof *v, order == TB_ORDER_NAME ? by_name : by_mtime);
    if (order == TB_ORDER_MTIME && nv > 1) {
        /* a copy without -p or a checkout reorders the modification times:
         * say so when they disagree with the writers' time stamps */
        for (size_t i = 1; i < nv; i++)
            if (by_name(&v[i - 1], &v[i]) > 0) {
                log_warn("%s: the event files' modification times are not in the order of their names' time stamps "
                         "(copied without keeping times?); merged by modification time as Megatron's checker does "
                         "(--tb-order name follows the names)",
                         dir);
                break;
            }
    }
    *files = xmalloc_array(nv, sizeof **files);
    for (size_t i = 0; i < nv; i++)
        (*files)[i] = v[i].path;
    *n = nv;
    free(v);
    return 0;
}

/* ---- one file ---- */

typedef struct {
    const train_read_opts *o;
    const char *prefix;
    size_t prefix_len;
    curves c;               /* this file's series (kept tags only), named prefix + tag */
    /* every tag seen, by first appearance: its series (or -1: not kept) */
    strmap tags;
    char **tag_name;
    size_t *tag_len;
    long *tag_series;
    uint8_t *tag_plugin_seen;   /* the tag's first metadata has been seen */
    size_t *tag_next;           /* the tag that followed it last time */
    size_t ntags, tagcap;
    size_t last;                /* the previous tag, or (size_t)-1 */
    uint64_t scalars;           /* of every tag */
    strbuf name;
    const mapped_file *file;    /* while it is read */
} file_state;

static size_t tag_index(file_state *fs, const char *tag, size_t len)
{
    if (fs->last != (size_t)-1) {
        size_t g = fs->tag_next[fs->last];
        if (g != (size_t)-1 && fs->tag_len[g] == len && !memcmp(fs->tag_name[g], tag, len))
            return fs->last = g;
    }
    size_t *at = strmap_get(&fs->tags, tag, len);
    size_t i;
    if (at) {
        i = *at;
    } else {
        i = fs->ntags;
        size_t cap = fs->tagcap;
        GROW(fs->tag_name, cap, i + 1);
        fs->tag_len = xrealloc(fs->tag_len, cap * sizeof *fs->tag_len);
        fs->tag_series = xrealloc(fs->tag_series, cap * sizeof *fs->tag_series);
        fs->tag_plugin_seen = xrealloc(fs->tag_plugin_seen, cap);
        fs->tag_next = xrealloc(fs->tag_next, cap * sizeof *fs->tag_next);
        fs->tagcap = cap;
        fs->tag_name[i] = xstrndup(tag, len);
        fs->tag_len[i] = len;
        fs->tag_plugin_seen[i] = 0;
        fs->tag_next[i] = (size_t)-1;
        sb_reset(&fs->name);
        sb_add(&fs->name, fs->prefix, fs->prefix_len);
        sb_add(&fs->name, tag, len);
        int keep = !fs->o->want || fs->o->want(fs->o->want_ctx, fs->name.buf, fs->name.len);
        if (keep) {
            curve *s = curves_get(&fs->c, fs->name.buf, fs->name.len);
            fs->tag_series[i] = (long)(s - fs->c.v);
        } else {
            fs->tag_series[i] = -1;
        }
        int added;
        strmap_put(&fs->tags, fs->tag_name[i], len, i, &added);
        fs->ntags++;
    }
    if (fs->last != (size_t)-1)
        fs->tag_next[fs->last] = i;
    return fs->last = i;
}

static int on_scalar(void *ctx, const tfevents_value *v)
{
    file_state *fs = ctx;
    size_t i = tag_index(fs, v->tag, v->taglen);
    if (v->kind == TFEV_TENSOR && v->plugin && !fs->tag_plugin_seen[i]) {
        /* a one-element tensor of another plugin (a histogram's?) is no
         * scalar; TensorBoard keeps a tag's first metadata only */
        fs->tag_plugin_seen[i] = 1;
        if (v->pluginlen && !(v->pluginlen == 7 && !memcmp(v->plugin, "scalars", 7)))
            fs->tag_series[i] = -1;
    }
    fs->scalars++;
    if (fs->tag_series[i] >= 0)
        curve_push(&fs->c.v[fs->tag_series[i]], v->step, v->value, CV_FLOAT);
    return 0;
}

/* A key of a text that is a dict: "tag.key.sub". */
static void config_leaf(void *ctx, const char *path, size_t pathlen, const char *value, size_t valuelen)
{
    file_state *fs = ctx;
    size_t keep = fs->name.len;
    sb_addc(&fs->name, '.');
    sb_add(&fs->name, path, pathlen);
    curves_config_set(&fs->c, fs->name.buf, fs->name.len, value, valuelen);
    fs->name.len = keep;
}

static int on_text(void *ctx, const tfevents_value *v)
{
    file_state *fs = ctx;
    /* add_text(tag, text) writes the tag "tag/text_summary" */
    size_t len = v->taglen;
    if (len > 13 && !memcmp(v->tag + len - 13, "/text_summary", 13))
        len -= 13;
    sb_reset(&fs->name);
    sb_add(&fs->name, fs->prefix, fs->prefix_len);
    sb_add(&fs->name, v->tag, len);
    /* MindSpore Transformers logs each part of its configuration as
     * str(dict): compared key by key, "runner_config.batch_size" */
    if (pylit_dict_leaves(v->text, v->textlen, config_leaf, fs) < 1)
        curves_config_set(&fs->c, fs->name.buf, fs->name.len, v->text, v->textlen);
    return 0;
}

static int on_restart(void *ctx, int64_t step)
{
    file_state *fs = ctx;
    for (size_t k = 0; k < fs->c.n; k++) {
        curve *s = &fs->c.v[k];
        uint8_t *keep = xmalloc(s->n ? s->n : 1);
        for (size_t i = 0; i < s->n; i++)
            keep[i] = s->step[i] < step;
        curve_filter(s, keep);
        free(keep);
    }
    return 0;
}

/* The pages read so far leave the process (they stay in the page cache):
 * nothing points into them, tags are copied when first seen. */
static void on_progress(void *ctx, size_t offset)
{
    file_state *fs = ctx;
    file_map_drop(fs->file, 0, offset);
}

static void file_state_free(file_state *fs)
{
    curves_free(&fs->c);
    strmap_free(&fs->tags);
    for (size_t i = 0; i < fs->ntags; i++)
        free(fs->tag_name[i]);
    free(fs->tag_name);
    free(fs->tag_len);
    free(fs->tag_series);
    free(fs->tag_plugin_seen);
    free(fs->tag_next);
    sb_free(&fs->name);
}

typedef struct {
    char **files;
    const train_read_opts *o;
    const char *prefix;
    file_state *fs;
    uint64_t *bytes;
} read_job;

static int read_one(void *arg, size_t i)
{
    read_job *j = arg;
    file_state *fs = &j->fs[i];
    mapped_file f;
    if (file_map(j->files[i], 0, &f) != 0)
        return -1;
    tfevents_sink sink = {fs, on_scalar, on_text, on_restart, on_progress};
    tfevents_stats st;
    fs->file = &f;
    file_guard g;
    file_guard_begin(&g, &f);
    int rc = tfevents_read(j->files[i], f.data, f.size, &sink, &st);
    if (file_guard_end(&g) != 0)
        rc = -1;
    j->bytes[i] = f.size;
    fs->file = NULL;
    file_unmap(&f);
    if (rc == 0 && st.truncated)
        log_warn("%s: the last record (at byte %zu) is cut short, as a training still writing leaves it: read up to "
                 "there",
                 j->files[i], st.truncated_at);
    if (rc == 0)
        for (size_t k = 0; k < fs->c.n; k++)
            curve_settle(&fs->c.v[k], 1);
    return rc;
}

int tb_run_read(char **files, size_t n, const char *prefix, const train_read_opts *o, curves *out, char ***used,
                size_t *nused, uint64_t *total)
{
    file_state *fs = xcalloc(n ? n : 1, sizeof *fs);
    uint64_t *bytes = xcalloc(n ? n : 1, sizeof *bytes);
    for (size_t i = 0; i < n; i++) {
        curves_init(&fs[i].c);
        strmap_init(&fs[i].tags, 64);
        fs[i].o = o;
        fs[i].prefix = prefix;
        fs[i].prefix_len = strlen(prefix);
        fs[i].last = (size_t)-1;
    }
    read_job job = {files, o, prefix, fs, bytes};
    int rc = pool_run(n, o->jobs > 0 ? o->jobs : 1, read_one, &job, NULL);
    if (rc == 0) {
        /* the files with scalars, then the one asked for or all merged */
        size_t *with = xmalloc_array(n ? n : 1, sizeof *with), nwith = 0;
        for (size_t i = 0; i < n; i++)
            if (fs[i].scalars)
                with[nwith++] = i;
        size_t from = 0, to = nwith;
        if (o->tb_file_index >= 0) {
            if ((size_t)o->tb_file_index >= nwith) {
                rc = err_set(ERR_USAGE, files[0], "--tb-file-index %d asks for more event files with scalars than "
                                                   "the %zu there are",
                             o->tb_file_index, nwith);
                to = 0;
            } else {
                from = (size_t)o->tb_file_index;
                to = from + 1;
            }
        }
        for (size_t k = from; k < to; k++) {
            file_state *f = &fs[with[k]];
            for (size_t s = 0; s < f->c.n; s++) {
                curve *src = &f->c.v[s];
                curve *dst = curves_find(out, src->name, strlen(src->name));
                if (!dst) {
                    /* take the file's series whole */
                    dst = curves_get(out, src->name, strlen(src->name));
                    char *name = dst->name;
                    *dst = *src;
                    free(dst->name);
                    dst->name = name;
                    memset(src, 0, sizeof *src);
                    src->name = xstrdup(name);
                } else {
                    curve_merge_missing(dst, src);
                }
            }
            *used = xrealloc(*used, (*nused + 1) * sizeof **used);
            (*used)[(*nused)++] = xstrdup(files[with[k]]);
        }
        free(with);
        /* the configuration from every file, later ones winning */
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < fs[i].c.ncfg; k++)
                curves_config_set(out, fs[i].c.cfg[k].key, strlen(fs[i].c.cfg[k].key), fs[i].c.cfg[k].value,
                                  strlen(fs[i].c.cfg[k].value));
    }
    for (size_t i = 0; i < n; i++) {
        *total += bytes[i];
        file_state_free(&fs[i]);
    }
    free(fs);
    free(bytes);
    return rc;
}
