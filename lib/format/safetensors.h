/* Hugging Face safetensors files, read in place.
 *
 * A file is an 8-byte little-endian header length N, N bytes of JSON
 * ({"name": {"dtype": "BF16", "shape": [..], "data_offsets": [begin, end]},
 * "__metadata__": {..}}) and the tensor data, offsets counted from the end
 * of the header. Each tensor becomes a view into the buffer (the caller's
 * mapping): no copy. Checked: the header fits and is a JSON object of
 * such entries (at most 100 MB, as the safetensors library allows), every
 * dtype is known, every shape non-negative, every data range inside the
 * file and exactly numel * element size bytes long. A name given twice
 * counts once, with its last entry (the header is read as Python reads JSON).
 * Supported dtypes: BOOL, U8, I8, I16, U16, I32, U32, I64, U64, F16, BF16,
 * F32, F64, C64; float8 kinds are refused with their name.
 *
 * A sharded checkpoint (model.safetensors.index.json) names its files in
 * "weight_map" (tensor name: file name); safetensors_index() reads the file
 * names, plain names in the index's directory, each once, in order of
 * first appearance. */
#ifndef MSP_SAFETENSORS_H
#define MSP_SAFETENSORS_H

#include <stddef.h>

#include "format/tensor.h"

#define SAFETENSORS_MAX_HEADER ((size_t)100 << 20)

typedef struct {
    char *name;
    tensor t;        /* a view into the buffer; owns nothing */
} st_tensor;

typedef struct {
    st_tensor *v;    /* in header order */
    size_t n;
} st_file;

/* Parse buf[0..size) (it must outlive the tensors). 0 or -1 (error recorded
 * against path). */
int safetensors_parse(const char *path, const unsigned char *buf, size_t size, st_file *out);
void safetensors_free(st_file *f);

/* The shard files an index names: *files (malloc'ed names, free with
 * names_free of files.h) and *n. 0 or -1. */
int safetensors_index(const char *index_path, char ***files, long *n);

#endif
