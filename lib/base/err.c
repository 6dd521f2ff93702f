/* The error record of err.h: one per thread (thread-local, so workers of a
 * pool fail without locks and without overwriting each other), a message
 * buffer that only grows and is freed when its thread ends. Every message
 * is made one printable line here, whatever file content it quotes, so no
 * caller has to clean what it passes in. The record travels between
 * threads as an err_record (a heap copy), which pool_run uses to report
 * the error of the lowest failing item.
 */
#include "base/err.h"
#include "base/log.h"
#include "base/utf8.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* This thread's error: a heap string, reused between errors. */
static _Thread_local char *err_msg;
static _Thread_local size_t err_cap;
static _Thread_local int err_why;

/* A thread that ends frees its message through the key's destructor. */
static pthread_key_t msg_key;
static pthread_once_t msg_key_once = PTHREAD_ONCE_INIT;
static void make_key(void) { pthread_key_create(&msg_key, free); }

static void reserve(size_t n)
{
    if (n <= err_cap)
        return;
    char *p = realloc(err_msg, n);
    if (!p)
        log_fatal("out of memory (recording an error)");
    err_msg = p;
    err_cap = n;
    pthread_once(&msg_key_once, make_key);
    pthread_setspecific(msg_key, p);
}

int err_vset(int cause, const char *path, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int body = vsnprintf(NULL, 0, fmt, ap);
    size_t head = path && *path ? strlen(path) + 2 : 0;
    reserve(head + (body > 0 ? (size_t)body : 0) + 1);
    if (head)
        snprintf(err_msg, err_cap, "%s: ", path);
    err_msg[head] = 0;
    if (body > 0)
        vsnprintf(err_msg + head, err_cap - head, fmt, again);
    va_end(again);
    /* One line of text only: a message quoting file content (a damaged
     * name) must neither break the line nor put control characters or
     * invalid UTF-8 on the terminal: such bytes become '?'. */
    unsigned char *u = (unsigned char *)err_msg, *end = u + strlen(err_msg);
    while (u < end) {
        if (*u == '\n' || *u == '\r' || *u == '\t') {
            *u++ = ' ';
        } else if (*u < 0x20 || *u == 0x7f) {
            *u++ = '?'; /* no control character reaches the terminal */
        } else if (*u < 0x80) {
            u++;
        } else {
            size_t k = utf8_seq_len(u, end);
            if (k)
                u += k;
            else
                *u++ = '?';
        }
    }
    err_why = cause ? cause : ERR_INTERNAL;
    return -1;
}

int err_set(int cause, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(cause, path, fmt, ap);
    va_end(ap);
    return -1;
}

int err_input(const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(ERR_MALFORMED, path, fmt, ap);
    va_end(ap);
    return -1;
}

int err_internal(const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(ERR_INTERNAL, path, fmt, ap);
    va_end(ap);
    return -1;
}

int err_cause(void) { return err_why; }
const char *err_message(void) { return err_why && err_msg ? err_msg : ""; }
int err_kind(void) { return err_why == ERR_NONE ? 0 : err_why == ERR_INTERNAL ? EXIT_INTERNAL : EXIT_BADINPUT; }
int err_is_fatal(void) { return err_why == ERR_CHANGED; }

void err_clear(void)
{
    err_why = ERR_NONE;
    if (err_msg)
        err_msg[0] = 0;
}

const char *err_cause_name(int cause)
{
    static const char *const names[] = {"none", "usage", "missing", "unreadable", "malformed",
                                        "over a limit", "changed during the run", "output", "internal"};
    return cause >= 0 && (size_t)cause < sizeof names / sizeof names[0] ? names[cause] : "internal";
}

void err_take(err_record *rec)
{
    rec->cause = err_why;
    rec->msg = err_why ? strdup(err_message()) : NULL;
    if (err_why && !rec->msg)
        log_fatal("out of memory (moving an error)");
    err_clear();
}

int err_restore(err_record *rec)
{
    if (rec->cause == ERR_NONE) {
        err_clear();
        return -1;
    }
    err_set(rec->cause, NULL, "%s", rec->msg ? rec->msg : "");
    err_record_free(rec);
    return -1;
}

void err_record_free(err_record *rec)
{
    free(rec->msg);
    rec->msg = NULL;
    rec->cause = ERR_NONE;
}

int err_report(void)
{
    int code = err_why ? err_kind() : EXIT_INTERNAL;
    log_error("%s", err_why && err_msg && err_msg[0] ? err_msg : "unknown error");
    return code;
}
