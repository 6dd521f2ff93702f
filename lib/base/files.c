/* Files in and out (files.h). Inputs are opened with O_NOFOLLOW and checked
 * to be regular files within a size limit, then memory-mapped (or read into
 * memory when small or when the caller asks); the file's identity and
 * mtime are kept, so that a reader can tell afterwards whether another
 * process truncated or rewrote it. Reads of a mapping under a file_guard
 * survive a truncation: the SIGBUS handler of process.c asks
 * file_guard_absorb to map zero pages over the lost part and mark the guard,
 * whose end then reports "changed during the run" instead of a crash.
 * Outputs are written to a registered temporary file in the target
 * directory and renamed into place when complete; the registry lets the
 * signal thread remove what is pending when the run is interrupted.
 */
#include "base/files.h"
#include "base/err.h"
#include "base/mem.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int map_error(const char *path, int e)
{
    switch (e) {
    case ENOENT: return err_set(ERR_MISSING, path, "no such file");
    case ELOOP: return err_set(ERR_UNREADABLE, path, "is a symbolic link, which is not allowed for safety");
    case EACCES: return err_set(ERR_UNREADABLE, path, "permission denied");
    case EISDIR: return err_set(ERR_UNREADABLE, path, "is a directory, a file was expected");
    case ENOTDIR: return err_set(ERR_UNREADABLE, path, "a component of the path is not a directory");
    default: return err_set(ERR_UNREADABLE, path, "cannot open: %s", strerror(e));
    }
}

/* Open `path` for reading and check it is a regular file within max_size;
 * fills out's path and identity. Returns the descriptor or -1. */
static int open_input(const char *path, size_t max_size, mapped_file *out)
{
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return map_error(path, errno);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return map_error(path, e);
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return err_set(ERR_UNREADABLE, path, "is a directory, a file was expected");
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return err_set(ERR_UNREADABLE, path, "is not a regular file");
    }
    if ((max_size && (size_t)st.st_size > max_size) || (uintmax_t)st.st_size > SIZE_MAX - 1) {
        close(fd);
        return err_set(ERR_LIMIT, path, "is too large (%lld bytes, the limit is %zu)", (long long)st.st_size,
                       max_size ? max_size : SIZE_MAX - 1);
    }
    out->path = xstrdup(path);
    out->size = (size_t)st.st_size;
    out->dev = st.st_dev;
    out->ino = st.st_ino;
    out->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    return fd;
}

static int map_fd(int fd, const char *path, mapped_file *out)
{
    if (out->size) {
        void *p = mmap(NULL, out->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            int e = errno;
            close(fd);
            file_unmap(out);
            return err_set(ERR_UNREADABLE, path, "cannot map: %s", strerror(e));
        }
        /* two calls: the advice values are not flags */
        madvise(p, out->size, MADV_SEQUENTIAL);
        madvise(p, out->size, MADV_WILLNEED);
        out->data = p;
    }
    close(fd);
    return 0;
}

static int changed_error(const char *path)
{
    return err_set(ERR_CHANGED, path, "changed during the run: truncated or rewritten by another process "
                                      "while being read");
}

static int read_fd(int fd, const char *path, mapped_file *out)
{
    out->heap = 1;
    unsigned char *buf = xmalloc(out->size + 1);
    size_t got = 0;
    while (got < out->size) {
        ssize_t n = read(fd, buf + got, out->size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : 0;
            close(fd);
            free(buf);
            file_unmap(out);
            if (e)
                return err_set(ERR_UNREADABLE, path, "cannot read: %s", strerror(e));
            return changed_error(path);
        }
        got += (size_t)n;
    }
    close(fd);
    buf[out->size] = 0;
    out->data = buf;
    return 0;
}

int file_map(const char *path, size_t max_size, mapped_file *out)
{
    int fd = open_input(path, max_size, out);
    return fd < 0 ? -1 : map_fd(fd, path, out);
}

int file_load(const char *path, size_t max_size, mapped_file *out)
{
    int fd = open_input(path, max_size, out);
    return fd < 0 ? -1 : read_fd(fd, path, out);
}

int file_map_or_load(const char *path, size_t max_size, size_t load_below, mapped_file *out)
{
    int fd = open_input(path, max_size, out);
    if (fd < 0)
        return -1;
    return out->size < load_below ? read_fd(fd, path, out) : map_fd(fd, path, out);
}

void file_unmap(mapped_file *f)
{
    if (f->data && f->heap)
        free((void *)f->data);
    else if (f->data)
        munmap((void *)f->data, f->size);
    free(f->path);
    memset(f, 0, sizeof *f);
}

void file_map_drop(const mapped_file *f, size_t from, size_t to)
{
    if (!f->data || f->heap)
        return;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t base = (uintptr_t)f->data;
    uintptr_t a = (base + from + page - 1) / page * page, b = (base + (to < f->size ? to : f->size)) / page * page;
    if (b > a)
        madvise((void *)a, b - a, MADV_DONTNEED);
}

/* ---- guarded reads of mappings ------------------------------------------ */

/* The guards open on this thread, innermost first. Read by the SIGBUS
 * handler on the same thread, so only compiler ordering matters (the
 * signal fences); initial-exec TLS, because the handler must not trigger a
 * lazy TLS allocation. */
static __thread file_guard *guard_top __attribute__((tls_model("initial-exec")));

void file_guard_begin(file_guard *g, const mapped_file *f)
{
    g->file = f;
    g->faulted = 0;
    g->page = (size_t)sysconf(_SC_PAGESIZE);
    g->prev = guard_top;
    atomic_signal_fence(memory_order_seq_cst);
    guard_top = g;
    atomic_signal_fence(memory_order_seq_cst);
}

/* Did the file change since it was mapped? A file replaced by another one
 * (rename) or removed leaves our mapping of the old one intact. */
static int file_changed(const mapped_file *f)
{
    struct stat st;
    if (stat(f->path, &st) != 0 || st.st_dev != f->dev || st.st_ino != f->ino)
        return 0;
    long long mtime = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    return (uintmax_t)st.st_size != f->size || mtime != f->mtime_ns;
}

int file_guard_end(file_guard *g)
{
    atomic_signal_fence(memory_order_seq_cst);
    guard_top = g->prev;
    atomic_signal_fence(memory_order_seq_cst);
    const mapped_file *f = g->file;
    if (!f || !f->data || f->heap)
        return 0;
    if (g->faulted || file_changed(f))
        return changed_error(f->path);
    return 0;
}

int file_guard_absorb(const void *addr)
{
    uintptr_t a = (uintptr_t)addr;
    for (file_guard *g = guard_top; g; g = g->prev) {
        const mapped_file *f = g->file;
        if (!f || !f->data || f->heap)
            continue;
        uintptr_t lo = (uintptr_t)f->data, hi = lo + f->size;
        if (a < lo || a >= hi)
            continue;
        /* mmap gave a page-aligned start and covers whole pages */
        uintptr_t from = a & ~(uintptr_t)(g->page - 1), to = (hi + g->page - 1) & ~(uintptr_t)(g->page - 1);
        if (mmap((void *)from, to - from, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
            return 0;
        g->faulted = 1;
        return 1;
    }
    return 0;
}

enum path_kind path_kind(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return PATH_MISSING;
    if (S_ISLNK(st.st_mode))
        return PATH_LINK;
    if (S_ISDIR(st.st_mode))
        return PATH_DIR;
    if (S_ISREG(st.st_mode))
        return PATH_FILE;
    return PATH_OTHER;
}

int path_require(const char *path, int want_dir)
{
    switch (path_kind(path)) {
    case PATH_MISSING: {
        /* missing, or out of reach: a directory above it not searchable */
        struct stat st;
        if (lstat(path, &st) != 0 && errno != ENOENT && errno != ENOTDIR)
            return err_set(ERR_UNREADABLE, path, "cannot be reached: %s", strerror(errno));
        return err_set(ERR_MISSING, path, "does not exist");
    }
    case PATH_LINK:
        return err_set(ERR_UNREADABLE, path, "is a symbolic link, which is not allowed for safety");
    case PATH_DIR:
        if (want_dir)
            return 0;
        return err_set(ERR_UNREADABLE, path, "is a directory, a file was expected");
    case PATH_FILE:
        if (!want_dir)
            return 0;
        return err_set(ERR_UNREADABLE, path, "is a file, a directory was expected");
    default: {
        struct stat st;
        const char *what = lstat(path, &st) != 0 ? "something" : S_ISFIFO(st.st_mode) ? "a FIFO"
                                                             : S_ISSOCK(st.st_mode) ? "a socket"
                                                                                    : "a device";
        return err_set(ERR_UNREADABLE, path, "is %s, not a regular file or directory", what);
    }
    }
}

char *path_join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    while (la > 1 && a[la - 1] == '/')
        la--;
    char *p = xmalloc(la + lb + 2);
    memcpy(p, a, la);
    size_t n = la;
    if (la && a[la - 1] != '/')
        p[n++] = '/';
    memcpy(p + n, b, lb + 1);
    return p;
}

char *path_basename(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    size_t s = n;
    while (s > 0 && path[s - 1] != '/')
        s--;
    return xstrndup(path + s, n - s);
}

char *path_dirname(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    while (n > 0 && path[n - 1] != '/')
        n--;
    if (n == 0)
        return xstrdup(".");
    while (n > 1 && path[n - 1] == '/')
        n--;
    return xstrndup(path, n);
}

int path_has_suffix(const char *path, const char *suffix)
{
    size_t lp = strlen(path), ls = strlen(suffix);
    return lp >= ls && memcmp(path + lp - ls, suffix, ls) == 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

long dir_list(const char *path, char ***names)
{
    *names = NULL;
    if (path_require(path, 1) != 0)
        return -1;
    DIR *d = opendir(path);
    if (!d)
        return map_error(path, errno);
    size_t n = 0, cap = 0;
    char **v = NULL;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        GROW(v, cap, n + 1);
        v[n++] = xstrdup(e->d_name);
    }
    closedir(d);
    if (n)
        qsort(v, n, sizeof *v, cmp_names);
    *names = v;
    return (long)n;
}

void names_free(char **names, long n)
{
    for (long i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int dir_create(const char *path)
{
    char *p = xstrdup(path);
    size_t len = strlen(p);
    for (size_t i = 1; i <= len; i++) {
        if (p[i] != '/' && p[i] != 0)
            continue;
        char c = p[i];
        p[i] = 0;
        struct stat st;
        if (lstat(p, &st) != 0) {
            if (mkdir(p, 0750) != 0 && errno != EEXIST) {
                int e = errno;
                free(p);
                return err_set(ERR_OUTPUT, path, "cannot create output directory: %s", strerror(e));
            }
        } else if (S_ISLNK(st.st_mode) && c == 0) {
            free(p);
            return err_set(ERR_OUTPUT, path, "output directory is a symbolic link, which is not allowed for safety");
        } else if (!S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode)) {
            err_set(ERR_OUTPUT, path, "cannot create output directory: %s is not a directory", p);
            free(p);
            return -1;
        }
        p[i] = c;
    }
    free(p);
    if (path_require(path, 1) != 0)
        return -1;
    if (access(path, W_OK | X_OK) != 0)
        return err_set(ERR_OUTPUT, path, "output directory is not writable");
    return 0;
}

/* Temporary outputs not yet committed or discarded, for out_tmp_remove_all.
 * Creation and registration happen under one lock, so a file is never on
 * disk unregistered; no fixed cap. */
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static char **pending;
static size_t npending, pending_cap;

static void pending_remove_locked(const char *p)
{
    for (size_t i = 0; i < npending; i++)
        if (pending[i] == p) {
            pending[i] = pending[--npending];
            return;
        }
}

char *out_tmp_create(const char *final_path)
{
    char *dir = path_dirname(final_path);
    char *base = path_basename(final_path);
    size_t n = strlen(dir) + strlen(base) + 16;
    char *tmp = xmalloc(n);
    snprintf(tmp, n, "%s/.%s.XXXXXX", dir, base);
    free(dir);
    free(base);
    pthread_mutex_lock(&pending_lock);
    int fd = mkstemp(tmp);
    int e = errno;
    if (fd >= 0) {
        GROW(pending, pending_cap, npending + 1);
        pending[npending++] = tmp;
    }
    pthread_mutex_unlock(&pending_lock);
    if (fd < 0) {
        err_set(ERR_OUTPUT, final_path, "cannot create output file: %s", strerror(e));
        free(tmp);
        return NULL;
    }
    close(fd);
    return tmp;
}

FILE *out_tmp_fopen(const char *tmp_path) { return fopen(tmp_path, "r+b"); }

int out_tmp_commit(char *tmp_path, const char *final_path)
{
    pthread_mutex_lock(&pending_lock);
    int ok = chmod(tmp_path, 0640) == 0 && rename(tmp_path, final_path) == 0;
    int e = errno;
    if (ok)
        pending_remove_locked(tmp_path);
    pthread_mutex_unlock(&pending_lock);
    if (!ok) {
        out_tmp_discard(tmp_path);
        return err_set(ERR_OUTPUT, final_path, "cannot write output file: %s", strerror(e));
    }
    free(tmp_path);
    return 0;
}

void out_tmp_discard(char *tmp_path)
{
    if (!tmp_path)
        return;
    pthread_mutex_lock(&pending_lock);
    unlink(tmp_path);
    pending_remove_locked(tmp_path);
    pthread_mutex_unlock(&pending_lock);
    free(tmp_path);
}

void out_tmp_remove_all(void)
{
    pthread_mutex_lock(&pending_lock);
    for (size_t i = 0; i < npending; i++)
        unlink(pending[i]);
    npending = 0;
    /* left locked: the process is about to end */
}

char *out_tmp_write(const char *final_path, const void *const *parts, const size_t *lens, int n)
{
    char *tmp = out_tmp_create(final_path);
    if (!tmp)
        return NULL;
    FILE *fp = out_tmp_fopen(tmp);
    int ok = fp != NULL;
    for (int i = 0; i < n && ok; i++)
        ok = lens[i] == 0 || fwrite(parts[i], 1, lens[i], fp) == lens[i];
    int e = errno;
    if (fp && fclose(fp) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    if (!ok) {
        out_tmp_discard(tmp);
        err_set(ERR_OUTPUT, final_path, "cannot write: %s", strerror(e ? e : EIO));
        return NULL;
    }
    return tmp;
}

int file_write_atomic_parts(const char *path, const void *const *parts, const size_t *lens, int n)
{
    char *tmp = out_tmp_write(path, parts, lens, n);
    return tmp ? out_tmp_commit(tmp, path) : -1;
}

int file_write_atomic(const char *path, const void *data, size_t len)
{
    return file_write_atomic_parts(path, &data, &len, 1);
}

void time_stamp(char out[15])
{
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(out, 15, "%Y%m%d%H%M%S", &tm);
}
