/* The typing of YAML scalars, as PyYAML's safe_load does it (YAML 1.1):
 * implicit resolution of plain scalars and construction of tagged values
 * into jval. Internal to the YAML reader (yaml_read.c). */
#ifndef MSP_YAML_SCALAR_H
#define MSP_YAML_SCALAR_H

#include <stddef.h>

#include "base/arena.h"
#include "base/value.h"

#define YAML_TAG_PREFIX "tag:yaml.org,2002:"

enum yaml_scalar_tag { T_STR, T_NULL, T_BOOL, T_INT, T_FLOAT, T_TIMESTAMP, T_MERGE, T_VALUE, T_UNKNOWN, T_UNSUPPORTED };

/* The tag PyYAML's resolver gives a plain scalar (NUL-terminated). */
int yaml_resolve_plain(const char *s);
/* The tag of an explicit tag name ("tag:yaml.org,2002:int" ...). */
int yaml_explicit_tag(const char *tag);
/* Tags PyYAML's safe_load constructs but that have no JSON counterpart
 * (!!binary, !!set, !!omap, !!pairs). */
int yaml_unsupported_tag(const char *tag);

/* The value of s[0..n) under `tag` (T_STR ... T_TIMESTAMP), strings in `a`.
 * 0, or -1 with *why saying what is wrong ("is not a valid !!int"). */
int yaml_scalar_value(int tag, const char *s, size_t n, arena *a, jval *out, const char **why);

/* Whether v is a scalar PyYAML would have turned into a date/datetime. */
int yaml_is_timestamp(const jval *v);

#endif
