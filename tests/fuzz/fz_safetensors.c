/* safetensors (format/safetensors.h): a file parsed in place and every
 * tensor read; the same bytes as a sharded checkpoint's index json; and
 * the file as ckpt_compare's checkpoint (config_check/ckpt.h). */
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/tensor_touch.h"

#include "base/files.h"
#include "config_check/ckpt.h"
#include "format/safetensors.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    st_file f;
    int rc = safetensors_parse(fz_dir(), data, size, &f);
    fz_done(rc);
    if (rc == 0)
        for (size_t i = 0; i < f.n; i++)
            tensor_touch(&f.v[i].t);
    if (rc == 0)
        safetensors_free(&f);

    fz_write("shards/model.safetensors.index.json", data, size);
    char *index = fz_path("shards/model.safetensors.index.json");
    char **files;
    long n;
    rc = safetensors_index(index, &files, &n);
    fz_done(rc);
    if (rc == 0)
        names_free(files, n);
    free(index);

    fz_write("model.safetensors", data, size);
    char *path = fz_path("model.safetensors");
    ck_side s;
    fz_done(ck_load(path, 1, NULL, &s));
    ck_free(&s);
    free(path);
    return 0;
}
