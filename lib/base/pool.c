/* The parallel for of pool.h, with no pool kept between calls: threads
 * are started for one call and joined at its end (the work of a call --
 * rank pairs, files, pieces of millions of elements -- outweighs starting
 * a thread by far), and take indexes from one atomic counter, so uneven
 * items balance themselves. The calling thread works too. pool_run keeps
 * the error of every failing item and reports the lowest one, so the
 * message does not depend on which thread was faster.
 */
#include "base/pool.h"
#include "base/err.h"
#include "base/mem.h"

#include <pthread.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
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

/* pool_run: each failing item keeps its error until the end, so the report
 * does not depend on which thread finished first. */
typedef struct {
    pool_task task;
    void *arg;
    err_record *errors;
    unsigned char *failed;
    atomic_size_t first;          /* lowest failing index, SIZE_MAX: none */
} run_state;

static void run_item(void *p, size_t i)
{
    run_state *s = p;
    err_clear();
    if (s->task(s->arg, i) == 0)
        return;
    if (err_cause() == ERR_NONE)
        err_internal(NULL, "a task failed without saying why");
    err_take(&s->errors[i]);
    if (s->failed)
        s->failed[i] = 1;
    size_t cur = atomic_load(&s->first);
    while (i < cur && !atomic_compare_exchange_weak(&s->first, &cur, i))
        ;
}

int pool_run(size_t n, int threads, pool_task task, void *arg, unsigned char *failed)
{
    run_state s = {.task = task, .arg = arg, .failed = failed};
    s.errors = xcalloc(n ? n : 1, sizeof *s.errors);
    atomic_init(&s.first, SIZE_MAX);
    if (failed && n)
        memset(failed, 0, n);
    pool_for(n, threads, run_item, &s);
    size_t first = atomic_load(&s.first);
    for (size_t i = 0; i < n; i++)
        if (i != first)
            err_record_free(&s.errors[i]);
    int rc = 0;
    if (first != SIZE_MAX)
        rc = err_restore(&s.errors[first]);
    free(s.errors);
    return rc;
}
