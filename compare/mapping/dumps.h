/* What a mapping is made for (mapping.h, layer_mapping.h): the two dumps
 * of one compare, loaded, and where -lm writes the data mapping it
 * generates -- the part of a compare the mappings read, no more. */
#ifndef MSP_COMPARE_MAPPING_DUMPS_H
#define MSP_COMPARE_MAPPING_DUMPS_H

#include "model/dump.h"

struct out_run;

typedef struct {
    const dump_data *npu, *bench;
    int target_ms;             /* the target is a MindSpore dump (-lm applies only then) */
    const char *yaml_path;     /* data_mapping{suffix}_{stamp}.yaml; NULL: not written */
    const char *out_dir;       /* its directory, made when it is written */
    struct out_run *outputs;   /* where the file written is registered (may be NULL) */
    int newest;                /* the newest msprobe's rules (-cm: keys replaced inside the cell path) */
} mapping_dumps;

#endif
