/* Opening a tensor file: .npy or .pt, told apart by content, mapped. */
#include "format/tensor_file.h"
#include "base/err.h"
#include "base/files.h"
#include "format/npy.h"
#include "format/pt.h"

#include <stdlib.h>
#include <string.h>

#ifndef TENSOR_LOAD_BELOW
#define TENSOR_LOAD_BELOW (64u << 10)
#endif

static int load(const char *path, unsigned pt_flags, tensor *out)
{
    memset(out, 0, sizeof *out);
    mapped_file f;
    /* Small files are read, not mapped: a dump holds thousands of them, and
     * for those the mapping's own cost (page faults, unmapping with a TLB
     * shoot-down on the other cores) exceeds copying the bytes. */
    if (file_map_or_load(path, 0, TENSOR_LOAD_BELOW, &f) != 0)
        return -1;
    /* The header (and a deflated entry) is read here, under a guard; the
     * elements later, under metrics_compare's or the caller's. */
    file_guard g;
    file_guard_begin(&g, &f);
    int rc;
    if (f.size >= 6 && memcmp(f.data, "\x93NUMPY", 6) == 0)
        rc = npy_parse(path, f.data, f.size, out);
    else if (f.size >= 4 && (memcmp(f.data, "PK\x03\x04", 4) == 0 || memcmp(f.data, "PK\x05\x06", 4) == 0))
        rc = pt_parse_flags(path, f.data, f.size, pt_flags, out);
    else if (f.size >= 2 && f.data[0] == 0x80 && f.data[1] <= 5)
        rc = err_input(path, "legacy (pre-1.6, non-zip) torch.save format is not supported; "
                             "re-save the tensor with a current PyTorch");
    else if (f.size == 0)
        rc = err_input(path, "file is empty");
    else
        rc = err_input(path, "not a .npy or .pt tensor file (unknown leading bytes)");
    if (file_guard_end(&g) != 0)
        rc = -1;
    if (rc != 0) {
        tensor_free(out);
        file_unmap(&f);
        return -1;
    }
    out->map = f;
    return 0;
}

int tensor_load(const char *path, tensor *out) { return load(path, 0, out); }


int tensor_load_in(const char *dir, const char *name, tensor *out)
{
    if (!name[0] || !strcmp(name, ".") || !strcmp(name, "..") || strchr(name, '/'))
        return err_input(name, "is not a file name inside dump_tensor_data");
    char *path = path_join(dir, name);
    int rc = load(path, PT_CRC_LATER, out);
    free(path);
    return rc;
}
