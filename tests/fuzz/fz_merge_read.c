/* merge_result's reading of one rank's compare result, xlsx or csv (the
 * input is both in turn): pandas' view of the columns, the chosen APIs'
 * rows kept. */
#include "tests/fuzz/fuzz.h"

#include "compare/merge/merge.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    static const char *api[] = {"Functional.linear", "Torch.add", "Tensor.", "Module.fc"};
    static size_t len[] = {17, 9, 7, 9};
    merge_apis apis = {api, len, 4};
    static const char *const names[] = {"compare_result_rank0_1.xlsx", "compare_result_rank1_1.csv"};
    for (int k = 0; k < 2; k++) {
        fz_write(names[k], data, size);
        merge_rank r;
        memset(&r, 0, sizeof r);
        r.path = fz_path(names[k]);
        fz_done(merge_read_rank(&r, &apis));
        merge_rank_free(&r);
    }
    return 0;
}
