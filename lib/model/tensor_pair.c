/* One pair of tensor files loaded and compared (model/tensor_pair.h). */
#include "model/tensor_pair.h"
#include "base/err.h"
#include "base/log.h"
#include "format/tensor_file.h"

#include <string.h>

/* Kinds of repeated warnings (log_warn_as): a few are shown, the rest
 * counted. */
static const char MISSING[] = "tensor files missing", UNREADABLE[] = "tensor files unreadable";

void tensor_metrics_unsupported(tensor_metrics *m)
{
    memset(m, 0, sizeof *m);
    for (int k = 0; k < MET_COUNT; k++)
        m->kind[k] = MK_UNSUPPORTED;
}

/* A failure that is not fatal: warned (msprobe only says "not found or
 * read failed"; we say why too) and passed over. */
static int not_compared(const char *kind, tensor_metrics *m)
{
    if (err_is_fatal())
        return -1;
    log_warn_as(kind, "%s", err_message());
    err_clear();
    tensor_metrics_unsupported(m);
    return TENSOR_PAIR_NOT_COMPARED;
}

int tensor_pair_compare(const char *npu_dir, const char *npu_name, const char *bench_dir, const char *bench_name,
                        unsigned flags, progress_job *pj, tensor_metrics *m)
{
    tensor tn, tb;
    if (tensor_load_in(npu_dir, npu_name, &tn) != 0)
        return not_compared(err_cause() == ERR_MISSING ? MISSING : UNREADABLE, m);
    if (tensor_load_in(bench_dir, bench_name, &tb) != 0) {
        tensor_free(&tn);
        return not_compared(err_cause() == ERR_MISSING ? MISSING : UNREADABLE, m);
    }
    progress_bytes(pj, tn.storage_size + tb.storage_size);
    int rc = metrics_compare(&tn, &tb, flags, m);
    tensor_free(&tn);
    tensor_free(&tb);
    /* a failure while reading the elements (a CRC-32 that does not hold)
     * is one more unreadable file */
    if (rc != 0)
        return not_compared(UNREADABLE, m);
    return TENSOR_PAIR_COMPARED;
}
