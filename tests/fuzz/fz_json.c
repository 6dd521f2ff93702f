/* The JSON reader (format/json.h) and the ways into it:
 *   - json_parse() on the input, which must fail cleanly or give a tree;
 *   - jp_skip() (validate without building) must agree with it;
 *   - jp_skim() must either decline or consume exactly the value
 *     jp_value() reads, and what it skims with JSKIM_NONFINITE /
 *     JSKIM_NONFINITE_TEXT stopped holds no such value;
 *   - an object walked member by member (jp_object_next, the way the dump
 *     loader reads "data") gives the keys as written;
 *   - a tree written back by jsonw_value() (json.dump's text) reads as the
 *     same tree. */
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/jtree.h"

#include "base/arena.h"
#include "base/strbuf.h"
#include "format/json.h"
#include "format/jsonw.h"

#include <stdio.h>
#include <stdlib.h>

#define CHECK(c)                                                                                           \
    do {                                                                                                   \
        if (!(c)) {                                                                                        \
            fprintf(stderr, "fz_json: %s\n", #c);                                                          \
            abort();                                                                                       \
        }                                                                                                  \
    } while (0)

static int has_nonfinite(const jval *v, unsigned kinds)
{
    switch (v->type) {
    case J_NUMBER:
        return (kinds & JSKIM_NONFINITE) && !isfinite(v->u.num);
    case J_STRING: {
        if (!(kinds & JSKIM_NONFINITE_TEXT))
            return 0;
        size_t n = v->len;
        const char *s = v->u.str;
        if (n == 4 && s[0] == '-')
            s++, n--;
        return n == 3 && (!strncasecmp(s, "nan", 3) || !strncasecmp(s, "inf", 3)) && (v->len == 3 || (s[0] | 0x20) == 'i');
    }
    case J_ARRAY:
        for (uint32_t i = 0; i < v->len; i++)
            if (has_nonfinite(&v->u.items[i], kinds))
                return 1;
        return 0;
    case J_OBJECT:
        for (uint32_t i = 0; i < v->len; i++)
            if (has_nonfinite(&v->u.members[i].val, kinds))
                return 1;
        return 0;
    default:
        return 0;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    const char *path = fz_dir();   /* named in messages only */
    arena a;
    arena_init(&a, 4096);
    jval root;
    int rc = json_parse(path, data, size, &a, &root);
    fz_done(rc);

    /* validation alone agrees */
    jparser jp;
    jp_init(&jp, path, data, size);
    int rs = jp_skip(&jp);
    if (rs == 0)
        rs = jp_end(&jp);
    jp_free(&jp);
    fz_done(rs);
    CHECK((rc == 0) == (rs == 0));

    /* skimming: declines, or reads the very value jp_value reads */
    static const unsigned stops[] = {0, JSKIM_NONFINITE, JSKIM_NONFINITE_TEXT};
    for (int k = 0; k < 3; k++) {
        jparser s1, s2;
        jp_init(&s1, path, data, size);
        jp_init(&s2, path, data, size);
        jp_peek(&s1);
        const char *at = s1.p;
        int sk = jp_skim(&s1, stops[k]);
        CHECK(sk == 0 || sk == 1);
        if (sk == 0) {
            CHECK(s1.p == at);
        } else {
            jval v;
            arena b;
            arena_init(&b, 4096);
            int rv = jp_value(&s2, &b, &v);
            fz_done(rv);
            CHECK(rv == 0 && s2.p == s1.p);
            CHECK(!has_nonfinite(&v, stops[k]));
            arena_free(&b);
        }
        jp_free(&s1);
        jp_free(&s2);
    }

    if (rc == 0 && root.type == J_OBJECT) {
        /* the member-wise walk: keys as written, each followed by its value */
        jparser w;
        jp_init(&w, path, data, size);
        arena b;
        arena_init(&b, 4096);
        CHECK(jp_object_begin(&w) == 0);
        const char *key;
        size_t klen, n = 0;
        int r;
        while ((r = jp_object_next(&w, &b, &key, &klen)) == 1) {
            CHECK(jp_skip(&w) == 0);
            n++;
        }
        CHECK(r == 0 && jp_end(&w) == 0 && n >= root.len);
        jp_free(&w);
        arena_free(&b);
    }

    if (rc == 0) {
        /* json.dump's text reads back as the same tree */
        strbuf sb = STRBUF_INIT;
        jsonw_value(&sb, &root, size & 1 ? 1 : 0, 0);
        arena b;
        arena_init(&b, 4096);
        jval again;
        int r2 = json_parse(path, sb.len ? sb.buf : "", sb.len, &b, &again);
        if (r2 != 0 || !jtree_eq(&root, &again)) {
            fprintf(stderr, "fz_json: round trip differs: %s\n", sb_str(&sb));
            abort();
        }
        sb_free(&sb);
        arena_free(&b);
    }
    arena_free(&a);
    return 0;
}
