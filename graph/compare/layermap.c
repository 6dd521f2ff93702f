/* -lm (spec §5.2): each NPU entry's Bench entry from where both sit in the
 * model -- the compare's layer mapping (model/layer_map). When it cannot be
 * made (a yaml msprobe cannot read, a missing stack.json), msprobe warns and
 * matches every node by its own name, without the structure test; so do
 * we (spec §10 #16). */
#include "graph/compare/layermap.h"
#include "base/err.h"
#include "base/log.h"
#include "base/mem.h"
#include "model/layer_map.h"

#include <stdlib.h>
#include <string.h>

static void as_dump(const rankdata *rd, dump_data *d)
{
    memset(d, 0, sizeof *d);
    d->path = rd->dump_path;
    d->framework = rd->framework == 'm' ? "mindspore" : rd->framework == 'p' ? "pytorch" : NULL;
    d->entries = xcalloc(rd->nentries ? rd->nentries : 1, sizeof *d->entries);
    d->nentries = rd->nentries;
    for (size_t i = 0; i < rd->nentries; i++)
        d->entries[i].name = rd->entries[i].name;
}

int gcompare_layer_mapping(gcompare *c)
{
    const rankdata *n = c->n->rd, *b = c->b->rd;
    const char **map = NULL;
    if (c->o->lm_rules) {
        dump_data dn, db;
        as_dump(n, &dn);
        as_dump(b, &db);
        map = layer_map_entries(&dn, &db, c->o->lm_rules, &c->mem);
        free(dn.entries);
        free(db.entries);
        if (!map) {
            log_warn("%s; The layer mapping file parsing failed, please check file format, mapping is not effective.",
                     err_message());
            err_clear();
        }
    }
    if (!map) {
        /* msprobe's empty mapping: every node by its own name */
        map = arena_alloc(&c->mem, (n->nentries ? n->nentries : 1) * sizeof *map);
        for (size_t i = 0; i < n->nentries; i++)
            map[i] = n->entries[i].name;
    }
    c->mapping = map;
    return 0;
}
