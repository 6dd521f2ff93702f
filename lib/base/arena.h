/* Bump allocator: many small objects with one lifetime (a parsed JSON
 * entry, the rows of one dump), freed all at once. Never returns NULL. */
#ifndef MSP_ARENA_H
#define MSP_ARENA_H

#include <stddef.h>

typedef struct arena_block arena_block;
typedef struct {
    arena_block *head;
    size_t block_size;
    size_t total;          /* bytes handed out, for statistics */
} arena;

void arena_init(arena *a, size_t block_size);
void *arena_alloc(arena *a, size_t n);           /* 8-byte aligned */
void *arena_calloc(arena *a, size_t n);
char *arena_strndup(arena *a, const char *s, size_t n);
/* Release every block but the first, and reuse that one: cheap reset. */
void arena_reset(arena *a);
void arena_free(arena *a);

#endif
