/* Tensor mode (task "tensor", msprobe's ALL mode): every row with a tensor
 * file on both sides is compared element by element (spec/compare.md §5.4).
 *
 * Rows are handed out to all threads; each loads its two files (mapped, not
 * copied), streams them once through metrics_compare() and releases them, so
 * memory is bounded by the tensors in flight, not by the dump size.
 */
#include "compare/pipeline/compare.h"
#include "base/arena.h"
#include "base/mem.h"
#include "base/pool.h"
#include "base/progress.h"
#include "py/pystr.h"
#include "base/strmap.h"
#include "model/tensor_pair.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Rows whose NPU name repeats (several rows match one key) all use the data
 * files of the last such row: msprobe looks them up in a dict keyed by the
 * NPU name (the newest msprobe: by the NPU and the bench name). */
static size_t *data_source(const compare_ctx *c)
{
    size_t *src = xmalloc_array(c->npairs ? c->npairs : 1, sizeof *src);
    int both = c->opts->dialect == DIALECT_NEWEST;
    arena keys;
    arena_init(&keys, both ? 1 << 16 : 64);
    const char **key = xmalloc_array(c->npairs ? c->npairs : 1, sizeof *key);
    for (size_t i = 0; i < c->npairs; i++) {
        const match_pair *p = &c->pairs[i];
        if (!both) {
            key[i] = p->n->name;
            continue;
        }
        const char *b = p->b ? p->b->name : "N/A";
        size_t ln = strlen(p->n->name), lb = strlen(b);
        char *k = arena_alloc(&keys, ln + lb + 2);
        memcpy(k, p->n->name, ln);
        k[ln] = 0x1f;
        memcpy(k + ln + 1, b, lb + 1);
        key[i] = k;
    }
    strmap last;
    strmap_init(&last, c->npairs);
    for (size_t i = 0; i < c->npairs; i++) {
        int added;
        size_t *slot = strmap_put(&last, key[i], strlen(key[i]), i, &added);
        *slot = i;
    }
    for (size_t i = 0; i < c->npairs; i++)
        src[i] = *strmap_get(&last, key[i], strlen(key[i]));
    strmap_free(&last);
    free(key);
    arena_free(&keys);
    return src;
}

const char *real_data_name(const match_pair *p, int bench)
{
    if (!bench)
        return p->n->data_name;
    return p->b ? p->b->data_name : "N/A";
}

typedef struct {
    compare_ctx *c;
    const size_t *src;
    unsigned metrics_flags;
    atomic_int failed;      /* a file changed: the other chunks stop early */
} real_job;

static int compare_row(compare_ctx *c, size_t i, unsigned flags, real_result *r)
{
    const match_pair *p = &c->pairs[i];
    const char *nd = real_data_name(p, 0), *bd = real_data_name(p, 1);
    tensor_metrics_unsupported(&r->m);
    if (!strcmp(nd, "-1")) {
        r->flag = RD_NO_NPU_FILE;
    } else if (!strcmp(bd, "-1")) {
        r->flag = RD_NO_BENCH_FILE;
    } else if (!p->b) {
        r->flag = RD_UNMATCHED;
    } else {
        int rc = tensor_pair_compare(c->npu_tensor_dir, nd, c->bench_tensor_dir, bd, flags, c->progress, &r->m);
        if (rc < 0)
            return -1;
        r->flag = rc == TENSOR_PAIR_COMPARED ? RD_COMPARED : RD_READ_FAILED;
    }
    return 0;
}

static int real_chunk(void *arg, size_t chunk)
{
    real_job *j = arg;
    compare_ctx *c = j->c;
    size_t from = chunk * REAL_CHUNK, to = from + REAL_CHUNK < c->npairs ? from + REAL_CHUNK : c->npairs;
    for (size_t i = from; i < to; i++) {
        if (atomic_load_explicit(&j->failed, memory_order_relaxed))
            return 0;
        if (j->src[i] == i && compare_row(c, i, j->metrics_flags, &c->real[i]) != 0) {
            atomic_store(&j->failed, 1);
            return -1;
        }
    }
    progress_add(c->progress, to - from);
    return 0;
}

int compute_real_data(compare_ctx *c, int threads)
{
    c->real = xcalloc(c->npairs ? c->npairs : 1, sizeof *c->real);
    size_t *src = data_source(c);
    progress_phase(c->progress, "tensors", c->npairs, PROGRESS_ITEMS);
    /* A big tensor is split across the threads too (metrics.h), so that
     * one 4 GB tensor at the end of a dump does not leave the other cores
     * idle; when every thread has its own row, that oversubscribes a little. */
    real_job j = {.c = c,
                  .src = src,
                  .metrics_flags = (c->opts->zero_d_repeat ? METRICS_ZERO_D_REPEAT : 0) |
                                   (c->opts->dialect == DIALECT_NEWEST ? METRICS_NEWEST : 0) |
                                   METRICS_THREADS(threads)};
    int rc = pool_run((c->npairs + REAL_CHUNK - 1) / REAL_CHUNK, threads, real_chunk, &j, NULL);
    if (rc != 0) {
        free(src);
        return -1;
    }
    for (size_t i = 0; i < c->npairs; i++)
        if (src[i] != i)
            c->real[i] = c->real[src[i]];
    free(src);
    return 0;
}

size_t real_unreadable(const compare_ctx *c)
{
    size_t n = 0;
    for (size_t i = 0; i < c->npairs; i++)
        n += c->real[i].flag == RD_READ_FAILED;
    return n;
}

void real_message(const compare_ctx *c, size_t i, strbuf *sb)
{
    const real_result *r = &c->real[i];
    const match_pair *p = &c->pairs[i];
    switch (r->flag) {
    case RD_NO_NPU_FILE:
    case RD_UNMATCHED:
        /* sic: msprobe says this also when the NPU side has no file */
        sb_adds(sb, "No bench data matched.");
        break;
    case RD_NO_BENCH_FILE:
        sb_adds(sb, "Bench does not have data file.");
        break;
    case RD_READ_FAILED:
        sb_adds(sb, "Dump file: ");
        data_name_cell(p, sb);
        sb_adds(sb, " not found or read failed.");
        break;
    default:
        metrics_message(&r->m, sb);
        break;
    }
    if (c->opts->fuzzy && p->b && strcmp(p->n->name, p->b->name) != 0)
        sb_adds(sb, " Fuzzy matching data, the comparison accuracy may be affected.");
}

/* The Data_name cell: Python's repr of [npu_data_name, bench_data_name]. */
void data_name_cell(const match_pair *p, strbuf *sb)
{
    const char *nd = real_data_name(p, 0), *bd = real_data_name(p, 1);
    sb_addc(sb, '[');
    py_repr_str(sb, nd, strlen(nd));
    sb_add(sb, ", ", 2);
    py_repr_str(sb, bd, strlen(bd));
    sb_addc(sb, ']');
}
