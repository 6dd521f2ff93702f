/* The top level of a dump.json (dump_walk.h). */
#include "model/dump_walk.h"
#include "base/err.h"

int dump_walk_members(jparser *jp, const char *path, arena *scratch, dump_member_fn *member, void *ctx)
{
    return json_walk_object(jp, path, "is not a JSON object (expected {\"task\": ..., \"data\": {...}})", scratch,
                            member, ctx);
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
