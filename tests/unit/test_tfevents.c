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

int main(void)
{
    log_set_prog("test_tfevents");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc32c_vectors), cmocka_unit_test(test_crc32c_agree),
        cmocka_unit_test(test_varints),        cmocka_unit_test(test_reference_records),
        cmocka_unit_test(test_file_round_trip), cmocka_unit_test(test_file_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
