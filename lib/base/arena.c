/* The bump allocator of arena.h. Objects are cut from the front block (64
 * KiB unless the caller says otherwise) until it is full, then a new block
 * goes in front. An object of more than a quarter of a block that does not
 * fit gets a block of its own, slid in behind the front one, so that the
 * front block's free tail is not thrown away. arena_reset keeps one block
 * of the standard size for the next round (the rows of the next file), so
 * a loop over many files does not go back to malloc.
 */
#include "base/arena.h"
#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

struct arena_block {
    arena_block *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
};

void arena_init(arena *a, size_t block_size)
{
    a->head = NULL;
    a->block_size = block_size ? block_size : 64 * 1024;
    a->total = 0;
}

static arena_block *new_block(size_t size)
{
    arena_block *b = xmalloc(sizeof *b + size);
    b->next = NULL;
    b->size = size;
    b->used = 0;
    return b;
}

void *arena_alloc(arena *a, size_t n)
{
    n = (n + 7) & ~(size_t)7;
    arena_block *b = a->head;
    if (!b || b->size - b->used < n) {
        size_t size = n > a->block_size / 4 ? n : a->block_size;
        arena_block *nb = new_block(size);
        if (b && size == n) {
            /* A big object gets its own block behind the current one, so the
             * space left in the current block is not wasted. */
            nb->next = b->next;
            b->next = nb;
            nb->used = n;
            a->total += n;
            return nb->data;
        }
        nb->next = b;
        a->head = b = nb;
    }
    void *p = b->data + b->used;
    b->used += n;
    a->total += n;
    return p;
}

void *arena_calloc(arena *a, size_t n)
{
    void *p = arena_alloc(a, n);
    memset(p, 0, n);
    return p;
}

char *arena_strndup(arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

void arena_reset(arena *a)
{
    arena_block *b = a->head;
    if (!b)
        return;
    /* Keep the most recently added block of the standard size. */
    arena_block *keep = NULL;
    while (b) {
        arena_block *next = b->next;
        if (!keep && b->size == a->block_size)
            keep = b;
        else
            free(b);
        b = next;
    }
    if (keep) {
        keep->next = NULL;
        keep->used = 0;
    }
    a->head = keep;
    a->total = 0;
}

void arena_free(arena *a)
{
    arena_block *b = a->head;
    while (b) {
        arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->total = 0;
}
