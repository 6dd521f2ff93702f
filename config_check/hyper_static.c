/* Static hyper-parameters of a pack: msprobe 8.1.0's ShellParser and
 * YamlParser and its update_dict (spec/configcheck.md §A.4.3-§A.4.5).
 *
 * The shell parser is a set of Python regular expressions in msprobe; each
 * is scanned here by hand with the same semantics (leftmost match, greedy
 * or lazy as written, `.` with or without DOTALL), because POSIX regex has
 * neither lazy quantifiers nor \s / \w. */
#include "config_check/hyper.h"
#include "base/mem.h"
#include "format/jsonw.h"
#include "format/yaml_read.h"
#include "py/pyeq.h"

#include <stdlib.h>
#include <string.h>

void hp_init(hp_dict *d, arena *a)
{
    memset(d, 0, sizeof *d);
    d->a = a;
    strmap_init(&d->idx, 64);
}

void hp_free(hp_dict *d)
{
    free(d->m);
    strmap_free(&d->idx);
    memset(d, 0, sizeof *d);
}

const jval *hp_get(const hp_dict *d, const char *key, size_t len)
{
    const size_t *k = strmap_get(&d->idx, key, len);
    return k ? &d->m[*k].val : NULL;
}

void hp_set(hp_dict *d, const char *key, size_t len, const jval *v)
{
    size_t *k = strmap_get(&d->idx, key, len);
    if (k) {
        d->m[*k].val = *v;
        return;
    }
    GROW(d->m, d->cap, d->n + 1);
    char *kc = arena_strndup(d->a, key, len);
    d->m[d->n] = (jmember){kc, (uint32_t)len, *v};
    int added;
    strmap_put(&d->idx, kc, len, d->n, &added);
    d->n++;
}

static jval str_val(arena *a, const char *s, size_t n)
{
    jval v;
    memset(&v, 0, sizeof v);
    v.type = J_STRING;
    v.u.str = arena_strndup(a, s, n);
    v.len = (uint32_t)n;
    return v;
}

/* ---- Python's \s and \w ---------------------------------------------------- */

/* str.isspace / \s on the ASCII range (where scripts live). */
static int py_space(unsigned char c) { return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f); }
/* \w: letters, digits, '_'; bytes of non-ASCII characters count as word
 * characters (most are letters). */
static int py_word(unsigned char c)
{
    return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}
static int ident_char(unsigned char c) { return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* ---- the shell parser ---------------------------------------------------- */

/* Lines without comments: a line whose first non-blank is '#' goes; any
 * other is cut at its first '#', stripped at the end and kept when
 * something remains. Python reads the file in text mode: \r\n and \r end
 * lines too. */
static void strip_comments(const char *s, size_t n, strbuf *out)
{
    for (size_t i = 0; i < n;) {
        size_t e = i;
        while (e < n && s[e] != '\n' && s[e] != '\r')
            e++;
        size_t b = i;
        while (b < e && py_space((unsigned char)s[b]))
            b++;
        if (!(b < e && s[b] == '#')) {
            const char *hash = memchr(s + i, '#', e - i);
            size_t f = hash ? (size_t)(hash - s) : e;
            while (f > i && py_space((unsigned char)s[f - 1]))
                f--;
            size_t k = i;
            while (k < f && py_space((unsigned char)s[k]))
                k++;
            if (k < f) {
                sb_add(out, s + i, f - i);
                sb_addc(out, '\n');
            }
        }
        i = e < n && s[e] == '\r' && e + 1 < n && s[e + 1] == '\n' ? e + 2 : e + 1;
    }
}

/* Does `msrun\s`, `torchrun\s` or `python\d? -m torch.distributed.launch\s`
 * (any character for each '.') start at s[i]? The length of the keyword
 * part, or 0. */
static size_t launcher_at(const char *s, size_t n, size_t i)
{
    static const char *const kw[] = {"msrun", "torchrun"};
    for (int k = 0; k < 2; k++) {
        size_t l = strlen(kw[k]);
        if (i + l < n && !memcmp(s + i, kw[k], l) && py_space((unsigned char)s[i + l]))
            return l + 1;
    }
    if (i + 6 > n || memcmp(s + i, "python", 6))
        return 0;
    static const char tail[] = " -m torch.distributed.launch";
    for (int digit = 1; digit >= 0; digit--) {
        size_t p = i + 6;
        if (digit) {
            if (p >= n || s[p] < '0' || s[p] > '9')
                continue;
            p++;
        }
        size_t t = 0;
        while (tail[t] && p + t < n && (tail[t] == '.' || s[p + t] == tail[t]))
            t++;
        if (!tail[t] && p + t < n && py_space((unsigned char)s[p + t]))
            return p + t + 1 - i;
    }
    return 0;
}

/* Replace every occurrence of `from` in *cmd by `to`. */
static void replace_all(strbuf *cmd, const char *from, size_t fl, const char *to, size_t tl)
{
    if (!fl)
        return;
    strbuf r = STRBUF_INIT;
    for (size_t i = 0; i < cmd->len;) {
        if (i + fl <= cmd->len && !memcmp(cmd->buf + i, from, fl)) {
            sb_add(&r, to, tl);
            i += fl;
        } else {
            sb_addc(&r, cmd->buf[i++]);
        }
    }
    sb_free(cmd);
    *cmd = r;
}

/* re.findall(r'([a-zA-Z0-9_]{1,20}_ARGS)="(.*?)"', script, re.DOTALL): for
 * each block, its newlines become spaces and "$NAME" is replaced by it. */
static void substitute_blocks(const char *s, size_t n, strbuf *cmd)
{
    for (size_t p = 0; p < n;) {
        /* the longest run of name characters (at most 20) from p followed by
         * _ARGS=" -- the regex's greedy {1,20} backtracking */
        size_t run = 0;
        while (p + run < n && ident_char((unsigned char)s[p + run]))
            run++;
        size_t found = 0;
        for (size_t l = run < 20 ? run : 20; l >= 1 && !found; l--)
            if (p + l + 7 <= n && !memcmp(s + p + l, "_ARGS=\"", 7))
                found = l;
        if (!found) {
            p++;
            continue;
        }
        size_t name_end = p + found + 5, body = name_end + 2;
        const char *q = memchr(s + body, '"', n - body);
        if (!q) {
            p++;
            continue;
        }
        strbuf text = STRBUF_INIT, var = STRBUF_INIT;
        for (const char *c = s + body; c < q; c++)
            sb_addc(&text, *c == '\n' ? ' ' : *c);
        sb_addc(&var, '$');
        sb_add(&var, s + p, name_end - p);
        replace_all(cmd, var.buf, var.len, text.buf ? text.buf : "", text.len);
        sb_free(&text);
        sb_free(&var);
        p = (size_t)(q - s) + 1;
    }
}

/* The value of $VAR / ${VAR} from the script: the last of
 * re.findall(VAR + r'=\s*(.+)', script); NULL when none. */
static int lookup_var(const char *s, size_t n, const char *var, size_t vl, const char **val, size_t *len)
{
    int found = 0;
    for (size_t i = 0; i + vl < n;) {
        if (memcmp(s + i, var, vl) || s[i + vl] != '=') {
            i++;
            continue;
        }
        size_t j = i + vl + 1, k = j;
        while (k < n && py_space((unsigned char)s[k]))
            k++;
        if (k == n) {
            /* \s* gives back whitespace until (.+) has a character */
            while (k > j && s[k - 1] == '\n')
                k--;
            if (k == j) {
                i++;
                continue;
            }
            k--;
        }
        size_t e = k;
        while (e < n && s[e] != '\n')
            e++;
        *val = s + k;
        *len = e - k;
        found = 1;
        i = e;
    }
    return found;
}

void shell_parse(const char *text, size_t n, hp_dict *out)
{
    strbuf script = STRBUF_INIT, cmd = STRBUF_INIT;
    strip_comments(text, n, &script);
    const char *s = script.buf ? script.buf : "";
    size_t sn = script.len;
    size_t at = 0, kl = 0;
    while (at < sn && !(kl = launcher_at(s, sn, at)))
        at++;
    if (!kl)
        goto done;
    size_t end = at;
    while (end < sn && s[end] != '|')
        end++;
    sb_add(&cmd, s + at, end - at);
    substitute_blocks(s, sn, &cmd);
    /* re.findall(r'--([\w-]+)(?:\s+([^\s\\]+))?', command) */
    const char *c = cmd.buf;
    size_t cn = cmd.len;
    for (size_t i = 0; i + 2 < cn + 1;) {
        if (!(i + 2 < cn && c[i] == '-' && c[i + 1] == '-' && (py_word((unsigned char)c[i + 2]) || c[i + 2] == '-'))) {
            i++;
            continue;
        }
        size_t k = i + 2;
        while (k < cn && (py_word((unsigned char)c[k]) || c[k] == '-'))
            k++;
        const char *key = c + i + 2;
        size_t keylen = k - (i + 2);
        size_t w = k;
        while (w < cn && py_space((unsigned char)c[w]))
            w++;
        size_t v = w;
        while (v < cn && !py_space((unsigned char)c[v]) && c[v] != '\\')
            v++;
        const char *val = "";
        size_t vlen = 0;
        if (w > k && v > w) {
            val = c + w;
            vlen = v - w;
            i = v;
        } else {
            i = k;
        }
        /* re.match(r'\$\{?(\w+)}?', value): a variable to look up */
        if (vlen >= 2 && val[0] == '$') {
            size_t b = 1 + (val[1] == '{'), e = b;
            while (e < vlen && py_word((unsigned char)val[e]))
                e++;
            const char *found;
            size_t flen;
            if (e > b && lookup_var(s, sn, val + b, e - b, &found, &flen)) {
                val = found;
                vlen = flen;
            }
        }
        jval x;
        if (vlen) {
            x = str_val(out->a, val, vlen);
        } else {
            memset(&x, 0, sizeof x);
            x.type = J_TRUE;
        }
        hp_set(out, key, keylen, &x);
    }
done:
    sb_free(&script);
    sb_free(&cmd);
}

/* ---- yaml --------------------------------------------------------------- */

static void flatten(const jval *v, const char *prefix, size_t plen, hp_dict *d, strbuf *tmp)
{
    switch (v->type) {
    case J_OBJECT:
        for (uint32_t i = 0; i < v->len; i++) {
            const jmember *m = &v->u.members[i];
            strbuf key = STRBUF_INIT;
            if (plen) {
                sb_add(&key, prefix, plen);
                sb_addc(&key, '.');
            }
            sb_add(&key, m->key, m->keylen);
            flatten(&m->val, key.buf, key.len, d, tmp);
            sb_free(&key);
        }
        break;
    case J_ARRAY:
        for (uint32_t i = 0; i < v->len; i++)
            flatten(&v->u.items[i], prefix, plen, d, tmp);
        break;
    case J_TRUE:
    case J_FALSE:
        hp_set(d, prefix ? prefix : "", plen, v);
        break;
    case J_NUMBER:
        /* ints only: 8.1.0 keeps int, str and bool */
        if (v->is_int)
            hp_set(d, prefix ? prefix : "", plen, v);
        break;
    case J_STRING:
        /* a yaml date is no str in Python: dropped */
        if (!yaml_is_timestamp(v))
            hp_set(d, prefix ? prefix : "", plen, v);
        break;
    default:
        break;
    }
}

void yaml_flatten(const jval *doc, hp_dict *shared)
{
    strbuf tmp = STRBUF_INIT;
    flatten(doc, NULL, 0, shared, &tmp);
    sb_free(&tmp);
}

/* ---- update_dict and json -------------------------------------------------- */

static int is_dup_record(const jval *v)
{
    const jval *d = json_get(v, "description"), *vals = json_get(v, "values");
    return d && json_str_eq(d, "duplicate_value") && vals && vals->type == J_ARRAY;
}

void hp_update(hp_dict *acc, const hp_dict *add)
{
    for (size_t i = 0; i < add->n; i++) {
        /* msprobe looks for a top-level "values" key at every item */
        int has_values_key = hp_get(acc, "values", 6) != NULL;
        const jmember *m = &add->m[i];
        const jval *old = hp_get(acc, m->key, m->keylen);
        if (!old || py_json_equal(old, &m->val)) {
            hp_set(acc, m->key, m->keylen, &m->val);
            continue;
        }
        jval rec;
        memset(&rec, 0, sizeof rec);
        if (has_values_key && is_dup_record(old)) {
            /* 8.1.0 appends here only because it tests the wrong dict for a
             * "values" key (and crashes when the value is no record); a
             * record takes the new value */
            const jval *vals = json_get(old, "values");
            jval *items = arena_alloc(acc->a, (vals->len + 1) * sizeof *items);
            memcpy(items, vals->u.items, vals->len * sizeof *items);
            items[vals->len] = m->val;
            rec = *old;
            jmember *mem = arena_alloc(acc->a, rec.len * sizeof *mem);
            memcpy(mem, old->u.members, rec.len * sizeof *mem);
            for (uint32_t k = 0; k < rec.len; k++)
                if (mem[k].keylen == 6 && !memcmp(mem[k].key, "values", 6)) {
                    mem[k].val.u.items = items;
                    mem[k].val.len = vals->len + 1;
                }
            rec.u.members = mem;
        } else {
            jmember *mem = arena_alloc(acc->a, 2 * sizeof *mem);
            jval *items = arena_alloc(acc->a, 2 * sizeof *items);
            items[0] = *old;
            items[1] = m->val;
            mem[0] = (jmember){"description", 11, str_val(acc->a, "duplicate_value", 15)};
            memset(&mem[1], 0, sizeof mem[1]);
            mem[1].key = "values";
            mem[1].keylen = 6;
            mem[1].val.type = J_ARRAY;
            mem[1].val.u.items = items;
            mem[1].val.len = 2;
            rec.type = J_OBJECT;
            rec.u.members = mem;
            rec.len = 2;
        }
        hp_set(acc, m->key, m->keylen, &rec);
    }
}

void hp_json(const hp_dict *d, strbuf *sb)
{
    jval obj;
    memset(&obj, 0, sizeof obj);
    obj.type = J_OBJECT;
    obj.u.members = d->m;
    obj.len = (uint32_t)d->n;
    jsonw_value(sb, &obj, 4, 0);
}
