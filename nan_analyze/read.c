/* One rank's dump.json, read once: mapped, streamed entry by entry (an
 * entry with no NaN/Inf anywhere skimmed, any other parsed, described and
 * dropped), and kept as what the search needs --
 * the communication ops, the entries that turn clean inputs into NaN/Inf,
 * and runs of the other entries folded into counts -- plus where each kept
 * entry is in the file, to read it again for the report. Memory is bounded
 * by the kept ops, not by the dump. */
#include "nan_analyze/nan.h"
#include "model/dump_walk.h"
#include "model/overflow.h"
#include "base/err.h"
#include "base/files.h"
#include "base/mem.h"
#include "base/strmap.h"
#include "format/json.h"

#include <stdlib.h>
#include <string.h>

enum { REPORT_STEP = 1 << 20 };

/* An entry while the file is read. */
typedef struct {
    const char *name;        /* in the names arena */
    nan_span at;
    cg_op op;
    uint8_t scene;
} entry_rec;

struct nan_scratch {
    entry_rec *recs;
    size_t cap;
    strmap seen;             /* name -> index in recs */
    arena names, entry;      /* names for the read; one entry's tree */
};

typedef struct {
    nan_rank *rk;
    const nan_read_opts *o;
    entry_rec *recs;
    size_t n, cap;
    strmap seen;
    arena names, entry;
    rank_sets *sets;
} reader;

nan_scratch *nan_scratch_new(void)
{
    nan_scratch *s = xcalloc(1, sizeof *s);
    /* blocks that hold a usual rank's names and entry whole, so that a reset
     * keeps them */
    arena_init(&s->names, 1 << 20);
    arena_init(&s->entry, 256 * 1024);
    strmap_init(&s->seen, 16);
    return s;
}

void nan_scratch_free(nan_scratch *s)
{
    if (!s)
        return;
    free(s->recs);
    strmap_free(&s->seen);
    arena_free(&s->names);
    arena_free(&s->entry);
    free(s);
}

/* The record of entry `name`: a new one, or -- a repeated name keeps its
 * first place and takes the last value, as a Python dict does -- the
 * earlier one. */
static entry_rec *record(reader *rd, const char *name, size_t len)
{
    int added;
    size_t *slot = strmap_put(&rd->seen, name, len, rd->n, &added);
    if (added) {
        GROW(rd->recs, rd->cap, rd->n + 1);
        rd->n++;
    }
    return &rd->recs[*slot];
}

static int read_entry(reader *rd, jparser *jp, const char *key, size_t keylen)
{
    nan_rank *rk = rd->rk;
    char *name = arena_strndup(&rd->names, key, keylen);
    jp_peek(jp);
    const char *start = jp->p;
    /* Most entries are plain and hold no NaN/Inf anywhere: skimmed, they
     * are known to be nothing but counted, without building them. Others
     * (and every communication op, whose partners are in its arguments,
     * and every entry under --all) are parsed. */
    if (!rd->o->all && *start == '{' && !nan_is_comm_op(name)) {
        if (jp_skim(jp, JSKIM_NONFINITE | JSKIM_NONFINITE_TEXT) == 1) {
            entry_rec *r = record(rd, name, keylen);
            *r = (entry_rec){.name = name,
                             .at = {.off = (size_t)(start - jp->start), .len = (size_t)(jp->p - start)},
                             .op = {.name = name, .flags = nan_is_ignored(name) ? CG_IGNORED : 0}};
            return 0;
        }
    }
    jval v;
    if (jp_value(jp, &rd->entry, &v) != 0)
        return -1;
    if (v.type != J_OBJECT)
        return err_input(rk->dump_path, "entry %s of 'data' is not an object", name);
    entry_rec *r = record(rd, name, keylen);
    r->name = name;
    r->at = (nan_span){.off = (size_t)(start - jp->start), .len = (size_t)(jp->p - start)};
    if (nan_describe(rk->dump_path, name, &v, rk->rank, &rk->mem, rd->sets, &r->op) != 0)
        return -1;
    r->scene = rd->o->all ? (uint8_t)ovf_classify(name, &v) : OVF_NONE;
    return 0;
}

/* The "data" object, entry by entry. */
static int read_data(reader *rd, jparser *jp, progress_job *pj, size_t *reported)
{
    /* a repeated "data" key replaces the earlier one, as in Python */
    rd->n = 0;
    strmap_clear(&rd->seen);
    int c = jp_peek(jp);
    if (c != '{') {
        arena_reset(&rd->entry);
        jval v;
        if (jp_value(jp, &rd->entry, &v) != 0)
            return -1;
        /* msprobe: `if not data` -- no dump data, a warning later */
        if (json_truthy(&v))
            return err_input(rd->rk->dump_path, "'data' is not an object");
        return 0;
    }
    jp_object_begin(jp);
    for (;;) {
        const char *key;
        size_t keylen;
        int m = jp_object_next(jp, &rd->names, &key, &keylen);
        if (m > 0 && read_entry(rd, jp, key, keylen) != 0)
            m = -1;
        arena_reset(&rd->entry);
        size_t parsed = (size_t)(jp->p - jp->start);
        if (parsed - *reported >= REPORT_STEP) {
            progress_add(pj, parsed - *reported);
            *reported = parsed;
        }
        if (m <= 0)
            return m;
    }
}

typedef struct {
    reader *rd;
    progress_job *pj;
    size_t reported;
} file_reading;

/* Of the top level only "data" matters. */
static int file_member(void *ctx, jparser *jp, const char *key, size_t keylen, arena *scratch)
{
    file_reading *f = ctx;
    return dump_key_is(key, keylen, "data") ? read_data(f->rd, jp, f->pj, &f->reported) : jp_skip(jp);
}

static int read_file(reader *rd, const mapped_file *map, progress_job *pj)
{
    jparser jp;
    jp_init(&jp, rd->rk->dump_path, map->data, map->size);
    file_reading f = {.rd = rd, .pj = pj};
    int rc = dump_walk_members(&jp, rd->rk->dump_path, &rd->entry, file_member, &f);
    jp_free(&jp);
    progress_add(pj, map->size - f.reported);
    return rc;
}

typedef struct {
    nan_rank *rk;
    size_t ops_cap, at_cap, apis_cap;
} folded;

static void push_op(folded *f, const cg_op *op, nan_span at)
{
    nan_rank *rk = f->rk;
    GROW(rk->ops, f->ops_cap, rk->nops + 1);
    GROW(rk->at, f->at_cap, rk->nops + 1);
    rk->ops[rk->nops] = *op;
    rk->at[rk->nops++] = at;
}

/* `run` plain ops in a row, as one. */
static void push_run(folded *f, size_t run)
{
    cg_op op = {.name = "", .repeat = (uint32_t)(run - 1)};
    push_op(f, &op, (nan_span){0, 0});
}

/* The entries as the engine sees them: comm ops and flagged ops as they
 * are, runs of other counted ops as one op (their number is all that
 * matters), ignored ops left out (they count for nothing). */
static void fold(reader *rd)
{
    folded f = {.rk = rd->rk};
    nan_rank *rk = rd->rk;
    size_t run = 0;
    rk->entries = rd->n;
    for (size_t i = 0; i < rd->n; i++) {
        const entry_rec *r = &rd->recs[i];
        uint32_t flags = r->op.flags;
        char *kept = NULL;
        if ((flags & CG_COMM) || ((flags & CG_FLAGGED) && !(flags & CG_IGNORED))) {
            if (run)
                push_run(&f, run);
            run = 0;
            kept = arena_strndup(&rk->mem, r->name, strlen(r->name));
            cg_op op = r->op;
            op.name = kept;
            push_op(&f, &op, r->at);
        } else if (!(flags & CG_IGNORED)) {
            run++;
        }
        if (r->scene) {
            GROW(rk->apis, f.apis_cap, rk->napis + 1);
            if (!kept)
                kept = arena_strndup(&rk->mem, r->name, strlen(r->name));
            rk->apis[rk->napis++] = (nan_api){.name = kept, .at = r->at, .scene = r->scene};
        }
    }
    /* a rank with data never looks empty to the engine */
    if (run || (rd->n && !rk->nops))
        push_run(&f, run ? run : 1);
}

int nan_read_rank(nan_rank *rk, const nan_read_opts *o, nan_scratch *s, progress_job *pj)
{
    arena_init(&rk->mem, 64 * 1024);
    progress_phase(pj, "read", 0, PROGRESS_BYTES);
    mapped_file map;
    if (file_map(rk->dump_path, 0, &map) != 0)
        return -1;
    rk->dev = map.dev;
    rk->ino = map.ino;
    rk->mtime_ns = map.mtime_ns;
    rk->size = map.size;
    if (map.size == 0) {
        file_unmap(&map);
        return err_input(rk->dump_path, "is empty");
    }
    progress_expect(pj, map.size);
    reader rd = {.rk = rk, .o = o, .sets = rank_sets_new(), .recs = s->recs, .cap = s->cap, .seen = s->seen,
                 .names = s->names, .entry = s->entry};
    file_guard guard;
    file_guard_begin(&guard, &map);
    int rc = read_file(&rd, &map, pj);
    if (file_guard_end(&guard) != 0)
        rc = -1;
    if (rc == 0)
        fold(&rd);
    file_unmap(&map);
    rank_sets_free(rd.sets);
    /* the buffers go back, emptied, to the next rank of this thread */
    strmap_clear(&rd.seen);
    arena_reset(&rd.names);
    arena_reset(&rd.entry);
    s->recs = rd.recs;
    s->cap = rd.cap;
    s->seen = rd.seen;
    s->names = rd.names;
    s->entry = rd.entry;
    return rc;
}

void nan_rank_free(nan_rank *rk)
{
    free(rk->label);
    free(rk->dir);
    free(rk->dump_path);
    free(rk->ops);
    free(rk->at);
    free(rk->apis);
    arena_free(&rk->mem);
    memset(rk, 0, sizeof *rk);
}
