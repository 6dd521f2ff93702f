/* Hugging Face safetensors files, read in place.
 *
 * A file is an 8-byte little-endian header length N, N bytes of JSON
 * ({"name": {"dtype": "BF16", "shape": [..], "data_offsets": [begin, end]},
 * "__metadata__": {..}}) and the tensor data, offsets counted from the end
 * of the header. Each tensor is described, not copied: its bytes stay in
 * the caller's buffer (st_view makes it a tensor).
 *
 * Checked, as the format's reference implementation (the safetensors
 * library) requires: the header fits (at most 100 MB, as that library
 * allows) and is a JSON object of such entries; every dtype is known,
 * every shape non-negative and its data exactly numel * element size
 * bytes; the tensors' data, taken in order of their offsets, starts at 0,
 * leaves no gap, never overlaps and ends where the file does; the
 * __metadata__ maps strings to strings. Beyond it: a name given twice
 * (which tensor it means would depend on the reader), more than
 * SAFETENSORS_MAX_TENSORS entries. Each failure names the file and the
 * tensor. Supported dtypes: BOOL, U8, I8, I16, U16, I32, U32, I64, U64,
 * F16, BF16, F32, F64, C64; float8 kinds are refused with their name.
 *
 * The header is read entry by entry, never built as a whole tree: what a
 * file costs is its entries (about 60 bytes each besides the name), not
 * several times its JSON.
 *
 * A sharded checkpoint (model.safetensors.index.json) names its files in
 * "weight_map" (tensor name: file name); safetensors_index() reads the file
 * names, plain names in the index's directory, each once, in order of
 * first appearance, and which tensor each shard is said to hold. */
#ifndef MSP_SAFETENSORS_H
#define MSP_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "format/tensor.h"

#define SAFETENSORS_MAX_HEADER ((size_t)100 << 20)
/* Entries of one header: a model's file holds thousands; 2^20 is already
 * a header of 50 MB at the least. Each costs memory (st_tensor, then a
 * checkpoint's parameter), so a header of tiny entries is bounded here,
 * not by the 100 MB alone. */
#define SAFETENSORS_MAX_TENSORS ((size_t)1 << 20)

typedef struct {
    char *name;                  /* in the file's arena */
    const int64_t *shape;        /* ndim sizes, in the file's arena */
    int ndim;
    dtype_id dtype;
    size_t numel;
    uint64_t begin, end;         /* data_offsets: the bytes, from the end of the header */
    const unsigned char *data;   /* the first of them in the buffer */
} st_tensor;

typedef struct {
    st_tensor *v;    /* in header order */
    size_t n;
    arena a;         /* names and shapes */
} st_file;

/* Parse buf[0..size) (it must outlive the views). 0 or -1 (error recorded
 * against path). */
int safetensors_parse(const char *path, const unsigned char *buf, size_t size, st_file *out);
void safetensors_free(st_file *f);

/* Tensor t as a row-major view of its bytes (owns nothing). */
void st_view(const st_tensor *t, tensor *out);

/* An index's weight_map entry: a tensor and the shard (an index into the
 * files) said to hold it. */
typedef struct {
    char *tensor;
    long file;
} st_shard_of;

/* The shard files an index names: *files (malloc'ed names, free with
 * names_free of files.h) and *n; with `map` (may be NULL), every entry of
 * the weight_map (*nmap of them, malloc'ed, free with st_shard_of_free).
 * 0 or -1. */
int safetensors_index(const char *index_path, char ***files, long *n, st_shard_of **map, size_t *nmap);
void st_shard_of_free(st_shard_of *map, size_t n);

#endif
