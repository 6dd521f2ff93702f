/* NumPy .npy files (format versions 1.0, 2.0 and 3.0).
 *
 * Layout: "\x93NUMPY", major, minor, a header length (uint16 LE in 1.0,
 * uint32 LE in 2.0/3.0), then the header: a Python dict literal with
 * exactly the keys 'descr', 'fortran_order' and 'shape', padded with
 * spaces and ended by '\n'.  The raw data follows.
 *
 * The header is parsed strictly and never evaluated: descr must be a
 * simple type string (byte order '<' '>' '|' '=' or none, then b1 / ?,
 * i1..i8, u1..u8, f2 f4 f8, c8 c16).  Object arrays (they need pickle),
 * structured dtypes, strings, datetimes, long double and raw void (V2, what
 * ml_dtypes writes for bfloat16) are refused with a message naming them.
 * MindSpore writes bfloat16 tensors as float32 .npy, which loads as float32.
 *
 * Data is used in place: the tensor points into the caller's buffer.
 * Fortran order becomes column-major strides (no transposing copy); bytes
 * after the data are ignored, as numpy does.
 */
#ifndef MSP_NPY_H
#define MSP_NPY_H

#include "base/strbuf.h"
#include "format/tensor.h"

/* Parse buf[0..size) as a .npy file; `path` names it in errors.  The
 * tensor's storage points into buf, which must outlive it; call
 * tensor_free() (it owns nothing else) when done.  0 or -1. */
int npy_parse(const char *path, const unsigned char *buf, size_t size, tensor *out);

#endif
