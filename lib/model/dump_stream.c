/* The rows of one dump.json entry read straight from the text, for the
 * shape nearly every entry has: an object whose input/output members hold
 * tensors (leaf objects of scalars and a shape list), nulls, and lists or
 * dicts of those. Building the entry's JSON tree and walking it afterwards
 * (dump_leaf.c) costs as much again as reading the text; this walk reads
 * each value once and makes the row from it with the same function the tree
 * walk uses (dump_leaf_fields_row), so the rows are the same by
 * construction.
 *
 * Anything else -- a repeated or out-of-order member, a leaf with an md5, a
 * value or a nested object, a string msprobe's checks would refuse, a text
 * that is not JSON -- and the walk gives up: it takes back the rows it made,
 * puts the parser back at the entry's value, and the caller reads the entry
 * the general way, which also says what is wrong with it. Giving up only
 * ever costs time; the cases it leaves are few in real dumps. */
#include "model/dump_stream.h"
#include "model/dump_leaf.h"
#include "base/err.h"
#include "py/pystr.h"

#include <string.h>

/* Deeper lists than this are left to the general walk (which refuses
 * FLATTEN_MAX_DEPTH). */
#define STREAM_MAX_DEPTH 8
/* A shape of more dimensions is left to the general walk. */
#define STREAM_MAX_DIMS 32

typedef struct {
    flattener *f;
    jparser *jp;
    arena *mem;              /* escaped strings, for this entry only */
} stream;

enum { GIVE_UP = 0, DONE = 1 };

static int key_is(const char *k, size_t n, const char *w)
{
    size_t l = strlen(w);
    return n == l && !memcmp(k, w, l);
}

/* A string msprobe's checks refuse, or that its md5 detection would find:
 * such an entry goes the general way (which reports or detects it). */
static int string_suspect(const jval *v)
{
    if (v->type != J_STRING)
        return 0;
    return py_blacklisted(v->u.str, v->len) || memmem(v->u.str, v->len, "md5", 3) != NULL;
}

/* A scalar value at jp into *v; GIVE_UP for a list, an object or bad text. */
static int scalar(stream *s, jval *v)
{
    if (jp_scalar(s->jp, s->mem, v) != 0 || string_suspect(v))
        return GIVE_UP;
    return DONE;
}

/* The shape list: integers only (what str() of them is, py_str_json says). */
static int shape_list(stream *s, jval *items, uint32_t *n)
{
    if (jp_peek(s->jp) != '[' || jp_array_begin(s->jp) != 0)
        return GIVE_UP;
    *n = 0;
    for (;;) {
        int more = jp_array_next(s->jp);
        if (more < 0)
            return GIVE_UP;
        if (!more)
            return DONE;
        if (*n == STREAM_MAX_DIMS || scalar(s, &items[*n]) != DONE || items[*n].type != J_NUMBER ||
            !items[*n].is_int)
            return GIVE_UP;
        (*n)++;
    }
}

/* A leaf whose "type" member (its first) has been read into *type. */
static int leaf(stream *s, const jval *type)
{
    enum { K_DTYPE = 1, K_SHAPE = 2, K_RG = 4, K_DATA = 8, K_VALUE = 16, K_STAT = 32 };
    jval dtype, value, data_name, rg, stat[4], dims[STREAM_MAX_DIMS], shape;
    leaf_fields lf;
    memset(&lf, 0, sizeof lf);
    lf.type = type;
    unsigned seen = 0;
    for (;;) {
        const char *k;
        size_t kl;
        int m = jp_object_next(s->jp, s->mem, &k, &kl);
        if (m < 0)
            return GIVE_UP;
        if (m == 0)
            break;
        unsigned bit = 0;
        int st = -1;
        enum { OTHER, DTYPE, SHAPE, RG, DATA, VALUE, STAT, REFUSE } what = OTHER;
        switch (kl) {
        case 3:
            if (!memcmp(k, "Max", 3))
                what = STAT, st = 0;
            else if (!memcmp(k, "Min", 3))
                what = STAT, st = 1;
            else if (!memcmp(k, "md5", 3))
                what = REFUSE;
            break;
        case 4:
            if (!memcmp(k, "Mean", 4))
                what = STAT, st = 2;
            else if (!memcmp(k, "Norm", 4))
                what = STAT, st = 3;
            else if (!memcmp(k, "type", 4))
                what = REFUSE;
            break;
        case 5:
            if (!memcmp(k, "dtype", 5))
                what = DTYPE;
            else if (!memcmp(k, "shape", 5))
                what = SHAPE;
            else if (!memcmp(k, "value", 5))
                what = VALUE;
            break;
        case 9:
            if (!memcmp(k, "data_name", 9))
                what = DATA;
            break;
        case 11:
            if (!memcmp(k, "group_ranks", 11))
                what = REFUSE;
            break;
        case 13:
            if (!memcmp(k, "requires_grad", 13))
                what = RG;
            break;
        }
        switch (what) {
        case STAT:
            bit = K_STAT << st;
            if ((seen & bit) || scalar(s, &stat[st]) != DONE)
                return GIVE_UP;
            lf.stat[st] = &stat[st];
            break;
        case DTYPE:
            bit = K_DTYPE;
            if ((seen & bit) || scalar(s, &dtype) != DONE)
                return GIVE_UP;
            lf.dtype = &dtype;
            break;
        case SHAPE: {
            /* msprobe refuses a shape that is not a list: the general walk
             * says so */
            bit = K_SHAPE;
            uint32_t n;
            if ((seen & bit) || shape_list(s, dims, &n) != DONE)
                return GIVE_UP;
            memset(&shape, 0, sizeof shape);
            shape.type = J_ARRAY;
            shape.len = n;
            shape.u.items = dims;
            lf.shape = &shape;
            break;
        }
        case RG:
            bit = K_RG;
            if ((seen & bit) || scalar(s, &rg) != DONE || (rg.type != J_TRUE && rg.type != J_FALSE))
                return GIVE_UP;
            lf.requires_grad = &rg;
            break;
        case DATA:
            bit = K_DATA;
            if ((seen & bit) || scalar(s, &data_name) != DONE)
                return GIVE_UP;
            lf.data_name = &data_name;
            break;
        case VALUE:
            bit = K_VALUE;
            if ((seen & bit) || scalar(s, &value) != DONE)
                return GIVE_UP;
            lf.value = &value;
            break;
        case REFUSE:
            /* a repeated type, an md5 (md5 mode), a process group */
            return GIVE_UP;
        case OTHER: {
            /* a member the row does not read: checked, then dropped */
            jval other;
            if (scalar(s, &other) != DONE)
                return GIVE_UP;
            break;
        }
        }
        seen |= bit;
    }
    dump_row *r = dump_new_row(s->f->d);
    r->state = s->f->parse_state;
    return dump_leaf_fields_row(s->f, r, &lf) == 0 ? DONE : GIVE_UP;
}

static int item(stream *s, int depth);

/* The rest of an object whose first key (not "type") is k: a dict of
 * items, each named ".key". */
static int dict(stream *s, const char *k, size_t kl, int depth)
{
    flattener *f = s->f;
    size_t keep = f->prefix.len;
    /* keys seen, to give up on a repeated one (Python keeps the last) */
    const char *keys[16];
    size_t lens[16];
    int nkeys = 0;
    for (;;) {
        /* "type" would make the object a leaf after all; msprobe checks a
         * "shape" or "requires_grad" member of any object */
        if (key_is(k, kl, "type") || key_is(k, kl, "md5") || key_is(k, kl, "shape") ||
            key_is(k, kl, "requires_grad") || dump_has_component(k, kl, "parameters_grad") || nkeys == 16 ||
            (f->newer_rows && key_is(k, kl, "class_type")))
            return GIVE_UP;
        for (int i = 0; i < nkeys; i++)
            if (lens[i] == kl && !memcmp(keys[i], k, kl))
                return GIVE_UP;
        keys[nkeys] = k;
        lens[nkeys++] = kl;
        sb_addc(&f->prefix, '.');
        sb_add(&f->prefix, k, kl);
        int rc = item(s, depth + 1);
        f->prefix.len = keep;
        f->prefix.buf[keep] = 0;
        if (rc != DONE)
            return rc;
        int m = jp_object_next(s->jp, s->mem, &k, &kl);
        if (m <= 0)
            return m == 0 ? DONE : GIVE_UP;
    }
}

/* One value in an input/output member, named f->prefix: what dump_flatten()
 * does with it. */
static int item(stream *s, int depth)
{
    flattener *f = s->f;
    if (depth > STREAM_MAX_DEPTH)
        return GIVE_UP;
    int c = jp_peek(s->jp);
    if (c == '[') {
        if (jp_array_begin(s->jp) != 0)
            return GIVE_UP;
        size_t keep = f->prefix.len;
        for (uint32_t i = 0;; i++) {
            int more = jp_array_next(s->jp);
            if (more <= 0)
                return more == 0 ? DONE : GIVE_UP;
            dump_add_index(&f->prefix, i);
            int rc = item(s, depth + 1);
            f->prefix.len = keep;
            f->prefix.buf[keep] = 0;
            if (rc != DONE)
                return rc;
        }
    }
    if (c == '{') {
        const char *k;
        size_t kl;
        if (jp_object_begin(s->jp) != 0)
            return GIVE_UP;
        int m = jp_object_next(s->jp, s->mem, &k, &kl);
        if (m <= 0)
            return m == 0 ? DONE : GIVE_UP;   /* {}: no row */
        if (!key_is(k, kl, "type"))
            return dict(s, k, kl, depth);
        jval type;
        if (scalar(s, &type) != DONE || type.type != J_STRING)
            return GIVE_UP;
        return leaf(s, &type);
    }
    jval v;
    if (scalar(s, &v) != DONE)
        return GIVE_UP;
    if (v.type == J_NULL)
        dump_null_row(f);
    /* any other scalar makes no row */
    return DONE;
}

/* The members read_op() reads, in the order it reads them (dump.c's
 * io_keys), and the prefix of their rows. */
static int io_index(const char *k, size_t kl)
{
    static const char *const keys[5] = {"input_args", "input_kwargs", "input", "output", "parameters"};
    for (int i = 0; i < 5; i++)
        if (key_is(k, kl, keys[i]))
            return i;
    return -1;
}

static int entry(stream *s, size_t keylen)
{
    static const char *const names[5] = {".input", ".input", ".input", ".output", ".parameters"};
    flattener *f = s->f;
    if (jp_object_begin(s->jp) != 0)
        return GIVE_UP;
    int last = -1;
    for (;;) {
        const char *k;
        size_t kl;
        int m = jp_object_next(s->jp, s->mem, &k, &kl);
        if (m <= 0)
            return m == 0 ? DONE : GIVE_UP;
        int io = io_index(k, kl);
        if (io < 0) {
            /* a member read_op() does not read (is_recompute, ...) */
            jval v;
            if (scalar(s, &v) != DONE)
                return GIVE_UP;
            continue;
        }
        /* rows go in read_op()'s order: a member out of it (or repeated)
         * is left to the general walk */
        if (io <= last)
            return GIVE_UP;
        last = io;
        f->prefix.len = keylen;
        sb_adds(&f->prefix, names[io]);
        f->parse_state = io < 3 ? ST_INPUT : io == 3 ? ST_OUTPUT : ST_PARAMS;
        if (item(s, 0) != DONE)
            return GIVE_UP;
    }
}

int dump_stream_entry(flattener *f, jparser *jp, arena *mem, size_t keylen)
{
    if (f->first_diff || f->on_row || f->in_params_grad || jp_peek(jp) != '{')
        return 0;
    dump_data *d = f->d;
    const char *start = jp->p;
    int depth = jp->depth, fresh = jp->fresh;
    size_t first = d->nrows;
    stream s = {.f = f, .jp = jp, .mem = mem};
    if (entry(&s, keylen) == DONE)
        return 1;
    /* the rows made are taken back; the general walk starts over */
    d->nrows = first;
    jp->p = start;
    jp->depth = depth;
    jp->fresh = fresh;
    err_clear();
    return 0;
}
