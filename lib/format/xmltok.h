/* A small pull tokenizer for the XML parts of zip packages (xlsx), read
 * while they are inflated: a sheet of a million rows never has to be in
 * memory as a whole, only a window around the current token.
 *
 * It knows what spreadsheet XML uses: elements and attributes (prefixes are
 * stripped: `x:c` is `c`), character data with the five predefined entities
 * and numeric character references, CDATA sections, comments and processing
 * instructions (skipped). Line ends are normalised as XML requires ("\r\n"
 * and "\r" read as "\n"). A DTD is refused (no entity expansion, no
 * external fetches). Elements must nest properly; a self-closing element
 * gives a START followed by an END.
 *
 * What is not well-formed XML is refused, as expat (openpyxl's parser,
 * through ElementTree) refuses it: one root element and nothing but blanks
 * around it, names of name characters, attributes separated by blanks and
 * given once, no '<' in their values, only XML's characters (no control
 * characters, no U+FFFE/U+FFFF, valid UTF-8) in text, values, comments,
 * CDATA and processing instructions, no "]]>" in text, no "--" in a
 * comment, the XML declaration well-formed and only at the start. One
 * difference remains (tests/fuzz/fz_xml_expat.c checks it is the only
 * one): non-ASCII characters in names are not checked against XML's
 * tables. Every part is read as UTF-8, whatever its declaration says.
 * Blanks outside the root element are skipped, not reported as text.
 *
 * Limits: a single tag or text run of at most XML_MAX_TOKEN bytes; the
 * inflated part must be exactly as long as the zip directory says and pass
 * its CRC-32 check. Errors are recorded with err_input() as
 * "path: malformed xlsx: PART: what is wrong (at byte N)".
 * One reader per thread; readers share nothing.
 */
#ifndef MSP_XMLTOK_H
#define MSP_XMLTOK_H

#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "format/zip.h"

#define XML_MAX_TOKEN ((size_t)64 << 20)
/* Attributes of one element: spreadsheet XML has a handful; duplicates are
 * looked for pairwise, so a tag of a million attributes would take hours. */
#define XML_MAX_ATTRS 1024

enum xml_event { XML_FAIL = -1, XML_EOF = 0, XML_START, XML_END, XML_TEXT };

typedef struct {
    const char *name;      /* local name */
    size_t name_len;
    const char *value;     /* decoded, NUL-terminated */
    size_t value_len;
} xml_attr;

typedef struct {
    /* the current token, valid until the next xml_next() */
    const char *name;      /* START/END: local name (not NUL-terminated) */
    size_t name_len;
    const char *text;      /* TEXT: decoded, NUL-terminated */
    size_t text_len;
    xml_attr *attrs;       /* START */
    size_t nattrs;
    int depth;             /* elements open after this token */

    /* private */
    const char *path, *part;
    const unsigned char *src;    /* compressed (or stored) bytes */
    uint64_t src_left, declared, produced;
    int deflated, eof, pending_end, seen_root;
    uint32_t crc, want_crc;
    void *zs;                    /* z_stream */
    unsigned char *own;          /* window buffer (deflated parts) */
    const unsigned char *buf;    /* window */
    size_t pos, end, cap;
    uint64_t consumed;           /* bytes dropped from the window so far */
    strbuf scratch;              /* decoded text and attribute values */
    strbuf stack;                /* open element names, NUL-separated */
    size_t *marks;               /* start of each open name in `stack` */
    size_t nmarks, capmarks;
    size_t capattrs;
} xml_reader;

/* Start reading entry `e` of `z`; `path` names the package in errors.
 * Entries declaring more than max_size inflated bytes are refused. */
int xml_open(xml_reader *x, const zip_archive *z, const zip_entry *e, const char *path, uint64_t max_size);
int xml_next(xml_reader *x);
void xml_close(xml_reader *x);

/* Current token helpers. */
int xml_is(const xml_reader *x, const char *local);
/* Decoded value of the attribute with this local name, or NULL. */
const char *xml_attr_value(const xml_reader *x, const char *local, size_t *len);

/* Record an error about the current position. Returns -1. */
int xml_fail(xml_reader *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
