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

/* ---- opcodes, one function per family ---------------------------------- */

/* pickletools' names (OP_ + the name). */
enum {
    OP_MARK = '(', OP_STOP = '.', OP_POP = '0', OP_POP_MARK = '1', OP_DUP = '2',
    OP_FLOAT = 'F', OP_INT = 'I', OP_BININT = 'J', OP_BININT1 = 'K', OP_LONG = 'L', OP_BININT2 = 'M',
    OP_NONE = 'N', OP_PERSID = 'P', OP_BINPERSID = 'Q', OP_REDUCE = 'R', OP_STRING = 'S',
    OP_BINSTRING = 'T', OP_SHORT_BINSTRING = 'U', OP_UNICODE = 'V', OP_BINUNICODE = 'X',
    OP_APPEND = 'a', OP_BUILD = 'b', OP_GLOBAL = 'c', OP_DICT = 'd', OP_EMPTY_DICT = '}', OP_APPENDS = 'e',
    OP_GET = 'g', OP_BINGET = 'h', OP_INST = 'i', OP_LONG_BINGET = 'j', OP_LIST = 'l', OP_EMPTY_LIST = ']',
    OP_OBJ = 'o', OP_PUT = 'p', OP_BINPUT = 'q', OP_LONG_BINPUT = 'r', OP_SETITEM = 's', OP_TUPLE = 't',
    OP_EMPTY_TUPLE = ')', OP_SETITEMS = 'u', OP_BINFLOAT = 'G',
    /* protocol 2 */
    OP_PROTO = 0x80, OP_NEWOBJ = 0x81, OP_EXT1 = 0x82, OP_EXT2 = 0x83, OP_EXT4 = 0x84, OP_TUPLE1 = 0x85,
    OP_TUPLE2 = 0x86, OP_TUPLE3 = 0x87, OP_NEWTRUE = 0x88, OP_NEWFALSE = 0x89, OP_LONG1 = 0x8a, OP_LONG4 = 0x8b,
    /* protocol 3 */
    OP_BINBYTES = 'B', OP_SHORT_BINBYTES = 'C',
    /* protocol 4 */
    OP_SHORT_BINUNICODE = 0x8c, OP_BINUNICODE8 = 0x8d, OP_BINBYTES8 = 0x8e, OP_EMPTY_SET = 0x8f,
    OP_ADDITEMS = 0x90, OP_FROZENSET = 0x91, OP_NEWOBJ_EX = 0x92, OP_STACK_GLOBAL = 0x93, OP_MEMOIZE = 0x94,
    OP_FRAME = 0x95,
    /* protocol 5 */
    OP_BYTEARRAY8 = 0x96, OP_NEXT_BUFFER = 0x97, OP_READONLY_BUFFER = 0x98,
};

static int unsupported(vm *m, unsigned char op) { return fail(m, "unsupported pickle opcode 0x%02x", op); }

/* PROTO, FRAME, and the stack itself: MARK, POP, POP_MARK, DUP. */
static int op_stack(vm *m, unsigned char op)
{
    const unsigned char *p;
    pk_value *v;
    size_t first = 0;
    switch (op) {
    case OP_PROTO:
        if (!(p = take(m, 1)))
            return -1;
        if (p[0] > 5)
            return fail(m, "unsupported pickle protocol %u", p[0]);
        return 0;
    case OP_FRAME: /* a length hint only */
        return take(m, 8) ? 0 : -1;
    case OP_MARK:
        if (m->nmarks == MAX_MARKS)
            return fail(m, "pickle nests more than %d levels deep", MAX_MARKS);
        if (!m->marks)
            m->marks = xmalloc(MAX_MARKS * sizeof *m->marks);
        m->marks[m->nmarks++] = m->sp;
        return 0;
    case OP_POP:
        if (m->sp > base(m)) {
            m->sp--;
            return 0;
        }
        return pop_mark(m, &first);
    case OP_POP_MARK:
        if (pop_mark(m, &first) != 0)
            return -1;
        m->sp = first;
        return 0;
    case OP_DUP:
        if (!(v = top(m)))
            return -1;
        push(m, v);
        return 0;
    default:
        return unsupported(m, op);
    }
}

/* None, booleans, binary integers and floats. */
static int op_number(vm *m, unsigned char op)
{
    const unsigned char *p;
    switch (op) {
    case OP_NONE:
        return push_new(m, PK_NONE);
    case OP_NEWTRUE:
    case OP_NEWFALSE:
        return push_int(m, PK_BOOL, op == OP_NEWTRUE);
    case OP_BININT:
        return (p = take(m, 4)) ? push_int(m, PK_INT, (int32_t)(uint32_t)le(p, 4)) : -1;
    case OP_BININT1:
    case OP_BININT2: {
        int n = op == OP_BININT1 ? 1 : 2;
        return (p = take(m, (size_t)n)) ? push_int(m, PK_INT, (int64_t)le(p, n)) : -1;
    }
    case OP_LONG1:
        if (!(p = take(m, 1)))
            return -1;
        return op_int_bytes(m, p[0]);
    case OP_LONG4: {
        if (!(p = take(m, 4)))
            return -1;
        int32_t n = (int32_t)(uint32_t)le(p, 4);
        if (n < 0)
            return fail(m, "LONG4 with a negative length");
        return op_int_bytes(m, (size_t)n);
    }
    case OP_BINFLOAT: {
        if (!(p = take(m, 8)))
            return -1;
        uint64_t u = 0;
        for (int i = 0; i < 8; i++)
            u = u << 8 | p[i];
        pk_value *v = pk_new_value(m->r.a, PK_FLOAT);
        memcpy(&v->u.f, &u, 8);
        push(m, v);
        return 0;
    }
    default:
        return unsupported(m, op);
    }
}

/* Strings and bytes with a binary length of 1, 4 or 8 bytes. */
static int op_counted(vm *m, unsigned char op)
{
    int width = op == OP_SHORT_BINUNICODE || op == OP_SHORT_BINSTRING || op == OP_SHORT_BINBYTES ? 1
                : op == OP_BINUNICODE8 || op == OP_BINBYTES8 || op == OP_BYTEARRAY8             ? 8
                                                                                                : 4;
    const unsigned char *p = take(m, (size_t)width);
    if (!p)
        return -1;
    uint64_t n = le(p, width);
    if (n > m->size - m->pos)
        return fail(m, "truncated pickle: a string of %llu bytes runs past the end", (unsigned long long)n);
    int bytes = op == OP_BINBYTES || op == OP_SHORT_BINBYTES || op == OP_BINBYTES8 || op == OP_BYTEARRAY8;
    push(m, pk_make_str(m->r.a, bytes ? PK_BYTES : PK_STR, m->buf + m->pos, (size_t)n));
    m->pos += (size_t)n;
    return 0;
}

/* Tuples, lists, dicts and sets: made empty, collected from a MARK, or
 * filled. */
static int op_container(vm *m, unsigned char op)
{
    pk_value *v, *w, *x;
    switch (op) {
    case OP_EMPTY_TUPLE:
        return push_new(m, PK_TUPLE);
    case OP_TUPLE:
        return op_collect(m, PK_TUPLE);
    case OP_TUPLE1:
    case OP_TUPLE2:
    case OP_TUPLE3:
        return op_tuple_n(m, (size_t)(op - OP_TUPLE1 + 1));
    case OP_EMPTY_LIST:
        return push_new(m, PK_LIST);
    case OP_LIST:
        return op_collect(m, PK_LIST);
    case OP_APPEND:
        if (!(v = pop(m)) || !(w = top(m)))
            return -1;
        if (w->kind != PK_LIST)
            return fail(m, "APPEND on %s", pk_kind_name(w->kind));
        pk_seq_add(m->r.a, w, v);
        return 0;
    case OP_APPENDS:
        return op_extend(m, PK_LIST, "APPENDS");
    case OP_EMPTY_DICT:
        return push_new(m, PK_DICT);
    case OP_DICT:
        return op_collect(m, PK_DICT);
    case OP_SETITEM:
        if (!(v = pop(m)) || !(w = pop(m)) || !(x = top(m)))
            return -1;
        if (x->kind != PK_DICT)
            return fail(m, "SETITEM on %s", pk_kind_name(x->kind));
        pk_seq_add(m->r.a, x, w);
        pk_seq_add(m->r.a, x, v);
        return 0;
    case OP_SETITEMS:
        return op_extend(m, PK_DICT, "SETITEMS");
    case OP_EMPTY_SET:
        return push_new(m, PK_SET);
    case OP_ADDITEMS:
        return op_extend(m, PK_SET, "ADDITEMS");
    case OP_FROZENSET:
        return op_collect(m, PK_SET);
    default:
        return unsupported(m, op);
    }
}

/* Globals and what is made of them: calls (recorded, never made), states,
 * persistent ids. */
static int op_object(vm *m, unsigned char op)
{
    pk_value *v, *w, *x;
    size_t first = 0;
    switch (op) {
    case OP_STACK_GLOBAL:
        if (!(w = pop(m)) || !(v = pop(m)))
            return -1;
        if (v->kind != PK_STR || w->kind != PK_STR)
            return fail(m, "STACK_GLOBAL needs two strings");
        return push_global(m, v->u.str.ptr, v->u.str.len, w->u.str.ptr, w->u.str.len);
    case OP_REDUCE:
    case OP_NEWOBJ:
        if (!(w = pop(m)) || !(v = pop(m)))
            return -1;
        return reduce(m, v, w, op == OP_NEWOBJ);
    case OP_NEWOBJ_EX:
        if (!(x = pop(m)) || !(w = pop(m)) || !(v = pop(m)))
            return -1;
        if (x->kind != PK_DICT || x->u.seq.len != 0)
            return fail(m, "NEWOBJ_EX with keyword arguments is not supported");
        return reduce(m, v, w, 1);
    case OP_OBJ:
        if (pop_mark(m, &first) != 0)
            return -1;
        if (first == m->sp)
            return fail(m, "OBJ without a class");
        v = m->stack[first];
        w = seq_from(m, PK_TUPLE, first + 1);
        m->sp = first;
        return reduce(m, v, w, 1);
    case OP_BUILD:
        if (!(w = pop(m)) || !(v = top(m)))
            return -1;
        return build(m, v, w);
    case OP_BINPERSID:
        if (!(w = pop(m)))
            return -1;
        v = pk_new_value(m->r.a, PK_PERSID);
        v->u.pid = w;
        push(m, v);
        return 0;
    default:
        return unsupported(m, op);
    }
}

/* The memo, with binary indices. */
static int op_memo(vm *m, unsigned char op)
{
    const unsigned char *p;
    switch (op) {
    case OP_BINPUT:
    case OP_LONG_BINPUT:
        if (!(p = take(m, op == OP_BINPUT ? 1 : 4)))
            return -1;
        return memo_put(m, le(p, op == OP_BINPUT ? 1 : 4));
    case OP_MEMOIZE:
        return memo_put(m, m->memo_len);
    case OP_BINGET:
    case OP_LONG_BINGET:
        if (!(p = take(m, op == OP_BINGET ? 1 : 4)))
            return -1;
        return memo_get(m, le(p, op == OP_BINGET ? 1 : 4));
    default:
        return unsupported(m, op);
    }
}

/* Opcodes whose operands are text lines (protocols 0 and 1). */
static int op_text(vm *m, unsigned char op)
{
    size_t len, len2;
    const char *s = line(m, &len), *s2;
    if (!s)
        return -1;
    int64_t iv;
    pk_value *v;
    switch (op) {
    case OP_INT:
        if (len == 2 && (memcmp(s, "01", 2) == 0 || memcmp(s, "00", 2) == 0))
            return push_int(m, PK_BOOL, s[1] == '1');
        return pk_parse_int_text(&m->r, s, len, &iv) != 0 ? -1 : push_int(m, PK_INT, iv);
    case OP_LONG:
        if (len && s[len - 1] == 'L')
            len--;
        return pk_parse_int_text(&m->r, s, len, &iv) != 0 ? -1 : push_int(m, PK_INT, iv);
    case OP_FLOAT: {
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
    case OP_STRING:
        if (!(v = pk_quoted_string(&m->r, s, len)))
            return -1;
        push(m, v);
        return 0;
    case OP_UNICODE:
        if (!(v = pk_raw_unicode(&m->r, s, len)))
            return -1;
        push(m, v);
        return 0;
    case OP_PERSID:
        v = pk_new_value(m->r.a, PK_PERSID);
        v->u.pid = pk_make_str(m->r.a, PK_STR, s, len);
        push(m, v);
        return 0;
    case OP_PUT:
    case OP_GET:
        if (pk_parse_int_text(&m->r, s, len, &iv) != 0)
            return -1;
        if (iv < 0)
            return fail(m, "negative memo index");
        return op == OP_PUT ? memo_put(m, (uint64_t)iv) : memo_get(m, (uint64_t)iv);
    case OP_GLOBAL:
    case OP_INST: {
        if (!(s2 = line(m, &len2)))
            return -1;
        if (push_global(m, s, len, s2, len2) != 0)
            return -1;
        if (op == OP_GLOBAL)
            return 0;
        pk_value *cls = pop(m);
        size_t first = 0;
        if (pop_mark(m, &first) != 0)
            return -1;
        return reduce(m, cls, seq_from(m, PK_TUPLE, first), 1);
    }
    default:
        return unsupported(m, op);
    }
}

/* One opcode (STOP aside), handed to its family. */
static int step(vm *m, unsigned char op)
{
    switch (op) {
    case OP_PROTO: case OP_FRAME: case OP_MARK: case OP_POP: case OP_POP_MARK: case OP_DUP:
        return op_stack(m, op);
    case OP_NONE: case OP_NEWTRUE: case OP_NEWFALSE: case OP_BININT: case OP_BININT1: case OP_BININT2:
    case OP_LONG1: case OP_LONG4: case OP_BINFLOAT:
        return op_number(m, op);
    case OP_BINUNICODE: case OP_SHORT_BINUNICODE: case OP_BINUNICODE8: case OP_BINSTRING:
    case OP_SHORT_BINSTRING: case OP_BINBYTES: case OP_SHORT_BINBYTES: case OP_BINBYTES8: case OP_BYTEARRAY8:
        return op_counted(m, op);
    case OP_EMPTY_TUPLE: case OP_TUPLE: case OP_TUPLE1: case OP_TUPLE2: case OP_TUPLE3: case OP_EMPTY_LIST:
    case OP_LIST: case OP_APPEND: case OP_APPENDS: case OP_EMPTY_DICT: case OP_DICT: case OP_SETITEM:
    case OP_SETITEMS: case OP_EMPTY_SET: case OP_ADDITEMS: case OP_FROZENSET:
        return op_container(m, op);
    case OP_STACK_GLOBAL: case OP_REDUCE: case OP_NEWOBJ: case OP_NEWOBJ_EX: case OP_OBJ: case OP_BUILD:
    case OP_BINPERSID:
        return op_object(m, op);
    case OP_BINPUT: case OP_LONG_BINPUT: case OP_MEMOIZE: case OP_BINGET: case OP_LONG_BINGET:
        return op_memo(m, op);
    case OP_INT: case OP_LONG: case OP_FLOAT: case OP_STRING: case OP_UNICODE: case OP_PERSID: case OP_PUT:
    case OP_GET: case OP_GLOBAL: case OP_INST:
        return op_text(m, op);
    case OP_EXT1: case OP_EXT2: case OP_EXT4:
        return fail(m, "extension registry opcodes (EXT1/2/4) are not supported");
    case OP_NEXT_BUFFER: case OP_READONLY_BUFFER:
        return fail(m, "out-of-band buffers (protocol 5) are not supported");
    default:
        return unsupported(m, op);
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
        if (op == OP_STOP) {
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
