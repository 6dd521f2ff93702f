/* Reading TensorBoard event files (tfevents.h). Field numbers are those of
 * tensorflow/core/util/event.proto, summary.proto, tensor.proto and
 * tensor_shape.proto:
 *   Event: 1 wall_time, 2 step, 3 file_version, 5 summary, 7 session_log
 *   SessionLog: 1 status (1 = START)
 *   Summary: 1 value (repeated);  Value: 1 tag, 2 simple_value, 7 node_name,
 *            8 tensor, 9 metadata; 3 4 5 6 (histograms, images, audio) end
 *            the oneof too, and are not scalars
 *   SummaryMetadata: 1 plugin_data { 1 plugin_name }
 *   TensorProto: 1 dtype, 2 tensor_shape { 2 dim { 1 size } }, 4 tensor_content,
 *                5 float_val, 6 double_val, 8 string_val, 13 half_val
 * Fields may come in any order and a oneof's last member wins, as the
 * protobuf runtime decides; repeated numbers may be packed or not. */
#include "format/tfevents.h"
#include "format/protobuf.h"
#include "format/tensor.h"
#include "format/tfrecord.h"
#include "base/err.h"

#include <string.h>

enum { EV_WALL = 1, EV_STEP = 2, EV_SUMMARY = 5, EV_SESSION = 7 };
enum { SUM_VALUE = 1 };
enum { VAL_TAG = 1, VAL_SIMPLE = 2, VAL_NODE = 7, VAL_TENSOR = 8, VAL_META = 9 };
enum { META_PLUGIN = 1, PLUGIN_NAME = 1 };
enum { T_DTYPE = 1, T_SHAPE = 2, T_CONTENT = 4, T_FLOAT = 5, T_DOUBLE = 6, T_STRING = 8, T_HALF = 13 };
enum { SHAPE_DIM = 2, DIM_SIZE = 1 };
enum { SESSION_STATUS = 1, SESSION_START = 1 };

/* Where the reading is, for the message of a malformed event. */
typedef struct {
    const char *path;
    size_t at;
} where;

static int bad(const where *w, const char *what)
{
    return err_input(w->path, "the record at byte %zu is no TensorBoard event: %s", w->at, what);
}

/* The tensor's one element, when it holds exactly one of a floating type
 * (1 with *x), or its first string (2 with *s, *n); 0 otherwise; -1
 * malformed. */
static int tensor_value(const where *w, const uint8_t *data, size_t len, int *dtype, double *x, const char **s,
                        size_t *n)
{
    pb_reader r = pb_reader_of(data, len);
    pb_field f;
    int rc;
    uint64_t count = 1;
    const uint8_t *content = NULL;
    size_t content_len = 0;
    /* the first element of each typed field, when there is one */
    int have_float = 0, have_double = 0, have_half = 0, have_string = 0;
    double fv = 0, dv = 0;
    uint16_t hv = 0;
    *dtype = 0;
    while ((rc = pb_next(&r, &f)) > 0) {
        switch (f.field) {
        case T_DTYPE:
            if (f.wire != PB_VARINT)
                return bad(w, "a tensor's dtype is not a number");
            *dtype = (int)f.u;
            break;
        case T_SHAPE: {
            if (f.wire != PB_LEN)
                return bad(w, "a tensor's shape is not a message");
            pb_reader sr = pb_reader_of(f.data, f.len);
            pb_field d;
            while ((rc = pb_next(&sr, &d)) > 0) {
                if (d.field != SHAPE_DIM)
                    continue;
                if (d.wire != PB_LEN)
                    return bad(w, "a tensor's dimension is not a message");
                pb_reader dr = pb_reader_of(d.data, d.len);
                pb_field z;
                int64_t size = 0;
                while ((rc = pb_next(&dr, &z)) > 0)
                    if (z.field == DIM_SIZE && z.wire == PB_VARINT)
                        size = (int64_t)z.u;
                if (rc < 0)
                    return bad(w, "a tensor's dimension is malformed");
                /* -1 is an unknown size: no scalar */
                count = size < 0 ? 0 : (uint64_t)size > 1 ? 2 : count * (uint64_t)size;
            }
            if (rc < 0)
                return bad(w, "a tensor's shape is malformed");
            break;
        }
        case T_CONTENT:
            if (f.wire != PB_LEN)
                return bad(w, "a tensor's content is not bytes");
            content = f.data;
            content_len = f.len;
            break;
        case T_FLOAT:
            if (f.wire == PB_LEN && f.len >= 4 && !have_float) {
                pb_field one = {.u = pb_get_le(f.data, 4)};
                fv = pb_as_float(&one), have_float = 1;
            } else if (f.wire == PB_FIXED32 && !have_float) {
                fv = pb_as_float(&f), have_float = 1;
            } else if (f.wire != PB_LEN && f.wire != PB_FIXED32) {
                return bad(w, "a tensor's float_val is malformed");
            }
            break;
        case T_DOUBLE:
            if (f.wire == PB_LEN && f.len >= 8 && !have_double) {
                pb_field one = {.u = pb_get_le(f.data, 8)};
                dv = pb_as_double(&one), have_double = 1;
            } else if (f.wire == PB_FIXED64 && !have_double) {
                dv = pb_as_double(&f), have_double = 1;
            } else if (f.wire != PB_LEN && f.wire != PB_FIXED64) {
                return bad(w, "a tensor's double_val is malformed");
            }
            break;
        case T_HALF:
            if (f.wire == PB_LEN && !have_half) {
                const uint8_t *p = f.data;
                uint64_t v;
                if (f.len && !pb_get_varint(&p, f.data + f.len, &v))
                    return bad(w, "a tensor's half_val is malformed");
                if (f.len)
                    hv = (uint16_t)v, have_half = 1;
            } else if (f.wire == PB_VARINT && !have_half) {
                hv = (uint16_t)f.u, have_half = 1;
            } else if (f.wire != PB_LEN && f.wire != PB_VARINT) {
                return bad(w, "a tensor's half_val is malformed");
            }
            break;
        case T_STRING:
            if (f.wire != PB_LEN)
                return bad(w, "a tensor's string_val is not bytes");
            if (!have_string)
                *s = (const char *)f.data, *n = f.len, have_string = 1;
            break;
        default:
            break;
        }
    }
    if (rc < 0)
        return bad(w, "a tensor is malformed");
    if (*dtype == TF_DT_STRING)
        return have_string ? 2 : 0;
    if (count != 1)
        return 0;
    switch (*dtype) {
    case TF_DT_FLOAT:
        if (content && content_len == 4) {
            pb_field one = {.u = pb_get_le(content, 4)};
            *x = pb_as_float(&one);
            return 1;
        }
        *x = fv;
        return have_float;
    case TF_DT_DOUBLE:
        if (content && content_len == 8) {
            pb_field one = {.u = pb_get_le(content, 8)};
            *x = pb_as_double(&one);
            return 1;
        }
        *x = dv;
        return have_double;
    case TF_DT_HALF:
    case TF_DT_BFLOAT16:
        if (content && content_len == 2)
            hv = (uint16_t)pb_get_le(content, 2), have_half = 1;
        *x = *dtype == TF_DT_HALF ? f16_to_f64(hv) : bf16_to_f64(hv);
        return have_half;
    default:
        return 0;
    }
}

static int plugin_name(const where *w, const uint8_t *data, size_t len, const char **name, size_t *n)
{
    pb_reader r = pb_reader_of(data, len);
    pb_field f;
    int rc;
    *name = "";
    *n = 0;
    while ((rc = pb_next(&r, &f)) > 0) {
        if (f.field != META_PLUGIN || f.wire != PB_LEN)
            continue;
        pb_reader pr = pb_reader_of(f.data, f.len);
        pb_field g;
        while ((rc = pb_next(&pr, &g)) > 0)
            if (g.field == PLUGIN_NAME && g.wire == PB_LEN)
                *name = (const char *)g.data, *n = g.len;
        if (rc < 0)
            break;
    }
    return rc < 0 ? bad(w, "a value's metadata is malformed") : 0;
}

/* One Summary.Value. */
static int summary_value(const where *w, const uint8_t *data, size_t len, tfevents_value *v, const tfevents_sink *sink,
                         tfevents_stats *st)
{
    pb_reader r = pb_reader_of(data, len);
    pb_field f;
    int rc;
    const uint8_t *tdata = NULL;
    size_t tensor_len = 0;
    const char *node = NULL;
    size_t node_len = 0;
    int oneof = 0;   /* the last member of the oneof seen */
    float simple = 0;
    v->tag = "";
    v->taglen = 0;
    v->plugin = NULL;
    v->pluginlen = 0;
    while ((rc = pb_next(&r, &f)) > 0) {
        switch (f.field) {
        case VAL_TAG:
            if (f.wire != PB_LEN)
                return bad(w, "a value's tag is not a string");
            v->tag = (const char *)f.data;
            v->taglen = f.len;
            break;
        case VAL_NODE:
            if (f.wire != PB_LEN)
                return bad(w, "a value's node_name is not a string");
            node = (const char *)f.data;
            node_len = f.len;
            break;
        case VAL_SIMPLE:
            if (f.wire != PB_FIXED32)
                return bad(w, "a simple_value is not a float");
            simple = pb_as_float(&f);
            oneof = VAL_SIMPLE;
            break;
        case VAL_TENSOR:
            if (f.wire != PB_LEN)
                return bad(w, "a value's tensor is not a message");
            tdata = f.data;
            tensor_len = f.len;
            oneof = VAL_TENSOR;
            break;
        case VAL_META:
            if (f.wire != PB_LEN)
                return bad(w, "a value's metadata is not a message");
            if (plugin_name(w, f.data, f.len, &v->plugin, &v->pluginlen) != 0)
                return -1;
            break;
        case 3: case 4: case 5: case 6:   /* histograms, images, audio */
            oneof = (int)f.field;
            break;
        default:
            break;
        }
    }
    if (rc < 0)
        return bad(w, "a summary value is malformed");
    if (oneof == VAL_SIMPLE) {
        v->kind = TFEV_SIMPLE;
        v->dtype = TF_DT_FLOAT;
        v->value = simple;
        st->scalars++;
        return sink->scalar(sink->ctx, v);
    }
    if (oneof != VAL_TENSOR)
        return 0;
    if (!v->taglen && node)
        v->tag = node, v->taglen = node_len;
    int got = tensor_value(w, tdata, tensor_len, &v->dtype, &v->value, &v->text, &v->textlen);
    if (got < 0)
        return -1;
    if (got == 1) {
        v->kind = TFEV_TENSOR;
        st->scalars++;
        return sink->scalar(sink->ctx, v);
    }
    if (got == 2) {
        st->texts++;
        return sink->text ? sink->text(sink->ctx, v) : 0;
    }
    return 0;
}

static int event(const where *w, const uint8_t *data, size_t len, const tfevents_sink *sink, tfevents_stats *st)
{
    pb_reader r = pb_reader_of(data, len);
    pb_field f;
    int rc;
    tfevents_value v;
    memset(&v, 0, sizeof v);
    const uint8_t *summary = NULL;
    size_t summary_len = 0;
    int start = 0;
    while ((rc = pb_next(&r, &f)) > 0) {
        switch (f.field) {
        case EV_WALL:
            if (f.wire != PB_FIXED64)
                return bad(w, "wall_time is not a double");
            v.wall_time = pb_as_double(&f);
            break;
        case EV_STEP:
            if (f.wire != PB_VARINT)
                return bad(w, "step is not a number");
            v.step = (int64_t)f.u;
            break;
        case EV_SUMMARY:
            if (f.wire != PB_LEN)
                return bad(w, "summary is not a message");
            summary = f.data;
            summary_len = f.len;
            start = 0;
            break;
        case EV_SESSION: {
            if (f.wire != PB_LEN)
                return bad(w, "session_log is not a message");
            pb_reader sr = pb_reader_of(f.data, f.len);
            pb_field g;
            start = 0;
            while ((rc = pb_next(&sr, &g)) > 0)
                if (g.field == SESSION_STATUS && g.wire == PB_VARINT)
                    start = g.u == SESSION_START;
            if (rc < 0)
                return bad(w, "session_log is malformed");
            summary = NULL;
            break;
        }
        default:
            break;
        }
    }
    if (rc < 0)
        return bad(w, "malformed protocol buffer");
    if (start)
        return sink->restart ? sink->restart(sink->ctx, v.step) : 0;
    if (!summary)
        return 0;
    pb_reader sr = pb_reader_of(summary, summary_len);
    while ((rc = pb_next(&sr, &f)) > 0) {
        if (f.field != SUM_VALUE)
            continue;
        if (f.wire != PB_LEN)
            return bad(w, "a summary value is not a message");
        int k = summary_value(w, f.data, f.len, &v, sink, st);
        if (k != 0)
            return k;
    }
    return rc < 0 ? bad(w, "the summary is malformed") : 0;
}

int tfevents_read(const char *path, const void *data, size_t size, const tfevents_sink *sink, tfevents_stats *st)
{
    memset(st, 0, sizeof *st);
    tfrecord_reader rd;
    tfrecord_reader_init(&rd, path, data, size);
    where w = {path, 0};
    size_t next_progress = TFEVENTS_PROGRESS;
    for (;;) {
        const uint8_t *rec;
        size_t len;
        int k = tfrecord_next(&rd, &rec, &len, &w.at);
        if (k == TFRECORD_END)
            return 0;
        if (k == TFRECORD_TRUNCATED) {
            st->truncated = 1;
            st->truncated_at = w.at;
            return 0;
        }
        if (k < 0)
            return -1;
        st->records++;
        int rc = event(&w, rec, len, sink, st);
        if (rc != 0)
            return rc;
        if (sink->progress && rd.pos >= next_progress) {
            sink->progress(sink->ctx, rd.pos);
            next_progress = rd.pos + TFEVENTS_PROGRESS;
        }
    }
}
