/* An output file written as it is made: text is gathered in a strbuf and
 * written out to a temporary file beside the result a megabyte at a time;
 * when complete, it is linked into place (never over a file, base/outdir.h).
 * For results too big to build in memory first (nan_analyze --all, graph's
 * .vis).
 *
 *     out_stream os;
 *     if (out_stream_open(&os, path) == 0) {      // takes path (malloc'ed)
 *         sb_adds(&os.sb, "...");
 *         rc = out_stream_flush(&os, OUT_STREAM_CHUNK);
 *         ...
 *         rc = out_stream_commit(&os);            // os.path: the name taken
 *     }
 *     out_stream_close(&os);                      // a temporary file goes
 */
#ifndef MSP_OUTSTREAM_H
#define MSP_OUTSTREAM_H

#include <stddef.h>

#include "base/strbuf.h"

enum { OUT_STREAM_CHUNK = 1 << 20 };

typedef struct {
    char *path, *tmp;
    int fd;
    strbuf sb;
} out_stream;

/* The temporary file beside `path` (owned from here on). 0 or -1. */
int out_stream_open(out_stream *os, char *path);
/* Write out what is buffered once there is `at_least` of it. 0 or -1. */
int out_stream_flush(out_stream *os, size_t at_least);
/* What is buffered, then data[0..n) straight to the file (a big piece made
 * elsewhere, not copied into the buffer). 0 or -1. */
int out_stream_write(out_stream *os, const void *data, size_t n);
/* Everything written: into place under os->path (a later number when the
 * name is taken meanwhile). 0 or -1 (nothing left behind). */
int out_stream_commit(out_stream *os);
/* The same under a name the user gave (out_named): what is there is
 * replaced, with out_run_replace()'s warning naming it `what`, and r (may be
 * NULL) remembers the file. 0 or -1. */
typedef struct out_run out_run;
int out_stream_commit_replace(out_stream *os, out_run *r, const char *what);
/* Release; a temporary file not committed is removed. os->path stays the
 * caller's to free. */
void out_stream_close(out_stream *os);

#endif
