/* Python equality of JSON / YAML values (pyeq.h). */
#include "py/pyeq.h"

#include <string.h>

int py_json_number(const jval *v, double *x)
{
    if (!v)
        return 0;
    if (v->type == J_TRUE || v->type == J_FALSE) {
        *x = v->type == J_TRUE;
        return 1;
    }
    if (v->type == J_NUMBER) {
        *x = v->u.num;
        return 1;
    }
    return 0;
}

/* Two integer tokens: equal as Python ints (any size; "-0" is 0, and
 * leading zeros do not occur in JSON but may in YAML's text, which holds
 * Python's str() of the value, so plain text comparison is exact). */
static int int_text_equal(const jval *a, const jval *b)
{
    const char *x = a->text, *y = b->text;
    size_t nx = a->len, ny = b->len;
    if (nx == 2 && !memcmp(x, "-0", 2))
        x = "0", nx = 1;
    if (ny == 2 && !memcmp(y, "-0", 2))
        y = "0", ny = 1;
    return nx == ny && !memcmp(x, y, nx);
}

int py_json_equal(const jval *a, const jval *b)
{
    double x, y;
    if (a->type == J_NUMBER && b->type == J_NUMBER && a->is_int && b->is_int && a->text && b->text)
        return int_text_equal(a, b);
    if (py_json_number(a, &x) && py_json_number(b, &y))
        return x == y;
    if (a->type != b->type)
        return 0;
    switch (a->type) {
    case J_NULL:
        return 1;
    case J_STRING:
        return a->len == b->len && !memcmp(a->u.str, b->u.str, a->len);
    case J_ARRAY:
        if (a->len != b->len)
            return 0;
        for (uint32_t i = 0; i < a->len; i++)
            if (!py_json_equal(&a->u.items[i], &b->u.items[i]))
                return 0;
        return 1;
    case J_OBJECT:
        if (a->len != b->len)
            return 0;
        for (uint32_t i = 0; i < a->len; i++) {
            const jmember *m = &a->u.members[i];
            const jval *other = NULL;
            for (uint32_t j = 0; j < b->len && !other; j++)
                if (b->u.members[j].keylen == m->keylen && !memcmp(b->u.members[j].key, m->key, m->keylen))
                    other = &b->u.members[j].val;
            if (!other || !py_json_equal(&m->val, other))
                return 0;
        }
        return 1;
    default:
        return 0;
    }
}
