/* Files: safe read-only mapping of inputs, directory listing, and atomic
 * creation of outputs (a temporary name in the target directory, renamed
 * into place only when complete, so no half-written result is ever left).
 *
 * Inputs are refused when they are symbolic links (like msprobe does) or not
 * of the expected kind; every failure is recorded with err_input() naming
 * the path.
 */
#ifndef MSP_FILES_H
#define MSP_FILES_H

#include <stddef.h>
#include <sys/types.h>

typedef struct {
    char *path;                /* as given (owned copy) */
    const unsigned char *data; /* NULL when size == 0 */
    size_t size;
} mapped_file;

/* Map a regular file read-only. Refuses symlinks, directories, devices.
 * max_size == 0 means no limit. Returns 0 or -1 (error recorded). */
int file_map(const char *path, size_t max_size, mapped_file *out);
void file_unmap(mapped_file *f);

/* Kinds of an existing path, not following a final symlink. */
enum path_kind { PATH_MISSING, PATH_FILE, PATH_DIR, PATH_LINK, PATH_OTHER };
enum path_kind path_kind(const char *path);

/* Check that `path` exists, is not a symlink and is a directory (want_dir)
 * or a regular file. Records a clear error and returns -1 otherwise. */
int path_require(const char *path, int want_dir);

/* "a" + "/" + "b" (no doubled slash), malloc'ed. */
char *path_join(const char *a, const char *b);
/* Last component / directory part, malloc'ed. */
char *path_basename(const char *path);
char *path_dirname(const char *path);
int path_has_suffix(const char *path, const char *suffix);

/* Sorted (byte order) names of the entries of a directory, without "." and
 * "..". Returns the count, or -1 (error recorded). Free with names_free. */
long dir_list(const char *path, char ***names);
void names_free(char **names, long n);

/* mkdir -p with mode 0750 for created components; fails when an existing
 * component is not a directory or the result is not writable. */
int dir_create(const char *path);

/* Atomic output. out_tmp_create() makes an empty, unique temporary file next
 * to `final_path` (same directory, so rename is atomic) and returns its name;
 * the name is remembered so an interrupted run removes it (SIGINT/SIGTERM).
 * out_tmp_commit() sets mode 0640 and renames it over final_path;
 * out_tmp_discard() removes it. */
char *out_tmp_create(const char *final_path);
int out_tmp_commit(char *tmp_path, const char *final_path);
void out_tmp_discard(char *tmp_path);

/* Write a whole file atomically (temporary name, then rename): the
 * concatenation of n parts. Records an error naming `path` and returns -1 on
 * failure, leaving nothing behind. */
int file_write_atomic_parts(const char *path, const void *const *parts, const size_t *lens, int n);
int file_write_atomic(const char *path, const void *data, size_t len);

/* Local time stamp "%Y%m%d%H%M%S" of the current time (15 bytes incl. NUL). */
void time_stamp(char out[15]);

#endif
