/* model/dumptree: what a path is (dump file, rank directory, step directory,
 * dump root) and the rank or step directories of a level in every layout
 * msprobe writes: rank, rank0..N, the newest msprobe's one proc{PID}, and
 * the refusals (stray entries, two proc{PID}, proc{PID} beside ranks). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model/dumptree.h"
#include "base/err.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Make dir/a/b/... (each part of the relative path). */
static void mkdirs(const char *dir, const char *rel)
{
    char *p = tu_path(dir, rel);
    for (char *s = p + strlen(dir) + 1;; s++) {
        if (*s == '/' || !*s) {
            char c = *s;
            *s = 0;
            if (mkdir(p, 0700) != 0)
                assert_int_equal(access(p, F_OK), 0);
            *s = c;
            if (!c)
                break;
        }
    }
    free(p);
}

/* A fresh directory under the scratch directory holding the given entries:
 * names ending in '/' are directories (with a dump.json inside), others
 * empty files. */
static char *tree(const char *name, const char *const *entries)
{
    char *top = tu_path(tu_dir, name);
    assert_int_equal(mkdir(top, 0700), 0);
    for (size_t i = 0; entries[i]; i++) {
        size_t n = strlen(entries[i]);
        if (entries[i][n - 1] == '/') {
            char *rel = strndup(entries[i], n - 1);
            mkdirs(top, rel);
            char *d = tu_path(top, rel);
            free(tu_write(d, "dump.json", "{}", (size_t)-1));
            free(d);
            free(rel);
        } else {
            free(tu_write(top, entries[i], "", 0));
        }
    }
    return top;
}

static int kind_of(const char *path)
{
    int k = -1;
    err_clear();
    if (dumptree_classify(path, &k) != 0)
        fail_msg("%s: %s", path, err_message());
    return k;
}

static void test_classify(void **state)
{
    char *root = tree("cls", (const char *const[]){"root/step0/rank0/", "root/step1/rank0/", "newest/step0/proc77/",
                                                  "bare/step3/rank/", NULL});
    char *p;
    assert_int_equal(kind_of(p = tu_path(root, "root")), DUMPTREE_ROOT);
    free(p);
    assert_int_equal(kind_of(p = tu_path(root, "root/step0")), DUMPTREE_STEP);
    free(p);
    assert_int_equal(kind_of(p = tu_path(root, "root/step0/rank0")), DUMPTREE_RANK);
    free(p);
    assert_int_equal(kind_of(p = tu_path(root, "root/step0/rank0/dump.json")), DUMPTREE_FILE);
    free(p);
    /* the newest msprobe's step directory of a run that is not distributed */
    assert_int_equal(kind_of(p = tu_path(root, "newest/step0")), DUMPTREE_STEP);
    free(p);
    assert_int_equal(kind_of(p = tu_path(root, "newest")), DUMPTREE_ROOT);
    free(p);
    assert_int_equal(kind_of(p = tu_path(root, "bare/step3")), DUMPTREE_STEP);
    free(p);
    assert_string_equal(dumptree_kind_name(DUMPTREE_STEP), "a step directory");

    /* a directory of something else, a missing path, a symbolic link */
    int k;
    char *other = tree("other", (const char *const[]){"notes.txt", "procs/", "stepx/", NULL});
    err_clear();
    assert_int_equal(dumptree_classify(other, &k), -1);
    tu_assert_err("other", "not a msprobe dump");
    p = tu_path(root, "nope");
    err_clear();
    assert_int_equal(dumptree_classify(p, &k), -1);
    assert_int_equal(err_cause(), ERR_MISSING);
    free(p);
    p = tu_path(root, "link");
    char *target = tu_path(root, "root");
    assert_int_equal(symlink(target, p), 0);
    err_clear();
    assert_int_equal(dumptree_classify(p, &k), -1);
    assert_non_null(strstr(err_message(), "symbolic link"));
    free(p);
    free(target);
    free(other);
    free(root);
}

static void expect_ranks(const char *step, const char *const *names, const long *numbers, const int *namings)
{
    dumptree_list l;
    err_clear();
    if (dumptree_ranks(step, &l) != 0)
        fail_msg("%s: %s", step, err_message());
    size_t n = 0;
    while (names[n])
        n++;
    assert_int_equal(l.n, n);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(l.v[i].name, names[i]);
        assert_int_equal(l.v[i].number, numbers[i]);
        assert_int_equal(l.v[i].naming, namings[i]);
        char *want = tu_path(step, names[i]);
        assert_string_equal(l.v[i].path, want);
        free(want);
    }
    dumptree_list_free(&l);
    assert_null(l.v);
}

static void test_ranks(void **state)
{
    /* numeric order, not text order: rank2 before rank10 ("rank" first) */
    char *s = tree("ranks", (const char *const[]){"rank10/", "rank2/", "rank01/", "rank0/", NULL});
    expect_ranks(s, (const char *const[]){"rank0", "rank01", "rank2", "rank10", NULL}, (const long[]){0, 1, 2, 10},
                 (const int[]){DUMPTREE_NUMBERED, DUMPTREE_NUMBERED, DUMPTREE_NUMBERED, DUMPTREE_NUMBERED});
    free(s);
    /* the largest number the rule takes */
    s = tree("ranks_max", (const char *const[]){"rank2147483647/", NULL});
    expect_ranks(s, (const char *const[]){"rank2147483647", NULL}, (const long[]){2147483647},
                 (const int[]){DUMPTREE_NUMBERED});
    free(s);
    s = tree("proc", (const char *const[]){"proc4242/", NULL});
    expect_ranks(s, (const char *const[]){"proc4242", NULL}, (const long[]){-1}, (const int[]){DUMPTREE_PROC});
    free(s);
    /* digits only, leading zeros too (Python's isdigit) */
    s = tree("proc0", (const char *const[]){"proc007/", NULL});
    expect_ranks(s, (const char *const[]){"proc007", NULL}, (const long[]){-1}, (const int[]){DUMPTREE_PROC});
    free(s);
    s = tree("bare", (const char *const[]){"rank/", NULL});
    expect_ranks(s, (const char *const[]){"rank", NULL}, (const long[]){-1}, (const int[]){DUMPTREE_BARE});
    free(s);
    s = tree("empty", (const char *const[]){NULL});
    expect_ranks(s, (const char *const[]){NULL}, NULL, NULL);
    free(s);
}

static void expect_refused(const char *name, const char *const *entries, const char *frag1, const char *frag2)
{
    char *s = tree(name, entries);
    dumptree_list l = {(void *)1, 1, 1};
    err_clear();
    assert_int_equal(dumptree_ranks(s, &l), -1);
    tu_assert_err(s, frag1, frag2);
    assert_null(l.v);
    assert_int_equal(l.n, 0);
    free(s);
}

static void test_ranks_refused(void **state)
{
    expect_refused("stray", (const char *const[]){"rank0/", "notes.txt", NULL}, "contains 'notes.txt'",
                   "or one 'proc{PID}'");
    /* a file with a rank's or a proc's name is no rank directory */
    expect_refused("file_rank", (const char *const[]){"rank1", NULL}, "rank1: is a file, a directory was expected",
                   NULL);
    expect_refused("file_proc", (const char *const[]){"proc12", NULL}, "proc12: is a file", NULL);
    /* the one rule: two dumps of one rank, numbers beyond the integer range */
    expect_refused("rank_twice", (const char *const[]){"rank/", "rank0/", NULL},
                   "holds both rank and rank0: two dumps of rank 0", NULL);
    expect_refused("rank_zeros", (const char *const[]){"rank0/", "rank00/", NULL}, "two dumps of rank 0", NULL);
    expect_refused("rank_beyond", (const char *const[]){"rank0/", "rank2147483648/", NULL},
                   "holds 'rank2147483648': a rank number beyond the integer range (2147483647)", NULL);
    expect_refused("rank_huge", (const char *const[]){"rank99999999999999999999999/", NULL},
                   "a rank number beyond the integer range", NULL);
    expect_refused("procx", (const char *const[]){"proc1x/", NULL}, "contains 'proc1x'", NULL);
    expect_refused("proc_bare", (const char *const[]){"proc/", NULL}, "contains 'proc'", NULL);
    /* find_proc_dir: exactly one */
    expect_refused("two_procs", (const char *const[]){"proc11/", "proc22/", NULL}, "multiple proc directories",
                   "(2: proc11, proc22)");
    expect_refused("many_procs", (const char *const[]){"proc1/", "proc2/", "proc3/", "proc4/", NULL},
                   "(4: proc1, proc2, proc3, ...)", "Expected exactly one");
    expect_refused("mixed", (const char *const[]){"proc11/", "rank0/", NULL}, "both rank directories and a proc{PID}",
                   NULL);
    expect_refused("mixed_bare", (const char *const[]){"proc11/", "rank/", NULL}, "both rank directories", NULL);
}

static void test_steps(void **state)
{
    char *r = tree("steps", (const char *const[]){"step10/rank0/", "step9/proc5/", "step0/rank/", NULL});
    dumptree_list l;
    err_clear();
    assert_int_equal(dumptree_steps(r, &l), 0);
    assert_int_equal(l.n, 3);
    assert_string_equal(l.v[0].name, "step0");
    assert_string_equal(l.v[1].name, "step9");
    assert_string_equal(l.v[2].name, "step10");
    assert_int_equal(l.v[2].number, 10);
    assert_int_equal(l.v[2].naming, DUMPTREE_NUMBERED);
    /* the ranks of each step, whatever their layout */
    dumptree_list k;
    assert_int_equal(dumptree_ranks(l.v[1].path, &k), 0);
    assert_int_equal(k.n, 1);
    assert_string_equal(k.v[0].name, "proc5");
    dumptree_list_free(&k);
    dumptree_list_free(&l);
    free(r);

    /* "step" needs its number; a rank directory is no step */
    r = tree("steps_bad", (const char *const[]){"step/rank0/", NULL});
    err_clear();
    assert_int_equal(dumptree_steps(r, &l), -1);
    tu_assert_err("contains 'step'", "'step0', 'step1', ...");
    free(r);
    r = tree("steps_rank", (const char *const[]){"step0/rank0/", "rank0/", NULL});
    err_clear();
    assert_int_equal(dumptree_steps(r, &l), -1);
    tu_assert_err("contains 'rank0'");
    free(r);
}

static void test_file(void **state)
{
    char *r = tree("files", (const char *const[]){"rank0/", NULL});
    char *d = tu_path(r, "rank0");
    char *p = dumptree_file(d, "dump.json");
    assert_non_null(p);
    assert_true(strstr(p, "rank0/dump.json") != NULL);
    free(p);
    assert_null(dumptree_file(d, "debug.json"));
    /* a directory of that name is no file */
    assert_null(dumptree_file(r, "rank0"));
    free(d);
    free(r);
}

/* nan_analyze's listing: what is no rank directory is left out and named;
 * "rank007" is rank 7; two dumps of one rank are refused. */
static void test_ranks_loose(void **state)
{
    char *s = tree("loose", (const char *const[]){"rank10/", "rank2/", "rank/", "rank_others/", "notes.txt",
                                                  "rankk1/", "rank007/", NULL});
    dumptree_list l, skipped;
    err_clear();
    assert_int_equal(dumptree_ranks_loose(s, &l, &skipped), 0);
    assert_int_equal(l.n, 4);
    assert_string_equal(l.v[0].name, "rank");
    assert_int_equal(l.v[0].number, -1);
    assert_string_equal(l.v[1].name, "rank2");
    assert_string_equal(l.v[2].name, "rank007");
    assert_int_equal(l.v[2].number, 7);
    assert_string_equal(l.v[3].name, "rank10");
    /* byte order of the listing: notes.txt, rank_others, rankk1 */
    assert_int_equal(skipped.n, 3);
    assert_string_equal(skipped.v[0].name, "notes.txt");
    assert_string_equal(skipped.v[1].name, "rank_others");
    assert_string_equal(skipped.v[2].name, "rankk1");
    dumptree_list_free(&l);
    dumptree_list_free(&skipped);
    /* skipped may be NULL */
    assert_int_equal(dumptree_ranks_loose(s, &l, NULL), 0);
    assert_int_equal(l.n, 4);
    dumptree_list_free(&l);
    free(s);

    static const char *const twice[] = {"rank/", "rank0/", NULL}, *const zeros[] = {"rank7/", "rank07/", NULL},
                             *const procs[] = {"proc1/", "proc2/", NULL}, *const mixed[] = {"proc1/", "rank1/", NULL},
                             *const file[] = {"rank0/", "rank3", NULL}, *const beyond[] = {"rank99999999999/", NULL};
    static const struct {
        const char *name;
        const char *const *entries;
        const char *frag;
    } bad[] = {
        {"loose_twice", twice, "holds both rank and rank0: two dumps of rank 0"},
        {"loose_zeros", zeros, "two dumps of rank 7"},
        {"loose_procs", procs, "multiple proc directories were found (2: proc1, proc2)"},
        {"loose_file", file, "rank3: is a file, a directory was expected"},
        {"loose_beyond", beyond, "holds 'rank99999999999': a rank number beyond the integer range"},
        {"loose_mixed", mixed, "both rank directories and a proc{PID}"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s = tree(bad[i].name, bad[i].entries);
        err_clear();
        assert_int_equal(dumptree_ranks_loose(s, &l, &skipped), -1);
        tu_assert_err(s, bad[i].frag);
        assert_null(l.v);
        assert_null(skipped.v);
        free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classify), cmocka_unit_test(test_ranks), cmocka_unit_test(test_ranks_refused),
        cmocka_unit_test(test_steps),    cmocka_unit_test(test_file),  cmocka_unit_test(test_ranks_loose),
    };
    return cmocka_run_group_tests(tests, tu_dir_setup, tu_dir_teardown);
}
