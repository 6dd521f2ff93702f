/* The text msprobe's export makes of a value of an item (spec §8.3,
 * msprobe's _format_data), as JSON string contents (escaped, ensure_ascii)
 * appended to sb: what an item's members and a compare's cells are
 * written as. */
#ifndef MSP_GRAPH_VALUES_H
#define MSP_GRAPH_VALUES_H

#include <stddef.h>

#include "base/strbuf.h"
#include "format/json.h"
#include "py/pyvalue.h"

void vis_value_json(strbuf *sb, const jval *v);
void vis_pyval(strbuf *sb, const pyval *v);
void vis_string(strbuf *sb, const char *s, size_t n);
void vis_float(strbuf *sb, double x);
/* repr(round(x, 6)) for a float whose repr has no exponent. */
size_t vis_round6(double x, char *buf);
/* "%.6f" of x, correctly rounded. */
size_t vis_fixed6(double x, char *buf);

#endif
