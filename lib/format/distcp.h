/* torch.distributed.checkpoint (DCP) directories, as Megatron-LM's
 * `--ckpt-format torch_dist` writes them: a `.metadata` file (a pickled
 * torch.distributed.checkpoint.metadata.Metadata) and data files
 * `__<rank>_<n>.distcp`.
 *
 * The metadata gives, for every tensor of the saved state dict (by its
 * fully qualified name), its global size and its chunks (offsets and sizes
 * inside the global tensor), and for every chunk where it is stored: a data
 * file, an offset and a length. What is stored there is a complete
 * torch.save archive of the chunk (DCP's FileSystemWriter saves each tensor
 * item with torch.save into the stream), read with pt.h. Entries that are
 * not tensors (BytesStorageMetadata: pickled objects such as Megatron's
 * ShardedObjects) are skipped.
 *
 * The pickle is read with pickle.h (never executed) and an allow-list of
 * torch.distributed's classes, torch.Size, dtypes, layouts and Megatron's
 * classes (read as data); anything else is refused. Checked: every chunk
 * lies inside its tensor, chunks do not overlap and cover the tensor
 * exactly, and every chunk has a storage entry naming a plain file of the
 * directory. */
#ifndef MSP_DISTCP_H
#define MSP_DISTCP_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "format/tensor.h"

typedef struct {
    int64_t *offsets, *sizes;  /* ndim each, in the chunk's tensor */
    const char *file;          /* relative path of the data file */
    uint64_t offset, length;   /* where its torch.save archive lies */
} dcp_chunk;

typedef struct {
    const char *fqn;
    int ndim;
    int64_t *size;             /* the global size */
    dcp_chunk *chunks;
    size_t nchunks;
} dcp_tensor;

typedef struct {
    arena a;                   /* everything below */
    dcp_tensor *t;             /* in the metadata's order */
    size_t n;
} dcp_metadata;

/* Read `path` (a .metadata file). 0 or -1 (error recorded). */
int dcp_metadata_load(const char *path, dcp_metadata *out);
void dcp_metadata_free(dcp_metadata *m);

#endif
