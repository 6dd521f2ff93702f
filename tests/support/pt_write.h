/* Writing torch.save archives (test fixtures and benchmarks only). */
#ifndef MSP_TEST_PT_WRITE_H
#define MSP_TEST_PT_WRITE_H

#include "base/strbuf.h"
#include "format/tensor.h"

typedef struct {
    dtype_id dtype;
    int ndim;
    const int64_t *shape;
    const int64_t *stride;      /* elements; NULL: row-major */
    int64_t offset;             /* storage offset, elements */
    const void *storage;        /* storage_numel elements, in file byte order */
    size_t storage_numel;
    const char *prefix;         /* archive folder; NULL: "archive" */
    int deflate;                /* deflate the storage and data.pkl entries */
    int zip64;                  /* force ZIP64 records */
    int big_endian;             /* write byteorder "big" (storage bytes are big-endian) */
} pt_layout;

/* Append a torch.save-compatible archive to `out` (torch 1.13 layout:
 * data.pkl, data/0, version, byteorder; entries 64-byte aligned).
 * uint16/32/64 use _rebuild_tensor_v3 with an UntypedStorage, as torch 2.3+
 * does; all other dtypes the _rebuild_tensor_v2 + typed storage form. */
int pt_build(strbuf *out, const pt_layout *layout);

/* Write a C-contiguous tensor of host byte order to `path` atomically,
 * the archive prefix being the file stem (like torch.save(t, path)). */
int pt_save(const char *path, dtype_id dt, int ndim, const int64_t *shape, const void *data);

#endif
