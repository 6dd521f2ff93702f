/* Equality of two parsed JSON values, for the JSON harnesses: the same
 * types, integers and floats kept apart, numbers equal as doubles (NaN
 * equal to NaN, -0.0 apart from 0.0 for floats), strings byte for byte,
 * members in the same order. Returns 1 when equal. */
#ifndef MSP_FUZZ_JTREE_H
#define MSP_FUZZ_JTREE_H

#include "base/value.h"

#include <math.h>
#include <string.h>

static inline int jtree_num_eq(double a, double b, int is_int)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return a == b && (is_int || signbit(a) == signbit(b));
}

static inline int jtree_eq(const jval *a, const jval *b)
{
    if (a->type != b->type)
        return 0;
    switch (a->type) {
    case J_NUMBER:
        return a->is_int == b->is_int && jtree_num_eq(a->u.num, b->u.num, a->is_int);
    case J_STRING:
        return a->len == b->len && (a->len == 0 || !memcmp(a->u.str, b->u.str, a->len));
    case J_ARRAY:
        if (a->len != b->len)
            return 0;
        for (uint32_t i = 0; i < a->len; i++)
            if (!jtree_eq(&a->u.items[i], &b->u.items[i]))
                return 0;
        return 1;
    case J_OBJECT:
        if (a->len != b->len)
            return 0;
        for (uint32_t i = 0; i < a->len; i++) {
            const jmember *x = &a->u.members[i], *y = &b->u.members[i];
            if (x->keylen != y->keylen || (x->keylen && memcmp(x->key, y->key, x->keylen)) || !jtree_eq(&x->val, &y->val))
                return 0;
        }
        return 1;
    default:
        return 1;
    }
}

#endif
