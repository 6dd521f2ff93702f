/* A progress line on stderr for long work, only when stderr is a terminal:
 * "compare tensors: 1234/5678 (21%)". Safe to advance from many threads;
 * redrawn at most ten times a second. */
#ifndef MSP_PROGRESS_H
#define MSP_PROGRESS_H

#include <stdatomic.h>
#include <stddef.h>

typedef struct {
    const char *label;
    size_t total;
    atomic_size_t done;
    atomic_long next_draw_ms;
    atomic_int drawn;
    int enabled;
} progress;

void progress_start(progress *p, const char *label, size_t total);
void progress_add(progress *p, size_t n);
void progress_end(progress *p);

#endif
