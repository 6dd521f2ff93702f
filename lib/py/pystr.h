/* Python spellings of values, so our cells read exactly like msprobe's:
 * str() and repr() of what json.loads produces (None, True, 3, 1e-05,
 * 'text', [1, 2], {'k': 'v'}), repr() of a str with Python's quote choice and
 * escapes, and the formula-injection blacklist msprobe applies to names and
 * cells. */
#ifndef MSP_PYSTR_H
#define MSP_PYSTR_H

#include <stddef.h>

#include "base/value.h"
#include "base/strbuf.h"

/* str(x) / repr(x) of the Python object a JSON value loads as. */
void py_str_json(strbuf *sb, const jval *v);
void py_repr_json(strbuf *sb, const jval *v);

/* repr() of a Python str given as UTF-8. */
void py_repr_str(strbuf *sb, const char *s, size_t n);

/* repr() of a Python float ("0.1", "1e-05", "200.0", "inf", "nan"). */
void py_repr_float(strbuf *sb, double x);

/* str() of a JSON integer token (Python int: arbitrary size, "-0" is "0"). */
void py_str_int_token(strbuf *sb, const char *text, size_t n);

/* Length of the plain decimal number that p starts with: digits with an
 * optional fraction and exponent ("1", "1.", ".5", "2.5E-3"; no sign, blank
 * or underscore), 0 when there is none or its exponent has no digits.
 * *is_int: it has neither '.' nor an exponent. */
size_t py_decimal_len(const char *p, int *is_int);

/* msprobe's formula-injection blacklist:
 * ^[＋－＝％＠+\-=%@]|;[＋－＝％＠+\-=%@] */
int py_blacklisted(const char *s, size_t n);

#endif
