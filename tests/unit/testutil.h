/* Helpers shared by the unit tests: a private scratch directory under /tmp
 * (removed again, whatever a test left in it), fixture files written into
 * it, and checks on the error record of lib/log.
 *
 * Everything is static inline so that a test using only part of it still
 * builds with -Wall -Werror. Include after <cmocka.h>. */
#ifndef MSP_TESTUTIL_H
#define MSP_TESTUTIL_H

#include <dirent.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"

static inline char *tu_mkdtemp(void)
{
    char *dir = strdup("/tmp/msprobe-unit-XXXXXX");
    assert_non_null(dir);
    assert_non_null(mkdtemp(dir));
    return dir;
}

static inline char *tu_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    assert_non_null(p);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* Writes `n` bytes (strlen(data) when n is (size_t)-1) to dir/name and
 * returns the malloc'ed path. */
static inline char *tu_write(const char *dir, const char *name, const char *data, size_t n)
{
    if (n == (size_t)-1)
        n = strlen(data);
    char *p = tu_path(dir, name);
    /* a fresh file: truncating one in place makes ext4 flush it to disk
     * (auto_da_alloc), which is slow for tests that rewrite a fixture */
    unlink(p);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    if (n)
        assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
    return p;
}

static inline int tu_rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        return rmdir(p);
    /* a directory the test made unreadable/unwritable must still go */
    if (flag == FTW_DNR) {
        chmod(p, 0700);
        return 0;
    }
    return unlink(p);
}

static inline void tu_rmtree(const char *dir)
{
    if (!dir)
        return;
    chmod(dir, 0700);
    nftw(dir, tu_rm_one, 16, FTW_DEPTH | FTW_PHYS);
    /* a second pass for directories that were unreadable on the first */
    nftw(dir, tu_rm_one, 16, FTW_DEPTH | FTW_PHYS);
    struct stat st;
    assert_int_not_equal(lstat(dir, &st), 0);
}

/* The scratch directory of a group of tests, for the tests that need one:
 * cmocka_run_group_tests(tests, tu_dir_setup, tu_dir_teardown). */
static char *tu_dir;

static inline int tu_dir_setup(void **state)
{
    (void)state;
    tu_dir = tu_mkdtemp();
    return 0;
}

static inline int tu_dir_teardown(void **state)
{
    (void)state;
    tu_rmtree(tu_dir);
    free(tu_dir);
    tu_dir = NULL;
    return 0;
}

/* Number of entries in a directory, "." and ".." excluded. */
static inline int tu_count_entries(const char *dir)
{
    int n = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

static inline char *tu_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    assert_non_null(buf);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
            assert_non_null(buf);
        }
    }
    fclose(f);
    buf[n] = 0;
    if (len)
        *len = n;
    return buf;
}

/* The recorded error must contain each of the given fragments. */
#define tu_assert_err(...) tu_assert_err_(__FILE__, __LINE__, __VA_ARGS__, (const char *)NULL)
static inline void tu_assert_err_(const char *file, int line, const char *first, ...)
{
    const char *msg = err_message();
    va_list ap;
    va_start(ap, first);
    for (const char *frag = first; frag; frag = va_arg(ap, const char *)) {
        if (!strstr(msg, frag)) {
            va_end(ap);
            print_error("%s:%d: error message \"%s\" lacks \"%s\"\n", file, line, msg, frag);
            _fail(file, line);
        }
    }
    va_end(ap);
    assert_int_equal(err_kind(), EXIT_BADINPUT);
    /* one line on stderr: the record itself has no line break */
    assert_null(strchr(msg, '\n'));
}

#endif
