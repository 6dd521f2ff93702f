/* Python spellings of values, so our cells read exactly like msprobe's:
 * str() and repr() of what json.loads produces (None, True, 3, 1e-05,
 * 'text', [1, 2], {'k': 'v'}), repr() of a str with Python's quote choice and
 * escapes, and the formula-injection blacklist msprobe applies to names and
 * cells; and the plain decimal numbers that float() and int() read, for the
 * readers of text cells (xlsx, merge_result's csv). */
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

/* The ASCII blanks of Python's str.strip() and float(): space, \t, \n,
 * \r, \f, \v. */
static inline int py_is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* s[0..*n) without those blanks at both ends. */
void py_strip(const char **s, size_t *n);

/* The number a text holds when it is a plain decimal (py_decimal_len's
 * syntax) with an optional sign and blanks around it, as float() and int()
 * read it: 0 with the correctly rounded value in *out and *is_int as
 * py_decimal_len sets it; -1 for anything else (empty, inf, nan, digits
 * grouped by '_', or a text of PY_DECIMAL_MAX characters or more). The
 * callers that take inf and the like test for them first. */
enum { PY_DECIMAL_MAX = 400 };
int py_decimal_number(const char *s, size_t n, double *out, int *is_int);

/* msprobe's formula-injection blacklist:
 * ^[＋－＝％＠+\-=%@]|;[＋－＝％＠+\-=%@] */
int py_blacklisted(const char *s, size_t n);

#endif
