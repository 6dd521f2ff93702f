/* Hyper-parameters: how msprobe 8.1.0 reads them from launch scripts and
 * yaml files into a pack's hyperparameters_static.json (spec/configcheck.md
 * §A.4.3-§A.4.5), and how the compare pairs parameter names (§A.6.3). */
#ifndef MSP_CC_HYPER_H
#define MSP_CC_HYPER_H

#include <stddef.h>

#include "base/arena.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/value.h"

/* ---- name matching (compare) ---------------------------------------------- */

/* The comparison's parameters not matched yet, in their order. */
typedef struct {
    const jmember **v;
    size_t n;
} avail_names;

/* msprobe's fuzzy match of a bench parameter name: the same name ("pure
 * name"); else through the alias table, the canonical name or its first
 * alias present ("mapping"); else the most similar name by difflib ratio of
 * the lower-cased names, above 0.8 ("similarity:<ratio>"). The index in
 * names, with *how set, or -1. */
long hyper_match(const avail_names *names, const char *name, size_t len, strbuf *how);

/* ---- a dict of parameters (pack) ----------------------------------------- */

/* A Python dict of str -> value, in insertion order; values in `a`. */
typedef struct {
    arena *a;
    jmember *m;
    size_t n, cap;
    strmap idx;
} hp_dict;

void hp_init(hp_dict *d, arena *a);
void hp_free(hp_dict *d);
/* d[key] = v (a new key goes last, an existing one keeps its place). */
void hp_set(hp_dict *d, const char *key, size_t len, const jval *v);
const jval *hp_get(const hp_dict *d, const char *key, size_t len);

/* msprobe's ShellParser on a script's text: the options of its torchrun /
 * msrun / python -m torch.distributed.launch command, *_ARGS="..." blocks
 * substituted, $VAR values looked up in VAR= lines. Values are strings, or
 * True for an option without one. Adds to *out. */
void shell_parse(const char *text, size_t n, hp_dict *out);

/* msprobe 8.1.0's YamlParser: a yaml document flattened into "a.b.c" keys,
 * lists walked with the same key (so the last item stays), only int, str
 * and bool values kept (floats, nulls, dates dropped). msprobe keeps one
 * result dict for every yaml file of a pack; pass the same *shared. */
void yaml_flatten(const jval *doc, hp_dict *shared);

/* msprobe's update_dict(acc, new): a key already in acc with a different
 * value (Python !=) becomes {"description": "duplicate_value", "values":
 * [old, new]} (a third value wraps that record again, as 8.1.0 does). */
void hp_update(hp_dict *acc, const hp_dict *add);

/* json.dumps(d, indent=4) (ensure_ascii). */
void hp_json(const hp_dict *d, strbuf *sb);

#endif
