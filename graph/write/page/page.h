/* The self-contained page of a graph (spec §13, write/page/page.c): the
 * .vis itself with our script and style sheet (viewer.js, viewer.css,
 * beside it, built into the binary). */
#ifndef MSP_GRAPH_PAGE_H
#define MSP_GRAPH_PAGE_H

#include "graph/compare/gcompare.h"
#include "graph/model/graph.h"

/* The page of one result: from its .vis file when the run wrote one
 * (`vis`), else from a temporary one. *path as vis_write(). */
int page_write(char **path, const char *vis, graph *n, graph *b, const gcompare *cmp, int overflow_check,
               int threads);
/* graph view's reader: the page of the .vis file `vis` (checked to be a
 * JSON object first) written to *page (malloc'ed, consumed and replaced by
 * the name written; an existing page is replaced). 0, or -1 with the
 * error recorded and nothing written. */
int page_from_vis_file(const char *vis, char **page);
/* graph view: the page of a .vis file; the exit status. */
int page_view(const char *vis, const char *out);

#endif
