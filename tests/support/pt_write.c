#include "pt_write.h"
#include "format/zip_write.h"
#include "base/files.h"
#include "base/le.h"
#include "base/err.h"
#include "format/pt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void pk_int(strbuf *sb, int64_t v)
{
    if (v >= 0 && v < 256) {
        sb_addc(sb, 'K');
        sb_addc(sb, (char)v);
    } else if (v >= 0 && v < 65536) {
        sb_addc(sb, 'M');
        sb_addc(sb, (char)(v & 0xff));
        sb_addc(sb, (char)(v >> 8));
    } else {
        sb_addc(sb, (char)0x8a);
        sb_addc(sb, 8);
        for (int i = 0; i < 8; i++)
            sb_addc(sb, (char)((uint64_t)v >> (8 * i)));
    }
}

static void pk_text(strbuf *sb, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    sb_addc(sb, 'X');
    for (int i = 0; i < 4; i++)
        sb_addc(sb, (char)(n >> (8 * i)));
    sb_add(sb, s, n);
}

static void pk_ints(strbuf *sb, int n, const int64_t *v)
{
    sb_addc(sb, '(');
    for (int i = 0; i < n; i++)
        pk_int(sb, v[i]);
    sb_addc(sb, 't');
}

static void tensor_pickle(strbuf *sb, const pt_layout *l, const int64_t *stride)
{
    const char *cls = pt_storage_class(l->dtype);
    size_t es = dtype_size(l->dtype);
    sb_add(sb, "\x80\x02", 2);
    sb_adds(sb, cls ? "ctorch._utils\n_rebuild_tensor_v2\n" : "ctorch._utils\n_rebuild_tensor_v3\n");
    sb_adds(sb, "((");
    pk_text(sb, "storage");
    sb_addf(sb, "ctorch\n%s\n", cls ? cls : "UntypedStorage");
    pk_text(sb, "0");
    pk_text(sb, "cpu");
    pk_int(sb, (int64_t)(cls ? l->storage_numel : l->storage_numel * es));
    sb_adds(sb, "tQ");
    pk_int(sb, l->offset);
    pk_ints(sb, l->ndim, l->shape);
    pk_ints(sb, l->ndim, stride);
    sb_addc(sb, (char)0x89);
    sb_adds(sb, "ccollections\nOrderedDict\n)R");
    if (!cls)
        sb_addf(sb, "ctorch\n%s\n", dtype_name(l->dtype));
    sb_adds(sb, "tR.");
}

static int write_archive(zip_writer *w, const pt_layout *l)
{
    int64_t stride[TENSOR_MAX_DIMS];
    tensor shape = { .dtype = l->dtype };
    if (tensor_set_shape(&shape, NULL, l->ndim, l->shape, 0) != 0)
        return -1;
    memcpy(stride, l->stride ? l->stride : shape.stride, (size_t)l->ndim * sizeof *stride);
    const char *prefix = l->prefix ? l->prefix : "archive";
    strbuf pkl = STRBUF_INIT, name = STRBUF_INIT;
    tensor_pickle(&pkl, l, stride);
    int method = l->deflate ? 8 : 0;
    w->align = 64;
    w->force_zip64 = l->zip64;
    sb_addf(&name, "%s/data.pkl", prefix);
    int rc = zip_writer_add(w, name.buf, pkl.buf, pkl.len, method);
    sb_reset(&name);
    sb_addf(&name, "%s/data/0", prefix);
    if (rc == 0)
        rc = zip_writer_add(w, name.buf, l->storage, l->storage_numel * dtype_size(l->dtype), method);
    sb_reset(&name);
    sb_addf(&name, "%s/version", prefix);
    if (rc == 0)
        rc = zip_writer_add(w, name.buf, "3\n", 2, 0);
    sb_reset(&name);
    sb_addf(&name, "%s/byteorder", prefix);
    const char *order = l->big_endian ? "big" : "little";
    if (rc == 0)
        rc = zip_writer_add(w, name.buf, order, strlen(order), 0);
    if (rc == 0)
        rc = zip_writer_finish(w);
    zip_writer_free(w);
    sb_free(&pkl);
    sb_free(&name);
    return rc;
}

int pt_build(strbuf *out, const pt_layout *layout)
{
    zip_writer w;
    zip_writer_init(&w, zip_sink_strbuf, out);
    return write_archive(&w, layout);
}

int pt_save(const char *path, dtype_id dt, int ndim, const int64_t *shape, const void *data)
{
    tensor shape_check = { .dtype = dt };
    if (tensor_set_shape(&shape_check, path, ndim, shape, 0) != 0)
        return -1;
    char *base = path_basename(path);
    char *dot = strrchr(base, '.');
    if (dot && dot != base)
        *dot = 0;
    pt_layout l = { .dtype = dt, .ndim = ndim, .shape = shape, .storage = data,
                    .storage_numel = shape_check.numel, .prefix = base, .big_endian = HOST_BIG_ENDIAN };
    char *tmp = out_tmp_create(path);
    if (!tmp) {
        free(base);
        return -1;
    }
    FILE *f = fopen(tmp, "wb");
    int rc = -1;
    if (f) {
        zip_writer w;
        zip_writer_init(&w, zip_sink_stdio, f);
        rc = write_archive(&w, &l);
        if (fclose(f) != 0)
            rc = -1;
    }
    int e = errno;
    free(base);
    if (rc != 0) {
        out_tmp_discard(tmp);
        return err_input(path, "cannot write: %s", strerror(e));
    }
    return out_tmp_commit(tmp, path);
}
