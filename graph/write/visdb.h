/* The newest msprobe's .vis.db (spec §11.1-§11.2, write/visdb.c): one
 * SQLite file for the run, written under a temporary name and renamed when
 * complete. */
#ifndef MSP_GRAPH_VISDB_H
#define MSP_GRAPH_VISDB_H

#include "graph/compare/gcompare.h"
#include "graph/model/graph.h"

typedef struct visdb visdb;
visdb *visdb_open(const char *path, int compare);
/* The graphs of one result (b and cmp NULL: a build) of rank `rank` of
 * step `step`. 0 or -1. */
int visdb_add(visdb *db, graph *n, graph *b, const gcompare *cmp, long step, long rank);
/* The config row and the indexes, then into place; *path (malloc'ed): the
 * name written. db is freed either way. */
int visdb_finish(visdb *db, char **path, int overflow_check);
void visdb_abort(visdb *db);

#endif
