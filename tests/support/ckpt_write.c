#include "ckpt_write.h"
#include "pt_write.h"
#include "base/err.h"
#include "base/files.h"
#include "base/le.h"
#include "base/mem.h"
#include "format/pt.h"
#include "format/zip_write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- pickle ---------------------------------------------------------------- */

void pkw_begin(pkw *w)
{
    memset(w, 0, sizeof *w);
    sb_add(&w->sb, "\x80\x02", 2);
}

void pkw_end(pkw *w) { sb_addc(&w->sb, '.'); }
void pkw_op(pkw *w, char op) { sb_addc(&w->sb, op); }
void pkw_raw(pkw *w, const void *p, size_t n) { sb_add(&w->sb, p, n); }
void pkw_none(pkw *w) { sb_addc(&w->sb, 'N'); }
void pkw_bool(pkw *w, int b) { sb_addc(&w->sb, (char)(b ? 0x88 : 0x89)); }

void pkw_int(pkw *w, int64_t v)
{
    if (v >= 0 && v < 256) {
        sb_addc(&w->sb, 'K');
        sb_addc(&w->sb, (char)v);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        sb_addc(&w->sb, 'J');
        for (int i = 0; i < 4; i++)
            sb_addc(&w->sb, (char)((uint32_t)v >> (8 * i)));
    } else {
        sb_addc(&w->sb, (char)0x8a);
        sb_addc(&w->sb, 8);
        for (int i = 0; i < 8; i++)
            sb_addc(&w->sb, (char)((uint64_t)v >> (8 * i)));
    }
}

void pkw_float(pkw *w, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    sb_addc(&w->sb, 'G');
    for (int i = 7; i >= 0; i--)
        sb_addc(&w->sb, (char)(u >> (8 * i)));
}

void pkw_str(pkw *w, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    sb_addc(&w->sb, 'X');
    for (int i = 0; i < 4; i++)
        sb_addc(&w->sb, (char)(n >> (8 * i)));
    sb_add(&w->sb, s, n);
}

void pkw_global(pkw *w, const char *module, const char *name) { sb_addf(&w->sb, "c%s\n%s\n", module, name); }

void pkw_odict(pkw *w)
{
    pkw_global(w, "collections", "OrderedDict");
    sb_adds(&w->sb, ")R(");
}

void pkw_size(pkw *w, int ndim, const int64_t *dims)
{
    pkw_global(w, "torch", "Size");
    sb_adds(&w->sb, "((");
    for (int d = 0; d < ndim; d++)
        pkw_int(w, dims[d]);
    sb_adds(&w->sb, "ttR");
}

void pkw_tensor(pkw *w, dtype_id dt, const char *key, int64_t storage_numel, int64_t offset, int ndim,
                const int64_t *shape, const int64_t *stride)
{
    pkw_global(w, "torch._utils", "_rebuild_tensor_v2");
    sb_adds(&w->sb, "((");
    pkw_str(w, "storage");
    pkw_global(w, "torch", pt_storage_class(dt));
    pkw_str(w, key);
    pkw_str(w, "cpu");
    pkw_int(w, storage_numel);
    sb_adds(&w->sb, "tQ");
    pkw_int(w, offset);
    sb_addc(&w->sb, '(');
    for (int d = 0; d < ndim; d++)
        pkw_int(w, shape[d]);
    sb_adds(&w->sb, "t(");
    for (int d = 0; d < ndim; d++)
        pkw_int(w, stride[d]);
    sb_addc(&w->sb, 't');
    pkw_bool(w, 0);
    pkw_global(w, "collections", "OrderedDict");
    sb_adds(&w->sb, ")RtR");
}

void pkw_object(pkw *w, const char *module, const char *name)
{
    pkw_global(w, module, name);
    sb_adds(&w->sb, ")\x81}(");
}

/* ---- torch.save archives --------------------------------------------------------- */

struct ptw {
    char *path, *tmp, *prefix;
    FILE *f;
    zip_writer z;
    int next;
};

ptw *ptw_open(const char *path, const char *prefix)
{
    ptw *w = xcalloc(1, sizeof *w);
    w->path = xstrdup(path);
    w->prefix = xstrdup(prefix);
    w->tmp = out_tmp_create(path);
    if (!w->tmp || !(w->f = fopen(w->tmp, "wb"))) {
        if (w->tmp)
            out_tmp_discard(w->tmp);
        free(w->path);
        free(w->prefix);
        free(w);
        return NULL;
    }
    zip_writer_init(&w->z, zip_sink_stdio, w->f);
    w->z.align = 64;
    return w;
}

int ptw_storage(ptw *w, const void *data, size_t bytes, char key[24])
{
    snprintf(key, 24, "%d", w->next++);
    char name[256];
    snprintf(name, sizeof name, "%s/data/%s", w->prefix, key);
    return zip_writer_add(&w->z, name, data, bytes, 0);
}

void ptw_abort(ptw *w)
{
    if (!w)
        return;
    zip_writer_free(&w->z);
    fclose(w->f);
    out_tmp_discard(w->tmp);
    free(w->path);
    free(w->prefix);
    free(w);
}

int ptw_close(ptw *w, const strbuf *pickle)
{
    char name[256];
    snprintf(name, sizeof name, "%s/data.pkl", w->prefix);
    int rc = zip_writer_add(&w->z, name, pickle->buf, pickle->len, 0);
    snprintf(name, sizeof name, "%s/version", w->prefix);
    if (rc == 0)
        rc = zip_writer_add(&w->z, name, "3\n", 2, 0);
    snprintf(name, sizeof name, "%s/byteorder", w->prefix);
    if (rc == 0)
        rc = zip_writer_add(&w->z, name, "little", 6, 0);
    if (rc == 0)
        rc = zip_writer_finish(&w->z);
    zip_writer_free(&w->z);
    if (fclose(w->f) != 0)
        rc = -1;
    if (rc == 0)
        rc = out_tmp_commit(w->tmp, w->path);
    else
        out_tmp_discard(w->tmp);
    free(w->path);
    free(w->prefix);
    free(w);
    return rc;
}

/* ---- Megatron ------------------------------------------------------------------- */

static void row_major(int ndim, const int64_t *shape, int64_t *stride, int64_t *numel)
{
    int64_t s = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        stride[d] = s;
        s *= shape[d];
    }
    *numel = s;
}

static void args_namespace(pkw *w, const ckw_args *a)
{
    pkw_global(w, "argparse", "Namespace");
    sb_adds(&w->sb, ")\x81}(");
    pkw_str(w, "num_layers");
    pkw_int(w, 2);
    pkw_str(w, "tensor_model_parallel_size");
    pkw_int(w, a->tp);
    pkw_str(w, "pipeline_model_parallel_size");
    pkw_int(w, a->pp);
    pkw_str(w, "virtual_pipeline_model_parallel_size");
    if (a->vpp)
        pkw_int(w, a->vpp);
    else
        pkw_none(w);
    pkw_str(w, "expert_model_parallel_size");
    pkw_int(w, a->ep);
    pkw_str(w, "num_experts");
    if (a->num_experts)
        pkw_int(w, a->num_experts);
    else
        pkw_none(w);
    pkw_str(w, "params_dtype");
    pkw_global(w, "torch", "bfloat16");
    pkw_str(w, "model_type");
    pkw_global(w, "megatron.core.enums", "ModelType");
    sb_adds(&w->sb, "(K\x01tR");
    pkw_str(w, "lr");
    pkw_float(w, 1e-4);
    pkw_str(w, "data_path");
    sb_addc(&w->sb, ']');
    pkw_str(w, "data/x");
    sb_addc(&w->sb, 'a');
    pkw_str(w, "save");
    pkw_str(w, "./ckpt");
    sb_adds(&w->sb, "ub");
}

/* np.random.get_state(): ('MT19937', uint32 array, pos, has_gauss, cached) */
static void numpy_state(pkw *w)
{
    sb_addc(&w->sb, '(');
    pkw_str(w, "MT19937");
    /* _reconstruct(ndarray, (0,), b'b') with state (1, (4,), dtype('u4'), False, data) */
    pkw_global(w, "numpy.core.multiarray", "_reconstruct");
    pkw_global(w, "numpy", "ndarray");
    sb_add(&w->sb, "K\x00\x85" "C\x01" "b\x87R", 8);
    sb_add(&w->sb, "(K\x01K\x04\x85", 6);
    pkw_global(w, "numpy", "dtype");
    pkw_str(w, "u4");
    sb_add(&w->sb, "\x89\x88\x87R(K\x03", 7);
    pkw_str(w, "<");
    sb_add(&w->sb, "NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb\x89" "C\x10", 20);
    sb_add(&w->sb, "0123456789abcdef", 16);
    sb_adds(&w->sb, "tb");
    pkw_int(w, 624);
    pkw_int(w, 0);
    pkw_float(w, 0.0);
    sb_addc(&w->sb, 't');
}

int ckw_megatron_rank(const char *path, const ckw_args *a, const ckw_tensor *t, const int *stage, size_t n)
{
    return ckw_megatron_rank_fill(path, a, t, stage, n, NULL, NULL);
}

int ckw_megatron_rank_fill(const char *path, const ckw_args *a, const ckw_tensor *t, const int *stage, size_t n,
                           ckw_fill fill, void *ctx)
{
    ptw *z = ptw_open(path, "model_optim_rng");
    if (!z)
        return -1;
    pkw w;
    pkw_begin(&w);
    sb_adds(&w.sb, "}(");
    pkw_str(&w, "args");
    args_namespace(&w, a);
    pkw_str(&w, "checkpoint_version");
    pkw_float(&w, 3.0);
    pkw_str(&w, "iteration");
    pkw_int(&w, a->iteration);
    int stages = a->vpp > 0 ? a->vpp : 1;
    int rc = 0;
    for (int v = 0; v < stages && rc == 0; v++) {
        char key[32];
        if (a->vpp > 0)
            snprintf(key, sizeof key, "model%d", v);
        else
            snprintf(key, sizeof key, "model");
        pkw_str(&w, key);
        pkw_odict(&w);
        for (size_t i = 0; i < n && rc == 0; i++) {
            if (a->vpp > 0 && stage[i] != v)
                continue;
            int64_t stride[4], numel;
            row_major(t[i].ndim, t[i].shape, stride, &numel);
            char sk[24];
            size_t bytes = (size_t)numel * dtype_size(t[i].dtype);
            void *buf = NULL;
            const void *data = t[i].data;
            if (!data) {
                buf = xmalloc(bytes ? bytes : 1);
                fill(ctx, i, buf);
                data = buf;
            }
            rc = ptw_storage(z, data, bytes, sk);
            free(buf);
            pkw_str(&w, t[i].name);
            pkw_tensor(&w, t[i].dtype, sk, numel, 0, t[i].ndim, t[i].shape, stride);
        }
        /* TransformerEngine's extra states: a BytesIO and a None */
        pkw_str(&w, "decoder.layers.0.self_attention.linear_qkv._extra_state");
        pkw_global(&w, "_io", "BytesIO");
        sb_adds(&w.sb, ")\x81(");
        pkw_global(&w, "__builtin__", "bytes");
        sb_add(&w.sb, ")RK\x00Nt", 6);
        sb_addc(&w.sb, 'b');
        pkw_str(&w, "decoder.layers.0.self_attention.core_attention._extra_state");
        pkw_none(&w);
        sb_addc(&w.sb, 'u');
        /* the state dict's _metadata attribute */
        sb_adds(&w.sb, "}(");
        pkw_str(&w, "_metadata");
        pkw_odict(&w);
        pkw_str(&w, "");
        sb_adds(&w.sb, "}(");
        pkw_str(&w, "version");
        pkw_int(&w, 1);
        sb_adds(&w.sb, "uuub");
    }
    pkw_str(&w, "optimizer");
    sb_adds(&w.sb, "}(");
    pkw_str(&w, "optimizer");
    sb_adds(&w.sb, "}(");
    pkw_str(&w, "state");
    sb_addc(&w.sb, '}');
    pkw_str(&w, "param_groups");
    sb_adds(&w.sb, "](}(");
    pkw_str(&w, "lr");
    pkw_float(&w, 1e-4);
    pkw_str(&w, "params");
    sb_add(&w.sb, "](K\x00K\x01" "eueu", 10);
    pkw_str(&w, "grad_scaler");
    pkw_none(&w);
    sb_addc(&w.sb, 'u');
    pkw_str(&w, "rng_state");
    sb_adds(&w.sb, "](}(");
    pkw_str(&w, "np_rng_state");
    numpy_state(&w);
    pkw_str(&w, "torch_rng_state");
    uint8_t rng[16] = {1, 2, 3};
    char sk[24];
    if (rc == 0)
        rc = ptw_storage(z, rng, sizeof rng, sk);
    int64_t sh = 16, st = 1;
    pkw_tensor(&w, DT_U8, sk, 16, 0, 1, &sh, &st);
    sb_adds(&w.sb, "ueu");
    pkw_end(&w);
    if (rc == 0)
        rc = ptw_close(z, &w.sb);
    else
        ptw_abort(z);
    sb_free(&w.sb);
    return rc;
}

/* ---- torch_dist ----------------------------------------------------------------- */

static void props(pkw *w, dtype_id dt)
{
    pkw_global(w, "torch.distributed._shard.sharded_tensor.metadata", "TensorProperties");
    sb_adds(&w->sb, ")\x81(");
    pkw_global(w, "torch", dtype_name(dt));
    pkw_global(w, "torch", "strided");
    pkw_bool(w, 0);
    pkw_global(w, "torch.distributed._shard.sharded_tensor.metadata", "MEM_FORMAT_ENCODING");
    sb_add(&w->sb, "(K\x00tR", 5);
    pkw_bool(w, 0);
    sb_adds(&w->sb, "tb");
}

int dcpw_write(const char *dir, const dcpw_tensor *t, size_t n)
{
    if (dir_create(dir) != 0)
        return -1;
    strbuf data = STRBUF_INIT;
    uint64_t (*where)[8][2] = xcalloc(n ? n : 1, sizeof *where);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        for (int c = 0; c < t[i].nchunks && rc == 0; c++) {
            int64_t numel = 1;
            for (int d = 0; d < t[i].ndim; d++)
                numel *= t[i].sizes[c][d];
            pt_layout l = {.dtype = t[i].dtype, .ndim = t[i].ndim, .shape = t[i].sizes[c], .storage = t[i].data[c],
                           .storage_numel = (size_t)numel, .prefix = "archive"};
            where[i][c][0] = data.len;
            rc = pt_build(&data, &l);
            where[i][c][1] = data.len - where[i][c][0];
        }
    char *file = path_join(dir, "__0_0.distcp");
    if (rc == 0)
        rc = file_write_atomic(file, data.buf, data.len);
    free(file);
    pkw w;
    pkw_begin(&w);
    pkw_object(&w, "torch.distributed.checkpoint.metadata", "Metadata");
    pkw_str(&w, "state_dict_metadata");
    sb_adds(&w.sb, "}(");
    for (size_t i = 0; i < n; i++) {
        pkw_str(&w, t[i].fqn);
        pkw_object(&w, "torch.distributed.checkpoint.metadata", "TensorStorageMetadata");
        pkw_str(&w, "properties");
        props(&w, t[i].dtype);
        pkw_str(&w, "size");
        pkw_size(&w, t[i].ndim, t[i].size);
        pkw_str(&w, "chunks");
        sb_adds(&w.sb, "](");
        for (int c = 0; c < t[i].nchunks; c++) {
            pkw_object(&w, "torch.distributed.checkpoint.metadata", "ChunkStorageMetadata");
            pkw_str(&w, "offsets");
            pkw_size(&w, t[i].ndim, t[i].offsets[c]);
            pkw_str(&w, "sizes");
            pkw_size(&w, t[i].ndim, t[i].sizes[c]);
            sb_adds(&w.sb, "ub");
        }
        sb_adds(&w.sb, "eub");
    }
    /* a Megatron ShardedObject: bytes, not compared */
    pkw_str(&w, "decoder.layers.self_attention.linear_qkv._extra_state/shard_0_1");
    pkw_object(&w, "torch.distributed.checkpoint.metadata", "BytesStorageMetadata");
    sb_adds(&w.sb, "ub");
    sb_addc(&w.sb, 'u');
    pkw_str(&w, "planner_data");
    pkw_none(&w);
    pkw_str(&w, "storage_data");
    sb_adds(&w.sb, "}(");
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < t[i].nchunks; c++) {
            pkw_object(&w, "torch.distributed.checkpoint.metadata", "MetadataIndex");
            pkw_str(&w, "fqn");
            pkw_str(&w, t[i].fqn);
            pkw_str(&w, "offset");
            pkw_size(&w, t[i].ndim, t[i].offsets[c]);
            pkw_str(&w, "index");
            pkw_int(&w, c);
            sb_adds(&w.sb, "ub");
            pkw_object(&w, "torch.distributed.checkpoint.filesystem", "_StorageInfo");
            pkw_str(&w, "relative_path");
            pkw_str(&w, "__0_0.distcp");
            pkw_str(&w, "offset");
            pkw_int(&w, (int64_t)where[i][c][0]);
            pkw_str(&w, "length");
            pkw_int(&w, (int64_t)where[i][c][1]);
            sb_adds(&w.sb, "ub");
        }
    sb_adds(&w.sb, "uub");
    pkw_end(&w);
    char *meta = path_join(dir, ".metadata");
    if (rc == 0)
        rc = file_write_atomic(meta, w.sb.buf, w.sb.len);
    free(meta);
    sb_free(&w.sb);
    sb_free(&data);
    free(where);
    return rc;
}

/* ---- safetensors ------------------------------------------------------------------ */

static const char *st_dtype(dtype_id dt)
{
    switch (dt) {
    case DT_F32: return "F32";
    case DT_BF16: return "BF16";
    case DT_F16: return "F16";
    case DT_F64: return "F64";
    case DT_I64: return "I64";
    case DT_I32: return "I32";
    case DT_U8: return "U8";
    case DT_BOOL: return "BOOL";
    default: return "I8";
    }
}

int stw_write(const char *path, const ckw_tensor *t, size_t n)
{
    strbuf h = STRBUF_INIT;
    sb_adds(&h, "{\"__metadata__\":{\"format\":\"pt\"}");
    uint64_t off = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t numel = 1;
        for (int d = 0; d < t[i].ndim; d++)
            numel *= t[i].shape[d];
        uint64_t bytes = (uint64_t)numel * dtype_size(t[i].dtype);
        sb_addf(&h, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[", t[i].name, st_dtype(t[i].dtype));
        for (int d = 0; d < t[i].ndim; d++)
            sb_addf(&h, "%s%lld", d ? "," : "", (long long)t[i].shape[d]);
        sb_addf(&h, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)off, (unsigned long long)(off + bytes));
        off += bytes;
    }
    sb_addc(&h, '}');
    while (h.len % 8)
        sb_addc(&h, ' ');
    unsigned char len[8];
    le_put64(len, h.len);
    const void **parts = xmalloc_array(n + 2, sizeof *parts);
    size_t *lens = xmalloc_array(n + 2, sizeof *lens);
    parts[0] = len;
    lens[0] = 8;
    parts[1] = h.buf;
    lens[1] = h.len;
    for (size_t i = 0; i < n; i++) {
        int64_t numel = 1;
        for (int d = 0; d < t[i].ndim; d++)
            numel *= t[i].shape[d];
        parts[2 + i] = t[i].data;
        lens[2 + i] = (size_t)numel * dtype_size(t[i].dtype);
    }
    int rc = file_write_atomic_parts(path, parts, lens, (int)n + 2);
    free(parts);
    free(lens);
    sb_free(&h);
    return rc;
}
