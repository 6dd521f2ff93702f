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

/* The rank directories of a step directory, one rule for every analyzer:
 *   - "rank" (a run that is not distributed: rank 0), "rank" and digits
 *     (leading zeros allowed: "rank007" is rank 7) and proc{PID} (the
 *     newest msprobe's one process: rank 0) are rank directories, listed by
 *     number ("rank" first);
 *   - refused: such a name on anything but a directory (a file, a FIFO, a
 *     link), a number beyond the integer range (INT_MAX), two directories
 *     of one rank (rank0 and rank00, rank and rank0: "two dumps of rank
 *     0"), two proc{PID} or proc{PID} beside rank directories (unless
 *     DUMPTREE_MANY_PROCS: the caller numbers them, their PIDs in `number`);
 *   - any other entry: refused with DUMPTREE_ONLY_RANKS (msprobe 8.1.0's
 *     check, compare and graph), else listed in *skipped (may be NULL) for
 *     the caller to name.
 * An empty directory gives an empty list. 0 or -1 (error recorded). */
enum { DUMPTREE_ONLY_RANKS = 1, DUMPTREE_MANY_PROCS = 2 };
int dumptree_rank_dirs(const char *step_dir, unsigned flags, dumptree_list *out, dumptree_list *skipped);
/* The same with DUMPTREE_ONLY_RANKS (compare, graph), and without
 * (nan_analyze, anomaly: what is no rank directory is skipped). */
int dumptree_ranks(const char *step_dir, dumptree_list *out);
int dumptree_ranks_loose(const char *step_dir, dumptree_list *out, dumptree_list *skipped);

/* The rule's reading of one name: -1 for "rank" (and *proc 0), the number
 * of "rank<digits>", the PID of "proc<digits>" (*proc 1); -2 for a name that
 * is none of them; -3 for digits beyond the integer range. */
long dumptree_rank_name(const char *name, int *proc);

/* The step directories of a dump root, by number; anything else refused. */
int dumptree_steps(const char *root, dumptree_list *out);

void dumptree_list_free(dumptree_list *l);

/* data2db's reading of a level: directories named "step" and an integer
 * ([+-]?digits, leading zeros allowed: step02 is step 2) (ranks == 0), or
 * the rank directories of the one rule (ranks == 1; several proc{PID}
 * allowed, their PIDs as numbers, after the ranks), sorted by number, then
 * name. Other names are left alone; names that start with the prefix but
 * are not such a directory go to *skipped (may be NULL; free with
 * names_free). A number beyond the integer range, and whatever the rule
 * refuses, is an error. 0 or -1. */
int dumptree_scan(const char *dir, int ranks, dumptree_list *out, char ***skipped, size_t *nskipped);

/* dir/name when it is a regular file (not a link), else NULL; malloc'ed. */
char *dumptree_file(const char *dir, const char *name);

#endif
