/* The JSON reader against cJSON (Debian's libcjson, a test-only oracle).
 *
 * On every input both accept, the two trees are equal, read as Python
 * reads them: objects as dicts (a repeated key keeps its first place and
 * its last value -- cJSON keeps every member, so the dict is made from its
 * list here), numbers by value. On every input cJSON refuses, ours refuses
 * too, but for the differences the README lists (Differences, "The readers
 * against cJSON and expat"):
 *   - NaN, Infinity and -Infinity, which Python writes and cJSON refuses;
 *   - numbers written with more than 63 characters, which cJSON cannot
 *     read (it copies a number into a 64-byte buffer) and Python can.
 * Ours refusing what cJSON accepts is allowed: cJSON is lax where Python's
 * json module is strict (control characters and invalid UTF-8 in strings,
 * "\u0000", leading zeros, any byte below 0x21 as white space, a BOM,
 * text after a NUL byte). */
#include "tests/fuzz/fuzz.h"

#include "base/arena.h"
#include "format/json.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t *input;
static size_t input_size;

static void differ(const char *what)
{
    fprintf(stderr, "fz_json_cjson: %s on input: %.*s\n", what, (int)(input_size > 400 ? 400 : input_size),
            (const char *)input);
    abort();
}

/* The last member of cJSON object o named key[0..n), or NULL. */
static const cJSON *last_member(const cJSON *o, const char *key, size_t n)
{
    const cJSON *found = NULL;
    for (const cJSON *c = o->child; c; c = c->next)
        if (strlen(c->string) == n && !memcmp(c->string, key, n))
            found = c;
    return found;
}

static void compare(const jval *v, const cJSON *c)
{
    switch (v->type) {
    case J_NULL:
        if (!cJSON_IsNull(c))
            differ("null differs");
        return;
    case J_TRUE:
    case J_FALSE:
        if (!(v->type == J_TRUE ? cJSON_IsTrue(c) : cJSON_IsFalse(c)))
            differ("boolean differs");
        return;
    case J_NUMBER:
        if (!cJSON_IsNumber(c) || !(v->u.num == c->valuedouble))
            differ("number differs");
        return;
    case J_STRING:
        if (!cJSON_IsString(c) || strlen(c->valuestring) != v->len || memcmp(c->valuestring, v->u.str, v->len))
            differ("string differs");
        return;
    case J_ARRAY: {
        if (!cJSON_IsArray(c) || (uint32_t)cJSON_GetArraySize(c) != v->len)
            differ("array differs");
        const cJSON *item = c->child;
        for (uint32_t i = 0; i < v->len; i++, item = item->next)
            compare(&v->u.items[i], item);
        return;
    }
    case J_OBJECT: {
        if (!cJSON_IsObject(c))
            differ("object differs");
        /* dict(pairs): the distinct keys in order of first appearance */
        uint32_t i = 0;
        for (const cJSON *m = c->child; m; m = m->next) {
            size_t n = strlen(m->string);
            const cJSON *first = c->child;
            while (strlen(first->string) != n || memcmp(first->string, m->string, n))
                first = first->next;
            if (first != m)
                continue;   /* a repeated key counts at its first place only */
            if (i >= v->len)
                differ("object has more keys in cJSON");
            const jmember *jm = &v->u.members[i++];
            if (jm->keylen != n || memcmp(jm->key, m->string, n))
                differ("key order differs");
            compare(&jm->val, last_member(c, m->string, n));
        }
        if (i != v->len)
            differ("object has more keys in ours");
        return;
    }
    default:
        differ("unknown type");
    }
}

/* The differences the README lists: a NaN / Infinity token, a number of
 * more than 63 characters. */
static int listed_difference(const jval *v)
{
    switch (v->type) {
    case J_NUMBER:
        return !isfinite(v->u.num) && (v->text[0] == 'N' || v->text[0] == 'I' || v->text[1] == 'I') ? 1 : v->len > 63;
    case J_ARRAY:
        for (uint32_t i = 0; i < v->len; i++)
            if (listed_difference(&v->u.items[i]))
                return 1;
        return 0;
    case J_OBJECT:
        for (uint32_t i = 0; i < v->len; i++)
            if (listed_difference(&v->u.members[i].val))
                return 1;
        return 0;
    default:
        return 0;
    }
}

/* A NaN or Infinity token anywhere outside strings: the tree may not show
 * it (a repeated key keeps its last value, as a dict does), cJSON refuses
 * it all the same. */
static int nonfinite_token(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '"') {
            for (i++; i < n && p[i] != '"'; i++)
                if (p[i] == '\\')
                    i++;
        } else if ((p[i] == 'N' && n - i >= 3 && !memcmp(p + i, "NaN", 3)) ||
                   (p[i] == 'I' && n - i >= 8 && !memcmp(p + i, "Infinity", 8))) {
            return 1;
        }
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    input = data, input_size = size;
    arena a;
    arena_init(&a, 4096);
    jval root;
    int rc = json_parse(fz_dir(), data, size, &a, &root);
    fz_done(rc);

    /* cJSON reads a NUL-terminated text and must end at its NUL */
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    const char *end = NULL;
    cJSON *c = cJSON_ParseWithLengthOpts(text, size + 1, &end, 1);
    if (rc == 0 && c)
        compare(&root, c);
    else if (rc == 0 && !c && !listed_difference(&root) && !nonfinite_token(data, size))
        differ("cJSON refuses, ours accepts");
    cJSON_Delete(c);
    free(text);
    arena_free(&a);
    return 0;
}
