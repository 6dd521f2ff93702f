/* -lm (spec §5.2): each NPU entry's Bench entry from where both sit in the
 * model (model/layer_map, the compare's layer mapping). */
#include "graph/compare.h"
#include "base/err.h"

int compare_layer_mapping(gcompare *c)
{
    (void)c;
    return err_input(NULL, "-lm is not implemented yet");
}
