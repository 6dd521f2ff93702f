/* The scopes of the entries of one dump, for the layer mapping (spec/compare.md
 * §4.7 steps 1-3; msprobe's data_scope_parser and postprocess_pass): each
 * entry's layer scope (its module path), the framework function that called
 * it (from stack.json) and its full scope, placed in a tree of scopes. */
#ifndef MSP_MODEL_LAYER_SCOPE_H
#define MSP_MODEL_LAYER_SCOPE_H

#include <stddef.h>
#include <string.h>

#include "base/arena.h"
#include "model/dump.h"
#include "base/files.h"
#include "format/json.h"
#include "model/stack.h"
#include "base/strmap.h"

#define LM_TOP_LAYER "TopLayer"

typedef struct {
    const char *name;                      /* the dump entry */
    const char *api_type, *type_name, *api_name, *state;
    const char *layer, *full;              /* layer scope, full scope */
    size_t ordinal;                        /* among the items of its node and state */
} lm_item;

typedef struct {
    const dump_data *d;
    int framework;                         /* 'm' or 'p': how a stack marks the model code */
    char *stack_path, *construct_path;
    stack_map stack;
    int have_stack;
    mapped_file cfile;
    int have_cfile;
    jval construct;
    strmap parents;                        /* construct.json: entry -> member */
    lm_item *items;                        /* one per dump entry, in order; none when */
    size_t n;                              /* stack.json or construct.json is {} */
    strmap by_name;
    strmap node;                           /* the tree, see lm_side_load() */
} lm_side;

/* Load stack.json and construct.json beside d's file (both must exist) and
 * place d's entries. The tree is kept flat: a node is named by its path (the
 * full scope from its first '.' on), and sd->node maps, for the target
 * (bench == 0), a node to the last item placed at it (its class), for the
 * bench a "path\0state\0ordinal" key to the item. 0, or -1 (error
 * recorded); free with lm_side_free() in either case. */
int lm_side_load(lm_side *sd, const dump_data *d, int bench, arena *m);
void lm_side_free(lm_side *sd);

/* Where a node path starts in a full scope: after its first part. */
const char *lm_node_path(const char *full, size_t *len);

static inline size_t lm_count_dots(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += s[i] == '.';
    return n;
}

static inline size_t lm_utf8_len(unsigned char c) { return c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1; }

/* a + b, NUL-terminated, in m */
static inline char *lm_cat(arena *m, const char *a, size_t an, const char *b, size_t bn)
{
    char *s = arena_alloc(m, an + bn + 1);
    memcpy(s, a, an);
    memcpy(s + an, b, bn);
    s[an + bn] = 0;
    return s;
}

#endif
