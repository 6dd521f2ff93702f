/* Layer mapping (spec/compare.md §4.7): where each entry of a dump sits in
 * the model -- its module path, the framework function that called it
 * (from stack.json), the API (model/layer_scope.h) -- and each target entry
 * paired with the bench entry at the same place, after the user's yaml
 * renamed the target's scopes. compare derives a data mapping of rows from
 * the pairs, graph matches its nodes with them. */
#ifndef MSP_MODEL_LAYER_MAP_H
#define MSP_MODEL_LAYER_MAP_H

#include "base/arena.h"
#include "base/strbuf.h"
#include "model/dump.h"
#include "model/layer_scope.h"

/* The renaming rules of a layer mapping yaml, parsed once per run and then
 * read by every job (read-only, so jobs may share them across threads). */
typedef struct lm_rules lm_rules;

/* Parse the yaml (NULL for a bare -lm: no rules). NULL (error recorded) when
 * it is missing or not a dict of class name: {sub-path: bench name}. */
lm_rules *layer_rules_load(const char *yaml_file);
void layer_rules_free(lm_rules *r);

/* The bench item (index into b's items, which are b's entries) at the
 * place of target item k after renaming, or (size_t)-1. scope and key are
 * scratch buffers. */
size_t lm_bench_entry(const lm_side *t, const lm_side *b, const lm_rules *r, size_t k, strbuf *scope, strbuf *key);

/* Every entry of `target` with its bench entry's name, or NULL (N/A): an
 * array of target->nentries names in `a`. Only the entries' names, the
 * dumps' paths (stack.json and construct.json are read beside them) and
 * their frameworks are used. NULL (error recorded) on bad input; an array
 * of NULLs when a side has no stack or construct information. */
const char **layer_map_entries(const dump_data *target, const dump_data *bench, const lm_rules *rules, arena *a);

#endif
