#include "graph/vis.h"
#include "base/err.h"

int page_write(char **path, graph *n, graph *b, const gcompare *cmp, int overflow_check)
{
    return err_input(*path, "--html is not implemented yet");
}

int page_view(const char *vis, const char *out)
{
    err_input(vis, "graph view is not implemented yet");
    return err_report();
}
