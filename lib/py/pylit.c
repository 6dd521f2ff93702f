/* Python dict literals read back into leaves (pylit.h). A first pass
 * checks the whole text (nothing is reported for a text that is not one
 * dict), a second reports the leaves. */
#include "py/pylit.h"
#include "base/strbuf.h"

#include <string.h>

typedef struct {
    const char *p, *end;
    pylit_leaf_fn fn;       /* NULL: only check */
    void *ctx;
    strbuf path, text;
    long leaves;
} reader;

static void blanks(reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

/* A quoted string ('...' or "..."), its content (escapes resolved) into
 * out when not NULL. 0 or -1. */
static int string(reader *r, strbuf *out)
{
    char q = *r->p++;
    while (r->p < r->end && *r->p != q) {
        char c = *r->p++;
        if (c == '\\' && r->p < r->end) {
            char e = *r->p++;
            c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
        }
        if (out)
            sb_addc(out, c);
    }
    if (r->p == r->end)
        return -1;
    r->p++;
    return 0;
}

static int value(reader *r, int depth);

/* A list, tuple or set: skipped as a whole (its text is the leaf). */
static int sequence(reader *r, char close, int depth)
{
    r->p++;
    for (;;) {
        blanks(r);
        if (r->p == r->end)
            return -1;
        if (*r->p == close) {
            r->p++;
            return 0;
        }
        if (value(r, depth + 1) != 0)
            return -1;
        blanks(r);
        if (r->p < r->end && *r->p == ',')
            r->p++;
        else if (r->p == r->end || *r->p != close)
            return -1;
    }
}

/* A dict: its members, a leaf each (nested dicts walked). */
static int dict(reader *r, int depth)
{
    if (depth > PYLIT_MAX_DEPTH)
        return -1;
    r->p++;
    for (;;) {
        blanks(r);
        if (r->p == r->end)
            return -1;
        if (*r->p == '}') {
            r->p++;
            return 0;
        }
        size_t keep = r->path.len;
        if (keep)
            sb_addc(&r->path, '.');
        /* a key: a string, or any other token (an int, a bool, None) */
        if (*r->p == '\'' || *r->p == '"') {
            if (string(r, &r->path) != 0)
                return -1;
        } else {
            const char *k = r->p;
            while (r->p < r->end && *r->p != ':' && *r->p != ',' && *r->p != '}')
                r->p++;
            size_t kl = (size_t)(r->p - k);
            while (kl && (k[kl - 1] == ' '))
                kl--;
            if (!kl)
                return -1;
            sb_add(&r->path, k, kl);
        }
        blanks(r);
        if (r->p == r->end || *r->p != ':')
            return -1;
        r->p++;
        blanks(r);
        if (r->p < r->end && *r->p == '{') {
            if (dict(r, depth + 1) != 0)
                return -1;
        } else {
            const char *v = r->p;
            sb_reset(&r->text);
            int quoted = r->p < r->end && (*r->p == '\'' || *r->p == '"');
            if (quoted ? string(r, &r->text) != 0 : value(r, depth + 1) != 0)
                return -1;
            if (!quoted)
                sb_add(&r->text, v, (size_t)(r->p - v));
            if (r->fn)
                r->fn(r->ctx, r->path.buf, r->path.len, r->text.len ? r->text.buf : "", r->text.len);
            r->leaves++;
        }
        r->path.len = keep;
        if (r->path.buf)
            r->path.buf[keep] = 0;
        blanks(r);
        if (r->p < r->end && *r->p == ',')
            r->p++;
        else if (r->p == r->end || *r->p != '}')
            return -1;
    }
}

/* Any value: a dict, a sequence, a string, or a bare token up to the next
 * ',', ':' or closing bracket at this level (numbers, True, None, a
 * class's repr). */
static int value(reader *r, int depth)
{
    if (depth > PYLIT_MAX_DEPTH || r->p == r->end)
        return -1;
    switch (*r->p) {
    case '{': {
        /* a dict inside a list: checked, not reported */
        pylit_leaf_fn fn = r->fn;
        size_t keep = r->path.len, tkeep = r->text.len;
        r->fn = NULL;
        long leaves = r->leaves;
        int rc = dict(r, depth + 1);
        r->fn = fn;
        r->leaves = leaves;
        r->path.len = keep;
        r->text.len = tkeep;   /* its leaves used the buffer; the caller had written nothing yet */
        return rc;
    }
    case '[': return sequence(r, ']', depth);
    case '(': return sequence(r, ')', depth);
    case '\'': case '"': return string(r, NULL);
    default: {
        const char *v = r->p;
        int nest = 0;
        while (r->p < r->end) {
            char c = *r->p;
            if (c == '<' || c == '(')
                nest++;
            else if ((c == '>' || c == ')') && nest)
                nest--;
            else if (!nest && (c == ',' || c == ':' || c == '}' || c == ']' || c == ')'))
                break;
            r->p++;
        }
        return r->p > v ? 0 : -1;
    }
    }
}

long pylit_dict_leaves(const char *s, size_t n, pylit_leaf_fn fn, void *ctx)
{
    for (int pass = 0; pass < 2; pass++) {
        reader r = {s, s + n, pass ? fn : NULL, ctx, STRBUF_INIT, STRBUF_INIT, 0};
        blanks(&r);
        int rc = r.p < r.end && *r.p == '{' ? dict(&r, 0) : -1;
        blanks(&r);
        if (rc == 0 && r.p != r.end)
            rc = -1;
        sb_free(&r.path);
        sb_free(&r.text);
        if (rc != 0)
            return -1;
        if (pass)
            return r.leaves;
    }
    return -1;
}
