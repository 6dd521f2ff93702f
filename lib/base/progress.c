#include "base/progress.h"
#include "base/log.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void progress_start(progress *p, const char *label, size_t total)
{
    p->label = label;
    p->total = total;
    atomic_init(&p->done, 0);
    atomic_init(&p->next_draw_ms, now_ms() + 500);
    atomic_init(&p->drawn, 0);
    p->enabled = isatty(STDERR_FILENO) && !log_quiet() && total > 0;
}

void progress_add(progress *p, size_t n)
{
    size_t done = atomic_fetch_add(&p->done, n) + n;
    if (!p->enabled)
        return;
    long now = now_ms(), due = atomic_load(&p->next_draw_ms);
    /* one thread wins the right to draw this time */
    if (now < due || !atomic_compare_exchange_strong(&p->next_draw_ms, &due, now + 100))
        return;
    /* stderr held by another thread (a table closing quietly): skip this
     * draw rather than wait for it */
    if (ftrylockfile(stderr) != 0)
        return;
    fprintf(stderr, "\r%s: %zu/%zu (%zu%%)", p->label, done, p->total, p->total ? done * 100 / p->total : 100);
    fflush(stderr);
    funlockfile(stderr);
    atomic_store(&p->drawn, 1);
}

void progress_end(progress *p)
{
    if (p->enabled && atomic_load(&p->drawn)) {
        fprintf(stderr, "\r%*s\r", 60, "");
        fflush(stderr);
    }
}
