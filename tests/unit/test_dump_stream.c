/* model/dump_stream: an entry read straight from the text gives the same
 * rows, entries, md5 flag and errors as the tree walk (DUMP_TREE_WALK), on
 * random dumps made of the common shape and of everything the streaming
 * walk must leave to the tree walk (md5, values, repeated or misplaced
 * members, refused strings, shapes that are not lists, dicts, nulls, deep
 * lists, escapes, malformed text). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model/dump.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "testutil.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng;

static unsigned pick(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static void any_of(strbuf *sb, const char *const *v, unsigned n) { sb_adds(sb, v[pick(n)]); }

#define ANY(sb, ...)                                                  \
    do {                                                              \
        static const char *const v_[] = {__VA_ARGS__};                \
        any_of(sb, v_, sizeof v_ / sizeof v_[0]);                     \
    } while (0)

static void scalar(strbuf *sb)
{
    ANY(sb, "1.5", "-0.0", "3", "-7", "0", "NaN", "Infinity", "-Infinity", "null", "true", "false", "\"abc\"",
        "\"1e3\"", "\"\"", "2.5e-08", "123456789012345678901234567890", "1e400", "\"md5x\"", "\"a\\u00e9\\n\"");
}

static void stat_value(strbuf *sb)
{
    if (pick(8))
        ANY(sb, "0.0693359375", "-0.06494140625", "-0.0002460479736328125", "188.0", "NaN", "null", "1.0",
            "-Infinity", "0.0", "5e-324");
    else
        scalar(sb);
}

static void leaf(strbuf *sb, int odd)
{
    sb_adds(sb, "{");
    int first = 1;
#define KEY(k)                   \
    do {                         \
        if (!first)              \
            sb_adds(sb, ", ");   \
        first = 0;               \
        sb_adds(sb, "\"" k "\": "); \
    } while (0)
    /* "type" first, as msprobe writes it; sometimes later or missing */
    int type_first = !odd || pick(4);
    if (type_first) {
        KEY("type");
        ANY(sb, "\"torch.Tensor\"", "\"torch.Tensor\"", "\"int\"", "\"float\"", "\"torch.Size\"", "\"slice\"",
            "\"ellipsis\"", "\"bool\"", "\"mindspore.Tensor\"");
    }
    if (!odd || pick(5)) {
        KEY("dtype");
        if (!odd || pick(5))
            ANY(sb, "\"torch.float32\"", "\"torch.bfloat16\"", "\"torch.int64\"");
        else
            ANY(sb, "\"\"", "null", "3", "\"torch.\\u0066loat16\"", "\"x;@y\"");
    }
    if (!odd || pick(5)) {
        KEY("shape");
        if (!odd || pick(6))
            ANY(sb, "[\n 1,\n 2048,\n 2048\n]", "[]", "[4, 8]", "[50304, 2048]", "[1]");
        else
            ANY(sb, "5", "\"[1]\"", "[1.5]", "[-1]", "[[1]]", "null", "[1, \"a\"]");
    }
    static const char *const stats[4] = {"Max", "Min", "Mean", "Norm"};
    for (int k = 0; k < 4; k++) {
        if (odd && !pick(6))
            continue;
        if (!first)
            sb_adds(sb, ", ");
        first = 0;
        sb_addf(sb, "\"%s\": ", stats[k]);
        stat_value(sb);
    }
    if (!odd || pick(2)) {
        KEY("requires_grad");
        if (!odd || pick(6))
            ANY(sb, "true", "false");
        else
            ANY(sb, "1", "\"yes\"", "null");
    }
    if (odd && !pick(3)) {
        KEY("data_name");
        ANY(sb, "\"Functional.linear.0.forward.input.0.pt\"", "\"plain\"", "\"\"", "null", "7", "\"a.b.npy\"");
    }
    if (odd && !pick(5)) {
        KEY("value");
        if (pick(3))
            scalar(sb);
        else
            ANY(sb, "[1, 2]", "{\"a\": 1}", "[]");
    }
    if (odd && !pick(8)) {
        KEY("md5");
        ANY(sb, "\"0a1b2c3d\"", "null");
    }
    if (odd && !pick(8)) {
        KEY("group_ranks");
        ANY(sb, "[0, 1]", "null");
    }
    if (odd && !pick(6)) {
        KEY("other");
        if (pick(2))
            scalar(sb);
        else
            ANY(sb, "[1]", "{\"b\": 2}", "{\"shape\": 3}");
    }
    if (odd && !pick(8)) {   /* a repeated key */
        ANY(sb, ", \"Max\": 2.0", ", \"dtype\": \"torch.float16\"", ", \"type\": \"torch.Tensor\"", ", \"zz\": 1, \"zz\": 2");
    }
    if (!type_first) {
        KEY("type");
        ANY(sb, "\"torch.Tensor\"", "5");
    }
    sb_adds(sb, "}");
#undef KEY
}

static void item(strbuf *sb, int odd, int depth)
{
    unsigned k = odd ? pick(12) : pick(10);
    if (depth > 11 || k < 7) {
        leaf(sb, odd);
    } else if (k == 7) {
        sb_adds(sb, "null");
    } else if (k == 8 || depth > 3) {
        sb_adds(sb, "[");
        unsigned n = pick(3);
        for (unsigned i = 0; i < n; i++) {
            if (i)
                sb_adds(sb, ", ");
            item(sb, odd, depth + 1);
        }
        sb_adds(sb, "]");
    } else if (k == 9) {
        sb_adds(sb, "{");
        unsigned n = pick(3);
        for (unsigned i = 0; i < n; i++) {
            if (i)
                sb_adds(sb, ", ");
            if (odd && !pick(5))
                ANY(sb, "\"md5\": ", "\"shape\": ", "\"requires_grad\": ", "\"w.parameters_grad\": ", "\"dup\": ",
                    "\"type\": ");
            else
                sb_addf(sb, "\"kw%u\": ", i);
            item(sb, odd, depth + 1);
        }
        sb_adds(sb, "}");
    } else if (k == 10) {
        scalar(sb);
    } else {
        /* deep nesting */
        int n = 6 + (int)pick(8);
        for (int i = 0; i < n; i++)
            sb_adds(sb, "[");
        leaf(sb, 0);
        for (int i = 0; i < n; i++)
            sb_adds(sb, "]");
    }
}

static void entry(strbuf *sb, unsigned e, int odd)
{
    if (odd && !pick(10))
        ANY(sb, "\"x;@y.0.forward\"", "\"A.0.debug\"", "\"A.layer.parameters_grad\"", "\"Functional.relu.0.forward\"");
    else
        sb_addf(sb, "\"%s.op%u.%u.%s\"", pick(2) ? "Functional" : "Module.layer", e % 7, e, pick(4) ? "forward" : "backward");
    sb_adds(sb, ": ");
    if (odd && !pick(12)) {
        ANY(sb, "null", "[1]", "5", "{}");
        return;
    }
    sb_adds(sb, "{");
    static const char *const io[] = {"input_args", "input_kwargs", "input", "output", "parameters"};
    int first = 1, prev = -1;
    for (int i = 0; i < 5; i++) {
        int j = i;
        if (odd && !pick(8))
            j = (int)pick(5);   /* out of order */
        else if (odd && prev >= 0 && !pick(6))
            j = prev;           /* repeated: the last value counts, at the first place */
        prev = j;
        if (!odd && (i == 2 || i == 4) && pick(3))
            continue;
        if (odd && !pick(4))
            continue;
        if (!first)
            sb_adds(sb, ",\n ");
        first = 0;
        sb_addf(sb, "\"%s\": ", io[j]);
        if (j == 1 && pick(2)) {
            sb_adds(sb, "{");
            unsigned n = pick(3);
            for (unsigned k = 0; k < n; k++)
                sb_addf(sb, "%s\"k%u\": ", k ? ", " : "", k), item(sb, odd, 1);
            sb_adds(sb, "}");
        } else if (!pick(10)) {
            ANY(sb, "null", "[]", "{}", "1");
        } else {
            sb_adds(sb, "[");
            unsigned n = 1 + pick(3);
            for (unsigned k = 0; k < n; k++) {
                if (k)
                    sb_adds(sb, ", ");
                item(sb, odd, 1);
            }
            sb_adds(sb, "]");
        }
        if (i == 1 && !pick(3)) {
            sb_adds(sb, ",\n \"is_recompute\": ");
            if (odd && !pick(3))
                ANY(sb, "\"has md5 inside\"", "[\"md5\"]", "{\"md5\": 1}", "\"x;@y\"", "3");
            else
                sb_adds(sb, "false");
        }
    }
    sb_adds(sb, "}");
}

static void pyval_same(const pyval *a, const pyval *b)
{
    assert_int_equal(a->kind, b->kind);
    assert_int_equal(a->wide_int, b->wide_int);
    assert_int_equal(a->pd_ok, b->pd_ok);
    assert_int_equal(a->len, b->len);
    assert_memory_equal(&a->num, &b->num, sizeof a->num);
    assert_memory_equal(&a->pd_num, &b->pd_num, sizeof a->pd_num);
    if (!a->text || !b->text)
        assert_true(a->text == b->text);
    else
        assert_memory_equal(a->text, b->text, a->len);
}

static void str_same(const char *a, const char *b)
{
    if (!a || !b)
        assert_true(a == b);
    else
        assert_string_equal(a, b);
}

static void same_load(const char *path, int *streamed_ok, int *refused)
{
    dump_data s, t;
    int rs = dump_load_ex(path, 0, &s);
    char *ms = strdup(err_message());
    err_clear();
    int rt = dump_load_ex(path, DUMP_TREE_WALK, &t);
    const char *mt = err_message();
    assert_int_equal(rs, rt);
    assert_string_equal(ms, mt);
    free(ms);
    err_clear();
    if (rs == 0) {
        (*streamed_ok)++;
        assert_int_equal(s.nrows, t.nrows);
        assert_int_equal(s.nentries, t.nentries);
        assert_int_equal(s.has_md5, t.has_md5);
        for (size_t e = 0; e < s.nentries; e++) {
            assert_string_equal(s.entries[e].name, t.entries[e].name);
            assert_int_equal(s.entries[e].first_row, t.entries[e].first_row);
            assert_int_equal(s.entries[e].nrows, t.entries[e].nrows);
        }
        for (size_t i = 0; i < s.nrows; i++) {
            const dump_row *a = &s.rows[i], *b = &t.rows[i];
            str_same(a->name, b->name);
            str_same(a->dtype, b->dtype);
            str_same(a->shape, b->shape);
            str_same(a->md5, b->md5);
            str_same(a->data_name, b->data_name);
            assert_int_equal(a->entry, b->entry);
            assert_int_equal(a->state, b->state);
            assert_int_equal(a->flags, b->flags);
            assert_int_equal(a->api_len, b->api_len);
            for (int k = 0; k < 4; k++) {
                pyval pa = dump_stat(a, k), pb = dump_stat(b, k);
                pyval_same(&pa, &pb);
            }
        }
    } else {
        (*refused)++;
    }
    dump_free(&s);
    dump_free(&t);
}

/* Random dumps: the common shape only, then with the odd cases mixed in. */
static void test_same_rows(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    int ok = 0, refused = 0;
    rng = 0x9E3779B97F4A7C15ULL;
    for (int file = 0; file < 1500; file++) {
        int odd = file >= 50;
        strbuf sb = STRBUF_INIT;
        sb_adds(&sb, "{\n \"task\": \"statistics\",\n \"level\": \"mix\",\n \"framework\": \"pytorch\",\n \"data\": {\n  ");
        unsigned n = 1 + pick(12);
        for (unsigned e = 0; e < n; e++) {
            if (e)
                sb_adds(&sb, ",\n  ");
            entry(&sb, e, odd && pick(10) == 0);
        }
        sb_adds(&sb, "\n }\n}\n");
        /* now and then a cut: malformed text must be reported alike */
        size_t len = sb.len;
        if (odd && !pick(10))
            len = pick((unsigned)sb.len);
        char *path = tu_write(dir, "dump.json", sb.buf, len);
        same_load(path, &ok, &refused);
        free(path);
        sb_free(&sb);
    }
    print_message("loaded alike: %d, refused alike: %d\n", ok, refused);
    /* both kinds of file occur */
    assert_true(ok > 500);
    assert_true(refused > 100);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
