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
#include "base/files.h"
#include "base/value.h"

/* Streaming parser over one buffer. `path` is only used in error messages. */
typedef struct {
    const char *path;
    const char *start, *p, *end;
    int depth;
    /* an object or array was just opened: its first member or item comes
     * without a ',' (set by jp_object_begin/jp_array_begin, cleared by
     * jp_object_next/jp_array_next) */
    int fresh;
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
/* The same for a scalar: 0 with it in *out, 1 when an array or object comes
 * (nothing consumed), -1 on malformed input (error recorded). */
int jp_scalar(jparser *jp, arena *a, jval *out);
/* Member-wise walk of an object: jp_object_begin() consumes '{';
 * jp_object_next() returns 1 with the key (escapes resolved into `a`) and the
 * ':' consumed, so the caller must then call jp_value (or jp_skip); 0 after
 * the closing '}'; -1 on error. */
int jp_object_begin(jparser *jp);
int jp_object_next(jparser *jp, arena *a, const char **key, size_t *keylen);
/* Item-wise walk of an array: jp_array_begin() consumes '['; jp_array_next()
 * returns 1 when an item follows (the caller must then read it: jp_value,
 * jp_skip or a walk of its own), 0 after consuming the closing ']', -1 on
 * malformed input (error recorded). */
int jp_array_begin(jparser *jp);
int jp_array_next(jparser *jp);
/* Validate and skip one value without building it. */
int jp_skip(jparser *jp);
/* Skim one value of the plain shape most of a dump is made of -- strings of
 * printable ASCII without escapes, numbers, literals, and arrays and objects
 * of those -- checking it as jp_value would but building nothing, several
 * times faster. Returns 1 when skimmed (it is valid JSON); 0 when it has
 * anything else (an escape, non-ASCII text, deep nesting), is not valid, or
 * holds a value of a kind in `stop`: then nothing is consumed, and
 * jp_value() parses it (or says what is wrong). Repeated keys are not
 * looked for (a dict allows them). The kinds: JSKIM_NONFINITE, a NaN or
 * +-Infinity token or a number that may round to infinity;
 * JSKIM_NONFINITE_TEXT, a string that reads nan, inf or -inf in any case,
 * msprobe's other spelling of them (spec §0.1). So a reader tells cheaply
 * that a value holds no non-finite statistic, and parses the others. */
enum { JSKIM_NONFINITE = 1, JSKIM_NONFINITE_TEXT = 2 };
int jp_skim(jparser *jp, unsigned stop);
/* Only whitespace may remain. */
int jp_end(jparser *jp);
/* What comes next (after whitespace): '{', '[', '"', 'n', 't', 'f', digit... */
int jp_peek(jparser *jp);

/* A document that must be one object, walked member by member (a dump.json,
 * a safetensors header, an anomaly.json: too big, or too many, to build as
 * trees): `member` is called at each member's value, which it must consume
 * (jp_value, jp_skip, a walk of its own); `scratch` holds the key and is
 * reset after each member; only whitespace may follow the object. A
 * document of another kind gets `not_object` against `path` (invalid JSON,
 * its own message). Keys come as written: a repeated one comes again.
 * Returns 0, or -1 with the error recorded (a callback's failure too). */
typedef int json_member_fn(void *ctx, jparser *jp, const char *key, size_t keylen, arena *scratch);
int json_walk_object(jparser *jp, const char *path, const char *not_object, arena *scratch, json_member_fn *member,
                     void *ctx);

/* Whole-document convenience: parse buf into *out (everything in `a`). */
int json_parse(const char *path, const void *buf, size_t len, arena *a, jval *out);

/* A whole JSON file (compare.json, construct.json, stack.json, an index):
 * read with file_load (max_size as there: 0 for its default) and parsed
 * into `a`. Strings may point into *file: keep it while *out is used, then
 * file_unmap it (after a failure too; it is zeroed when never read). When
 * `not_object` is given, a file holding anything but an object is refused
 * with that message ("is not a JSON object of ..."). Returns 0, or -1 with
 * the error recorded naming `path`. */
int json_load_file(const char *path, size_t max_size, mapped_file *file, arena *a, jval *out, const char *not_object);

#endif
