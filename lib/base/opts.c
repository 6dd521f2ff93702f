/* The option parser of opts.h: argv read against a command's option table
 * the way argparse reads it (unique prefixes, --opt=value, attached values
 * of one-letter options -- a number or a choice only, so that -npu is no
 * -n with "pu" --, negative numbers taken as values, `--`), each value
 * checked and stored into the command's struct at the offset its table
 * entry names. Errors are usage errors: one line, with a "did you mean"
 * from an edit distance over the shown spellings, and for a path typed
 * without its option the options that take the command's inputs. --help,
 * --version and --help-man are answered here (OPTS_DONE), so commands only
 * see the values.
 */
#include "base/opts.h"
#include "base/err.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- did you mean ------------------------------------------------------ */

/* Optimal string alignment distance (Levenshtein plus transpositions). */
static int osa(const char *a, size_t n, const char *b, size_t m)
{
    if (n > 64 || m > 64)
        return 99;
    int d[65][65];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int cost = a[i - 1] != b[j - 1];
            int v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m];
}

int opts_similarity(const char *typed, const char *cand)
{
    /* the dashes do not count: -stack_mode is a slip for --stack_mode */
    while (*typed == '-')
        typed++;
    while (*cand == '-')
        cand++;
    size_t n = strlen(typed), m = strlen(cand);
    if (n == m && !memcmp(typed, cand, n))
        return 0;
    if (n < 2)
        return -1;
    int d = osa(typed, n, cand, m);
    if (d <= (n >= 6 ? 2 : 1))
        return d;
    /* the start of a longer name, slightly misspelt: --stak for --stack_mode */
    if (n >= 3 && n < m && osa(typed, n, cand, n) <= 1)
        return osa(typed, n, cand, n) + 1;
    return -1;
}

/* ---- parsing ------------------------------------------------------------- */

typedef struct {
    const opt **v; /* the spec's entries, then the built-in ones */
    size_t n;
} table;

static void table_load(table *t, const opts_spec *spec) { t->v = opts_entries(spec, &t->n); }

static int is_negative_number(const char *a)
{
    const char *p = a + 1;
    while (isdigit((unsigned char)*p))
        p++;
    if (*p == '.' && isdigit((unsigned char)p[1])) {
        p++;
        while (isdigit((unsigned char)*p))
            p++;
    }
    return p > a + 1 && *p == 0;
}

/* argparse: "-" alone and negative numbers are arguments, not options. */
static int looks_like_option(const char *a) { return a[0] == '-' && a[1] && !is_negative_number(a); }

typedef struct {
    size_t entry;          /* index in the table */
    char name[OPTS_NAME_MAX];  /* the spelling it matched, in full */
    const char *value;     /* after '=' or attached to a one-letter option; NULL: none */
} match;

static void add_candidate(size_t *cand, size_t *nc, size_t e)
{
    for (size_t k = 0; k < *nc; k++)
        if (cand[k] == e)
            return;
    cand[(*nc)++] = e;
}

static void copy_name(char *dst, const char *s, size_t len)
{
    if (len >= OPTS_NAME_MAX)
        len = OPTS_NAME_MAX - 1;
    memcpy(dst, s, len);
    dst[len] = 0;
}

/* "; did you mean 'a' or 'b'?": the names of the best (smallest) score,
 * at most three; scores below 0 are no match. */
static void did_you_mean_scored(strbuf *sb, const char *const *names, const int *score, size_t n)
{
    int best = -1;
    for (size_t i = 0; i < n; i++)
        if (score[i] >= 0 && (best < 0 || score[i] < best))
            best = score[i];
    if (best < 0)
        return;
    int shown = 0;
    for (size_t i = 0; i < n && shown < 3; i++)
        if (score[i] == best)
            sb_addf(sb, "%s'%s'", shown++ ? " or " : "; did you mean ", names[i]);
    sb_addc(sb, '?');
}

void opts_did_you_mean(strbuf *sb, const char *typed, const char *const *names, size_t n)
{
    int *score = xmalloc_array(n + 1, sizeof *score);
    for (size_t i = 0; i < n; i++)
        score[i] = opts_similarity(typed, names[i]);
    did_you_mean_scored(sb, names, score, n);
    free(score);
}

/* The "did you mean" for an unknown option: the closest shown spelling of
 * each option (one per option). */
static void suggest(strbuf *sb, const table *t, const char *typed)
{
    char (*names)[OPTS_NAME_MAX] = xmalloc_array(t->n + 1, OPTS_NAME_MAX);
    const char **ptrs = xmalloc_array(t->n + 1, sizeof *ptrs);
    int *score = xmalloc_array(t->n + 1, sizeof *score);
    size_t n = 0, tlen = strlen(typed);
    for (size_t e = 0; e < t->n; e++) {
        const opt *o = t->v[e];
        if (!opts_is_option(o) || (o->flags & OPT_HIDDEN))
            continue;
        size_t pos = 0;
        int best = -1;
        char name[OPTS_NAME_MAX];
        while (opts_next_name(o, &pos, name, sizeof name)) {
            int s = opts_similarity(typed, name);
            /* -npu: a one-letter option with a word attached that it does
             * not take so (attached_value_ok) */
            if (typed[0] == '-' && typed[1] != '-' && tlen > 2 && strlen(name) == 2 && name[1] == typed[1]
                && (s < 0 || s > 1))
                s = 1;
            if (s >= 0 && (best < 0 || s < best)) {
                best = s;
                memcpy(names[n], name, OPTS_NAME_MAX);
            }
        }
        if (best >= 0) {
            ptrs[n] = names[n];
            score[n++] = best;
        }
    }
    did_you_mean_scored(sb, ptrs, score, n);
    free(score);
    free(ptrs);
    free(names);
}

/* May `val` follow one-letter option o in the same word (-j4)? argparse
 * takes any value so, but then -npu is -n with the path "pu" and the path
 * that follows is left over: only a number for a number (-j4, -n3) or one
 * of the names of a choice is taken attached; any other such word is an
 * unknown option, with a "did you mean -n?". */
static int attached_value_ok(const opt *o, const char *val)
{
    if (o->type == OPT_T_INT)
        return isdigit((unsigned char)val[0]) || (val[0] == '-' && isdigit((unsigned char)val[1]));
    if (o->type == OPT_T_CHOICE)
        for (const opt_choice *c = o->choices; c->name; c++)
            if (!strcmp(c->name, val))
                return 1;
    return 0;
}

/* Find the option `a` names. 0: found; -1: error recorded. */
static int lookup(const table *t, const char *a, match *m)
{
    const char *eq = strchr(a, '=');
    size_t alen = eq ? (size_t)(eq - a) : strlen(a);
    int dbl = a[1] == '-';
    size_t *cand = xmalloc_array(t->n + 1, sizeof *cand);
    size_t nc = 0;
    int rc = -1;
    m->value = eq ? eq + 1 : NULL;
    /* an exact spelling, aliases and hidden ones included */
    for (size_t e = 0; e < t->n; e++) {
        const opt *o = t->v[e];
        if (!opts_is_option(o))
            continue;
        size_t pos = 0, len;
        const char *s;
        int alias = 0;
        while (opts_next_token(o->names, &pos, &s, &len, &alias))
            if (len == alen && !memcmp(s, a, len)) {
                m->entry = e;
                copy_name(m->name, s, len);
                rc = 0;
                goto done;
            }
    }
    /* else a unique prefix of the shown spellings of the same kind */
    for (size_t e = 0; e < t->n && alen > (size_t)(dbl ? 2 : 1); e++) {
        const opt *o = t->v[e];
        if (!opts_is_option(o) || (o->flags & OPT_HIDDEN))
            continue;
        size_t pos = 0, len;
        const char *s;
        int alias = 0;
        while (opts_next_token(o->names, &pos, &s, &len, &alias)) {
            if (alias || (s[1] == '-') != dbl)
                continue;
            if (len > alen && !memcmp(s, a, alen))
                add_candidate(cand, &nc, e);
            /* -j4: a one-letter option with its value attached */
            else if (!dbl && !eq && len == 2 && alen > 2 && s[1] == a[1] && attached_value_ok(o, a + 2))
                add_candidate(cand, &nc, e);
        }
    }
    strbuf msg = STRBUF_INIT;
    if (nc == 1) {
        const opt *o = t->v[cand[0]];
        m->entry = cand[0];
        m->name[0] = 0;
        for (int attached = 0; attached < 2 && !m->name[0]; attached++) {
            size_t pos = 0, len;
            const char *s;
            int alias = 0;
            while (opts_next_token(o->names, &pos, &s, &len, &alias)) {
                if (alias || (s[1] == '-') != dbl)
                    continue;
                if (!attached && len > alen && !memcmp(s, a, alen)) {
                    copy_name(m->name, s, len);
                    break;
                }
                if (attached && len == 2 && s[1] == a[1]) {
                    copy_name(m->name, s, len);
                    m->value = a + 2;
                    break;
                }
            }
        }
        rc = 0;
    } else if (nc > 1) {
        sb_addf(&msg, "option '%.*s' is ambiguous; it could be", (int)alen, a);
        for (size_t k = 0; k < nc; k++) {
            const opt *o = t->v[cand[k]];
            size_t pos = 0, len;
            const char *s;
            int alias = 0;
            while (opts_next_token(o->names, &pos, &s, &len, &alias))
                if (!alias && (s[1] == '-') == dbl && len > alen && !memcmp(s, a, alen)) {
                    sb_addf(&msg, "%s %.*s", k ? (k + 1 == nc ? " or" : ",") : "", (int)len, s);
                    break;
                }
        }
        err_set(ERR_USAGE, NULL, "%s", sb_str(&msg));
    } else {
        char typed[OPTS_NAME_MAX];
        copy_name(typed, a, alen);
        sb_addf(&msg, "unknown option '%s'", typed);
        suggest(&msg, t, typed);
        err_set(ERR_USAGE, NULL, "%s", sb_str(&msg));
    }
    sb_free(&msg);
done:
    free(cand);
    return rc;
}

static void *field(void *dest, size_t off) { return (char *)dest + off; }

/* Store `val` (NULL: the option was given without one) for option o. */
static int store(const opt *o, const char *name, const char *val, void *dest)
{
    switch (o->type) {
    case OPT_T_SET:
        *(int *)field(dest, o->off) = (int)o->value;
        return 0;
    case OPT_T_STRING:
        *(const char **)field(dest, o->off) = val;
        return 0;
    case OPT_T_OPTSTRING:
        *(const char **)field(dest, o->off) = val ? val : o->def;
        if (o->set_off)
            *(int *)field(dest, o->set_off - 1) = 1;
        return 0;
    case OPT_T_INT: {
        char *end;
        errno = 0;
        long long v = strtoll(val, &end, 10);
        if (!*val || *end || errno || v < o->lo || v > o->hi) {
            if (o->hi >= INT_MAX)
                return err_set(ERR_USAGE, NULL, "%s needs a number (%lld or more), not '%s'", name, o->lo, val);
            return err_set(ERR_USAGE, NULL, "%s needs a number from %lld to %lld, not '%s'", name, o->lo, o->hi, val);
        }
        *(int *)field(dest, o->off) = (int)v;
        return 0;
    }
    case OPT_T_CHOICE: {
        for (const opt_choice *c = o->choices; c->name; c++) {
            if (strcmp(c->name, val))
                continue;
            if (c->refusal)
                return err_set(ERR_USAGE, NULL, "%s %s: %s", name, val, c->refusal);
            *(int *)field(dest, o->off) = c->value;
            return 0;
        }
        strbuf sb = STRBUF_INIT;
        sb_addf(&sb, "%s needs ", name);
        opts_choice_list(&sb, o->choices, ", ", " or ");
        sb_addf(&sb, ", not '%s'", val);
        const char *names[64];
        size_t n = 0;
        for (const opt_choice *c = o->choices; c->name && n < 64; c++)
            if (!c->refusal)
                names[n++] = c->name;
        opts_did_you_mean(&sb, val, names, n);
        err_set(ERR_USAGE, NULL, "%s", sb_str(&sb));
        sb_free(&sb);
        return -1;
    }
    case OPT_T_FLAGS: {
        unsigned mask = 0;
        for (const char *p = val;;) {
            size_t n = strcspn(p, ",");
            const opt_choice *c = o->choices;
            while (c->name && !(strlen(c->name) == n && !strncmp(c->name, p, n)))
                c++;
            if (!c->name || c->refusal) {
                strbuf sb = STRBUF_INIT;
                if (c->name)
                    sb_addf(&sb, "%s %s: %s", name, c->name, c->refusal);
                else {
                    sb_addf(&sb, "%s takes ", name);
                    opts_choice_list(&sb, o->choices, ", ", " or ");
                    sb_addf(&sb, ", comma-separated, not '%.*s'", (int)n, p);
                }
                err_set(ERR_USAGE, NULL, "%s", sb_str(&sb));
                sb_free(&sb);
                return -1;
            }
            mask |= (unsigned)c->value;
            p += n;
            if (!*p++)
                break;
        }
        *(unsigned *)field(dest, o->off) = mask;
        return 0;
    }
    case OPT_T_REFUSE:
        return err_set(ERR_USAGE, NULL, "%s: %s", name, o->help);
    default:
        return 0;
    }
}

/* The values of an OPT_LIST option at argv[*i]: `val` when given in the
 * same word (then the only one), else the words that follow up to one that
 * looks like an option or "--" (argparse's greedy nargs). */
static int take_list(const opt *o, const char *name, int argc, char **argv, int *i, const char *val, void *dest)
{
    opt_list *l = field(dest, o->off);
    int n = 0;
    char **first = argv + *i + 1;
    if (val) {
        argv[*i] = (char *)val;
        first = argv + *i;
        n = 1;
    } else {
        while (*i + 1 + n < argc && (o->hi < 0 || n < o->hi) && strcmp(argv[*i + 1 + n], "--") != 0
               && !looks_like_option(argv[*i + 1 + n]))
            n++;
        *i += n;
    }
    if (n < o->lo || (o->hi >= 0 && n > o->hi)) {
        if (o->lo == o->hi)
            return err_set(ERR_USAGE, NULL, "%s needs %lld values (%s), got %d", name, o->lo,
                           o->metavar ? o->metavar : "VALUE", n);
        return err_set(ERR_USAGE, NULL, "%s needs at least %lld values (%s), got %d", name, o->lo,
                       o->metavar ? o->metavar : "VALUE", n);
    }
    if ((o->flags & OPT_APPEND) && l->given && l->n) {
        char **all = xmalloc_array((size_t)(l->n + n) + 1, sizeof *all);
        memcpy(all, l->v, (size_t)l->n * sizeof *all);
        memcpy(all + l->n, first, (size_t)n * sizeof *all);
        free(l->alloc);
        l->alloc = l->v = all;
        l->n += n;
        return 0;
    }
    l->v = first;
    l->n = n;
    l->given = 1;
    return 0;
}

void opts_list_free(opt_list *l)
{
    free(l->alloc);
    l->alloc = NULL;
}

static void set_defaults(const table *t, void *dest)
{
    for (size_t e = 0; e < t->n; e++) {
        const opt *o = t->v[e];
        if (!o->def)
            continue;
        if (o->type == OPT_T_STRING || o->type == OPT_T_OPTSTRING)
            *(const char **)field(dest, o->off) = o->def;
        else if (o->type == OPT_T_INT)
            *(int *)field(dest, o->off) = (int)strtoll(o->def, NULL, 10);
        else if (o->type == OPT_T_CHOICE)
            for (const opt_choice *c = o->choices; c->name; c++)
                if (!strcmp(c->name, o->def))
                    *(int *)field(dest, o->off) = c->value;
    }
}

/* What the table names an option in messages: "-i/--input_dir", "FILE". */
static void display_name(strbuf *sb, const opt *o)
{
    size_t pos = 0;
    char name[OPTS_NAME_MAX];
    int k = 0;
    while (opts_next_name(o, &pos, name, sizeof name))
        sb_addf(sb, "%s%s", k++ ? "/" : "", name);
}

static int check_required(const table *t, const unsigned char *given)
{
    strbuf sb = STRBUF_INIT, words = STRBUF_INIT;
    int missing = 0;
    for (size_t e = 0; e < t->n; e++) {
        const opt *o = t->v[e];
        if (!(o->flags & OPT_REQUIRED) || given[e])
            continue;
        sb_adds(&sb, missing++ ? ", " : "the following arguments are required: ");
        display_name(&sb, o);
        /* a word to type (monitor's ACTION): say which */
        if (opts_is_positional(o) && o->type == OPT_T_CHOICE) {
            size_t n = 0;
            for (const opt_choice *c = o->choices; c->name; c++)
                n += !c->refusal;
            sb_addf(&words, "; %s is %s", o->names, n > 1 ? "one of " : "");
            size_t k = 0;
            for (const opt_choice *c = o->choices; c->name; c++)
                if (!c->refusal)
                    sb_addf(&words, "%s'%s'", !k++ ? "" : k == n ? " or " : ", ", c->name);
        }
    }
    if (words.len)
        sb_add(&sb, words.buf, words.len);
    sb_free(&words);
    if (missing)
        err_set(ERR_USAGE, NULL, "%s", sb_str(&sb));
    sb_free(&sb);
    return missing ? -1 : 0;
}

/* "unexpected argument 'DIR'": when the command's main inputs are paths
 * given with an option (OPT_INPUT), say with which: "msprobe compare takes
 * TARGET with -n (or -tp) and BENCH with -b (or -gp)" -- the options of one
 * metavar together, their other single-dash spellings in parentheses. */
static int unexpected_argument(const table *t, const char *a)
{
    strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "unexpected argument '%s'", a);
    const char **metas = xmalloc_array(t->n + 1, sizeof *metas);
    size_t n = 0;
    for (size_t e = 0; e < t->n; e++) {
        const opt *o = t->v[e];
        if (!opts_is_option(o) || !(o->flags & OPT_INPUT))
            continue;
        const char *m = o->metavar ? o->metavar : "its path";
        size_t k = 0;
        while (k < n && strcmp(metas[k], m))
            k++;
        if (k == n)
            metas[n++] = m;
    }
    for (size_t k = 0; k < n; k++) {
        sb_adds(&sb, !k ? ": " : k + 1 == n ? " and " : ", ");
        if (!k)
            sb_addf(&sb, "%s takes ", log_prog());
        sb_addf(&sb, "%s with ", metas[k]);
        int shown = 0;
        for (size_t e = 0; e < t->n; e++) {
            const opt *o = t->v[e];
            if (!opts_is_option(o) || !(o->flags & OPT_INPUT) || strcmp(o->metavar ? o->metavar : "its path", metas[k]))
                continue;
            size_t pos = 0;
            char name[OPTS_NAME_MAX];
            while (opts_next_name(o, &pos, name, sizeof name)) {
                if (shown && name[1] == '-')
                    continue;
                sb_addf(&sb, "%s%s", !shown ? "" : shown == 1 ? " (or " : ", ", name);
                shown++;
            }
        }
        if (shown > 1)
            sb_addc(&sb, ')');
    }
    free(metas);
    err_set(ERR_USAGE, NULL, "%s", sb_str(&sb));
    sb_free(&sb);
    return -1;
}

static int parse(const opts_spec *spec, const table *t, int argc, char **argv, void *dest, int flags, int *next,
                 unsigned char *given)
{
    size_t positional = 0; /* entries of the table searched from here */
    int only_args = 0;
    if (next)
        *next = argc;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!only_args && !strcmp(a, "--")) {
            only_args = 1;
            continue;
        }
        if (only_args || !looks_like_option(a)) {
            if (flags & OPTS_STOP_AT_ARG) {
                if (next)
                    *next = i;
                return 0;
            }
            while (positional < t->n && !opts_is_positional(t->v[positional]))
                positional++;
            if (positional == t->n)
                return unexpected_argument(t, a);
            const opt *o = t->v[positional];
            if (store(o, o->names, a, dest) != 0)
                return -1;
            given[positional++] = 1;
            continue;
        }
        match m;
        if (lookup(t, a, &m) != 0)
            return -1;
        const opt *o = t->v[m.entry];
        const char *val = m.value;
        if (o->type == OPT_T_LIST) {
            if (take_list(o, m.name, argc, argv, &i, val, dest) != 0)
                return -1;
            given[m.entry] = 1;
            continue;
        }
        if (!opts_takes_value(o) && val && o->type != OPT_T_REFUSE)
            return err_set(ERR_USAGE, NULL, "%s takes no value (got '%s')", m.name, val);
        if (!val && opts_takes_value(o) && i + 1 < argc && !looks_like_option(argv[i + 1]))
            val = argv[++i];
        if (!val && opts_takes_value(o) && o->type != OPT_T_OPTSTRING) {
            strbuf sb = STRBUF_INIT;
            if (o->type == OPT_T_CHOICE)
                opts_choice_list(&sb, o->choices, ", ", " or ");
            else
                sb_adds(&sb, o->metavar ? o->metavar : "VALUE");
            err_set(ERR_USAGE, NULL, "%s needs a value (%s)", m.name, sb_str(&sb));
            sb_free(&sb);
            return -1;
        }
        given[m.entry] = 1;
        switch (o->type) {
        case OPT_T_HELP:
            opts_help(spec, stdout);
            return 1;
        case OPT_T_VERSION:
            opts_version(stdout);
            return 1;
        case OPT_T_HELP_MAN:
            opts_man_tags(spec, stdout);
            return 1;
        default:
            if (store(o, m.name, val, dest) != 0)
                return -1;
        }
    }
    return 0;
}

opts_result opts_parse(const opts_spec *spec, int argc, char **argv, void *dest, int flags, int *next)
{
    table t;
    table_load(&t, spec);
    unsigned char *given = xcalloc(t.n + 1, 1);
    set_defaults(&t, dest);
    int rc = parse(spec, &t, argc, argv, dest, flags, next, given);
    if (rc == 0)
        rc = check_required(&t, given);
    free(given);
    free(t.v);
    if (rc < 0 && !(flags & OPTS_NO_REPORT)) {
        log_usage("%s", err_message());
        err_clear();
    }
    return rc < 0 ? OPTS_USAGE_ERROR : rc > 0 ? OPTS_DONE : OPTS_RUN;
}

int opts_exit_status(opts_result r)
{
    switch (r) {
    case OPTS_DONE:
        return EXIT_OK;
    case OPTS_USAGE_ERROR:
        return EXIT_BADINPUT;
    default:
        return EXIT_INTERNAL;
    }
}
