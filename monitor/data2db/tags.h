/* Tags of trend targets (the newest msprobe's trend plugin filters by
 * them), as "tag\x1fcategory\x1e" records appended to out.
 *
 * dump_tags: parse_full_key of dump targets (spec/data2db.md §9.1): the
 * last two parts are the index, Module/Cell the default tag, an API's
 * parts its function, a module's parts split into layer ("layers.3") and
 * module tags. monitor_tags: csv2db's get_tags_from_target: every part
 * that is not a number is a module tag, a number after a name a layer. */
#ifndef MSP_MONITOR_TAGS_H
#define MSP_MONITOR_TAGS_H

#include "base/strbuf.h"

#include <stddef.h>

void dump_tags(const char *name, size_t n, strbuf *out);
void monitor_tags(const char *name, size_t n, strbuf *out);

#endif
