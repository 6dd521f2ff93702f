/* The xlsx reader's XML tokenizer (format/xmltok.h) against expat (a
 * test-only oracle; openpyxl reads xlsx parts with Python's expat-based
 * ElementTree). The input is the XML part, stored in a one-entry zip as
 * it is in a workbook.
 *
 * On every input both accept, the two see the same elements (local names:
 * prefixes stripped), the same attributes in the same order with the same
 * decoded values, and the same text inside the root element (CDATA
 * included, adjacent runs joined). On every input expat refuses, ours
 * refuses too, but for the differences the README lists (Differences, "The readers against
 * cJSON and expat"), each recognised here by expat's error code. Ours
 * refusing what expat accepts is allowed (a DTD, another encoding than
 * UTF-8 declared). */
#include "tests/fuzz/fuzz.h"

#include "base/err.h"
#include "base/le.h"
#include "base/strbuf.h"
#include "format/xmltok.h"
#include "format/zip.h"

#include <expat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const uint8_t *input;
static size_t input_size;

static void differ(const char *what, const char *a, const char *b)
{
    fprintf(stderr, "fz_xml_expat: %s\n  ours:  %.300s\n  expat: %.300s\n  input: %.*s\n", what, a ? a : "",
            b ? b : "", (int)(input_size > 300 ? 300 : input_size), (const char *)input);
    abort();
}

static const char *local(const char *name)
{
    const char *c = strchr(name, ':');
    return c ? c + 1 : name;
}

/* ---- ours: the events as text ---- */

typedef struct {
    strbuf ev, text;
} events;

static void flush_text(events *e)
{
    if (e->text.len) {
        sb_adds(&e->ev, "T");
        sb_add(&e->ev, e->text.buf, e->text.len);
        sb_addc(&e->ev, '\n');
        sb_reset(&e->text);
    }
}

static int ours(const uint8_t *data, size_t size, events *e)
{
    /* a stored zip entry: local header, data, central directory, end */
    size_t name_len = 5;
    size_t zlen = 30 + name_len + size + 46 + name_len + 22;
    unsigned char *z = calloc(1, zlen);
    uint32_t crc = (uint32_t)crc32(0, data, (uInt)size);
    unsigned char *p = z;
    le_put32(p, ZIP_SIG_LOCAL), le_put16(p + 4, 20), le_put32(p + 14, crc), le_put32(p + 18, (uint32_t)size);
    le_put32(p + 22, (uint32_t)size), le_put16(p + 26, (uint16_t)name_len);
    memcpy(p + 30, "x.xml", name_len);
    if (size)
        memcpy(p + 30 + name_len, data, size);
    unsigned char *c = p + 30 + name_len + size;
    le_put32(c, ZIP_SIG_CENTRAL), le_put16(c + 4, 20), le_put16(c + 6, 20), le_put32(c + 16, crc);
    le_put32(c + 20, (uint32_t)size), le_put32(c + 24, (uint32_t)size), le_put16(c + 28, (uint16_t)name_len);
    memcpy(c + 46, "x.xml", name_len);
    unsigned char *d = c + 46 + name_len;
    le_put32(d, ZIP_SIG_EOCD), le_put16(d + 8, 1), le_put16(d + 10, 1), le_put32(d + 12, (uint32_t)(46 + name_len));
    le_put32(d + 16, (uint32_t)(c - z));

    zip_archive za;
    if (zip_open(&za, fz_dir(), z, zlen) != 0 || za.count != 1)
        abort();
    xml_reader x;
    int rc = xml_open(&x, &za, &za.entries[0], fz_dir(), 0);
    int ev = rc == 0 ? XML_EOF + 1 : XML_FAIL;
    while (rc == 0 && (ev = xml_next(&x)) > 0) {
        if (ev == XML_TEXT) {
            if (x.depth > 0)
                sb_add(&e->text, x.text, x.text_len);
            continue;
        }
        flush_text(e);
        sb_adds(&e->ev, ev == XML_START ? "S" : "E");
        sb_add(&e->ev, x.name, x.name_len);
        for (size_t i = 0; ev == XML_START && i < x.nattrs; i++) {
            sb_addc(&e->ev, ' ');
            sb_add(&e->ev, x.attrs[i].name, x.attrs[i].name_len);
            sb_addc(&e->ev, '=');
            sb_add(&e->ev, x.attrs[i].value, x.attrs[i].value_len);
        }
        sb_addc(&e->ev, '\n');
    }
    flush_text(e);
    if (rc == 0)
        xml_close(&x);
    zip_close(&za);
    free(z);
    rc = ev == XML_EOF ? 0 : -1;
    fz_done(rc);
    return rc;
}

/* ---- expat ---- */

static void XMLCALL on_start(void *ctx, const XML_Char *name, const XML_Char **atts)
{
    events *e = ctx;
    flush_text(e);
    sb_adds(&e->ev, "S");
    sb_adds(&e->ev, local(name));
    for (; *atts; atts += 2) {
        sb_addc(&e->ev, ' ');
        sb_adds(&e->ev, local(atts[0]));
        sb_addc(&e->ev, '=');
        sb_adds(&e->ev, atts[1]);
    }
    sb_addc(&e->ev, '\n');
}

static void XMLCALL on_end(void *ctx, const XML_Char *name)
{
    events *e = ctx;
    flush_text(e);
    sb_adds(&e->ev, "E");
    sb_adds(&e->ev, local(name));
    sb_addc(&e->ev, '\n');
}

static void XMLCALL on_text(void *ctx, const XML_Char *s, int len)
{
    sb_add(&((events *)ctx)->text, s, (size_t)len);
}

/* What expat refuses and ours reads; each is in the README's list:
 *   - names with non-ASCII characters: ours takes any (valid UTF-8), as
 *     XML 1.0's fifth edition nearly does; expat applies the name tables
 *     of the editions before it. Recognised as a non-ASCII byte inside a
 *     tag or a processing instruction's target, outside quotes. */
static size_t skip_past(size_t i, const char *end)
{
    const uint8_t *p = memmem(input + i, input_size - i, end, strlen(end));
    return p ? (size_t)(p - input) + strlen(end) : input_size;
}

static int listed(enum XML_Error code)
{
    if (code != XML_ERROR_INVALID_TOKEN)
        return 0;
    size_t i = 0, n = input_size;
    while (i < n) {
        if (input[i] != '<') {
            i++;
        } else if (n - i >= 4 && !memcmp(input + i, "<!--", 4)) {
            i = skip_past(i + 4, "-->");
        } else if (n - i >= 9 && !memcmp(input + i, "<![CDATA[", 9)) {
            i = skip_past(i + 9, "]]>");
        } else if (n - i >= 2 && input[i + 1] == '?') {
            for (i += 2; i < n && !strchr(" \t\n\r?", input[i]); i++)
                if (input[i] >= 0x80)
                    return 1;
            i = skip_past(i, "?>");
        } else {
            char quote = 0;
            for (i++; i < n && (quote || input[i] != '>'); i++) {
                if (quote)
                    quote = input[i] == (uint8_t)quote ? 0 : quote;
                else if (input[i] == '"' || input[i] == '\'')
                    quote = (char)input[i];
                else if (input[i] >= 0x80)
                    return 1;
            }
        }
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    input = data, input_size = size;
    events a = {STRBUF_INIT, STRBUF_INIT}, b = {STRBUF_INIT, STRBUF_INIT};
    int ra = ours(data, size, &a);

    XML_Parser p = XML_ParserCreate("UTF-8");
    XML_SetUserData(p, &b);
    XML_SetElementHandler(p, on_start, on_end);
    XML_SetCharacterDataHandler(p, on_text);
    enum XML_Status st = XML_Parse(p, (const char *)data, (int)size, 1);
    enum XML_Error code = XML_GetErrorCode(p);
    flush_text(&b);
    if (ra == 0 && st == XML_STATUS_OK) {
        if (strcmp(sb_str(&a.ev), sb_str(&b.ev)) != 0)
            differ("the events differ", sb_str(&a.ev), sb_str(&b.ev));
    } else if (ra == 0 && !listed(code)) {
        char why[160];
        snprintf(why, sizeof why, "expat refuses (%s, line %lu), ours accepts", XML_ErrorString(code),
                 (unsigned long)XML_GetCurrentLineNumber(p));
        differ(why, sb_str(&a.ev), "");
    }
    XML_ParserFree(p);
    sb_free(&a.ev), sb_free(&a.text), sb_free(&b.ev), sb_free(&b.text);
    return 0;
}
