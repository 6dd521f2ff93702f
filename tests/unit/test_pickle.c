/* The inert pickle machine: hand-assembled pickles for every supported
 * opcode, the data constructors, refused globals and opcodes, malformed
 * streams (one test each), and a damage sweep. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/err.h"
#include "format/pickle.h"

#include <stdlib.h>
#include <string.h>

static const pk_global allowed[] = {
    { "collections", "OrderedDict" }, { "_codecs", "encode" }, { "builtins", "bytes" },
    { "builtins", "set" }, { "builtins", "frozenset" }, { "torch._utils", "_rebuild_tensor_v2" },
    { "argparse", "Namespace" },
};
enum { A_ODICT, A_ENCODE, A_BYTES, A_SET, A_FROZENSET, A_REBUILD, A_NAMESPACE, N_ALLOWED };

static arena a;
static void *kept[256];
static size_t n_kept;

static int setup(void **state)
{
    (void)state;
    arena_init(&a, 4096);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    while (n_kept)
        free(kept[--n_kept]);
    arena_free(&a);
    return 0;
}

/* Parse from an exact-size heap copy, so ASan sees any overrun; the copy
 * stays until teardown because strings point into it. */
static int parse_n(const char *bytes, size_t n, pk_value **out)
{
    unsigned char *copy = malloc(n ? n : 1);
    memcpy(copy, bytes, n);
    assert_true(n_kept < 256);
    kept[n_kept++] = copy;
    err_clear();
    return pickle_parse(&a, "t.pt", "t/data.pkl", copy, n, allowed, N_ALLOWED, out);
}

static pk_value *ok(const char *bytes, size_t n)
{
    pk_value *v;
    if (parse_n(bytes, n, &v) != 0)
        fail_msg("rejected: %s", err_message());
    return v;
}

#define OK(lit) ok(lit, sizeof(lit) - 1)

static void expect_int(const char *bytes, size_t n, int64_t want)
{
    pk_value *v = ok(bytes, n);
    assert_int_equal(v->kind, PK_INT);
    assert_int_equal(v->u.i, want);
}

#define INT(lit, want) expect_int(lit, sizeof(lit) - 1, want)

static void test_numbers(void **state)
{
    (void)state;
    INT("\200\002K\005.", 5);
    INT("M\064\022.", 0x1234);
    INT("J\377\377\377\377.", -1);
    INT("J\000\000\000\200.", INT32_MIN);
    INT("\212\000.", 0);
    INT("\212\001\377.", -1);
    INT("\212\002\000\200.", -32768);
    INT("\212\002\377\000.", 255);
    INT("\212\010\377\377\377\377\377\377\377\177.", INT64_MAX);
    INT("\212\010\000\000\000\000\000\000\000\200.", INT64_MIN);
    INT("\213\002\000\000\000\001\001.", 257);
    INT("I42\n.", 42);
    INT("I-7\n.", -7);
    INT("L123L\n.", 123);
    INT("L-9223372036854775808L\n.", INT64_MIN);
    assert_int_equal(OK("\212\011\000\000\000\000\000\000\000\000\001.")->kind, PK_BIGINT);
    pk_value *v = OK("I01\n.");
    assert_true(v->kind == PK_BOOL && v->u.i == 1);
    v = OK("I00\n.");
    assert_true(v->kind == PK_BOOL && v->u.i == 0);
    v = OK("\210.");
    assert_true(v->kind == PK_BOOL && v->u.i == 1);
    v = OK("\211.");
    assert_true(v->kind == PK_BOOL && v->u.i == 0);
    v = OK("G\077\370\000\000\000\000\000\000.");
    assert_true(v->kind == PK_FLOAT && v->u.f == 1.5);
    v = OK("F-2.25\n.");
    assert_true(v->kind == PK_FLOAT && v->u.f == -2.25);
    assert_int_equal(OK("N.")->kind, PK_NONE);
}

static void expect_str(pk_value *v, pk_kind kind, const char *want, size_t n)
{
    assert_int_equal(v->kind, kind);
    assert_int_equal(v->u.str.len, n);
    assert_memory_equal(v->u.str.ptr, want, n);
}

static void test_strings(void **state)
{
    (void)state;
    expect_str(OK("X\003\000\000\000abc."), PK_STR, "abc", 3);
    expect_str(OK("\214\002hi."), PK_STR, "hi", 2);
    expect_str(OK("\215\001\000\000\000\000\000\000\000z."), PK_STR, "z", 1);
    expect_str(OK("U\002py."), PK_STR, "py", 2);
    expect_str(OK("T\001\000\000\000q."), PK_STR, "q", 1);
    expect_str(OK("S'a\\nb'\n."), PK_STR, "a\nb", 3);
    expect_str(OK("S\"q\\x41\\\\\"\n."), PK_STR, "qA\\", 3);
    expect_str(OK("V\\u00e9x\\U0001F600\n."), PK_STR, "\303\251x\360\237\230\200", 7);
    expect_str(OK("V\351\n."), PK_STR, "\303\251", 2); /* latin-1 byte */
    expect_str(OK("B\002\000\000\000\001\002."), PK_BYTES, "\001\002", 2);
    expect_str(OK("C\001\377."), PK_BYTES, "\377", 1);
    expect_str(OK("\216\001\000\000\000\000\000\000\000\000."), PK_BYTES, "", 1);
    expect_str(OK("\226\000\000\000\000\000\000\000\000."), PK_BYTES, "", 0);
    assert_true(pk_str_eq(OK("X\003\000\000\000abc."), "abc"));
    assert_false(pk_str_eq(OK("X\003\000\000\000abc."), "ab"));
}

static void test_containers(void **state)
{
    (void)state;
    pk_value *v = OK("(K\001K\002t.");
    assert_int_equal(pk_tuple_len(v), 2);
    assert_int_equal(v->u.seq.item[1]->u.i, 2);
    assert_int_equal(pk_tuple_len(OK(").")), 0);
    assert_int_equal(pk_tuple_len(OK("K\001\205.")), 1);
    assert_int_equal(pk_tuple_len(OK("K\001K\002\206.")), 2);
    assert_int_equal(pk_tuple_len(OK("K\001K\002K\003\207.")), 3);
    assert_int_equal(pk_tuple_len(OK("].")), -1);
    v = OK("](K\001K\002eK\003a.");
    assert_true(v->kind == PK_LIST && v->u.seq.len == 3 && v->u.seq.item[2]->u.i == 3);
    v = OK("(K\001l.");
    assert_true(v->kind == PK_LIST && v->u.seq.len == 1);
    v = OK("}X\001\000\000\000aK\001s(X\001\000\000\000bK\002X\001\000\000\000cK\003u.");
    assert_true(v->kind == PK_DICT && v->u.seq.len == 6);
    assert_true(pk_str_eq(v->u.seq.item[2], "b") && v->u.seq.item[5]->u.i == 3);
    /* d[key] by a str key; a missing key, a non-dict and NULL give NULL */
    assert_int_equal(pk_dict_get(v, "b")->u.i, 2);
    assert_int_equal(pk_dict_get(v, "c")->u.i, 3);
    assert_null(pk_dict_get(v, "d"));
    assert_null(pk_dict_get(v, ""));
    assert_null(pk_dict_get(OK("(X\001\000\000\000aK\001t."), "a"));
    assert_null(pk_dict_get(NULL, "a"));
    /* an int key is not the str "1" */
    assert_null(pk_dict_get(OK("}K\001K\002s."), "1"));
    v = OK("(X\001\000\000\000aK\001d.");
    assert_true(v->kind == PK_DICT && v->u.seq.len == 2);
    v = OK("\217(K\001K\002\220.");
    assert_true(v->kind == PK_SET && v->u.seq.len == 2);
    v = OK("(K\001\221.");
    assert_true(v->kind == PK_SET && v->u.seq.len == 1);
    /* 2000 items in two SETITEMS batches, as the pickler writes them */
    char big[2 + 2 * 2 * 1000 * 3 + 8];
    size_t n = 0;
    big[n++] = '}';
    for (int batch = 0; batch < 2; batch++) {
        big[n++] = '(';
        for (int i = 0; i < 1000; i++) {
            big[n++] = 'M';
            big[n++] = (char)(i & 0xff);
            big[n++] = (char)(batch + (i >> 8) * 2);
            big[n++] = 'K';
            big[n++] = 7;
        }
        big[n++] = 'u';
    }
    big[n++] = '.';
    v = ok(big, n);
    assert_int_equal(v->u.seq.len, 4000);
}

static void test_memo_and_stack(void **state)
{
    (void)state;
    pk_value *v = OK("K\007q\000h\000\206.");
    assert_ptr_equal(v->u.seq.item[0], v->u.seq.item[1]); /* shared, not copied */
    v = OK("K\007r\005\000\000\000j\005\000\000\000\206.");
    assert_int_equal(v->u.seq.item[1]->u.i, 7);
    v = OK("K\007p3\ng3\n\206.");
    assert_int_equal(v->u.seq.item[1]->u.i, 7);
    v = OK("K\007\224K\010\224h\001h\000\206.");
    assert_true(v->u.seq.item[0]->u.i == 8 && v->u.seq.item[1]->u.i == 7);
    v = OK("]q\000h\000a."); /* a list containing itself */
    assert_ptr_equal(v->u.seq.item[0], v);
    INT("K\001K\0020.", 1);
    INT("K\001(K\002K\0031.", 1);
    INT("(0K\005.", 5); /* POP with nothing above the mark removes the mark */
    v = OK("K\0012\206.");
    assert_ptr_equal(v->u.seq.item[0], v->u.seq.item[1]);
    INT("\200\004\225\003\000\000\000\000\000\000\000K\001.", 1); /* FRAME */
    INT("K\001.trailing bytes are ignored", 1);
    /* 999 nested tuples are fine */
    char deep[999 * 2 + 1];
    for (int i = 0; i < 999; i++) {
        deep[i] = '(';
        deep[999 + i] = 't';
    }
    deep[1998] = '.';
    v = ok(deep, sizeof deep);
    assert_int_equal(pk_tuple_len(v), 1);
}

static void test_globals_and_calls(void **state)
{
    (void)state;
    pk_value *v = OK("ccollections\nOrderedDict\n)R(X\001\000\000\000kK\001u}X\011\000\000\000_metadataNsb.");
    assert_true(v->kind == PK_DICT && v->u.seq.len == 2);
    assert_non_null(v->attrs);
    assert_true(pk_str_eq(v->attrs->u.seq.item[0], "_metadata"));
    v = OK("c_codecs\nencode\n(X\003\000\000\000a\303\277X\006\000\000\000latin1tR.");
    expect_str(v, PK_BYTES, "a\377", 2);
    v = OK("c__builtin__\nbytes\n)R.");
    expect_str(v, PK_BYTES, "", 0);
    v = OK("c__builtin__\nset\n]K\001aK\002a\205R.");
    assert_true(v->kind == PK_SET && v->u.seq.len == 2);
    v = OK("\214\013" "collections\214\013OrderedDict\223)R.");
    assert_int_equal(v->kind, PK_DICT);
    v = OK("ctorch._utils\n_rebuild_tensor_v2\n(K\001tR.");
    assert_true(pk_is_call_of(v, A_REBUILD));
    assert_false(pk_is_call_of(v, A_ODICT));
    assert_int_equal(pk_tuple_len(v->u.call.args), 1);
    assert_int_equal(v->u.call.newobj, 0);
    v = OK("ctorch._utils\n_rebuild_tensor_v2\n.");
    assert_true(pk_is_global(v, A_REBUILD));
    assert_string_equal(v->u.global.module, "torch._utils");
    v = OK("cargparse\nNamespace\n)\201}X\001\000\000\000xK\001sb.");
    assert_true(pk_is_call_of(v, A_NAMESPACE) && v->u.call.newobj);
    assert_int_equal(v->u.call.state->kind, PK_DICT);
    v = OK("cargparse\nNamespace\n)}\222.");
    assert_true(pk_is_call_of(v, A_NAMESPACE));
    v = OK("(cargparse\nNamespace\nK\001o.");
    assert_true(pk_is_call_of(v, A_NAMESPACE) && pk_tuple_len(v->u.call.args) == 1);
    v = OK("(K\001K\002iargparse\nNamespace\n.");
    assert_true(pk_is_call_of(v, A_NAMESPACE) && pk_tuple_len(v->u.call.args) == 2);
    v = OK("Pkey\n.");
    assert_true(v->kind == PK_PERSID && pk_str_eq(v->u.pid, "key"));
    v = OK("(X\007\000\000\000storageK\001tQ.");
    assert_true(v->kind == PK_PERSID && pk_tuple_len(v->u.pid) == 2);
    assert_string_equal(pk_kind_name(PK_DICT), "a dict");
    assert_string_equal(pk_kind_name((pk_kind)99), "a value");
}

/* ---- refused and malformed pickles: one test each ---------------------- */

typedef struct {
    const char *name;
    const char *bytes;
    size_t len;
    const char *message;
} bad_case;

#define BAD(name, lit, msg) { name, lit, sizeof(lit) - 1, msg }

static const bad_case bad_cases[] = {
    BAD("forbidden global os.system", "\200\002\143os\nsystem\n(X\002\000\000\000lstR.", "'os.system'"),
    BAD("forbidden global via STACK_GLOBAL", "\214\002os\214\006system\223.", "'os.system', which is not allowed"),
    BAD("forbidden builtin eval (Python 2 name)", "c__builtin__\neval\n.", "'builtins.eval'"),
    BAD("forbidden class via INST", "(iposix\nsystem\n.", "'posix.system'"),
    BAD("forbidden numpy global", "cnumpy\nload\n.", "not allowed"),
    BAD("REDUCE on a non-global", "K\001)R.", "only allowed globals can be called"),
    BAD("REDUCE arguments not a tuple", "ccollections\nOrderedDict\nK\001R.", "not a tuple"),
    BAD("OrderedDict with arguments", "ccollections\nOrderedDict\n(K\001tR.", "OrderedDict() with arguments"),
    BAD("_codecs.encode as utf8", "c_codecs\nencode\n(X\001\000\000\000aX\004\000\000\000utf8tR.", "latin1"),
    BAD("_codecs.encode non-latin-1 text", "c_codecs\nencode\n(X\003\000\000\000\342\202\254X\006\000\000\000latin1tR.",
        "not latin-1"),
    BAD("bytes() with an int", "c__builtin__\nbytes\nK\005\205R.", "not supported"),
    BAD("stack underflow on APPEND", "a.", "stack underflow"),
    BAD("stack underflow on REDUCE", "R.", "stack underflow"),
    BAD("stack underflow on TUPLE2", "K\001\206.", "stack underflow"),
    BAD("stack underflow on SETITEM", "}K\001s.", "stack underflow"),
    BAD("stack underflow across a MARK", "K\001(a.", "stack underflow"),
    BAD("STOP on an empty stack", ".", "stack underflow"),
    BAD("POP with nothing", "0.", "needs a MARK"),
    BAD("TUPLE without MARK", "K\001t.", "needs a MARK"),
    BAD("STOP with a MARK open", "(K\001.", "MARK still open"),
    BAD("no STOP", "K\001", "no STOP"),
    BAD("empty pickle", "", "no STOP"),
    BAD("string past the end", "X\377\000\000\000ab.", "runs past the end"),
    BAD("huge BINUNICODE8", "\215\377\377\377\377\377\377\377\377ab.", "runs past the end"),
    BAD("truncated BININT", "J\001\002", "truncated"),
    BAD("truncated LONG1", "\212\010\001\002", "truncated"),
    BAD("LONG4 negative length", "\213\377\377\377\377.", "negative length"),
    BAD("unterminated text operand", "I12", "unterminated"),
    BAD("malformed INT text", "Iabc\n.", "malformed integer"),
    BAD("INT text overflow", "I99999999999999999999\n.", "too large"),
    BAD("malformed FLOAT text", "Fx1\n.", "malformed FLOAT"),
    BAD("unquoted STRING", "Sabc\n.", "not quoted"),
    BAD("bad STRING escape", "S'\\q'\n.", "unsupported escape"),
    BAD("bad UNICODE escape", "V\\u12\n.", "malformed \\u escape"),
    BAD("unknown opcode", "\377.", "unsupported pickle opcode 0xff"),
    BAD("EXT1", "\202\001.", "extension registry"),
    BAD("NEXT_BUFFER", "\227.", "out-of-band"),
    BAD("protocol 6", "\200\006K\001.", "protocol 6"),
    BAD("memo get of nothing", "h\005.", "never stored"),
    BAD("memo index beyond the pickle", "K\001r\377\377\377\177.", "out of range"),
    BAD("negative text memo index", "K\001p-1\n.", "negative memo index"),
    BAD("odd SETITEMS", "}(K\001u.", "odd number"),
    BAD("odd DICT", "(K\001d.", "odd number"),
    BAD("APPEND on a tuple", ")K\001a.", "APPEND on a tuple"),
    BAD("SETITEM on a list", "]K\001K\002s.", "SETITEM on a list"),
    BAD("SETITEMS on a list", "](K\001K\002u.", "SETITEMS on a list"),
    BAD("APPENDS on a dict", "}(K\001e.", "APPENDS on a dict"),
    BAD("ADDITEMS on a list", "](K\001\220.", "ADDITEMS on a list"),
    BAD("BUILD on an int", "K\001}b.", "BUILD cannot set the state of an int"),
    BAD("BUILD on a dict with an int", "ccollections\nOrderedDict\n)RK\001b.", "BUILD cannot"),
    BAD("BUILD twice", "cargparse\nNamespace\n)\201}b}b.", "BUILD cannot"),
    BAD("NEWOBJ_EX with kwargs", "cargparse\nNamespace\n)}X\001\000\000\000aK\001s\222.", "keyword arguments"),
    BAD("OBJ without a class", "(o.", "without a class"),
    BAD("STACK_GLOBAL of ints", "K\001K\002\223.", "two strings"),
};

static void run_bad(void **state)
{
    const bad_case *c = *state;
    pk_value *v = NULL;
    if (parse_n(c->bytes, c->len, &v) == 0)
        fail_msg("%s: accepted", c->name);
    assert_null(v);
    if (!strstr(err_message(), c->message) || strncmp(err_message(), "t.pt: t/data.pkl, offset ", 25) != 0)
        fail_msg("%s: message '%s' lacks '%s'", c->name, err_message(), c->message);
    assert_int_equal(err_kind(), EXIT_BADINPUT);
}

static void test_nesting_limit(void **state)
{
    (void)state;
    char deep[1001 * 2 + 1];
    for (int i = 0; i < 1001; i++) {
        deep[i] = '(';
        deep[1001 + i] = 't';
    }
    deep[2002] = '.';
    pk_value *v;
    assert_int_equal(parse_n(deep, sizeof deep, &v), -1);
    assert_non_null(strstr(err_message(), "more than 1000 levels"));
}

/* The stack and memo limits (PICKLE_MAX_STACK, PICKLE_MAX_MEMO): each its
 * own message and ERR_LIMIT; just below them the pickle is read. */
static void test_stack_and_memo_limits(void **state)
{
    (void)state;
    size_t n = 100001 + 1;
    char *lists = malloc(n);
    memset(lists, ']', n - 1);
    lists[n - 1] = '.';
    pk_value *v;
    assert_int_equal(parse_n(lists, n, &v), -1);
    assert_non_null(strstr(err_message(), "the pickle's stack holds more than 100000 values"));
    assert_int_equal(err_cause(), ERR_LIMIT);
    /* 100,000 lists, then APPENDs folding them into one: accepted */
    n = 100000 + 99999 + 1;
    lists = realloc(lists, n);
    memset(lists, ']', 100000);
    memset(lists + 100000, 'a', 99999);
    lists[n - 1] = '.';
    assert_int_equal(parse_n(lists, n, &v), 0);
    assert_int_equal(v->kind, PK_LIST);
    /* a memo index of 2^22 in a pickle long enough that it is not out of range */
    n = (4u << 20) + 64;
    lists = realloc(lists, n);
    memset(lists, 0, n);
    memcpy(lists, "K\001r\000\000\100\000.", 8);
    assert_int_equal(parse_n(lists, n, &v), -1);
    assert_non_null(strstr(err_message(), "memo index 4194304 is over the limit of 4194304 entries"));
    assert_int_equal(err_cause(), ERR_LIMIT);
    memcpy(lists, "K\001r\377\377\077\000h\000.", 10);   /* index 2^22 - 1, then a get of 0: never stored */
    assert_int_equal(parse_n(lists, n, &v), -1);
    assert_non_null(strstr(err_message(), "never stored"));
    free(lists);
    err_clear();
}

/* Truncations and random byte changes of a realistic pickle: accepted or
 * refused, never a crash, an overrun or a leak. */
static void test_damage_sweep(void **state)
{
    (void)state;
    static const char tensor_pkl[] =
        "\200\002\143torch._utils\n_rebuild_tensor_v2\nq\000((X\007\000\000\000storageq\001"
        "ctorch\nFloatStorage\nq\002X\001\000\000\0000q\003X\003\000\000\000cpuq\004KPtq\005QK\000K\012K\010"
        "\206q\006K\010K\001\206q\007\211\143\143ollections\nOrderedDict\nq\010)Rq\011tq\012Rq\013.";
    size_t n = sizeof tensor_pkl - 1;
    static const pk_global wide[] = {
        { "torch._utils", "_rebuild_tensor_v2" }, { "torch", "FloatStorage" }, { "collections", "OrderedDict" },
    };
    pk_value *v;
    unsigned char *p = malloc(n);
    memcpy(p, tensor_pkl, n);
    assert_int_equal(pickle_parse(&a, "t", "p", p, n, wide, 3, &v), 0);
    for (size_t len = 0; len < n; len++)
        assert_int_equal(pickle_parse(&a, "t", "p", p, len, wide, 3, &v), -1);
    unsigned seed = 99;
    for (int round = 0; round < 20000; round++) {
        memcpy(p, tensor_pkl, n);
        for (int k = 0; k < 2; k++) {
            seed = seed * 1103515245u + 12345u;
            p[(seed >> 8) % n] = (unsigned char)(seed >> 20);
        }
        pickle_parse(&a, "t", "p", p, n, wide, 3, &v);
        if (round % 1000 == 0)
            arena_reset(&a);
    }
    free(p);
}

/* "pkg.*" allows pkg and its submodules, "*" any name; the value keeps the
 * module and name written; collections.defaultdict reads as a dict. */
static void test_wildcards(void **state)
{
    (void)state;
    static const pk_global wild[] = {{"megatron.*", "*"}, {"collections", "defaultdict"}, {"enum", "Enum"}};
    pk_value *v;
    static const char enum_pkl[] = "\x80\x02" "cmegatron.core.enums\nModelType\n(K\x01tR.";
    unsigned char *copy = malloc(sizeof enum_pkl);
    memcpy(copy, enum_pkl, sizeof enum_pkl);
    kept[n_kept++] = copy;
    assert_int_equal(pickle_parse(&a, "t", "p", copy, sizeof enum_pkl - 1, wild, 3, &v), 0);
    assert_int_equal(v->kind, PK_CALL);
    assert_string_equal(v->u.call.callable->u.global.module, "megatron.core.enums");
    assert_string_equal(v->u.call.callable->u.global.name, "ModelType");
    assert_int_equal(v->u.call.callable->u.global.id, 0);
    static const char top[] = "\x80\x02" "cmegatron\nX\n.";
    assert_int_equal(pickle_parse(&a, "t", "p", (const unsigned char *)top, sizeof top - 1, wild, 3, &v), 0);
    /* a module that only starts like it is not below it */
    static const char other[] = "\x80\x02" "cmegatronic\nX\n.";
    assert_int_equal(pickle_parse(&a, "t", "p", (const unsigned char *)other, sizeof other - 1, wild, 3, &v), -1);
    assert_non_null(strstr(err_message(), "megatronic.X"));
    err_clear();
    static const char dd[] = "\x80\x02" "ccollections\ndefaultdict\n(cenum\nEnum\ntR(X\x01\x00\x00\x00" "aK\x01u.";
    assert_int_equal(pickle_parse(&a, "t", "p", (const unsigned char *)dd, sizeof dd - 1, wild, 3, &v), 0);
    assert_int_equal(v->kind, PK_DICT);
    assert_int_equal(v->u.seq.len, 2);
}

int main(void)
{
    struct CMUnitTest tests[96] = {
        cmocka_unit_test_setup_teardown(test_numbers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_strings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_containers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_memo_and_stack, setup, teardown),
        cmocka_unit_test_setup_teardown(test_globals_and_calls, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nesting_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stack_and_memo_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damage_sweep, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wildcards, setup, teardown),
    };
    size_t n = 8;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++)
        tests[n++] = (struct CMUnitTest){ bad_cases[i].name, run_bad, setup, teardown, (void *)&bad_cases[i] };
    return _cmocka_run_group_tests("test_pickle", tests, n, NULL, NULL);
}
