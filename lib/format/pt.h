/* PyTorch .pt files in the zip format of torch.save (torch >= 1.6), read
 * without Python: one tensor per file, as msprobe dumps them.
 *
 * The archive's entries share one folder <prefix>/ chosen by torch (the
 * file stem at save time); the prefix is taken from the entry
 * <prefix>/data.pkl, never assumed.  data.pkl is run by the inert pickle
 * machine of pickle.h with this allow-list only:
 *   torch._utils._rebuild_tensor_v2 / _rebuild_tensor_v3 / _rebuild_tensor,
 *   torch._utils._rebuild_parameter[_with_state],
 *   torch._tensor._rebuild_from_type_v2 (with torch.Tensor / Parameter),
 *   the storage classes torch.FloatStorage ... torch.UntypedStorage,
 *   the dtype objects torch.float32 ... (used by _rebuild_tensor_v3),
 *   collections.OrderedDict, _codecs.encode, builtins.bytes, and
 *   numpy.core.multiarray._reconstruct / scalar, numpy.core.numeric._frombuffer
 *   (pickle protocol 5), numpy.ndarray, numpy.dtype (also spelt numpy._core)
 *   for numpy arrays saved with torch.save.
 * Anything else is refused before it could matter.
 *
 * Tensors: persistent ids ('storage', <storage class>, key, location,
 * numel) resolve to the entry <prefix>/data/<key>, used in place when
 * stored (zero copy) or inflated when deflated.  Storage offset, size and
 * stride are honoured exactly (non-contiguous views need no copy) and
 * checked against the storage: numel elements of a typed storage, numel
 * bytes of an untyped one, and the entry must hold them.  A <prefix>/byteorder
 * entry saying "big" marks the data as big-endian.  Quantized, sparse and
 * other tensor kinds are refused.
 *
 * numpy arrays: torch.save pickles them with protocol 2, so the data is a
 * latin-1 text inside the pickle (bytes with protocol 3+); it is decoded
 * into a buffer the tensor owns.  Plain numeric ndarrays and numpy scalars of the dtypes of
 * tensor.h are supported; object arrays and other numpy types are refused.
 */
#ifndef MSP_PT_H
#define MSP_PT_H

#include "base/strbuf.h"
#include "format/pickle.h"
#include "format/tensor.h"

/* Parse buf[0..size) as a torch.save zip archive holding one tensor.
 * Stored storage is used in place (buf must outlive the tensor); anything
 * decoded is owned by the tensor.  Always tensor_free() the result.
 * 0, or -1 with the error recorded against `path`. */
int pt_parse(const char *path, const unsigned char *buf, size_t size, tensor *out);
/* The same; with PT_CRC_LATER the CRC-32 of a stored storage record is not
 * checked here but left in out->crc for the pass that reads the elements
 * (tensor.h's tensor_crc: metrics_compare folds it into its own pass). */
enum { PT_CRC_LATER = 1 };
int pt_parse_flags(const char *path, const unsigned char *buf, size_t size, unsigned flags, tensor *out);

/* A torch.save archive holding anything (a checkpoint's state dict): the
 * pickle is parsed once, with the allow-list above plus the classes
 * checkpoints keep next to their weights, read as data (argparse.Namespace,
 * Megatron's enums, BytesIO, torch.Size, torch.distributed.checkpoint's
 * metadata classes, ...; see pt.c); anything else is refused. Tensors are
 * then made on demand from their rebuild calls: views of the stored
 * storage records in place (buf must outlive the archive and its tensors),
 * deflated ones inflated once and kept by the archive. Not thread-safe;
 * the tensors it made are read-only and may be read from any thread. */
typedef struct pt_archive pt_archive;

pt_archive *pt_open(const char *path, const unsigned char *buf, size_t size);
void pt_close(pt_archive *ar);
/* The unpickled object (a dict for torch.save(state_dict)). */
const pk_value *pt_root(const pt_archive *ar);
/* Is v a tensor (a torch rebuild call: tensor, parameter)? */
int pt_is_tensor(const pk_value *v);
/* The tensor v describes; it owns nothing (the archive does), tensor_free
 * is harmless. 0 or -1 (error recorded against the archive's path). */
int pt_tensor(pt_archive *ar, const pk_value *v, tensor *out);
/* Does the archive hold data its tensors point to (storages it inflated)?
 * When not, their views point into buf only and the archive may be closed
 * while they are used. */
int pt_owns_data(const pt_archive *ar);
/* Is v the global module.name? */
int pt_global_is(const pk_value *v, const char *module, const char *name);

/* The legacy typed storage class torch.save names for a dtype
 * ("FloatStorage"), or NULL when it has none (uint16/32/64). */
const char *pt_storage_class(dtype_id dt);

#endif
