/* Loading a checkpoint for the compare (ckpt.h): which kind a path holds,
 * handed to the loader of that kind (ckpt_megatron.c, ckpt_sources.c). */
#include "config_check/ckpt.h"
#include "config_check/pack.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/pool.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "format/pickle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- what a path holds -------------------------------------------------------- */

/* parse_iteration: the directory latest_checkpointed_iteration.txt names
 * (iter_0000010), or `path` itself. malloc'ed, or NULL. */
static char *iteration_dir(const char *path)
{
    char *tracker = path_join(path, "latest_checkpointed_iteration.txt");
    char *dir = NULL;
    if (path_kind(tracker) == PATH_MISSING) {
        dir = xstrdup(path);
    } else {
        mapped_file f;
        if (file_load(tracker, (size_t)1 << 20, &f) == 0) {
            const char *s = (const char *)f.data;
            size_t n = f.size;
            long long it;
            while (n && (s[n - 1] == ' ' || s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == '\t'))
                n--;
            while (n && (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t'))
                s++, n--;
            if (n == 7 && !memcmp(s, "release", 7)) {
                /* Megatron keeps a release checkpoint in release/ (msprobe 8.1.0 crashes) */
                dir = path_join(path, "release");
            } else if (cc_int_of(s, n, "", &it) == 0 && it < 0) {
                err_input(tracker, "says %lld, a negative iteration number", it);
            } else if (cc_int_of(s, n, "", &it) == 0) {
                char name[40];
                snprintf(name, sizeof name, "iter_%07lld", it);
                dir = path_join(path, name);
            } else {
                err_input(tracker, "says '%.*s', neither an iteration number nor 'release'", (int)(n < 80 ? n : 80),
                          s);
            }
            file_unmap(&f);
        }
    }
    free(tracker);
    if (dir && path_kind(dir) != PATH_DIR) {
        err_set(ERR_MISSING, dir, "Checkpoint directory not found");
        free(dir);
        dir = NULL;
    }
    return dir;
}

static int path_kind_in(const char *dir, const char *name)
{
    char *p = path_join(dir, name);
    int k = path_kind(p);
    free(p);
    return k;
}

static int has_suffix_file(const char *dir, const char *suffix)
{
    char **names;
    long n = dir_list(dir, &names);
    int found = 0;
    for (long i = 0; i < n && !found; i++)
        found = path_has_suffix(names[i], suffix);
    if (n >= 0)
        names_free(names, n);
    else
        err_clear();
    return found;
}

static int has_prefix_entry(const char *dir, const char *prefix)
{
    char **names;
    long n = dir_list(dir, &names);
    int found = 0;
    for (long i = 0; i < n && !found; i++)
        found = !strncmp(names[i], prefix, strlen(prefix));
    if (n >= 0)
        names_free(names, n);
    else
        err_clear();
    return found;
}

static int name_cmp(const void *x, const void *y)
{
    return strcmp(((const ck_param *)x)->name, ((const ck_param *)y)->name);
}

int ck_load(const char *path, int threads, progress_job *pj, ck_side *s)
{
    memset(s, 0, sizeof *s);
    arena_init(&s->a, 256 * 1024);
    s->path = path;
    s->threads = threads;
    s->pj = pj;
    int kind = path_kind(path);
    int rc;
    if (kind == PATH_FILE && path_has_suffix(path, ".safetensors")) {
        rc = ck_load_safetensors(path, 0, s);
    } else if (kind != PATH_DIR) {
        return kind == PATH_MISSING ? err_set(ERR_MISSING, path, "no such checkpoint")
                                    : err_set(ERR_UNREADABLE, path, "a checkpoint is a directory or a .safetensors "
                                                                    "file");
    } else {
        char *dir = iteration_dir(path);
        if (!dir)
            return -1;
        if (has_prefix_entry(dir, "mp_rank_"))
            rc = ck_load_megatron(dir, s);
        else if (path_kind_in(dir, ".metadata") == PATH_FILE)
            rc = ck_load_torch_dist(dir, s);
        else if (has_suffix_file(dir, ".safetensors") || path_kind_in(dir, "model.safetensors.index.json") == PATH_FILE)
            rc = ck_load_safetensors(dir, 1, s);
        else
            rc = err_input(dir, "No checkpoint rank directories found (no mp_rank_* directory, no torch_dist "
                                ".metadata, no .safetensors file)");
        free(dir);
    }
    if (rc == 0) {
        qsort(s->params, s->n, sizeof *s->params, name_cmp);
        for (size_t i = 1; i < s->n && rc == 0; i++) {
            const ck_param *a = &s->params[i - 1], *b = &s->params[i];
            if (strcmp(a->name, b->name))
                continue;
            if (a->file != b->file && !strcmp(s->kind, "safetensors"))
                rc = err_input(s->files[a->file > b->file ? a->file : b->file].path, "tensor '%s' is also in %s",
                               b->name, s->files[a->file < b->file ? a->file : b->file].path);
            else
                rc = err_input(path, "two tensors are named '%s' (after msprobe's name mapping)", b->name);
        }
        for (size_t i = 0; i < s->n; i++)
            for (size_t k = 0; k < s->params[i].npieces; k++)
                s->bytes += s->params[i].pieces[k].numel * dtype_size((dtype_id)s->params[i].pieces[k].dtype);
    }
    return rc;
}
