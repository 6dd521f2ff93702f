/* A Python pickle reader that never executes anything.
 *
 * The pickle (protocols 0-5, as far as torch.save and numpy use them) is
 * run on a stack machine that only builds an inert tree of values.  A
 * GLOBAL (module + name) is accepted only when the caller lists it; any
 * other global, and every opcode outside the supported set (extension
 * registry codes, out-of-band buffers), stops parsing with an error naming
 * it.  REDUCE, NEWOBJ, INST/OBJ and BUILD do not call anything: they
 * record the call (callable, arguments, later state) for the caller to
 * interpret.  A few allowed builtins are data constructors and are
 * evaluated into plain values because later opcodes depend on their type:
 *   collections.OrderedDict()           → a dict (SETITEMS fill it; a BUILD
 *                                          with a dict state sets `attrs`)
 *   collections.defaultdict(factory)    → a dict
 *   _codecs.encode(text, 'latin1')      → bytes (how protocol 2 stores bytes)
 *   builtins.bytes() / bytearray()      → empty bytes
 *   builtins.set(list) / frozenset(...) → a set
 * Python 2 module names written with fix_imports (__builtin__, copy_reg)
 * are mapped to their Python 3 spelling before the allow-list check.
 *
 * Shared objects (memo GET) are the same node, so the tree may be a graph
 * with cycles; consumers follow it only along paths they expect, with a
 * depth bound.  Memory is linear in the pickle size: every value lives in
 * the caller's arena; strings and bytes point into the pickle buffer where
 * they are stored verbatim, so the buffer must outlive the values.
 */
#ifndef MSP_PICKLE_H
#define MSP_PICKLE_H

#include "base/arena.h"

#include <stddef.h>
#include <stdint.h>

typedef enum {
    PK_NONE, PK_BOOL, PK_INT, PK_BIGINT, PK_FLOAT, PK_STR, PK_BYTES,
    PK_TUPLE, PK_LIST, PK_DICT, PK_SET, PK_GLOBAL, PK_CALL, PK_PERSID
} pk_kind;

typedef struct pk_value pk_value;
struct pk_value {
    pk_kind kind;
    union {
        int64_t i;                                           /* BOOL, INT */
        double f;                                            /* FLOAT */
        struct { const char *ptr; size_t len; } str;         /* STR (UTF-8), BYTES */
        struct { pk_value **item; size_t len, cap; } seq;    /* TUPLE, LIST, SET;
                                                                DICT: key0, value0, key1, ... */
        struct { int id; const char *module, *name; } global; /* id: index in the allow-list */
        struct { pk_value *callable, *args, *state; int newobj; } call;
        pk_value *pid;                                       /* PERSID: the persistent id */
    } u;
    pk_value *attrs;   /* DICT made by OrderedDict(): a BUILD state, or NULL */
};

/* An allowed global: module and name as written (after the Python 2
 * mapping); module "pkg.*" allows pkg and every module below it, name "*"
 * every name (for classes whose instances are read as data only, e.g.
 * Megatron's enums). A GLOBAL value keeps the module and name it was
 * written with and the index of the entry that allowed it. */
typedef struct {
    const char *module, *name;
} pk_global;

/* Parse buf[0..size) up to its STOP opcode.  `path` and `what` (e.g. the
 * archive member "x/data.pkl") name the pickle in errors, which also give
 * the byte offset.  Returns 0 and *result, or -1 (error recorded). */
int pickle_parse(arena *a, const char *path, const char *what, const unsigned char *buf, size_t size,
                 const pk_global *allowed, size_t n_allowed, pk_value **result);

/* For messages, with an article: "an int", "a tuple", "a dict", "None", ... */
const char *pk_kind_name(pk_kind k);
/* Is v a GLOBAL with this allow-list id? A CALL of one (callable id)? */
int pk_is_global(const pk_value *v, int id);
int pk_is_call_of(const pk_value *v, int id);
/* Is v a str equal to s? */
int pk_str_eq(const pk_value *v, const char *s);
/* Tuple element count, or -1 when v is not a tuple. */
long pk_tuple_len(const pk_value *v);

#endif
