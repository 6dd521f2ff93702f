/* Writing HTML text into a strbuf: what the self-contained pages (graph's,
 * train_compare's) put between tags and in attribute values. */
#ifndef MSP_HTMLW_H
#define MSP_HTMLW_H

#include "base/strbuf.h"

/* s (NUL-terminated) with <, >, & and " as entities: safe as element text
 * and inside a double-quoted attribute. */
void htmlw_text(strbuf *sb, const char *s);

#endif
