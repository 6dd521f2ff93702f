/* Writing JSON text into a strbuf, the way Python's json.dump writes it:
 * strings with \" \\ \n ... and \u00XX escapes (ensure_ascii=False: other
 * UTF-8 is kept), floats as repr() with the tokens NaN / Infinity. */
#ifndef MSP_JSONW_H
#define MSP_JSONW_H

#include "strbuf.h"

void jsonw_str(strbuf *sb, const char *s);
void jsonw_strn(strbuf *sb, const char *s, size_t n);
void jsonw_double(strbuf *sb, double x);

#endif
