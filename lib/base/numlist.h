/* Lists of numbers as users write them on the command line: "0,2,4-7",
 * or msprobe's Python list "[13, 21]" (anomaly_processor's -s). The one
 * parser of every --steps, --ranks and -s: ranks and steps of a dump tree,
 * steps of the training monitor. */
#ifndef MSP_NUMLIST_H
#define MSP_NUMLIST_H

#include <stddef.h>

typedef struct {
    long (*ranges)[2];   /* inclusive [lo, hi] */
    size_t n, cap;
} numlist;

/* Parse; on a malformed list records a usage error naming `what` and
 * returns -1. "[]" is the empty list, which selects every number (msprobe's
 * -s [] is all steps). */
int numlist_parse(const char *text, const char *what, numlist *out);
/* Is v selected? Always, by the empty list. */
int numlist_has(const numlist *l, long v);
/* Is some number of [lo, hi] selected? */
int numlist_meets(const numlist *l, long long lo, long long hi);
void numlist_free(numlist *l);

#endif
