/* Micro steps of the newest msprobe's data2db (spec/data2db.md §6.2): from
 * a rank's construct.json, which dump entries belong to which micro step
 * (the null-parent Module/Cell/optimizer nodes, in file order), and how
 * they are renumbered so that call indices restart in every micro step. */
#ifndef MSP_MONITOR_MICRO_H
#define MSP_MONITOR_MICRO_H

#include "base/arena.h"
#include "base/strmap.h"

#include <stddef.h>

typedef struct {
    strmap index;        /* original key -> slot */
    const char **renamed;
    size_t *renamed_len;
    long long *micro;
    size_t n;
    long long count;     /* micro steps of the file, at least 1 */
    arena a;
} micro_map;

/* Read construct.json (`path`). 0 or -1 (missing, not JSON, not an object,
 * a Megatron [parent, n] entry of another length). */
int micro_load(const char *path, micro_map *m);
/* The entry `key`: 1 with its renamed key and micro step, 0 when it has
 * none (the caller drops it, unless the map is empty: m->n == 0). */
int micro_lookup(const micro_map *m, const char *key, size_t n, const char **renamed, size_t *rlen,
                 long long *micro);
void micro_free(micro_map *m);

#endif
