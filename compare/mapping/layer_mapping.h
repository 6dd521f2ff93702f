/* Layer mapping (-lm, spec/compare.md §4.7): a data mapping derived from
 * where each API and module sits in the model. Both dumps' entries are
 * placed in a tree of scopes (module path, the framework function that
 * called the API, the API), target scopes are renamed by the user's layer
 * mapping yaml, and each target entry is paired with the bench entry at the
 * same place; their rows then pair by what follows the entry name. */
#ifndef MSP_COMPARE_LAYER_MAPPING_H
#define MSP_COMPARE_LAYER_MAPPING_H

#include "base/arena.h"
#include "compare/mapping/dumps.h"
#include "format/json.h"
#include "model/layer_map.h"

/* Build the mapping for d->npu and d->bench from the stack.json and
 * construct.json beside each dump.json and the rules, write it to
 * d->yaml_path (when given), and return it: a J_OBJECT from target row name to bench row name or "N/A", in
 * target row order. The object lives in `a`; its strings point into the
 * dumps. An empty object means msprobe compares as without a data mapping
 * (a side without stack or construct information). NULL (error recorded)
 * on bad input. */
const jval *layer_mapping_build(const mapping_dumps *d, const lm_rules *rules, arena *a);

#endif
