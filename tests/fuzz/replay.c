/* main() for a fuzz harness built without libFuzzer (make test): every
 * file named on the command line, and every file below every directory
 * named there, is given to LLVMFuzzerTestOneInput() once, in name order.
 * A crash, a sanitizer report or an abort of the harness's own checks
 * fails the run; the last line names how many inputs passed.
 *
 *   build-asan/fuzz/fz_npy tests/fuzz/regress/fz_npy build/fuzz/seeds/fz_npy */
#include "tests/fuzz/fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static size_t count;
static const char *current;

static void run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;)
        if ((n += got) == cap)
            buf = realloc(buf, cap *= 2);
    fclose(f);
    if (!buf)
        abort();
    /* an exact-size copy, so that reading past the input is caught */
    unsigned char *in = malloc(n ? n : 1);
    memcpy(in, buf, n);
    free(buf);
    current = path;
    LLVMFuzzerTestOneInput(in, n);
    free(in);
    count++;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        exit(1);
    }
    if (!S_ISDIR(st.st_mode)) {
        run_file(path);
        return;
    }
    DIR *d = opendir(path);
    if (!d) {
        perror(path);
        exit(1);
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap)
            names = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        snprintf(names[n++], len, "%s/%s", path, e->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        run_path(names[i]);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    fz_init();
    for (int i = 1; i < argc; i++)
        run_path(argv[i]);
    fprintf(stderr, "%zu inputs\n", count);
    return 0;
}
