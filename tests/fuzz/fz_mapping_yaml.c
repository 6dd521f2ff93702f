/* compare's mapping files: the input as the -am (API), -cm (cell), -dm
 * (data) and -lm (layer) yaml in turn, parsed as mapping_load() does
 * before any dump is read. */
#include "tests/fuzz/fuzz.h"

#include "compare/mapping/mapping.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    fz_write("mapping.yaml", data, size);
    char *path = fz_path("mapping.yaml");
    for (int k = 0; k < 4; k++) {
        mapping_opts m;
        memset(&m, 0, sizeof m);
        switch (k) {
        case 0: m.api = 1, m.api_file = path; break;
        case 1: m.cell = 1, m.cell_file = path; break;
        case 2: m.data_file = path; break;
        default: m.layer = 1, m.layer_file = path; break;
        }
        fz_done(mapping_load(&m, k == 3 ? 'm' : 0));
        mapping_unload(&m);
    }
    free(path);
    return 0;
}
