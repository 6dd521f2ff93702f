/* The tags the newest msprobe derives from a target name for its trend
 * plugin's filters (spec/data2db.md §9.1; csv2db's get_tags_from_target). */
#include "monitor/data2db/tags.h"

#include <string.h>

typedef struct {
    const char *s;
    size_t n;
} part;

static size_t split(const char *name, size_t n, part *parts, size_t cap)
{
    size_t k = 0, start = 0;
    for (size_t i = 0; i <= n; i++)
        if (i == n || name[i] == '.') {
            if (k < cap)
                parts[k] = (part){name + start, i - start};
            k++;
            start = i + 1;
        }
    return k;
}

static int all_digits(part p)
{
    if (!p.n)
        return 0;
    for (size_t i = 0; i < p.n; i++)
        if (p.s[i] < '0' || p.s[i] > '9')
            return 0;
    return 1;
}

static void add(strbuf *out, const part *p, size_t from, size_t to, const char *category)
{
    for (size_t i = from; i < to; i++) {
        if (i > from)
            sb_addc(out, '.');
        sb_add(out, p[i].s, p[i].n);
    }
    sb_addc(out, '\x1f');
    sb_adds(out, category);
    sb_addc(out, '\x1e');
}

/* Python's "." .join(parts[a:b]) is not empty */
static int join_nonempty(const part *p, size_t a, size_t b)
{
    return b > a + 1 || (b == a + 1 && p[a].n > 0);
}

enum { MAX_PARTS = 256 };

void dump_tags(const char *name, size_t n, strbuf *out)
{
    part p[MAX_PARTS], f[MAX_PARTS];
    size_t np = split(name, n, p, MAX_PARTS);
    if (np < 3 || np > MAX_PARTS)
        return;
    strbuf tags = STRBUF_INIT;
    add(&tags, p, np - 2, np, "index");
    size_t nf = 0;
    int module = 0;
    for (size_t i = 0; i + 2 < np; i++) {
        if ((p[i].n == 6 && !memcmp(p[i].s, "Module", 6)) || (p[i].n == 4 && !memcmp(p[i].s, "Cell", 4))) {
            add(&tags, p, i, i + 1, "default");
            module = 1;
        } else {
            f[nf++] = p[i];
        }
    }
    /* nothing but Module/Cell before the index: no tags at all */
    if (!nf) {
        sb_free(&tags);
        return;
    }
    sb_add(out, tags.buf, tags.len);
    sb_free(&tags);
    if (!module) {
        add(out, f, 0, nf, "function");
        return;
    }
    /* a number after a name is a layer (layers.3); the names between layers are modules */
    long last = -1;   /* processed_indices[-1]: every number's index goes there */
    for (size_t i = 0; i < nf; i++) {
        if (!all_digits(f[i]))
            continue;
        /* a number right after another (or first) is no layer */
        if (i == 0 || (long)i - 1 == last) {
            last = (long)i;
            continue;
        }
        add(out, f, i - 1, i + 1, "layer");
        if (join_nonempty(f, (size_t)(last + 1), i - 1))
            add(out, f, (size_t)(last + 1), i - 1, "module");
        last = (long)i;
    }
    if (last != (long)nf - 1 && join_nonempty(f, (size_t)(last + 1), nf))
        add(out, f, (size_t)(last + 1), nf, "module");
}

void monitor_tags(const char *name, size_t n, strbuf *out)
{
    part p[MAX_PARTS];
    size_t np = split(name, n, p, MAX_PARTS);
    if (np > MAX_PARTS)
        return;
    /* from the last part to the first */
    for (size_t k = 0; k < np; k++) {
        size_t i = np - 1 - k;
        if (!all_digits(p[i])) {
            add(out, p, i, i + 1, "module");
            continue;
        }
        if (i == 0 || all_digits(p[i - 1]))
            continue;
        add(out, p, i - 1, i + 1, "layer");
    }
}
