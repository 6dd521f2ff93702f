/* Walking an option table: its entries and the spellings of each. */
#include "base/opts_table.h"
#include "base/mem.h"
#include "base/strbuf.h"

#include <string.h>

static const opt builtins[] = {
    {.type = OPT_T_HELP, .names = "-h --help", .help = "show this help and exit"},
    {.type = OPT_T_VERSION, .names = "-V --version", .help = "print the version and exit"},
    /* the tag lines the man page's OPTIONS must have (tests/cli/options_check.sh) */
    {.type = OPT_T_HELP_MAN, .names = "--help-man", .flags = OPT_HIDDEN},
    OPT_END(),
};

int opts_takes_value(const opt *o)
{
    return o->type == OPT_T_STRING || o->type == OPT_T_OPTSTRING || o->type == OPT_T_INT || o->type == OPT_T_CHOICE
           || o->type == OPT_T_FLAGS || o->type == OPT_T_LIST;
}

int opts_is_positional(const opt *o) { return o->names && o->names[0] && o->names[0] != '-'; }

int opts_is_option(const opt *o) { return o->type != OPT_T_GROUP && o->names && !opts_is_positional(o); }

/* The next spelling of `names` from *pos: its start and length, and whether
 * it is an alias (after '|'). Returns 0 at the end. */
int opts_next_token(const char *names, size_t *pos, const char **s, size_t *len, int *alias)
{
    size_t p = *pos;
    int after_bar = *alias;
    for (;;) {
        while (names[p] == ' ')
            p++;
        if (names[p] != '|')
            break;
        after_bar = 1;
        p++;
    }
    if (!names[p])
        return 0;
    size_t start = p;
    while (names[p] && names[p] != ' ' && names[p] != '|')
        p++;
    *s = names + start;
    *len = p - start;
    *alias = after_bar;
    *pos = p;
    return 1;
}

int opts_next_name(const opt *o, size_t *pos, char *buf, size_t cap)
{
    const char *s;
    size_t len;
    int alias = 0;
    if (!o->names || !opts_next_token(o->names, pos, &s, &len, &alias) || alias)
        return 0;
    if (len >= cap)
        len = cap - 1;
    memcpy(buf, s, len);
    buf[len] = 0;
    return 1;
}

const opt **opts_entries(const opts_spec *spec, size_t *n)
{
    const opt **v = NULL;
    size_t k = 0, cap = 0;
    for (int pass = 0; pass < 2; pass++)
        for (const opt *o = pass ? builtins : spec->opts; o && o->type != OPT_T_END; o++) {
            GROW(v, cap, k + 1);
            v[k++] = o;
        }
    *n = k;
    return v;
}

void opts_choice_list(strbuf *sb, const opt_choice *c, const char *sep, const char *last)
{
    size_t n = 0;
    for (const opt_choice *k = c; k->name; k++)
        n += !k->refusal;
    size_t i = 0;
    for (const opt_choice *k = c; k->name; k++) {
        if (k->refusal)
            continue;
        if (i)
            sb_adds(sb, i + 1 == n ? last : sep);
        sb_adds(sb, k->name);
        i++;
    }
}
