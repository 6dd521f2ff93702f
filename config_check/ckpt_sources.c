/* Checkpoints msprobe cannot read (spec/configcheck.md §B.10): Megatron's
 * torch_dist directories and Hugging Face safetensors, as pieces of the
 * full tensors (ckpt.h). */
#include "config_check/ckpt.h"
#include "base/err.h"
#include "base/le.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "format/distcp.h"
#include "format/safetensors.h"

#include <stdlib.h>
#include <string.h>

/* ---- torch_dist --------------------------------------------------------------- */

/* State next to the model's weights (optimizer moments, RNG states) is not
 * compared, as msprobe compares a legacy checkpoint's model only. */
static int is_model_key(const char *fqn)
{
    return strncmp(fqn, "optimizer", 9) && strncmp(fqn, "chained_", 8) && strncmp(fqn, "rng_state", 9);
}

/* The file a chunk lies in, mapped once. */
static long chunk_file(ck_side *s, strmap *files, const char *dir, const char *name)
{
    const size_t *k = strmap_get(files, name, strlen(name));
    if (k)
        return (long)*k;
    char *path = path_join(dir, name);
    long i = ck_add_file(s, path);
    free(path);
    if (i >= 0) {
        int added;
        strmap_put(files, name, strlen(name), (size_t)i, &added);
    }
    return i;
}

/* One chunk: the torch.save archive at [offset, offset + length) of its
 * file holds the chunk as a tensor of exactly the chunk's size. */
static int load_chunk(ck_side *s, const dcp_tensor *t, const dcp_chunk *c, size_t file, ck_piece *out)
{
    const mapped_file *f = &s->files[file];
    if (c->offset > f->size || c->length > f->size - c->offset)
        return err_input(f->path, "tensor '%s': its chunk lies at bytes %llu..%llu, beyond the file's %zu", t->fqn,
                         (unsigned long long)c->offset, (unsigned long long)(c->offset + c->length), f->size);
    strbuf what = STRBUF_INIT;
    sb_addf(&what, "%s (chunk of '%s' at byte %llu)", f->path, t->fqn, (unsigned long long)c->offset);
    const char *where = sb_str(&what);
    file_guard g;
    file_guard_begin(&g, f);
    int rc = -1;
    pt_archive *ar = pt_open(where, f->data + c->offset, (size_t)c->length);
    tensor view;
    memset(&view, 0, sizeof view);
    if (ar) {
        const pk_value *root = pt_root(ar);
        if (!pt_is_tensor(root))
            err_input(where, "holds no tensor");
        else if (pt_tensor(ar, root, &view) == 0)
            rc = 0;
    }
    if (rc == 0) {
        int same = view.ndim == t->ndim;
        for (int d = 0; same && d < t->ndim; d++)
            same = view.shape[d] == c->sizes[d];
        if (!same)
            rc = err_input(where, "the stored tensor's shape is not the chunk's");
    }
    if (file_guard_end(&g) != 0)
        rc = -1;
    if (rc == 0 && pt_owns_data(ar)) {
        GROW(s->archives, s->acap, s->narchives + 1);
        s->archives[s->narchives++] = ar;
        ar = NULL;
    }
    pt_close(ar);
    sb_free(&what);
    if (rc == 0)
        ck_piece_set(s, out, &view, c->offsets, file);
    return rc;
}

int ck_load_torch_dist(const char *dir, ck_side *s)
{
    s->kind = "torch_dist";
    char *meta_path = path_join(dir, ".metadata");
    dcp_metadata meta;
    int rc = dcp_metadata_load(meta_path, &meta);
    free(meta_path);
    if (rc != 0)
        return -1;
    strmap files;
    strmap_init(&files, 64);
    size_t chunks = 0;
    for (size_t i = 0; i < meta.n; i++)
        if (is_model_key(meta.t[i].fqn))
            chunks += meta.t[i].nchunks;
    progress_phase(s->pj, "load", chunks, PROGRESS_ITEMS);
    for (size_t i = 0; i < meta.n && rc == 0; i++) {
        const dcp_tensor *t = &meta.t[i];
        if (!is_model_key(t->fqn))
            continue;
        if (t->ndim > TENSOR_MAX_DIMS) {
            rc = err_input(dir, "tensor '%s' has too many dimensions", t->fqn);
            break;
        }
        ck_param *p = ck_add_param(s);
        char *name;
        ck_map_name(t->fqn, strlen(t->fqn), &name);
        ck_param_set(s, p, name, strlen(name), t->ndim, t->size);
        free(name);
        p->pieces = ck_pieces(s, t->nchunks);
        for (size_t c = 0; c < t->nchunks && rc == 0; c++) {
            long f = chunk_file(s, &files, dir, t->chunks[c].file);
            if (f < 0 || load_chunk(s, t, &t->chunks[c], (size_t)f, &p->pieces[p->npieces]) != 0)
                rc = -1;
            else if (p->pieces[p->npieces].numel)
                p->npieces++;
            if (c == 0 && f >= 0)
                p->file = (uint32_t)f;
            progress_add(s->pj, 1);
        }
    }
    /* two fqns that map to one name: the later is kept, as for Megatron */
    strmap_free(&files);
    dcp_metadata_free(&meta);
    return rc;
}

/* ---- safetensors ------------------------------------------------------------- */

static int add_file_tensors(ck_side *s, const char *path)
{
    long f = ck_add_file(s, path);
    if (f < 0)
        return -1;
    const mapped_file *m = &s->files[f];
    file_guard g;
    file_guard_begin(&g, m);
    st_file st;
    int rc = safetensors_parse(path, m->data, m->size, &st);
    if (file_guard_end(&g) != 0)
        rc = -1;
    if (rc == 0)
        ck_reserve(s, st.n);
    for (size_t i = 0; i < st.n && rc == 0; i++) {
        const st_tensor *t = &st.v[i];
        ck_param *p = ck_add_param(s);
        ck_param_set(s, p, t->name, strlen(t->name), t->ndim, t->shape);
        p->file = (uint32_t)f;
        if (t->numel) {
            tensor view;
            st_view(t, &view);
            p->pieces = ck_pieces(s, 1);
            ck_piece_set(s, &p->pieces[0], &view, NULL, (size_t)f);
            p->npieces = 1;
        }
    }
    safetensors_free(&st);
    /* the header is not read again: its pages leave (the tensors' stay) */
    if (m->size >= 8)
        file_map_drop(m, 0, 8 + (size_t)(le_get64(m->data) < m->size - 8 ? le_get64(m->data) : m->size - 8));
    progress_add(s->pj, 1);
    return rc;
}

static int by_name(const void *x, const void *y)
{
    return strcmp(((const ck_param *)x)->name, ((const ck_param *)y)->name);
}

/* Every tensor the index's weight_map names is in the shard it names. */
static int check_index(ck_side *s, const char *index, const st_shard_of *map, size_t nmap, size_t first_file)
{
    qsort(s->params, s->n, sizeof *s->params, by_name);
    for (size_t i = 0; i < nmap; i++) {
        ck_param key = {.name = map[i].tensor};
        const ck_param *p = bsearch(&key, s->params, s->n, sizeof *s->params, by_name);
        const char *shard = s->files[first_file + (size_t)map[i].file].path;
        if (!p)
            return err_input(index, "weight_map puts tensor '%s' in %s, which does not hold it", map[i].tensor, shard);
        if (p->file != first_file + (size_t)map[i].file)
            return err_input(index, "weight_map puts tensor '%s' in %s, but %s holds it", map[i].tensor, shard,
                             s->files[p->file].path);
    }
    return 0;
}

int ck_load_safetensors(const char *path, int is_dir, ck_side *s)
{
    s->kind = "safetensors";
    char **names = NULL;
    long n = 0;
    int rc = 0;
    char *index = NULL;
    st_shard_of *map = NULL;
    size_t nmap = 0;
    if (!is_dir) {
        names = xmalloc(sizeof *names);
        names[0] = xstrdup(path);
        n = 1;
    } else {
        index = path_join(path, "model.safetensors.index.json");
        if (path_kind(index) == PATH_FILE) {
            rc = safetensors_index(index, &names, &n, &map, &nmap);
        } else {
            free(index);
            index = NULL;
            char **all;
            long na = dir_list(path, &all);
            if (na < 0) {
                rc = -1;
            } else {
                names = xmalloc_array((size_t)na + 1, sizeof *names);
                for (long i = 0; i < na; i++)
                    if (path_has_suffix(all[i], ".safetensors"))
                        names[n++] = xstrdup(all[i]);
                names_free(all, na);
            }
        }
        for (long i = 0; i < n && rc == 0; i++) {
            char *full = path_join(path, names[i]);
            free(names[i]);
            names[i] = full;
        }
    }
    size_t first_file = s->nfiles;
    progress_phase(s->pj, "load", (uint64_t)n, PROGRESS_ITEMS);
    for (long i = 0; i < n && rc == 0; i++)
        rc = add_file_tensors(s, names[i]);
    if (rc == 0 && index)
        rc = check_index(s, index, map, nmap, first_file);
    st_shard_of_free(map, nmap);
    free(index);
    if (names)
        names_free(names, n);
    return rc;
}
