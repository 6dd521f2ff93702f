/* Terminal output for every subcommand (log.h). One mutex guards the state
 * of the stderr line: whether the progress status line is drawn there, and
 * whether another writer left the cursor in the middle of a line. Every
 * message is formatted first, then cleared of the status line and written
 * in a single write(2), so lines from several threads never interleave.
 * stdio's stderr is replaced by a stream of ours (log_own_stderr) so that
 * libraries printing to stderr follow the same rules. Warnings of a kind
 * are counted and shown up to a cap, the rest summed up at the end; their
 * table grows with realloc, not xrealloc, because running out of memory
 * there must not reach log_fatal with the mutex held.
 */
#include "base/log.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *prog = "msprobe";
static int quiet;

void log_set_prog(const char *p) { prog = p; }
const char *log_prog(void) { return prog; }
void log_set_quiet(int q) { quiet = q; }
int log_quiet(void) { return quiet; }

/* Everything below `out` is the state of the terminal's stderr line. The
 * mutex is held only around write(2) calls and never while taking another
 * lock, so it cannot take part in a deadlock. */
static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;
static int status_shown;     /* the status line is on the terminal, cursor at its end */
static int midline;          /* a foreign writer left the cursor in the middle of a line */
static char shown_text[512]; /* the status line on the terminal (cut to fit) */

static void put(const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(STDERR_FILENO, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

#define CLEAR_LINE "\r\033[K"

/* Make the cursor stand at the start of an empty line (out held). */
static void fresh_line(void)
{
    if (status_shown)
        put(CLEAR_LINE, sizeof CLEAR_LINE - 1);
    else if (midline)
        put("\n", 1);
    status_shown = midline = 0;
}

/* One message: "<prog>: <kind><text>\n" plus `tail`, written at once. */
static void vline(const char *kind, const char *tail, const char *fmt, va_list ap)
{
    char small[512];
    va_list again;
    va_copy(again, ap);
    int body = vsnprintf(NULL, 0, fmt, ap);
    size_t head = strlen(prog) + 2 + strlen(kind), len = head + (body > 0 ? (size_t)body : 0) + 1 + strlen(tail);
    char *buf = len + 1 <= sizeof small ? small : malloc(len + 1);
    if (!buf) {
        /* out of memory while reporting: say at least what kind of line it was */
        buf = small;
        len = (size_t)snprintf(small, sizeof small, "%s: %s(message too long for the memory left)\n%s", prog, kind, tail);
        len = len < sizeof small ? len : sizeof small - 1;
    } else {
        snprintf(buf, len + 1, "%s: %s", prog, kind);
        if (body > 0)
            vsnprintf(buf + head, len + 1 - head, fmt, again);
        buf[head + (body > 0 ? (size_t)body : 0)] = '\n';
        memcpy(buf + head + (body > 0 ? (size_t)body : 0) + 1, tail, strlen(tail) + 1);
    }
    va_end(again);
    pthread_mutex_lock(&out);
    fresh_line();
    put(buf, len);
    pthread_mutex_unlock(&out);
    if (buf != small)
        free(buf);
}

void log_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline("", "", fmt, ap);
    va_end(ap);
}

void log_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline("", "", fmt, ap);
    va_end(ap);
    exit(1); /* EXIT_INTERNAL */
}

int log_usage(const char *fmt, ...)
{
    char tail[128];
    snprintf(tail, sizeof tail, "Try '%s --help'.\n", prog);
    va_list ap;
    va_start(ap, fmt);
    vline("", tail, fmt, ap);
    va_end(ap);
    return -1;
}

void log_warn(const char *fmt, ...)
{
    if (quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vline("warning: ", "", fmt, ap);
    va_end(ap);
}

void log_note(const char *fmt, ...)
{
    if (quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vline("", "", fmt, ap);
    va_end(ap);
}

void log_info(const char *fmt, ...)
{
    if (quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    /* stdout may be the same terminal: the status line goes first there too */
    pthread_mutex_lock(&out);
    if (status_shown && isatty(STDOUT_FILENO))
        fresh_line();
    vfprintf(stdout, fmt, ap);
    fputc('\n', stdout);
    fflush(stdout);
    pthread_mutex_unlock(&out);
    va_end(ap);
}

/* ---- capped warnings ------------------------------------------------------ */

typedef struct {
    const char *kind;
    size_t count;
} warn_kind;

static warn_kind *kinds;     /* under `out` */
static size_t nkinds, kinds_cap;

static warn_kind *find_kind(const char *kind)
{
    for (size_t i = 0; i < nkinds; i++)
        if (!strcmp(kinds[i].kind, kind))
            return &kinds[i];
    return NULL;
}

void log_warn_as(const char *kind, const char *fmt, ...)
{
    pthread_mutex_lock(&out);
    warn_kind *k = find_kind(kind);
    if (!k) {
        if (nkinds == kinds_cap) {
            size_t cap = kinds_cap ? 2 * kinds_cap : 8;
            warn_kind *grown = realloc(kinds, cap * sizeof *grown);
            if (!grown) {
                pthread_mutex_unlock(&out);
                log_fatal("out of memory (counting warnings)");
            }
            kinds = grown;
            kinds_cap = cap;
        }
        k = &kinds[nkinds++];
        k->kind = kind;
        k->count = 0;
    }
    size_t n = ++k->count;
    pthread_mutex_unlock(&out);
    if (n > LOG_WARN_SHOWN || quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vline("warning: ", "", fmt, ap);
    va_end(ap);
}

size_t log_warn_count(const char *kind)
{
    pthread_mutex_lock(&out);
    const warn_kind *k = find_kind(kind);
    size_t n = k ? k->count : 0;
    pthread_mutex_unlock(&out);
    return n;
}

void log_warn_totals(void)
{
    pthread_mutex_lock(&out);
    warn_kind *all = kinds;
    size_t n = nkinds;
    kinds = NULL;
    nkinds = kinds_cap = 0;
    pthread_mutex_unlock(&out);
    for (size_t i = 0; i < n; i++)
        if (all[i].count > LOG_WARN_SHOWN)
            log_warn("... and %zu more %s", all[i].count - LOG_WARN_SHOWN, all[i].kind);
    free(all);
}

/* ---- the status line ------------------------------------------------------ */

int log_status(const char *text)
{
    pthread_mutex_lock(&out);
    if (!text) {
        if (status_shown)
            put(CLEAR_LINE, sizeof CLEAR_LINE - 1);
        status_shown = 0;
    } else if (!midline && !(status_shown && !strncmp(text, shown_text, sizeof shown_text - 1))) {
        /* one write: "\r", the text, erase what a longer line left */
        char line[sizeof shown_text + 8];
        int n = snprintf(line, sizeof line, "\r%.*s\033[K", (int)sizeof shown_text - 1, text);
        put(line, (size_t)n);
        status_shown = 1;
        snprintf(shown_text, sizeof shown_text, "%s", text);
    }
    int shown = status_shown;
    pthread_mutex_unlock(&out);
    return shown;
}

/* ---- stdio's stderr ------------------------------------------------------- */

static _Thread_local int muted;

void log_mute_thread(int on) { muted = on; }

/* Called by stdio, with that stream's lock held, in the thread that prints. */
static ssize_t stderr_write(void *cookie, const char *buf, size_t n)
{
    (void)cookie;
    if (muted || n == 0)
        return (ssize_t)n;
    pthread_mutex_lock(&out);
    if (status_shown)
        put(CLEAR_LINE, sizeof CLEAR_LINE - 1);
    status_shown = 0;
    put(buf, n);
    midline = buf[n - 1] != '\n';
    pthread_mutex_unlock(&out);
    return (ssize_t)n;
}

int log_own_stderr(void)
{
    cookie_io_functions_t io = {.read = NULL, .write = stderr_write, .seek = NULL, .close = NULL};
    FILE *f = fopencookie(NULL, "w", io);
    if (!f)
        return -1;
    /* unbuffered like stderr: each fprintf reaches the terminal at once */
    setvbuf(f, NULL, _IONBF, 0);
    fflush(stderr);
    stderr = f;
    return 0;
}
