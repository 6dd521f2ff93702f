/* YAML reader: PyYAML safe_load typing (the table below was produced by
 * PyYAML 6.0 on CPython 3.11), Python dict semantics for duplicate and
 * merged keys, aliases and the alias-bomb limit, clean one-line errors with
 * line and column for malformed or truncated input, one document per file,
 * and the file checks (suffix, size cap, symbolic links).
 *
 * Documents are copied into buffers of exactly their length, so that
 * AddressSanitizer catches any read past the end of the input. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/arena.h"
#include "format/json.h"
#include "base/log.h"
#include "base/err.h"
#include "py/pystr.h"
#include "base/strbuf.h"
#include "testutil.h"
#include "format/yaml_read.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    char *buf;
    arena a;
    jval v;
} doc;

static int parse_n(doc *d, const char *text, size_t n)
{
    d->buf = malloc(n ? n : 1);
    assert_non_null(d->buf);
    memcpy(d->buf, text, n);
    arena_init(&d->a, 4096);
    err_clear();
    return yaml_parse("doc.yaml", d->buf, n, &d->a, &d->v);
}

static int parse(doc *d, const char *text) { return parse_n(d, text, strlen(text)); }

static void doc_free(doc *d)
{
    arena_free(&d->a);
    free(d->buf);
}

/* Python's repr() of what safe_load returns, keys as str(); dates as TS. */
static void repr(strbuf *sb, const jval *v)
{
    if (yaml_is_timestamp(v)) {
        sb_adds(sb, "TS");
    } else if (v->type == J_ARRAY) {
        sb_addc(sb, '[');
        for (uint32_t i = 0; i < v->len; i++) {
            if (i)
                sb_adds(sb, ", ");
            repr(sb, &v->u.items[i]);
        }
        sb_addc(sb, ']');
    } else if (v->type == J_OBJECT) {
        sb_addc(sb, '{');
        for (uint32_t i = 0; i < v->len; i++) {
            if (i)
                sb_adds(sb, ", ");
            py_repr_str(sb, v->u.members[i].key, v->u.members[i].keylen);
            sb_adds(sb, ": ");
            repr(sb, &v->u.members[i].val);
        }
        sb_addc(sb, '}');
    } else {
        py_repr_json(sb, v);
    }
}

static const struct {
    const char *yaml, *python;
} pyyaml[] = {
    {"k: 0o17\n", "{'k': '0o17'}"},
    {"k: 017\n", "{'k': 15}"},
    {"k: 0_17\n", "{'k': 15}"},
    {"k: 0b101\n", "{'k': 5}"},
    {"k: 0x1F\n", "{'k': 31}"},
    {"k: 0x_1f\n", "{'k': 31}"},
    {"k: 1_000\n", "{'k': 1000}"},
    {"k: +12\n", "{'k': 12}"},
    {"k: -0\n", "{'k': 0}"},
    {"k: 08\n", "{'k': '08'}"},
    {"k: 1:30\n", "{'k': 90}"},
    {"k: -1:30:00\n", "{'k': -5400}"},
    {"k: 1:60\n", "{'k': '1:60'}"},
    {"k: 1.5\n", "{'k': 1.5}"},
    {"k: 1.\n", "{'k': 1.0}"},
    {"k: .5\n", "{'k': 0.5}"},
    {"k: -.5\n", "{'k': '-.5'}"},
    {"k: 1.0e4\n", "{'k': '1.0e4'}"},
    {"k: 1.0e+4\n", "{'k': 10000.0}"},
    {"k: 1e+4\n", "{'k': '1e+4'}"},
    {"k: 1_0.5_\n", "{'k': 10.5}"},
    {"k: .inf\n", "{'k': inf}"},
    {"k: -.Inf\n", "{'k': -inf}"},
    {"k: +.INF\n", "{'k': inf}"},
    {"k: .NaN\n", "{'k': nan}"},
    {"k: -.nan\n", "{'k': '-.nan'}"},
    {"k: 1:30.5\n", "{'k': 90.5}"},
    {"k: 190:20:30.15\n", "{'k': 685230.15}"},
    {"k: y\n", "{'k': 'y'}"},
    {"k: n\n", "{'k': 'n'}"},
    {"k: yes\n", "{'k': True}"},
    {"k: On\n", "{'k': True}"},
    {"k: oFF\n", "{'k': 'oFF'}"},
    {"k: TRUE\n", "{'k': True}"},
    {"k: tRue\n", "{'k': 'tRue'}"},
    {"k: ~\n", "{'k': None}"},
    {"k: null\n", "{'k': None}"},
    {"k: Null\n", "{'k': None}"},
    {"k: nULL\n", "{'k': 'nULL'}"},
    {"k: \n", "{'k': None}"},
    {"k: None\n", "{'k': 'None'}"},
    {"k: NaN\n", "{'k': 'NaN'}"},
    {"k: =x\n", "{'k': '=x'}"},
    {"k: 0\n", "{'k': 0}"},
    {"k: 00\n", "{'k': 0}"},
    {"k: 0x\n", "{'k': '0x'}"},
    {"k: 0b\n", "{'k': '0b'}"},
    {"k: +\n", "{'k': '+'}"},
    {"k: 0.\n", "{'k': 0.0}"},
    {"k: -0.0\n", "{'k': -0.0}"},
    {"k: 12e3\n", "{'k': '12e3'}"},
    {"k: 0777777777777777777777777\n", "{'k': 4722366482869645213695}"},
    {"k: 123456789012345678901234567890\n", "{'k': 123456789012345678901234567890}"},
    {"k: -0x10\n", "{'k': -16}"},
    {"k: +0b1_1\n", "{'k': 3}"},
    {"k: 1.5e+400\n", "{'k': inf}"},
    {"k: 0_\n", "{'k': 0}"},
    {"k: 0.1e-1_0\n", "{'k': '0.1e-1_0'}"},
    {"k: 1e-5\n", "{'k': '1e-5'}"},
    {"k: 0.00001\n", "{'k': 1e-05}"},
    {"k: '0x10'\n", "{'k': '0x10'}"},
    {"k: \"yes\"\n", "{'k': 'yes'}"},
    {"k: ! 12\n", "{'k': 12}"},
    {"k: ! '12'\n", "{'k': 12}"},
    {"k: !!str 12\n", "{'k': '12'}"},
    {"k: !!int '0x1F'\n", "{'k': 31}"},
    {"k: !!int 0o17\n", "{'k': 15}"},
    {"k: !!float 1e5\n", "{'k': 100000.0}"},
    {"k: !!float '-1_0.5'\n", "{'k': -10.5}"},
    {"k: !!float inf\n", "{'k': inf}"},
    {"k: !!bool YES\n", "{'k': True}"},
    {"k: !!bool 'oN'\n", "{'k': True}"},
    {"k: !!null abc\n", "{'k': None}"},
    {"k: !!str\n", "{'k': ''}"},
    {"k: |\n  12\n\n", "{'k': '12\\n'}"},
    {"k: >\n  yes\n\n", "{'k': 'yes\\n'}"},
    {"k: 'it''s'\n", "{'k': \"it's\"}"},
    {"k: 2024-01-01\n", "{'k': TS}"},
    {"k: 2001-12-14 21:59:43.10 -5\n", "{'k': TS}"},
    {"k: 2024-1-1T1:02:03Z\n", "{'k': TS}"},
    {"k: 12:30:45\n", "{'k': 45045}"},
    {"k: [yes, no, ~, '']\n", "{'k': [True, False, None, '']}"},
    {"a: 1\na: 2\n", "{'a': 2}"},
    {"a: &x [1, 2]\nb: *x\n", "{'a': [1, 2], 'b': [1, 2]}"},
    {"base: &b {x: 1, y: 2}\nd: {<<: *b, y: 3}\n", "{'base': {'x': 1, 'y': 2}, 'd': {'x': 1, 'y': 3}}"},
    {"a: &a {x: 1}\nb: &b {x: 2, y: 3}\nc: {<<: [*a, *b], z: 0}\n", "{'a': {'x': 1}, 'b': {'x': 2, 'y': 3}, 'c': {'x': 1, 'y': 3, 'z': 0}}"},
    {"a: &a {x: 1, x: 5}\nc: {x: 0, <<: *a}\n", "{'a': {'x': 5}, 'c': {'x': 0}}"},
    {"{1: a, 1.5: b, null: d, 0x10: f, no: g}\n", "{'1': 'a', '1.5': 'b', 'None': 'd', '16': 'f', 'False': 'g'}"},
    {"=: 1\n", "{'=': 1}"},
    {"", "None"},
    {"---\n", "None"},
    {"# only a comment\n", "None"},
    {"- a\n- b: 1\n  c: 2\n- [x]\n", "['a', {'b': 1, 'c': 2}, ['x']]"},
    {"a: 1\n...\n", "{'a': 1}"},
    {"%YAML 1.1\n---\nk: v\n", "{'k': 'v'}"},
    {"k: !!map {a: 1}\n", "{'k': {'a': 1}}"},
    {"k: !!seq [1]\n", "{'k': [1]}"},
    {"<<: {a: 1}\nb: 2\n", "{'a': 1, 'b': 2}"},
    {"a: [1, 2]\n<<: {a: 3}\n", "{'a': [1, 2]}"},
    {"'<<': {a: 1}\n", "{'<<': {'a': 1}}"},
    {"a: !!str\nb: !!null\n", "{'a': '', 'b': None}"},
    {"aliases: [&a 1, *a, *a]\n", "{'aliases': [1, 1, 1]}"},
    {"- &a\n  - 1\n- *a\n", "[[1], [1]]"},
    {"k: >-\n  folded\n  text\n\n  para\n", "{'k': 'folded text\\npara'}"},
    {"k: v\r\nj: w\r\n", "{'k': 'v', 'j': 'w'}"},
};

static void test_types_match_pyyaml(void **state)
{
    int bad = 0;
    for (size_t i = 0; i < sizeof pyyaml / sizeof pyyaml[0]; i++) {
        doc d;
        strbuf sb = STRBUF_INIT;
        if (parse(&d, pyyaml[i].yaml) != 0)
            sb_addf(&sb, "error: %s", err_message());
        else
            repr(&sb, &d.v);
        if (strcmp(sb_str(&sb), pyyaml[i].python)) {
            print_error("%s  -> %s, PyYAML: %s\n", pyyaml[i].yaml, sb_str(&sb), pyyaml[i].python);
            bad++;
        }
        sb_free(&sb);
        doc_free(&d);
    }
    assert_int_equal(bad, 0);
}

static const jval *get(const jval *obj, const char *key)
{
    const jval *v = json_get(obj, key);
    if (!v)
        print_error("no key %s\n", key);
    assert_non_null(v);
    return v;
}

static void assert_number(const jval *v, int is_int, double num, const char *text)
{
    assert_int_equal(v->type, J_NUMBER);
    assert_int_equal(v->is_int, is_int);
    if (isnan(num))
        assert_true(isnan(v->u.num));
    else
        assert_true(v->u.num == num);
    assert_int_equal(v->len, strlen(text));
    assert_memory_equal(v->text, text, v->len);
}

static void test_numbers_keep_python_text(void **state)
{
    doc d;
    assert_int_equal(parse(&d, "hex: 0x1F\noct: 017\nbig: 123456789012345678901234567890\nneg: -1_000\n"
                               "f: 1.0e+4\ng: 1.5e-5\ninf: -.inf\nnan: .nan\nsex: 1:30\nzero: -0\n"),
                     0);
    assert_number(get(&d.v, "hex"), 1, 31, "31");
    assert_number(get(&d.v, "oct"), 1, 15, "15");
    assert_number(get(&d.v, "big"), 1, 123456789012345678901234567890.0, "123456789012345678901234567890");
    assert_number(get(&d.v, "neg"), 1, -1000, "-1000");
    assert_number(get(&d.v, "f"), 0, 10000, "10000.0");
    assert_number(get(&d.v, "g"), 0, 1.5e-5, "1.5e-05");
    assert_number(get(&d.v, "inf"), 0, -INFINITY, "-inf");
    assert_number(get(&d.v, "nan"), 0, NAN, "nan");
    assert_number(get(&d.v, "sex"), 1, 90, "90");
    assert_number(get(&d.v, "zero"), 1, 0, "0");
    doc_free(&d);
}

static void test_duplicate_keys_last_wins(void **state)
{
    doc d;
    assert_int_equal(parse(&d, "a: 1\nb: 2\na: 3\nc: {x: 1, x: [2]}\n"), 0);
    assert_int_equal(d.v.type, J_OBJECT);
    /* one member per key, at its first position, with its last value */
    assert_int_equal(d.v.len, 3);
    assert_memory_equal(d.v.u.members[0].key, "a", 1);
    assert_number(&d.v.u.members[0].val, 1, 3, "3");
    assert_memory_equal(d.v.u.members[1].key, "b", 1);
    const jval *c = get(&d.v, "c");
    assert_int_equal(c->len, 1);
    assert_int_equal(get(c, "x")->type, J_ARRAY);
    doc_free(&d);

    /* many keys go through the hash map path */
    strbuf sb = STRBUF_INIT;
    for (int i = 0; i < 100; i++)
        sb_addf(&sb, "k%d: %d\n", i % 40, i);
    assert_int_equal(parse(&d, sb_str(&sb)), 0);
    assert_int_equal(d.v.len, 40);
    assert_memory_equal(d.v.u.members[39].key, "k39", 3);
    assert_number(&d.v.u.members[0].val, 1, 80, "80");
    assert_number(&d.v.u.members[39].val, 1, 79, "79");
    doc_free(&d);
    sb_free(&sb);
}

static void test_aliases_and_merges(void **state)
{
    doc d;
    assert_int_equal(parse(&d, "base: &b {x: 1, y: [1, 2]}\nuse: *b\nlist: [*b, *b]\n"
                               "over: {<<: *b, x: 9}\nmulti: {<<: [{p: 1}, {p: 2, q: 2}], r: 3}\n"),
                     0);
    const jval *base = get(&d.v, "base"), *use = get(&d.v, "use");
    assert_int_equal(use->type, J_OBJECT);
    /* an alias shares the anchored value */
    assert_ptr_equal(use->u.members, base->u.members);
    assert_int_equal(get(&d.v, "list")->len, 2);
    const jval *over = get(&d.v, "over");
    assert_int_equal(over->len, 2);
    assert_number(get(over, "x"), 1, 9, "9");
    assert_memory_equal(over->u.members[0].key, "x", 1);
    const jval *multi = get(&d.v, "multi");
    /* the first mapping of a merge list wins, own keys win over merged ones */
    assert_number(get(multi, "p"), 1, 1, "1");
    assert_number(get(multi, "q"), 1, 2, "2");
    assert_number(get(multi, "r"), 1, 3, "3");
    doc_free(&d);
}

static void expect_fail(const char *text, const char *what, const char *where)
{
    doc d;
    if (parse(&d, text) != -1) {
        print_error("accepted: %s\n", text);
        fail();
    }
    tu_assert_err("doc.yaml: malformed YAML at ", where, what);
    doc_free(&d);
}

static void test_alias_bomb_is_refused(void **state)
{
    /* nine levels of ten aliases: a billion values once expanded */
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for (int i = 1; i < 10; i++) {
        sb_addf(&sb, "a%d: &a%d [", i, i);
        for (int k = 0; k < 10; k++)
            sb_addf(&sb, "%s*a%d", k ? ", " : "", i - 1);
        sb_adds(&sb, "]\n");
    }
    expect_fail(sb_str(&sb), "alias bomb", "line 6, column");
    sb_free(&sb);

    /* a few levels are fine */
    doc d;
    assert_int_equal(parse(&d, "a: &a [1, 2]\nb: &b [*a, *a, *a]\nc: [*b, *b]\n"), 0);
    assert_int_equal(get(&d.v, "c")->u.items[1].u.items[2].len, 2);
    doc_free(&d);
}

static void test_alias_errors(void **state)
{
    expect_fail("a: *nope\n", "found undefined alias 'nope'", "line 1, column 4");
    expect_fail("a: &r [1, *r]\n", "found recursive alias 'r'", "line 1, column 11");
    expect_fail("a: &x 1\nb: &x 2\n", "found duplicate anchor 'x'", "line 2, column 4");
}

static void test_malformed(void **state)
{
    expect_fail("a: [1, 2\n", "did not find expected ',' or ']'", "line 2, column 1");
    expect_fail("a: 'open\n", "found unexpected end of stream", "line 2, column 1");
    expect_fail("a: b: c\n", "mapping values are not allowed in this context", "line 1, column 5");
    expect_fail("\tk: 1\n", "found character that cannot start any token", "line 1, column 1");
    expect_fail("k: \"\\q\"\n", "found unknown escape character", "line 1, column 5");
    expect_fail("k: 1\n  bad: 2\nx\n", "", "line");
    expect_fail("ok: 1\nk: v\x01\n", "control characters are not allowed", "line 2, column 5");
    expect_fail("k: \xff\n", "invalid leading UTF-8 octet", "line 1, column 4");
    expect_fail("...\n", "did not find expected node content", "line 1, column 1");
    expect_fail("--- 1\n--- 2\n", "expected a single document in the stream but found another document",
                "line 2, column 1");
    expect_fail("[<<]\n", "could not determine a constructor for the tag 'tag:yaml.org,2002:merge'", "line 1");
    expect_fail("k: =\n", "tag:yaml.org,2002:value", "line 1, column 4");
    expect_fail("k: !custom 1\n", "could not determine a constructor for the tag '!custom'", "line 1, column 4");
    expect_fail("k: !!binary aGk=\n", "tag:yaml.org,2002:binary' are not supported", "line 1, column 4");
    expect_fail("k: !!set {a, b}\n", "tag:yaml.org,2002:set' are not supported", "line 1, column 4");
    expect_fail("k: !!int x1\n", "'x1' is not a valid !!int", "line 1, column 4");
    expect_fail("k: !!float abc\n", "is not a valid !!float", "line 1");
    expect_fail("k: !!bool maybe\n", "is not a valid !!bool", "line 1");
    expect_fail("k: 0x_\n", "is not a valid !!int", "line 1");
    expect_fail("k: 2023-02-29\n", "is not a valid date or time", "line 1");
    expect_fail("k: 2024-01-01 10:00:00 +25\n", "is not a valid date or time", "line 1");
    expect_fail("{[1]: x}\n", "found unhashable key", "line 1, column 2");
    expect_fail("<<: 1\n", "expected a mapping or list of mappings for merging", "line 1, column 5");
    expect_fail("<<: [{a: 1}, 2]\n", "expected a mapping for merging", "line 1");
    /* Python's int() refuses more than 4300 decimal digits */
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "k: 1");
    for (int i = 0; i < 4400; i++)
        sb_addc(&sb, '0');
    expect_fail(sb_str(&sb), "is not a valid !!int", "line 1");
    sb_reset(&sb);
    for (int i = 0; i < YAML_MAX_DEPTH + 5; i++)
        sb_addc(&sb, '[');
    expect_fail(sb_str(&sb), "nested deeper than", "line 1");
    sb_free(&sb);
}

static void test_empty_and_null_documents(void **state)
{
    static const char *const empty[] = {"", "\n", "# a comment\n", "---\n", "--- ~\n", "---\n...\n", "null\n"};
    for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
        doc d;
        assert_int_equal(parse(&d, empty[i]), 0);
        assert_int_equal(d.v.type, J_NULL);
        doc_free(&d);
    }
}

/* Every prefix of a real config either parses or fails cleanly. */
static void test_truncated_at_every_prefix(void **state)
{
    static const char sample[] =
        "# merge_result config\n"
        "api:\n"
        "- Distributed.all_reduce\n"
        "- 'Functional.linear'\n"
        "compare_index: [Max diff, \"L2norm diff\", MeanRelativeErr]\n"
        "anchors: &a {x: 0x1F, y: 1.5e+3, z: ~, t: yes}\n"
        "more:\n  <<: *a\n  w: |\n    block\n    text\n"
        "when: 2024-01-01\n";
    doc full;
    assert_int_equal(parse(&full, sample), 0);
    assert_int_equal(full.v.len, 5);
    doc_free(&full);
    int ok = 0, failed = 0;
    for (size_t n = 0; n < sizeof sample - 1; n++) {
        doc d;
        int rc = parse_n(&d, sample, n);
        if (rc == 0) {
            ok++;
            assert_true(d.v.type == J_NULL || d.v.type == J_OBJECT || d.v.type == J_STRING);
        } else {
            failed++;
            tu_assert_err("doc.yaml: malformed YAML at line ");
        }
        doc_free(&d);
    }
    /* both outcomes occur: the test sees cut flow mappings and quotes */
    assert_true(ok > 20);
    assert_true(failed > 20);
}

static void test_timestamps_are_marked(void **state)
{
    doc d;
    assert_int_equal(parse(&d, "d: 2024-01-01\ns: '2024-01-01'\nt: 2001-12-14t21:59:43.10-05:00\n"), 0);
    assert_true(yaml_is_timestamp(get(&d.v, "d")));
    assert_false(yaml_is_timestamp(get(&d.v, "s")));
    assert_true(yaml_is_timestamp(get(&d.v, "t")));
    assert_int_equal(get(&d.v, "d")->len, 10);
    doc_free(&d);
}

static void test_files(void **state)
{
    arena a;
    arena_init(&a, 4096);
    jval v;
    char *good = tu_write(tu_dir, "cfg.yaml", "api: [a]\n", (size_t)-1);
    char *yml = tu_write(tu_dir, "cfg.yml", "api: [a]\n", (size_t)-1);
    char *txt = tu_write(tu_dir, "cfg.txt", "api: [a]\n", (size_t)-1);
    assert_int_equal(yaml_load_file(good, YAML_SUFFIX_YAML, &a, &v), 0);
    assert_int_equal(v.type, J_OBJECT);
    assert_int_equal(yaml_load_file(yml, YAML_SUFFIX_YAML_OR_YML, &a, &v), 0);
    assert_int_equal(yaml_load_file(txt, YAML_ANY_NAME, &a, &v), 0);
    err_clear();
    assert_int_equal(yaml_load_file(yml, YAML_SUFFIX_YAML, &a, &v), -1);
    tu_assert_err("cfg.yml: The ", "should be a .yaml file!");
    err_clear();
    assert_int_equal(yaml_load_file(txt, YAML_SUFFIX_YAML_OR_YML, &a, &v), -1);
    tu_assert_err("cfg.txt: ", ".yml");

    char *link = tu_path(tu_dir, "link.yaml");
    assert_int_equal(symlink(good, link), 0);
    err_clear();
    assert_int_equal(yaml_load_file(link, YAML_SUFFIX_YAML, &a, &v), -1);
    tu_assert_err("link.yaml");

    /* a sparse file of exactly 1 GiB is refused before anything is read */
    char *huge = tu_path(tu_dir, "huge.yaml");
    FILE *f = fopen(huge, "wb");
    assert_non_null(f);
    assert_int_equal(ftruncate(fileno(f), (off_t)YAML_MAX_FILE_SIZE), 0);
    fclose(f);
    err_clear();
    assert_int_equal(yaml_load_file(huge, YAML_SUFFIX_YAML, &a, &v), -1);
    tu_assert_err("huge.yaml", "too large");

    err_clear();
    char *missing = tu_path(tu_dir, "missing.yaml");
    assert_int_equal(yaml_load_file(missing, YAML_SUFFIX_YAML, &a, &v), -1);
    tu_assert_err("missing.yaml");
    arena_free(&a);
    free(good);
    free(yml);
    free(txt);
    free(link);
    free(huge);
    free(missing);
}

int main(void)
{
    log_set_prog("test_yaml");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_types_match_pyyaml),
        cmocka_unit_test(test_numbers_keep_python_text),
        cmocka_unit_test(test_duplicate_keys_last_wins),
        cmocka_unit_test(test_aliases_and_merges),
        cmocka_unit_test(test_alias_bomb_is_refused),
        cmocka_unit_test(test_alias_errors),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_empty_and_null_documents),
        cmocka_unit_test(test_truncated_at_every_prefix),
        cmocka_unit_test(test_timestamps_are_marked),
        cmocka_unit_test(test_files),
    };
    return cmocka_run_group_tests(tests, tu_dir_setup, tu_dir_teardown);
}
