/* A run's curves from any of its files (train_input.h). */
#include "model/train_input.h"
#include "model/monitor_tree.h"
#include "format/golden_values.h"
#include "format/monitor_csv.h"
#include "format/trainlog.h"
#include "py/numfmt.h"
#include "base/err.h"
#include "base/files.h"
#include "base/mem.h"
#include "base/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const train_kind_names[] = {"TensorBoard event files", "golden values", "training log",
                                        "training-monitor output"};

void train_input_free(train_input *in)
{
    curves_free(&in->c);
    for (size_t i = 0; i < in->nfiles; i++)
        free(in->files[i]);
    free(in->files);
    in->files = NULL;
    in->nfiles = 0;
}

/* ---- the training monitor's csv series ---- */

/* monitor2tb's ops (msprobe's MonitorConst.OP_LIST without shape, dtype) */
static const char *const MON_OPS[] = {"norm", "min", "max", "zeros", "nans", "id", "mean"};
enum { NMON_OPS = sizeof MON_OPS / sizeof MON_OPS[0] };

typedef struct {
    curves *c;
    const train_read_opts *o;
    const char *prefix;         /* "rank0/actv/" */
    const mcsv_header *h;
    /* per series of the file, per op: its curve (or -1) */
    long *slot;
    size_t nslot, slotcap;
    strbuf name;
} mon_file;

static int mon_header(void *ctx, const mcsv_header *h)
{
    mon_file *m = ctx;
    m->h = h;
    return 0;
}

static int mon_row(void *ctx, const mcsv_row *r)
{
    mon_file *m = ctx;
    if (r->series >= m->nslot) {
        size_t need = (r->series + 1) * NMON_OPS;
        size_t cap = m->slotcap;
        GROW(m->slot, cap, need);
        m->slotcap = cap;
        /* the series are numbered in order of first appearance: this one
         * is new, name its tags as monitor2tb does */
        for (size_t i = 0; i < NMON_OPS; i++) {
            long at = -1;
            if (m->h->present[i]) {
                sb_reset(&m->name);
                sb_addf(&m->name, "%svp%lld:%s", m->prefix, r->s->vpp, r->s->name);
                if (m->h->has_micro)
                    sb_addf(&m->name, ":micro%lld", r->s->micro);
                sb_addf(&m->name, "/%s", MON_OPS[i]);
                if (!m->o->want || m->o->want(m->o->want_ctx, m->name.buf, m->name.len))
                    at = (long)(curves_get(m->c, m->name.buf, m->name.len) - m->c->v);
            }
            m->slot[r->series * NMON_OPS + i] = at;
        }
        m->nslot = r->series + 1;
    }
    for (size_t i = 0; i < NMON_OPS; i++) {
        long at = m->slot[r->series * NMON_OPS + i];
        if (at >= 0)
            curve_push(&m->c->v[at], r->step, r->value[i], CV_FLOAT);
    }
    return 0;
}

static int read_monitor_run(const char *dir, const char *prefix, const train_read_opts *o, train_input *out)
{
    monitor_files mf;
    if (monitor_files_find(dir, (1u << MT_COUNT) - 1, &mf) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < mf.n && rc == 0; i++) {
        mapped_file f;
        if (file_map(mf.v[i].path, 0, &f) != 0) {
            rc = -1;
            break;
        }
        mon_file m = {&out->c, o, NULL, NULL, NULL, 0, 0, STRBUF_INIT};
        strbuf pre = STRBUF_INIT;
        sb_addf(&pre, "%s%s/", prefix, monitor_type_names[mf.v[i].type]);
        m.prefix = sb_str(&pre);
        mcsv_reader r = {MON_OPS, NMON_OPS, mon_header, mon_row, &m, NULL};
        file_guard g;
        file_guard_begin(&g, &f);
        rc = mcsv_read(mf.v[i].path, f.data, f.size, &r);
        if (file_guard_end(&g) != 0)
            rc = -1;
        out->bytes += f.size;
        file_unmap(&f);
        free(m.slot);
        sb_free(&m.name);
        sb_free(&pre);
    }
    monitor_files_free(&mf);
    return rc;
}

/* A monitor output directory (run directories of ranks) or one run
 * directory: 1 read, 0 not one, -1 error. */
static int read_monitor(const char *path, const train_read_opts *o, train_input *out)
{
    monitor_runs runs;
    size_t dropped;
    if (monitor_runs_find(path, -1, -1, &runs, &dropped) != 0)
        return -1;
    int rc = 0;
    if (runs.n) {
        for (size_t i = 0; i < runs.n && rc == 0; i++) {
            char prefix[40];
            snprintf(prefix, sizeof prefix, "rank%ld/", runs.v[i].rank);
            rc = read_monitor_run(runs.v[i].path, prefix, o, out);
        }
        monitor_runs_free(&runs);
        return rc ? -1 : 1;
    }
    monitor_runs_free(&runs);
    monitor_files mf;
    if (monitor_files_find(path, (1u << MT_COUNT) - 1, &mf) != 0)
        return -1;
    size_t n = mf.n;
    monitor_files_free(&mf);
    if (!n)
        return 0;
    return read_monitor_run(path, "", o, out) ? -1 : 1;
}

/* ---- TensorBoard ---- */

/* Folders below dir (depth first, names sorted) holding event files: each
 * read as a run of its own, its tags named "folder/tag". */
static int read_tb_tree(const char *dir, const char *rel, int depth, const train_read_opts *o, train_input *out,
                        size_t *found)
{
    char **files;
    size_t n;
    if (tb_run_files(dir, o->tb_order, &files, &n) != 0)
        return -1;
    int rc = 0;
    if (n) {
        strbuf prefix = STRBUF_INIT;
        if (*rel)
            sb_addf(&prefix, "%s/", rel);
        rc = tb_run_read(files, n, sb_str(&prefix), o, &out->c, &out->files, &out->nfiles, &out->bytes);
        sb_free(&prefix);
        for (size_t i = 0; i < n; i++)
            free(files[i]);
        free(files);
        (*found)++;
        return rc;
    }
    if (depth >= 4)
        return 0;
    char **names;
    long k = dir_list(dir, &names);
    if (k < 0)
        return -1;
    for (long i = 0; i < k && rc == 0; i++) {
        char *sub = path_join(dir, names[i]);
        if (path_kind(sub) == PATH_DIR && strcmp(names[i], "results") != 0) {
            strbuf r = STRBUF_INIT;
            sb_addf(&r, "%s%s%s", rel, *rel ? "/" : "", names[i]);
            rc = read_tb_tree(sub, sb_str(&r), depth + 1, o, out, found);
            sb_free(&r);
        }
        free(sub);
    }
    names_free(names, k);
    return rc;
}

static int read_dir(const char *path, const train_read_opts *o, train_input *out)
{
    char **files;
    size_t n;
    if (tb_run_files(path, o->tb_order, &files, &n) != 0)
        return -1;
    if (n) {
        out->kind = TRAIN_TENSORBOARD;
        int rc = tb_run_read(files, n, "", o, &out->c, &out->files, &out->nfiles, &out->bytes);
        for (size_t i = 0; i < n; i++)
            free(files[i]);
        free(files);
        if (rc == 0 && !out->nfiles)
            rc = err_input(path, "holds %zu TensorBoard event file%s but none with a scalar", n, n == 1 ? "" : "s");
        return rc;
    }
    int m = read_monitor(path, o, out);
    if (m != 0) {
        out->kind = TRAIN_MONITOR;
        return m < 0 ? -1 : 0;
    }
    size_t found = 0;
    out->kind = TRAIN_TENSORBOARD;
    if (read_tb_tree(path, "", 0, o, out, &found) != 0)
        return -1;
    if (!found)
        return err_input(path, "holds no TensorBoard event file (events*tfevents*, also in results/ or in folders "
                               "below) and no training-monitor csv file");
    if (!out->nfiles)
        return err_input(path, "holds TensorBoard event files but none with a scalar");
    return 0;
}

static int read_file(const char *path, const train_read_opts *o, train_input *out)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if (strstr(base, "tfevents")) {
        /* one event file */
        char *one = xstrdup(path);
        out->kind = TRAIN_TENSORBOARD;
        int rc = tb_run_read(&one, 1, "", o, &out->c, &out->files, &out->nfiles, &out->bytes);
        free(one);
        if (rc == 0 && !out->nfiles)
            rc = err_input(path, "is a TensorBoard event file without any scalar");
        return rc;
    }
    mapped_file f;
    if (file_map(path, 0, &f) != 0)
        return -1;
    file_guard g;
    file_guard_begin(&g, &f);
    int rc;
    if (f.size == 0) {
        rc = err_input(path, "is empty");
    } else if (!trainlog_sniff(f.data, f.size) && golden_sniff(f.data, f.size)) {
        out->kind = TRAIN_GOLDEN;
        rc = golden_parse(path, f.data, f.size, &out->c);
    } else {
        out->kind = TRAIN_LOG;
        rc = trainlog_parse_mapped(path, &f, &out->c, o->want, o->want_ctx);
    }
    if (file_guard_end(&g) != 0)
        rc = -1;
    out->bytes = f.size;
    file_unmap(&f);
    return rc;
}

int train_input_read(const char *path, const train_read_opts *o, train_input *out)
{
    memset(out, 0, sizeof *out);
    curves_init(&out->c);
    switch (path_kind(path)) {
    case PATH_DIR:
        return read_dir(path, o, out);
    case PATH_FILE:
        return read_file(path, o, out);
    case PATH_MISSING:
        return err_set(ERR_MISSING, path, "does not exist");
    case PATH_LINK:
        return err_set(ERR_UNREADABLE, path, "is a symbolic link (refused, as msprobe refuses them)");
    default:
        return err_set(ERR_UNREADABLE, path, "is neither a file nor a directory");
    }
}

/* ---- Megatron's sampling and rounding ---- */

void train_sample(curves *c, const train_sampling *s)
{
    int64_t k = s->interval > 0 ? s->interval : 1;
    for (size_t m = 0; m < c->n; m++) {
        curve *v = &c->v[m];
        uint8_t *keep = xmalloc(v->n ? v->n : 1);
        for (size_t i = 0; i < v->n; i++) {
            int64_t st = v->step[i];
            int ok = st >= (s->start == 0 ? 0 : 1) && (s->train_iters <= 0 || st <= s->train_iters) &&
                     (st == s->start || (st > s->start && st % k == 0));
            keep[i] = (uint8_t)ok;
            if (ok && s->round_digits >= 0 && curve_kind_at(v, i) == CV_FLOAT)
                v->value[i] = py_round(v->value[i], s->round_digits);
        }
        curve_filter(v, keep);
        free(keep);
    }
    curves_drop_empty(c);
}
