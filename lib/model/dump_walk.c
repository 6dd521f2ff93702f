/* The top level of a dump.json (dump_walk.h). */
#include "model/dump_walk.h"
#include "base/err.h"

int dump_walk_members(jparser *jp, const char *path, arena *scratch, dump_member_fn *member, void *ctx)
{
    if (jp_peek(jp) != '{') {
        /* valid JSON of another kind gets this message; invalid JSON its own */
        if (jp_peek(jp) < 0 || jp_skip(jp) == 0)
            err_input(path, "is not a JSON object (expected {\"task\": ..., \"data\": {...}})");
        return -1;
    }
    jp_object_begin(jp);
    for (;;) {
        const char *key;
        size_t keylen;
        int more = jp_object_next(jp, scratch, &key, &keylen);
        if (more < 0)
            return -1;
        if (!more)
            return jp_end(jp);
        int rc = member(ctx, jp, key, keylen, scratch);
        arena_reset(scratch);
        if (rc != 0)
            return -1;
    }
}

int dump_data_begin(jparser *jp, const char *path)
{
    if (jp_peek(jp) != '{') {
        if (jp_skip(jp) == 0)
            err_input(path, "'data' is not an object");
        return -1;
    }
    return jp_object_begin(jp);
}
