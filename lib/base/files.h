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
#include <stdio.h>
#include <sys/types.h>

typedef struct {
    char *path;                /* as given (owned copy) */
    const unsigned char *data; /* NULL when size == 0 */
    size_t size;
    /* private: how to release it, and what the file was when read */
    int heap;                  /* data is a heap copy (file_load), not a mapping */
    dev_t dev;
    ino_t ino;
    long long mtime_ns;
} mapped_file;

/* Map a regular file read-only. Refuses symlinks, directories, devices.
 * max_size == 0 means no limit. Returns 0 or -1 (error recorded).
 *
 * Another process may truncate the file while it is mapped; touching a page
 * past its new end then raises SIGBUS. Every read of the data must
 * therefore happen under a file_guard (below), on the reading thread. */
int file_map(const char *path, size_t max_size, mapped_file *out);
/* The same checks, but the contents are read into memory: for files whose
 * bytes are kept (strings pointing into them) or read at unknown times, so
 * nothing needs guarding. A file that shrinks while being read is
 * ERR_CHANGED. The data is NUL-terminated (data[size] == 0). */
int file_load(const char *path, size_t max_size, mapped_file *out);
/* file_load() for a file of fewer than load_below bytes, file_map() for a
 * larger one: for many small files (tensors), where mapping, the page faults
 * and the unmapping (a TLB shoot-down on every other core of the process)
 * cost more than copying the bytes. */
int file_map_or_load(const char *path, size_t max_size, size_t load_below, mapped_file *out);
/* Release a file_map() or file_load() result; safe on a zeroed one. */
void file_unmap(mapped_file *f);
/* The bytes [from, to) of a mapping will not be read again soon: their
 * pages leave this process (they stay in the page cache, and reading them
 * again maps them back), so a file read once from start to end never has
 * more than the span being parsed resident. A heap copy is left alone. */
void file_map_drop(const mapped_file *f, size_t from, size_t to);

/* Reading a mapping another process may truncate or rewrite.
 *
 *     file_guard g;
 *     file_guard_begin(&g, &f);
 *     rc = parse(f.data, f.size);          // any code, any allocations
 *     if (file_guard_end(&g) != 0)         // ERR_CHANGED, naming f.path
 *         rc = -1;
 *
 * While a guard is open on a thread, a SIGBUS of that thread inside the
 * guarded mapping does not kill the process: the handler process_setup()
 * installs maps zero-filled pages over the rest of the mapping and the
 * reader goes on (reading zeros, so it ends normally, its cleanup
 * included). file_guard_end() then reports the file as changed during the
 * run; it does the same when the file's size or modification time differ
 * from when it was mapped (a truncation inside the last page raises no
 * signal; an in-place rewrite raises none either). A SIGBUS outside every
 * open guard of the faulting thread still kills the process, so a reader
 * without a guard never goes on with zeros unknowingly.
 *
 * Guards are cheap (no system call to open one, one stat() to close it):
 * one per file and use, not per element. They nest and must be ended in
 * reverse order, on the thread that began them. A guard on a file_load()
 * copy or a zeroed mapped_file does nothing. */
typedef struct file_guard {
    const mapped_file *file;
    struct file_guard *prev;
    size_t page;
    volatile int faulted;
} file_guard;

void file_guard_begin(file_guard *g, const mapped_file *f);
int file_guard_end(file_guard *g);
/* For the SIGBUS handler only (async-signal-safe): if addr lies in a
 * mapping guarded on this thread, replace the rest of that mapping by zero
 * pages, mark the guard and return 1; else return 0. */
int file_guard_absorb(const void *addr);

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
 * the name is registered so that an interrupted run removes it (see
 * out_tmp_remove_all). out_tmp_commit() sets mode 0640 and renames it over
 * final_path; out_tmp_discard() removes it. Any number may be pending, on
 * any threads. */
char *out_tmp_create(const char *final_path);
/* The temporary file just made by out_tmp_create(), opened for writing
 * with stdio. Not "w": truncating the new (empty) file would mark it, on
 * ext4, as one replaced in place, and closing it would then start the
 * writeback of everything written -- a third of a second per 500 MB, in the
 * writing thread. */
FILE *out_tmp_fopen(const char *tmp_path);
int out_tmp_commit(char *tmp_path, const char *final_path);
void out_tmp_discard(char *tmp_path);
/* out_tmp_create() filled with the concatenation of n parts and closed: the
 * temporary name, or NULL (error recorded naming final_path, nothing left). */
char *out_tmp_write(const char *final_path, const void *const *parts, const size_t *lens, int n);
/* Remove every pending temporary file, for a process about to die of a
 * signal (process.h); the registry stays locked afterwards, so no new one
 * appears. Not async-signal-safe: call it from a thread, not a handler. */
void out_tmp_remove_all(void);

/* Write a whole file atomically (temporary name, then rename): the
 * concatenation of n parts. Records an error naming `path` and returns -1 on
 * failure, leaving nothing behind. */
int file_write_atomic_parts(const char *path, const void *const *parts, const size_t *lens, int n);
int file_write_atomic(const char *path, const void *data, size_t len);

/* Local time stamp "%Y%m%d%H%M%S" of the current time (15 bytes incl. NUL). */
void time_stamp(char out[15]);

#endif
