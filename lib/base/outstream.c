/* Outputs written while they are made (outstream.h): the text gathers in a
 * strbuf and goes to the temporary file of files.h in large writes, so a
 * result of gigabytes (nan_analyze --all, graph's .vis) never sits in
 * memory whole, and is still committed under its final name only when
 * complete (out_commit_new: never over an existing file).
 */
#include "base/outstream.h"
#include "base/err.h"
#include "base/files.h"
#include "base/outdir.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int out_stream_open(out_stream *os, char *path)
{
    memset(os, 0, sizeof *os);
    os->path = path;
    os->fd = -1;
    os->tmp = out_tmp_create(path);
    if (!os->tmp)
        return -1;
    os->fd = open(os->tmp, O_WRONLY | O_CLOEXEC);
    if (os->fd < 0)
        return err_set(ERR_OUTPUT, path, "cannot write output file: %s", strerror(errno));
    return 0;
}

static int write_all(out_stream *os, const char *p, size_t len)
{
    for (size_t off = 0; off < len;) {
        ssize_t n = write(os->fd, p + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return err_set(ERR_OUTPUT, os->path, "cannot write output file: %s", strerror(n < 0 ? errno : EIO));
        off += (size_t)n;
    }
    return 0;
}

int out_stream_flush(out_stream *os, size_t at_least)
{
    if (os->sb.len < at_least || os->sb.len == 0)
        return 0;
    if (write_all(os, os->sb.buf, os->sb.len) != 0)
        return -1;
    sb_reset(&os->sb);
    return 0;
}

int out_stream_write(out_stream *os, const void *data, size_t n)
{
    if (out_stream_flush(os, 0) != 0)
        return -1;
    return write_all(os, data, n);
}

int out_stream_commit(out_stream *os)
{
    int rc = out_stream_flush(os, 0);
    if (close(os->fd) != 0 && rc == 0)
        rc = err_set(ERR_OUTPUT, os->path, "cannot write output file: %s", strerror(errno));
    os->fd = -1;
    if (rc == 0) {
        /* the temporary file is consumed either way */
        rc = out_commit_new(os->tmp, &os->path) < 0 ? -1 : 0;
        os->tmp = NULL;
    }
    return rc;
}

int out_stream_commit_replace(out_stream *os, out_run *r, const char *what)
{
    int rc = out_stream_flush(os, 0);
    if (close(os->fd) != 0 && rc == 0)
        rc = err_set(ERR_OUTPUT, os->path, "cannot write output file: %s", strerror(errno));
    os->fd = -1;
    if (rc == 0) {
        /* the temporary file is consumed either way */
        rc = out_run_replace(r, os->tmp, os->path, what);
        os->tmp = NULL;
    }
    return rc;
}

void out_stream_close(out_stream *os)
{
    if (os->fd >= 0)
        close(os->fd);
    os->fd = -1;
    if (os->tmp)
        out_tmp_discard(os->tmp);
    os->tmp = NULL;
    sb_free(&os->sb);
}
