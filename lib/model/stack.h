/* stack.json: the call stack of every dumped API/module.
 *
 * Two layouts exist (spec/compare.md §1.7): the old one maps each entry name
 * to its list of stack lines; the new de-duplicated one (msprobe >= 1.3) maps
 * "0", "1", ... to [[names...], [stack lines...]]. Both load into one lookup
 * from entry name to a stack, whose Python repr() (the NPU_Stack_Info cell)
 * is rendered once per distinct stack.
 */
#ifndef MSP_STACK_H
#define MSP_STACK_H

#include "base/arena.h"
#include "base/files.h"
#include "format/json.h"
#include "base/strmap.h"

typedef struct {
    const jval *value;   /* the stack: normally a list of strings */
    char *repr;          /* lazily rendered str(value) */
    size_t repr_len;
} stack_info;

typedef struct {
    char *path;
    mapped_file map;
    arena mem;
    jval root;
    strmap by_name;      /* entry name -> index into stacks */
    stack_info *stacks;
    size_t nstacks, cap;
} stack_map;

int stack_load(const char *path, stack_map *s);
void stack_free(stack_map *s);

/* The stack of an entry, or NULL (absent or JSON null). Checks it like
 * msprobe: a list whose strings pass the formula-injection blacklist;
 * on failure records an error and sets *bad. */
const stack_info *stack_get(const stack_map *s, const char *name, int *bad);
/* The stack of an entry without checks, or NULL. */
const stack_info *stack_find(const stack_map *s, const char *name);
/* str() of a stack list, e.g. "['File a.py, line 5, in f, \\n x = g()']". */
const char *stack_repr(stack_info *si);

#endif
