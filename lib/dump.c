#include "dump.h"
#include "files.h"
#include "log.h"
#include "pdnum.h"
#include "pystr.h"
#include "strbuf.h"
#include "strmap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* msprobe refuses to flatten deeper than this (Const.MAX_DEPTH). */
#define FLATTEN_MAX_DEPTH 10

typedef struct {
    dump_data *d;
    int dups;                 /* a name of `data` was repeated */
    int in_params_grad;       /* "parameters_grad" is a component of the prefix */
    uint8_t *md5;             /* per entry: msprobe's md5_find() on its value */
    size_t md5_cap;
    const char *entry_name;
    strbuf prefix;
    strbuf tmp;
} flattener;

static int has_component(const char *s, size_t n, const char *comp)
{
    size_t cl = strlen(comp);
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == '.') {
            if (i - start == cl && memcmp(s + start, comp, cl) == 0)
                return 1;
            start = i + 1;
        }
    }
    return 0;
}

/* First ".forward." / ".backward." at or after `from`; returns its start
 * and sets *word_len (7 or 8), or returns (size_t)-1. */
static size_t find_direction(const char *name, size_t n, size_t from, size_t *word_len)
{
    for (size_t i = from; i + 1 < n; i++) {
        if (name[i] != '.')
            continue;
        if (n - i >= 9 && memcmp(name + i + 1, "forward.", 8) == 0) {
            *word_len = 7;
            return i;
        }
        if (n - i >= 10 && memcmp(name + i + 1, "backward.", 9) == 0) {
            *word_len = 8;
            return i;
        }
    }
    return (size_t)-1;
}

static int starts_with_word(const char *s, size_t n, const char *w)
{
    size_t l = strlen(w);
    return n > l && memcmp(s, w, l) == 0 && s[l] == '.';
}

int row_name_state(const char *name, size_t *api_len, int *state)
{
    size_t n = strlen(name);
    /* one pass over the components for "debug" and "parameters_grad" */
    int debug = 0, pgrad = 0;
    for (const char *c = name, *end = name + n; c <= end;) {
        const char *dot = memchr(c, '.', (size_t)(end - c));
        size_t len = dot ? (size_t)(dot - c) : (size_t)(end - c);
        debug |= len == 5 && !memcmp(c, "debug", 5);
        pgrad |= len == 15 && !memcmp(c, "parameters_grad", 15);
        if (!dot)
            break;
        c = dot + 1;
    }
    if (debug) {
        *api_len = (size_t)(strstr(name, "debug") - name);
        *state = ST_DEBUG;
        return 0;
    }
    if (pgrad) {
        *api_len = (size_t)(strstr(name, "parameters_grad") - name);
        *state = ST_PARAMS_GRAD;
        return 0;
    }
    size_t wl;
    size_t m1 = find_direction(name, n, 0, &wl);
    if (m1 == (size_t)-1)
        return -1;
    size_t end1 = m1 + wl + 2, wl2;
    size_t m2 = find_direction(name, n, end1, &wl2);
    /* The regex split continues after the first match: the third part ends
     * where a second ".forward."/".backward." starts. */
    size_t part_end = m2 == (size_t)-1 ? n : m2;
    const char *p = name + end1;
    size_t pn = part_end - end1;
    if (memchr(p, '\n', pn))
        return -1;
    size_t digits = 0;
    while (digits < pn && p[digits] >= '0' && p[digits] <= '9')
        digits++;
    size_t group1 = 0;
    if (digits > 0 && digits < pn && p[digits] == '.')
        group1 = digits + 1;
    static const char *const words[] = {"input", "output", "kwargs", "parameters"};
    static const int states[] = {ST_INPUT, ST_OUTPUT, ST_KWARGS, ST_PARAMS};
    for (int attempt = 0; attempt < 2; attempt++) {
        size_t off = attempt == 0 ? group1 : 0;
        if (attempt == 1 && group1 == 0)
            break;
        for (int w = 0; w < 4; w++) {
            if (starts_with_word(p + off, pn - off, words[w]) && pn - off > strlen(words[w]) + 1) {
                *api_len = end1 + off;
                *state = states[w];
                return 0;
            }
        }
    }
    return -1;
}

static char *mem_str(dump_data *d, const char *s, size_t n)
{
    return arena_strndup(&d->mem, s, n);
}

static char *mem_sb(dump_data *d, strbuf *sb)
{
    return arena_strndup(&d->mem, sb->buf ? sb->buf : "", sb->len);
}

/* 2^63 and 2^64 as decimal digit strings, to classify Python ints that a
 * pandas column cannot hold as int64/uint64. */
static int int_token_wide(const char *t, size_t n)
{
    int neg = t[0] == '-';
    const char *digits = t + neg;
    size_t nd = n - (size_t)neg;
    const char *limit = neg ? "9223372036854775808" : "18446744073709551615";
    size_t ll = strlen(limit);
    if (nd != ll)
        return nd > ll;
    return memcmp(digits, limit, ll) > 0;
}

static void to_pyval(flattener *f, const jval *v, pyval *out)
{
    memset(out, 0, sizeof *out);
    if (!v)
        return;
    switch (v->type) {
    case J_NULL:
        out->kind = PV_NONE;
        return;
    case J_TRUE:
    case J_FALSE:
        out->kind = PV_BOOL;
        out->num = v->type == J_TRUE;
        return;
    case J_NUMBER:
        out->kind = v->is_int ? PV_INT : PV_FLOAT;
        out->num = v->u.num;
        out->pd_ok = 1;
        if (v->is_int) {
            out->wide_int = (uint8_t)int_token_wide(v->text, v->len);
            /* str(int) is the token, which pandas parses with its own
             * rounding (beyond 2**53 often not the exact value); a Python
             * int has no negative zero ("-0" loads as 0) */
            if (out->num == 0)
                out->num = out->pd_num = 0;
            else
                out->pd_ok = (uint8_t)pd_to_numeric(v->text, v->len, &out->pd_num);
        } else {
            /* A float's pandas value (pd_float_roundtrip) costs a repr and a
             * parse; compare computes it only where values differ. */
            out->pd_num = v->u.num;
        }
        return;
    case J_STRING:
        out->kind = PV_STR;
        out->text = mem_str(f->d, v->u.str, v->len);
        out->len = v->len;
        out->pd_ok = (uint8_t)pd_to_numeric(v->u.str, v->len, &out->pd_num);
        return;
    default:
        sb_reset(&f->tmp);
        py_str_json(&f->tmp, v);
        out->kind = PV_OTHER;
        out->text = mem_sb(f->d, &f->tmp);
        out->len = (uint32_t)f->tmp.len;
        return;
    }
}

static void pyval_str_copy(flattener *f, const char *s, pyval *out)
{
    memset(out, 0, sizeof *out);
    out->kind = PV_STR;
    out->len = (uint32_t)strlen(s);
    out->text = mem_str(f->d, s, out->len);
    out->pd_ok = (uint8_t)pd_to_numeric(s, out->len, &out->pd_num);
}

static const char *py_type_name(const jval *v)
{
    if (!v)
        return "<class 'NoneType'>";
    switch (v->type) {
    case J_NULL: return "<class 'NoneType'>";
    case J_TRUE:
    case J_FALSE: return "<class 'bool'>";
    case J_NUMBER: return v->is_int ? "<class 'int'>" : "<class 'float'>";
    case J_STRING: return "<class 'str'>";
    case J_ARRAY: return "<class 'list'>";
    default: return "<class 'dict'>";
    }
}

/* numpy's np.shape(np.array(value)) for the nested lists JSON can hold;
 * ragged nesting is an error in numpy 1.24 and here. */
static int numpy_shape(const jval *v, long *dims, int *ndim, int max)
{
    if (!v || v->type != J_ARRAY) {
        *ndim = 0;
        return 0;
    }
    if (max == 0)
        return -1;
    dims[0] = v->len;
    if (v->len == 0) {
        *ndim = 1;
        return 0;
    }
    long sub[32];
    int sub_nd = -1;
    for (uint32_t i = 0; i < v->len; i++) {
        long d[32];
        int nd;
        if (numpy_shape(&v->u.items[i], d, &nd, max - 1) != 0)
            return -1;
        if (sub_nd < 0) {
            sub_nd = nd;
            memcpy(sub, d, sizeof(long) * (size_t)nd);
        } else if (nd != sub_nd || memcmp(sub, d, sizeof(long) * (size_t)nd) != 0) {
            return -1;
        }
    }
    memcpy(dims + 1, sub, sizeof(long) * (size_t)sub_nd);
    *ndim = 1 + sub_nd;
    return 0;
}

static int slice_shape(flattener *f, const jval *value, strbuf *out)
{
    long dims[32];
    int nd;
    if (numpy_shape(value, dims, &nd, 31) != 0)
        return err_input(f->d->path, "entry %s: the value of a slice has an inhomogeneous shape", f->entry_name);
    sb_addc(out, '(');
    for (int i = 0; i < nd; i++) {
        if (i)
            sb_add(out, ", ", 2);
        sb_addf(out, "%ld", dims[i]);
    }
    if (nd == 1)
        sb_addc(out, ',');
    sb_addc(out, ')');
    return 0;
}

static dump_row *new_row(dump_data *d)
{
    if (d->nrows == d->rows_cap) {
        d->rows_cap = d->rows_cap ? d->rows_cap * 2 : 1024;
        d->rows = xrealloc(d->rows, d->rows_cap * sizeof *d->rows);
    }
    dump_row *r = &d->rows[d->nrows++];
    memset(r, 0, sizeof *r);
    r->entry = (uint32_t)d->nentries - 1;
    return r;
}

static void add_index(strbuf *sb, uint32_t i)
{
    char buf[12];
    int n = 0;
    do {
        buf[n++] = (char)('0' + i % 10);
        i /= 10;
    } while (i);
    sb_grow(sb, (size_t)n + 1);
    sb->buf[sb->len++] = '.';
    while (n)
        sb->buf[sb->len++] = buf[--n];
    sb->buf[sb->len] = 0;
}

static void add_crc_hex(strbuf *sb, unsigned long crc)
{
    static const char hex[] = "0123456789abcdef";
    char buf[8];
    for (int i = 7; i >= 0; i--, crc >>= 4)
        buf[i] = hex[crc & 15];
    sb_add(sb, buf, 8);
}

/* A null item: a row with every field None (msprobe's default_item). */
static void null_row(flattener *f)
{
    dump_row *r = new_row(f->d);
    r->name = mem_sb(f->d, &f->prefix);
    r->dtype = "None";
    r->shape = "None";
    r->md5 = NULL;
    r->data_name = "-1";
}

/* msprobe's gen_op_item(): one leaf dict (it has a string "type"). */
/* The members of a leaf that compare reads, found in one pass (a later
 * duplicate key wins, as in a Python dict). */
typedef struct {
    const jval *data_name, *stat[4], *dtype, *shape, *value, *type, *md5, *group_ranks;
} leaf_fields;

static void leaf_scan(const jval *leaf, leaf_fields *lf)
{
    memset(lf, 0, sizeof *lf);
    for (uint32_t i = 0; i < leaf->len; i++) {
        const jmember *m = &leaf->u.members[i];
        const char *k = m->key;
        const jval *v = &m->val;
        switch (m->keylen) {
        case 3:
            if (!memcmp(k, "Max", 3))
                lf->stat[0] = v;
            else if (!memcmp(k, "Min", 3))
                lf->stat[1] = v;
            else if (!memcmp(k, "md5", 3))
                lf->md5 = v;
            break;
        case 4:
            if (!memcmp(k, "Mean", 4))
                lf->stat[2] = v;
            else if (!memcmp(k, "Norm", 4))
                lf->stat[3] = v;
            else if (!memcmp(k, "type", 4))
                lf->type = v;
            break;
        case 5:
            if (!memcmp(k, "dtype", 5))
                lf->dtype = v;
            else if (!memcmp(k, "shape", 5))
                lf->shape = v;
            else if (!memcmp(k, "value", 5))
                lf->value = v;
            break;
        case 9:
            if (!memcmp(k, "data_name", 9))
                lf->data_name = v;
            break;
        case 11:
            if (!memcmp(k, "group_ranks", 11))
                lf->group_ranks = v;
            break;
        }
    }
}

static int leaf_row(flattener *f, const jval *leaf)
{
    dump_data *d = f->d;
    dump_row *r = new_row(d);
    leaf_fields lf;
    leaf_scan(leaf, &lf);
    const jval *dn = lf.data_name;
    if (json_truthy(dn)) {
        if (dn->type != J_STRING)
            return err_input(d->path, "entry %s: data_name is not a string", f->entry_name);
        r->data_name = mem_str(d, dn->u.str, dn->len);
        const char *dot = NULL;
        for (uint32_t i = dn->len; i-- > 0;)
            if (dn->u.str[i] == '.') {
                dot = dn->u.str + i;
                break;
            }
        r->name = dot ? mem_str(d, dn->u.str, (size_t)(dot - dn->u.str)) : r->data_name;
    } else {
        r->data_name = "-1";
        r->name = mem_sb(d, &f->prefix);
    }
    for (int i = 0; i < 4; i++)
        to_pyval(f, lf.stat[i], &r->stat[i]);

    const jval *dtype = lf.dtype;
    const jval *value = lf.value;
    if (json_truthy(dtype)) {
        sb_reset(&f->tmp);
        py_str_json(&f->tmp, dtype);
        r->dtype = mem_sb(d, &f->tmp);
        const jval *shape = lf.shape;
        sb_reset(&f->tmp);
        if (shape)
            py_str_json(&f->tmp, shape);
        else
            sb_adds(&f->tmp, "None");
        r->shape = mem_sb(d, &f->tmp);
    } else {
        const jval *type = lf.type;
        int value_stats = 0;
        sb_reset(&f->tmp);
        if (json_str_eq(type, "torch.Size")) {
            r->dtype = "torch.Size";
            if (value)
                py_str_json(&f->tmp, value);
            else
                sb_adds(&f->tmp, "None");
        } else if (json_str_eq(type, "slice")) {
            r->dtype = "slice";
            if (slice_shape(f, value, &f->tmp) != 0)
                return -1;
        } else if (json_str_eq(type, "ellipsis")) {
            r->dtype = "ellipsis";
            sb_adds(&f->tmp, "[]");
            value_stats = 1;
        } else if (json_str_eq(type, "torch.ProcessGroup")) {
            r->dtype = "torch.ProcessGroup";
            sb_adds(&f->tmp, "[]");
            strbuf ranks = STRBUF_INIT;
            const jval *gr = lf.group_ranks;
            if (gr)
                py_str_json(&ranks, gr);
            else
                sb_adds(&ranks, "None");
            for (int i = 0; i < 4; i++)
                pyval_str_copy(f, sb_str(&ranks), &r->stat[i]);
            sb_free(&ranks);
        } else {
            r->dtype = py_type_name(value);
            sb_adds(&f->tmp, "[]");
            value_stats = 1;
        }
        r->shape = mem_sb(d, &f->tmp);
        /* after the shape: to_pyval() reuses f->tmp */
        if (value_stats)
            for (int i = 0; i < 4; i++)
                to_pyval(f, value, &r->stat[i]);
    }

    const jval *md5 = lf.md5;
    sb_reset(&f->tmp);
    if (json_truthy(md5)) {
        py_str_json(&f->tmp, md5);
    } else {
        /* msprobe: CRC-32 of str(value) (empty text when there is no value). */
        strbuf text = STRBUF_INIT;
        if (value)
            py_str_json(&text, value);
        uLong crc = crc32(0L, (const Bytef *)(text.buf ? text.buf : ""), (uInt)text.len);
        add_crc_hex(&f->tmp, crc);
        sb_free(&text);
    }
    r->md5 = mem_sb(d, &f->tmp);
    return 0;
}

static int is_leaf(const jval *v)
{
    const jval *t = json_get(v, "type");
    return t && t->type == J_STRING;
}

/* msprobe's op_item_parse(). */
static int flatten(flattener *f, const jval *v, int depth)
{
    if (depth > FLATTEN_MAX_DEPTH)
        return err_input(f->d->path, "parse of api/module of %s exceeds the recursion limit.", sb_str(&f->prefix));
    if (v->type == J_NULL) {
        null_row(f);
        return 0;
    }
    if (!json_truthy(v))
        return 0;
    size_t keep = f->prefix.len;
    if (v->type == J_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++) {
            if (!f->in_params_grad)
                add_index(&f->prefix, i);
            int rc = flatten(f, &v->u.items[i], depth + 1);
            f->prefix.len = keep;
            f->prefix.buf[keep] = 0;
            if (rc)
                return rc;
        }
    } else if (v->type == J_OBJECT) {
        if (is_leaf(v))
            return leaf_row(f, v);
        for (uint32_t i = 0; i < v->len; i++) {
            const jval *item = json_member_value(v, i);
            if (!item)
                continue;
            const jmember *m = &v->u.members[i];
            sb_addc(&f->prefix, '.');
            sb_add(&f->prefix, m->key, m->keylen);
            int was = f->in_params_grad;
            f->in_params_grad |= has_component(m->key, m->keylen, "parameters_grad");
            int rc = flatten(f, item, depth + 1);
            f->in_params_grad = was;
            f->prefix.len = keep;
            f->prefix.buf[keep] = 0;
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* msprobe's check_dump_json_str(): value checks on inputs and outputs. */
static int check_value(flattener *f, const char *key, size_t keylen, const jval *v)
{
    if (keylen == 5 && !memcmp(key, "shape", 5) && v->type != J_ARRAY)
        return err_input(f->d->path, "shape of input or output of %s is not list or tuple, please check!", f->entry_name);
    if (keylen == 13 && !memcmp(key, "requires_grad", 13) && v->type != J_TRUE && v->type != J_FALSE)
        return err_input(f->d->path, "requires_grad of input or output of %s is not bool, please check!", f->entry_name);
    if (v->type == J_STRING && py_blacklisted(v->u.str, v->len))
        return err_input(f->d->path, "data info of %s contains special characters, please check!", f->entry_name);
    return 0;
}

static int check_item(flattener *f, const jval *v, int depth)
{
    if (depth > FLATTEN_MAX_DEPTH)
        return 0; /* msprobe only logs here */
    if (v->type == J_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++)
            if (check_item(f, &v->u.items[i], depth + 1))
                return -1;
    } else if (v->type == J_OBJECT) {
        for (uint32_t i = 0; i < v->len; i++) {
            const jval *item = json_member_value(v, i);
            if (!item)
                continue;
            const jmember *m = &v->u.members[i];
            int rc = item->type == J_OBJECT ? check_item(f, item, depth + 1) : check_value(f, m->key, m->keylen, item);
            if (rc)
                return rc;
        }
    }
    return 0;
}

static int check_entry(flattener *f, const jval *entry)
{
    const jval *in = json_get(entry, "input_args");
    if (!json_truthy(in))
        in = json_get(entry, "input");
    const jval *args[3] = {in, json_get(entry, "input_kwargs"), json_get(entry, "output")};
    for (int i = 0; i < 3; i++) {
        const jval *a = args[i];
        if (!json_truthy(a))
            continue;
        if (a->type == J_OBJECT) {
            if (check_item(f, a, 0))
                return -1;
        } else if (a->type == J_ARRAY) {
            for (uint32_t k = 0; k < a->len; k++)
                if (json_truthy(&a->u.items[k]) && check_item(f, &a->u.items[k], 0))
                    return -1;
        }
    }
    return 0;
}

static int contains_md5(const jval *v)
{
    if (v->type == J_OBJECT)
        return json_get(v, "md5") != NULL;
    if (v->type == J_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++)
            if (json_str_eq(&v->u.items[i], "md5"))
                return 1;
        return 0;
    }
    if (v->type == J_STRING) {
        for (uint32_t i = 0; i + 3 <= v->len; i++)
            if (!memcmp(v->u.str + i, "md5", 3))
                return 1;
    }
    return 0;
}

/* msprobe's md5_find() for one entry of dump.json. */
static int entry_has_md5(const jval *entry)
{
    for (uint32_t i = 0; i < entry->len; i++) {
        const jval *v = json_member_value(entry, i);
        if (!v)
            continue;
        if (v->type == J_ARRAY)
            for (uint32_t k = 0; k < v->len; k++)
                if (json_truthy(&v->u.items[k]) && contains_md5(&v->u.items[k]))
                    return 1;
        if (v->type == J_TRUE || v->type == J_FALSE)
            continue;
        if (json_truthy(v) && contains_md5(v))
            return 1;
    }
    return 0;
}

/* md5_find() for debug.json: a dict with key "md5" at any depth. */
static int debug_has_md5(const jval *v, int depth)
{
    if (depth > 50)
        return 0;
    if (v->type == J_OBJECT) {
        if (json_get(v, "md5"))
            return 1;
        for (uint32_t i = 0; i < v->len; i++)
            if (debug_has_md5(&v->u.members[i].val, depth + 1))
                return 1;
    } else if (v->type == J_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++)
            if (debug_has_md5(&v->u.items[i], depth + 1))
                return 1;
    }
    return 0;
}

static int state_rank(int state)
{
    switch (state) {
    case ST_PARAMS: return 1;
    case ST_OUTPUT: return 2;
    case ST_PARAMS_GRAD: return 3;
    default: return 0;
    }
}

/* Rows of one entry: compute states, then stable re-order: inputs/kwargs/
 * debug, parameters, outputs, parameters_grad (msprobe's reorder_op_x_list,
 * routed by state as the spec recommends instead of name substrings). */
static int finish_entry(flattener *f, size_t first)
{
    dump_data *d = f->d;
    size_t n = d->nrows - first;
    int need_sort = 0, prev = 0;
    for (size_t i = first; i < d->nrows; i++) {
        dump_row *r = &d->rows[i];
        size_t api_len;
        int state;
        if (row_name_state(r->name, &api_len, &state) != 0)
            return err_input(d->path, "Invalid name string: %s, can not be split by forward/backward, please check.",
                             r->name);
        r->state = (uint8_t)state;
        r->api_len = (uint32_t)api_len;
        int rank = state_rank(state);
        if (rank < prev)
            need_sort = 1;
        prev = rank > prev ? rank : prev;
    }
    if (need_sort) {
        dump_row *tmp = xmalloc_array(n, sizeof *tmp);
        size_t k = 0;
        for (int rank = 0; rank < 4; rank++)
            for (size_t i = first; i < d->nrows; i++)
                if (state_rank(d->rows[i].state) == rank)
                    tmp[k++] = d->rows[i];
        memcpy(d->rows + first, tmp, n * sizeof *tmp);
        free(tmp);
    }
    return 0;
}

static int add_entry(flattener *f, strmap *seen, const char *key, size_t keylen, const jval *value)
{
    dump_data *d = f->d;
    if (py_blacklisted(key, keylen))
        return err_input(d->path, "api name contains special characters, please check!");
    /* debug.json values are arbitrary items (a saved list, a bare leaf,
     * None); only entries read through input/output keys must be objects. */
    f->in_params_grad = has_component(key, keylen, "parameters_grad");
    int whole = f->in_params_grad || has_component(key, keylen, "debug");
    if (value->type != J_OBJECT && !whole)
        return err_input(d->path, "entry %.*s of 'data' is not an object", (int)(keylen > 200 ? 200 : keylen), key);
    char *name = arena_strndup(&d->mem, key, keylen);
    f->entry_name = name;
    int added;
    size_t *slot = strmap_put(seen, name, keylen, d->nentries, &added);
    if (d->nentries == d->entries_cap) {
        d->entries_cap = d->entries_cap ? d->entries_cap * 2 : 256;
        d->entries = xrealloc(d->entries, d->entries_cap * sizeof *d->entries);
    }
    /* Rows are always appended; a repeated name (the last value wins in a
     * Python dict, at the first position) re-points the earlier entry. */
    size_t index = added ? d->nentries : *slot;
    d->entries[d->nentries].name = name;
    d->nentries++;

    if (d->file_type == DUMP_JSON && value->type == J_OBJECT && check_entry(f, value) != 0)
        return -1;
    /* per entry, so that a repeated name counts with its last value only */
    if (f->md5_cap < d->nentries) {
        f->md5_cap = d->entries_cap;
        f->md5 = xrealloc(f->md5, f->md5_cap);
    }
    f->md5[index] = (uint8_t)(d->file_type == DUMP_JSON ? value->type == J_OBJECT && entry_has_md5(value)
                                                         : debug_has_md5(value, 0));

    size_t first = d->nrows;
    sb_reset(&f->prefix);
    sb_add(&f->prefix, key, keylen);
    int rc = 0;
    if (whole) {
        rc = flatten(f, value, 0);
    } else {
        static const char *const io_keys[5] = {"input_args", "input_kwargs", "input", "output", "parameters"};
        static const char *const io_names[5] = {".input", ".input", ".input", ".output", ".parameters"};
        for (int i = 0; i < 5 && rc == 0; i++) {
            const jval *part = json_get(value, io_keys[i]);
            if (!part)
                continue;
            f->prefix.len = keylen;
            sb_adds(&f->prefix, io_names[i]);
            rc = flatten(f, part, 0);
        }
    }
    if (rc == 0)
        rc = finish_entry(f, first);
    if (rc)
        return rc;
    for (size_t i = first; i < d->nrows; i++)
        d->rows[i].entry = (uint32_t)index;
    d->entries[index].first_row = first;
    d->entries[index].nrows = d->nrows - first;
    if (!added) {
        d->nentries--;
        f->dups = 1;
    }
    return 0;
}

/* After a repeated entry name the replaced rows are orphans: rebuild the
 * row array in entry order so that every consumer can walk rows directly. */
static void compact_rows(dump_data *d)
{
    size_t total = 0;
    for (size_t e = 0; e < d->nentries; e++)
        total += d->entries[e].nrows;
    dump_row *rows = xmalloc_array(total ? total : 1, sizeof *rows);
    size_t k = 0;
    for (size_t e = 0; e < d->nentries; e++) {
        memcpy(rows + k, d->rows + d->entries[e].first_row, d->entries[e].nrows * sizeof *rows);
        d->entries[e].first_row = k;
        k += d->entries[e].nrows;
    }
    free(d->rows);
    d->rows = rows;
    d->nrows = d->rows_cap = total;
}

/* The framework a "type": value at p (just after the colon) names, or 0.
 * Python reads the file with universal newlines, so '\r' ends a line and
 * \s* never crosses it; other whitespace is what valid JSON can hold. */
static int type_framework(const char *q, const char *end)
{
    while (q < end && (*q == ' ' || *q == '\t' || *q == '\f' || *q == '\v'))
        q++;
    if ((size_t)(end - q) >= 10 && !memcmp(q, "\"mindspore", 10))
        return 'm';
    if ((size_t)(end - q) >= 6 && !memcmp(q, "\"torch", 6))
        return 'p';
    return 0;
}

static void scan_framework(dump_data *d, const char *buf, size_t len)
{
    /* msprobe's fallback when "framework" is missing: the first line that
     * matches "type":\s*"mindspore or "type":\s*"torch decides, and on that
     * line mindspore is tested first (it wins even when torch comes
     * earlier, as on a one-line file). */
    const char *p = buf, *end = buf + len;
    while ((p = memmem(p, (size_t)(end - p), "\"type\":", 7)) != NULL) {
        int fw = type_framework(p + 7, end);
        if (fw == 'p') {
            const char *eol = p + 7;
            while (eol < end && *eol != '\n' && *eol != '\r')
                eol++;
            for (const char *q = p + 7; (q = memmem(q, (size_t)(eol - q), "\"type\":", 7)) != NULL; q += 7)
                if (type_framework(q + 7, eol) == 'm') {
                    fw = 'm';
                    break;
                }
        }
        if (fw) {
            d->framework_hint = fw;
            return;
        }
        p += 7;
    }
}

static char *json_string_copy(const jval *v)
{
    return v && v->type == J_STRING ? xstrndup(v->u.str, v->len) : NULL;
}

int dump_load(const char *path, dump_data *d)
{
    memset(d, 0, sizeof *d);
    d->path = xstrdup(path);
    char *base = path_basename(path);
    d->file_type = strcmp(base, "debug.json") == 0 ? DEBUG_JSON : DUMP_JSON;
    free(base);
    arena_init(&d->mem, 1 << 20);

    mapped_file map;
    if (file_map(path, 0, &map) != 0)
        return -1;
    if (map.size == 0) {
        file_unmap(&map);
        return err_input(path, "is empty");
    }
    flattener f = {.d = d, .prefix = STRBUF_INIT, .tmp = STRBUF_INIT};
    jparser jp;
    jp_init(&jp, path, map.data, map.size);
    arena scratch;
    arena_init(&scratch, 256 * 1024);
    strmap seen = {0};
    int rc = -1, have_data = 0;
    if (jp_peek(&jp) != '{') {
        if (jp_peek(&jp) < 0 || jp_skip(&jp) == 0)
            err_input(path, "is not a JSON object (expected {\"task\": ..., \"data\": {...}})");
        goto out;
    }
    jp_object_begin(&jp);
    for (;;) {
        const char *key;
        size_t keylen;
        int more = jp_object_next(&jp, &scratch, &key, &keylen);
        if (more < 0)
            goto out;
        if (!more)
            break;
        if (keylen == 4 && !memcmp(key, "data", 4)) {
            if (jp_peek(&jp) != '{') {
                if (jp_skip(&jp) == 0)
                    err_input(path, "'data' is not an object");
                goto out;
            }
            /* A repeated "data" key replaces the earlier one, as in Python. */
            d->nrows = d->nentries = 0;
            strmap_free(&seen);
            strmap_init(&seen, 1024);
            have_data = 1;
            jp_object_begin(&jp);
            arena entry_mem;
            arena_init(&entry_mem, 256 * 1024);
            for (;;) {
                const char *name;
                size_t namelen;
                int m = jp_object_next(&jp, &entry_mem, &name, &namelen);
                jval value;
                if (m > 0 && jp_value(&jp, &entry_mem, &value) != 0)
                    m = -1;
                if (m > 0 && add_entry(&f, &seen, name, namelen, &value) != 0)
                    m = -1;
                arena_reset(&entry_mem);
                if (m <= 0) {
                    arena_free(&entry_mem);
                    if (m < 0)
                        goto out;
                    break;
                }
            }
            continue;
        }
        jval v;
        if (jp_value(&jp, &scratch, &v) != 0)
            goto out;
        if (keylen == 4 && !memcmp(key, "task", 4)) {
            free(d->task);
            d->task = json_string_copy(&v);
            d->task_present = json_truthy(&v);
        } else if (keylen == 9 && !memcmp(key, "framework", 9)) {
            free(d->framework);
            d->framework = json_string_copy(&v);
        }
    }
    if (jp_end(&jp) != 0)
        goto out;
    if (!have_data) {
        err_input(path, "has no 'data' object: not a msprobe dump file");
        goto out;
    }
    if (f.dups)
        compact_rows(d);
    for (size_t e = 0; e < d->nentries && !d->has_md5; e++)
        d->has_md5 = f.md5[e];
    if (!d->framework || (strcmp(d->framework, "pytorch") != 0 && strcmp(d->framework, "mindspore") != 0))
        scan_framework(d, (const char *)map.data, map.size);
    rc = 0;
out:
    strmap_free(&seen);
    arena_free(&scratch);
    jp_free(&jp);
    sb_free(&f.prefix);
    sb_free(&f.tmp);
    free(f.md5);
    file_unmap(&map);
    return rc;
}

int dump_framework(const dump_data *d)
{
    if (d->framework && !strcmp(d->framework, "pytorch"))
        return 'p';
    if (d->framework && !strcmp(d->framework, "mindspore"))
        return 'm';
    return d->framework_hint;
}

void dump_free(dump_data *d)
{
    free(d->path);
    free(d->task);
    free(d->framework);
    free(d->rows);
    free(d->entries);
    arena_free(&d->mem);
    memset(d, 0, sizeof *d);
}
