/* YAML → jval, with PyYAML's safe_load typing (see yaml_read.h). libyaml
 * delivers events; we compose them into values ourselves, because the
 * typing, anchors and merge keys must behave like PyYAML's composer and
 * constructor, not like libyaml's document loader. */
#include "format/yaml_read.h"
#include "format/yaml_scalar.h"
#include "base/files.h"
#include "base/err.h"
#include "base/mem.h"
#include "py/numfmt.h"
#include "py/pystr.h"
#include "base/strbuf.h"
#include "base/strmap.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define TAG_PREFIX YAML_TAG_PREFIX

typedef struct {
    const char *name;
    jval val;
    size_t weight;     /* values in the subtree, aliases expanded */
    int done;          /* complete (a sequence/mapping may refer to itself) */
} anchor;

typedef struct {
    const char *path;
    const unsigned char *buf;
    size_t len;
    yaml_parser_t p;
    arena *a;
    anchor *anchors;
    size_t nanchors, capanchors;
    strmap anchor_index;
    size_t alias_values;
    int depth;
    jval *vstack;
    size_t vtop, vcap;
    jmember *mstack;
    size_t mtop, mcap;
} composer;

/* ---- errors --------------------------------------------------------------- */

static int fail_at(composer *c, const yaml_mark_t *m, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_at(composer *c, const yaml_mark_t *m, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return err_input(c->path, "malformed YAML at line %zu, column %zu: %s", m->line + 1, m->column + 1, msg);
}

static int parser_failed(composer *c)
{
    yaml_parser_t *p = &c->p;
    if (p->error == YAML_MEMORY_ERROR)
        return err_internal(c->path, "out of memory while parsing YAML");
    const char *problem = p->problem ? p->problem : "cannot parse";
    if (p->error == YAML_READER_ERROR) {
        /* the reader reports a byte offset, not a mark */
        yaml_mark_t m = {0, 0, 0};
        for (size_t i = 0; i < p->problem_offset && i < c->len; i++) {
            if (c->buf[i] == '\n') {
                m.line++;
                m.column = 0;
            } else if ((c->buf[i] & 0xC0) != 0x80) {
                m.column++;
            }
        }
        if (p->problem_value >= 0)
            return fail_at(c, &m, "%s (#x%X)", problem, (unsigned)p->problem_value);
        return fail_at(c, &m, "%s", problem);
    }
    if (p->context)
        return fail_at(c, &p->problem_mark, "%s (%s at line %zu, column %zu)", problem, p->context,
                       p->context_mark.line + 1, p->context_mark.column + 1);
    return fail_at(c, &p->problem_mark, "%s", problem);
}

static int next_event(composer *c, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&c->p, ev))
        return parser_failed(c);
    return 0;
}

/* ---- composition ------------------------------------------------------------ */

static int compose(composer *c, yaml_event_t *ev, jval *out, size_t *weight, int *special);

static const char *tag_of(const yaml_event_t *ev)
{
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        return (const char *)ev->data.scalar.tag;
    case YAML_SEQUENCE_START_EVENT:
        return (const char *)ev->data.sequence_start.tag;
    case YAML_MAPPING_START_EVENT:
        return (const char *)ev->data.mapping_start.tag;
    default:
        return NULL;
    }
}

static const char *anchor_of(const yaml_event_t *ev)
{
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        return (const char *)ev->data.scalar.anchor;
    case YAML_SEQUENCE_START_EVENT:
        return (const char *)ev->data.sequence_start.anchor;
    case YAML_MAPPING_START_EVENT:
        return (const char *)ev->data.mapping_start.anchor;
    default:
        return NULL;
    }
}

static anchor *find_anchor(composer *c, const char *name)
{
    size_t *i = strmap_get(&c->anchor_index, name, strlen(name));
    return i ? &c->anchors[*i] : NULL;
}

static int add_anchor(composer *c, const yaml_event_t *ev, size_t *index)
{
    const char *name = anchor_of(ev);
    if (!name)
        return 0;
    if (find_anchor(c, name))
        return fail_at(c, &ev->start_mark, "found duplicate anchor '%s'", name);
    GROW(c->anchors, c->capanchors, c->nanchors + 1);
    anchor *an = &c->anchors[c->nanchors];
    memset(an, 0, sizeof *an);
    an->name = arena_strndup(c->a, name, strlen(name));
    strmap_put(&c->anchor_index, an->name, strlen(an->name), c->nanchors, NULL);
    *index = c->nanchors++;
    return 0;
}

static void finish_anchor(composer *c, const yaml_event_t *ev, size_t index, const jval *v, size_t weight)
{
    if (!anchor_of(ev))
        return;
    c->anchors[index].val = *v;
    c->anchors[index].weight = weight;
    c->anchors[index].done = 1;
}

static int compose_scalar(composer *c, yaml_event_t *ev, jval *out, int *special)
{
    const char *tag = tag_of(ev);
    int t;
    if (!tag || !strcmp(tag, "!"))
        t = ev->data.scalar.plain_implicit
                ? (memchr(ev->data.scalar.value, 0, ev->data.scalar.length)
                       ? T_STR
                       : yaml_resolve_plain((const char *)ev->data.scalar.value))
                : T_STR;
    else
        t = yaml_explicit_tag(tag);
    if (t == T_MERGE || t == T_VALUE) {
        /* meaningful only as a mapping key; the caller decides */
        *special = t;
        out->type = J_STRING;
        out->u.str = arena_strndup(c->a, (const char *)ev->data.scalar.value, ev->data.scalar.length);
        out->len = (uint32_t)ev->data.scalar.length;
        return 0;
    }
    if (t == T_UNKNOWN)
        return fail_at(c, &ev->start_mark, "could not determine a constructor for the tag '%s'", tag);
    if (t == T_UNSUPPORTED)
        return fail_at(c, &ev->start_mark, "values tagged '%s' are not supported", tag);
    if (t != T_STR && t != T_NULL && memchr(ev->data.scalar.value, 0, ev->data.scalar.length))
        return fail_at(c, &ev->start_mark, "a NUL character in a value tagged '%s'", tag);
    const char *why;
    if (yaml_scalar_value(t, (const char *)ev->data.scalar.value, ev->data.scalar.length, c->a, out, &why) != 0) {
        size_t n = ev->data.scalar.length;
        return fail_at(c, &ev->start_mark, "'%.*s' %s", (int)(n > 64 ? 64 : n), (const char *)ev->data.scalar.value,
                       why);
    }
    return 0;
}

static void push_value(composer *c, const jval *v)
{
    GROW(c->vstack, c->vcap, c->vtop + 1);
    c->vstack[c->vtop++] = *v;
}

static void push_member(composer *c, const char *key, uint32_t keylen, const jval *v)
{
    GROW(c->mstack, c->mcap, c->mtop + 1);
    jmember *m = &c->mstack[c->mtop++];
    m->key = key;
    m->keylen = keylen;
    m->val = *v;
}

/* A value used where PyYAML cannot construct it (merge or value tag). */
static int misplaced(composer *c, const yaml_event_t *ev, int special)
{
    return fail_at(c, &ev->start_mark, "could not determine a constructor for the tag '" TAG_PREFIX "%s'",
                   special == T_MERGE ? "merge" : "value");
}

/* Next node of a collection into *v; returns 1 when the collection ended. */
static int next_child(composer *c, yaml_event_type_t end, jval *v, size_t *weight, int *special,
                      yaml_mark_t *mark)
{
    yaml_event_t ev;
    if (next_event(c, &ev))
        return -1;
    if (ev.type == end) {
        yaml_event_delete(&ev);
        return 1;
    }
    *mark = ev.start_mark;
    *special = 0;
    return compose(c, &ev, v, weight, special) ? -1 : 0;
}

static int compose_sequence(composer *c, const yaml_event_t *start, jval *out, size_t *weight)
{
    size_t base = c->vtop;
    *weight = 1;
    for (;;) {
        jval v;
        size_t w;
        int special;
        yaml_mark_t mark;
        int r = next_child(c, YAML_SEQUENCE_END_EVENT, &v, &w, &special, &mark);
        if (r < 0)
            return -1;
        if (r == 1)
            break;
        if (special) {
            yaml_event_t fake = {.start_mark = mark};
            return misplaced(c, &fake, special);
        }
        push_value(c, &v);
        *weight += w;
    }
    size_t n = c->vtop - base;
    if (n > UINT32_MAX)
        return fail_at(c, &start->start_mark, "sequence too long");
    out->type = J_ARRAY;
    out->len = (uint32_t)n;
    out->u.items = n ? arena_alloc(c->a, n * sizeof(jval)) : NULL;
    if (n)
        memcpy(out->u.items, c->vstack + base, n * sizeof(jval));
    c->vtop = base;
    return 0;
}

/* Python's str() of a hashable key. */
static int key_text(composer *c, const jval *k, const yaml_mark_t *mark, const char **key, uint32_t *len)
{
    if (k->type == J_ARRAY || k->type == J_OBJECT)
        return fail_at(c, mark, "found unhashable key");
    if (k->type == J_STRING) {
        *key = k->u.str;
        *len = k->len;
        return 0;
    }
    strbuf sb = STRBUF_INIT;
    py_str_json(&sb, k);
    *key = arena_strndup(c->a, sb.buf, sb.len);
    *len = (uint32_t)sb.len;
    sb_free(&sb);
    return 0;
}

/* The members a merge key's value contributes, appended to *merged. */
static int merge_value(composer *c, const jval *v, const yaml_mark_t *mark, jmember **merged, size_t *nmerged,
                       size_t *cap)
{
    const jval *maps[1] = {v};
    const jval *list = v->type == J_ARRAY ? v->u.items : NULL;
    size_t count = v->type == J_ARRAY ? v->len : 1;
    if (v->type != J_ARRAY && v->type != J_OBJECT)
        return fail_at(c, mark, "expected a mapping or list of mappings for merging, but found a scalar");
    /* PyYAML merges the mappings of a list last to first */
    for (size_t i = count; i-- > 0;) {
        const jval *m = list ? &list[i] : maps[0];
        if (m->type != J_OBJECT)
            return fail_at(c, mark, "expected a mapping for merging, but found a %s",
                           m->type == J_ARRAY ? "sequence" : "scalar");
        GROW(*merged, *cap, *nmerged + m->len);
        if (m->len)   /* an empty mapping has no members array (NULL) */
            memcpy(*merged + *nmerged, m->u.members, m->len * sizeof(jmember));
        *nmerged += m->len;
    }
    return 0;
}

static int compose_mapping(composer *c, const yaml_event_t *start, jval *out, size_t *weight)
{
    size_t base = c->mtop;
    jmember *merged = NULL;
    size_t nmerged = 0, capmerged = 0;
    int rc = 0;
    *weight = 1;
    for (;;) {
        jval k, v;
        size_t wk, wv;
        int sk, sv;
        yaml_mark_t mk, mv;
        int r = next_child(c, YAML_MAPPING_END_EVENT, &k, &wk, &sk, &mk);
        if (r == 1)
            break;
        if (r == 0)
            r = next_child(c, YAML_MAPPING_END_EVENT, &v, &wv, &sv, &mv);
        if (r != 0) {
            /* libyaml always pairs keys with values; be safe anyway */
            rc = r < 0 ? -1 : fail_at(c, &mk, "mapping key without a value");
            break;
        }
        if (sv) {
            yaml_event_t fake = {.start_mark = mv};
            rc = misplaced(c, &fake, sv);
            break;
        }
        *weight += wk + wv;
        if (sk == T_MERGE) {
            if ((rc = merge_value(c, &v, &mv, &merged, &nmerged, &capmerged)) != 0)
                break;
            continue;
        }
        const char *key = NULL;
        uint32_t keylen = 0;
        if ((rc = key_text(c, &k, &mk, &key, &keylen)) != 0)
            break;
        push_member(c, key, keylen, &v);
    }
    if (rc == 0) {
        size_t own = c->mtop - base, n = nmerged + own;
        jmember *all = xmalloc_array(n ? n : 1, sizeof *all);
        if (nmerged)
            memcpy(all, merged, nmerged * sizeof *all);
        if (own)
            memcpy(all + nmerged, c->mstack + base, own * sizeof *all);
        jmember *dst = n ? arena_alloc(c->a, n * sizeof *dst) : NULL;
        size_t k = json_dict_members(all, n, dst);
        free(all);
        if (k > UINT32_MAX) {
            rc = fail_at(c, &start->start_mark, "mapping too long");
        } else {
            out->type = J_OBJECT;
            out->len = (uint32_t)k;
            out->u.members = dst;
        }
    }
    free(merged);
    c->mtop = base;
    return rc;
}

/* Compose the node that starts with *ev (consumed here). */
static int compose(composer *c, yaml_event_t *ev, jval *out, size_t *weight, int *special)
{
    memset(out, 0, sizeof *out);
    *weight = 1;
    int rc = 0;
    if (ev->type == YAML_ALIAS_EVENT) {
        const char *name = (const char *)ev->data.alias.anchor;
        anchor *an = find_anchor(c, name);
        if (!an)
            rc = fail_at(c, &ev->start_mark, "found undefined alias '%s'", name);
        else if (!an->done)
            rc = fail_at(c, &ev->start_mark, "found recursive alias '%s' (a structure containing itself)", name);
        else if ((c->alias_values += an->weight) > YAML_MAX_ALIAS_VALUES)
            rc = fail_at(c, &ev->start_mark, "aliases expand to more than %d values (alias bomb?)",
                         YAML_MAX_ALIAS_VALUES);
        if (rc == 0) {
            *out = an->val;
            *weight = an->weight;
        }
        yaml_event_delete(ev);
        return rc;
    }
    if (ev->type != YAML_SCALAR_EVENT && ev->type != YAML_SEQUENCE_START_EVENT &&
        ev->type != YAML_MAPPING_START_EVENT) {
        rc = fail_at(c, &ev->start_mark, "unexpected event");
        yaml_event_delete(ev);
        return rc;
    }
    size_t index = 0;
    if (add_anchor(c, ev, &index) != 0) {
        yaml_event_delete(ev);
        return -1;
    }
    if (ev->type == YAML_SCALAR_EVENT) {
        rc = compose_scalar(c, ev, out, special);
    } else {
        const char *tag = tag_of(ev);
        const char *want = ev->type == YAML_SEQUENCE_START_EVENT ? TAG_PREFIX "seq" : TAG_PREFIX "map";
        if (tag && strcmp(tag, "!") && strcmp(tag, want))
            rc = fail_at(c, &ev->start_mark,
                         yaml_unsupported_tag(tag) ? "values tagged '%s' are not supported"
                                              : "could not determine a constructor for the tag '%s'",
                         tag);
        else if (++c->depth > YAML_MAX_DEPTH)
            rc = fail_at(c, &ev->start_mark, "nested deeper than %d levels", YAML_MAX_DEPTH);
        else if (ev->type == YAML_SEQUENCE_START_EVENT)
            rc = compose_sequence(c, ev, out, weight);
        else
            rc = compose_mapping(c, ev, out, weight);
        c->depth--;
    }
    if (rc == 0)
        finish_anchor(c, ev, index, out, *weight);
    yaml_event_delete(ev);
    return rc;
}

static int expect(composer *c, yaml_event_type_t type, yaml_event_t *ev)
{
    if (next_event(c, ev))
        return -1;
    if (ev->type != type) {
        int rc = fail_at(c, &ev->start_mark, "unexpected YAML event");
        yaml_event_delete(ev);
        return rc;
    }
    return 0;
}

static int compose_stream(composer *c, jval *out)
{
    yaml_event_t ev;
    out->type = J_NULL;
    if (expect(c, YAML_STREAM_START_EVENT, &ev))
        return -1;
    yaml_event_delete(&ev);
    if (next_event(c, &ev))
        return -1;
    if (ev.type == YAML_STREAM_END_EVENT) {
        yaml_event_delete(&ev);
        return 0;
    }
    if (ev.type != YAML_DOCUMENT_START_EVENT) {
        int rc = fail_at(c, &ev.start_mark, "unexpected YAML event");
        yaml_event_delete(&ev);
        return rc;
    }
    yaml_event_delete(&ev);
    if (next_event(c, &ev))
        return -1;
    size_t weight;
    int special = 0;
    yaml_event_t root = {.start_mark = ev.start_mark};
    if (compose(c, &ev, out, &weight, &special))
        return -1;
    if (special)
        return misplaced(c, &root, special);
    if (expect(c, YAML_DOCUMENT_END_EVENT, &ev))
        return -1;
    yaml_event_delete(&ev);
    if (next_event(c, &ev))
        return -1;
    int rc = 0;
    if (ev.type != YAML_STREAM_END_EVENT)
        rc = fail_at(c, &ev.start_mark, "expected a single document in the stream but found another document");
    yaml_event_delete(&ev);
    return rc;
}

int yaml_parse(const char *path, const void *buf, size_t len, arena *a, jval *out)
{
    composer c;
    memset(&c, 0, sizeof c);
    memset(out, 0, sizeof *out);
    c.path = path;
    c.buf = buf;
    c.len = len;
    c.a = a;
    if (!yaml_parser_initialize(&c.p))
        return err_internal(path, "cannot initialise libyaml");
    yaml_parser_set_input_string(&c.p, buf, len);
    strmap_init(&c.anchor_index, 16);
    int rc = compose_stream(&c, out);
    if (rc)
        memset(out, 0, sizeof *out);
    yaml_parser_delete(&c.p);
    strmap_free(&c.anchor_index);
    free(c.anchors);
    free(c.vstack);
    free(c.mstack);
    return rc;
}

int yaml_load_file(const char *path, int rule, arena *a, jval *out)
{
    memset(out, 0, sizeof *out);
    if (rule == YAML_SUFFIX_YAML && !path_has_suffix(path, ".yaml"))
        return err_input(path, "The %s should be a .yaml file!", path);
    if (rule == YAML_SUFFIX_YAML_OR_YML && !path_has_suffix(path, ".yaml") && !path_has_suffix(path, ".yml"))
        return err_input(path, "should be a .yaml (or .yml) file");
    mapped_file f;
    if (file_load(path, YAML_MAX_FILE_SIZE - 1, &f) != 0)
        return -1;
    int rc = yaml_parse(path, f.data ? (const void *)f.data : "", f.size, a, out);
    file_unmap(&f);
    return rc;
}
