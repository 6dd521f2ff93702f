/* Lookups in the value tree with Python's dict and truth semantics. */
#include "base/value.h"

#include <math.h>
#include <string.h>

static int same_key(const jmember *a, const jmember *b)
{
    return a->keylen == b->keylen && (a->keylen == 0 || (a->key[0] == b->key[0] && !memcmp(a->key, b->key, a->keylen)));
}

const jval *json_get(const jval *obj, const char *key)
{
    if (!obj || obj->type != J_OBJECT)
        return NULL;
    size_t kl = strlen(key);
    for (uint32_t i = obj->len; i-- > 0;) {
        const jmember *m = &obj->u.members[i];
        if (m->keylen == kl && memcmp(m->key, key, kl) == 0)
            return &m->val;
    }
    return NULL;
}

const jval *json_member_value(const jval *obj, uint32_t i)
{
    const jmember *m = &obj->u.members[i];
    if (!obj->has_dups)
        return &m->val;
    for (uint32_t j = 0; j < i; j++)
        if (same_key(&obj->u.members[j], m))
            return NULL;
    const jval *val = &m->val;
    for (uint32_t j = i + 1; j < obj->len; j++)
        if (same_key(&obj->u.members[j], m))
            val = &obj->u.members[j].val;
    return val;
}

int json_key_is(const jmember *m, const char *key)
{
    size_t kl = strlen(key);
    return m->keylen == kl && memcmp(m->key, key, kl) == 0;
}

int json_str_eq(const jval *v, const char *s)
{
    if (!v || v->type != J_STRING)
        return 0;
    size_t n = strlen(s);
    return v->len == n && memcmp(v->u.str, s, n) == 0;
}

int json_truthy(const jval *v)
{
    if (!v)
        return 0;
    switch (v->type) {
    case J_NULL:
    case J_FALSE:
        return 0;
    case J_TRUE:
        return 1;
    case J_NUMBER:
        return v->u.num != 0 || isnan(v->u.num);
    default:
        return v->len != 0;
    }
}
