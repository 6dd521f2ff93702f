/* The pickle opcode interpreter (format/pickle.h): stack, marks, memo,
 * the allow-list of globals. The values it builds and the decoding of text
 * operands are format/pickle_value.c. */
#include "format/pickle.h"
#include "base/err.h"
#include "base/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deeper MARK nesting than any real torch or numpy pickle needs; bounding
 * it keeps a hostile file from making the machine's bookkeeping huge. */
#define MAX_MARKS 1000
/* Values waiting on the stack at once. Python's pickler pushes at most
 * 1000 items of a list or dict before an APPENDS or SETITEMS (its batch
 * size) and nests what it saves a few levels deep; only a tuple's items
 * all wait, and a checkpoint's tuples are shapes and strides. A stack this
 * deep is a crafted file (a million nested lists), not a model. */
#define PICKLE_MAX_STACK 100000
/* Memo indices. torch.save memoises each object it writes once, a handful
 * per tensor: a state dict of 100,000 tensors stays under a million. The
 * memo is an array indexed by the number the file gives (8 bytes each), so
 * the bound is also one on the memory a few bytes of pickle can claim. */
#define PICKLE_MAX_MEMO ((uint64_t)1 << 22)

typedef struct {
    pk_reader r;   /* the arena, and where we are for errors */
    const unsigned char *buf;
    size_t size, pos;
    pk_value **stack;
    size_t sp, scap;
    size_t *marks;
    size_t nmarks;
    pk_value **memo;
    size_t memo_cap, memo_len;
    const pk_global *allowed;
    size_t n_allowed;
} vm;

static int fail(vm *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(vm *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = pk_vfail(&m->r, fmt, ap);
    va_end(ap);
    return rc;
}

static void push(vm *m, pk_value *v)
{
    GROW(m->stack, m->scap, m->sp + 1);
    m->stack[m->sp++] = v;
}

static size_t base(const vm *m) { return m->nmarks ? m->marks[m->nmarks - 1] : 0; }

static pk_value *top(vm *m)
{
    if (m->sp <= base(m)) {
        fail(m, "stack underflow (opcode 0x%02x needs a value)", m->buf[m->r.op_pos]);
        return NULL;
    }
    return m->stack[m->sp - 1];
}

static pk_value *pop(vm *m)
{
    pk_value *v = top(m);
    if (v)
        m->sp--;
    return v;
}

static int push_new(vm *m, pk_kind k)
{
    push(m, pk_new_value(m->r.a, k));
    return 0;
}

static int push_int(vm *m, pk_kind k, int64_t i)
{
    pk_value *v = pk_new_value(m->r.a, k);
    v->u.i = i;
    push(m, v);
    return 0;
}

/* Values pushed since the last MARK, which is removed: [*first, ... sp). */
static int pop_mark(vm *m, size_t *first)
{
    if (m->nmarks == 0)
        return fail(m, "opcode 0x%02x needs a MARK, none is open", m->buf[m->r.op_pos]);
    *first = m->marks[--m->nmarks];
    return 0;
}

static pk_value *seq_from(vm *m, pk_kind k, size_t first)
{
    pk_value *s = pk_new_value(m->r.a, k);
    for (size_t i = first; i < m->sp; i++)
        pk_seq_add(m->r.a, s, m->stack[i]);
    m->sp = first;
    return s;
}

/* ---- reading operands -------------------------------------------------- */

static const unsigned char *take(vm *m, size_t n)
{
    if (n > m->size - m->pos) {
        fail(m, "truncated pickle: an operand of %zu bytes runs past the end", n);
        return NULL;
    }
    const unsigned char *p = m->buf + m->pos;
    m->pos += n;
    return p;
}

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* A text operand up to '\n' (protocol 0 opcodes). */
static const char *line(vm *m, size_t *len)
{
    const unsigned char *nl = memchr(m->buf + m->pos, '\n', m->size - m->pos);
    if (!nl) {
        fail(m, "truncated pickle: unterminated text operand");
        return NULL;
    }
    const char *s = (const char *)m->buf + m->pos;
    *len = (size_t)(nl - (m->buf + m->pos));
    m->pos += *len + 1;
    return s;
}

/* ---- globals and data constructors -------------------------------------- */

static const char *py3_module(const char *mod, size_t len)
{
    if (len == 11 && memcmp(mod, "__builtin__", 11) == 0)
        return "builtins";
    if (len == 8 && memcmp(mod, "copy_reg", 8) == 0)
        return "copyreg";
    return NULL;
}

/* "pkg.*" allows pkg and every module below it. */
static int module_matches(const char *pattern, const char *mod)
{
    size_t n = strlen(pattern);
    if (n >= 2 && pattern[n - 2] == '.' && pattern[n - 1] == '*')
        return strncmp(pattern, mod, n - 2) == 0 && (mod[n - 2] == 0 || mod[n - 2] == '.');
    return strcmp(pattern, mod) == 0;
}

static int name_matches(const char *pattern, const char *name) { return !strcmp(pattern, "*") || !strcmp(pattern, name); }

static int push_global(vm *m, const char *mod, size_t mlen, const char *name, size_t nlen)
{
    const char *mapped = py3_module(mod, mlen);
    const char *mname = mapped ? mapped : arena_strndup(m->r.a, mod, mlen);
    const char *gname = arena_strndup(m->r.a, name, nlen);
    for (size_t i = 0; i < m->n_allowed; i++)
        if (module_matches(m->allowed[i].module, mname) && name_matches(m->allowed[i].name, gname)) {
            pk_value *g = pk_new_value(m->r.a, PK_GLOBAL);
            g->u.global.id = (int)i;
            g->u.global.module = mname;
            g->u.global.name = gname;
            push(m, g);
            return 0;
        }
    return fail(m, "the pickle asks for the global '%.100s.%.100s', which is not allowed (refused, nothing was "
                   "executed)", mname, gname);
}

static int reduce(vm *m, pk_value *callable, pk_value *args, int newobj)
{
    if (callable->kind != PK_GLOBAL)
        return fail(m, "%s applied to %s; only allowed globals can be called", newobj ? "NEWOBJ" : "REDUCE",
                    pk_kind_name(callable->kind));
    if (args->kind != PK_TUPLE)
        return fail(m, "arguments of %s.%s are %s, not a tuple", callable->u.global.module,
                    callable->u.global.name, pk_kind_name(args->kind));
    if (!newobj) {
        int done;
        pk_value *v = pk_construct(&m->r, callable, args, &done);
        if (done) {
            if (!v)
                return -1;
            push(m, v);
            return 0;
        }
    }
    pk_value *c = pk_new_value(m->r.a, PK_CALL);
    c->u.call.callable = callable;
    c->u.call.args = args;
    c->u.call.newobj = newobj;
    push(m, c);
    return 0;
}

static int build(vm *m, pk_value *obj, pk_value *state)
{
    if (obj->kind == PK_CALL && !obj->u.call.state) {
        obj->u.call.state = state;
        return 0;
    }
    if (obj->kind == PK_DICT && !obj->attrs && state->kind == PK_DICT) {
        obj->attrs = state;
        return 0;
    }
    return fail(m, "BUILD cannot set the state of %s", pk_kind_name(obj->kind));
}

/* ---- memo ------------------------------------------------------------- */

static int memo_put(vm *m, uint64_t idx)
{
    pk_value *v = top(m);
    if (!v)
        return -1;
    /* Picklers number memo entries from 0 and each PUT costs at least two
     * bytes, so a legitimate index is below the pickle size. */
    if (idx >= m->size)
        return fail(m, "memo index %llu is out of range", (unsigned long long)idx);
    if (idx >= PICKLE_MAX_MEMO)
        return err_set(ERR_LIMIT, m->r.path, "%s, offset %zu: memo index %llu is over the limit of %llu entries",
                       m->r.what, m->r.op_pos, (unsigned long long)idx, (unsigned long long)PICKLE_MAX_MEMO);
    GROW_ZEROED(m->memo, m->memo_cap, (size_t)idx + 1);
    if (!m->memo[idx])
        m->memo_len++;
    m->memo[idx] = v;
    return 0;
}

static int memo_get(vm *m, uint64_t idx)
{
    if (idx >= m->memo_cap || !m->memo[idx])
        return fail(m, "memo index %llu was never stored", (unsigned long long)idx);
    push(m, m->memo[idx]);
    return 0;
}

/* ---- the machine ------------------------------------------------------ */

/* APPENDS, ADDITEMS, SETITEMS: move the values above the MARK into the
 * container below it. */
static int op_extend(vm *m, pk_kind want, const char *name)
{
    size_t first = 0;
    if (pop_mark(m, &first) != 0)
        return -1;
    if (want == PK_DICT && (m->sp - first) % 2)
        return fail(m, "%s with an odd number of values", name);
    if (first == 0 || first - 1 < base(m))
        return fail(m, "stack underflow (%s needs a container)", name);
    pk_value *c = m->stack[first - 1];
    if (c->kind != want)
        return fail(m, "%s on %s", name, pk_kind_name(c->kind));
    for (size_t i = first; i < m->sp; i++)
        pk_seq_add(m->r.a, c, m->stack[i]);
    m->sp = first;
    return 0;
}

/* TUPLE, LIST, DICT, FROZENSET: the values above the MARK, collected. */
static int op_collect(vm *m, pk_kind k)
{
    size_t first = 0;
    if (pop_mark(m, &first) != 0)
        return -1;
    if (k == PK_DICT && (m->sp - first) % 2)
        return fail(m, "DICT with an odd number of values");
    push(m, seq_from(m, k, first));
    return 0;
}

static int op_tuple_n(vm *m, size_t n)
{
    if (m->sp - base(m) < n)
        return fail(m, "stack underflow (TUPLE%zu)", n);
    push(m, seq_from(m, PK_TUPLE, m->sp - n));
    return 0;
}

static int op_int_bytes(vm *m, size_t n)
{
    const unsigned char *p = take(m, n);
    if (!p)
        return -1;
    if (n > 8) {
        push(m, pk_new_value(m->r.a, PK_BIGINT));
        return 0;
    }
    uint64_t v = le(p, (int)n);
    if (n > 0 && n < 8 && (p[n - 1] & 0x80))
        v |= ~(uint64_t)0 << (8 * n);
    return push_int(m, PK_INT, (int64_t)v);
}

/* Opcodes taking text lines (protocol 0/1) live here to keep step() short. */
static int step_text(vm *m, unsigned char op)
{
    size_t len, len2;
    const char *s = line(m, &len), *s2;
    if (!s)
        return -1;
    int64_t iv;
    pk_value *v;
    switch (op) {
    case 'I':
        if (len == 2 && (memcmp(s, "01", 2) == 0 || memcmp(s, "00", 2) == 0))
            return push_int(m, PK_BOOL, s[1] == '1');
        return pk_parse_int_text(&m->r, s, len, &iv) != 0 ? -1 : push_int(m, PK_INT, iv);
    case 'L':
        if (len && s[len - 1] == 'L')
            len--;
        return pk_parse_int_text(&m->r, s, len, &iv) != 0 ? -1 : push_int(m, PK_INT, iv);
    case 'F': {
        char tmp[64], *end;
        if (len == 0 || len >= sizeof tmp)
            return fail(m, "malformed FLOAT operand");
        memcpy(tmp, s, len);
        tmp[len] = 0;
        v = pk_new_value(m->r.a, PK_FLOAT);
        v->u.f = strtod(tmp, &end);
        if (*end)
            return fail(m, "malformed FLOAT operand");
        push(m, v);
        return 0;
    }
    case 'S':
        if (!(v = pk_quoted_string(&m->r, s, len)))
            return -1;
        push(m, v);
        return 0;
    case 'V':
        if (!(v = pk_raw_unicode(&m->r, s, len)))
            return -1;
        push(m, v);
        return 0;
    case 'P':
        v = pk_new_value(m->r.a, PK_PERSID);
        v->u.pid = pk_make_str(m->r.a, PK_STR, s, len);
        push(m, v);
        return 0;
    case 'p':
    case 'g':
        if (pk_parse_int_text(&m->r, s, len, &iv) != 0)
            return -1;
        if (iv < 0)
            return fail(m, "negative memo index");
        return op == 'p' ? memo_put(m, (uint64_t)iv) : memo_get(m, (uint64_t)iv);
    case 'c':
    case 'i': {
        if (!(s2 = line(m, &len2)))
            return -1;
        if (push_global(m, s, len, s2, len2) != 0)
            return -1;
        if (op == 'c')
            return 0;
        pk_value *cls = pop(m);
        size_t first = 0;
        if (pop_mark(m, &first) != 0)
            return -1;
        return reduce(m, cls, seq_from(m, PK_TUPLE, first), 1);
    }
    default:
        return fail(m, "unsupported pickle opcode 0x%02x", op);
    }
}

static int step(vm *m, unsigned char op)
{
    const unsigned char *p;
    pk_value *v, *w, *x;
    size_t first = 0;
    switch (op) {
    case 0x80: /* PROTO */
        if (!(p = take(m, 1)))
            return -1;
        if (p[0] > 5)
            return fail(m, "unsupported pickle protocol %u", p[0]);
        return 0;
    case 0x95: /* FRAME: a length hint only */
        return take(m, 8) ? 0 : -1;
    case '(':
        if (m->nmarks == MAX_MARKS)
            return fail(m, "pickle nests more than %d levels deep", MAX_MARKS);
        if (!m->marks)
            m->marks = xmalloc(MAX_MARKS * sizeof *m->marks);
        m->marks[m->nmarks++] = m->sp;
        return 0;
    case '0':
        if (m->sp > base(m)) {
            m->sp--;
            return 0;
        }
        return pop_mark(m, &first);
    case '1':
        if (pop_mark(m, &first) != 0)
            return -1;
        m->sp = first;
        return 0;
    case '2':
        if (!(v = top(m)))
            return -1;
        push(m, v);
        return 0;
    case 'N':
        return push_new(m, PK_NONE);
    case 0x88:
    case 0x89:
        return push_int(m, PK_BOOL, op == 0x88);
    case 'J':
        return (p = take(m, 4)) ? push_int(m, PK_INT, (int32_t)(uint32_t)le(p, 4)) : -1;
    case 'K':
    case 'M':
        return (p = take(m, op == 'K' ? 1 : 2)) ? push_int(m, PK_INT, (int64_t)le(p, op == 'K' ? 1 : 2)) : -1;
    case 0x8a:
        if (!(p = take(m, 1)))
            return -1;
        return op_int_bytes(m, p[0]);
    case 0x8b: {
        if (!(p = take(m, 4)))
            return -1;
        int32_t n = (int32_t)(uint32_t)le(p, 4);
        if (n < 0)
            return fail(m, "LONG4 with a negative length");
        return op_int_bytes(m, (size_t)n);
    }
    case 'G': {
        if (!(p = take(m, 8)))
            return -1;
        uint64_t u = 0;
        for (int i = 0; i < 8; i++)
            u = u << 8 | p[i];
        v = pk_new_value(m->r.a, PK_FLOAT);
        memcpy(&v->u.f, &u, 8);
        push(m, v);
        return 0;
    }
    case 'X': case 0x8c: case 0x8d: case 'T': case 'U': case 'B': case 'C': case 0x8e: case 0x96: {
        int width = op == 0x8c || op == 'U' || op == 'C' ? 1 : op == 0x8d || op == 0x8e || op == 0x96 ? 8 : 4;
        if (!(p = take(m, (size_t)width)))
            return -1;
        uint64_t n = le(p, width);
        if (n > m->size - m->pos)
            return fail(m, "truncated pickle: a string of %llu bytes runs past the end", (unsigned long long)n);
        pk_kind k = op == 'B' || op == 'C' || op == 0x8e || op == 0x96 ? PK_BYTES : PK_STR;
        push(m, pk_make_str(m->r.a, k, m->buf + m->pos, (size_t)n));
        m->pos += (size_t)n;
        return 0;
    }
    case ')':
        return push_new(m, PK_TUPLE);
    case 't':
        return op_collect(m, PK_TUPLE);
    case 0x85: case 0x86: case 0x87:
        return op_tuple_n(m, (size_t)(op - 0x84));
    case ']':
        return push_new(m, PK_LIST);
    case 'l':
        return op_collect(m, PK_LIST);
    case 'a':
        if (!(v = pop(m)) || !(w = top(m)))
            return -1;
        if (w->kind != PK_LIST)
            return fail(m, "APPEND on %s", pk_kind_name(w->kind));
        pk_seq_add(m->r.a, w, v);
        return 0;
    case 'e':
        return op_extend(m, PK_LIST, "APPENDS");
    case '}':
        return push_new(m, PK_DICT);
    case 'd':
        return op_collect(m, PK_DICT);
    case 's':
        if (!(v = pop(m)) || !(w = pop(m)) || !(x = top(m)))
            return -1;
        if (x->kind != PK_DICT)
            return fail(m, "SETITEM on %s", pk_kind_name(x->kind));
        pk_seq_add(m->r.a, x, w);
        pk_seq_add(m->r.a, x, v);
        return 0;
    case 'u':
        return op_extend(m, PK_DICT, "SETITEMS");
    case 0x8f:
        return push_new(m, PK_SET);
    case 0x90:
        return op_extend(m, PK_SET, "ADDITEMS");
    case 0x91:
        return op_collect(m, PK_SET);
    case 0x93: /* STACK_GLOBAL */
        if (!(w = pop(m)) || !(v = pop(m)))
            return -1;
        if (v->kind != PK_STR || w->kind != PK_STR)
            return fail(m, "STACK_GLOBAL needs two strings");
        return push_global(m, v->u.str.ptr, v->u.str.len, w->u.str.ptr, w->u.str.len);
    case 'R':
        if (!(w = pop(m)) || !(v = pop(m)))
            return -1;
        return reduce(m, v, w, 0);
    case 0x81:
        if (!(w = pop(m)) || !(v = pop(m)))
            return -1;
        return reduce(m, v, w, 1);
    case 0x92:
        if (!(x = pop(m)) || !(w = pop(m)) || !(v = pop(m)))
            return -1;
        if (x->kind != PK_DICT || x->u.seq.len != 0)
            return fail(m, "NEWOBJ_EX with keyword arguments is not supported");
        return reduce(m, v, w, 1);
    case 'o':
        if (pop_mark(m, &first) != 0)
            return -1;
        if (first == m->sp)
            return fail(m, "OBJ without a class");
        v = m->stack[first];
        w = seq_from(m, PK_TUPLE, first + 1);
        m->sp = first;
        return reduce(m, v, w, 1);
    case 'b':
        if (!(w = pop(m)) || !(v = top(m)))
            return -1;
        return build(m, v, w);
    case 'Q':
        if (!(w = pop(m)))
            return -1;
        v = pk_new_value(m->r.a, PK_PERSID);
        v->u.pid = w;
        push(m, v);
        return 0;
    case 'q':
    case 'r':
        if (!(p = take(m, op == 'q' ? 1 : 4)))
            return -1;
        return memo_put(m, le(p, op == 'q' ? 1 : 4));
    case 0x94:
        return memo_put(m, m->memo_len);
    case 'h':
    case 'j':
        if (!(p = take(m, op == 'h' ? 1 : 4)))
            return -1;
        return memo_get(m, le(p, op == 'h' ? 1 : 4));
    case 'I': case 'L': case 'F': case 'S': case 'V': case 'P': case 'p': case 'g': case 'c': case 'i':
        return step_text(m, op);
    case 0x82: case 0x83: case 0x84:
        return fail(m, "extension registry opcodes (EXT1/2/4) are not supported");
    case 0x97: case 0x98:
        return fail(m, "out-of-band buffers (protocol 5) are not supported");
    default:
        return fail(m, "unsupported pickle opcode 0x%02x", op);
    }
}

int pickle_parse(arena *a, const char *path, const char *what, const unsigned char *buf, size_t size,
                 const pk_global *allowed, size_t n_allowed, pk_value **result)
{
    vm m = { .r = { .a = a, .path = path, .what = what }, .buf = buf, .size = size, .allowed = allowed,
             .n_allowed = n_allowed };
    *result = NULL;
    int rc = -1;
    for (;;) {
        m.r.op_pos = m.pos;
        if (m.pos >= m.size) {
            fail(&m, "truncated pickle: no STOP opcode");
            break;
        }
        unsigned char op = buf[m.pos++];
        if (op == '.') {
            if (m.nmarks)
                fail(&m, "STOP with a MARK still open");
            else if ((*result = pop(&m)) != NULL)
                rc = 0;
            break;
        }
        if (step(&m, op) != 0)
            break;
        if (m.sp > PICKLE_MAX_STACK) {   /* an opcode pushes at most one value */
            err_set(ERR_LIMIT, path, "%s, offset %zu: the pickle's stack holds more than %d values", what, m.r.op_pos,
                    PICKLE_MAX_STACK);
            break;
        }
    }
    free(m.stack);
    free(m.marks);
    free(m.memo);
    return rc;
}
