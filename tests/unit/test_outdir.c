/* base/outdir: stamps that move on by a second, commits that never replace
 * a file, the check of a file the user names (--summary-json), the rollback
 * of a failed run; and, through `msprobe compare` itself, two runs in one
 * second leaving four distinct files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/outdir.h"
#include "base/err.h"
#include "base/files.h"
#include "base/log.h"
#include "compare/commands.h"
#include "testutil.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void expect_next(const char *stamp, const char *want)
{
    char out[15];
    assert_int_equal(stamp_next(stamp, out), 0);
    assert_string_equal(out, want);
}

static void test_stamp_next(void **state)
{
    expect_next("20250101120000", "20250101120001");
    expect_next("20250101125959", "20250101130000");
    expect_next("20241231235959", "20250101000000");
    expect_next("20240228235959", "20240229000000");  /* leap year */
    expect_next("20230228235959", "20230301000000");
    /* local time has no say: a daylight-saving night still moves forward */
    expect_next("20251026025959", "20251026030000");
    char out[15];
    assert_int_equal(stamp_next("2025010112000", out), -1);
    assert_int_equal(stamp_next("2025010112000x", out), -1);
    assert_int_equal(stamp_next("20251301120000", out), -1);
    assert_int_equal(stamp_next("20250100120000", out), -1);
    /* in place */
    char s[15] = "20250101120059";
    assert_int_equal(stamp_next(s, s), 0);
    assert_string_equal(s, "20250101120100");
}

/* A committed file's text. */
static void expect_text(const char *path, const char *text)
{
    char *got = tu_read(path, NULL);
    assert_string_equal(got, text);
    free(got);
}

/* Write `text` under dir/name with file_write_new; the name it got. */
static char *write_new(const char *dir, const char *name, const char *text, int want_rc)
{
    char *p = tu_path(dir, name);
    err_clear();
    assert_int_equal(file_write_new(&p, text, strlen(text)), want_rc);
    return p;
}

static void test_commit_never_replaces(void **state)
{
    char *dir = tu_path(tu_dir, "commit");
    assert_int_equal(mkdir(dir, 0700), 0);
    char *a = write_new(dir, "compare_result_rank0_20250101120000.csv", "first", 0);
    assert_non_null(strstr(a, "_20250101120000.csv"));
    /* taken: the next second, the first file untouched */
    char *b = write_new(dir, "compare_result_rank0_20250101120000.csv", "second", 1);
    assert_non_null(strstr(b, "/compare_result_rank0_20250101120001.csv"));
    char *c = write_new(dir, "compare_result_rank0_20250101120000.csv", "third", 1);
    assert_non_null(strstr(c, "/compare_result_rank0_20250101120002.csv"));
    expect_text(a, "first");
    expect_text(b, "second");
    expect_text(c, "third");
    /* other numbers move on by one, growing a digit after all nines */
    char *d = write_new(dir, "diff_analyze_99.json", "x", 0);
    char *e = write_new(dir, "diff_analyze_99.json", "y", 1);
    assert_non_null(strstr(e, "/diff_analyze_100.json"));
    /* a name without a number cannot move: an error, nothing left behind */
    char *f = write_new(dir, "plain.txt", "p", 0);
    char *g = write_new(dir, "plain.txt", "q", -1);
    assert_int_equal(err_cause(), ERR_OUTPUT);
    expect_text(f, "p");
    assert_int_equal(tu_count_entries(dir), 6);
    /* committed with mode 0640, like every output */
    struct stat st;
    assert_int_equal(stat(b, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);
    free(a), free(b), free(c), free(d), free(e), free(f), free(g);
    free(dir);
}

static void test_check_replaceable(void **state)
{
    char *dir = tu_path(tu_dir, "check");
    assert_int_equal(mkdir(dir, 0700), 0);
    char *reg = tu_write(dir, "old.json", "{}", (size_t)-1);
    char *p;
    err_clear();
    assert_int_equal(out_check_replaceable(reg), 0);
    assert_int_equal(out_check_replaceable(p = tu_path(dir, "new.json")), 0);
    free(p);

    struct {
        const char *name, *what;
    } refused[] = {{"fifo", "is a FIFO"}, {"sub", "is a directory"}, {"link", "is a symbolic link"}};
    p = tu_path(dir, "fifo");
    assert_int_equal(mkfifo(p, 0600), 0);
    free(p);
    p = tu_path(dir, "sub");
    assert_int_equal(mkdir(p, 0700), 0);
    free(p);
    p = tu_path(dir, "link");
    assert_int_equal(symlink(reg, p), 0);
    free(p);
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        p = tu_path(dir, refused[i].name);
        err_clear();
        assert_int_equal(out_check_replaceable(p), -1);
        assert_int_equal(err_cause(), ERR_OUTPUT);
        assert_non_null(strstr(err_message(), refused[i].what));
        assert_non_null(strstr(err_message(), "not replaced"));
        free(p);
    }
    err_clear();
    assert_int_equal(out_check_replaceable("/dev/null"), -1);
    assert_non_null(strstr(err_message(), "is a device"));
    err_clear();
    assert_int_equal(out_check_replaceable(p = tu_path(dir, "nodir/summary.json")), -1);
    assert_non_null(strstr(err_message(), "does not exist"));
    free(p);
    /* permissions do not hold for root */
    if (geteuid() != 0) {
        chmod(dir, 0500);
        err_clear();
        assert_int_equal(out_check_replaceable(reg), -1);
        assert_non_null(strstr(err_message(), "not writable"));
        chmod(dir, 0700);
    }
    free(reg);
    free(dir);
}

/* The one rule of a named output (out_named): a directory gets the default
 * name inside; an existing file is refused unless msprobe replaces it or
 * --force; a missing directory is made and taken back by the run. */
static void test_named(void **state)
{
    char *dir = tu_path(tu_dir, "named");
    assert_int_equal(mkdir(dir, 0700), 0);
    char *old = tu_write(dir, "old.json", "{}", (size_t)-1);
    char *p, *want;
    err_clear();
    /* an existing directory, and a name ending in '/' */
    p = out_named(NULL, dir, "summary.json", OUT_REFUSES, 0);
    assert_non_null(p);
    assert_string_equal(p, want = tu_path(dir, "summary.json"));
    free(p);
    free(want);
    char *slash = tu_path(dir, "sub/");
    out_run *r = out_run_new();
    p = out_named(r, slash, "ckpt_similarity.json", OUT_REFUSES, 0);
    assert_non_null(p);
    assert_string_equal(p, want = tu_path(dir, "sub/ckpt_similarity.json"));
    free(want);
    free(p);
    /* the directory is made, and taken back with the run */
    assert_int_equal(path_kind(want = tu_path(dir, "sub")), PATH_DIR);
    out_run_rollback(r);
    out_run_free(r);
    assert_int_equal(path_kind(want), PATH_MISSING);
    free(want);
    free(slash);
    /* an existing file: refused, replaced with --force or where msprobe replaces it */
    assert_null(out_named(NULL, old, "x", OUT_REFUSES, 0));
    assert_int_equal(err_cause(), ERR_OUTPUT);
    assert_non_null(strstr(err_message(), "old.json: exists; --force replaces it"));
    err_clear();
    p = out_named(NULL, old, "x", OUT_REFUSES, 1);
    assert_non_null(p);
    free(p);
    p = out_named(NULL, old, "x", OUT_REPLACES, 0);
    assert_non_null(p);
    free(p);
    /* never what is not a regular file; never under a file */
    char *link = tu_path(dir, "link.json");
    assert_int_equal(symlink(old, link), 0);
    assert_null(out_named(NULL, link, "x", OUT_REPLACES, 1));
    assert_non_null(strstr(err_message(), "is a symbolic link"));
    err_clear();
    p = out_named(NULL, want = tu_path(dir, "old.json/x.json"), "x", OUT_REFUSES, 0);
    assert_null(p);
    assert_non_null(strstr(err_message(), "old.json is not a directory"));
    err_clear();
    free(want);
    free(link);
    free(old);
    free(dir);
}

static void test_rollback(void **state)
{
    char *top = tu_path(tu_dir, "run");
    assert_int_equal(mkdir(top, 0700), 0);
    char *deep = tu_path(top, "out/step0/x");
    char *step1 = tu_path(top, "out/step1");
    out_run *r = out_run_new();
    err_clear();
    assert_int_equal(out_run_mkdir(r, deep), 0);
    assert_int_equal(out_run_mkdir(r, step1), 0);
    assert_int_equal(out_run_mkdir(r, step1), 0);
    char *f1 = write_new(deep, "a_1.txt", "a", 0);
    out_run_add(r, f1);
    char *f2 = write_new(step1, "b_1.txt", "b", 0);
    out_run_add(r, f2);
    /* someone else's file: stays, and so does its directory */
    char *step0 = tu_path(top, "out/step0");
    char *theirs = tu_write(step0, "theirs.txt", "t", (size_t)-1);
    out_run_rollback(r);
    assert_int_equal(path_kind(f1), PATH_MISSING);
    assert_int_equal(path_kind(f2), PATH_MISSING);
    assert_int_equal(path_kind(deep), PATH_MISSING);
    assert_int_equal(path_kind(step1), PATH_MISSING);
    assert_int_equal(path_kind(theirs), PATH_FILE);
    assert_int_equal(tu_count_entries(top), 1);
    /* rolled back once: forgotten */
    out_run_rollback(r);
    assert_int_equal(path_kind(theirs), PATH_FILE);
    unlink(theirs);

    /* a failed mkdir -p keeps what it made for the rollback (the last
     * level's name is too long); what existed before is never removed */
    char longname[400];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    char *made = tu_path(top, "made");
    char *below = tu_path(made, longname);
    err_clear();
    assert_int_equal(out_run_mkdir(r, below), -1);
    assert_int_equal(err_cause(), ERR_OUTPUT);
    assert_int_equal(path_kind(made), PATH_DIR);
    out_run_rollback(r);
    assert_int_equal(path_kind(made), PATH_MISSING);
    assert_int_equal(path_kind(top), PATH_DIR);
    assert_int_equal(out_run_mkdir(NULL, deep), 0);   /* no record kept */
    out_run_free(r);
    free(below), free(made);
    free(deep), free(step1), free(step0), free(theirs), free(f1), free(f2), free(top);
}

/* out_run_replace() with `text` in a fresh temporary file for `final`;
 * what it printed on stderr goes to *said (malloc'ed). */
static int replace_with(out_run *r, const char *final, const char *text, char **said)
{
    const void *part = text;
    size_t len = strlen(text);
    char *tmp = out_tmp_write(final, &part, &len, 1);
    assert_non_null(tmp);
    char *cap = tu_path(tu_dir, "stderr.txt");
    int fd = open(cap, O_WRONLY | O_CREAT | O_TRUNC, 0600), saved = dup(2);
    assert_true(fd >= 0 && saved >= 0);
    dup2(fd, 2);
    err_clear();
    int rc = out_run_replace(r, tmp, final, "database");
    dup2(saved, 2);
    close(saved);
    close(fd);
    *said = tu_read(cap, NULL);
    unlink(cap);
    free(cap);
    return rc;
}

/* An output under a name the user gave (monitor2db's, data2db's
 * databases): it replaces what is there with one warning, is remembered
 * for the rollback, and a commit that fails leaves nothing behind. */
static void test_replace(void **state)
{
    char *dir = tu_path(tu_dir, "replace");
    assert_int_equal(mkdir(dir, 0700), 0);
    char *final = tu_path(dir, "monitor_metrics.db");
    out_run *r = out_run_new();
    char *said;
    assert_int_equal(replace_with(r, final, "one", &said), 0);
    assert_string_equal(said, "");
    free(said);
    expect_text(final, "one");
    assert_int_equal(replace_with(r, final, "two", &said), 0);
    assert_non_null(strstr(said, ": warning: "));
    assert_non_null(strstr(said, final));
    assert_non_null(strstr(said, ": the existing database is replaced\n"));
    assert_ptr_equal(strchr(said, '\n'), said + strlen(said) - 1);  /* one line */
    free(said);
    expect_text(final, "two");
    assert_int_equal(tu_count_entries(dir), 1);
    out_run_rollback(r);
    assert_int_equal(path_kind(final), PATH_MISSING);
    assert_int_equal(path_kind(dir), PATH_DIR);
    /* a directory in the way: an error naming the output, no temporary file left */
    assert_int_equal(mkdir(final, 0700), 0);
    assert_int_equal(replace_with(r, final, "three", &said), -1);
    free(said);
    assert_int_equal(err_cause(), ERR_OUTPUT);
    assert_non_null(strstr(err_message(), final));
    assert_int_equal(tu_count_entries(dir), 1);
    assert_int_equal(path_kind(final), PATH_DIR);
    /* nothing was remembered: the rollback leaves the directory */
    out_run_rollback(r);
    assert_int_equal(path_kind(final), PATH_DIR);
    rmdir(final);
    /* no run kept */
    assert_int_equal(replace_with(NULL, final, "four", &said), 0);
    free(said);
    expect_text(final, "four");
    out_run_free(r);
    free(final);
    free(dir);
}

/* Files of a directory whose names start with prefix. */
static int count_prefixed(const char *dir, const char *prefix)
{
    int n = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += !strncmp(e->d_name, prefix, strlen(prefix));
    closedir(d);
    return n;
}

static int compare_into(const char *out)
{
    char *argv[] = {"compare",    "-n", "testdata/features/target/step0/rank0", "-b",
                    "testdata/features/bench/step0/rank0", "-o", (char *)out, "--format", "csv", "-q", NULL};
    global_opts g = {0};
    return cmd_compare(10, argv, &g);
}

/* Acceptance: two runs in one second leave four distinct files (result and
 * advisor each); a run whose names are all taken for the next seconds
 * moves past them and leaves them alone. */
static void test_two_runs_one_second(void **state)
{
    char *out = tu_path(tu_dir, "twice");
    log_set_quiet(1);
    assert_int_equal(compare_into(out), 0);
    assert_int_equal(compare_into(out), 0);
    assert_int_equal(count_prefixed(out, "compare_result_"), 2);
    assert_int_equal(count_prefixed(out, "advisor_"), 2);
    assert_int_equal(tu_count_entries(out), 4);

    /* the names of this second and the next two are taken by someone else */
    char *busy = tu_path(tu_dir, "busy");
    assert_int_equal(mkdir(busy, 0700), 0);
    char stamp[15];
    time_stamp(stamp);
    for (int k = 0; k < 3; k++) {
        char name[64];
        snprintf(name, sizeof name, "compare_result_%s.csv", stamp);
        free(tu_write(busy, name, "theirs", (size_t)-1));
        assert_int_equal(stamp_next(stamp, stamp), 0);
    }
    assert_int_equal(compare_into(busy), 0);
    assert_int_equal(count_prefixed(busy, "compare_result_"), 4);
    assert_int_equal(count_prefixed(busy, "advisor_"), 1);
    /* the one advisor carries the stamp of the new result */
    DIR *d = opendir(busy);
    struct dirent *e;
    char adv_stamp[15] = "";
    while ((e = readdir(d)) != NULL)
        if (!strncmp(e->d_name, "advisor_", 8))
            snprintf(adv_stamp, sizeof adv_stamp, "%.14s", e->d_name + 8);
    closedir(d);
    char name[64];
    snprintf(name, sizeof name, "compare_result_%s.csv", adv_stamp);
    char *mine = tu_path(busy, name);
    char *text = tu_read(mine, NULL);
    assert_true(strncmp(text, "NPU Name", 8) == 0);
    free(text);
    free(mine);
    log_set_quiet(0);
    free(busy);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stamp_next),  cmocka_unit_test(test_commit_never_replaces),
        cmocka_unit_test(test_check_replaceable), cmocka_unit_test(test_named), cmocka_unit_test(test_rollback),
        cmocka_unit_test(test_two_runs_one_second), cmocka_unit_test(test_replace),
    };
    return cmocka_run_group_tests(tests, tu_dir_setup, tu_dir_teardown);
}
