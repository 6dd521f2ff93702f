/* The value tree that json.loads() and yaml.safe_load() produce in Python:
 * null, booleans, numbers (with the text they were written as: Python keeps
 * 3 and 3.0 apart), strings, arrays and objects in key order. Objects are
 * dicts: each key once, at the position where it first appeared, with the
 * value it was given last -- the readers apply that when they build an
 * object (json_dict_members, in linear time), so no consumer ever meets a
 * repeated key. The JSON and YAML readers build it; the Python spellings
 * (py/pystr.h) and the writers read it. Values live in an arena. */
#ifndef MSP_VALUE_H
#define MSP_VALUE_H

#include <stddef.h>
#include <stdint.h>

typedef enum { J_NULL, J_FALSE, J_TRUE, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT } jtype;

typedef struct jval jval;
typedef struct jmember jmember;

struct jval {
    uint8_t type;      /* jtype */
    uint8_t is_int;    /* J_NUMBER written as an integer (Python int) */
    uint32_t len;      /* J_STRING: bytes; J_ARRAY: items; J_OBJECT: members; J_NUMBER: text length */
    union {
        double num;           /* J_NUMBER (NaN/Infinity tokens give the IEEE values) */
        const char *str;      /* J_STRING: UTF-8, not NUL-terminated */
        jval *items;          /* J_ARRAY */
        jmember *members;     /* J_OBJECT */
    } u;
    const char *text;  /* J_NUMBER: the token as written, e.g. "-12", "1e-05", "NaN" */
};

struct jmember {
    const char *key;   /* not NUL-terminated */
    uint32_t keylen;
    jval val;
};

/* Object lookup; NULL if absent or if `obj` is not an object. */
const jval *json_get(const jval *obj, const char *key);
int json_key_is(const jmember *m, const char *key);
int json_str_eq(const jval *v, const char *s);   /* J_STRING equal to s */

/* The value of member i (objects hold each key once, so never NULL). */
const jval *json_member_value(const jval *obj, uint32_t i);

/* Python's dict(pairs): copy members[0..n) to out (room for n) keeping each
 * key once, at its first position, with its last value. Returns the number
 * of members written. Linear time (a hash set beyond a few members). */
size_t json_dict_members(const jmember *members, size_t n, jmember *out);

/* Python truthiness of a JSON value: null/false/0/""/[]/{} are false. */
int json_truthy(const jval *v);

#endif
