/* One rank directory as graph reads it (spec §2.3 step 7, §3): its
 * construct.json, dump.json and stack.json must all be there. dump.json is
 * mapped and walked once: each entry of "data" is located (and, when asked,
 * parsed for its md5 or its overflow scene), never kept as a tree; the
 * graph reads an entry again when it needs its items. */
#include "graph/model/rank.h"
#include "base/err.h"
#include "base/mem.h"
#include "model/dump.h"
#include "model/dump_walk.h"
#include "model/overflow.h"

#include <stdlib.h>
#include <string.h>

/* Parsed bytes are reported in steps of this much. */
#define REPORT_STEP (256u << 10)

/* A file of the rank directory: dir/name, a regular file. */
static char *rank_file(const char *dir, const char *name)
{
    char *p = path_join(dir, name);
    if (path_require(p, 0) != 0) {
        free(p);
        return NULL;
    }
    return p;
}

/* The "data" object (begun by dump_data_begin), entry by entry. */
static int index_data(rankdata *rd, jparser *jp, unsigned need, progress_job *pj, size_t *reported)
{
    arena scratch;
    arena_init(&scratch, 1 << 16);
    rd->nentries = 0;
    strmap_clear(&rd->by_name);
    rd->has_md5 = 0;
    int rc = -1, found = 0;
    for (;;) {
        const char *key;
        size_t keylen;
        int more = jp_object_next(jp, &scratch, &key, &keylen);
        if (more < 0)
            goto out;
        if (!more)
            break;
        if (jp_peek(jp) < 0)
            goto out;
        size_t off = (size_t)(jp->p - jp->start);
        size_t *slot = strmap_get(&rd->by_name, key, keylen);
        rank_entry *e;
        if (!slot) {
            GROW(rd->entries, rd->cap, rd->nentries + 1);
            e = &rd->entries[rd->nentries];
            e->name = arena_strndup(&rd->mem, key, keylen);
            e->namelen = (uint32_t)keylen;
            int added;
            strmap_put(&rd->by_name, e->name, keylen, rd->nentries, &added);
            rd->nentries++;
        } else {
            e = &rd->entries[*slot];
        }
        e->overflow = 0;
        e->has_md5 = 0;
        int want_md5 = (need & RANK_NEED_MD5) && !found;
        if (need & RANK_NEED_OVERFLOW) {
            jval v;
            if (jp_value(jp, &scratch, &v) != 0)
                goto out;
            e->overflow = (uint8_t)ovf_scene_level(ovf_classify(e->name, &v));
            e->has_md5 = (uint8_t)dump_entry_has_md5(&v);
            found |= e->has_md5;
        } else if (jp_skim(jp, 0) == 1) {
            /* A skimmed value has no escapes: without the text "md5" it
             * has no md5 key, and only an entry with it is parsed. */
            size_t len = (size_t)(jp->p - jp->start) - off;
            if (want_md5 && memmem(jp->start + off, len, "\"md5\"", 5)) {
                jparser sub;
                jp_init(&sub, rd->dump_path, jp->start + off, len);
                jval v;
                int bad = jp_value(&sub, &scratch, &v);
                jp_free(&sub);
                if (bad)
                    goto out;
                e->has_md5 = (uint8_t)dump_entry_has_md5(&v);
                found |= e->has_md5;
            }
        } else if (want_md5) {
            jval v;
            if (jp_value(jp, &scratch, &v) != 0)
                goto out;
            e->has_md5 = (uint8_t)dump_entry_has_md5(&v);
            found |= e->has_md5;
        } else if (jp_skip(jp) != 0) {
            goto out;
        }
        e->off = off;
        e->len = (size_t)(jp->p - jp->start) - off;
        arena_reset(&scratch);
        size_t parsed = (size_t)(jp->p - jp->start);
        if (parsed - *reported >= REPORT_STEP) {
            progress_add(pj, parsed - *reported);
            *reported = parsed;
        }
    }
    /* md5_find(): the last value of a repeated name counts */
    for (size_t i = 0; i < rd->nentries; i++)
        rd->has_md5 |= rd->entries[i].has_md5;
    rc = 0;
out:
    arena_free(&scratch);
    return rc;
}

/* The top level of dump.json: "data" indexed; "task", "framework" and
 * "dump_data_dir" kept. A repeated key counts with its last value. */
typedef struct {
    rankdata *rd;
    unsigned need;
    progress_job *pj;
    size_t reported;
    char *framework;
    int has_framework;
} dump_reading;

static int dump_member(void *ctx, jparser *jp, const char *key, size_t keylen, arena *scratch)
{
    dump_reading *r = ctx;
    rankdata *rd = r->rd;
    if (dump_key_is(key, keylen, "data"))
        return dump_data_begin(jp, rd->dump_path) != 0 ? -1 : index_data(rd, jp, r->need, r->pj, &r->reported);
    int is_dir = dump_key_is(key, keylen, "dump_data_dir");
    jval v;
    if (jp_value(jp, is_dir ? &rd->mem : scratch, &v) != 0)
        return -1;
    if (is_dir) {
        rd->dump_data_dir = v;
    } else if (dump_key_is(key, keylen, "task")) {
        free(rd->task);
        rd->task = v.type == J_STRING ? xstrndup(v.u.str, v.len) : NULL;
        rd->task_truthy = json_truthy(&v);
    } else if (dump_key_is(key, keylen, "framework")) {
        r->has_framework = 1;
        free(r->framework);
        r->framework = v.type == J_STRING ? xstrndup(v.u.str, v.len) : NULL;
    }
    return 0;
}

static int read_dump(rankdata *rd, unsigned need, progress_job *pj)
{
    jparser jp;
    jp_init(&jp, rd->dump_path, rd->dump.data, rd->dump.size);
    arena scratch;
    arena_init(&scratch, 1 << 12);
    dump_reading r = {.rd = rd, .need = need, .pj = pj};
    int rc = dump_walk_members(&jp, rd->dump_path, &scratch, dump_member, &r);
    if (rc == 0) {
        rd->framework = dump_framework_text(r.framework, rd->dump.data, rd->dump.size);
        rd->framework_pytorch = !r.has_framework || (r.framework && !strcmp(r.framework, "pytorch"));
        progress_add(pj, rd->dump.size - r.reported);
    }
    free(r.framework);
    arena_free(&scratch);
    jp_free(&jp);
    return rc;
}

static const char MEGATRON_KEY[] = "megatron_micro_step_number";

/* A micro step of the newest msprobe's Megatron construct.json: a JSON
 * integer, or null (none). 0 or -1. */
static int micro_of(const rankdata *rd, const jval *v, const char *what, size_t wl, long *out, uint8_t *set)
{
    *set = 0;
    if (v->type == J_NULL)
        return 0;
    if (v->type != J_NUMBER || !v->is_int || v->u.num < -1e15 || v->u.num > 1e15)
        return err_input(rd->construct_path, "the micro step of %.*s is not an integer", (int)(wl > 200 ? 200 : wl),
                         what);
    *out = (long)v->u.num;
    *set = 1;
    return 0;
}

/* construct.json: {node: parent}; a parent is a node name, or null / ""
 * (the root). The newest msprobe's Megatron dumps add the key
 * megatron_micro_step_number and write [parent, micro step] (each micro
 * step kept; a list of another length is refused, as it refuses it);
 * elsewhere a list's first item counts as the parent. */
static int read_construct(rankdata *rd)
{
    if (json_load_file(rd->construct_path, 0, &rd->cfile, &rd->mem, &rd->construct,
                       "is not a JSON object of node: parent") != 0)
        return -1;
    jval *c = &rd->construct;
    for (uint32_t i = 0; i < c->len; i++) {
        if (!json_key_is(&c->u.members[i], MEGATRON_KEY))
            continue;
        const jval *v = &c->u.members[i].val;
        rd->megatron = 1;
        uint8_t set;
        if (micro_of(rd, v, MEGATRON_KEY, sizeof MEGATRON_KEY - 1, &rd->megatron_steps, &set) != 0)
            return -1;
        rd->megatron_has_steps = set;
        memmove(&c->u.members[i], &c->u.members[i + 1], (c->len - i - 1) * sizeof *c->u.members);
        c->len--;
        i--;
    }
    if (rd->megatron) {
        rd->construct_micro = arena_alloc(&rd->mem, (c->len + 1) * sizeof *rd->construct_micro);
        rd->construct_micro_set = arena_alloc(&rd->mem, c->len + 1);
    }
    for (uint32_t i = 0; i < c->len; i++) {
        jmember *m = &c->u.members[i];
        jval *v = &m->val;
        int klen = (int)(m->keylen > 200 ? 200 : m->keylen);
        if (rd->megatron) {
            rd->construct_micro[i] = 0;
            rd->construct_micro_set[i] = 1;
            if (v->type == J_ARRAY && v->len != 2)
                return err_input(rd->construct_path, "the value of %.*s is a list of %u items, not [parent, micro step]",
                                 klen, m->key, v->len);
            if (v->type == J_ARRAY && micro_of(rd, &v->u.items[1], m->key, m->keylen, &rd->construct_micro[i],
                                               &rd->construct_micro_set[i]) != 0)
                return -1;
        }
        if (v->type == J_ARRAY) {
            if (v->len == 0)
                v->type = J_NULL;
            else
                *v = v->u.items[0];
        }
        if (v->type != J_STRING && v->type != J_NULL)
            return err_input(rd->construct_path, "the parent of %.*s is neither a node name nor null", klen, m->key);
    }
    return 0;
}

int rank_load(rankdata *rd, const char *dir, unsigned need, progress_job *pj)
{
    memset(rd, 0, sizeof *rd);
    rd->dir = xstrdup(dir);
    arena_init(&rd->mem, 1 << 16);
    strmap_init(&rd->by_name, 1024);
    rd->dump_data_dir.type = J_STRING;
    rd->dump_data_dir.u.str = "";
    /* msprobe checks construct.json, dump.json, stack.json in this order */
    if (!(rd->construct_path = rank_file(dir, "construct.json")) || !(rd->dump_path = rank_file(dir, "dump.json")) ||
        !(rd->stack_path = rank_file(dir, "stack.json")))
        return -1;
    rd->tensor_dir = path_join(dir, "dump_tensor_data");
    if (read_construct(rd) != 0)
        return -1;
    if (file_map(rd->dump_path, 0, &rd->dump) != 0)
        return -1;
    if (rd->dump.size == 0)
        return err_input(rd->dump_path, "is empty");
    progress_expect(pj, rd->dump.size);
    file_guard g;
    file_guard_begin(&g, &rd->dump);
    int rc = read_dump(rd, need, pj);
    if (file_guard_end(&g) != 0)
        rc = -1;
    if (rc != 0)
        return -1;
    return stack_load(rd->stack_path, &rd->stack);
}

void rank_free(rankdata *rd)
{
    free(rd->dir);
    free(rd->dump_path);
    free(rd->construct_path);
    free(rd->stack_path);
    free(rd->tensor_dir);
    free(rd->task);
    file_unmap(&rd->dump);
    file_unmap(&rd->cfile);
    free(rd->entries);
    strmap_free(&rd->by_name);
    if (rd->stack.path)
        stack_free(&rd->stack);
    arena_free(&rd->mem);
    memset(rd, 0, sizeof *rd);
}

long rank_entry_of(const rankdata *rd, const char *name, size_t len)
{
    const size_t *i = strmap_get(&rd->by_name, name, len);
    return i ? (long)*i : -1;
}
