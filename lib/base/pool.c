#include "base/pool.h"
#include "base/log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct {
    size_t n;
    atomic_size_t next;
    pool_fn fn;
    void *arg;
} pool_job;

static void *worker(void *p)
{
    pool_job *job = p;
    for (;;) {
        size_t i = atomic_fetch_add(&job->next, 1);
        if (i >= job->n)
            break;
        job->fn(job->arg, i);
    }
    return NULL;
}

int pool_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void pool_for(size_t n, int threads, pool_fn fn, void *arg)
{
    if (threads < 1)
        threads = 1;
    if ((size_t)threads > n)
        threads = (int)n;
    pool_job job = {.n = n, .fn = fn, .arg = arg};
    atomic_init(&job.next, 0);
    if (threads <= 1) {
        worker(&job);
        return;
    }
    pthread_t *tids = xmalloc_array((size_t)threads - 1, sizeof *tids);
    int started = 0;
    for (int t = 0; t < threads - 1; t++) {
        /* Generous stacks: parsing nests recursively. */
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 16u << 20);
        if (pthread_create(&tids[started], &attr, worker, &job) == 0)
            started++;
        pthread_attr_destroy(&attr);
    }
    worker(&job);
    for (int t = 0; t < started; t++)
        pthread_join(tids[t], NULL);
    free(tids);
}
