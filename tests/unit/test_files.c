/* Files: safe read-only mapping (refusals like msprobe's path checks),
 * path helpers, sorted directory listing, mkdir -p, and atomic outputs that
 * never leave a temporary file behind. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/files.h"
#include "base/err.h"
#include "base/process.h"
#include "testutil.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A fresh empty directory inside the scratch directory. */
static char *subdir(const char *name)
{
    char *p = tu_path(tu_dir, name);
    assert_int_equal(mkdir(p, 0700), 0);
    return p;
}

static void test_map_regular(void **state)
{
    char *p = tu_write(tu_dir, "data.bin", "hello\0world", 11);
    mapped_file f;
    err_clear();
    assert_int_equal(file_map(p, 0, &f), 0);
    assert_int_equal(f.size, 11);
    assert_memory_equal(f.data, "hello\0world", 11);
    assert_string_equal(f.path, p);
    assert_int_equal(err_kind(), 0);
    file_unmap(&f);
    assert_null(f.data);
    assert_null(f.path);

    /* the limit is inclusive */
    assert_int_equal(file_map(p, 11, &f), 0);
    file_unmap(&f);
    err_clear();
    assert_int_equal(file_map(p, 10, &f), -1);
    tu_assert_err(p, "is too large (11 bytes, the limit is 10)");
    assert_null(f.data);
    free(p);

    /* an empty file maps to no data */
    p = tu_write(tu_dir, "empty.bin", "", 0);
    assert_int_equal(file_map(p, 0, &f), 0);
    assert_int_equal(f.size, 0);
    assert_null(f.data);
    file_unmap(&f);
    free(p);
}

static void test_map_refusals(void **state)
{
    char *sub = subdir("refuse");
    char *real = tu_write(sub, "real.json", "{}", (size_t)-1);
    mapped_file f;

    char *link = tu_path(sub, "link.json");
    assert_int_equal(symlink(real, link), 0);
    err_clear();
    assert_int_equal(file_map(link, 0, &f), -1);
    tu_assert_err(link, "is a symbolic link");
    /* a dangling link too */
    char *dangling = tu_path(sub, "dangling.json");
    assert_int_equal(symlink("/nonexistent/x.json", dangling), 0);
    err_clear();
    assert_int_equal(file_map(dangling, 0, &f), -1);
    tu_assert_err(dangling, "is a symbolic link");

    err_clear();
    assert_int_equal(file_map(sub, 0, &f), -1);
    tu_assert_err(sub, "is a directory");

    char *missing = tu_path(sub, "missing.json");
    err_clear();
    assert_int_equal(file_map(missing, 0, &f), -1);
    tu_assert_err(missing, "no such file");

    /* a component of the path is a file */
    char *under_file = tu_path(real, "x");
    err_clear();
    assert_int_equal(file_map(under_file, 0, &f), -1);
    tu_assert_err(under_file, "not a directory");

    /* a fifo must not block the open, and is refused */
    char *fifo = tu_path(sub, "fifo.json");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    err_clear();
    assert_int_equal(file_map(fifo, 0, &f), -1);
    tu_assert_err(fifo, "is not a regular file");

    err_clear();
    assert_int_equal(file_map("/dev/null", 0, &f), -1);
    tu_assert_err("/dev/null", "is not a regular file");

    free(fifo);
    free(under_file);
    free(missing);
    free(dangling);
    free(link);
    free(real);
    free(sub);
}

static void test_path_kind_and_require(void **state)
{
    char *sub = subdir("kinds");
    char *file = tu_write(sub, "f", "x", 1);
    char *link = tu_path(sub, "l");
    assert_int_equal(symlink(sub, link), 0);
    char *fifo = tu_path(sub, "p");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    char *missing = tu_path(sub, "m");

    assert_int_equal(path_kind(sub), PATH_DIR);
    assert_int_equal(path_kind(file), PATH_FILE);
    assert_int_equal(path_kind(link), PATH_LINK);
    assert_int_equal(path_kind(fifo), PATH_OTHER);
    assert_int_equal(path_kind(missing), PATH_MISSING);

    err_clear();
    assert_int_equal(path_require(sub, 1), 0);
    assert_int_equal(path_require(file, 0), 0);
    assert_int_equal(err_kind(), 0);
    static const struct {
        int which, want_dir;
        const char *what;
    } cases[] = {
        {0, 0, "is a directory, a file was expected"},
        {1, 1, "is a file, a directory was expected"},
        {2, 1, "is a symbolic link"},
        {2, 0, "is a symbolic link"},
        {3, 0, "is a FIFO, not a regular file or directory"},
        {4, 0, "does not exist"},
        {4, 1, "does not exist"},
    };
    const char *paths[] = {sub, file, link, fifo, missing};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        err_clear();
        assert_int_equal(path_require(paths[cases[i].which], cases[i].want_dir), -1);
        tu_assert_err(paths[cases[i].which], cases[i].what);
    }
    free(missing);
    free(fifo);
    free(link);
    free(file);
    free(sub);
}

static void test_path_helpers(void **state)
{
    static const struct {
        const char *a, *b, *joined;
    } joins[] = {
        {"a", "b", "a/b"}, {"a/", "b", "a/b"}, {"a//", "b", "a/b"}, {"/", "b", "/b"},
        {"", "b", "b"},    {"/x/y", "dump.json", "/x/y/dump.json"},
    };
    for (size_t i = 0; i < sizeof joins / sizeof joins[0]; i++) {
        char *j = path_join(joins[i].a, joins[i].b);
        assert_string_equal(j, joins[i].joined);
        free(j);
    }
    static const struct {
        const char *path, *base, *dirname;
    } parts[] = {
        {"a/b", "b", "a"},
        {"a/b/", "b", "a"},
        {"/x/y/dump.json", "dump.json", "/x/y"},
        {"/a", "a", "/"},
        {"a", "a", "."},
        {"a//b", "b", "a"},
        {"/", "", "/"},
        {"", "", "."},
        {"./dump.json", "dump.json", "."},
    };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        char *b = path_basename(parts[i].path), *d = path_dirname(parts[i].path);
        if (strcmp(b, parts[i].base) || strcmp(d, parts[i].dirname))
            fail_msg("\"%s\": basename \"%s\", dirname \"%s\"", parts[i].path, b, d);
        free(b);
        free(d);
    }
    assert_true(path_has_suffix("x/dump.json", "dump.json"));
    assert_true(path_has_suffix("dump.json", "dump.json"));
    assert_true(path_has_suffix("a.json", ""));
    assert_false(path_has_suffix("ump.json", "dump.json"));
    assert_false(path_has_suffix("x/dump.jso", "dump.json"));
}

static void test_dir_list(void **state)
{
    char *sub = subdir("list");
    static const char *const names[] = {"rank2", "rank10", "a", "B", ".hidden", "\xc3\xa9", "rank", "_"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (i % 2) {
            char *p = tu_path(sub, names[i]);
            assert_int_equal(mkdir(p, 0700), 0);
            free(p);
        } else {
            free(tu_write(sub, names[i], "", 0));
        }
    }
    char **got;
    err_clear();
    long n = dir_list(sub, &got);
    assert_int_equal(n, 8);
    /* byte order: no locale, no numeric sort */
    static const char *const want[] = {".hidden", "B", "_", "a", "rank", "rank10", "rank2", "\xc3\xa9"};
    for (long i = 0; i < n; i++)
        assert_string_equal(got[i], want[i]);
    names_free(got, n);

    char *empty = tu_path(sub, "B");
    n = dir_list(empty, &got);
    assert_int_equal(n, 0);
    names_free(got, n);
    free(empty);

    char *file = tu_path(sub, "rank2");
    err_clear();
    assert_int_equal(dir_list(file, &got), -1);
    assert_null(got);
    tu_assert_err(file, "is a file, a directory was expected");
    free(file);

    char *link = tu_path(tu_dir, "list_link");
    assert_int_equal(symlink(sub, link), 0);
    err_clear();
    assert_int_equal(dir_list(link, &got), -1);
    tu_assert_err(link, "symbolic link");
    free(link);

    char *missing = tu_path(sub, "nope");
    err_clear();
    assert_int_equal(dir_list(missing, &got), -1);
    tu_assert_err(missing, "does not exist");
    free(missing);

    /* many entries */
    char *big = subdir("big");
    for (int i = 0; i < 300; i++) {
        char name[16];
        snprintf(name, sizeof name, "f%03d", 299 - i);
        free(tu_write(big, name, "", 0));
    }
    n = dir_list(big, &got);
    assert_int_equal(n, 300);
    for (long i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "f%03ld", i);
        assert_string_equal(got[i], name);
    }
    names_free(got, n);
    free(big);
    free(sub);
}

static void assert_mode(const char *p, mode_t mode)
{
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, mode);
}

static void test_dir_create(void **state)
{
    mode_t old = umask(022);
    char *top = tu_path(tu_dir, "out");
    char *nested = tu_path(top, "a/b/c");
    err_clear();
    assert_int_equal(dir_create(nested), 0);
    assert_int_equal(path_kind(nested), PATH_DIR);
    assert_mode(top, 0750);
    assert_mode(nested, 0750);
    /* existing: fine, with or without a trailing slash */
    assert_int_equal(dir_create(nested), 0);
    char *slash = tu_path(nested, "d/");
    assert_int_equal(dir_create(slash), 0);
    assert_int_equal(path_kind(slash), PATH_DIR);
    assert_int_equal(err_kind(), 0);

    /* a component that is a file */
    char *file = tu_write(top, "file", "x", 1);
    char *under = tu_path(file, "sub/dir");
    err_clear();
    assert_int_equal(dir_create(under), -1);
    tu_assert_err(under, "is not a directory");
    assert_int_equal(path_kind(file), PATH_FILE);
    err_clear();
    assert_int_equal(dir_create(file), -1);
    tu_assert_err(file, "is not a directory");

    /* the output directory itself may not be a symlink; a link on the way
     * is followed */
    char *link = tu_path(top, "link");
    assert_int_equal(symlink(nested, link), 0);
    err_clear();
    assert_int_equal(dir_create(link), -1);
    tu_assert_err(link, "symbolic link");
    char *via = tu_path(link, "e");
    err_clear();
    assert_int_equal(dir_create(via), 0);
    char *real_e = tu_path(nested, "e");
    assert_int_equal(path_kind(real_e), PATH_DIR);

    umask(old);
    free(real_e);
    free(via);
    free(link);
    free(under);
    free(file);
    free(slash);
    free(nested);
    free(top);
}

/* Names of the entries of d other than `keep`. */
static int others(const char *d, const char *keep)
{
    char **names;
    long n = dir_list(d, &names);
    assert_true(n >= 0);
    int count = 0;
    for (long i = 0; i < n; i++)
        count += !keep || strcmp(names[i], keep) != 0;
    names_free(names, n);
    return count;
}

static void test_atomic_output(void **state)
{
    char *sub = subdir("atomic");
    char *final = tu_path(sub, "result.csv");

    /* the temporary file sits next to the result, hidden, and is empty */
    char *tmp = out_tmp_create(final);
    assert_non_null(tmp);
    char *tdir = path_dirname(tmp), *tbase = path_basename(tmp);
    assert_string_equal(tdir, sub);
    assert_memory_equal(tbase, ".result.csv.", 12);
    assert_int_equal(path_kind(tmp), PATH_FILE);
    assert_int_equal(path_kind(final), PATH_MISSING);
    free(tdir);
    free(tbase);
    FILE *fp = fopen(tmp, "w");
    fputs("a,b\n", fp);
    fclose(fp);
    err_clear();
    assert_int_equal(out_tmp_commit(tmp, final), 0);
    assert_int_equal(others(sub, "result.csv"), 0);
    assert_mode(final, 0640);
    char *text = tu_read(final, NULL);
    assert_string_equal(text, "a,b\n");
    free(text);

    /* committing over an existing result replaces it */
    tmp = out_tmp_create(final);
    assert_int_equal(out_tmp_commit(tmp, final), 0);
    size_t len;
    free(tu_read(final, &len));
    assert_int_equal(len, 0);
    assert_int_equal(others(sub, "result.csv"), 0);

    /* two temporaries for one name do not clash */
    char *t1 = out_tmp_create(final), *t2 = out_tmp_create(final);
    assert_string_not_equal(t1, t2);
    assert_int_equal(others(sub, "result.csv"), 2);
    out_tmp_discard(t1);
    out_tmp_discard(t2);
    assert_int_equal(others(sub, "result.csv"), 0);
    out_tmp_discard(NULL);

    /* a commit that cannot rename removes its temporary */
    char *blocker = tu_path(sub, "blocker");
    assert_int_equal(mkdir(blocker, 0700), 0);
    char *inside = tu_path(blocker, "x");
    free(tu_write(blocker, "x", "", 0));
    tmp = out_tmp_create(blocker);
    assert_non_null(tmp);
    err_clear();
    assert_int_equal(out_tmp_commit(tmp, blocker), -1);
    tu_assert_err(blocker, "cannot write output file");
    assert_int_equal(others(sub, "result.csv"), 1);
    assert_int_equal(path_kind(blocker), PATH_DIR);

    /* no directory to put it in */
    char *nowhere = tu_path(sub, "missing/result.csv");
    err_clear();
    assert_null(out_tmp_create(nowhere));
    tu_assert_err(nowhere, "cannot create output file");
    assert_int_equal(others(sub, "result.csv"), 1);

    free(nowhere);
    free(inside);
    free(blocker);
    free(final);
    free(sub);
}

/* An interrupted run removes its temporary files, however many (no cap),
 * and still dies of the signal; a signal the process started with ignored
 * (nohup) stays ignored. The signal comes from outside, as from a shell. */
static void test_signal_cleanup(void **state)
{
    static const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
    for (int i = 0; i < 4; i++) {
        int sig = i < 3 ? sigs[i] : SIGTERM;
        char name[32];
        snprintf(name, sizeof name, "signal%d", i);
        char *sub = subdir(name);
        char *final = tu_path(sub, "result.xlsx");
        char *kept = tu_path(sub, "kept.csv");
        int ready[2];
        assert_int_equal(pipe(ready), 0);
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            /* what the test starts from, whatever this process inherited:
             * a shell without job control starts a background command
             * with SIGINT ignored, and SIGINT would then never arrive */
            for (int k = 0; k < 3; k++)
                signal(sigs[k], SIG_DFL);
            if (i == 3)
                signal(SIGHUP, SIG_IGN);
            process_setup();
            int ok = 1;
            for (int k = 0; k < 100 && ok; k++)
                ok = out_tmp_create(final) != NULL;
            char *done = out_tmp_create(kept);
            ok = ok && done && out_tmp_commit(done, kept) == 0 && others(sub, NULL) == 101;
            char *gone = out_tmp_create(final);
            out_tmp_discard(gone);
            /* the parent's copies, so that valgrind sees no leak here */
            free(final);
            free(kept);
            free(sub);
            if (!ok)
                _exit(3);
            if (write(ready[1], "r", 1) != 1)
                _exit(4);
            for (;;)
                pause();
        }
        close(ready[1]);
        char c;
        assert_int_equal(read(ready[0], &c, 1), 1);
        close(ready[0]);
        if (i == 3)
            assert_int_equal(kill(pid, SIGHUP), 0);
        assert_int_equal(kill(pid, sig), 0);
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFSIGNALED(status));
        assert_int_equal(WTERMSIG(status), sig);
        /* only the committed result is left */
        assert_int_equal(others(sub, "kept.csv"), 0);
        assert_int_equal(path_kind(kept), PATH_FILE);
        free(final);
        free(kept);
        free(sub);
    }
}

/* Permission refusals, checked in a child that runs as "nobody" when the
 * tests run as root (root reads and writes anything). The child reports by
 * exit status: 0 when every check held, else the number of the first that
 * failed. */
static int unprivileged_checks(const char *secret, const char *ro)
{
    mapped_file f;
    err_clear();
    if (file_map(secret, 0, &f) != -1)
        return 10;
    if (!strstr(err_message(), "permission denied") || !strstr(err_message(), secret))
        return 11;
    err_clear();
    if (dir_create(ro) != -1)
        return 20;
    if (!strstr(err_message(), "output directory is not writable"))
        return 21;
    char *inside = path_join(ro, "x/y");
    err_clear();
    int rc = dir_create(inside);
    int ok = rc == -1 && strstr(err_message(), "cannot create output directory") && strstr(err_message(), inside);
    free(inside);
    if (!ok)
        return 30;
    char *final = path_join(ro, "result.csv");
    err_clear();
    char *tmp = out_tmp_create(final);
    ok = !tmp && strstr(err_message(), "cannot create output file");
    free(final);
    if (!ok)
        return 40;
    return 0;
}

static void test_permissions(void **state)
{
    char *sub = subdir("perm");
    char *secret = tu_write(sub, "secret.json", "{}", (size_t)-1);
    char *ro = tu_path(sub, "ro");
    assert_int_equal(mkdir(ro, 0555), 0);
    assert_int_equal(chmod(secret, 0), 0);
    /* "nobody" must be able to reach them */
    assert_int_equal(chmod(tu_dir, 0711), 0);
    assert_int_equal(chmod(sub, 0711), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int rc = 2;
        if (geteuid() != 0 || (setgid(65534) == 0 && setuid(65534) == 0))
            rc = unprivileged_checks(secret, ro);
        free(ro);
        free(secret);
        free(sub);
        _exit(rc);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(chmod(tu_dir, 0700), 0);
    assert_int_equal(others(ro, NULL), 0);
    free(ro);
    free(secret);
    free(sub);
}

static void test_time_stamp(void **state)
{
    char ts[15];
    memset(ts, 'x', sizeof ts);
    time_stamp(ts);
    assert_int_equal(strlen(ts), 14);
    for (int i = 0; i < 14; i++)
        assert_true(ts[i] >= '0' && ts[i] <= '9');
    assert_true(memcmp(ts, "2020", 4) >= 0);
    /* month, day, hour, minute, second in range */
    int mo = (ts[4] - '0') * 10 + ts[5] - '0', d = (ts[6] - '0') * 10 + ts[7] - '0';
    int h = (ts[8] - '0') * 10 + ts[9] - '0', mi = (ts[10] - '0') * 10 + ts[11] - '0';
    int s = (ts[12] - '0') * 10 + ts[13] - '0';
    assert_true(mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h <= 23 && mi <= 59 && s <= 60);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_map_regular),
        cmocka_unit_test(test_map_refusals),
        cmocka_unit_test(test_path_kind_and_require),
        cmocka_unit_test(test_path_helpers),
        cmocka_unit_test(test_dir_list),
        cmocka_unit_test(test_dir_create),
        cmocka_unit_test(test_atomic_output),
        cmocka_unit_test(test_signal_cleanup),
        cmocka_unit_test(test_permissions),
        cmocka_unit_test(test_time_stamp),
    };
    return cmocka_run_group_tests(tests, tu_dir_setup, tu_dir_teardown);
}
