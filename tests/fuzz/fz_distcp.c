/* torch_dist checkpoints (format/distcp.h, config_check's loader): the
 * input's first part (up to a "--8<--" line) as the .metadata pickle, the
 * rest as the data file __0_0.distcp beside it; the metadata read alone,
 * then the directory loaded as ckpt_compare loads it. */
#include "tests/fuzz/fuzz.h"

#include "config_check/ckpt.h"
#include "format/distcp.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    const uint8_t *meta, *rest;
    size_t nmeta, nrest;
    fz_split(data, size, &meta, &nmeta, &rest, &nrest);
    fz_remove("dist");
    fz_write("dist/.metadata", meta, nmeta);
    fz_write("dist/__0_0.distcp", rest, nrest);
    char *path = fz_path("dist/.metadata"), *dir = fz_path("dist");
    dcp_metadata m;
    int rc = dcp_metadata_load(path, &m);
    fz_done(rc);
    if (rc == 0)
        dcp_metadata_free(&m);
    ck_side s;
    fz_done(ck_load(dir, 1, NULL, &s));
    ck_free(&s);
    free(path);
    free(dir);
    return 0;
}
