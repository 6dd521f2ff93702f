/* The stack.json lookup of stack.h. The file is parsed once into a value
 * tree; both layouts are reduced to a map from entry name to the index of
 * its stack (a later name replaces an earlier one, as dict.update does),
 * so the de-duplicated layout costs one entry per stack, not per name. A
 * stack's repr() is made on first use and kept: many rows share a stack.
 * The checks msprobe applies when it reads a stack (a list, no formula
 * characters) run per lookup, with msprobe's messages.
 */
#include "model/stack.h"
#include "base/err.h"
#include "base/mem.h"
#include "format/json.h"
#include "py/pystr.h"

#include <stdlib.h>
#include <string.h>

static size_t add_stack(stack_map *s, const jval *v)
{
    GROW(s->stacks, s->cap, s->nstacks + 1);
    s->stacks[s->nstacks].value = v;
    s->stacks[s->nstacks].repr = NULL;
    return s->nstacks++;
}

/* dict.update(): a later name replaces an earlier one. */
static void map_name(stack_map *s, const char *name, size_t len, size_t id)
{
    int added;
    size_t *slot = strmap_put(&s->by_name, name, len, id, &added);
    *slot = id;
}

int stack_load(const char *path, stack_map *s)
{
    memset(s, 0, sizeof *s);
    s->path = xstrdup(path);
    arena_init(&s->mem, 1 << 20);
    if (file_load(path, 0, &s->map) != 0)
        return -1;
    if (s->map.size == 0)
        return err_input(path, "is empty");
    if (json_parse(path, s->map.data, s->map.size, &s->mem, &s->root) != 0)
        return -1;
    if (s->root.type != J_OBJECT)
        return err_input(path, "is not a JSON object; expected a stack.json written by msprobe");
    strmap_init(&s->by_name, s->root.len);
    /* The new layout is recognised the way msprobe does: a truthy "0". */
    if (json_truthy(json_get(&s->root, "0"))) {
        for (uint32_t i = 0; i < s->root.len; i++) {
            const jval *v = &s->root.u.members[i].val;
            if (v->type != J_ARRAY || v->len != 2)
                continue;
            const jval *names = &v->u.items[0];
            if (names->type != J_ARRAY)
                return err_input(path, "malformed stack.json: the names of stack \"%.*s\" are not a list",
                                 (int)s->root.u.members[i].keylen, s->root.u.members[i].key);
            size_t id = add_stack(s, &v->u.items[1]);
            for (uint32_t k = 0; k < names->len; k++) {
                const jval *n = &names->u.items[k];
                if (n->type != J_STRING)
                    return err_input(path, "malformed stack.json: a name of stack \"%.*s\" is not a string",
                                     (int)s->root.u.members[i].keylen, s->root.u.members[i].key);
                map_name(s, n->u.str, n->len, id);
            }
        }
    } else {
        for (uint32_t i = 0; i < s->root.len; i++) {
            const jmember *m = &s->root.u.members[i];
            map_name(s, m->key, m->keylen, add_stack(s, &m->val));
        }
    }
    return 0;
}

void stack_free(stack_map *s)
{
    for (size_t i = 0; i < s->nstacks; i++)
        free(s->stacks[i].repr);
    free(s->stacks);
    strmap_free(&s->by_name);
    arena_free(&s->mem);
    file_unmap(&s->map);
    free(s->path);
    memset(s, 0, sizeof *s);
}

const stack_info *stack_find(const stack_map *s, const char *name)
{
    size_t *id = strmap_get(&s->by_name, name, strlen(name));
    if (!id || s->stacks[*id].value->type == J_NULL)
        return NULL;
    return &s->stacks[*id];
}

const stack_info *stack_get(const stack_map *s, const char *name, int *bad)
{
    *bad = 0;
    size_t *id = strmap_get(&s->by_name, name, strlen(name));
    if (!id)
        return NULL;
    const stack_info *si = &s->stacks[*id];
    const jval *v = si->value;
    if (v->type == J_NULL)
        return NULL;
    if (v->type != J_ARRAY) {
        static const char *const names[] = {"NoneType", "bool", "bool", "float", "str", "list", "dict"};
        const char *tn = v->type == J_NUMBER && v->is_int ? "int" : names[v->type];
        *bad = 1;
        err_input(s->path, "Expected stack_info to be a list, but got %s for '%s'", tn, name);
        return NULL;
    }
    for (uint32_t i = 0; i < v->len; i++) {
        const jval *line = &v->u.items[i];
        if (line->type == J_STRING && py_blacklisted(line->u.str, line->len)) {
            *bad = 1;
            err_input(s->path, "stack info of %s contains special characters, please check!", name);
            return NULL;
        }
    }
    return si;
}

const char *stack_repr(stack_info *si)
{
    if (!si->repr) {
        strbuf sb = STRBUF_INIT;
        py_str_json(&sb, si->value);
        si->repr_len = sb.len;
        si->repr = sb_detach(&sb);
    }
    return si->repr;
}
