/* Writing .npy files (test fixtures and benchmarks only). */
#ifndef MSP_TEST_NPY_WRITE_H
#define MSP_TEST_NPY_WRITE_H

#include "base/strbuf.h"
#include "format/tensor.h"

/* Append a .npy preamble (magic, version, length, header) for a
 * C-order (fortran == 0) or Fortran-order array: version 1.0 unless the
 * header needs more than 65535 bytes, padded so the data starts on a
 * 64-byte boundary.  Returns -1 (error recorded) for bfloat16, which has no
 * numpy dtype. */
int npy_header(strbuf *sb, dtype_id dt, int big_endian, int fortran, int ndim, const int64_t *shape);

/* Write a little-endian C-order .npy file atomically (temporary name,
 * renamed when complete).  `data` holds numel * dtype_size bytes in the
 * host's byte order. */
int npy_save(const char *path, dtype_id dt, int ndim, const int64_t *shape, const void *data);

#endif
