/* YAML text of a flat mapping of strings, byte for byte what msprobe's
 * save_yaml() writes: PyYAML's yaml.dump(mapping, sort_keys=False) with the
 * default Dumper (block style, width 80, indent 2, no allow_unicode).
 *
 * PyYAML picks a style per scalar: plain when that reads back as the same
 * string (not `N/A`-safe words like `yes`, `1`, `~`, `''` are quoted), else
 * single quotes, else double quotes with escapes (every character outside
 * printable ASCII, since allow_unicode is off). Long values are folded at
 * spaces past column 80; keys too long for a simple key (123 characters and
 * more, as the implicit "!!str" tag counts towards PyYAML's limit of 128)
 * or spanning lines are written as `? key` / `: value`. */
#ifndef MSP_YAML_WRITE_H
#define MSP_YAML_WRITE_H

#include "format/json.h"
#include "base/strbuf.h"

/* Append the document for `map` (a J_OBJECT whose values are J_STRING; an
 * empty object is "{}\n"). Returns -1 when a value is not a string. */
int yaml_dump_str_map(strbuf *out, const jval *map);

#endif
