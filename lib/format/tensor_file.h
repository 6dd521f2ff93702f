/* Opening a tensor file of either kind msprobe writes. */
#ifndef MSP_TENSOR_FILE_H
#define MSP_TENSOR_FILE_H

#include "format/tensor.h"

/* Load a .npy or .pt file, chosen by its first bytes (not its suffix).
 * Stored data is used in place from a read-only mapping of the file
 * (out->map): read the elements under a file_guard on it (files.h), as
 * metrics_compare does. Returns 0, or -1 with the error recorded naming the
 * path (ERR_CHANGED when the file was truncated while being read). */
int tensor_load(const char *path, tensor *out);

/* tensor_load of the file `name` of the directory `dir` (a dump's
 * dump_tensor_data): `name` comes from dump.json, so anything but a plain
 * file name ("../x", "a/b", ".", "") is refused, naming it. */
int tensor_load_in(const char *dir, const char *name, tensor *out);
#endif
