/* One rank directory as graph reads it (spec §2.3 step 7, §3): dump.json
 * mapped and indexed entry by entry, construct.json and stack.json parsed.
 * An entry's value is never kept as a tree: whoever needs a node's items
 * reads its entry again from the mapping (model/items.h), so memory holds
 * the index, not the dump. */
#ifndef MSP_GRAPH_RANK_H
#define MSP_GRAPH_RANK_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/files.h"
#include "base/progress.h"
#include "base/strmap.h"
#include "format/json.h"
#include "model/stack.h"

/* An entry of dump.json's "data": where its value lies in the mapping. A
 * repeated name keeps its first place and its last value (a Python dict). */
typedef struct {
    const char *name;
    uint32_t namelen;
    uint8_t overflow;         /* enum ovf_level, with -oc */
    uint8_t has_md5;
    size_t off, len;
} rank_entry;

typedef struct {
    char *dir, *dump_path, *construct_path, *stack_path, *tensor_dir;
    mapped_file dump;         /* read under a file_guard by each reader */
    arena mem;                /* names with escapes, dump_data_dir, construct */
    rank_entry *entries;
    size_t nentries, cap;
    strmap by_name;           /* entry name -> index */
    char *task;               /* "task" when a string; NULL otherwise */
    int task_truthy;
    int has_md5;              /* msprobe's md5_find() over "data" */
    int framework;            /* 'p', 'm' or 0 (dump_framework's rules) */
    jval dump_data_dir;       /* copied; J_STRING "" when absent */
    mapped_file cfile;
    jval construct;           /* {node: parent | null}; parents made strings or null */
    /* The newest msprobe's Megatron dumps: construct.json holds
     * "megatron_micro_step_number" (taken out of `construct`) and
     * [parent, micro step] values; the micro step of member i. */
    int megatron;             /* the key is there */
    int megatron_has_steps;   /* and its value is a number, megatron_steps */
    long megatron_steps;
    long *construct_micro;
    uint8_t *construct_micro_set;  /* 0: null (none) */
    int framework_pytorch;    /* "framework" absent or "pytorch" (the newest msprobe's test of a recomputation) */
    int p2pop_rows;           /* a P2POp argument is one item (the newest msprobe's items) */
    stack_map stack;
} rankdata;

enum { RANK_NEED_MD5 = 1, RANK_NEED_OVERFLOW = 2 };

/* Read a rank directory: its three files must exist; dump.json is mapped
 * and indexed (with RANK_NEED_*: each entry parsed for its md5 / its
 * overflow scene). 0 or -1 (error recorded); rank_free() in either case. */
int rank_load(rankdata *rd, const char *dir, unsigned need, progress_job *pj);
void rank_free(rankdata *rd);
/* Index of an entry, or -1. */
long rank_entry_of(const rankdata *rd, const char *name, size_t len);

#endif
