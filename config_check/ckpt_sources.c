/* Checkpoints msprobe cannot read (spec/configcheck.md §B.10): Megatron's
 * torch_dist directories and Hugging Face safetensors, as pieces of the
 * full tensors (ckpt.h). */
#include "config_check/ckpt.h"
#include "base/err.h"
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
    if (ar) {
        const pk_value *root = pt_root(ar);
        if (!pt_is_tensor(root))
            err_input(where, "holds no tensor");
        else if (pt_tensor(ar, root, &out->t) == 0)
            rc = 0;
    }
    if (rc == 0) {
        int same = out->t.ndim == t->ndim;
        for (int d = 0; same && d < t->ndim; d++)
            same = out->t.shape[d] == c->sizes[d];
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
    out->src = file;
    memcpy(out->off, c->offsets, (size_t)t->ndim * sizeof *out->off);
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
        ck_map_name(t->fqn, strlen(t->fqn), &p->name);
        p->ndim = t->ndim;
        memcpy(p->shape, t->size, (size_t)t->ndim * sizeof *p->shape);
        p->pieces = xcalloc(t->nchunks ? t->nchunks : 1, sizeof *p->pieces);
        for (size_t c = 0; c < t->nchunks && rc == 0; c++) {
            long f = chunk_file(s, &files, dir, t->chunks[c].file);
            if (f < 0 || load_chunk(s, t, &t->chunks[c], (size_t)f, &p->pieces[p->npieces]) != 0)
                rc = -1;
            else if (p->pieces[p->npieces].t.numel)
                p->npieces++;
            progress_add(s->pj, 1);
        }
    }
    /* two fqns that map to one name: the later is kept, as for Megatron */
    strmap_free(&files);
    dcp_metadata_free(&meta);
    return rc;
}

/* ---- safetensors ------------------------------------------------------------- */

static int add_file_tensors(ck_side *s, const char *path, strmap *seen)
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
    for (size_t i = 0; i < st.n && rc == 0; i++) {
        int added;
        strmap_put(seen, st.v[i].name, strlen(st.v[i].name), s->n, &added);
        if (!added) {
            rc = err_input(path, "tensor '%s' is also in another file of the checkpoint", st.v[i].name);
            break;
        }
        ck_param *p = ck_add_param(s);
        p->name = st.v[i].name;
        st.v[i].name = NULL;
        p->ndim = st.v[i].t.ndim;
        memcpy(p->shape, st.v[i].t.shape, (size_t)p->ndim * sizeof *p->shape);
        p->pieces = xcalloc(1, sizeof *p->pieces);
        p->pieces[0].t = st.v[i].t;
        p->pieces[0].src = (size_t)f;
        p->npieces = st.v[i].t.numel ? 1 : 0;
    }
    safetensors_free(&st);
    progress_add(s->pj, 1);
    return rc;
}

int ck_load_safetensors(const char *path, int is_dir, ck_side *s)
{
    s->kind = "safetensors";
    char **names = NULL;
    long n = 0;
    int rc = 0;
    if (!is_dir) {
        names = xmalloc(sizeof *names);
        names[0] = xstrdup(path);
        n = 1;
    } else {
        char *index = path_join(path, "model.safetensors.index.json");
        if (path_kind(index) == PATH_FILE) {
            rc = safetensors_index(index, &names, &n);
        } else {
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
        free(index);
        for (long i = 0; i < n && rc == 0; i++) {
            char *full = path_join(path, names[i]);
            free(names[i]);
            names[i] = full;
        }
    }
    strmap seen;
    strmap_init(&seen, 1024);
    progress_phase(s->pj, "load", (uint64_t)n, PROGRESS_ITEMS);
    for (long i = 0; i < n && rc == 0; i++)
        rc = add_file_tensors(s, names[i], &seen);
    strmap_free(&seen);
    if (names)
        names_free(names, n);
    return rc;
}
