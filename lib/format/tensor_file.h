/* Opening a tensor file of either kind msprobe writes. */
#ifndef MSP_TENSOR_FILE_H
#define MSP_TENSOR_FILE_H

#include "format/tensor.h"

/* Load a .npy or .pt file, chosen by its first bytes (not its suffix);
 * every zip entry of a .pt is checked against its CRC-32.
 * Stored data is used in place from a read-only mapping of the file, or
 * from a copy in memory for a file under 64 KB (out->map, file_map_or_load:
 * a dump holds thousands of small files, for which mapping costs more than
 * reading): read the elements under a file_guard on it (files.h), as
 * metrics_compare does. Returns 0, or -1 with the error recorded naming the
 * path (ERR_CHANGED when the file was truncated while being read). */
int tensor_load(const char *path, tensor *out);

/* tensor_load of the file `name` of the directory `dir` (a dump's
 * dump_tensor_data): `name` comes from dump.json, so anything but a plain
 * file name ("../x", "a/b", ".", "") is refused, naming it. The CRC-32 of
 * a .pt's stored storage record is not checked here but left to the pass
 * that reads the elements (out->crc, tensor.h): metrics_compare checks it
 * as it reads; any other reader calls tensor_crc_check. */
int tensor_load_in(const char *dir, const char *name, tensor *out);
#endif
