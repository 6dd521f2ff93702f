/* safetensors (format/safetensors.h): a file parsed in place, held to the
 * format's rules when accepted (names once, data contiguous from 0 to the
 * end of the file) and every tensor read; the same bytes as a sharded
 * checkpoint's index json (every weight_map entry naming one of its
 * files); and the file as ckpt_compare's checkpoint (config_check/ckpt.h). */
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/tensor_touch.h"

#include "base/files.h"
#include "config_check/ckpt.h"
#include "format/safetensors.h"

#include <stdlib.h>
#include <string.h>

/* What an accepted file must be (the format's rules): names given once,
 * the data of the tensors in offset order contiguous from 0 to the end. */
static int by_begin(const void *x, const void *y)
{
    const st_tensor *a = *(const st_tensor *const *)x, *b = *(const st_tensor *const *)y;
    return a->begin != b->begin ? (a->begin < b->begin ? -1 : 1) : (a->end > b->end) - (a->end < b->end);
}

static void safetensors_check(const st_file *f, const uint8_t *data, size_t size)
{
    const st_tensor **v = malloc((f->n ? f->n : 1) * sizeof *v);
    for (size_t i = 0; i < f->n; i++)
        v[i] = &f->v[i];
    qsort(v, f->n, sizeof *v, by_begin);
    uint64_t at = 0;
    for (size_t i = 0; i < f->n; i++) {
        if (v[i]->begin != at || v[i]->end - v[i]->begin != v[i]->numel * dtype_size(v[i]->dtype))
            abort();
        at = v[i]->end;
        for (size_t k = i + 1; k < f->n; k++)
            if (!strcmp(v[i]->name, v[k]->name))
                abort();
    }
    uint64_t hlen = 0;
    for (int k = 7; k >= 0; k--)
        hlen = hlen << 8 | data[k];
    if (8 + hlen + at != size || f->n > SAFETENSORS_MAX_TENSORS)
        abort();
    free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    st_file f;
    int rc = safetensors_parse(fz_dir(), data, size, &f);
    fz_done(rc);
    if (rc == 0) {
        for (size_t i = 0; i < f.n; i++) {
            tensor t;
            st_view(&f.v[i], &t);
            tensor_touch(&t);
        }
        safetensors_check(&f, data, size);
    }
    safetensors_free(&f);

    fz_write("shards/model.safetensors.index.json", data, size);
    char *index = fz_path("shards/model.safetensors.index.json");
    char **files;
    long n;
    st_shard_of *map;
    size_t nmap;
    rc = safetensors_index(index, &files, &n, &map, &nmap);
    fz_done(rc);
    if (rc == 0) {
        for (size_t i = 0; i < nmap; i++)
            if (map[i].file < 0 || map[i].file >= n)
                abort();
        names_free(files, n);
        st_shard_of_free(map, nmap);
    }
    free(index);

    fz_write("model.safetensors", data, size);
    char *path = fz_path("model.safetensors");
    ck_side s;
    fz_done(ck_load(path, 1, NULL, &s));
    ck_free(&s);
    free(path);
    return 0;
}
