/* Whole small JSON files read and parsed at once (json_load_file, json.h);
 * kept apart from the parser, which reads bytes and never files. */
#include "format/json.h"
#include "base/err.h"

#include <string.h>

int json_load_file(const char *path, size_t max_size, mapped_file *file, arena *a, jval *out, const char *not_object)
{
    memset(file, 0, sizeof *file);
    if (file_load(path, max_size, file) != 0)
        return -1;
    /* an empty file has no data pointer: parse "" (and say what is wrong) */
    if (json_parse(path, file->data ? (const void *)file->data : "", file->size, a, out) != 0)
        return -1;
    if (not_object && out->type != J_OBJECT)
        return err_input(path, "%s", not_object);
    return 0;
}
