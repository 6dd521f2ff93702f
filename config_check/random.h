/* Call-stack matching of msprobe's random checker (spec/configcheck.md
 * §A.6.6), for the checker and its tests. */
#ifndef MSP_CC_RANDOM_H
#define MSP_CC_RANDOM_H

#include <stddef.h>

#include "base/value.h"

/* Two frames "File {path}, line {n}, in {func}, {code}" alike: the mean of
 * the file-name score (same base name of a non-empty path: 1, else 0), the
 * function score (same: 1) and the difflib ratio of the code is not below
 * 0.8 (line numbers do not count). */
int random_frames_match(const char *f1, size_t n1, const char *f2, size_t n2);
/* Two stacks (JSON lists of frames) of the same length, frame by frame alike. */
int random_stacks_match(const jval *s1, const jval *s2);

#endif
