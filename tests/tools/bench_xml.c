/* bench_xml: the xlsx reader's XML tokenizer (format/xmltok.h, pulling
 * from the inflater) against expat fed chunk by chunk from the same
 * inflater, on one part of a workbook; and the inflater alone. Prints the
 * best of N runs of each, in ms, and the events each saw (which must
 * agree). Why: README, "The xlsx reader's XML".
 *
 *   bench_xml BOOK.xlsx [PART [N]]     (default xl/worksheets/sheet1.xml, 5) */
#include "base/err.h"
#include "base/files.h"
#include "base/le.h"
#include "format/xmltok.h"
#include "format/zip.h"

#include <expat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

typedef struct {
    unsigned long long starts, attrs, text;
} counts;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static const unsigned char *entry_data(const zip_archive *z, const zip_entry *e)
{
    const unsigned char *lh = z->data + e->local_offset;
    return lh + ZIP_LOCAL_LEN + le_get16(lh + 26) + le_get16(lh + 28);
}

/* Inflate e in 256 KiB chunks, handing each to fn (NULL: only inflate). */
static void inflate_chunks(const zip_archive *z, const zip_entry *e, void (*fn)(void *, const char *, size_t, int),
                           void *ctx)
{
    static unsigned char out[256 << 10];
    z_stream s;
    memset(&s, 0, sizeof s);
    inflateInit2(&s, -MAX_WBITS);
    s.next_in = (unsigned char *)entry_data(z, e);
    s.avail_in = (uInt)e->comp_size;
    int rc;
    do {
        s.next_out = out;
        s.avail_out = sizeof out;
        rc = inflate(&s, Z_NO_FLUSH);
        if (fn)
            fn(ctx, (const char *)out, sizeof out - s.avail_out, rc == Z_STREAM_END);
    } while (rc == Z_OK);
    inflateEnd(&s);
}

static void XMLCALL on_start(void *ctx, const XML_Char *name, const XML_Char **atts)
{
    counts *c = ctx;
    c->starts++;
    while (*atts) {
        c->attrs++;
        atts += 2;
    }
    (void)name;
}
static void XMLCALL on_end(void *ctx, const XML_Char *name) { (void)ctx, (void)name; }
static void XMLCALL on_text(void *ctx, const XML_Char *s, int len)
{
    ((counts *)ctx)->text += (unsigned long long)len;
    (void)s;
}

static void feed_expat(void *ctx, const char *buf, size_t n, int last)
{
    if (XML_Parse(ctx, buf, (int)n, last) != XML_STATUS_OK) {
        fprintf(stderr, "expat: %s\n", XML_ErrorString(XML_GetErrorCode(ctx)));
        exit(1);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_xml BOOK.xlsx [PART [N]]\n");
        return 2;
    }
    const char *part = argc > 2 ? argv[2] : "xl/worksheets/sheet1.xml";
    int runs = argc > 3 ? atoi(argv[3]) : 5;
    mapped_file f;
    zip_archive z;
    if (file_map(argv[1], 0, &f) != 0 || zip_open(&z, argv[1], f.data, f.size) != 0) {
        fprintf(stderr, "%s\n", err_message());
        return 2;
    }
    const zip_entry *e = NULL;
    for (size_t i = 0; i < z.count && !e; i++)
        if (z.entries[i].name_len == strlen(part) && !memcmp(z.entries[i].name, part, z.entries[i].name_len))
            e = &z.entries[i];
    if (!e || e->method != 8) {
        fprintf(stderr, "%s: no deflated part %s\n", argv[1], part);
        return 2;
    }
    double best[3] = {1e300, 1e300, 1e300};
    counts cx = {0}, ce = {0};
    for (int r = 0; r < runs; r++) {
        double t = now();
        inflate_chunks(&z, e, NULL, NULL);
        t = now() - t;
        best[0] = t < best[0] ? t : best[0];

        memset(&cx, 0, sizeof cx);
        t = now();
        xml_reader x;
        if (xml_open(&x, &z, e, argv[1], 0) != 0)
            return 2;
        int ev;
        while ((ev = xml_next(&x)) > 0) {
            if (ev == XML_START)
                cx.starts++, cx.attrs += x.nattrs;
            else if (ev == XML_TEXT && x.depth > 0)
                cx.text += x.text_len;
        }
        xml_close(&x);
        if (ev < 0) {
            fprintf(stderr, "%s\n", err_message());
            return 2;
        }
        t = now() - t;
        best[1] = t < best[1] ? t : best[1];

        memset(&ce, 0, sizeof ce);
        t = now();
        XML_Parser p = XML_ParserCreate("UTF-8");
        XML_SetUserData(p, &ce);
        XML_SetElementHandler(p, on_start, on_end);
        XML_SetCharacterDataHandler(p, on_text);
        inflate_chunks(&z, e, feed_expat, p);
        XML_ParserFree(p);
        t = now() - t;
        best[2] = t < best[2] ? t : best[2];
    }
    printf("%s %s: %.1f MB inflated, %llu elements, %llu attributes, %llu text bytes (expat: %llu, %llu, %llu)\n",
           argv[1], part, e->size / 1e6, cx.starts, cx.attrs, cx.text, ce.starts, ce.attrs, ce.text);
    printf("best of %d: inflate only %.1f ms; xmltok %.1f ms; inflate + expat %.1f ms\n", runs, best[0], best[1],
           best[2]);
    zip_close(&z);
    file_unmap(&f);
    return 0;
}
