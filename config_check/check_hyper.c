/* The hyper-parameter checker (spec/configcheck.md §A.6.3): the static
 * (launch scripts, yaml) and dynamic (Megatron's args) parameters of the two
 * packs, paired by name, by msprobe's alias table, or by difflib similarity. */
#include "config_check/pack.h"
#include "config_check/hyper.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "py/difflib.h"
#include "py/numfmt.h"
#include "py/pyeq.h"
#include "py/pystr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const hyper_header[] = {"file_name", "bench_para", "cmp_para", "bench_value", "cmp_value",
                                           "matched_with", "level"};

/* msprobe 8.1.0's resource/hyperparameter.yaml: canonical name, aliases. */
static const struct {
    const char *canonical;
    const char *aliases[4];
} aliases[] = {
    {"learning_rate", {"lr", "learningrate"}},
    {"batch_size", {"batch", "bs", "batch_size_per_gpu"}},
    {"epochs", {"num_epochs", "max_epochs", "epoch"}},
    {"weight_decay", {"wd", "weightdecay"}},
    {"dropout_rate", {"dropout", "drop_rate"}},
};

static long avail_find(const avail_names *a, const char *name, size_t len)
{
    for (size_t i = 0; i < a->n; i++)
        if (a->v[i]->keylen == len && !memcmp(a->v[i]->key, name, len))
            return (long)i;
    return -1;
}

static void lower_ascii(strbuf *sb, const char *s, size_t n)
{
    sb_reset(sb);
    for (size_t i = 0; i < n; i++)
        sb_addc(sb, s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] + 32) : s[i]);
}

long hyper_match(const avail_names *names, const char *name, size_t len, strbuf *how)
{
    const avail_names *a = names;
    sb_reset(how);
    long k = avail_find(a, name, len);
    if (k >= 0) {
        sb_adds(how, "pure name");
        return k;
    }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        int hit = strlen(aliases[i].canonical) == len && !memcmp(aliases[i].canonical, name, len);
        for (int j = 0; !hit && j < 4 && aliases[i].aliases[j]; j++)
            hit = strlen(aliases[i].aliases[j]) == len && !memcmp(aliases[i].aliases[j], name, len);
        if (!hit)
            continue;
        /* the first entry naming it decides; then its canonical name, then
         * its aliases in order */
        k = avail_find(a, aliases[i].canonical, strlen(aliases[i].canonical));
        for (int j = 0; k < 0 && j < 4 && aliases[i].aliases[j]; j++)
            k = avail_find(a, aliases[i].aliases[j], strlen(aliases[i].aliases[j]));
        if (k >= 0) {
            sb_adds(how, "mapping");
            return k;
        }
        break;
    }
    strbuf x = STRBUF_INIT, y = STRBUF_INIT;
    lower_ascii(&x, name, len);
    double best = 0.8;
    k = -1;
    for (size_t i = 0; i < a->n; i++) {
        lower_ascii(&y, a->v[i]->key, a->v[i]->keylen);
        double r = py_difflib_ratio(x.buf ? x.buf : "", x.len, y.buf ? y.buf : "", y.len);
        if (r > best) {
            best = r;
            k = (long)i;
        }
    }
    sb_free(&x);
    sb_free(&y);
    if (k >= 0) {
        char buf[NUMFMT_BUFSZ];
        fmt_pyrepr(best, buf);
        sb_addf(how, "similarity:%s", buf);
    }
    return k;
}

/* msprobe 8.1.0 compares the values with Python's ==, so the shell's "1"
 * differs from the yaml's 1; we compare them as the newer msprobe does:
 * numbers (and bools) by their str(). */
static int hyper_equal(const jval *a, const jval *b)
{
    int an = a->type == J_NUMBER || a->type == J_TRUE || a->type == J_FALSE;
    int bn = b->type == J_NUMBER || b->type == J_TRUE || b->type == J_FALSE;
    if (!an && !bn)
        return py_json_equal(a, b);
    if ((an && !bn && b->type != J_STRING) || (bn && !an && a->type != J_STRING))
        return 0;
    strbuf x = STRBUF_INIT, y = STRBUF_INIT;
    py_str_json(&x, a);
    py_str_json(&y, b);
    int eq = x.len == y.len && !memcmp(sb_str(&x), sb_str(&y), x.len);
    sb_free(&x);
    sb_free(&y);
    return eq;
}

typedef struct {
    cell c[7];
} hrow;

/* Python's sort of the rows: by file, bench_para, cmp_para (unique). */
static int cell_cmp(const cell *a, const cell *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int r = n ? memcmp(a->str, b->str, n) : 0;
    return r ? r : (a->len > b->len) - (a->len < b->len);
}

static int hrow_cmp(const void *x, const void *y)
{
    const hrow *a = x, *b = y;
    int r = cell_cmp(&a->c[1], &b->c[1]);
    return r ? r : cell_cmp(&a->c[2], &b->c[2]);
}

static int compare_file(cc_ctx *c, const char *file, const jval *bench, const jval *cmp, cc_sheet *out)
{
    avail_names av = {xmalloc_array(cmp->len ? cmp->len : 1, sizeof *av.v), 0};
    for (uint32_t i = 0; i < cmp->len; i++)
        av.v[av.n++] = &cmp->u.members[i];
    hrow *rows = NULL;
    size_t n = 0, cap = 0;
    strbuf how = STRBUF_INIT;
    cell fname = cc_text(c, file, strlen(file)), empty = cc_text(c, "", 0);
    for (uint32_t i = 0; i < bench->len; i++) {
        const jmember *b = &bench->u.members[i];
        long k = hyper_match(&av, b->key, b->keylen, &how);
        GROW(rows, cap, n + 1);
        hrow *r = &rows[n];
        r->c[0] = fname;
        r->c[1] = cc_text(c, b->key, b->keylen);
        r->c[3] = cc_value(c, &b->val);
        if (k < 0) {
            r->c[2] = cc_text(c, "Only in benchmark", 17);
            r->c[4] = r->c[5] = empty;
            r->c[6] = cc_text(c, "warning", 7);
            n++;
            continue;
        }
        const jmember *m = av.v[k];
        if (!hyper_equal(&b->val, &m->val)) {
            r->c[2] = cc_text(c, m->key, m->keylen);
            r->c[4] = cc_value(c, &m->val);
            r->c[5] = cc_text(c, sb_str(&how), how.len);
            r->c[6] = cc_text(c, "error", 5);
            n++;
            out->pass = 0;
        }
        /* a matched parameter is taken: it cannot match again */
        memmove(av.v + k, av.v + k + 1, (av.n - (size_t)k - 1) * sizeof *av.v);
        av.n--;
    }
    for (size_t i = 0; i < av.n; i++) {
        GROW(rows, cap, n + 1);
        hrow *r = &rows[n++];
        r->c[0] = fname;
        r->c[1] = cc_text(c, "Only in comparison", 18);
        r->c[2] = cc_text(c, av.v[i]->key, av.v[i]->keylen);
        r->c[3] = r->c[5] = empty;
        r->c[4] = cc_value(c, &av.v[i]->val);
        r->c[6] = cc_text(c, "warning", 7);
    }
    /* stable, though the pairs are unique */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && hrow_cmp(&rows[j - 1], &rows[j]) > 0; j--) {
            hrow t = rows[j];
            rows[j] = rows[j - 1];
            rows[j - 1] = t;
        }
    for (size_t i = 0; i < n; i++)
        sheet_row(out, rows[i].c);
    free(rows);
    free(av.v);
    sb_free(&how);
    return 0;
}

int check_hyper(cc_ctx *c, cc_sheet *out)
{
    if (!pack_exists(c->bench, "hyperparameters") || !pack_exists(c->cmp, "hyperparameters"))
        return 0;
    static const char *const files[] = {"hyperparameters_static.json", "hyperparameters_dynamic.json"};
    sheet_init(out, "hyperparameters", hyper_header, 7);
    for (int f = 0; f < 2; f++) {
        char name[64];
        snprintf(name, sizeof name, "hyperparameters/%s", files[f]);
        const zip_entry *be = pack_file(c->bench, name), *ce = pack_file(c->cmp, name);
        if (!be || !ce)
            continue;
        jval b, m;
        if (pack_json(c->bench, be, c->a, &b) != 0 || pack_json(c->cmp, ce, c->a, &m) != 0)
            return -1;
        if (b.type != J_OBJECT || m.type != J_OBJECT)
            return err_input(pack_where(b.type != J_OBJECT ? c->bench : c->cmp, name, strlen(name), c->a),
                             "is not a JSON object of parameters");
        compare_file(c, files[f], &b, &m, out);
    }
    return 1;
}
