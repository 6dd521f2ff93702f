#include "graph/vis.h"
#include "base/err.h"

visdb *visdb_open(const char *path, int compare)
{
    (void)compare;
    err_input(path, "--format db is not implemented yet");
    return NULL;
}
int visdb_add(visdb *db, graph *n, graph *b, const gcompare *cmp, long step, long rank) { return -1; }
int visdb_finish(visdb *db, char **path) { return -1; }
void visdb_abort(visdb *db) {}
