/* Writing JSON text into a strbuf, the way Python's json.dump writes it:
 * strings with \" \\ \n ... and \u00XX escapes, floats as repr() with the
 * tokens NaN / Infinity.
 *
 * jsonw_str keeps non-ASCII UTF-8 as it is (ensure_ascii=False); the
 * *_ascii writers and jsonw_value follow json.dump's default
 * ensure_ascii=True: everything outside printable ASCII becomes a \u escape
 * (UTF-16 surrogate pairs beyond the BMP). */
#ifndef MSP_JSONW_H
#define MSP_JSONW_H

#include "format/json.h"
#include "base/strbuf.h"

void jsonw_str(strbuf *sb, const char *s);
void jsonw_strn(strbuf *sb, const char *s, size_t n);
void jsonw_double(strbuf *sb, double x);

void jsonw_str_ascii(strbuf *sb, const char *s, size_t n);
/* Line break and indentation before an item at nesting `level`
 * (json.dump(indent=indent)). */
void jsonw_newline(strbuf *sb, int indent, int level);
/* A member's key on its own line at nesting `level`, with its ": " (the
 * value follows): `"k": ` as json.dump(indent=indent, ensure_ascii=True). */
void jsonw_key(strbuf *sb, int indent, int level, const char *k);
/* A parsed value as json.dump(value, indent=indent) writes the Python object
 * it loads as, starting at nesting `level`: key order and duplicates as a
 * dict keeps them, integers exactly, other numbers as float repr(). */
void jsonw_value(strbuf *sb, const jval *v, int indent, int level);

#endif
