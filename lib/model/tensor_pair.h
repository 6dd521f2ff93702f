/* One pair of tensor files compared, as compare's tensor mode and graph's
 * tensor mode both do it: the NPU file and the bench file loaded from their
 * dump_tensor_data directories (mapped, or read when small), streamed once
 * through metrics_compare() and released.
 *
 * One bad file is one bad row, whatever is wrong with it -- missing,
 * malformed, holding a list, over a limit (2^48 elements, a pickle nested
 * a million deep, a zip bomb), failing its CRC-32 -- as msprobe reports
 * "not found or read failed" and goes on: it is warned about (a few times,
 * then counted: "tensor files missing", "tensor files unreadable") and the
 * pair is not compared. Only a fatal cause (err_is_fatal(): a file that
 * changed while read) fails the pair. Thread-safe: one call per thread at
 * a time. */
#ifndef MSP_TENSOR_PAIR_H
#define MSP_TENSOR_PAIR_H

#include "base/progress.h"
#include "model/metrics.h"

enum { TENSOR_PAIR_COMPARED = 0, TENSOR_PAIR_NOT_COMPARED = 1 };

/* Compare npu_dir/npu_name with bench_dir/bench_name (metrics_compare's
 * `flags`), adding the bytes read to `pj` (may be NULL). Returns
 * TENSOR_PAIR_COMPARED (*m holds the metrics), TENSOR_PAIR_NOT_COMPARED
 * (warned; every metric of *m "unsupported", no error recorded), or -1 with
 * the fatal error recorded. */
int tensor_pair_compare(const char *npu_dir, const char *npu_name, const char *bench_dir, const char *bench_name,
                        unsigned flags, progress_job *pj, tensor_metrics *m);

/* Every metric of *m "unsupported": a pair that was not compared. */
void tensor_metrics_unsupported(tensor_metrics *m);

#endif
