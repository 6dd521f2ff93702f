/* Python's difflib.SequenceMatcher(None, a, b).ratio(), exactly: msprobe's
 * config_check matches hyper-parameter names (above 0.8) and the code of
 * random-call stack frames with it, so a ratio one match-block away from
 * Python's would pair different rows.
 *
 * The strings are compared as sequences of code points (UTF-8 decoded; a
 * byte that is not valid UTF-8 counts as one element of its own, as
 * Python's surrogateescape would make it). As in CPython: b is indexed by
 * element; when b has 200 or more elements, elements occurring more than
 * len(b) // 100 + 1 times are "popular" and left out of the index
 * (autojunk), though a match may still be extended over them; the longest
 * match of a range is the earliest in a, then in b; matching recurses left
 * and right of it. ratio = 2 * matches / (len(a) + len(b)), 1.0 for two
 * empty strings. Thread-safe. */
#ifndef MSP_DIFFLIB_H
#define MSP_DIFFLIB_H

#include <stddef.h>

double py_difflib_ratio(const char *a, size_t an, const char *b, size_t bn);

/* The number of matching elements (the sum of the matching blocks' sizes). */
size_t py_difflib_matches(const char *a, size_t an, const char *b, size_t bn);

#endif
