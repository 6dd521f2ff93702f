/* YAML documents (mapping files, configs) loaded into the value tree of
 * json.h, so that they are consumed exactly like JSON.
 *
 * libyaml does the parsing; what the values *are* follows PyYAML's
 * yaml.safe_load (YAML 1.1), which is what msprobe uses:
 *   - plain scalars are resolved implicitly: `~`, `null`, `Null`, `NULL` and
 *     the empty scalar are null; `yes/no/true/false/on/off` (lower, Title or
 *     UPPER case only) are booleans; ints in decimal, `0b` binary, `0x` hex,
 *     leading-`0` octal (`0o17` is a string) and base 60 (`1:30`), with `_`
 *     ignored; floats need a dot and a signed exponent (`1.0e-4`; `1e-4` and
 *     `1.0e4` are strings), plus `.inf`, `-.inf`, `.nan`, base 60 (`1:30.5`);
 *     dates and times (`2024-01-01`) are validated like Python's datetime;
 *   - quoted and block scalars are always strings, as is a plain scalar
 *     tagged `!`; the standard tags !!str !!int !!float !!bool !!null
 *     !!timestamp !!seq !!map are honoured, any other tag is an error;
 *   - merge keys (`<<: *base`) are applied; a mapping keeps each key once, at
 *     the position it first appeared, with the value it was given last (a
 *     Python dict), so the result never has duplicate keys;
 *   - a key that is not a string (`1:`, `yes:`, `null:`) becomes its Python
 *     str() ("1", "True", "None"); a sequence or mapping as key is an error
 *     (Python: unhashable);
 *   - one document per file: a second one is an error; an empty file (or a
 *     document without content) is null.
 *
 * Numbers keep Python's view: `is_int` tells an int from a float and `text`
 * holds Python's str() of the value ("31" for 0x1F, "1e-05", "inf"), so
 * py_str_json() prints what Python would. Timestamps have no JSON type: they
 * are J_STRING values holding the text as written, recognisable with
 * yaml_is_timestamp() (PyYAML would give a date object).
 *
 * Aliases share the anchored value (the tree may be a DAG, never a cycle:
 * a recursive alias is an error). Against alias bombs the values reached
 * through aliases may add up to at most YAML_MAX_ALIAS_VALUES; nesting is
 * limited to YAML_MAX_DEPTH; files must be smaller than 1 GiB (msprobe's
 * limit for YAML files).
 *
 * Every failure is recorded with err_input():
 *   "path: malformed YAML at line L, column C: <problem>".
 * Thread-safe: no global state.
 */
#ifndef MSP_YAML_READ_H
#define MSP_YAML_READ_H

#include <stddef.h>

#include "base/arena.h"
#include "base/value.h"
#include "format/yaml_scalar.h"

#define YAML_MAX_FILE_SIZE ((size_t)1 << 30)   /* refused from this size on */
#define YAML_MAX_ALIAS_VALUES 1000000
#define YAML_MAX_DEPTH 512

/* Suffix rules for yaml_load_file(). msprobe itself insists on ".yaml"
 * ("The {path} should be a .yaml file!"); we also accept ".yml" where the
 * caller allows it. */
enum yaml_suffix { YAML_ANY_NAME, YAML_SUFFIX_YAML, YAML_SUFFIX_YAML_OR_YML };

/* Parse the document in buf[0..len) into *out; everything is allocated in
 * `a`. `path` is used in error messages only. 0 or -1. */
int yaml_parse(const char *path, const void *buf, size_t len, arena *a, jval *out);

/* Map the file (a regular file, not a symbolic link, smaller than
 * YAML_MAX_FILE_SIZE, with the suffix `rule` asks for) and parse it. */
int yaml_load_file(const char *path, int rule, arena *a, jval *out);

#endif
