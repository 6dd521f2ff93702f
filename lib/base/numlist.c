/* The parser of number lists such as "0,2,4-7" (numlist.h) for --rank,
 * --step, anomaly's -s and the like: ranges kept as written (nothing
 * expanded, so "0-100000" costs one entry), blanks around the numbers
 * accepted as the newest msprobe strips them, msprobe's Python list
 * brackets ("[13, 21]"; "[]" selects everything), and every malformed list
 * refused with a usage error that quotes it.
 */
#include "base/numlist.h"
#include "base/err.h"
#include "base/mem.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* No rank or step of a real run comes near it; a bigger number is a slip. */
#define NUMLIST_MAX 100000000

/* A number; blanks around it are allowed, as the newest msprobe strips
 * them from the items of --rank 0, 1. -1: none; -2: too big (*p at it). */
static int number(const char **p, long *v)
{
    while (**p == ' ')
        (*p)++;
    if (!isdigit((unsigned char)**p))
        return -1;
    char *end;
    *v = strtol(*p, &end, 10);
    if (*v < 0 || *v > NUMLIST_MAX)
        return -2;
    while (*end == ' ')
        end++;
    *p = end;
    return 0;
}

int numlist_parse(const char *text, const char *what, numlist *out)
{
    out->ranges = NULL;
    out->n = out->cap = 0;
    const char *p = text, *end = text + strlen(text);
    while (*p == ' ')
        p++;
    while (end > p && end[-1] == ' ')
        end--;
    /* msprobe's Python list: [13, 21], [] */
    if (*p == '[') {
        if (end - p < 2 || end[-1] != ']')
            goto bad;
        p++;
        end--;
        while (*p == ' ')
            p++;
        if (p == end)
            return 0;
    }
    for (;;) {
        long lo, hi;
        int rc = number(&p, &lo);
        if (rc == 0 && *p == '-') {
            p++;
            rc = number(&p, &hi);
            if (rc == 0 && hi < lo)
                rc = -1;
        } else {
            hi = lo;
        }
        if (rc == -2) {
            numlist_free(out);
            return err_set(ERR_USAGE, NULL, "%s: %.*s is beyond the largest rank or step, %d", what,
                           (int)strspn(p, "0123456789"), p, NUMLIST_MAX);
        }
        if (rc != 0)
            goto bad;
        GROW(out->ranges, out->cap, out->n + 1);
        out->ranges[out->n][0] = lo;
        out->ranges[out->n][1] = hi;
        out->n++;
        if (p >= end) /* (past it: over the blanks after the last number) */
            return 0;
        if (*p++ != ',')
            goto bad;
    }
bad:
    numlist_free(out);
    return err_set(ERR_USAGE, NULL, "%s needs a list of numbers like 0,2,4-7 or [13, 21] (got '%s')", what, text);
}

int numlist_has(const numlist *l, long v)
{
    if (l->n == 0)
        return 1;
    for (size_t i = 0; i < l->n; i++)
        if (v >= l->ranges[i][0] && v <= l->ranges[i][1])
            return 1;
    return 0;
}

int numlist_meets(const numlist *l, long long lo, long long hi)
{
    if (l->n == 0)
        return 1;
    for (size_t i = 0; i < l->n; i++)
        if (l->ranges[i][0] <= hi && l->ranges[i][1] >= lo)
            return 1;
    return 0;
}

void numlist_free(numlist *l)
{
    free(l->ranges);
    l->ranges = NULL;
    l->n = l->cap = 0;
}
