/* pandas.to_numeric() on text, as msprobe 8.1.0 (pandas 1.5) uses it.
 *
 * msprobe computes statistics differences from str(value) parsed back by
 * pandas, whose parser is not correctly rounded: it accumulates up to 17
 * digits in a double and then scales by a power of ten. So the difference of
 * -0.01070163212716579 and x is not computed from that double but from
 * -0.0107016321271657, and the last digits of msprobe's relative errors
 * depend on it. We reproduce the parser exactly.
 */
#ifndef MSP_PDNUM_H
#define MSP_PDNUM_H

#include <stddef.h>

/* Returns 1 and the value when the text is a number to pandas (decimal
 * numbers with surrounding whitespace, inf/infinity with a sign in any
 * case); 0 when pandas.to_numeric(errors='coerce') gives NaN for it. */
int pd_to_numeric(const char *s, size_t n, double *out);

/* pandas.to_numeric(str(x)) for a Python float x (NaN for nan). */
double pd_float_roundtrip(double x);

#endif
