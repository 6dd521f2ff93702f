/* Mappings between target and bench names (spec/compare.md §4.1, §4.3,
 * §4.7, §4.8): what the -am, -cm, -dm and -lm options turn into — a compare
 * key for every target row, and whether the join is on the key alone (a
 * data mapping is active). */
#ifndef MSP_COMPARE_MAPPING_H
#define MSP_COMPARE_MAPPING_H

#include "base/arena.h"
#include "compare/mapping/dumps.h"

typedef struct mapping_files mapping_files;

typedef struct mapping_opts {
    int api;                 /* -am given */
    const char *api_file;    /* -am FILE; NULL: the built-in table only */
    int cell;                /* -cm given */
    const char *cell_file;   /* -cm FILE */
    const char *data_file;   /* -dm FILE */
    int layer;               /* -lm given */
    const char *layer_file;  /* -lm FILE */
    mapping_files *files;    /* the files, parsed by mapping_load() */
} mapping_opts;

static inline int mapping_any(const mapping_opts *m)
{
    return m && (m->api || m->cell || m->data_file || m->layer);
}

/* Parse every mapping file once, before any dump is read; every job then
 * reads the result (read-only, shared across threads). `framework` is the
 * -f flag (0, 'p' or 'm'): with -f mindspore and -lm, the -dm file is not
 * read (the generated mapping replaces it, as in msprobe); with -f pytorch
 * the -lm yaml is not, -lm being ignored there. 0, or -1 with the error of
 * the first bad file recorded. */
int mapping_load(mapping_opts *m, int framework);
void mapping_unload(mapping_opts *m);

/* What a mapping gives a compare: a key for every target row. */
typedef struct {
    const char **npu_keys;     /* per target row; NULL: no mapping, the names are the keys */
    arena key_mem;             /* their texts */
    int mapped;                /* a data mapping is active: the join is on the key alone */
} mapping_keys;

/* Fill *k (zeroed by the caller) from the mapping options and their parsed
 * files. Records an error and returns -1 when the dumps do not fit the
 * mapping; *k is then still freed with mapping_keys_free(). */
int mapping_apply(const mapping_dumps *d, const mapping_opts *m, mapping_keys *k);
void mapping_keys_free(mapping_keys *k);

/* Built-in MindSpore -> PyTorch API names (ms_to_pt.c). */
extern const char *const ms_functional_as_torch[];
extern const char *const ms_api_renames[][2];

#endif
