/* The torch.save reader of pt.h. One allow-list, indexed by the enum
 * below, tells the pickle machine which globals may appear; the recorded
 * rebuild calls are then interpreted here by the allow-list index of their
 * callable: a tensor rebuild resolves its persistent id to the archive's
 * storage record and becomes a view over it; a numpy reconstruction copies
 * its bytes out of the pickle. A dump file holds one tensor (pt_parse); a
 * checkpoint (pt_open) holds a whole state dict, whose pickle may also
 * name the classes of what trainers keep beside the weights, and whose
 * deflated storages are inflated once and kept with the archive, since
 * several tensors may view the same storage.
 */
#include "format/pt.h"
#include "format/crc32.h"
#include "base/le.h"
#include "base/err.h"
#include "base/mem.h"
#include "format/pickle.h"
#include "format/zip.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A single tensor's pickle is a few hundred bytes; numpy arrays carry
 * their data inside it.  Beyond this it is not a msprobe dump. */
#define MAX_PICKLE_BYTES ((size_t)1 << 32)

/* Rebuild nesting (parameter → from_type → tensor) is at most 3 deep. */
#define MAX_REBUILD_DEPTH 8

enum {
    G_V2, G_V3, G_V1, G_PARAM, G_PARAM_STATE, G_FROM_TYPE, G_TENSOR, G_PARAMETER,
    G_ODICT, G_ENCODE, G_BYTES,
    G_NP_RECON, G_NP_RECON2, G_NP_SCALAR, G_NP_SCALAR2, G_NP_FROMBUF, G_NP_FROMBUF2, G_NP_NDARRAY, G_NP_DTYPE,
    G_NP_DTYPE2,
    /* checkpoints only (PT_CHECKPOINT): classes read as data */
    G_CKPT0,
    G_STORAGE0 = G_CKPT0 + 30
};

/* Storage classes: legacy typed classes, the untyped one, quantized ones. */
static const struct {
    const char *name;
    int dtype;          /* dtype_id; -1 untyped; -2 quantized */
} storages[] = {
    { "DoubleStorage", DT_F64 }, { "FloatStorage", DT_F32 }, { "HalfStorage", DT_F16 },
    { "BFloat16Storage", DT_BF16 }, { "LongStorage", DT_I64 }, { "IntStorage", DT_I32 },
    { "ShortStorage", DT_I16 }, { "CharStorage", DT_I8 }, { "ByteStorage", DT_U8 }, { "BoolStorage", DT_BOOL },
    { "ComplexFloatStorage", DT_C64 }, { "ComplexDoubleStorage", DT_C128 }, { "UntypedStorage", -1 },
    { "QInt8Storage", -2 }, { "QUInt8Storage", -2 }, { "QInt32Storage", -2 }, { "QUInt4x2Storage", -2 },
    { "QUInt2x4Storage", -2 },
};
#define N_STORAGES (sizeof storages / sizeof storages[0])
#define G_DTYPE0 (G_STORAGE0 + (int)N_STORAGES)

/* torch dtype objects, as _rebuild_tensor_v3 names them; -1: no reader. */
static const struct {
    const char *name;
    int dtype;
} torch_dtypes[] = {
    { "bool", DT_BOOL }, { "int8", DT_I8 }, { "uint8", DT_U8 }, { "int16", DT_I16 }, { "uint16", DT_U16 },
    { "int32", DT_I32 }, { "uint32", DT_U32 }, { "int64", DT_I64 }, { "uint64", DT_U64 },
    { "float16", DT_F16 }, { "bfloat16", DT_BF16 }, { "float32", DT_F32 }, { "float64", DT_F64 },
    { "complex64", DT_C64 }, { "complex128", DT_C128 }, { "complex32", -1 }, { "float8_e5m2", -1 },
    { "float8_e4m3fn", -1 }, { "float8_e5m2fnuz", -1 }, { "float8_e4m3fnuz", -1 }, { "float8_e8m0fnu", -1 },
    { "bits8", -1 }, { "bits16", -1 }, { "bits1x8", -1 }, { "bits2x4", -1 }, { "bits4x2", -1 },
};
#define N_DTYPES (sizeof torch_dtypes / sizeof torch_dtypes[0])
#define N_ALLOWED (G_DTYPE0 + N_DTYPES)

/* What a checkpoint's pickle may name besides tensors and their storages:
 * the classes of the values Megatron-LM, MindSpeed and torch's distributed
 * checkpoints keep next to the weights (argparse.Namespace args, enums,
 * BytesIO extra states, numpy RNG states, torch.Size, dtypes, layouts,
 * the dataclasses of torch.distributed.checkpoint's .metadata). Nothing is
 * ever called: instances are recorded as (class, arguments, state) --
 * getattr(EnumClass, 'NAME') too, which is how Python 3.11 pickles an enum
 * member, and torch.serialization._get_layout, how a layout pickles. */
static const pk_global ckpt_globals[] = {
    { "argparse", "Namespace" }, { "_io", "BytesIO" }, { "io", "BytesIO" }, { "builtins", "bytearray" },
    { "builtins", "set" }, { "builtins", "frozenset" }, { "builtins", "complex" }, { "builtins", "slice" },
    { "builtins", "object" }, { "builtins", "range" }, { "builtins", "getattr" }, { "copyreg", "_reconstructor" },
    { "torch.serialization", "_get_layout" },
    { "collections", "defaultdict" }, { "torch", "Size" }, { "torch", "device" }, { "torch", "strided" },
    { "torch", "sparse_coo" }, { "torch", "sparse_csr" }, { "torch", "_mkldnn" }, { "pathlib", "PosixPath" },
    { "pathlib", "PurePosixPath" }, { "enum", "Enum" }, { "torch.distributed.*", "*" }, { "megatron.*", "*" },
    { "mindspeed.*", "*" }, { "modellink.*", "*" }, { "mindspeed_llm.*", "*" }, { "transformer_engine.*", "*" },
    { "apex.*", "*" },
};
#define N_CKPT_GLOBALS (sizeof ckpt_globals / sizeof ckpt_globals[0])
_Static_assert(N_CKPT_GLOBALS <= G_STORAGE0 - G_CKPT0, "room for the checkpoint globals");

const char *pt_storage_class(dtype_id dt)
{
    for (size_t i = 0; i < N_STORAGES; i++)
        if (storages[i].dtype == (int)dt)
            return storages[i].name;
    return NULL;
}

static void allow_list(pk_global *g, int checkpoint)
{
    static const pk_global fixed[G_CKPT0] = {
        [G_V2] = { "torch._utils", "_rebuild_tensor_v2" },
        [G_V3] = { "torch._utils", "_rebuild_tensor_v3" },
        [G_V1] = { "torch._utils", "_rebuild_tensor" },
        [G_PARAM] = { "torch._utils", "_rebuild_parameter" },
        [G_PARAM_STATE] = { "torch._utils", "_rebuild_parameter_with_state" },
        [G_FROM_TYPE] = { "torch._tensor", "_rebuild_from_type_v2" },
        [G_TENSOR] = { "torch", "Tensor" },
        [G_PARAMETER] = { "torch.nn.parameter", "Parameter" },
        [G_ODICT] = { "collections", "OrderedDict" },
        [G_ENCODE] = { "_codecs", "encode" },
        [G_BYTES] = { "builtins", "bytes" },
        [G_NP_RECON] = { "numpy.core.multiarray", "_reconstruct" },
        [G_NP_RECON2] = { "numpy._core.multiarray", "_reconstruct" },
        [G_NP_SCALAR] = { "numpy.core.multiarray", "scalar" },
        [G_NP_SCALAR2] = { "numpy._core.multiarray", "scalar" },
        [G_NP_FROMBUF] = { "numpy.core.numeric", "_frombuffer" },
        [G_NP_FROMBUF2] = { "numpy._core.numeric", "_frombuffer" },
        [G_NP_NDARRAY] = { "numpy", "ndarray" },
        [G_NP_DTYPE] = { "numpy", "dtype" },
        [G_NP_DTYPE2] = { "numpy.dtypes", "dtype" },
    };
    memcpy(g, fixed, sizeof fixed);
    /* unused slots name nothing a pickle can write */
    for (int i = G_CKPT0; i < G_STORAGE0; i++)
        g[i] = (pk_global){ "", "" };
    if (checkpoint)
        for (size_t i = 0; i < N_CKPT_GLOBALS; i++)
            g[G_CKPT0 + i] = ckpt_globals[i];
    for (size_t i = 0; i < N_STORAGES; i++)
        g[G_STORAGE0 + i] = (pk_global){ "torch", storages[i].name };
    for (size_t i = 0; i < N_DTYPES; i++)
        g[G_DTYPE0 + i] = (pk_global){ "torch", torch_dtypes[i].name };
}

typedef struct {
    char *key;
    void *data;
    size_t size;
} inflated_storage;

struct pt_archive {
    const char *path;
    zip_archive z;
    char *prefix;            /* "<prefix>/" */
    int big_endian;
    arena a;                 /* the pickle's values */
    pk_value *root;
    void *pkl_owned;
    inflated_storage *inflated;  /* deflated storage records, inflated once */
    size_t ninflated, cap;
    unsigned char *crc_checked;  /* per zip entry: its CRC-32 was checked (tensors share storages) */
};

typedef struct {
    const char *path;
    zip_archive *z;
    const char *prefix;      /* "<prefix>/" */
    int big_endian;
    tensor *out;
    pt_archive *arch;        /* a checkpoint: storages stay with the archive */
} pt_ctx;

/* The archive member <prefix><suffix>, or NULL. */
static const zip_entry *member(const zip_archive *z, const char *prefix, const char *suffix, size_t suffix_len)
{
    strbuf name = STRBUF_INIT;
    sb_adds(&name, prefix);
    sb_add(&name, suffix, suffix_len);
    const zip_entry *e = zip_find(z, name.buf, name.len);
    sb_free(&name);
    return e;
}

static int global_id(const pk_value *v) { return v && v->kind == PK_GLOBAL ? v->u.global.id : -1; }

static int get_int(const pk_value *v, int64_t *x)
{
    if (!v || (v->kind != PK_INT && v->kind != PK_BOOL))
        return -1;
    *x = v->u.i;
    return 0;
}

static int int_tuple(const pt_ctx *c, const pk_value *v, const char *what, int64_t *vals, int *n)
{
    long len = pk_tuple_len(v);
    if (v && v->kind == PK_LIST)
        len = (long)v->u.seq.len;
    if (len < 0)
        return err_input(c->path, "tensor %s is %s, not a tuple of integers", what,
                         v ? pk_kind_name(v->kind) : "nothing");
    if (len > TENSOR_MAX_DIMS)
        return err_input(c->path, "tensor %s has %ld dimensions, at most %d are supported", what, len,
                         TENSOR_MAX_DIMS);
    for (long i = 0; i < len; i++)
        if (get_int(v->u.seq.item[i], &vals[i]) != 0)
            return err_input(c->path, "tensor %s holds %s, not an integer", what,
                             pk_kind_name(v->u.seq.item[i]->kind));
    *n = (int)len;
    return 0;
}

/* Resolve ('storage', class, key, location, numel) to its record. */
static int load_storage(pt_ctx *c, const pk_value *pid, int *dtype, const unsigned char **data, size_t *bytes,
                        int64_t *numel)
{
    if (!pid || pid->kind != PK_PERSID)
        return err_input(c->path, "tensor storage is %s, not a persistent storage id",
                         pid ? pk_kind_name(pid->kind) : "nothing");
    const pk_value *t = pid->u.pid;
    if (pk_tuple_len(t) != 5 || !pk_str_eq(t->u.seq.item[0], "storage"))
        return err_input(c->path, "unsupported persistent id (expected ('storage', class, key, location, numel))");
    int sid = global_id(t->u.seq.item[1]) - G_STORAGE0;
    const pk_value *key = t->u.seq.item[2];
    if (sid < 0 || sid >= (int)N_STORAGES)
        return err_input(c->path, "persistent id names no storage class");
    if (storages[sid].dtype == -2)
        return err_input(c->path, "quantized tensors (torch.%s) are not supported", storages[sid].name);
    if (key->kind != PK_STR || key->u.str.len == 0 || key->u.str.len > 64
        || memchr(key->u.str.ptr, '/', key->u.str.len) || memchr(key->u.str.ptr, 0, key->u.str.len))
        return err_input(c->path, "persistent id has a malformed storage key");
    if (get_int(t->u.seq.item[4], numel) != 0 || *numel < 0)
        return err_input(c->path, "persistent id has a malformed element count");
    *dtype = storages[sid].dtype;
    char rel[80];
    snprintf(rel, sizeof rel, "data/%.*s", (int)key->u.str.len, key->u.str.ptr);
    const zip_entry *e = member(c->z, c->prefix, rel, strlen(rel));
    if (!e)
        return err_input(c->path, "storage record '%s%s' is missing from the archive", c->prefix, rel);
    void *owned;
    if (c->arch) {
        pt_archive *ar = c->arch;
        for (size_t i = 0; i < ar->ninflated; i++)
            if (strcmp(ar->inflated[i].key, rel) == 0) {
                *data = ar->inflated[i].data;
                *bytes = ar->inflated[i].size;
                return 0;
            }
        size_t idx = (size_t)(e - c->z->entries);
        if (!ar->crc_checked)
            ar->crc_checked = xcalloc(c->z->count ? c->z->count : 1, 1);
        if (zip_read_unchecked(c->z, e, 0, data, bytes, &owned) != 0)
            return -1;
        if (owned) {
            GROW(ar->inflated, ar->cap, ar->ninflated + 1);
            ar->inflated[ar->ninflated++] = (inflated_storage){ xstrdup(rel), owned, *bytes };
        } else if (!ar->crc_checked[idx]) {
            if (crc32_update(0, *data, *bytes) != e->crc)
                return err_input(c->path, "zip entry '%.*s' fails its CRC-32 check (the archive is damaged)",
                                 (int)e->name_len, e->name);
            ar->crc_checked[idx] = 1;
        }
        return 0;
    }
    /* one tensor: its elements are read once, by whoever reads them, and
     * the check goes with them (pt_parse_flags) */
    if (zip_read_unchecked(c->z, e, 0, data, bytes, &owned) != 0)
        return -1;
    free(c->out->owned);
    c->out->owned = owned;
    c->out->crc = owned ? (tensor_crc){0}
                        : (tensor_crc){.data = *data, .size = *bytes, .want = e->crc, .entry = e->name,
                                       .entry_len = e->name_len};
    return 0;
}

static int rebuild_tensor(pt_ctx *c, int id, const pk_value *args)
{
    long n = pk_tuple_len(args);
    int ok = id == G_V1 ? n == 4 : id == G_V2 ? (n == 6 || n == 7) : (n == 7 || n == 8);
    if (!ok)
        return err_input(c->path, "%s called with %ld arguments", id == G_V1 ? "_rebuild_tensor" : id == G_V2 ?
                         "_rebuild_tensor_v2" : "_rebuild_tensor_v3", n);
    pk_value **a = args->u.seq.item;
    int sdtype = 0;
    const unsigned char *data;
    size_t bytes;
    int64_t snumel = 0, offset = 0;
    if (load_storage(c, a[0], &sdtype, &data, &bytes, &snumel) != 0)
        return -1;
    int dtype = sdtype;
    if (id == G_V3) {
        int did = global_id(a[6]) - G_DTYPE0;
        if (did < 0 || did >= (int)N_DTYPES)
            return err_input(c->path, "_rebuild_tensor_v3 dtype is not a torch dtype");
        if (torch_dtypes[did].dtype < 0)
            return err_input(c->path, "tensor dtype torch.%s is not supported", torch_dtypes[did].name);
        if (sdtype >= 0 && sdtype != torch_dtypes[did].dtype)
            return err_input(c->path, "tensor dtype torch.%s does not match its storage class",
                             torch_dtypes[did].name);
        dtype = torch_dtypes[did].dtype;
    }
    if (dtype < 0)
        return err_input(c->path, "an untyped storage needs _rebuild_tensor_v3 to give its dtype");
    size_t es = dtype_size((dtype_id)dtype);
    uint64_t declared;
    if (sdtype == -1) {
        declared = (uint64_t)snumel / es * es;
    } else if (__builtin_mul_overflow((uint64_t)snumel, (uint64_t)es, &declared)) {
        return err_input(c->path, "storage element count %lld is absurd", (long long)snumel);
    }
    if (declared > bytes)
        return err_input(c->path, "storage record is too short: %llu bytes declared, %zu present",
                         (unsigned long long)declared, bytes);
    int64_t size[TENSOR_MAX_DIMS], stride[TENSOR_MAX_DIMS];
    int nd, nst;
    if (get_int(a[1], &offset) != 0)
        return err_input(c->path, "tensor storage offset is not an integer");
    if (int_tuple(c, a[2], "size", size, &nd) != 0 || int_tuple(c, a[3], "stride", stride, &nst) != 0)
        return -1;
    if (nd != nst)
        return err_input(c->path, "tensor size has %d dimensions but stride has %d", nd, nst);
    tensor *t = c->out;
    t->dtype = (dtype_id)dtype;
    if (tensor_set_shape(t, c->path, nd, size, 0) != 0)
        return -1;
    memcpy(t->stride, stride, (size_t)nd * sizeof *stride);
    t->offset = offset;
    t->byteswap = c->big_endian != HOST_BIG_ENDIAN && es > 1;
    t->storage = data;
    t->storage_size = (size_t)declared;
    return tensor_check_view(t, c->path);
}

/* numpy dtype object: dtype('f4', False, True) with state (3, '<', ...). */
static int numpy_dtype(const pt_ctx *c, const pk_value *d, dtype_id *dt, int *big)
{
    int gid = d && d->kind == PK_CALL ? global_id(d->u.call.callable) : -1;
    if (gid != G_NP_DTYPE && gid != G_NP_DTYPE2)
        return err_input(c->path, "numpy array without a numpy dtype");
    const pk_value *args = d->u.call.args, *st = d->u.call.state;
    if (pk_tuple_len(args) < 1 || args->u.seq.item[0]->kind != PK_STR)
        return err_input(c->path, "malformed numpy dtype");
    const pk_value *code = args->u.seq.item[0];
    static const struct {
        const char *code;
        dtype_id dt;
    } codes[] = {
        { "b1", DT_BOOL }, { "i1", DT_I8 }, { "u1", DT_U8 }, { "i2", DT_I16 }, { "u2", DT_U16 }, { "i4", DT_I32 },
        { "u4", DT_U32 }, { "i8", DT_I64 }, { "u8", DT_U64 }, { "f2", DT_F16 }, { "f4", DT_F32 },
        { "f8", DT_F64 }, { "c8", DT_C64 }, { "c16", DT_C128 },
    };
    size_t i = 0;
    while (i < sizeof codes / sizeof codes[0] && !pk_str_eq(code, codes[i].code))
        i++;
    if (i == sizeof codes / sizeof codes[0])
        return err_input(c->path, "numpy dtype '%.*s' is not supported%s", (int)(code->u.str.len < 16 ?
                         code->u.str.len : 16), code->u.str.ptr, code->u.str.len && code->u.str.ptr[0] == 'O' ?
                         " (object arrays need pickle)" : "");
    *dt = codes[i].dt;
    *big = HOST_BIG_ENDIAN;
    if (pk_tuple_len(st) >= 2) {
        const pk_value *order = st->u.seq.item[1];
        if (pk_str_eq(order, ">"))
            *big = 1;
        else if (pk_str_eq(order, "<"))
            *big = 0;
        else if (!pk_str_eq(order, "|") && !pk_str_eq(order, "="))
            return err_input(c->path, "malformed numpy dtype byte order");
    }
    return 0;
}

/* Copy numpy bytes into a buffer the tensor owns. */
static int numpy_data(pt_ctx *c, const pk_value *raw, dtype_id dt, int big, int nd, const int64_t *shape,
                      int fortran)
{
    tensor *t = c->out;
    t->dtype = dt;
    if (tensor_set_shape(t, c->path, nd, shape, fortran) != 0)
        return -1;
    if (!raw || (raw->kind != PK_BYTES && raw->kind != PK_STR))
        return err_input(c->path, "numpy array data is %s, not bytes (object arrays are not supported)",
                         raw ? pk_kind_name(raw->kind) : "nothing");
    size_t need = t->numel * dtype_size(dt);
    if (raw->u.str.len != need)
        return err_input(c->path, "numpy array data has %zu bytes, its shape needs %zu", raw->u.str.len, need);
    free(t->owned);
    t->owned = xmalloc(need ? need : 1);
    if (need)
        memcpy(t->owned, raw->u.str.ptr, need);
    t->storage = t->owned;
    t->storage_size = need;
    t->offset = 0;
    t->byteswap = big != HOST_BIG_ENDIAN && dtype_size(dt) > 1;
    return tensor_check_view(t, c->path);
}

static int rebuild_numpy(pt_ctx *c, const pk_value *args, const pk_value *state)
{
    if (pk_tuple_len(args) != 3 || global_id(args->u.seq.item[0]) != G_NP_NDARRAY)
        return err_input(c->path, "numpy object is not a plain ndarray");
    long n = pk_tuple_len(state);
    if (n != 4 && n != 5)
        return err_input(c->path, "numpy array without a valid state");
    pk_value **s = state->u.seq.item + (n == 5);
    int64_t shape[TENSOR_MAX_DIMS];
    int nd;
    dtype_id dt;
    int big;
    if (int_tuple(c, s[0], "shape", shape, &nd) != 0 || numpy_dtype(c, s[1], &dt, &big) != 0)
        return -1;
    if (s[2]->kind != PK_BOOL && s[2]->kind != PK_INT)
        return err_input(c->path, "numpy array order flag is not a bool");
    return numpy_data(c, s[3], dt, big, nd, shape, s[2]->u.i != 0);
}

static int rebuild(pt_ctx *c, const pk_value *v, int depth)
{
    if (!v || v->kind != PK_CALL)
        return err_input(c->path, "the file holds %s, not a single tensor (msprobe saves one tensor per file)",
                         v ? pk_kind_name(v->kind) : "nothing");
    if (depth > MAX_REBUILD_DEPTH)
        return err_input(c->path, "tensor rebuild calls nest too deeply");
    int id = global_id(v->u.call.callable);
    const pk_value *args = v->u.call.args;
    long n = pk_tuple_len(args);
    switch (id) {
    case G_V1:
    case G_V2:
    case G_V3:
        return rebuild_tensor(c, id, args);
    case G_PARAM:
    case G_PARAM_STATE:
        if (n < 1)
            return err_input(c->path, "_rebuild_parameter without arguments");
        return rebuild(c, args->u.seq.item[0], depth + 1);
    case G_FROM_TYPE: {
        if (n != 4 || args->u.seq.item[0]->kind != PK_GLOBAL
            || (global_id(args->u.seq.item[1]) != G_TENSOR && global_id(args->u.seq.item[1]) != G_PARAMETER))
            return err_input(c->path, "tensor subclasses are not supported");
        pk_value inner = { .kind = PK_CALL };
        inner.u.call.callable = args->u.seq.item[0];
        inner.u.call.args = args->u.seq.item[2];
        return rebuild(c, &inner, depth + 1);
    }
    case G_NP_RECON:
    case G_NP_RECON2:
        return rebuild_numpy(c, args, v->u.call.state);
    case G_NP_SCALAR:
    case G_NP_SCALAR2: {
        dtype_id dt;
        int big;
        if (n != 2 || numpy_dtype(c, args->u.seq.item[0], &dt, &big) != 0)
            return n != 2 ? err_input(c->path, "malformed numpy scalar") : -1;
        return numpy_data(c, args->u.seq.item[1], dt, big, 0, NULL, 0);
    }
    case G_NP_FROMBUF:
    case G_NP_FROMBUF2: {
        /* protocol 5: _frombuffer(data, dtype, shape, order) */
        dtype_id dt;
        int big, nd;
        int64_t shape[TENSOR_MAX_DIMS];
        if (n != 4)
            return err_input(c->path, "malformed numpy _frombuffer call");
        const pk_value *order = args->u.seq.item[3];
        if (!pk_str_eq(order, "C") && !pk_str_eq(order, "F"))
            return err_input(c->path, "numpy array order is neither 'C' nor 'F'");
        if (numpy_dtype(c, args->u.seq.item[1], &dt, &big) != 0
            || int_tuple(c, args->u.seq.item[2], "shape", shape, &nd) != 0)
            return -1;
        return numpy_data(c, args->u.seq.item[0], dt, big, nd, shape, pk_str_eq(order, "F"));
    }
    default:
        return err_input(c->path, "the file holds a %s.%s object, not a single tensor",
                         v->u.call.callable->u.global.module, v->u.call.callable->u.global.name);
    }
}

/* The entry <prefix>/data.pkl with a one-folder prefix. */
static const zip_entry *find_pickle(const zip_archive *z, const char *path)
{
    const zip_entry *found = NULL;
    for (size_t i = 0; i < z->count; i++) {
        const zip_entry *e = &z->entries[i];
        if (e->name_len < 9 || memcmp(e->name + e->name_len - 9, "/data.pkl", 9) != 0
            || memchr(e->name, '/', e->name_len - 9))
            continue;
        if (found && (found->name_len != e->name_len || memcmp(found->name, e->name, e->name_len) != 0)) {
            err_input(path, "not a torch.save file: several folders hold a data.pkl");
            return NULL;
        }
        if (!found)
            found = e;
    }
    if (!found)
        err_input(path, "not a torch.save file: the zip archive has no <folder>/data.pkl entry");
    return found;
}

static int read_byteorder(pt_ctx *c)
{
    const zip_entry *e = member(c->z, c->prefix, "byteorder", 9);
    c->big_endian = 0;
    if (!e)
        return 0;
    const unsigned char *d;
    size_t n;
    void *owned;
    if (zip_read(c->z, e, 64, &d, &n, &owned) != 0)
        return -1;
    while (n && (d[n - 1] == '\n' || d[n - 1] == '\r'))
        n--;
    int rc = 0;
    if (n == 3 && memcmp(d, "big", 3) == 0)
        c->big_endian = 1;
    else if (!(n == 6 && memcmp(d, "little", 6) == 0))
        rc = err_input(c->path, "byteorder record says neither 'little' nor 'big'");
    free(owned);
    return rc;
}

/* Open the archive, check it is a torch.save file and parse its pickle
 * with the allow-list of `checkpoint`. */
static int archive_open(pt_archive *ar, const char *path, const unsigned char *buf, size_t size, int checkpoint)
{
    memset(ar, 0, sizeof *ar);
    ar->path = path;
    arena_init(&ar->a, 16 * 1024);
    if (zip_open(&ar->z, path, buf, size) != 0)
        return -1;
    /* a checkpoint has an entry per storage: index them (and refuse a name
     * given twice, which would make the storage ambiguous) */
    if (checkpoint && zip_index(&ar->z, ZIP_MAX_ENTRIES, 0, 0) != 0)
        return -1;
    const zip_entry *pe = find_pickle(&ar->z, path);
    if (!pe)
        return -1;
    ar->prefix = xstrndup(pe->name, pe->name_len - 8);
    if (member(&ar->z, ar->prefix, "constants.pkl", 13))
        return err_input(path, "TorchScript archives (torch.jit.save) are not supported; expected a torch.save file");
    pt_ctx c = { path, &ar->z, ar->prefix, 0, NULL, NULL };
    if (read_byteorder(&c) != 0)
        return -1;
    ar->big_endian = c.big_endian;
    const unsigned char *pkl;
    size_t pkl_size;
    if (zip_read(&ar->z, pe, MAX_PICKLE_BYTES, &pkl, &pkl_size, &ar->pkl_owned) != 0)
        return -1;
    char *what = xstrndup(pe->name, pe->name_len);
    pk_global allowed[N_ALLOWED];
    allow_list(allowed, checkpoint);
    int rc = pickle_parse(&ar->a, path, what, pkl, pkl_size, allowed, N_ALLOWED, &ar->root);
    free(what);
    return rc;
}

static void archive_release(pt_archive *ar)
{
    for (size_t i = 0; i < ar->ninflated; i++) {
        free(ar->inflated[i].key);
        free(ar->inflated[i].data);
    }
    free(ar->inflated);
    free(ar->crc_checked);
    arena_free(&ar->a);
    free(ar->pkl_owned);
    free(ar->prefix);
    zip_close(&ar->z);
}

int pt_parse(const char *path, const unsigned char *buf, size_t size, tensor *out)
{
    return pt_parse_flags(path, buf, size, 0, out);
}

int pt_parse_flags(const char *path, const unsigned char *buf, size_t size, unsigned flags, tensor *out)
{
    memset(out, 0, sizeof *out);
    pt_archive ar;
    int rc = archive_open(&ar, path, buf, size, 0);
    if (rc == 0) {
        pt_ctx c = { path, &ar.z, ar.prefix, ar.big_endian, out, NULL };
        rc = rebuild(&c, ar.root, 0);
    }
    if (rc == 0 && !(flags & PT_CRC_LATER)) {
        rc = tensor_crc_check(out, path, NULL, 0);
        out->crc = (tensor_crc){0};
    }
    archive_release(&ar);
    if (rc != 0)
        tensor_free(out);
    return rc;
}

pt_archive *pt_open(const char *path, const unsigned char *buf, size_t size)
{
    pt_archive *ar = xmalloc(sizeof *ar);
    if (archive_open(ar, path, buf, size, 1) != 0) {
        archive_release(ar);
        free(ar);
        return NULL;
    }
    return ar;
}

void pt_close(pt_archive *ar)
{
    if (!ar)
        return;
    archive_release(ar);
    free(ar);
}

const pk_value *pt_root(const pt_archive *ar) { return ar->root; }

int pt_is_tensor(const pk_value *v)
{
    if (!v || v->kind != PK_CALL || !v->u.call.callable || v->u.call.callable->kind != PK_GLOBAL)
        return 0;
    int id = v->u.call.callable->u.global.id;
    return id == G_V1 || id == G_V2 || id == G_V3 || id == G_PARAM || id == G_PARAM_STATE || id == G_FROM_TYPE;
}

int pt_tensor(pt_archive *ar, const pk_value *v, tensor *out)
{
    memset(out, 0, sizeof *out);
    if (!pt_is_tensor(v))
        return err_input(ar->path, "not a tensor");
    pt_ctx c = { ar->path, &ar->z, ar->prefix, ar->big_endian, out, ar };
    int rc = rebuild(&c, v, 0);
    if (rc != 0)
        tensor_free(out);
    return rc;
}

int pt_owns_data(const pt_archive *ar) { return ar->ninflated > 0; }

int pt_global_is(const pk_value *v, const char *module, const char *name)
{
    return v && v->kind == PK_GLOBAL && strcmp(v->u.global.module, module) == 0 && strcmp(v->u.global.name, name) == 0;
}
