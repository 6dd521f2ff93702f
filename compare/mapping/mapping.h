/* Mappings between target and bench names (spec/compare.md §4.1, §4.3,
 * §4.7, §4.8): what the -am, -cm, -dm and -lm options turn into — a compare
 * key for every target row, and whether the join is on the key alone (a
 * data mapping is active). */
#ifndef MSP_COMPARE_MAPPING_H
#define MSP_COMPARE_MAPPING_H

#include "compare/pipeline/compare.h"

typedef struct mapping_opts {
    int api;                 /* -am given */
    const char *api_file;    /* -am FILE; NULL: the built-in table only */
    int cell;                /* -cm given */
    const char *cell_file;   /* -cm FILE */
    const char *data_file;   /* -dm FILE */
    int layer;               /* -lm given */
    const char *layer_file;  /* -lm FILE */
} mapping_opts;

static inline int mapping_any(const mapping_opts *m)
{
    return m && (m->api || m->cell || m->data_file || m->layer);
}

/* Set c->npu_keys (and c->mapped) from the mapping options; the data of
 * c->npu and c->bench must be loaded. Records an error and returns -1 for a
 * bad mapping file. */
int mapping_apply(compare_ctx *c, const mapping_opts *m);

/* Built-in MindSpore -> PyTorch API names (ms_to_pt.c). */
extern const char *const ms_functional_as_torch[];
extern const char *const ms_api_renames[][2];

#endif
