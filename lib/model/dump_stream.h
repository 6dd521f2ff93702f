/* The rows of one dump.json entry read straight from the text (the common
 * shape), for dump.c. Not part of the dump API. */
#ifndef MSP_DUMP_STREAM_H
#define MSP_DUMP_STREAM_H

#include "model/dump_leaf.h"
#include "format/json.h"

/* At jp: the value of the entry named f->entry_name, whose name is also
 * the first keylen bytes of f->prefix (the caller sets both). Returns 1 with the
 * entry's rows appended and the value consumed; 0 when the entry is not of
 * the common shape, with nothing appended, jp where it was and no error
 * recorded: the caller then reads it the general way. `mem` holds escaped
 * strings until the caller resets it. */
int dump_stream_entry(flattener *f, jparser *jp, arena *mem, size_t keylen);

#endif
