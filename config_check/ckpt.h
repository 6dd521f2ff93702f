/* Checkpoints as config_check's checkpoint compare sees them (spec/
 * configcheck.md §B): named parameters, each a full tensor made of pieces
 * -- tensor-parallel shards, torch_dist chunks, or one tensor -- that are
 * views into the mapped files (nothing is copied or merged). A piece knows
 * where it lies in the full tensor, so two checkpoints sharded differently
 * compare piece against piece over their overlaps.
 *
 * Parameters and pieces are held compactly -- their sizes, strides and
 * offsets in the side's arena, a piece made a `tensor` (1 KB of fixed
 * arrays) only while it is read -- so that a checkpoint of many small
 * tensors costs about what its header or pickle says of them. */
#ifndef MSP_CC_CKPT_H
#define MSP_CC_CKPT_H

#include <stddef.h>
#include <stdint.h>

#include "base/files.h"
#include "base/progress.h"
#include "format/pt.h"
#include "format/tensor.h"

/* A view into a mapped file; owns nothing. */
typedef struct {
    const unsigned char *storage;      /* NULL when empty */
    size_t storage_size;
    int64_t offset;                    /* elements from storage to element 0 */
    const int64_t *dims;               /* ndim sizes, ndim strides (elements), ndim places in the full
                                          tensor: CK_SIZE, CK_STRIDE, CK_AT */
    size_t numel;
    uint32_t src;                      /* the mapped file it lies in */
    uint8_t dtype, ndim, byteswap;
} ck_piece;

#define CK_SIZE(x, d) ((x)->dims[(d)])
#define CK_STRIDE(x, d) ((x)->dims[(x)->ndim + (d)])
#define CK_AT(x, d) ((x)->dims[2 * (x)->ndim + (d)])

typedef struct {
    const char *name;                  /* in the side's arena */
    const int64_t *shape;              /* ndim sizes, in the side's arena */
    ck_piece *pieces;                  /* tile the full tensor */
    ck_piece *replicas;                /* Megatron: the other TP ranks' copies of a replicated
                                          parameter, checked against pieces[0] */
    uint32_t npieces, nreplicas;
    uint32_t file;                     /* the file it was found in (the first, when several) */
    int ndim;
} ck_param;

typedef struct {
    const char *path;                  /* as given */
    const char *kind;                  /* "megatron", "torch_dist", "safetensors" */
    mapped_file *files;
    size_t nfiles, fcap;
    pt_archive **archives;             /* kept while their tensors are used */
    size_t narchives, acap;
    ck_param *params;                  /* sorted by name once loaded */
    size_t n, cap;
    arena a;                           /* names, shapes, the pieces' dims */
    uint64_t bytes;                    /* of the pieces' data */
    int threads;
    progress_job *pj;
} ck_side;

/* Load a checkpoint: a Megatron-LM / MindSpeed directory (iter_N/mp_rank_*
 * .pt files, through latest_checkpointed_iteration.txt), a torch_dist
 * directory (.metadata + .distcp), or safetensors (a file, a directory of
 * them, or a sharded one with model.safetensors.index.json). 0 or -1. */
int ck_load(const char *path, int threads, progress_job *pj, ck_side *side);
void ck_free(ck_side *side);

/* msprobe's name_mapping.yaml applied to a flattened parameter name
 * (legacy Megatron names to mcore ones), into *out. */
void ck_map_name(const char *name, size_t len, char **out);

/* Layer renumbering of a merged "name/vpp" key (§B.7): the global layer
 * index (local + (pp_size * vpp + pp_rank) * layers_per_stage) and, with
 * num_experts, the global expert index; malloc'ed. */
char *ck_renumber(const char *key, int pp_size, int pp_rank, long layers_per_stage, long num_experts, int ep_size,
                  int ep_rank);

/* The first `layers.<N>.` in name: N, or -1. */
long ck_layer_index(const char *name, size_t len);

/* Internal to the loaders: add a mapped file (index returned, -1 on
 * error), a parameter (zeroed), room for `more` of them; pieces (zeroed)
 * in the side's arena, as names and shapes. */
long ck_add_file(ck_side *s, const char *path);
ck_param *ck_add_param(ck_side *s);
void ck_reserve(ck_side *s, size_t more);
ck_piece *ck_pieces(ck_side *s, size_t n);
/* name[0, len) and shape[0, ndim) into the side's arena, for p. */
void ck_param_set(ck_side *s, ck_param *p, const char *name, size_t len, int ndim, const int64_t *shape);
/* Piece x from the view t, placed at `at` in the full tensor (NULL: at
 * the origin), lying in file `src`. */
void ck_piece_set(ck_side *s, ck_piece *x, const tensor *t, const int64_t *at, size_t src);
/* Piece x as a tensor (a view; owns nothing). */
void ck_piece_view(const ck_piece *x, tensor *out);
/* torch_dist and safetensors directories / files. */
int ck_load_torch_dist(const char *dir, ck_side *s);
int ck_load_safetensors(const char *path, int is_dir, ck_side *s);
int ck_load_megatron(const char *dir, ck_side *s);

#endif
