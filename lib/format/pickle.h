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

#include "format/pickle_value.h"

#include <stddef.h>

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

#endif
