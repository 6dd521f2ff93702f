/* lib/yaml_write: the text of PyYAML's yaml.dump(mapping, sort_keys=False)
 * for mappings of strings. The expected texts were produced by PyYAML 6.0
 * (the Dumper msprobe's save_yaml uses); a round trip through our YAML
 * reader checks many more strings for the value they load back as. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "format/json.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "format/yaml_read.h"
#include "format/yaml_write.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *what, *json, *yaml;
} cases[] = {
    {"empty mapping",
     "{}",
     "{}\n"},
    {"plain",
     "{\"a\": \"N/A\", \"Tensor.__add__.0.forward.input.0\": \"Tensor.__add__.0.forward.input.0\"}",
     "a: N/A\nTensor.__add__.0.forward.input.0: Tensor.__add__.0.forward.input.0\n"},
    {"texts that would load as other types",
     "{\"yes\": \"no\", \"1\": \"1.5\", \"~\": \"null\", \"0x1F\": \"1e5\", \"2024-01-01\": \"=\", \"<<\": \"1_000\"}",
     "'yes': 'no'\n'1': '1.5'\n'~': 'null'\n'0x1F': 1e5\n'2024-01-01': '='\n'<<': '1_000'\n"},
    {"empty key and value",
     "{\"\": \"\"}",
     "? ''\n: ''\n"},
    {"indicators",
     "{\"- x\": \"? y\", \"x: y\": \"#z\", \"a #b\": \"a#b\", \"[a]\": \"{b}\", \"---x\": \"...y\", \"'q'\": \"\\\"d\\\"\", \"a'b\": \"%\"}",
     "'- x': '? y'\n'x: y': '#z'\n'a #b': a#b\n'[a]': '{b}'\n'---x': '...y'\n'''q''': '\"d\"'\na'b: '%'\n"},
    {"spaces, non-ASCII, controls",
     "{\" lead\": \"trail \", \"\303\251\": \"\344\270\255\360\237\230\200\", \"tab\\there\": \"bell\\u0007\", \"\302\205nl\": \"\357\273\277bom\"}",
     "' lead': 'trail '\n\"\\xE9\": \"\\u4E2D\\U0001F600\"\n\"tab\\there\": \"bell\\a\"\n? \"\\Nnl\"\n: \"\\uFEFFbom\"\n"},
    {"simple key limit",
     "{\"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\": \"v\", \"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\": \"v\", \"\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\": \"x\"}",
     "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk: v\n? kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\n: v\n? \"\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\\n  \\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\\n  \\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\\n  \\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\\n  \\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\\n  \\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\\n  \\xE9\\xE9\\xE9\"\n: x\n"},
    {"folded values",
     "{\"long\": \"word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word \", \"longer\": \"abcdefghij abcdefghij abcdefghij abcdefghij abcdefghij abcdefghij abcdefghij abcdefghij abcdefghij abcdefghij abcdefghij abcdefghij end\"}",
     "long: 'word word word word word word word word word word word word word word word\n  word word word word word word word word word word word word word word word '\nlonger: abcdefghij abcdefghij abcdefghij abcdefghij abcdefghij abcdefghij abcdefghij\n  abcdefghij abcdefghij abcdefghij abcdefghij abcdefghij end\n"},
    {"line breaks",
     "{\"ml\": \"line1\\nline2\\n\\nline3\", \"a\\nb\": \"c\"}",
     "ml: 'line1\n\n  line2\n\n\n  line3'\n? 'a\n\n  b'\n: c\n"},
    {"folded double quotes",
     "{\"dq\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx \303\251 yyyyyyyyyyyyyyyyyyyy zz\"}",
     "dq: \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx \\xE9 yyyyyyyyyyyyyyyyyyyy\\\n  \\ zz\"\n"},
    {"folded single quotes",
     "{\"sq\": \"it's it's it's it's it's it's it's it's it's it's it's it's it's it's it's it's it's it's it's it's \"}",
     "sq: 'it''s it''s it''s it''s it''s it''s it''s it''s it''s it''s it''s it''s it''s\n  it''s it''s it''s it''s it''s it''s it''s '\n"},
    {"runs of spaces",
     "{\"sp\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa  b  c d d d d d d d d d d\"}",
     "sp: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa  b  c\n  d d d d d d d d d d\n"},
};

static void dump_text(const char *json, strbuf *out)
{
    arena a;
    arena_init(&a, 4096);
    jval v;
    assert_int_equal(json_parse("case", json, strlen(json), &a, &v), 0);
    sb_reset(out);
    assert_int_equal(yaml_dump_str_map(out, &v), 0);
    arena_free(&a);
}

static void test_pyyaml_texts(void **state)
{
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dump_text(cases[i].json, &sb);
        if (strcmp(sb_str(&sb), cases[i].yaml) != 0)
            fail_msg("%s:\n--- want\n%s--- got\n%s", cases[i].what, cases[i].yaml, sb_str(&sb));
    }
    sb_free(&sb);
}

static void test_not_strings(void **state)
{
    arena a;
    arena_init(&a, 4096);
    jval v;
    strbuf sb = STRBUF_INIT;
    assert_int_equal(json_parse("case", "{\"a\": 1}", 8, &a, &v), 0);
    assert_int_equal(yaml_dump_str_map(&sb, &v), -1);
    assert_int_equal(json_parse("case", "[\"a\"]", 5, &a, &v), 0);
    assert_int_equal(yaml_dump_str_map(&sb, &v), -1);
    sb_free(&sb);
    arena_free(&a);
}

/* Whatever the strings, the text must load back as the same mapping. */
static void test_round_trip(void **state)
{
    static const char *const pieces[] = {"a", "Z", "0", "1", " ", "  ", ".", "-", ":", ": ", "#", " #", "'", "\"",
                                         "\\", "?", "!", "&", "*", "[", "]", "{", "}", ",", "%", "@", "`", "|", ">",
                                         "\n", "\t", "\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80", "\xc2\x85",
                                         "\xef\xbb\xbf", "yes", "null", "~", "1.5", "0x1F", "2024-01-01", "=", "<<",
                                         "---", "...", "N/A", "word word word word word ", "x", "\x7f"};
    const size_t np = sizeof pieces / sizeof pieces[0];
    uint32_t seed = 12345;
    strbuf json = STRBUF_INIT, out = STRBUF_INIT, key = STRBUF_INIT;
    for (int round = 0; round < 400; round++) {
        arena a;
        arena_init(&a, 4096);
        jval map = {.type = J_OBJECT};
        map.len = 1 + round % 4;
        jmember *m = arena_calloc(&a, map.len * sizeof *m);
        map.u.members = m;
        for (uint32_t i = 0; i < map.len; i++)
            for (int side = 0; side < 2; side++) {
                sb_reset(&key);
                seed = seed * 1103515245u + 12345u;
                int n = (int)(seed >> 16) % (round % 7 == 6 ? 60 : 9);
                for (int k = 0; k < n; k++) {
                    seed = seed * 1103515245u + 12345u;
                    sb_adds(&key, pieces[(seed >> 16) % np]);
                }
                /* keys must differ: number them */
                if (!side)
                    sb_addf(&key, "%u", i);
                char *s = arena_strndup(&a, key.buf ? key.buf : "", key.len);
                if (!side) {
                    m[i].key = s;
                    m[i].keylen = (uint32_t)key.len;
                } else {
                    m[i].val.type = J_STRING;
                    m[i].val.u.str = s;
                    m[i].val.len = (uint32_t)key.len;
                }
            }
        sb_reset(&out);
        assert_int_equal(yaml_dump_str_map(&out, &map), 0);
        jval back;
        if (yaml_parse("round trip", out.buf, out.len, &a, &back) != 0)
            fail_msg("round %d: the text does not parse: %s\n%s", round, err_message(), sb_str(&out));
        assert_int_equal(back.type, J_OBJECT);
        assert_int_equal(back.len, map.len);
        for (uint32_t i = 0; i < map.len; i++) {
            const jmember *b = &back.u.members[i];
            if (b->keylen != m[i].keylen || memcmp(b->key, m[i].key, b->keylen) != 0 || b->val.type != J_STRING ||
                b->val.len != m[i].val.len || memcmp(b->val.u.str, m[i].val.u.str, b->val.len) != 0)
                fail_msg("round %d, member %u reads back differently from\n%s", round, i, sb_str(&out));
        }
        arena_free(&a);
    }
    sb_free(&json);
    sb_free(&out);
    sb_free(&key);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pyyaml_texts),
        cmocka_unit_test(test_not_strings),
        cmocka_unit_test(test_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
