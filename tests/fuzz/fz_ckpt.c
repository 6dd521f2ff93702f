/* Megatron-LM checkpoints as ckpt_compare loads them: the input as
 * iter_0000001/mp_rank_00/model_optim_rng.pt (a torch.save state dict)
 * of a directory whose tracker names iteration 1. */
#include "tests/fuzz/fuzz.h"

#include "config_check/ckpt.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    fz_write("mega/latest_checkpointed_iteration.txt", "1\n", 2);
    fz_write("mega/iter_0000001/mp_rank_00/model_optim_rng.pt", data, size);
    char *dir = fz_path("mega");
    ck_side s;
    fz_done(ck_load(dir, 1, NULL, &s));
    ck_free(&s);
    free(dir);
    return 0;
}
