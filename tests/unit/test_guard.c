/* Mapped inputs that another process truncates or rewrites while we read
 * them (files.h file_guard, process.h): the reader gets ERR_CHANGED naming
 * the file instead of dying of SIGBUS; a reader without a guard still dies.
 *
 * cmocka installs its own SIGBUS handler around every test, so each check
 * runs in a child that calls process_setup() itself and reports by exit
 * status: 0 when every step held, else the number of the first that failed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/err.h"
#include "base/files.h"
#include "base/process.h"
#include "format/tensor_file.h"
#include "model/metrics.h"
#include "npy_write.h"
#include "testutil.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE ((size_t)sysconf(_SC_PAGESIZE))

/* Run fn(arg) in a child with the process setup done; return its wait
 * status. */
static int in_child(int (*fn)(const char *), const char *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* not cmocka's handlers: a crash must end the child */
        static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGSYS};
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
            signal(sigs[i], SIG_DFL);
        process_setup();
        _exit(fn(arg));
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static void expect_child_ok(int (*fn)(const char *), const char *arg)
{
    int status = in_child(fn, arg);
    if (!WIFEXITED(status))
        fail_msg("child died of signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : -1);
    if (WEXITSTATUS(status) != 0)
        fail_msg("check %d failed in the child", WEXITSTATUS(status));
}

/* A file of n bytes, none of them zero. */
static char *pattern_file(const char *name, size_t n)
{
    char *buf = malloc(n);
    assert_non_null(buf);
    for (size_t i = 0; i < n; i++)
        buf[i] = (char)(1 + i % 251);
    char *p = tu_write(tu_dir, name, buf, n);
    free(buf);
    return p;
}

static unsigned long sum_bytes(const mapped_file *f)
{
    unsigned long s = 0;
    for (size_t i = 0; i < f->size; i++)
        s += f->data[i];
    return s;
}

static int changed_error_for(const char *path)
{
    return err_cause() == ERR_CHANGED && strstr(err_message(), path) && strstr(err_message(), "changed during the run");
}

/* Truncated to one page: the pages past it fault, read as zeros, and the
 * guard reports the change. */
static int truncated_pages(const char *path)
{
    mapped_file f;
    if (file_map(path, 0, &f) != 0)
        return 1;
    if (truncate(path, PAGE) != 0)
        return 2;
    file_guard g;
    file_guard_begin(&g, &f);
    unsigned long s = sum_bytes(&f);
    unsigned char first = f.data[0], past = f.data[PAGE + 10];
    err_clear();
    int rc = file_guard_end(&g);
    int ok = rc == -1 && changed_error_for(path) && first == 1 && past == 0 && s > 0;
    file_unmap(&f);
    return ok ? 0 : 3;
}

static void test_truncated_pages(void **state)
{
    char *p = pattern_file("pages.bin", 5 * PAGE);
    expect_child_ok(truncated_pages, p);
    free(p);
}

/* Truncated inside the last page: no signal at all, the size tells. */
static int truncated_in_page(const char *path)
{
    mapped_file f;
    if (file_map(path, 0, &f) != 0)
        return 1;
    if (truncate(path, PAGE + 100) != 0)
        return 2;
    file_guard g;
    file_guard_begin(&g, &f);
    sum_bytes(&f);
    err_clear();
    int ok = file_guard_end(&g) == -1 && changed_error_for(path);
    file_unmap(&f);
    return ok ? 0 : 3;
}

static void test_truncated_in_page(void **state)
{
    char *p = pattern_file("inpage.bin", PAGE + 200);
    expect_child_ok(truncated_in_page, p);
    free(p);
}

/* Untouched: no error. Rewritten in place (same size, new time): changed.
 * Replaced by rename: our mapping of the old file is intact, no error. */
static int untouched_rewritten_replaced(const char *path)
{
    mapped_file f;
    file_guard g;
    if (file_map(path, 0, &f) != 0)
        return 1;
    file_guard_begin(&g, &f);
    unsigned long before = sum_bytes(&f);
    err_clear();
    if (file_guard_end(&g) != 0 || err_cause() != ERR_NONE)
        return 2;

    int fd = open(path, O_WRONLY);
    if (fd < 0 || pwrite(fd, "x", 1, 7) != 1)
        return 3;
    struct timespec later[2] = {{0, UTIME_OMIT}, {time(NULL) + 10, 0}};
    futimens(fd, later);
    close(fd);
    file_guard_begin(&g, &f);
    sum_bytes(&f);
    if (file_guard_end(&g) != -1 || !changed_error_for(path))
        return 4;
    file_unmap(&f);

    if (file_map(path, 0, &f) != 0)
        return 5;
    before = sum_bytes(&f);
    char *other = malloc(strlen(path) + 5);
    sprintf(other, "%s.new", path);
    FILE *fp = fopen(other, "w");
    fputs("short", fp);
    fclose(fp);
    int renamed = rename(other, path) == 0;
    free(other);
    if (!renamed)
        return 6;
    file_guard_begin(&g, &f);
    unsigned long after = sum_bytes(&f);
    err_clear();
    if (file_guard_end(&g) != 0 || after != before)
        return 7;
    file_unmap(&f);
    return 0;
}

static void test_untouched_rewritten_replaced(void **state)
{
    char *p = pattern_file("rewrite.bin", 3 * PAGE);
    expect_child_ok(untouched_rewritten_replaced, p);
    free(p);
}

/* Without a guard the process still dies of SIGBUS: nobody goes on with
 * zeros unknowingly. */
static int unguarded(const char *path)
{
    mapped_file f;
    if (file_map(path, 0, &f) != 0 || truncate(path, 0) != 0)
        return 1;
    volatile unsigned long s = sum_bytes(&f);
    (void)s;
    return 2;
}

static void test_unguarded_read_dies(void **state)
{
    char *p = pattern_file("unguarded.bin", 4 * PAGE);
    int status = in_child(unguarded, p);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGBUS);
    free(p);
}

/* Guards nest; a fault belongs to the guard of the mapping it hit. */
static int nested(const char *dir)
{
    char a_path[512], b_path[512];
    snprintf(a_path, sizeof a_path, "%s/nest_a.bin", dir);
    snprintf(b_path, sizeof b_path, "%s/nest_b.bin", dir);
    mapped_file a, b;
    if (file_map(a_path, 0, &a) != 0 || file_map(b_path, 0, &b) != 0)
        return 1;
    if (truncate(a_path, 0) != 0)
        return 2;
    file_guard ga, gb;
    file_guard_begin(&ga, &a);
    file_guard_begin(&gb, &b);
    sum_bytes(&a);
    sum_bytes(&b);
    err_clear();
    if (file_guard_end(&gb) != 0)
        return 3;
    if (file_guard_end(&ga) != -1 || !changed_error_for(a_path))
        return 4;
    file_unmap(&a);
    file_unmap(&b);
    return 0;
}

static void test_nested(void **state)
{
    free(pattern_file("nest_a.bin", 2 * PAGE));
    free(pattern_file("nest_b.bin", 2 * PAGE));
    expect_child_ok(nested, tu_dir);
}

/* Each thread has its own guards and its own error. */
typedef struct {
    char path[512];
    int result;
} thread_job;

static void *thread_read(void *arg)
{
    thread_job *j = arg;
    mapped_file f;
    if (file_map(j->path, 0, &f) != 0) {
        j->result = 1;
        return NULL;
    }
    if (truncate(j->path, PAGE) != 0) {
        j->result = 2;
        return NULL;
    }
    file_guard g;
    file_guard_begin(&g, &f);
    sum_bytes(&f);
    err_clear();
    j->result = file_guard_end(&g) == -1 && changed_error_for(j->path) ? 0 : 3;
    file_unmap(&f);
    err_clear();
    return NULL;
}

static int threads(const char *dir)
{
    enum { N = 4 };
    thread_job jobs[N];
    pthread_t t[N];
    for (int i = 0; i < N; i++) {
        snprintf(jobs[i].path, sizeof jobs[i].path, "%s/thread%d.bin", dir, i);
        jobs[i].result = -1;
        if (pthread_create(&t[i], NULL, thread_read, &jobs[i]) != 0)
            return 1;
    }
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < N; i++)
        if (jobs[i].result != 0)
            return 10 + i * 4 + jobs[i].result;
    return err_cause() == ERR_NONE ? 0 : 2;
}

static void test_threads(void **state)
{
    for (int i = 0; i < 4; i++) {
        char name[32];
        snprintf(name, sizeof name, "thread%d.bin", i);
        free(pattern_file(name, 8 * PAGE));
    }
    expect_child_ok(threads, tu_dir);
}

/* file_load: a private copy, immune to later changes; guards on it do
 * nothing. */
static void test_file_load(void **state)
{
    char *p = pattern_file("load.bin", 2 * PAGE);
    mapped_file f;
    err_clear();
    assert_int_equal(file_load(p, 0, &f), 0);
    assert_int_equal(f.size, 2 * PAGE);
    assert_int_equal(f.data[0], 1);
    assert_int_equal(f.data[f.size], 0);
    assert_int_equal(truncate(p, 0), 0);
    file_guard g;
    file_guard_begin(&g, &f);
    assert_int_equal(f.data[PAGE + 1], (unsigned char)(1 + (PAGE + 1) % 251));
    assert_int_equal(file_guard_end(&g), 0);
    file_unmap(&f);
    assert_null(f.data);
    /* the same refusals as file_map */
    assert_int_equal(file_load(tu_dir, 0, &f), -1);
    tu_assert_err(tu_dir, "is a directory");
    assert_int_equal(file_load(p, 0, &f), 0);
    assert_int_equal(f.size, 0);
    file_unmap(&f);
    free(p);
}

/* A tensor file truncated between loading and comparing: metrics_compare
 * reports the file, and nothing dies. */
static int tensor_truncated(const char *dir)
{
    char a_path[512], b_path[512];
    snprintf(a_path, sizeof a_path, "%s/t_npu.npy", dir);
    snprintf(b_path, sizeof b_path, "%s/t_bench.npy", dir);
    tensor a, b;
    if (tensor_load(a_path, &a) != 0 || tensor_load(b_path, &b) != 0)
        return 1;
    if (truncate(b_path, 128) != 0)
        return 2;
    tensor_metrics m;
    err_clear();
    int ok = metrics_compare(&a, &b, 0, &m) == -1 && changed_error_for(b_path);
    tensor_free(&a);
    tensor_free(&b);
    if (!ok)
        return 3;
    /* truncated before loading: an ordinary malformed file */
    err_clear();
    if (tensor_load(b_path, &b) != -1 || err_cause() != ERR_MALFORMED)
        return 4;
    return 0;
}

static void test_tensor_truncated(void **state)
{
    enum { N = 64 * 1024 };
    float *v = malloc(N * sizeof *v);
    assert_non_null(v);
    for (int i = 0; i < N; i++)
        v[i] = (float)i;
    int64_t shape[1] = {N};
    char *a = tu_path(tu_dir, "t_npu.npy"), *b = tu_path(tu_dir, "t_bench.npy");
    assert_int_equal(npy_save(a, DT_F32, 1, shape, v), 0);
    assert_int_equal(npy_save(b, DT_F32, 1, shape, v), 0);
    free(v);
    expect_child_ok(tensor_truncated, tu_dir);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncated_pages),
        cmocka_unit_test(test_truncated_in_page),
        cmocka_unit_test(test_untouched_rewritten_replaced),
        cmocka_unit_test(test_unguarded_read_dies),
        cmocka_unit_test(test_nested),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_file_load),
        cmocka_unit_test(test_tensor_truncated),
    };
    return cmocka_run_group_tests(tests, tu_dir_setup, tu_dir_teardown);
}
