/* merge_result -config: the yaml of APIs and compare indexes (its loader
 * is a static function of compare/merge/merge_result.c, compiled in here). */
#include "compare/merge/merge_result.c"

#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    fz_write("config.yaml", data, size);
    char *path = fz_path("config.yaml");
    merge_config c;
    fz_done(load_config(path, &c));
    arena_free(&c.a);
    free(path);
    return 0;
}
