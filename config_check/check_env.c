/* The env and pip checkers (spec/configcheck.md §A.6.1, §A.6.2). */
#include "config_check/pack.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "py/pyeq.h"
#include "py/pystr.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* msprobe's resource/env.yaml, in its order: per entry the variable of an
 * NPU and of a GPU environment with the default taken when it is unset.
 * (HCCL_INTRA_PICE_ENABLE's NPU name really is HCCL_INTRA_ROCE_ENABLE.) */
enum { D_BOOL_FALSE, D_INT0, D_INT1, D_NONE };
static const struct {
    const char *npu, *gpu; /* NULL: none on that device */
    int npu_def, gpu_def;
} env_table[] = {
    {"HCCL_DETERMINISTIC", "NCCL_DETERMINISTIC", D_BOOL_FALSE, D_BOOL_FALSE},
    {"HCCL_ALGO", "NCCL_ALGO", D_NONE, D_NONE},
    {"HCCL_INTRA_ROCE_ENABLE", NULL, D_INT0, 0},
    {"HCCL_INTRA_ROCE_ENABLE", NULL, D_INT1, 0},
    {"ASCEND_LAUNCH_BLOCKING", "CUDA_LAUNCH_BLOCKING", D_INT0, D_INT0},
    {"ASCEND_RT_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", D_NONE, D_NONE},
};

static const char *const env_header[] = {"bench_env_name", "cmp_env_name", "bench_value", "cmp_value", "level"};

/* A default as the value YAML gives it: False, 0, 1, or the string "None". */
static jval default_value(int d)
{
    jval v;
    memset(&v, 0, sizeof v);
    if (d == D_BOOL_FALSE) {
        v.type = J_FALSE;
    } else if (d == D_NONE) {
        v.type = J_STRING;
        v.u.str = "None";
        v.len = 4;
    } else {
        v.type = J_NUMBER;
        v.is_int = 1;
        v.u.num = d == D_INT1;
        v.text = d == D_INT1 ? "1" : "0";
        v.len = 1;
    }
    return v;
}

/* The two values the same setting? msprobe compares the environment's text
 * with the typed default by Python ==, so "0" differs from 0 and "False"
 * from False; we compare what they say: the same str(), or the same number,
 * or -- against a bool -- the same word in any case ("false" is False). */
static int env_equal(const jval *a, const jval *b)
{
    if (py_json_equal(a, b))
        return 1;
    strbuf x = STRBUF_INIT, y = STRBUF_INIT;
    py_str_json(&x, a);
    py_str_json(&y, b);
    int eq = x.len == y.len && !memcmp(sb_str(&x), sb_str(&y), x.len);
    if (!eq && x.len == y.len && (a->type == J_TRUE || a->type == J_FALSE || b->type == J_TRUE || b->type == J_FALSE))
        eq = !strcasecmp(sb_str(&x), sb_str(&y));
    sb_free(&x);
    sb_free(&y);
    return eq;
}

static int load_object(cc_ctx *c, pack *p, const char *name, jval *out)
{
    const zip_entry *e = pack_file(p, name);
    if (!e)
        return err_input(p->path, "'%s' is a folder in the pack, not a file", name);
    if (pack_json(p, e, c->a, out) != 0)
        return -1;
    if (out->type != J_OBJECT)
        return err_input(pack_where(p, name, strlen(name), c->a), "is not a JSON object");
    return 0;
}

/* Device type of an environment: npu when a variable's name contains ASCEND. */
static int is_npu(const jval *env)
{
    for (uint32_t i = 0; i < env->len; i++)
        if (memmem(env->u.members[i].key, env->u.members[i].keylen, "ASCEND", 6))
            return 1;
    return 0;
}

int check_env(cc_ctx *c, cc_sheet *out)
{
    if (!pack_exists(c->bench, "env") || !pack_exists(c->cmp, "env"))
        return 0;
    jval benv, cenv;
    if (load_object(c, c->bench, "env", &benv) != 0 || load_object(c, c->cmp, "env", &cenv) != 0)
        return -1;
    sheet_init(out, "env", env_header, 5);
    int bnpu = is_npu(&benv), cnpu = is_npu(&cenv);
    for (size_t i = 0; i < sizeof env_table / sizeof env_table[0]; i++) {
        const char *bname = bnpu ? env_table[i].npu : env_table[i].gpu;
        const char *cname = cnpu ? env_table[i].npu : env_table[i].gpu;
        int bdef = bnpu ? env_table[i].npu_def : env_table[i].gpu_def;
        int cdef = cnpu ? env_table[i].npu_def : env_table[i].gpu_def;
        if (!bname && !cname)
            continue;
        jval bd = default_value(bdef), cd = default_value(cdef);
        const jval *bv = bname ? json_get(&benv, bname) : NULL, *cv = cname ? json_get(&cenv, cname) : NULL;
        cell row[5];
        if (bname) {
            /* the bench's variable (its default when unset, even when set empty) */
            if (!bv)
                bv = &bd;
            if (!cname) {
                row[0] = cc_text(c, bname, strlen(bname));
                row[1] = cc_text(c, "only bench has this env", 23);
                row[2] = cc_value(c, bv);
                row[3] = cc_text(c, "", 0);
                row[4] = cc_text(c, "warning", 7);
                sheet_row(out, row);
                continue;
            }
            if (!cv)
                cv = &cd;
            if (env_equal(bv, cv))
                continue;
            row[0] = cc_text(c, bname, strlen(bname));
            row[1] = cc_text(c, cname, strlen(cname));
            row[2] = cc_value(c, bv);
            row[3] = cc_value(c, cv);
            row[4] = cc_text(c, "error", 5);
            out->pass = 0;
        } else {
            /* only the comparison's device has it: its value when set and
             * not empty, else its default */
            if (!cv || !json_truthy(cv))
                cv = &cd;
            row[0] = cc_text(c, "only cmp has this env", 21);
            row[1] = cc_text(c, cname, strlen(cname));
            row[2] = cc_text(c, "", 0);
            row[3] = cc_value(c, cv);
            row[4] = cc_text(c, "warning", 7);
        }
        sheet_row(out, row);
    }
    return 1;
}

/* ---- pip ------------------------------------------------------------------ */

static const char *const pip_header[] = {"package", "bench version", "cmp version", "level"};

/* The packages msprobe's resource/dependency.yaml lists, then the
 * framework given with -f (8.1.0 appends it: "pytorch" never names a
 * distribution, "mindspore" does). */
static const char *const dependencies[] = {"transformers", "deepspeed", "megatron", "numpy", "datasets", "peft"};

typedef struct {
    const char *name, *version;
    size_t nlen, vlen;
} pip_line;

static int is_py_space(unsigned char ch) { return ch == ' ' || (ch >= 0x09 && ch <= 0x0d) || (ch >= 0x1c && ch <= 0x1f); }

/* load_pip_txt: each line stripped and split on '=': the name, and the
 * version when there are exactly two parts (else ""); later lines win. */
static size_t parse_pip(const char *s, size_t n, pip_line **out)
{
    size_t k = 0, cap = 0;
    *out = NULL;
    for (size_t i = 0; i < n;) {
        size_t e = i;
        /* Python's text mode ends lines at \n, \r\n and \r */
        while (e < n && s[e] != '\n' && s[e] != '\r')
            e++;
        size_t b = i, f = e;
        while (b < f && is_py_space((unsigned char)s[b]))
            b++;
        while (f > b && is_py_space((unsigned char)s[f - 1]))
            f--;
        const char *eq = memchr(s + b, '=', f - b);
        pip_line l = {s + b, "", eq ? (size_t)(eq - (s + b)) : f - b, 0};
        if (eq && !memchr(eq + 1, '=', (size_t)(s + f - (eq + 1)))) {
            l.version = eq + 1;
            l.vlen = (size_t)(s + f - (eq + 1));
        }
        GROW(*out, cap, k + 1);
        (*out)[k++] = l;
        i = e < n && s[e] == '\r' && e + 1 < n && s[e + 1] == '\n' ? e + 2 : e + 1;
    }
    return k;
}

/* The version of a package (the last line naming it), NULL when none. */
static const pip_line *pip_get(const pip_line *v, size_t n, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = n; i-- > 0;)
        if (v[i].nlen == len && !memcmp(v[i].name, name, len))
            return &v[i];
    return NULL;
}

static int load_pip(cc_ctx *c, pack *p, const unsigned char **d, size_t *n, void **owned)
{
    const zip_entry *e = pack_file(p, "pip");
    if (!e)
        return err_input(p->path, "'pip' is a folder in the pack, not a file");
    return pack_read(p, e, d, n, owned);
}

int check_pip(cc_ctx *c, cc_sheet *out)
{
    if (!pack_exists(c->bench, "pip") || !pack_exists(c->cmp, "pip"))
        return 0;
    const unsigned char *bd, *cd;
    size_t bn, cn;
    void *bo = NULL, *co = NULL;
    if (load_pip(c, c->bench, &bd, &bn, &bo) != 0)
        return -1;
    if (load_pip(c, c->cmp, &cd, &cn, &co) != 0) {
        free(bo);
        return -1;
    }
    pip_line *bl, *cl;
    size_t nb = parse_pip((const char *)bd, bn, &bl), nc = parse_pip((const char *)cd, cn, &cl);
    sheet_init(out, "pip", pip_header, 4);
    size_t ndeps = sizeof dependencies / sizeof dependencies[0];
    for (size_t i = 0; i <= ndeps; i++) {
        const char *pkg = i < ndeps ? dependencies[i] : c->framework == 'm' ? "mindspore" : "pytorch";
        const pip_line *b = pip_get(bl, nb, pkg), *m = pip_get(cl, nc, pkg);
        /* None (not listed) and a version compare as Python values */
        int same = (!b && !m) || (b && m && b->vlen == m->vlen && !memcmp(b->version, m->version, b->vlen));
        if (same)
            continue;
        cell row[4];
        row[0] = cc_text(c, pkg, strlen(pkg));
        row[1] = b && b->vlen ? cc_text(c, b->version, b->vlen) : cc_text(c, "None", 4);
        row[2] = m && m->vlen ? cc_text(c, m->version, m->vlen) : cc_text(c, "None", 4);
        row[3] = cc_text(c, "error", 5);
        sheet_row(out, row);
        out->pass = 0;
    }
    free(bl);
    free(cl);
    free(bo);
    free(co);
    return 1;
}
