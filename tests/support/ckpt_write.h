/* Writing checkpoints for the tests and the benchmark (never in the
 * program): a protocol-2 pickle emitter, Megatron-LM's model_optim_rng.pt
 * (torch.save layout of torch 1.13: <prefix>/data.pkl, data/<key> records
 * 64-byte aligned and stored, version, byteorder), torch.distributed.
 * checkpoint directories (.metadata + __0_0.distcp holding torch.save
 * archives) and safetensors files. */
#ifndef MSP_TEST_CKPT_WRITE_H
#define MSP_TEST_CKPT_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "format/tensor.h"

/* ---- pickle ---------------------------------------------------------------- */

typedef struct {
    strbuf sb;
} pkw;

void pkw_begin(pkw *w);                  /* PROTO 2 */
void pkw_end(pkw *w);                    /* STOP */
void pkw_int(pkw *w, int64_t v);
void pkw_float(pkw *w, double v);
void pkw_str(pkw *w, const char *s);
void pkw_none(pkw *w);
void pkw_bool(pkw *w, int b);
void pkw_global(pkw *w, const char *module, const char *name);
void pkw_op(pkw *w, char op);            /* '(' MARK, 't' TUPLE, ')' EMPTY_TUPLE, '}' EMPTY_DICT, 'u', 's', ']',
                                            'e', 'a', 'R' REDUCE, 'b' BUILD, 'Q' BINPERSID ... */
void pkw_raw(pkw *w, const void *p, size_t n);
/* collections.OrderedDict() then MARK: key, value, ... then pkw_op('u'). */
void pkw_odict(pkw *w);
/* torch.Size((dims...)) */
void pkw_size(pkw *w, int ndim, const int64_t *dims);
/* _rebuild_tensor_v2(('storage', <class>, key, 'cpu', numel), offset, size,
 * stride, False, OrderedDict()) of a contiguous tensor. */
void pkw_tensor(pkw *w, dtype_id dt, const char *key, int64_t storage_numel, int64_t offset, int ndim,
                const int64_t *shape, const int64_t *stride);
/* An object as NEWOBJ(cls, ()) + BUILD(dict): call, then the dict's
 * MARK key value ... 'u', then pkw_op('b'). */
void pkw_object(pkw *w, const char *module, const char *name);

/* ---- a torch.save archive of many storages (Megatron rank files) -------------- */

typedef struct ptw ptw;

/* A new archive at path (written to a temporary name until ptw_close). */
ptw *ptw_open(const char *path, const char *prefix);
/* Add a storage record data/<key> (stored, aligned); key returned. */
int ptw_storage(ptw *w, const void *data, size_t bytes, char key[24]);
/* Write data.pkl (the caller's pickle), version, byteorder, the central
 * directory; commit the file. 0 or -1. */
int ptw_close(ptw *w, const strbuf *pickle);
void ptw_abort(ptw *w);

/* ---- Megatron ------------------------------------------------------------------- */

typedef struct {
    const char *name;          /* the model's name of the shard, as Megatron stores it */
    dtype_id dtype;
    int ndim;
    int64_t shape[4];
    const void *data;          /* numel * element size bytes, host order */
} ckw_tensor;

typedef struct {
    int tp, pp, ep;
    int num_experts;           /* 0: None */
    int iteration;
    int vpp;                   /* model0..model{vpp-1} when > 0, else "model" */
} ckw_args;

/* One model_optim_rng.pt: args (an argparse.Namespace with the parallel
 * sizes, a torch dtype, a Megatron enum), iteration, checkpoint_version,
 * model (an OrderedDict with _metadata; t[i] of virtual stage stage[i]
 * when vpp > 0), TransformerEngine _extra_state entries (BytesIO, None),
 * an optimizer and rng_state holding a numpy array. */
int ckw_megatron_rank(const char *path, const ckw_args *a, const ckw_tensor *t, const int *stage, size_t n);
/* The same, tensors with data == NULL filled on demand by fill(ctx, i,
 * buffer) one at a time (big checkpoints without holding them). */
typedef void (*ckw_fill)(void *ctx, size_t i, void *buf);
int ckw_megatron_rank_fill(const char *path, const ckw_args *a, const ckw_tensor *t, const int *stage, size_t n,
                           ckw_fill fill, void *ctx);

/* ---- torch_dist ----------------------------------------------------------------- */

typedef struct {
    const char *fqn;
    dtype_id dtype;
    int ndim;
    int64_t size[4];           /* the global size */
    int nchunks;
    int64_t offsets[8][4], sizes[8][4];
    const void *data[8];       /* each chunk's elements, row-major */
} dcpw_tensor;

/* dir/.metadata and dir/__0_0.distcp (every chunk a torch.save archive). */
int dcpw_write(const char *dir, const dcpw_tensor *t, size_t n);

/* ---- safetensors ------------------------------------------------------------------ */

int stw_write(const char *path, const ckw_tensor *t, size_t n);

#endif
