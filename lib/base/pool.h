/* Parallel for: run fn(arg, i) for i in [0, n) on up to `threads` threads
 * (the calling thread included). Work is handed out one index at a time, so
 * uneven items balance themselves. */
#ifndef MSP_POOL_H
#define MSP_POOL_H

#include <stddef.h>

typedef void (*pool_fn)(void *arg, size_t i);

void pool_for(size_t n, int threads, pool_fn fn, void *arg);

/* Fallible work: task(arg, i) returns 0, or -1 with an error recorded in its
 * thread. Every item runs (a failure does not cancel the others); when any
 * failed, pool_run returns -1 with the error of the failing item of the
 * lowest index recorded in the calling thread, whatever thread it ran on.
 * failed[i] (when not NULL) tells which items failed. */
typedef int (*pool_task)(void *arg, size_t i);
int pool_run(size_t n, int threads, pool_task task, void *arg, unsigned char *failed);

/* Number of online CPUs (at least 1). */
int pool_cpus(void);

#endif
