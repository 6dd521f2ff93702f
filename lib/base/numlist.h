/* Lists of numbers as users write them on the command line: "0,2,4-7".
 * Used to select ranks and steps of a dump tree. */
#ifndef MSP_NUMLIST_H
#define MSP_NUMLIST_H

#include <stddef.h>

typedef struct {
    long (*ranges)[2];   /* inclusive [lo, hi] */
    size_t n, cap;
} numlist;

/* Parse; on a malformed list records a usage error naming `what` and
 * returns -1. */
int numlist_parse(const char *text, const char *what, numlist *out);
int numlist_has(const numlist *l, long v);
void numlist_free(numlist *l);

#endif
