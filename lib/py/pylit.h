/* Python literals as repr() and str() write them -- what a configuration
 * logged as str(dict) looks like ("{'lr': 0.001, 'parallel': {'dp': 8},
 * 'name': 'llama'}") -- read back into key paths and value texts, so that
 * two such configurations compare key by key. */
#ifndef MSP_PYLIT_H
#define MSP_PYLIT_H

#include <stddef.h>

/* Called for every leaf of a dict (nested dicts walked): its key path
 * ("parallel.dp": the keys joined by '.') and its value as written
 * (strings without their quotes and escapes resolved; lists, tuples and
 * anything else as their text). */
typedef void (*pylit_leaf_fn)(void *ctx, const char *path, size_t pathlen, const char *value, size_t valuelen);

/* If s[0..n) is one dict literal (blanks around allowed), hand its leaves
 * to fn and return their number; otherwise return -1 and call fn for
 * nothing. Nesting is bounded (PYLIT_MAX_DEPTH). Thread-safe. */
enum { PYLIT_MAX_DEPTH = 64 };
long pylit_dict_leaves(const char *s, size_t n, pylit_leaf_fn fn, void *ctx);

#endif
