/* TensorBoard event files: CRC-32C (the standard test vectors, the table
 * and the CPU instruction agreeing), TFRecord framing, and the Event
 * protobufs byte for byte against the reference records of
 * spec/analyzers.md §E.6 (computed with TensorBoard's own rules), then a
 * whole file written and read back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "format/crc32c.h"
#include "format/protobuf.h"
#include "format/tfevents.h"
#include "format/tfrecord.h"
#include "base/err.h"
#include "base/log.h"
#include "testutil.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void test_crc32c_vectors(void **state)
{
    /* RFC 3720 (iSCSI) B.4 and the usual check value */
    assert_int_equal(crc32c("123456789", 9), 0xE3069283u);
    assert_int_equal(crc32c("", 0), 0);
    unsigned char buf[48];
    memset(buf, 0, 32);
    assert_int_equal(crc32c(buf, 32), 0x8A9136AAu);
    memset(buf, 0xFF, 32);
    assert_int_equal(crc32c(buf, 32), 0x62A8AB43u);
    for (int i = 0; i < 32; i++)
        buf[i] = (unsigned char)i;
    assert_int_equal(crc32c(buf, 32), 0x46DD794Eu);
    for (int i = 0; i < 32; i++)
        buf[i] = (unsigned char)(31 - i);
    assert_int_equal(crc32c(buf, 32), 0x113FDB5Cu);
    static const unsigned char iscsi[48] = {
        0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18,
        0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    assert_int_equal(crc32c(iscsi, 48), 0xD9963A56u);
}

/* The table and the instruction (when there is one) agree at every length
 * and alignment, and a CRC continues across pieces. */
static void test_crc32c_agree(void **state)
{
    unsigned char buf[300];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof buf; i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (unsigned char)(x >> 16);
    }
    for (size_t off = 0; off < 9; off++)
        for (size_t n = 0; n + off <= sizeof buf; n += 7) {
            uint32_t a = crc32c_update_soft(0, buf + off, n);
            assert_int_equal(crc32c(buf + off, n), a);
            size_t half = n / 3;
            assert_int_equal(crc32c_update(crc32c(buf + off, half), buf + off + half, n - half), a);
        }
    /* the mask of TFRecord: rotate by 15, add a constant */
    assert_int_equal(crc32c_mask(0), 0xA282EAD8u);
    assert_int_equal(crc32c_mask(0x00008000u), 0xA282EAD9u);
}

static void test_varints(void **state)
{
    uint8_t b[16];
    assert_int_equal(pb_varint(b, 0) - b, 1);
    assert_int_equal(b[0], 0);
    assert_int_equal(pb_varint(b, 300) - b, 2);
    assert_int_equal(b[0], 0xAC);
    assert_int_equal(b[1], 0x02);
    /* a negative int64 is ten bytes */
    uint8_t *e = pb_int64(b, 2, -1);
    assert_int_equal(e - b, 11);
    assert_int_equal(b[0], 0x10);
    assert_int_equal(b[10], 0x01);
    assert_int_equal(pb_int64_size(2, -1), 11);
    assert_int_equal(pb_varint_size(127), 1);
    assert_int_equal(pb_varint_size(128), 2);
}

static size_t unhex(const char *h, uint8_t *out)
{
    size_t n = 0;
    for (; *h; h++) {
        if (*h == ' ')
            continue;
        unsigned v;
        assert_int_equal(sscanf(h, "%2x", &v), 1);
        out[n++] = (uint8_t)v;
        h++;
    }
    return n;
}

static void assert_record(const uint8_t *event, size_t len, const char *hex)
{
    uint8_t want[512], rec[512];
    size_t n = unhex(hex, want);
    tfrecord_frame(rec, event, len);
    assert_int_equal(len + TFRECORD_OVERHEAD, n);
    assert_memory_equal(rec, want, n);
}

/* The reference records of spec §E.6. */
static void test_reference_records(void **state)
{
    uint8_t ev[256];
    size_t n = tfevents_first(ev, 1700000000.0, 0);
    assert_record(ev, n, "1800000000000000 a37f4b22 0900000040fc54d941 1a0d627261696e2e4576656e743a32 eced8f9d");
    n = tfevents_first(ev, 1700000000.0, 1);
    assert_record(ev, n,
                  "4800000000000000 fe92489d 0900000040fc54d941 1a0d627261696e2e4576656e743a32 522e0a2c "
                  "74656e736f72626f6172642e73756d6d6172792e7772697465722e6576656e745f66696c655f777269746572 "
                  "0ccc0c95");
    const char *tag = "vp0:linear.weight/norm";
    n = tfevents_scalar(ev, 1700000001.5, 3, tag, strlen(tag), 7.071068f);
    assert_int_equal(n, tfevents_scalar_size(3, strlen(tag)));
    assert_record(ev, n,
                  "2c00000000000000 f4aecc45 0900006040fc54d941 1003 2a1f0a1d0a16 "
                  "7670303a6c696e6561722e7765696768742f6e6f726d 15 3046e240 62f3cbde");
    /* step 0: no step field; a value of 0 is still written */
    tag = "vp0:linear.weight/nans";
    n = tfevents_scalar(ev, 1700000002.0, 0, tag, strlen(tag), 0.0f);
    assert_int_equal(n, tfevents_scalar_size(0, strlen(tag)));
    uint8_t rec[256];
    tfrecord_frame(rec, ev, n);
    uint8_t head[32], tail[4];
    size_t hn = unhex("2a00000000000000 ae8d91f5 0900008040fc54d941 2a1f0a1d0a16", head);
    assert_int_equal(hn, 27);
    unhex("8bdc9cae", tail);
    assert_memory_equal(rec, head, hn);
    assert_memory_equal(rec + n + 12 - 5, "\x15\x00\x00\x00\x00", 5);
    assert_memory_equal(rec + n + 12, tail, 4);
}

/* A file through the writer, its records read back and checked. */
static void test_file_round_trip(void **state)
{
    char *dir = tu_mkdtemp();
    char *path = tu_write(dir, "ev", "", 0);
    tfevents_writer w;
    assert_int_equal(tfevents_open(&w, path, "ev", 1700000000.0), 0);
    /* enough records to go past the writer's buffer */
    char tag[64];
    for (int i = 0; i < 40000; i++) {
        int k = snprintf(tag, sizeof tag, "vp0:layer.%d/norm", i % 50);
        assert_int_equal(tfevents_add_scalar(&w, i - 5, tag, (size_t)k, (float)i * 0.5f), 0);
    }
    assert_int_equal(tfevents_close(&w), 0);
    size_t len;
    char *data = tu_read(path, &len);
    size_t off = 0, records = 0;
    while (off < len) {
        uint64_t rl = 0;
        for (int i = 0; i < 8; i++)
            rl |= (uint64_t)(uint8_t)data[off + i] << (8 * i);
        uint32_t hc, dc;
        memcpy(&hc, data + off + 8, 4);
        assert_int_equal(hc, crc32c_mask(crc32c(data + off, 8)));
        memcpy(&dc, data + off + 12 + rl, 4);
        assert_int_equal(dc, crc32c_mask(crc32c(data + off + 12, rl)));
        off += rl + 16;
        records++;
    }
    assert_int_equal(off, len);
    assert_int_equal(records, 40001);
    free(data);
    free(path);
    tu_rmtree(dir);
    free(dir);
}

static void test_file_name(void **state)
{
    char *a = tfevents_file_name(1795541006.7), *b = tfevents_file_name(1795541006.7);
    assert_true(strncmp(a, "events.out.tfevents.1795541006.", 31) == 0);
    assert_string_not_equal(a, b);   /* the writer counter moves on */
    free(a);
    free(b);
}

/* ---- reading ---- */

typedef struct {
    char tags[64][48];
    int64_t steps[64];
    double values[64];
    int kinds[64], dtypes[64];
    size_t n;
    char texts[8][64];
    size_t ntexts;
    int64_t restart;
} sink_log;

static int on_scalar(void *ctx, const tfevents_value *v)
{
    sink_log *l = ctx;
    assert_true(l->n < 64);
    snprintf(l->tags[l->n], sizeof l->tags[0], "%.*s", (int)v->taglen, v->tag);
    l->steps[l->n] = v->step;
    l->values[l->n] = v->value;
    l->kinds[l->n] = v->kind;
    l->dtypes[l->n] = v->dtype;
    l->n++;
    return 0;
}

static int on_text(void *ctx, const tfevents_value *v)
{
    sink_log *l = ctx;
    snprintf(l->texts[l->ntexts++], sizeof l->texts[0], "%.*s=%.*s", (int)v->taglen, v->tag, (int)v->textlen, v->text);
    return 0;
}

static int on_restart(void *ctx, int64_t step)
{
    ((sink_log *)ctx)->restart = step;
    return 0;
}

/* Records into one buffer: each event framed. */
typedef struct {
    uint8_t buf[8192];
    size_t len;
} file_buf;

static void add_record(file_buf *f, const uint8_t *ev, size_t n)
{
    tfrecord_frame(f->buf + f->len, ev, n);
    f->len += n + TFRECORD_OVERHEAD;
}

/* Event{step, summary{value{tag, [metadata plugin], tensor}}} with the
 * tensor's bytes given. */
static size_t tensor_event(uint8_t *out, int64_t step, const char *tag, const char *plugin, const uint8_t *t, size_t tn)
{
    size_t tl = strlen(tag), pl = plugin ? strlen(plugin) : 0;
    size_t meta = plugin ? pb_len_size(1, pb_len_size(1, pl)) : 0;
    size_t value = pb_len_size(1, tl) + (plugin ? pb_len_size(9, meta) : 0) + pb_len_size(8, tn);
    uint8_t *p = pb_double(out, 1, 1700000000.0);
    p = pb_int64(p, 2, step);
    p = pb_len(p, 5, pb_len_size(1, value));
    p = pb_len(p, 1, value);
    p = pb_bytes(p, 1, tag, tl);
    if (plugin) {
        p = pb_len(p, 9, meta);
        p = pb_len(p, 1, pb_len_size(1, pl));
        p = pb_bytes(p, 1, plugin, pl);
    }
    p = pb_bytes(p, 8, t, tn);
    return (size_t)(p - out);
}

static int read_buf(const file_buf *f, sink_log *l, tfevents_stats *st)
{
    memset(l, 0, sizeof *l);
    l->restart = -1;
    tfevents_sink sink = {l, on_scalar, on_text, on_restart, NULL};
    return tfevents_read("run/events.out.tfevents.1", f->buf, f->len, &sink, st);
}

/* simple_value, the four kinds of scalar tensor (float in float_val,
 * double in tensor_content, half and bfloat16 in half_val), a text, a
 * tensor of two elements (no scalar), a restart. */
static void test_read_events(void **state)
{
    static file_buf f;
    memset(&f, 0, sizeof f);
    uint8_t ev[256], t[64], *p;
    add_record(&f, ev, tfevents_first(ev, 1700000000.0, 1));
    add_record(&f, ev, tfevents_scalar(ev, 1700000000.0, 7, "lm loss", 7, 2.5f));
    /* float: dtype 1, shape {}, float_val packed */
    p = pb_varint(pb_key(t, 1, PB_VARINT), TF_DT_FLOAT);
    p = pb_len(p, 2, 0);
    p = pb_len(p, 5, 4);
    p = pb_le(p, 0x3FC00000u, 4);   /* 1.5f */
    add_record(&f, ev, tensor_event(ev, 8, "a", "scalars", t, (size_t)(p - t)));
    /* double in tensor_content */
    p = pb_varint(pb_key(t, 1, PB_VARINT), TF_DT_DOUBLE);
    uint8_t d8[8];
    double dv = 0.1;
    uint64_t bits;
    memcpy(&bits, &dv, 8);
    pb_le(d8, bits, 8);
    p = pb_bytes(p, 4, d8, 8);
    add_record(&f, ev, tensor_event(ev, 9, "b", NULL, t, (size_t)(p - t)));
    /* half 0x3C00 = 1.0, unpacked; bfloat16 0x4049 = 3.140625, packed */
    p = pb_varint(pb_key(t, 1, PB_VARINT), TF_DT_HALF);
    p = pb_varint(pb_key(p, 13, PB_VARINT), 0x3C00);
    add_record(&f, ev, tensor_event(ev, 10, "c", NULL, t, (size_t)(p - t)));
    p = pb_varint(pb_key(t, 1, PB_VARINT), TF_DT_BFLOAT16);
    p = pb_len(p, 13, 3);
    p = pb_varint(p, 0x4049);
    add_record(&f, ev, tensor_event(ev, 11, "d", NULL, t, (size_t)(p - t)));
    /* two elements: shape {dim {size 2}}: not a scalar */
    p = pb_varint(pb_key(t, 1, PB_VARINT), TF_DT_FLOAT);
    p = pb_len(p, 2, 4);
    p = pb_len(p, 2, 2);
    p = pb_varint(pb_key(p, 1, PB_VARINT), 2);
    p = pb_len(p, 5, 8);
    p = pb_le(pb_le(p, 0, 4), 0, 4);
    add_record(&f, ev, tensor_event(ev, 12, "e", NULL, t, (size_t)(p - t)));
    /* a text: DT_STRING, plugin text */
    p = pb_varint(pb_key(t, 1, PB_VARINT), TF_DT_STRING);
    p = pb_bytes(p, 8, "0.001", 5);
    add_record(&f, ev, tensor_event(ev, 1, "lr/text_summary", "text", t, (size_t)(p - t)));
    /* SessionLog START at step 5 */
    p = pb_double(ev, 1, 1700000000.0);
    p = pb_int64(p, 2, 5);
    p = pb_len(p, 7, 2);
    p = pb_varint(pb_key(p, 1, PB_VARINT), 1);
    add_record(&f, ev, (size_t)(p - ev));
    sink_log l;
    tfevents_stats st;
    assert_int_equal(read_buf(&f, &l, &st), 0);
    assert_int_equal(st.records, 9);
    assert_int_equal(st.truncated, 0);
    assert_int_equal(l.n, 5);
    assert_string_equal(l.tags[0], "lm loss");
    assert_int_equal(l.steps[0], 7);
    assert_true(l.values[0] == 2.5 && l.kinds[0] == TFEV_SIMPLE);
    assert_string_equal(l.tags[1], "a");
    assert_true(l.values[1] == 1.5 && l.kinds[1] == TFEV_TENSOR && l.dtypes[1] == TF_DT_FLOAT);
    assert_true(l.values[2] == 0.1 && l.dtypes[2] == TF_DT_DOUBLE);
    assert_true(l.values[3] == 1.0 && l.dtypes[3] == TF_DT_HALF);
    assert_true(l.values[4] == 3.140625 && l.dtypes[4] == TF_DT_BFLOAT16);
    assert_int_equal(l.ntexts, 1);
    assert_string_equal(l.texts[0], "lr/text_summary=0.001");
    assert_int_equal(l.restart, 5);

    /* cut inside the last record: read up to it, the offset told */
    file_buf g = f;
    size_t last = 0, off = 0;
    while (off < f.len) {
        last = off;
        uint64_t n = 0;
        for (int i = 0; i < 8; i++)
            n |= (uint64_t)f.buf[off + i] << (8 * i);
        off += n + 16;
    }
    for (size_t cut = last + 1; cut < f.len; cut += 3) {
        g.len = cut;
        assert_int_equal(read_buf(&g, &l, &st), 0);
        assert_int_equal(st.truncated, 1);
        assert_int_equal(st.truncated_at, last);
        assert_int_equal(st.records, 8);
    }
    /* a flipped byte: the CRC names the record's offset */
    g = f;
    g.buf[last + 14] ^= 1;
    assert_int_equal(read_buf(&g, &l, &st), -1);
    char want[64];
    snprintf(want, sizeof want, "the record at byte %zu is damaged", last);
    tu_assert_err("run/events.out.tfevents.1", want, "data's CRC");
    err_clear();
    g = f;
    g.buf[last + 3] ^= 0x40;
    assert_int_equal(read_buf(&g, &l, &st), -1);
    tu_assert_err(want, "length's CRC");
    err_clear();
    /* an impossible length with a valid CRC */
    g = f;
    uint8_t *h = g.buf + last;
    memset(h, 0, 8);
    h[4] = 0x80;   /* 2^39 bytes */
    uint32_t c = crc32c_mask(crc32c(h, 8));
    memcpy(h + 8, &c, 4);
    assert_int_equal(read_buf(&g, &l, &st), -1);
    tu_assert_err("impossible length");
    err_clear();
    /* a record whose bytes are no protocol buffer */
    file_buf b;
    memset(&b, 0, sizeof b);
    static const uint8_t junk[] = {0x0A, 0x7F, 0x01};
    add_record(&b, junk, sizeof junk);
    assert_int_equal(read_buf(&b, &l, &st), -1);
    tu_assert_err("the record at byte 0 is no TensorBoard event");
    err_clear();
}

int main(void)
{
    log_set_prog("test_tfevents");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc32c_vectors), cmocka_unit_test(test_crc32c_agree),
        cmocka_unit_test(test_varints),        cmocka_unit_test(test_reference_records),
        cmocka_unit_test(test_file_round_trip), cmocka_unit_test(test_file_name),
        cmocka_unit_test(test_read_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
