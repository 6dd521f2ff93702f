/* config_check's packs (config_check/pack.h): the input's first part (up
 * to a "--8<--" line) as the bench pack, the rest as the compared one (the
 * same pack again when there is none), opened and indexed as hostile
 * archives and run through every checker. */
#include "tests/fuzz/fuzz.h"

#include "config_check/pack.h"

#include <stdlib.h>
#include <string.h>

typedef int (*checker)(cc_ctx *c, cc_sheet *out);
static const checker checkers[] = {check_env, check_pip, check_dataset, check_weights, check_hyper, check_random};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    const uint8_t *p0, *p1;
    size_t n0, n1;
    fz_split(data, size, &p0, &n0, &p1, &n1);
    fz_write("bench.zip", p0, n0);
    fz_write("cmp.zip", n1 ? p1 : p0, n1 ? n1 : n0);
    char *bp = fz_path("bench.zip"), *cp = fz_path("cmp.zip");
    pack bench, cmp;
    int rc = pack_open(&bench, bp);
    fz_done(rc);
    if (rc == 0) {
        rc = pack_open(&cmp, cp);
        fz_done(rc);
        if (rc == 0) {
            arena a;
            arena_init(&a, 1 << 16);
            for (int fw = 0; fw < 2; fw++) {
                cc_ctx ctx = {&bench, &cmp, &a, fw ? 'm' : 'p'};
                for (size_t i = 0; i < sizeof checkers / sizeof checkers[0]; i++) {
                    cc_sheet s;
                    memset(&s, 0, sizeof s);
                    int r = checkers[i](&ctx, &s);
                    fz_done(r < 0 ? -1 : 0);
                    sheet_free(&s);
                }
            }
            arena_free(&a);
            fz_done(pack_close(&cmp));
        }
        fz_done(pack_close(&bench));
    }
    free(bp);
    free(cp);
    return 0;
}
