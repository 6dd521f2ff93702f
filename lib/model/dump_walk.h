/* The top level of a dump.json, member by member.
 *
 * A dump.json is {"task": ..., "level": ..., "framework": ...,
 * "dump_data_dir": ..., "data": {entry: {...}, ...}} and can be gigabytes:
 * every reader (compare's rows, graph's index, nan_analyze, data2db) walks
 * it with the streaming parser and handles "data" entry by entry. This is
 * that walk, once: the file must be a JSON object (a clear message when it
 * is not), each member goes to the caller, and only whitespace may follow. */
#ifndef MSP_DUMP_WALK_H
#define MSP_DUMP_WALK_H

#include <stddef.h>
#include <string.h>

#include "base/arena.h"
#include "format/json.h"

/* One member of the top level: jp stands at its value, which the callback
 * must consume (jp_value, jp_skip, or a walk of "data"). `scratch` holds the
 * key and may hold the value; it is reset after each member. Returns 0, or
 * -1 with the error recorded. A repeated key comes again (Python keeps the
 * last: callers replace what the earlier one gave). */
typedef json_member_fn dump_member_fn;

/* Walk the top level of the dump `path` (only for messages) with `member`.
 * Returns 0, or -1 with the error recorded naming `path`. */
int dump_walk_members(jparser *jp, const char *path, arena *scratch, dump_member_fn *member, void *ctx);

/* At the value of "data": begin the object and return 0 (walk it with
 * jp_object_next), or refuse anything else: -1, "'data' is not an object". */
int dump_data_begin(jparser *jp, const char *path);

/* Whether a key is `name` (keys are not NUL-terminated). */
static inline int dump_key_is(const char *key, size_t keylen, const char *name)
{
    size_t n = strlen(name);
    return keylen == n && memcmp(key, name, n) == 0;
}

#endif
