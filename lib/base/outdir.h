/* Outputs of one run: names that never replace a file, and taking back
 * what a failed run made.
 *
 * Result names carry a time stamp, "%Y%m%d%H%M%S" as msprobe writes them
 * (time_stamp() of files.h),
 * so two runs in the same second would choose the same names. A run picks
 * its stamp so that none of its names exists yet (the caller checks them
 * with out_name_taken(), moving on with stamp_next()), and every file is
 * committed with out_commit_new(): link(2), which fails instead of
 * replacing. Only when another run takes a name between the two (a race) a
 * file gets a later stamp than the rest of its run.
 *
 * An out_run records the directories a run created (mkdir -p makes several
 * levels) and the files it committed, so that a failed run removes them
 * again: out_run_rollback(). It is shared by the threads of a run.
 */
#ifndef MSP_OUTDIR_H
#define MSP_OUTDIR_H

#include <stddef.h>

/* The stamp one second later (calendar arithmetic, so it always sorts
 * after `stamp`); -1 when `stamp` is not 14 digits of a date. */
int stamp_next(const char *stamp, char out[15]);

/* Does a file (or anything else) exist under this name? */
int out_name_taken(const char *path);

/* Commit a temporary file of out_tmp_create() under *final without ever
 * replacing a file: when *final exists, the number before its extension is
 * advanced (a 14-digit stamp by one second, other digits by one) until a
 * free name is found, and *final (malloc'ed) is replaced by it. Returns 0
 * (committed as given), 1 (committed under a later name) or -1 (error
 * recorded, temporary file removed). */
int out_commit_new(char *tmp, char **final);

/* Write a whole file the same way: a temporary file, then out_commit_new(). */
int file_write_new(char **path, const void *data, size_t len);

/* A file that the run writes or replaces under a name the user gave
 * (--summary-json): its directory must exist and be writable, and if the
 * name exists it must be a regular file, never a FIFO, device, directory or
 * symbolic link. 0 or -1 (ERR_OUTPUT recorded). */
int out_check_replaceable(const char *path);

/* An output with a fixed name -- one the user gives (-o result.json) or
 * one msprobe gives (anomaly_analyse.json) -- follows one rule (README,
 * "Outputs"), checked before the work starts:
 *
 * - a name that ends in '/' or is an existing directory is a directory: the
 *   file is `default_name` inside it;
 * - an existing file is replaced where msprobe replaces it (OUT_REPLACES)
 *   or when the user says so (force: --force), with a warning naming it at
 *   the commit (out_run_replace); otherwise it is refused, "exists; --force
 *   replaces it"; what is not a regular file is never replaced;
 * - its directory must be writable, or is made (mkdir -p) under one that
 *   is, remembered by r (may be NULL) for out_run_rollback().
 *
 * Returns the path to write (malloc'ed) or NULL with ERR_OUTPUT recorded.
 * Time-stamped results never come here: they never replace anything
 * (out_commit_new). */
typedef struct out_run out_run;
enum { OUT_REFUSES = 0, OUT_REPLACES = 1 };
char *out_named(out_run *r, const char *given, const char *default_name, int policy, int force);


out_run *out_run_new(void);
void out_run_free(out_run *r);
/* dir_create(path), remembering the directories it made. r may be NULL. */
int out_run_mkdir(out_run *r, const char *path);
/* Remember a file the run committed. r may be NULL. */
void out_run_add(out_run *r, const char *path);
/* Commit the temporary file tmp (out_tmp_create(final)) under a name the
 * user gave, replacing what is there -- with the warning "<final>: the
 * existing <what> is replaced" when something is -- and remember it.
 * tmp is consumed: committed, or removed on failure. 0 or -1 (error
 * recorded). r may be NULL. */
int out_run_replace(out_run *r, char *tmp, const char *final, const char *what);
/* Remove the remembered files, then the remembered directories that are
 * empty, deepest first; forget them. */
void out_run_rollback(out_run *r);
/* A run that stops early: out_run_rollback(), then out_run_free(); the
 * error recorded stays as it is. */
void out_run_abandon(out_run *r);

#endif
