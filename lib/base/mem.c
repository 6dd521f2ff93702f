/* Allocation that cannot fail (mem.h): out of memory ends the process with
 * one line and status 1, so no caller carries a NULL check for a failure
 * it could not recover from anyway. Every size product is checked for
 * overflow before it reaches malloc. grow_array is the one growth policy
 * of arrays (half again, at least 16 elements), behind GROW. (That of the
 * small hash tables, grow_table, is inline in mem.h.)
 */
#include "base/mem.h"
#include "base/log.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void out_of_memory(size_t n)
{
    log_fatal("out of memory (allocating %zu bytes)", n);
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        out_of_memory(n);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        out_of_memory(SIZE_MAX);
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        out_of_memory(n * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        out_of_memory(n);
    return q;
}

void *xmalloc_array(size_t a, size_t b)
{
    if (b && a > SIZE_MAX / b)
        out_of_memory(SIZE_MAX);
    return xmalloc(a * b);
}

char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

void grow_array(void **items, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return;
    size_t n = *cap < 16 ? 16 : *cap + *cap / 2;
    if (n < need)
        n = need;
    if (size && n > SIZE_MAX / size)
        out_of_memory(SIZE_MAX);
    *items = xrealloc(*items, n * size);
    *cap = n;
}

void grow_array_zeroed(void **items, size_t *cap, size_t need, size_t size)
{
    size_t old = *cap;
    grow_array(items, cap, need, size);
    if (*cap > old)
        memset((char *)*items + old * size, 0, (*cap - old) * size);
}
