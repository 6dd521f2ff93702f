/* JSON reader over a memory-mapped buffer.
 *
 * Why our own parser and not cJSON: msprobe's files are written by Python's
 * json module, so they contain the tokens NaN, Infinity and -Infinity, and
 * the Python type of a number matters for the output (`3` is an int and
 * prints "3", `3.0` is a float and prints "3.0"; `<class 'int'>` vs
 * `<class 'float'>` in the dtype column). We therefore keep whether a number
 * was written as an integer and its exact text. Dumps are also big (hundreds
 * of MB): strings without escapes point into the mapping (zero copy), values
 * live in an arena, and a document can be walked member by member so that a
 * huge "data" object never has to be in memory as a whole.
 *
 * Semantics follow Python's json.loads: objects are dicts (key order kept; a
 * repeated key keeps its first position and its last value, found in linear
 * time), numbers without fraction/exponent are integers of any size. The
 * member-wise walk (jp_object_next) hands out keys as written: a caller
 * walking a big object that way handles repeats itself (dump.c does). Every string must be valid UTF-8
 * (Python reads the file through its strict codec); lone surrogate escapes
 * and \u0000, which Python reads but no output of ours can hold, are
 * refused too.
 */
#ifndef MSP_JSON_H
#define MSP_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/value.h"

/* Streaming parser over one buffer. `path` is only used in error messages. */
typedef struct {
    const char *path;
    const char *start, *p, *end;
    int depth;
    /* scratch stack for children while an array/object is being parsed */
    jval *vstack;
    size_t vtop, vcap;
    jmember *mstack;
    size_t mtop, mcap;
} jparser;

void jp_init(jparser *jp, const char *path, const void *buf, size_t len);
void jp_free(jparser *jp);

/* Parse one complete value; strings/containers are allocated in `a`. */
int jp_value(jparser *jp, arena *a, jval *out);
/* Member-wise walk of an object: jp_object_begin() consumes '{';
 * jp_object_next() returns 1 with the key (escapes resolved into `a`) and the
 * ':' consumed, so the caller must then call jp_value (or jp_skip); 0 after
 * the closing '}'; -1 on error. */
int jp_object_begin(jparser *jp);
int jp_object_next(jparser *jp, arena *a, const char **key, size_t *keylen);
/* Validate and skip one value without building it. */
int jp_skip(jparser *jp);
/* Only whitespace may remain. */
int jp_end(jparser *jp);
/* What comes next (after whitespace): '{', '[', '"', 'n', 't', 'f', digit... */
int jp_peek(jparser *jp);

/* Whole-document convenience: parse buf into *out (everything in `a`). */
int json_parse(const char *path, const void *buf, size_t len, arena *a, jval *out);

#endif
