/* Lookups in the value tree with Python's dict and truth semantics. */
#include "base/value.h"
#include "base/strmap.h"

#include <math.h>
#include <string.h>

const jval *json_get(const jval *obj, const char *key)
{
    if (!obj || obj->type != J_OBJECT)
        return NULL;
    size_t kl = strlen(key);
    for (uint32_t i = 0; i < obj->len; i++) {
        const jmember *m = &obj->u.members[i];
        if (m->keylen == kl && memcmp(m->key, key, kl) == 0)
            return &m->val;
    }
    return NULL;
}

const jval *json_member_value(const jval *obj, uint32_t i) { return &obj->u.members[i].val; }

size_t json_dict_members(const jmember *members, size_t n, jmember *out)
{
    size_t k = 0;
    if (n <= 16) {
        for (size_t i = 0; i < n; i++) {
            size_t j = 0;
            while (j < k && !(out[j].keylen == members[i].keylen && !memcmp(out[j].key, members[i].key, members[i].keylen)))
                j++;
            if (j == k)
                out[k++] = members[i];
            else
                out[j].val = members[i].val;
        }
        return k;
    }
    strmap seen;
    strmap_init(&seen, n);
    for (size_t i = 0; i < n; i++) {
        int added;
        size_t *slot = strmap_put(&seen, members[i].key, members[i].keylen, k, &added);
        if (added)
            out[k++] = members[i];
        else
            out[*slot].val = members[i].val;
    }
    strmap_free(&seen);
    return k;
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
