/* Tensor mode (spec §5.7): the rows of every matched pair form one table,
 * one row per NPU row name (the last row of a name wins, as msprobe's dict
 * does); each pair of tensor files is compared once (model/tensor_pair,
 * the compare's metrics kernel), on every core; then each compared NPU
 * node gets its index from the one-thousandth ratios of its items. */
#include "graph/compare/tensors.h"
#include "graph/model/items.h"
#include "base/mem.h"
#include "base/pool.h"
#include "model/tensor_pair.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void gtensor_add(gcompare *c, const dump_row *n, const dump_row *b)
{
    size_t len = strlen(n->name);
    const size_t *at = strmap_get(&c->tensor_by_name, n->name, len);
    gtensor_row *r;
    if (at) {
        r = &c->tensors[*at];
    } else {
        GROW(c->tensors, c->tensor_cap, c->ntensors + 1);
        r = &c->tensors[c->ntensors];
        memset(r, 0, sizeof *r);
        r->name = arena_strndup(&c->mem, n->name, len);
        int added;
        strmap_put(&c->tensor_by_name, r->name, len, c->ntensors, &added);
        c->ntensors++;
    }
    r->npu_file = arena_strndup(&c->mem, n->data_name, strlen(n->data_name));
    /* a row beyond the Bench rows has no Bench file */
    r->bench_file = b ? arena_strndup(&c->mem, b->data_name, strlen(b->data_name)) : "-1";
}

const gtensor_row *gtensor_find(const gcompare *c, const char *name)
{
    const size_t *at = strmap_get(&c->tensor_by_name, name, strlen(name));
    return at ? &c->tensors[*at] : NULL;
}

/* One row of the table: its pair of files compared (a row without a file
 * on one side, or whose files cannot be read, stays "unsupported"). */
static int compare_one(void *arg, size_t i)
{
    gcompare *c = arg;
    gtensor_row *r = &c->tensors[i];
    tensor_metrics_unsupported(&r->m);
    if (strcmp(r->npu_file, "-1") != 0 && strcmp(r->bench_file, "-1") != 0 &&
        tensor_pair_compare(c->n->rd->tensor_dir, r->npu_file, c->b->rd->tensor_dir, r->bench_file, 0, c->pj,
                            &r->m) < 0)
        return -1;
    progress_add(c->pj, 1);
    return 0;
}

int gtensor_metrics(gcompare *c)
{
    progress_phase(c->pj, "tensors", c->ntensors, PROGRESS_ITEMS);
    return pool_run(c->ntensors, c->o->jobs > 0 ? c->o->jobs : 1, compare_one, c, NULL);
}

static int is_invalid(const pyval *v) { return v->kind == PV_FLOAT && (isnan(v->num) || isinf(v->num)); }

/* The shape of an item is falsy: a 0-d tensor's [], or none. */
static int shape_falsy(const gitem *g)
{
    if (!g->leaf)
        return 1;
    if (!json_truthy(json_get(g->leaf, "dtype")))
        return 0;   /* gen_op_item's shape text, never empty */
    const jval *s = json_get(g->leaf, "shape");
    return !s || !json_truthy(s);
}

enum { SIDE_NONE, SIDE_NA, SIDE_NUM };

/* _add_real_compare_data(): the smallest one-thousandth ratio of a side */
static int side_min(const gcompare *c, const gitems *it, int out, double *min)
{
    const gitem *v = out ? it->out : it->in;
    size_t n = out ? it->nout : it->nin;
    int any = 0, na = 0;
    double m = 1.0, first = 0;
    for (size_t k = 0; k < n; k++) {
        const dump_row *row = gitem_row(it, &v[k]);
        if (dump_stat(row, 0).kind == PV_NONE)
            continue;
        const gtensor_row *r = gtensor_find(c, row->name);
        if (r) {
            if (shape_falsy(&v[k]))
                continue;   /* spec §10 #14: not even the NaN test */
            int kind = r->m.kind[MET_ONE_THOUSANDTH];
            if (kind == MK_NUM || kind == MK_NAN) {
                double t = kind == MK_NUM ? r->m.value[MET_ONE_THOUSANDTH] : NAN;
                /* Python's min(numbers + [1.0]): the first smallest, a
                 * leading NaN stays */
                if (!any)
                    first = t;
                else if (t < first)
                    first = t;
                any = 1;
            }
        }
        if (is_invalid((const pyval[]){dump_stat(row, 0)}) || is_invalid((const pyval[]){dump_stat(row, 1)}))
            na = 1;
    }
    if (na)
        return SIDE_NA;
    if (!any)
        return SIDE_NONE;
    m = 1.0 < first ? 1.0 : first;
    *min = m;
    return SIDE_NUM;
}

int gtensor_indexes(gcompare *c)
{
    gitems it;
    gitems_init(&it);
    file_guard g;
    file_guard_begin(&g, &c->n->rd->dump);
    int rc = 0;
    for (size_t q = 0; q < c->nqueued && rc == 0; q++) {
        gnode *nd = &c->n->nodes[c->queued[q]];
        if ((rc = gitems_read(&it, c->n->rd, nd->entry)) != 0)
            break;
        double in = 0, out = 0;
        int si = side_min(c, &it, 0, &in), so = side_min(c, &it, 1, &out);
        double v;
        int kind = PX_INT;
        if (so == SIDE_NA) {
            v = 1;
        } else if (si == SIDE_NA) {
            v = 0;
        } else if (si == SIDE_NUM && so == SIDE_NUM) {
            v = in - out;
            kind = PX_FLOAT;
        } else {
            v = 0;
        }
        if (isnan(v)) {
            /* msprobe writes a bare NaN (spec §10 #7): the worst */
            v = 1;
            kind = PX_INT;
        } else if (v < 0) {
            v = 0;
            kind = PX_INT;
        } else if (v > 1) {
            v = 1;
            kind = PX_INT;
        }
        nd->px = v;
        nd->px_kind = (uint8_t)kind;
    }
    if (file_guard_end(&g) != 0)
        rc = -1;
    gitems_free(&it);
    return rc;
}
