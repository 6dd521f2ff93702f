/* Process-wide setup (process.h): the SIGBUS handler that hands a fault in
 * a guarded mapping to files.c, SIGXFSZ ignored, and the signal thread
 * that takes SIGINT, SIGTERM and SIGHUP with sigwait(), removes the
 * pending temporary outputs and ends the process by the same signal. A
 * thread rather than a handler, so the clean-up may take locks and call
 * anything.
 */
#include "base/process.h"
#include "base/files.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    int saved = errno;
    /* si_code > 0: raised by the kernel for this access, not sent */
    if (si->si_code > 0 && file_guard_absorb(si->si_addr)) {
        errno = saved;
        return;
    }
    /* Not a guarded read: die of it as if there were no handler (the
     * signal is blocked until the handler returns, then delivered). */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGBUS, &dfl, NULL);
    raise(sig);
    errno = saved;
}

static sigset_t cleanup_set;
static pthread_t signal_tid;
static int wake_signal;          /* one of cleanup_set, to stop the thread at exit */
static atomic_int quitting;

static void *signal_thread(void *arg)
{
    (void)arg;
    int sig = 0;
    while (sigwait(&cleanup_set, &sig) != 0)
        ;
    if (atomic_load(&quitting))
        return NULL;
    out_tmp_remove_all();
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    raise(sig);
    _exit(128 + sig); /* not reached: the default action of these signals ends the process */
}

/* At a normal exit the thread is woken and joined, so that nothing of it
 * is left (valgrind would report its thread-local storage). */
static void stop_signal_thread(void)
{
    atomic_store(&quitting, 1);
    pthread_kill(signal_tid, wake_signal);
    pthread_join(signal_tid, NULL);
}

static int ignored_from_start(int sig)
{
    struct sigaction old;
    return sigaction(sig, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN;
}

void process_setup(void)
{
    static int done;
    if (done)
        return;
    done = 1;

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGXFSZ, &sa, NULL);

    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGBUS, &sa, NULL);

    static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};
    sigemptyset(&cleanup_set);
    wake_signal = 0;
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++)
        if (!ignored_from_start(cleanup_signals[i])) {
            sigaddset(&cleanup_set, cleanup_signals[i]);
            wake_signal = cleanup_signals[i];
        }
    if (!wake_signal)
        return;
    /* Threads inherit the mask: block first, so that only the signal
     * thread ever takes these signals. */
    sigset_t old;
    pthread_sigmask(SIG_BLOCK, &cleanup_set, &old);
    if (pthread_create(&signal_tid, NULL, signal_thread, NULL) != 0) {
        pthread_sigmask(SIG_SETMASK, &old, NULL); /* no thread: keep the default actions */
        return;
    }
    atexit(stop_signal_thread);
}
