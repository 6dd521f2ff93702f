/* Output names that never replace a file, the one rule of an output with a
 * fixed name (out_named), and the rollback of a failed run (outdir.h). */
#include "base/outdir.h"
#include "base/err.h"
#include "base/files.h"
#include "base/log.h"
#include "base/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int stamp_next(const char *stamp, char out[15])
{
    if (strlen(stamp) != 14 || strspn(stamp, "0123456789") != 14)
        return -1;
    int f[6];
    static const int width[6] = {4, 2, 2, 2, 2, 2};
    const char *p = stamp;
    for (int i = 0; i < 6; i++) {
        f[i] = 0;
        for (int k = 0; k < width[i]; k++)
            f[i] = f[i] * 10 + (*p++ - '0');
    }
    if (f[1] < 1 || f[1] > 12 || f[2] < 1 || f[2] > 31 || f[3] > 23 || f[4] > 59 || f[5] > 60)
        return -1;
    /* the fields as UTC: plain calendar arithmetic, no daylight saving
     * jumps, so the next stamp always sorts after this one */
    struct tm tm = {.tm_year = f[0] - 1900, .tm_mon = f[1] - 1, .tm_mday = f[2],
                    .tm_hour = f[3], .tm_min = f[4], .tm_sec = f[5]};
    time_t t = timegm(&tm);
    if (t == (time_t)-1)
        return -1;
    t += 1;
    struct tm next;
    if (!gmtime_r(&t, &next) || strftime(out, 15, "%Y%m%d%H%M%S", &next) != 14)
        return -1;
    return 0;
}

int out_name_taken(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 || errno != ENOENT;
}

/* The name with the number before its extension advanced; NULL when it
 * has none. */
static char *next_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *end = strrchr(base, '.');
    if (!end)
        end = base + strlen(base);
    const char *start = end;
    while (start > base && start[-1] >= '0' && start[-1] <= '9')
        start--;
    size_t nd = (size_t)(end - start), pre = (size_t)(start - path);
    if (!nd)
        return NULL;
    char *out = xmalloc(strlen(path) + 2);
    memcpy(out, path, pre);
    if (nd == 14) {
        char stamp[15], next[15];
        memcpy(stamp, start, 14);
        stamp[14] = 0;
        if (stamp_next(stamp, next) == 0) {
            memcpy(out + pre, next, 14);
            strcpy(out + pre + 14, end);
            return out;
        }
    }
    /* decimal increment, growing by a digit after all nines */
    memcpy(out + pre + 1, start, nd);
    size_t i = nd;
    while (i > 0 && out[pre + i] == '9')
        out[pre + i--] = '0';
    if (i > 0) {
        out[pre + i]++;
        memmove(out + pre, out + pre + 1, nd);
        strcpy(out + pre + nd, end);
    } else {
        out[pre] = '1';
        strcpy(out + pre + nd + 1, end);
    }
    return out;
}

/* Give the temporary file the name `final` unless that exists: 0 (tmp
 * consumed), EEXIST (tmp kept), another errno (tmp removed) or -1 (tmp
 * removed, error recorded). */
static int claim(char *tmp, const char *final)
{
    if (link(tmp, final) == 0) {
        out_tmp_discard(tmp);
        return 0;
    }
    int e = errno;
    if (e == EEXIST)
        return e;
    if (e != EPERM && e != ENOTSUP && e != EOPNOTSUPP && e != ENOSYS && e != EMLINK) {
        out_tmp_discard(tmp);
        return e;
    }
    /* a file system without hard links: reserve the name, then move the
     * file over our own reservation */
    int fd = open(final, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
    if (fd < 0) {
        e = errno;
        if (e != EEXIST)
            out_tmp_discard(tmp);
        return e;
    }
    close(fd);
    if (out_tmp_commit(tmp, final) != 0) {
        unlink(final);
        return -1;
    }
    return 0;
}

int out_commit_new(char *tmp, char **final)
{
    if (chmod(tmp, 0640) != 0) {
        int e = errno;
        out_tmp_discard(tmp);
        return err_set(ERR_OUTPUT, *final, "cannot write output file: %s", strerror(e));
    }
    int renamed = 0;
    for (int tries = 0;; tries++) {
        int e = claim(tmp, *final);
        if (e == 0)
            return renamed;
        if (e < 0)
            return -1;
        if (e != EEXIST)
            return err_set(ERR_OUTPUT, *final, "cannot write output file: %s", strerror(e));
        char *next = tries < 100000 ? next_name(*final) : NULL;
        if (!next) {
            out_tmp_discard(tmp);
            return err_set(ERR_OUTPUT, *final, "exists, and no free name was found for the output file");
        }
        free(*final);
        *final = next;
        renamed = 1;
    }
}

int file_write_new(char **path, const void *data, size_t len)
{
    char *tmp = out_tmp_write(*path, &data, &len, 1);
    return tmp ? out_commit_new(tmp, path) : -1;
}

int out_check_replaceable(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0) {
        const char *what = S_ISREG(st.st_mode)    ? NULL
                           : S_ISLNK(st.st_mode)  ? "a symbolic link"
                           : S_ISDIR(st.st_mode)  ? "a directory"
                           : S_ISFIFO(st.st_mode) ? "a FIFO"
                           : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                           : S_ISSOCK(st.st_mode) ? "a socket"
                                                  : "not a regular file";
        if (what)
            return err_set(ERR_OUTPUT, path, "exists and is %s, not a regular file: not replaced", what);
    } else if (errno != ENOENT) {
        return err_set(ERR_OUTPUT, path, "cannot write: %s", strerror(errno));
    }
    char *dir = path_dirname(path);
    int rc = 0;
    /* the directory may be reached through a link (/var/run) */
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        rc = err_set(ERR_OUTPUT, path, "cannot write: its directory %s does not exist", dir);
    else if (access(dir, W_OK | X_OK) != 0)
        rc = err_set(ERR_OUTPUT, path, "cannot write: its directory %s is not writable", dir);
    free(dir);
    return rc;
}

/* The nearest existing ancestor of a directory that does not exist yet
 * must be a directory we may write into (mkdir -p will make the rest). */
static int creatable(const char *file, const char *dir)
{
    char *d = xstrdup(dir);
    struct stat st;
    while (stat(d, &st) != 0 && errno == ENOENT && strcmp(d, "/") && strcmp(d, ".")) {
        char *up = path_dirname(d);
        free(d);
        d = up;
    }
    int rc = 0;
    if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode))
        rc = err_set(ERR_OUTPUT, file, "cannot write: %s is not a directory", d);
    else if (access(d, W_OK | X_OK) != 0)
        rc = err_set(ERR_OUTPUT, file, "cannot write: its directory %s is not writable", d);
    free(d);
    return rc;
}

char *out_named(out_run *r, const char *given, const char *default_name, int policy, int force)
{
    size_t n = strlen(given);
    struct stat st;
    char *path = (n && given[n - 1] == '/') || (stat(given, &st) == 0 && S_ISDIR(st.st_mode))
                     ? path_join(given, default_name)
                     : xstrdup(given);
    char *dir = path_dirname(path);
    int rc;
    if (lstat(path, &st) != 0) {
        rc = errno == ENOENT || errno == ENOTDIR ? creatable(path, dir)
                                                 : err_set(ERR_OUTPUT, path, "cannot write: %s", strerror(errno));
    } else {
        rc = out_check_replaceable(path);
        if (rc == 0 && policy != OUT_REPLACES && !force)
            rc = err_set(ERR_OUTPUT, path, "exists; --force replaces it (or give another name)");
    }
    if (rc == 0 && path_kind(dir) == PATH_MISSING)
        rc = out_run_mkdir(r, dir);
    free(dir);
    if (rc != 0) {
        free(path);
        return NULL;
    }
    return path;
}

struct out_run {
    pthread_mutex_t lock;
    char **files, **dirs;
    size_t nfiles, cap_files, ndirs, cap_dirs;
};

out_run *out_run_new(void)
{
    out_run *r = xcalloc(1, sizeof *r);
    pthread_mutex_init(&r->lock, NULL);
    return r;
}

static void forget(out_run *r)
{
    for (size_t i = 0; i < r->nfiles; i++)
        free(r->files[i]);
    for (size_t i = 0; i < r->ndirs; i++)
        free(r->dirs[i]);
    r->nfiles = r->ndirs = 0;
}

void out_run_free(out_run *r)
{
    if (!r)
        return;
    forget(r);
    free(r->files);
    free(r->dirs);
    pthread_mutex_destroy(&r->lock);
    free(r);
}

int out_run_mkdir(out_run *r, const char *path)
{
    if (!r)
        return dir_create(path);
    pthread_mutex_lock(&r->lock);
    /* the levels missing now, top down, the way dir_create walks them */
    char *p = xstrdup(path);
    size_t len = strlen(p), first_new = r->ndirs;
    for (size_t i = 1; i <= len; i++) {
        if ((p[i] != '/' && p[i] != 0) || p[i - 1] == '/')
            continue;
        char c = p[i];
        p[i] = 0;
        if (!out_name_taken(p)) {
            GROW(r->dirs, r->cap_dirs, r->ndirs + 1);
            r->dirs[r->ndirs++] = xstrdup(p);
        }
        p[i] = c;
    }
    free(p);
    int rc = dir_create(path);
    /* keep those that were made (all of them, unless dir_create failed) */
    size_t k = first_new;
    for (size_t i = first_new; i < r->ndirs; i++) {
        if (path_kind(r->dirs[i]) == PATH_DIR)
            r->dirs[k++] = r->dirs[i];
        else
            free(r->dirs[i]);
    }
    r->ndirs = k;
    pthread_mutex_unlock(&r->lock);
    return rc;
}

void out_run_add(out_run *r, const char *path)
{
    if (!r || !path)
        return;
    pthread_mutex_lock(&r->lock);
    GROW(r->files, r->cap_files, r->nfiles + 1);
    r->files[r->nfiles++] = xstrdup(path);
    pthread_mutex_unlock(&r->lock);
}

int out_run_replace(out_run *r, char *tmp, const char *final, const char *what)
{
    if (path_kind(final) != PATH_MISSING)
        log_warn("%s: the existing %s is replaced", final, what);
    if (out_tmp_commit(tmp, final) != 0)
        return -1;
    out_run_add(r, final);
    return 0;
}

void out_run_abandon(out_run *r)
{
    out_run_rollback(r);
    out_run_free(r);
}

void out_run_rollback(out_run *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&r->lock);
    for (size_t i = 0; i < r->nfiles; i++)
        unlink(r->files[i]);
    /* rmdir only removes an empty directory: anything another process put
     * there meanwhile stays, and so does its directory */
    for (size_t i = r->ndirs; i-- > 0;)
        rmdir(r->dirs[i]);
    forget(r);
    pthread_mutex_unlock(&r->lock);
}
