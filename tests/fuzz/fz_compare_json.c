/* compare -i compare.json: msprobe 8.1.0's configuration file (its
 * loader is a static function of compare/cmd_compare.c, compiled in here). */
#include "compare/cmd_compare.c"

#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    fz_write("compare.json", data, size);
    char *path = fz_path("compare.json");
    compare_json cj;
    int rc = load_compare_json(path, &cj);
    fz_done(rc);
    if (rc == 0) {
        free(cj.npu);
        free(cj.bench);
        free(cj.stack);
    }
    free(path);
    return 0;
}
