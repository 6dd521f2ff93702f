/* Writing zip archives: config_check's packs (deflated entries, as
 * Python's zipfile writes msprobe's), and the torch.save archives and other
 * fixtures of the tests and benchmarks: stored or deflated entries,
 * optional alignment of the data (torch aligns to 64 bytes) and ZIP64
 * records. Entries carry the DOS date 1980-01-01 00:00 (what msprobe's
 * bare ZipInfo gives) and UTF-8 names. The archive goes to a sink (a FILE,
 * a strbuf); a sink failure is ERR_OUTPUT. */
#ifndef MSP_ZIP_WRITE_H
#define MSP_ZIP_WRITE_H

#include <stddef.h>
#include <stdint.h>

typedef int (*zip_sink)(void *ctx, const void *p, size_t n);  /* 0 or -1 */
int zip_sink_stdio(void *file, const void *p, size_t n);       /* ctx: FILE * */
int zip_sink_strbuf(void *sb, const void *p, size_t n);        /* ctx: strbuf * */

typedef struct {
    char *name;
    uint64_t comp_size, size, local_offset;
    uint32_t crc;
    uint16_t method;
} zip_written;

typedef struct {
    zip_sink sink;
    void *ctx;
    uint64_t pos;
    unsigned align;         /* data alignment (torch: 64), 0 or 1 for none */
    int force_zip64;        /* zip64 records even for small archives */
    zip_written *entries;
    size_t count, cap;
} zip_writer;

void zip_writer_init(zip_writer *w, zip_sink sink, void *ctx);
/* method 0 (stored) or 8 (deflated). */
int zip_writer_add(zip_writer *w, const char *name, const void *data, size_t size, int method);
/* Write the central directory and end records; frees the entry list. */
int zip_writer_finish(zip_writer *w);
void zip_writer_free(zip_writer *w);

#endif
