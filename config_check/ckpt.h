/* Checkpoints as config_check's checkpoint compare sees them (spec/
 * configcheck.md §B): named parameters, each a full tensor made of pieces
 * -- tensor-parallel shards, torch_dist chunks, or one tensor -- that are
 * views into the mapped files (nothing is copied or merged). A piece knows
 * where it lies in the full tensor, so two checkpoints sharded differently
 * compare piece against piece over their overlaps. */
#ifndef MSP_CC_CKPT_H
#define MSP_CC_CKPT_H

#include <stddef.h>
#include <stdint.h>

#include "base/files.h"
#include "base/progress.h"
#include "format/pt.h"
#include "format/tensor.h"

typedef struct {
    tensor t;                          /* a view; owns nothing */
    int64_t off[TENSOR_MAX_DIMS];      /* where it starts in the full tensor */
    size_t src;                        /* the mapped file it lies in */
} ck_piece;

typedef struct {
    char *name;
    int ndim;
    int64_t shape[TENSOR_MAX_DIMS];
    ck_piece *pieces;                  /* tile the full tensor */
    size_t npieces;
    ck_piece *replicas;                /* Megatron: the other TP ranks' copies of a replicated
                                          parameter, checked against pieces[0] */
    size_t nreplicas;
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
 * error), a parameter (keeps name, pieces). */
long ck_add_file(ck_side *s, const char *path);
ck_param *ck_add_param(ck_side *s);
void ck_param_free(ck_param *p);
/* torch_dist and safetensors directories / files. */
int ck_load_torch_dist(const char *dir, ck_side *s);
int ck_load_safetensors(const char *path, int is_dir, ck_side *s);
int ck_load_megatron(const char *dir, ck_side *s);

#endif
