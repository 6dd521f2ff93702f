/* The directory trees msprobe writes its dumps into, as every analyzer
 * (compare, nan_analyze, graph, ...) finds them:
 *
 *   dump root    step0/ step1/ ...            (^step(0|[1-9][0-9]*)$)
 *   step dir     rank/                        a run that is not distributed (msprobe 8.x)
 *                rank0/ rank1/ ...            a distributed run
 *                proc{PID}/                   a run that is not distributed (newest msprobe),
 *                                             exactly one per step directory
 *   rank dir     dump.json or debug.json, stack.json, construct.json, dump_tensor_data/
 *
 * The walker classifies a path and lists the step or rank directories of a
 * level, sorted by number; it knows nothing of what a caller does with them
 * (pairing two trees is the caller's). Every refusal is recorded with
 * err_set() naming the directory, in msprobe's words where it has them.
 */
#ifndef MSP_MODEL_DUMPTREE_H
#define MSP_MODEL_DUMPTREE_H

#include <stddef.h>

/* What a path is. */
enum dumptree_kind { DUMPTREE_FILE, DUMPTREE_RANK, DUMPTREE_STEP, DUMPTREE_ROOT };

/* How a step or rank directory is named. */
enum dumptree_name {
    DUMPTREE_NUMBERED,  /* rank3, step2 */
    DUMPTREE_BARE,      /* rank: the one process of a run that is not distributed (8.x) */
    DUMPTREE_PROC,      /* proc{PID}: the same, as the newest msprobe names it */
};

typedef struct {
    char *name;         /* "rank3", "rank", "proc4242", "step2" */
    char *path;         /* the directory: parent/name */
    long number;        /* rank or step number; -1 for "rank" and proc{PID} */
    int naming;         /* enum dumptree_name */
} dumptree_dir;

typedef struct {
    dumptree_dir *v;
    size_t n, cap;
} dumptree_list;

/* "a dump file", "a rank directory", ... for messages. */
const char *dumptree_kind_name(int kind);

/* A regular file: DUMPTREE_FILE; a directory holding dump.json or
 * debug.json: DUMPTREE_RANK; one holding rank* or proc{PID} entries:
 * DUMPTREE_STEP; one holding step* entries: DUMPTREE_ROOT. 0, or -1 with the
 * error recorded (missing, a symbolic link, not a msprobe dump). */
int dumptree_classify(const char *path, int *kind);

/* For a command that takes one level only (data2db's --data: a dump
 * root): when `path` is a dump tree of another level, record the one line
 * "this is a step directory; --data takes the dump root that holds step0,
 * step1, ..." (`option` naming how the command takes it) and return -1;
 * otherwise 0, nothing recorded, whatever path is. */
int dumptree_want_level(const char *path, int want, const char *option);

/* The rank directories of a step directory, by number ("rank" first): the
 * rank and rankN directories, or its one proc{PID} directory. Anything else
 * in it, two proc{PID} directories, or proc{PID} beside rank directories is
 * refused. An empty directory gives an empty list. 0 or -1. */
int dumptree_ranks(const char *step_dir, dumptree_list *out);

/* nan_analyze's reading of a step directory (msprobe's _resolve_input_path,
 * which skips what it does not know): the rank directories by number, and
 * in *skipped (may be NULL) the entries left out -- files, links and any
 * other name than rank, rank<digits> ("rank007" is rank 7) and proc{PID}.
 * Two directories of one rank ("rank" counts as rank 0), proc{PID} beside
 * rank directories, or two proc{PID} are refused. 0 or -1. */
int dumptree_ranks_loose(const char *step_dir, dumptree_list *out, dumptree_list *skipped);

/* The step directories of a dump root, by number; anything else refused. */
int dumptree_steps(const char *root, dumptree_list *out);

void dumptree_list_free(dumptree_list *l);

/* The lenient reading of a level that the newest msprobe's data2db does:
 * directories named "step" (ranks == 0) or "rank"/"proc" (ranks == 1)
 * followed by an integer ([+-]?digits, leading zeros allowed: step02 is
 * step 2), sorted by number, then name; for ranks also the bare "rank"
 * (msprobe 8.x's run that is not distributed; number -1). A proc's number
 * is its PID. Other names are left alone; names that start with the prefix
 * but are not such a directory go to *skipped (may be NULL; free with
 * names_free). 0 or -1 (the level cannot be listed). */
int dumptree_scan(const char *dir, int ranks, dumptree_list *out, char ***skipped, size_t *nskipped);

/* dir/name when it is a regular file (not a link), else NULL; malloc'ed. */
char *dumptree_file(const char *dir, const char *name);

#endif
