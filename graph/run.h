/* A whole graph run: the paths of the two runs (bench NULL: a build), the
 * output directory and the options; returns the exit status, after the
 * error line when it failed (nothing of the run left behind). */
#ifndef MSP_GRAPH_RUN_H
#define MSP_GRAPH_RUN_H

#include "graph/model/graph.h"

int graph_run(const char *npu, const char *bench, const char *out_dir, const graph_opts *o);

#endif
