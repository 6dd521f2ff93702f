/* Parallel for: run fn(arg, i) for i in [0, n) on up to `threads` threads
 * (the calling thread included). Work is handed out one index at a time, so
 * uneven items balance themselves. */
#ifndef MSP_POOL_H
#define MSP_POOL_H

#include <stddef.h>

typedef void (*pool_fn)(void *arg, size_t i);

void pool_for(size_t n, int threads, pool_fn fn, void *arg);

/* Number of online CPUs (at least 1). */
int pool_cpus(void);

#endif
