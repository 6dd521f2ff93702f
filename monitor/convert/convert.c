/* Choosing and reading the csv files of a monitor tree (convert.h). */
#include "monitor/convert/convert.h"
#include "base/err.h"
#include "base/files.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/strbuf.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

int conv_types(const char *list, unsigned allowed, unsigned *out)
{
    if (!list) {
        *out = allowed;
        return 0;
    }
    unsigned t = 0;
    const char *p = list;
    for (;;) {
        size_t n = strcspn(p, ",");
        const char *s = p;
        size_t k = n;
        while (k && *s == ' ') {
            s++;
            k--;
        }
        while (k && s[k - 1] == ' ')
            k--;
        int type = monitor_type_of(s, k);
        if (type < 0 || !(allowed & (1u << type))) {
            strbuf sb = STRBUF_INIT;
            for (int i = 0; i < MT_COUNT; i++)
                if (allowed & (1u << i))
                    sb_addf(&sb, "%s%s", sb.len ? ", " : "", monitor_type_names[i]);
            int rc = err_set(ERR_USAGE, NULL, "--types: data type '%.*s' is not supported; supported: %s", (int)k, s,
                             sb_str(&sb));
            sb_free(&sb);
            return rc;
        }
        t |= 1u << type;
        if (!p[n])
            break;
        p += n + 1;
    }
    *out = t;
    return 0;
}

static long long stamp_option(const char *what, const char *v)
{
    if (!v)
        return -1;
    long long t = monitor_time_parse(v, strlen(v));
    if (t < 0)
        err_set(ERR_USAGE, NULL, "%s: illegal timestamp '%s'; a timestamp looks like 'Dec03_21-34-40'", what, v);
    return t < 0 ? -2 : t;
}

void conv_plan_free(conv_plan *p)
{
    for (size_t i = 0; i < p->runs.n; i++)
        monitor_files_free(&p->files[i]);
    free(p->files);
    free(p->tasks);
    monitor_runs_free(&p->runs);
    numlist_free(&p->steps);
    memset(p, 0, sizeof *p);
}

int conv_step_wanted(const conv_plan *p, long long step) { return !p->has_steps || numlist_has(&p->steps, (long)step); }

/* Does [a, b] meet the --steps selection? */
static int range_wanted(const conv_plan *p, long long a, long long b)
{
    return !p->has_steps || numlist_meets(&p->steps, a, b);
}

int conv_plan_make(const conv_opts *o, unsigned allowed, conv_plan *p)
{
    memset(p, 0, sizeof *p);
    long long t0 = stamp_option("--time-start", o->time_start), t1 = stamp_option("--time-end", o->time_end);
    if (t0 == -2 || t1 == -2)
        return -1;
    if (t0 >= 0 && t1 >= 0 && t0 > t1)
        return err_set(ERR_USAGE, NULL, "--time-start %s is later than --time-end %s", o->time_start, o->time_end);
    if (conv_types(o->types, allowed, &p->types) != 0)
        return -1;
    if (o->steps) {
        if (numlist_parse(o->steps, "--steps", &p->steps) != 0)
            return -1;
        p->has_steps = 1;
    }
    size_t dropped;
    if (monitor_runs_find(o->monitor_dir, t0, t1, &p->runs, &dropped) != 0) {
        conv_plan_free(p);
        return -1;
    }
    for (size_t i = 0; i < p->runs.nbad; i++)
        log_warn("%s/%s: the name looks like a run directory but '%s' holds no time stamp like 'Dec03_21-34-40'; "
                 "skipped", o->monitor_dir, p->runs.bad[i], p->runs.bad[i]);
    if (dropped)
        log_warn("%s: %zu run director%s of a rank that has a later one left out (one run directory per rank)",
                 o->monitor_dir, dropped, dropped == 1 ? "y" : "ies");
    p->files = xcalloc(p->runs.n ? p->runs.n : 1, sizeof *p->files);
    size_t cap = 0;
    for (size_t r = 0; r < p->runs.n; r++) {
        monitor_files *mf = &p->files[r];
        if (monitor_files_find(p->runs.v[r].path, p->types, mf) != 0) {
            conv_plan_free(p);
            return -1;
        }
        /* keep the files --steps wants, in place */
        size_t k = 0;
        for (size_t i = 0; i < mf->n; i++) {
            if (range_wanted(p, mf->v[i].start, mf->v[i].end)) {
                mf->v[k++] = mf->v[i];
            } else {
                free(mf->v[i].name);
                free(mf->v[i].path);
            }
        }
        mf->n = k;
        for (size_t i = 0; i < mf->n;) {
            size_t j = i;
            uint64_t bytes = 0;
            for (; j < mf->n && mf->v[j].type == mf->v[i].type; j++) {
                if (j > i && mf->v[j].start <= mf->v[j - 1].end) {
                    err_input(mf->v[j].path, "covers steps %lld-%lld, which overlap those of %s: rows could be "
                                             "repeated; remove one of them",
                              mf->v[j].start, mf->v[j].end, mf->v[j - 1].name);
                    conv_plan_free(p);
                    return -1;
                }
                if (mf->v[j].start > mf->v[j].end) {
                    err_input(mf->v[j].path, "names the steps %lld-%lld: the first is after the last",
                              mf->v[j].start, mf->v[j].end);
                    conv_plan_free(p);
                    return -1;
                }
                struct stat st;
                if (stat(mf->v[j].path, &st) == 0)
                    bytes += (uint64_t)st.st_size;
            }
            GROW(p->tasks, cap, p->ntasks + 1);
            p->tasks[p->ntasks++] = (conv_task){&p->runs.v[r], mf->v[i].type, &mf->v[i], j - i, bytes};
            p->nfiles += j - i;
            p->bytes += bytes;
            i = j;
        }
    }
    return 0;
}

void conv_rows_init(conv_rows *r)
{
    memset(r, 0, sizeof *r);
    arena_init(&r->names, 1 << 14);
}

void conv_rows_free(conv_rows *r)
{
    free(r->series);
    free(r->row_series);
    free(r->row_step);
    free(r->values);
    arena_free(&r->names);
    memset(r, 0, sizeof *r);
}

static void rows_empty(conv_rows *r)
{
    r->nseries = r->nrows = 0;
    arena_reset(&r->names);
}

typedef struct {
    const conv_plan *p;
    const monitor_file *f;
    conv_rows *out;
    size_t vcap;
} read_ctx;

static int on_header(void *ctx, const mcsv_header *h)
{
    read_ctx *c = ctx;
    c->out->h = *h;
    return 0;
}

static int on_row(void *ctx, const mcsv_row *row)
{
    read_ctx *c = ctx;
    conv_rows *out = c->out;
    if (row->step < c->f->start || row->step > c->f->end)
        return err_input(c->f->path, "line %zu: step %lld is outside the steps %lld-%lld of the file's name",
                         row->line, row->step, c->f->start, c->f->end);
    if (row->series == out->nseries) {
        /* its name is already in out->names (mcsv_reader.names) */
        GROW(out->series, out->series_cap, out->nseries + 1);
        out->series[out->nseries++] = *row->s;
    }
    if (!conv_step_wanted(c->p, row->step))
        return 0;
    size_t nv = out->h.nfile_ops;
    if (out->nrows == out->rows_cap) {
        /* two arrays, one capacity */
        size_t cap = out->rows_cap;
        GROW(out->row_series, out->rows_cap, out->nrows + 1);
        GROW(out->row_step, cap, out->nrows + 1);
    }
    if ((out->nrows + 1) * nv > out->values_cap)   /* GROW is a call: not on every row */
        GROW(out->values, out->values_cap, (out->nrows + 1) * nv);
    out->row_series[out->nrows] = (uint32_t)row->series;
    out->row_step[out->nrows] = row->step;
    double *v = out->values + out->nrows * nv;
    for (size_t i = 0; i < nv; i++)
        v[i] = row->value[out->h.file_ops[i]];
    out->nrows++;
    return 0;
}

int conv_read_file(const conv_opts *o, const conv_plan *p, const monitor_file *f, const char *const *wanted,
                   size_t nwanted, conv_rows *out, uint64_t *bytes)
{
    rows_empty(out);
    *bytes = 0;
    /* read, not mapped: the csv is parsed once and dropped, and unmapping
     * many small files from a process whose other threads run costs a TLB
     * shoot-down each (on this kind of VM, more than the parse) */
    mapped_file m;
    if (file_load(f->path, 0, &m) != 0)
        return -1;
    *bytes = m.size;
    read_ctx c = {p, f, out, 0};
    mcsv_reader r = {wanted, nwanted, on_header, on_row, &c, &out->names};
    file_guard g;
    file_guard_begin(&g, &m);
    int rc = mcsv_read(f->path, m.data ? (const void *)m.data : "", m.size, &r);
    if (file_guard_end(&g) != 0)
        rc = -1;
    file_unmap(&m);
    if (rc == 0)
        return 0;
    rows_empty(out);
    if (o->skip_bad && err_cause() == ERR_MALFORMED) {
        log_warn_as("malformed csv files skipped", "%s (skipped)", err_message());
        err_clear();
        return 1;
    }
    return -1;
}

char *conv_default_out(const char *monitor_dir, const char *suffix)
{
    /* Asia/Shanghai has kept UTC+8 all year since 1991 */
    time_t t = time(NULL) + 8 * 3600;
    for (;;) {
        struct tm tm;
        gmtime_r(&t, &tm);
        static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                           "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
        char name[96];
        snprintf(name, sizeof name, "%s%02d_%02d-%02d-%02d-%s", months[tm.tm_mon], tm.tm_mday, tm.tm_hour, tm.tm_min,
                 tm.tm_sec, suffix);
        char *path = path_join(monitor_dir, name);
        if (path_kind(path) == PATH_MISSING)
            return path;
        free(path);
        t++;
    }
}

void conv_size_text(uint64_t bytes, char *buf, size_t cap)
{
    if (bytes >= 1000000000ULL)
        snprintf(buf, cap, "%.2f GB", bytes / 1e9);
    else if (bytes >= 1000000)
        snprintf(buf, cap, "%.1f MB", bytes / 1e6);
    else if (bytes >= 1000)
        snprintf(buf, cap, "%.1f kB", bytes / 1e3);
    else
        snprintf(buf, cap, "%llu bytes", (unsigned long long)bytes);
}

/* ---- reading ahead, consuming in order ------------------------------------ */

enum { SLOT_FREE, SLOT_BUSY, SLOT_DONE };

typedef struct {
    conv_rows rows;
    conv_buffer prepared;
    int state, result;
    uint64_t bytes;
    err_record err;
} slot;

typedef struct {
    const conv_opts *o;
    const conv_plan *p;
    const char *const *wanted;
    size_t nwanted;
    const unsigned char *skip;
    conv_prepare_fn prepare;
    void *ctx;
    /* the files in plan order */
    const conv_task **task;
    const monitor_file **file;
    size_t n;
    slot *slots;
    size_t nslots;
    pthread_mutex_t lock;
    pthread_cond_t ready, room;
    size_t next, consumed;
    int stop;
} ordered;

static void *reader_thread(void *arg)
{
    ordered *q = arg;
    pthread_mutex_lock(&q->lock);
    for (;;) {
        while (!q->stop && q->next < q->n && q->next >= q->consumed + q->nslots)
            pthread_cond_wait(&q->room, &q->lock);
        if (q->stop || q->next >= q->n)
            break;
        size_t i = q->next++;
        slot *s = &q->slots[i % q->nslots];
        s->state = SLOT_BUSY;
        pthread_mutex_unlock(&q->lock);
        s->bytes = 0;
        s->result = q->skip && q->skip[i] ? 1
                                          : conv_read_file(q->o, q->p, q->file[i], q->wanted, q->nwanted, &s->rows,
                                                           &s->bytes);
        s->prepared.len = 0;
        if (s->result == 0 && q->prepare && q->prepare(q->ctx, q->task[i], &s->rows, &s->prepared) != 0)
            s->result = -1;
        if (s->result < 0)
            err_take(&s->err);
        pthread_mutex_lock(&q->lock);
        s->state = SLOT_DONE;
        if (s->result < 0)
            q->stop = 1;   /* nothing after a failure is needed */
        pthread_cond_broadcast(&q->ready);
    }
    pthread_cond_broadcast(&q->room);
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

void *conv_buffer_room(conv_buffer *b, size_t bytes)
{
    grow_array(&b->data, &b->cap, bytes, 1);
    return b->data;
}

static int read_ordered(const conv_opts *o, const conv_plan *p, const char *const *wanted, size_t nwanted,
                        const unsigned char *skip, conv_prepare_fn prepare, conv_consume_fn consume,
                        conv_consume_prepared_fn consume_prepared, void *ctx)
{
    ordered q;
    memset(&q, 0, sizeof q);
    q.o = o;
    q.p = p;
    q.wanted = wanted;
    q.nwanted = nwanted;
    q.skip = skip;
    q.prepare = prepare;
    q.ctx = ctx;
    q.n = p->nfiles;
    q.task = xmalloc_array(q.n ? q.n : 1, sizeof *q.task);
    q.file = xmalloc_array(q.n ? q.n : 1, sizeof *q.file);
    for (size_t t = 0, k = 0; t < p->ntasks; t++)
        for (size_t f = 0; f < p->tasks[t].nfiles; f++, k++) {
            q.task[k] = &p->tasks[t];
            q.file[k] = &p->tasks[t].files[f];
        }
    /* the calling thread consumes (the SQLite writer needs a core of its
     * own): one reader fewer than the jobs, but at least one */
    int threads = o->jobs > 1 ? o->jobs - 1 : 1;
    q.nslots = (size_t)threads * 2 + 2;
    q.slots = xcalloc(q.nslots, sizeof *q.slots);
    for (size_t i = 0; i < q.nslots; i++)
        conv_rows_init(&q.slots[i].rows);
    pthread_mutex_init(&q.lock, NULL);
    pthread_cond_init(&q.ready, NULL);
    pthread_cond_init(&q.room, NULL);
    pthread_t *tid = xcalloc((size_t)threads, sizeof *tid);
    int started = 0;
    for (int i = 0; i < threads; i++)
        if (pthread_create(&tid[i], NULL, reader_thread, &q) == 0)
            started++;
    int rc = started ? 0 : err_internal(NULL, "cannot start a thread");
    for (size_t i = 0; i < q.n && rc == 0; i++) {
        slot *s = &q.slots[i % q.nslots];
        pthread_mutex_lock(&q.lock);
        while (!(s->state == SLOT_DONE && q.next > i))
            pthread_cond_wait(&q.ready, &q.lock);
        pthread_mutex_unlock(&q.lock);
        if (s->result < 0) {
            err_restore(&s->err);
            rc = -1;
        } else if (consume_prepared) {
            if (s->result > 0)
                s->prepared.len = 0;
            rc = consume_prepared(ctx, q.task[i], &s->rows, &s->prepared, s->result > 0, s->bytes);
        } else {
            rc = consume(ctx, q.task[i], q.file[i], &s->rows, s->result > 0, s->bytes);
        }
        pthread_mutex_lock(&q.lock);
        s->state = SLOT_FREE;
        q.consumed = i + 1;
        if (rc)
            q.stop = 1;
        pthread_cond_broadcast(&q.room);
        pthread_mutex_unlock(&q.lock);
    }
    pthread_mutex_lock(&q.lock);
    q.stop = 1;
    pthread_cond_broadcast(&q.room);
    pthread_mutex_unlock(&q.lock);
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    for (size_t i = 0; i < q.nslots; i++) {
        conv_rows_free(&q.slots[i].rows);
        free(q.slots[i].prepared.data);
        err_record_free(&q.slots[i].err);
    }
    free(tid);
    free(q.slots);
    free(q.task);
    free(q.file);
    pthread_mutex_destroy(&q.lock);
    pthread_cond_destroy(&q.ready);
    pthread_cond_destroy(&q.room);
    return rc;
}

int conv_read_ordered(const conv_opts *o, const conv_plan *p, const char *const *wanted, size_t nwanted,
                      const unsigned char *skip, conv_consume_fn consume, void *ctx)
{
    return read_ordered(o, p, wanted, nwanted, skip, NULL, consume, NULL, ctx);
}

int conv_read_ordered_prepared(const conv_opts *o, const conv_plan *p, const char *const *wanted, size_t nwanted,
                               const unsigned char *skip, conv_prepare_fn prepare,
                               conv_consume_prepared_fn consume, void *ctx)
{
    return read_ordered(o, p, wanted, nwanted, skip, prepare, NULL, consume, ctx);
}
