/* Fast, exact number <-> text conversions.
 *
 * The compare tables must print numbers byte for byte the way msprobe's
 * Python code does (C's "%.16g" and Python's repr()), and the JSON reader
 * must turn number tokens into the same doubles strtod() gives.  glibc is
 * correct but slow for the volumes a compare handles, so these do the common
 * cases with 128-bit arithmetic and hand the rare undecidable ones to glibc.
 * Results are always identical to glibc / CPython.
 *
 * Thread-safe.  Relies on the "C" LC_NUMERIC locale (msprobe never calls
 * setlocale), as glibc's own answers then use '.' as the decimal point.
 */
#ifndef MSP_NUMFMT_H
#define MSP_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

/* Size of a buffer that holds any result of the formatters below. */
enum { NUMFMT_BUFSZ = 32 };

/* Both write a NUL-terminated string into buf (>= NUMFMT_BUFSZ bytes) and
 * return its length.
 *
 * fmt_g16: same bytes as snprintf(buf, n, "%.16g", x), including "-0",
 * "inf", "-inf", "nan" and "-nan" (glibc prints the sign of a NaN).
 *
 * fmt_pyrepr: same text as CPython 3 repr(x): the shortest digits that read
 * back as x (the closest such if several), fixed notation when the decimal
 * exponent is in [-4, 15] with ".0" after whole numbers ("100.0", "0.0001",
 * "-0.0"), else "1e-05", "1.2345678901234568e+17"; "inf", "-inf", "nan". */
size_t fmt_g16(double x, char *buf);
size_t fmt_pyrepr(double x, char *buf);

/* The digits repr() writes for a finite, nonzero x: |x| = digits * 10^exp10,
 * digits without trailing zeros (at most 17 of them). Returns their count.
 * For roundings that start from the shortest digits (graph's %.6f). */
int fmt_shortest(double x, uint64_t *digits, int *exp10);

/* Python's round(x, ndigits) of a float (0 <= ndigits <= 17): the value
 * of x rounded to ndigits decimals, ties to even on x's exact binary value,
 * read back correctly rounded -- what CPython computes through dtoa.
 * Megatron's checker rounds every TensorBoard value with round(v, 5). NaN
 * and infinities come back as they are. */
double py_round(double x, int ndigits);

/* s[0..n) is a JSON number (-?int(.frac)?([eE][+-]?digits)?), not
 * NUL-terminated.  Returns exactly what strtod() returns for that text:
 * correctly rounded, +-inf on overflow, +-0 or a denormal on underflow. */
double parse_double(const char *s, size_t n);
/* w * 10^q into *out when one IEEE operation gives it correctly rounded
 * (w <= 2^53, |q| <= 22: both factors exact); 0 when not. For parsers that
 * already hold a number's digits as an integer (parse_double's own fast
 * path). */
int decimal_exact(uint64_t w, long q, double *out);

#endif
