/* The random checker (spec/configcheck.md §A.6.6): which random functions
 * were called before the first forward step, from where and how often,
 * paired by call stacks that look alike (file name, function and code by
 * difflib). */
#include "config_check/pack.h"
#include "config_check/random.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "py/difflib.h"

#include <stdlib.h>
#include <string.h>

static const char *const random_header[] = {"op", "rank", "bench_stack", "cmp_stack", "bench_count", "cmp_count",
                                             "check_result"};

/* "File {path}, line {n}, in {func}, {code}" split on single spaces: with
 * more than 6 parts, path = part 1 and func = part 5 without their last
 * character, code = parts 6.. joined; otherwise all empty. */
static void parse_frame(const char *s, size_t n, const char **path, size_t *pl, const char **func, size_t *fl,
                        const char **code, size_t *cl)
{
    const char *start[7];
    size_t len[7], parts = 0, b = 0;
    for (size_t i = 0; i <= n && parts < 7; i++)
        if (i == n || s[i] == ' ') {
            if (parts < 7) {
                start[parts] = s + b;
                len[parts] = i - b;
            }
            parts++;
            b = i + 1;
        }
    *pl = *fl = *cl = 0;
    *path = *func = *code = "";
    if (parts < 7)
        return;
    *path = start[1];
    *pl = len[1] ? len[1] - 1 : 0;
    *func = start[5];
    *fl = len[5] ? len[5] - 1 : 0;
    *code = start[6];
    *cl = (size_t)(s + n - start[6]);
}

static void base_name(const char **p, size_t *n)
{
    for (size_t i = *n; i-- > 0;)
        if ((*p)[i] == '/') {
            *p += i + 1;
            *n -= i + 1;
            return;
        }
}

int random_frames_match(const char *f1, size_t n1, const char *f2, size_t n2)
{
    const char *p1, *u1, *c1, *p2, *u2, *c2;
    size_t pl1, ul1, cl1, pl2, ul2, cl2;
    parse_frame(f1, n1, &p1, &pl1, &u1, &ul1, &c1, &cl1);
    parse_frame(f2, n2, &p2, &pl2, &u2, &ul2, &c2, &cl2);
    double path_score = 0, func_score = ul1 == ul2 && !memcmp(u1, u2, ul1);
    if (pl1 && pl2) {
        base_name(&p1, &pl1);
        base_name(&p2, &pl2);
        path_score = pl1 == pl2 && !memcmp(p1, p2, pl1);
    }
    double code_score = py_difflib_ratio(c1, cl1, c2, cl2);
    return !((path_score + func_score + code_score) / 3.0 < 0.8);
}

int random_stacks_match(const jval *s1, const jval *s2)
{
    if (s1->type != J_ARRAY || s2->type != J_ARRAY || s1->len != s2->len)
        return 0;
    for (uint32_t i = 0; i < s1->len; i++) {
        const jval *a = &s1->u.items[i], *b = &s2->u.items[i];
        if (a->type != J_STRING || b->type != J_STRING || !random_frames_match(a->u.str, a->len, b->u.str, b->len))
            return 0;
    }
    return 1;
}

/* A rank's file: rank<N>.json -> {op: [{count, stack}, ...]}. */
typedef struct {
    long long rank;
    jval data;
} rank_file;

static int load_ranks(cc_ctx *c, pack *p, rank_file **out, size_t *n)
{
    const zip_entry **files;
    size_t nf = pack_files_under(p, "random", &files), cap = 0;
    *out = NULL;
    *n = 0;
    int rc = 0;
    for (size_t i = 0; i < nf && rc == 0; i++) {
        const zip_entry *e = files[i];
        const char *name = e->name + 7;
        size_t len = e->name_len - 7;
        if (memchr(name, '/', len))
            continue; /* not directly in random/ */
        if (len < 9 || memcmp(name, "rank", 4) || memcmp(name + len - 5, ".json", 5))
            continue;
        /* the text between "rank" and the first '.' must be digits */
        const char *dot = memchr(name, '.', len);
        size_t dl = (size_t)(dot - name) - 4;
        long long r = 0;
        int ok = dl > 0 && dl < 19;
        for (size_t k = 0; ok && k < dl; k++) {
            ok = name[4 + k] >= '0' && name[4 + k] <= '9';
            r = r * 10 + (name[4 + k] - '0');
        }
        if (!ok) {
            rc = err_input(pack_where(p, e->name, e->name_len, c->a), "extract rank id from %.*s failed", (int)len,
                           name);
            break;
        }
        jval d;
        if (pack_json(p, e, c->a, &d) != 0) {
            rc = -1;
            break;
        }
        if (d.type != J_OBJECT) {
            rc = err_input(pack_where(p, e->name, e->name_len, c->a), "is not a JSON object of random calls");
            break;
        }
        /* rank0.json and rank00.json name one rank: the later name wins */
        size_t k = 0;
        while (k < *n && (*out)[k].rank != r)
            k++;
        if (k == *n) {
            GROW(*out, cap, *n + 1);
            (*n)++;
        }
        (*out)[k] = (rank_file){r, d};
    }
    free(files);
    return rc;
}

static const jval *rank_data(const rank_file *v, size_t n, long long r)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].rank == r)
            return &v[i].data;
    return NULL;
}

/* The entries of an op: a list of {"count": int, "stack": [frames]}. */
static int check_entries(cc_ctx *c, pack *p, const jval *list, const char *op, size_t ol)
{
    if (list->type != J_ARRAY)
        return err_input(p->path, "random call statistics of '%.*s' are not a list", (int)ol, op);
    for (uint32_t i = 0; i < list->len; i++) {
        const jval *e = &list->u.items[i], *cnt = json_get(e, "count"), *st = json_get(e, "stack");
        if (!cnt || cnt->type != J_NUMBER || !cnt->is_int || !st || st->type != J_ARRAY)
            return err_input(p->path, "a random call entry of '%.*s' lacks its count or stack", (int)ol, op);
        for (uint32_t k = 0; k < st->len; k++)
            if (st->u.items[k].type != J_STRING)
                return err_input(p->path, "a stack frame of '%.*s' is not text", (int)ol, op);
    }
    return 0;
}

static cell stack_text(cc_ctx *c, const jval *st)
{
    strbuf sb = STRBUF_INIT;
    for (uint32_t k = 0; k < st->len; k++) {
        if (k)
            sb_addc(&sb, '\n');
        sb_add(&sb, st->u.items[k].u.str, st->u.items[k].len);
    }
    cell r = cc_text(c, sb.buf ? sb.buf : "", sb.len);
    sb_free(&sb);
    return r;
}

static int op_cmp(const void *x, const void *y)
{
    const jmember *a = *(const jmember *const *)x, *b = *(const jmember *const *)y;
    size_t n = a->keylen < b->keylen ? a->keylen : b->keylen;
    int r = memcmp(a->key, b->key, n);
    return r ? r : (a->keylen > b->keylen) - (a->keylen < b->keylen);
}

static void compare_op(cc_ctx *c, const char *op, size_t ol, long long rank, const jval *bl, const jval *cl,
                       cc_sheet *out)
{
    static const jval none = {J_ARRAY, 0, 0, {0}, NULL};
    if (!bl)
        bl = &none;
    if (!cl)
        cl = &none;
    cell opc = cc_text(c, op, ol), nomatch = cc_text(c, "no match stack", 14);
    for (uint32_t i = 0; i < bl->len; i++) {
        const jval *be = &bl->u.items[i], *bs = json_get(be, "stack"), *bc = json_get(be, "count");
        const jval *match = NULL;
        for (uint32_t k = 0; k < cl->len && !match; k++)
            if (random_stacks_match(json_get(&cl->u.items[k], "stack"), bs))
                match = &cl->u.items[k];
        cell row[7] = {opc, cell_num((double)rank), stack_text(c, bs), nomatch, cell_num(bc->u.num), cell_num(0),
                       cell_bool(0)};
        if (match) {
            const jval *cc = json_get(match, "count");
            row[3] = stack_text(c, json_get(match, "stack"));
            row[5] = cell_num(cc->u.num);
            row[6] = cell_bool(bc->u.num == cc->u.num);
        }
        if (row[6].num == 0)
            out->pass = 0;
        sheet_row(out, row);
    }
    for (uint32_t k = 0; k < cl->len; k++) {
        const jval *ce = &cl->u.items[k], *cs = json_get(ce, "stack");
        int matched = 0;
        for (uint32_t i = 0; i < bl->len && !matched; i++)
            matched = random_stacks_match(json_get(&bl->u.items[i], "stack"), cs);
        if (matched)
            continue;
        cell row[7] = {opc, cell_num((double)rank), nomatch, stack_text(c, cs), cell_num(0),
                       cell_num(json_get(ce, "count")->u.num), cell_bool(0)};
        out->pass = 0;
        sheet_row(out, row);
    }
}

int check_random(cc_ctx *c, cc_sheet *out)
{
    if (!pack_exists(c->bench, "random") || !pack_exists(c->cmp, "random"))
        return 0;
    rank_file *br = NULL, *cr = NULL;
    size_t nb = 0, nc = 0;
    int rc = load_ranks(c, c->bench, &br, &nb);
    if (rc == 0)
        rc = load_ranks(c, c->cmp, &cr, &nc);
    for (size_t i = 0; i < nb && rc == 0; i++)
        for (uint32_t k = 0; k < br[i].data.len && rc == 0; k++)
            rc = check_entries(c, c->bench, &br[i].data.u.members[k].val, br[i].data.u.members[k].key,
                               br[i].data.u.members[k].keylen);
    for (size_t i = 0; i < nc && rc == 0; i++)
        for (uint32_t k = 0; k < cr[i].data.len && rc == 0; k++)
            rc = check_entries(c, c->cmp, &cr[i].data.u.members[k].val, cr[i].data.u.members[k].key,
                               cr[i].data.u.members[k].keylen);
    if (rc != 0) {
        free(br);
        free(cr);
        return -1;
    }
    sheet_init(out, "random", random_header, 7);
    /* the ranks of both sides, ascending */
    long long *ranks = xmalloc_array(nb + nc + 1, sizeof *ranks);
    size_t nr = 0;
    for (size_t i = 0; i < nb + nc; i++) {
        long long r = i < nb ? br[i].rank : cr[i - nb].rank;
        size_t k = 0;
        while (k < nr && ranks[k] != r)
            k++;
        if (k == nr)
            ranks[nr++] = r;
    }
    for (size_t i = 1; i < nr; i++)
        for (size_t j = i; j > 0 && ranks[j - 1] > ranks[j]; j--) {
            long long t = ranks[j];
            ranks[j] = ranks[j - 1];
            ranks[j - 1] = t;
        }
    static const jval empty_obj = {J_OBJECT, 0, 0, {0}, NULL};
    for (size_t r = 0; r < nr; r++) {
        const jval *bd = rank_data(br, nb, ranks[r]), *cd = rank_data(cr, nc, ranks[r]);
        if (!bd)
            bd = &empty_obj;
        if (!cd)
            cd = &empty_obj;
        /* the union of the op names, sorted (msprobe: a Python set) */
        const jmember **ops = xmalloc_array((size_t)bd->len + cd->len + 1, sizeof *ops);
        size_t no = 0;
        for (uint32_t i = 0; i < bd->len; i++)
            ops[no++] = &bd->u.members[i];
        for (uint32_t i = 0; i < cd->len; i++) {
            int dup = 0;
            for (uint32_t k = 0; k < bd->len && !dup; k++)
                dup = !op_cmp(&ops[k], &(const jmember *){&cd->u.members[i]});
            if (!dup)
                ops[no++] = &cd->u.members[i];
        }
        qsort(ops, no, sizeof *ops, op_cmp);
        for (size_t i = 0; i < no; i++) {
            const jval *bl = NULL, *cl = NULL;
            for (uint32_t k = 0; k < bd->len && !bl; k++)
                if (!op_cmp(&ops[i], &(const jmember *){&bd->u.members[k]}))
                    bl = &bd->u.members[k].val;
            for (uint32_t k = 0; k < cd->len && !cl; k++)
                if (!op_cmp(&ops[i], &(const jmember *){&cd->u.members[k]}))
                    cl = &cd->u.members[k].val;
            compare_op(c, ops[i]->key, ops[i]->keylen, ranks[r], bl, cl, out);
        }
        free(ops);
    }
    free(ranks);
    free(br);
    free(cr);
    return 1;
}
