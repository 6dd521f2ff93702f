/* What every fuzz harness shares (tests/fuzz/fz_*.c).
 *
 * A harness is one libFuzzer entry point, LLVMFuzzerTestOneInput(), over
 * one reader. It is built twice: by `make fuzz` with clang's
 * -fsanitize=fuzzer,address,undefined (libFuzzer's main), and by `make
 * test` with the ordinary compiler (under ASan/UBSan in build-asan/) linked
 * with replay.c, a main() that feeds it every file of the directories it is
 * given: tests/fuzz/regress/<harness>/ (each finding, kept) and the seed
 * corpus. A harness must therefore be deterministic and leave nothing
 * behind between inputs: every error cleared, every allocation freed (LeakSanitizer
 * checks), no output.
 *
 * Readers that take a path (dump_load, xlsx_open, ...) get the input as a
 * file of the given name in a private directory, removed at exit. */
#ifndef MSP_FUZZ_H
#define MSP_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Once per process: messages off (a reader's warnings would flood the
 * fuzzer's output), the private directory made. Idempotent. */
void fz_init(void);

/* The private directory (no trailing slash). */
const char *fz_dir(void);

/* Write data[0..size) as fz_dir()/name (name may contain '/': the folders
 * are made). Returns the full path (static storage per call site: copy it
 * when two are needed at once -- fz_path() gives a fresh one). Aborts on a
 * failed write: that is the harness's fault, not the reader's. */
const char *fz_write(const char *name, const void *data, size_t size);
/* fz_dir()/name, malloc'ed. */
char *fz_path(const char *name);
/* Remove fz_dir()/name (a file, or a directory tree). */
void fz_remove(const char *name);

/* The input split at the first occurrence of a separator line
 * "\n--8<--\n": part 0 before it, part 1 after (empty when absent). For
 * harnesses over two files at once. */
void fz_split(const uint8_t *data, size_t size, const uint8_t **p0, size_t *n0, const uint8_t **p1, size_t *n1);
#define FZ_SEPARATOR "\n--8<--\n"

/* After every input, with the reader's return value: a failure (rc != 0)
 * must have recorded an error whose message is one line (no line break: it
 * becomes the single stderr line), names the input (when it was a file of
 * fz_dir()) and has a cause other than ERR_INTERNAL (bad input is never our
 * own failure); a success must have recorded none. Aborts otherwise, so
 * the fuzzer reports it. The error is then cleared. */
void fz_done(int rc);
/* The same for readers whose failures need not name a file of fz_dir()
 * (the option parser). */
void fz_done_anywhere(int rc);

#endif
