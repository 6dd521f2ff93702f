/* -lm (spec §5.2, compare/layermap.c): each NPU entry's Bench entry from
 * where both sit in the model. */
#ifndef MSP_GRAPH_LAYERMAP_H
#define MSP_GRAPH_LAYERMAP_H

#include "graph/compare/gcompare.h"

/* c->mapping from the layer mapping. 0 or -1. */
int gcompare_layer_mapping(gcompare *c);

#endif
