/* .pt files: one tensor as msprobe dumps it (pt_parse), the same with
 * its CRC-32 check left for later (PT_CRC_LATER, then tensor_crc_check:
 * together they accept exactly what pt_parse accepts), and the same
 * archive as a checkpoint's state dict (pt_open: every tensor it holds
 * made and read). */
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/tensor_touch.h"

#include "format/pt.h"

#include <stdio.h>
#include <stdlib.h>

static void tensors(pt_archive *ar, const pk_value *v, int depth, int *budget)
{
    if (!v || depth > 16 || *budget <= 0)
        return;
    if (pt_is_tensor(v)) {
        --*budget;
        tensor t;
        int rc = pt_tensor(ar, v, &t);
        fz_done(rc);
        if (rc == 0)
            tensor_touch(&t);
        tensor_free(&t);
        return;
    }
    if (v->kind == PK_DICT || v->kind == PK_LIST || v->kind == PK_TUPLE)
        for (size_t i = 0; i < v->u.seq.len; i++)
            tensors(ar, v->u.seq.item[i], depth + 1, budget);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    tensor t;
    int rc = pt_parse(fz_dir(), data, size, &t);
    fz_done(rc);
    if (rc == 0)
        tensor_touch(&t);
    tensor_free(&t);
    int later = pt_parse_flags(fz_dir(), data, size, PT_CRC_LATER, &t);
    fz_done(later);
    if (later == 0) {
        later = tensor_crc_check(&t, fz_dir(), NULL, 0);
        fz_done(later);
    }
    tensor_free(&t);
    if ((rc == 0) != (later == 0)) {
        fprintf(stderr, "fz_pt: pt_parse and its check left for later disagree\n");
        abort();
    }

    pt_archive *ar = pt_open(fz_dir(), data, size);
    fz_done(ar ? 0 : -1);
    if (ar) {
        int budget = 64;
        tensors(ar, pt_root(ar), 0, &budget);
        pt_owns_data(ar);
        pt_close(ar);
    }
    return 0;
}
