/* The helpers of fuzz.h. */
#include "tests/fuzz/fuzz.h"

#include "base/err.h"
#include "base/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <ftw.h>

static char dir[4096];

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(p);
    return 0;
}

static void cleanup(void)
{
    if (dir[0])
        nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void fz_init(void)
{
    if (dir[0])
        return;
    log_set_quiet(1);
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/msprobe-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror(dir);
        abort();
    }
    atexit(cleanup);
}

const char *fz_dir(void)
{
    fz_init();
    return dir;
}

char *fz_path(const char *name)
{
    fz_init();
    size_t n = strlen(dir) + 1 + strlen(name) + 1;
    char *p = malloc(n);
    if (!p)
        abort();
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static void make_parents(char *p)
{
    for (char *s = p + strlen(dir) + 1; (s = strchr(s, '/')) != NULL; s++) {
        *s = 0;
        if (mkdir(p, 0700) != 0 && errno != EEXIST) {
            perror(p);
            abort();
        }
        *s = '/';
    }
}

const char *fz_write(const char *name, const void *data, size_t size)
{
    static _Thread_local char *last[8];
    static _Thread_local unsigned next;
    char *p = fz_path(name);
    make_parents(p);
    FILE *f = fopen(p, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror(p);
        abort();
    }
    /* a ring of the last paths, so that a harness may hold a few at once */
    free(last[next % 8]);
    last[next++ % 8] = p;
    return p;
}

void fz_remove(const char *name)
{
    char *p = fz_path(name);
    nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    free(p);
}

void fz_split(const uint8_t *data, size_t size, const uint8_t **p0, size_t *n0, const uint8_t **p1, size_t *n1)
{
    const size_t sl = sizeof FZ_SEPARATOR - 1;
    const uint8_t *at = size >= sl ? memmem(data, size, FZ_SEPARATOR, sl) : NULL;
    *p0 = data;
    if (!at) {
        *n0 = size, *p1 = data + size, *n1 = 0;
        return;
    }
    *n0 = (size_t)(at - data);
    *p1 = at + sl;
    *n1 = size - *n0 - sl;
}

static void check(int rc, int need_path)
{
    const char *msg = err_message();
    const char *why = NULL;
    if (rc != 0) {
        if (err_cause() == ERR_NONE || !*msg)
            why = "failed without an error message";
        else if (strchr(msg, '\n'))
            why = "an error message of more than one line";
        else if (err_cause() == ERR_INTERNAL)
            why = "bad input reported as an internal failure";
        else if (need_path && !strstr(msg, dir))
            why = "an error message that does not name the file";
    } else if (err_cause() != ERR_NONE) {
        why = "succeeded with an error recorded";
    }
    if (why) {
        fprintf(stderr, "fuzz: %s (rc %d, cause %s): %s\n", why, rc, err_cause_name(err_cause()), msg);
        abort();
    }
    err_clear();
}

void fz_done(int rc) { check(rc, 1); }
void fz_done_anywhere(int rc) { check(rc, 0); }
