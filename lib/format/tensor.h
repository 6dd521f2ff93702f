/* Tensors read from dump files: the dtype table, exact float16 / bfloat16
 * conversion, and element access in logical (row-major) order.
 *
 * A tensor is a view: a storage (bytes, usually a read-only file mapping,
 * used in place) plus an element offset, a shape and strides counted in
 * elements.  This one description covers C-order and Fortran-order .npy
 * data and PyTorch views with a storage offset and arbitrary strides, so
 * readers never copy or transpose; the accessors below walk the view.
 *
 * Loaders (npy.h, pt.h, tensor_load) check every bound when they build a
 * tensor: the highest element the view can reach lies inside the storage.
 * The accessors rely on that and do no further checks.
 *
 * Values:
 *   - float16 and bfloat16 convert exactly to float and double (every
 *     16-bit pattern, subnormals included).  Sign and payload of NaNs are
 *     kept bit for bit in the float results; the conversion to double keeps
 *     sign and payload too, but the CPU turns a signalling NaN into a quiet
 *     one (the top mantissa bit is set), as any float→double conversion does.
 *   - Integers and bool convert to the nearest double (exact up to 2^53).
 *   - Complex tensors read as their real part through tensor_read_f64/f32
 *     (what torch's .float() does); tensor_read_complex gives both parts.
 *
 * Tensors are immutable once loaded: any number of threads may read one
 * concurrently.  Nothing here keeps global state.
 */
#ifndef MSP_TENSOR_H
#define MSP_TENSOR_H

#include "base/files.h"
#include "format/crc32.h"

#include <stddef.h>
#include <stdint.h>

typedef enum {
    DT_BOOL, DT_I8, DT_U8, DT_I16, DT_U16, DT_I32, DT_U32, DT_I64, DT_U64,
    DT_F16, DT_BF16, DT_F32, DT_F64, DT_C64, DT_C128,
    DT_COUNT
} dtype_id;

/* numpy-style names: "bool", "int8", ..., "float16", "bfloat16", "float32",
 * "complex64"; "unknown" for an out-of-range id. */
const char *dtype_name(dtype_id dt);
/* PyTorch names: "torch.float32", "torch.bfloat16", "torch.int64", ... */
const char *dtype_torch_name(dtype_id dt);
/* Bytes per element (complex: both parts); 0 for an out-of-range id. */
size_t dtype_size(dtype_id dt);
int dtype_is_float(dtype_id dt);     /* f16, bf16, f32, f64 */
int dtype_is_complex(dtype_id dt);
int dtype_is_integer(dtype_id dt);   /* int and uint kinds, not bool */

/* Exact conversions of 16-bit floating point patterns. */
float f16_to_f32(uint16_t h);
double f16_to_f64(uint16_t h);
float bf16_to_f32(uint16_t b);
double bf16_to_f64(uint16_t b);
/* Round to nearest, ties to even; overflow gives ±inf.  A NaN keeps its
 * sign and the top bits of its payload, so f16 → f32 → f16 and bf16 → f32
 * → bf16 give back every pattern; only when the kept payload bits would all
 * be zero (which would read as an infinity) is the quiet bit set. */
uint16_t f32_to_f16(float f);
uint16_t f32_to_bf16(float f);

/* numpy allows 64 dimensions; PyTorch fewer. */
#define TENSOR_MAX_DIMS 64
/* Elements of one tensor (its non-zero dimensions multiplied): 2^48 is
 * 256 TiB even at one byte an element, more than any file we map holds, so
 * a shape past it is a crafted header; refusing it early also keeps every
 * later size (elements times 16 bytes, strides times dimensions) far from
 * overflowing. */
#define TENSOR_MAX_ELEMENTS ((int64_t)1 << 48)

/* A stored zip entry (a .pt storage record) whose CRC-32 is still to be
 * checked: data[0, size) must have the CRC `want`. Whoever reads the
 * elements checks it, folded into its own pass (metrics_compare), or
 * calls tensor_crc_check. data == NULL: nothing to check. */
typedef struct {
    const unsigned char *data;
    size_t size;
    uint32_t want;
    const char *entry;               /* the entry's name, in the archive's bytes */
    size_t entry_len;
} tensor_crc;

typedef struct tensor {
    dtype_id dtype;
    int ndim;                        /* 0 for a scalar */
    int64_t shape[TENSOR_MAX_DIMS];
    int64_t stride[TENSOR_MAX_DIMS]; /* elements, >= 0 */
    int64_t offset;                  /* elements from `storage` to element 0 */
    size_t numel;                    /* product of shape (1 for 0-d) */
    int byteswap;                    /* storage is in the non-native byte order */
    int contiguous;                  /* row-major, dense, native byte order */

    const unsigned char *storage;    /* NULL when numel == 0 */
    size_t storage_size;             /* bytes */

    tensor_crc crc;                  /* a check still to make */

    /* What this tensor owns; tensor_free releases it. */
    mapped_file map;
    void *owned;                     /* heap storage (inflated zip entry, decoded bytes) */
} tensor;

/* Release what the tensor owns and zero it; safe on a zeroed tensor. */
void tensor_free(tensor *t);

/* Fill in numel, stride (row-major when fortran == 0, column-major when 1)
 * for shape[0..ndim) and check the sizes: no negative dimension, no
 * overflow of numel * element size.  Returns 0, or -1 with the error
 * recorded against `path`. */
int tensor_set_shape(tensor *t, const char *path, int ndim, const int64_t *shape, int fortran);
/* Check that every element the view can reach lies in
 * storage[0 .. storage_size) and compute `contiguous`.  Returns 0 or -1. */
int tensor_check_view(tensor *t, const char *path);

/* The pending CRC-32 check of t (nothing to do when there is none), from
 * runs over parts of t->crc.data already computed (crc32_fill: in order,
 * NULL/0 for none). 0, or -1 with ERR_MALFORMED recorded against `path`
 * (NULL: the tensor's file), naming the entry. Read the mapping under a
 * file_guard. */
int tensor_crc_check(const tensor *t, const char *path, const crc_run *runs, size_t nruns);

/* Where t's elements start in its pending check's bytes, when they lie
 * there contiguously (in row-major order, native byte order), and so can
 * be checked as they are read: the offset in t->crc.data, or -1. */
long long tensor_crc_offset(const tensor *t);

/* Convert elements [start, start + count) in logical row-major order.
 * Return the number written: count, or fewer at the end of the tensor
 * (0 when start >= numel).  Fast paths cover contiguous float32, bfloat16,
 * float16 and float64 storage. */
size_t tensor_read_f64(const tensor *t, size_t start, size_t count, double *out);
size_t tensor_read_f32(const tensor *t, size_t start, size_t count, float *out);
/* Complex view of any dtype: out[2i] real part, out[2i+1] imaginary part
 * (0 for real dtypes). */
size_t tensor_read_complex(const tensor *t, size_t start, size_t count, double *out);
/* Copy the raw elements (dtype_size bytes each) in native byte order. */
size_t tensor_read_raw(const tensor *t, size_t start, size_t count, void *out);

/* The elements as one dense row-major native-order array, or NULL when the
 * view is strided, Fortran-ordered, byte-swapped or empty.  The pointer
 * points into the file mapping and need not be aligned to the element size
 * (a .npy header may have any length; torch aligns to 64 bytes): load
 * through memcpy, or check the alignment before specialising on it. */
const void *tensor_contiguous_data(const tensor *t);

#endif
