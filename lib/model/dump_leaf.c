/* One entry's value of dump.json turned into rows: msprobe's op_item_parse()
 * and gen_op_item() (spec/compare.md §3.2, §3.3), and with DUMP_FIRST_DIFF
 * msprobe 8.3's variant of them (spec/analyzers.md §C.2). */
#include "model/dump_leaf.h"
#include "base/err.h"
#include "base/mem.h"
#include "py/pdnum.h"
#include "py/pystr.h"
#include "base/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int dump_has_component(const char *s, size_t n, const char *comp)
{
    /* memmem finds candidates fast (most names hold none); a candidate
     * counts when dots or the ends bound it */
    size_t cl = strlen(comp);
    const char *p = s, *end = s + n;
    while ((size_t)(end - p) >= cl) {
        const char *hit = memmem(p, (size_t)(end - p), comp, cl);
        if (!hit)
            return 0;
        if ((hit == s || hit[-1] == '.') && (hit + cl == end || hit[cl] == '.'))
            return 1;
        p = hit + 1;
    }
    return 0;
}

static char *mem_str(dump_data *d, const char *s, size_t n)
{
    return arena_strndup(&d->mem, s, n);
}

static char *mem_sb(dump_data *d, strbuf *sb)
{
    return arena_strndup(&d->mem, sb->buf ? sb->buf : "", sb->len);
}

/* A dtype or shape text: a dump has few distinct ones, each held once. */
static const char *intern_sb(flattener *f, strbuf *sb)
{
    dump_data *d = f->d;
    const char *s = sb->buf ? sb->buf : "";
    size_t n = sb->len;
    uint64_t w = 0;
    memcpy(&w, n >= 8 ? s + n - 8 : s, n >= 8 ? 8 : n);
    unsigned slot = (unsigned)(((w ^ n) * 0x9E3779B97F4A7C15ULL) >> 58);
    const char *hit = f->recent[slot];
    if (hit && f->recent_len[slot] == n && !memcmp(hit, s, n))
        return hit;
    size_t *v = strmap_get(&d->interned, s, n);
    const char *r;
    if (v) {
        r = (const char *)(uintptr_t)*v;
    } else {
        char *copy = arena_strndup(&d->mem, s, n);
        strmap_put(&d->interned, copy, n, (size_t)(uintptr_t)copy, NULL);
        r = copy;
    }
    f->recent[slot] = r;
    f->recent_len[slot] = (uint32_t)n;
    return r;
}

/* A statistic kept as its kind and number alone: None, a bool, a float
 * (whose pandas value is itself). */
static int packable(const pyval *v)
{
    /* what dump_stat() gives back for a packed kind and number */
    if ((v->kind != PV_NONE && v->kind != PV_BOOL && v->kind != PV_FLOAT) || v->wide_int || v->len || v->text)
        return 0;
    int is_float = v->kind == PV_FLOAT;
    double pd = is_float ? v->num : 0.0;
    return v->pd_ok == is_float && !memcmp(&v->pd_num, &pd, sizeof pd);
}

void dump_set_stats(dump_row *r, const pyval st[4], arena *mem)
{
    int packed = 1;
    for (int k = 0; k < 4; k++)
        packed &= packable(&st[k]);
    if (packed) {
        r->stat_ext = NULL;
        for (int k = 0; k < 4; k++) {
            r->stat_kind[k] = st[k].kind;
            r->stat_num[k] = st[k].num;
        }
        return;
    }
    pyval *ext = arena_alloc(mem, 4 * sizeof *ext);
    memcpy(ext, st, 4 * sizeof *ext);
    r->stat_ext = ext;
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
            /* the digits, for writing a big int exactly ("-0" loads as 0) */
            out->text = out->num == 0 ? "0" : mem_str(f->d, v->text, v->len);
            out->len = out->num == 0 ? 1 : v->len;
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

dump_row *dump_new_row(dump_data *d)
{
    GROW(d->rows, d->rows_cap, d->nrows + 1);
    dump_row *r = &d->rows[d->nrows++];
    memset(r, 0, sizeof *r);
    r->entry = (uint32_t)d->nentries - 1;
    return r;
}

void dump_add_index(strbuf *sb, uint32_t i)
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

/* msprobe 8.3 turns a missing statistic into the text "None" (so that
 * pandas keeps it apart from NaN), and, like every bool of a leaf, a bool
 * statistic read from the leaf into "True"/"False". */
static void first_diff_stats(flattener *f, pyval *st, int from_leaf_keys)
{
    for (int i = 0; i < 4; i++) {
        pyval *v = &st[i];
        if (v->kind == PV_NONE)
            pyval_str_copy(f, "None", v);
        else if (v->kind == PV_BOOL && from_leaf_keys)
            pyval_str_copy(f, v->num ? "True" : "False", v);
    }
}

/* A null item: a row with every field None (msprobe's default_item). */
void dump_null_row(flattener *f)
{
    dump_row *r = dump_new_row(f->d);
    r->state = f->parse_state;
    if (f->on_row)
        f->on_row(f->on_row_ctx, NULL);
    r->name = mem_sb(f->d, &f->prefix);
    r->dtype = "None";
    r->shape = "None";
    r->md5 = NULL;
    r->data_name = "-1";
    pyval st[4];
    memset(st, 0, sizeof st);
    if (f->first_diff)
        first_diff_stats(f, st, 0);
    dump_set_stats(r, st, &f->d->mem);
}

/* msprobe 8.3: an argument named src, dst, group_src or group_dst (the last
 * component of the row's place) holds a rank. */
static int names_a_rank(const strbuf *prefix)
{
    const char *dot = memrchr(prefix->buf, '.', prefix->len);
    const char *last = dot ? dot + 1 : prefix->buf;
    size_t n = prefix->len - (size_t)(last - prefix->buf);
    return (n == 3 && (!memcmp(last, "src", 3) || !memcmp(last, "dst", 3))) ||
           (n == 9 && (!memcmp(last, "group_src", 9) || !memcmp(last, "group_dst", 9)));
}

/* msprobe's gen_op_item(): one leaf dict (it has a string "type"). */
/* The members of a leaf that compare reads, found in one pass (a later
 * duplicate key wins, as in a Python dict). */
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
        case 13:
            if (!memcmp(k, "requires_grad", 13))
                lf->requires_grad = v;
            break;
        }
    }
}

static int leaf_row(flattener *f, const jval *leaf)
{
    dump_row *r = dump_new_row(f->d);
    r->state = f->parse_state;
    if (f->on_row)
        f->on_row(f->on_row_ctx, leaf);
    leaf_fields lf;
    leaf_scan(leaf, &lf);
    return dump_leaf_fields_row(f, r, &lf);
}

int dump_leaf_fields_row(flattener *f, dump_row *r, const leaf_fields *leaf)
{
    dump_data *d = f->d;
    const leaf_fields lf = *leaf;
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
    pyval st[4];
    for (int i = 0; i < 4; i++)
        to_pyval(f, lf.stat[i], &st[i]);
    if (lf.requires_grad && (lf.requires_grad->type == J_TRUE || lf.requires_grad->type == J_FALSE))
        r->flags |= (uint8_t)(ROW_RG_SET | (lf.requires_grad->type == J_TRUE ? ROW_RG_TRUE : 0));
    const char *md5_text = NULL;   /* msprobe 8.3's md5 of rank arguments and groups */
    int from_leaf_keys = 1;

    const jval *dtype = lf.dtype;
    const jval *value = lf.value;
    if (json_truthy(dtype)) {
        sb_reset(&f->tmp);
        py_str_json(&f->tmp, dtype);
        r->dtype = intern_sb(f, &f->tmp);
        const jval *shape = lf.shape;
        sb_reset(&f->tmp);
        if (shape)
            py_str_json(&f->tmp, shape);
        else
            sb_adds(&f->tmp, "None");
        r->shape = intern_sb(f, &f->tmp);
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
        } else if (f->newer_rows && names_a_rank(&f->prefix)) {
            /* (a P2POp's tensor need not have a "type") */
            r->dtype = type && type->type == J_STRING ? mem_str(d, type->u.str, type->len) : "None";
            sb_adds(&f->tmp, "[]");
            strbuf text = STRBUF_INIT;
            if (value)
                py_str_json(&text, value);
            else
                sb_adds(&text, "None");
            for (int i = 0; i < 4; i++)
                pyval_str_copy(f, sb_str(&text), &st[i]);
            md5_text = st[0].text;
            from_leaf_keys = 0;
            sb_free(&text);
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
                pyval_str_copy(f, sb_str(&ranks), &st[i]);
            if (f->newer_rows)
                md5_text = st[0].text;
            sb_free(&ranks);
        } else {
            r->dtype = py_type_name(value);
            sb_adds(&f->tmp, "[]");
            value_stats = 1;
        }
        r->shape = intern_sb(f, &f->tmp);
        /* after the shape: to_pyval() reuses f->tmp */
        if (value_stats) {
            for (int i = 0; i < 4; i++)
                to_pyval(f, value, &st[i]);
            from_leaf_keys = 0;
            r->flags |= ROW_VALUE_STATS;
        }
    }
    if (f->first_diff)
        first_diff_stats(f, st, from_leaf_keys);
    dump_set_stats(r, st, &d->mem);

    const jval *md5 = lf.md5;
    sb_reset(&f->tmp);
    if (md5_text) {
        sb_adds(&f->tmp, md5_text);
    } else if (json_truthy(md5)) {
        py_str_json(&f->tmp, md5);
    } else if (!value) {
        /* a tensor: the CRC-32 of the empty text, on most rows */
        r->md5 = "00000000";
        return 0;
    } else {
        /* msprobe: CRC-32 of str(value) (empty text when there is no value). */
        strbuf text = STRBUF_INIT;
        if (value)
            py_str_json(&text, value);
        uLong crc = crc32(0L, (const Bytef *)(text.buf ? text.buf : ""), (uInt)text.len);
        add_crc_hex(&f->tmp, crc);
        int empty = text.len == 0;
        sb_free(&text);
        /* a tensor (no value): the CRC of the empty text, on most rows */
        if (empty) {
            r->md5 = "00000000";
            return 0;
        }
    }
    r->md5 = mem_sb(d, &f->tmp);
    return 0;
}

static int is_leaf(const jval *v)
{
    const jval *t = json_get(v, "type");
    return t && t->type == J_STRING;
}

/* msprobe 8.3 (first-diff): a P2POp of batch_isend_irecv is one row with its
 * tensor's fields, plus its op and peer. 8.3 knows only PyTorch's class; a
 * MindSpore P2POp is the same thing, so it counts too. */
static int is_p2pop(const flattener *f, const jval *v)
{
    const jval *c = json_get(v, "class_type");
    return json_str_eq(c, "torch.distributed.P2POp") ||
           (f->first_diff && json_str_eq(c, "mindspore.mint.distributed.P2POp"));
}

static int p2p_row(flattener *f, const jval *v)
{
    dump_data *d = f->d;
    const jval *tensor = json_get(v, "tensor");
    if (tensor && tensor->type == J_OBJECT) {
        if (leaf_row(f, tensor) != 0)
            return -1;
    } else {
        dump_null_row(f);
    }
    GROW(d->p2p, d->p2p_cap, d->np2p + 1);
    dump_p2p *p = &d->p2p[d->np2p++];
    to_pyval(f, json_get(v, "op"), &p->op);
    to_pyval(f, json_get(v, "peer"), &p->peer);
    d->rows[d->nrows - 1].p2p = (uint32_t)d->np2p;
    return 0;
}

/* msprobe's op_item_parse(). */
int dump_flatten(flattener *f, const jval *v, int depth)
{
    if (depth > FLATTEN_MAX_DEPTH)
        return err_input(f->d->path, "parse of api/module of %s exceeds the recursion limit.", sb_str(&f->prefix));
    if (v->type == J_NULL) {
        dump_null_row(f);
        return 0;
    }
    if (!json_truthy(v))
        return 0;
    size_t keep = f->prefix.len;
    if (v->type == J_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++) {
            if (!f->in_params_grad)
                dump_add_index(&f->prefix, i);
            int rc = dump_flatten(f, &v->u.items[i], depth + 1);
            f->prefix.len = keep;
            f->prefix.buf[keep] = 0;
            if (rc)
                return rc;
        }
    } else if (v->type == J_OBJECT) {
        if ((f->newer_rows || f->p2pop_row) && is_p2pop(f, v))
            return p2p_row(f, v);
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
            f->in_params_grad |= dump_has_component(m->key, m->keylen, "parameters_grad");
            int rc = dump_flatten(f, item, depth + 1);
            f->in_params_grad = was;
            f->prefix.len = keep;
            f->prefix.buf[keep] = 0;
            if (rc)
                return rc;
        }
    }
    return 0;
}
