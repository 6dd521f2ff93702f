#include "npy_write.h"
#include "base/files.h"
#include "base/le.h"
#include "base/err.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *descr_code(dtype_id dt)
{
    switch (dt) {
    case DT_BOOL: return "b1";
    case DT_I8: return "i1";
    case DT_U8: return "u1";
    case DT_I16: return "i2";
    case DT_U16: return "u2";
    case DT_I32: return "i4";
    case DT_U32: return "u4";
    case DT_I64: return "i8";
    case DT_U64: return "u8";
    case DT_F16: return "f2";
    case DT_F32: return "f4";
    case DT_F64: return "f8";
    case DT_C64: return "c8";
    case DT_C128: return "c16";
    default: return NULL;
    }
}

int npy_header(strbuf *sb, dtype_id dt, int big_endian, int fortran, int ndim, const int64_t *shape)
{
    const char *code = descr_code(dt);
    if (!code)
        return err_input(NULL, "%s has no .npy dtype", dtype_name(dt));
    char order = dtype_size(dt) == 1 ? '|' : big_endian ? '>' : '<';
    strbuf h = STRBUF_INIT;
    sb_addf(&h, "{'descr': '%c%s', 'fortran_order': %s, 'shape': (", order, code, fortran ? "True" : "False");
    for (int d = 0; d < ndim; d++)
        sb_addf(&h, d ? ", %lld" : "%lld", (long long)shape[d]);
    sb_adds(&h, ndim == 1 ? ",), }" : "), }");
    size_t pre = 10;
    if ((h.len + 1 + pre + 63) / 64 * 64 - pre > 65535)
        pre = 12;
    size_t total = (pre + h.len + 1 + 63) / 64 * 64;
    while (pre + h.len + 1 < total)
        sb_addc(&h, ' ');
    sb_addc(&h, '\n');
    size_t hl = h.len;
    unsigned char head[12] = { 0x93, 'N', 'U', 'M', 'P', 'Y', pre == 10 ? 1 : 2, 0,
                               (unsigned char)hl, (unsigned char)(hl >> 8), (unsigned char)(hl >> 16),
                               (unsigned char)(hl >> 24) };
    sb_add(sb, head, pre);
    sb_add(sb, h.buf, h.len);
    sb_free(&h);
    return 0;
}

int npy_save(const char *path, dtype_id dt, int ndim, const int64_t *shape, const void *data)
{
    tensor shape_check = { .dtype = dt };
    if (tensor_set_shape(&shape_check, path, ndim, shape, 0) != 0)
        return -1;
    strbuf sb = STRBUF_INIT;
    if (npy_header(&sb, dt, HOST_BIG_ENDIAN, 0, ndim, shape) != 0)
        return -1;
    char *tmp = out_tmp_create(path);
    if (!tmp) {
        sb_free(&sb);
        return -1;
    }
    FILE *f = fopen(tmp, "wb");
    size_t bytes = shape_check.numel * dtype_size(dt);
    int ok = f && fwrite(sb.buf, 1, sb.len, f) == sb.len && (bytes == 0 || fwrite(data, 1, bytes, f) == bytes);
    int e = errno;
    if (f && fclose(f) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    sb_free(&sb);
    if (!ok) {
        out_tmp_discard(tmp);
        return err_input(path, "cannot write: %s", strerror(e));
    }
    return out_tmp_commit(tmp, path);
}
