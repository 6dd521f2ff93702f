/* Walking msprobe's dump trees (dumptree.h).
 *
 * Names follow msprobe: a rank directory is ^rank(0|[1-9][0-9]*)?$ (8.1.0's
 * check_and_return_dir_contents), a step directory ^step(0|[1-9][0-9]*)$,
 * and the newest msprobe's find_proc_dir() takes a directory "proc" followed
 * by digits, and only when it is the only one. msprobe 8.1.0 refuses
 * anything else inside a step directory, and so do we: a stray file there
 * usually means a half-copied or mixed-up dump. The newest msprobe looks for
 * proc{PID} only when there is no rank directory; we refuse the mixture
 * instead of silently leaving one of them out.
 */
#include "model/dumptree.h"
#include "base/err.h"
#include "base/files.h"
#include "base/mem.h"
#include "base/strbuf.h"

#include <stdlib.h>
#include <string.h>

const char *dumptree_kind_name(int kind)
{
    static const char *const names[] = {"a dump file", "a rank directory", "a step directory", "a dump root"};
    return kind >= 0 && kind <= DUMPTREE_ROOT ? names[kind] : "?";
}

/* The number a non-empty string of digits spells (leading zeros allowed),
 * or -2 for anything else. Numbers beyond 10^9 are no rank or step. */
static long digits_value(const char *d)
{
    long v = 0;
    for (; *d; d++) {
        if (*d < '0' || *d > '9' || v > 100000000)
            return -2;
        v = v * 10 + (*d - '0');
    }
    return v;
}

/* "rank" -> -1, "rank12" -> 12, anything else -> -2; the number is needed
 * unless number_optional. */
static long numbered(const char *name, const char *prefix, int number_optional)
{
    size_t pl = strlen(prefix);
    if (strncmp(name, prefix, pl) != 0)
        return -2;
    const char *d = name + pl;
    if (!*d)
        return number_optional ? -1 : -2;
    if (d[0] == '0' && d[1])
        return -2;
    return digits_value(d);
}

/* proc{PID}: "proc" and one or more digits (Python's str.isdigit()). */
static int is_proc(const char *name)
{
    if (strncmp(name, "proc", 4) != 0 || !name[4])
        return 0;
    for (const char *d = name + 4; *d; d++)
        if (*d < '0' || *d > '9')
            return 0;
    return 1;
}

char *dumptree_file(const char *dir, const char *name)
{
    char *p = path_join(dir, name);
    if (path_kind(p) == PATH_FILE)
        return p;
    free(p);
    return NULL;
}

static int is_subdir(const char *dir, const char *name)
{
    char *p = path_join(dir, name);
    int is_dir = path_kind(p) == PATH_DIR;
    free(p);
    return is_dir;
}

static int has_file(const char *dir, const char *name)
{
    char *p = dumptree_file(dir, name);
    free(p);
    return p != NULL;
}

int dumptree_classify(const char *path, int *kind)
{
    enum path_kind pk = path_kind(path);
    if (pk == PATH_FILE) {
        *kind = DUMPTREE_FILE;
        return 0;
    }
    if (pk != PATH_DIR)
        return path_require(path, 1);
    if (has_file(path, "dump.json") || has_file(path, "debug.json")) {
        *kind = DUMPTREE_RANK;
        return 0;
    }
    /* a dump.json that is a link, a directory, a FIFO...: that is the error,
     * not "holds no dump.json" */
    static const char *const dump_names[] = {"dump.json", "debug.json"};
    for (int i = 0; i < 2; i++) {
        char *p = path_join(path, dump_names[i]);
        int bad = path_kind(p) != PATH_MISSING ? path_require(p, 0) : 0;
        free(p);
        if (bad)
            return -1;
    }
    char **names;
    long n = dir_list(path, &names);
    if (n < 0)
        return -1;
    int ranks = 0, steps = 0;
    for (long i = 0; i < n; i++) {
        ranks += numbered(names[i], "rank", 1) >= -1 || is_proc(names[i]);
        steps += numbered(names[i], "step", 0) >= 0;
    }
    names_free(names, n);
    if (ranks) {
        *kind = DUMPTREE_STEP;
        return 0;
    }
    if (steps) {
        *kind = DUMPTREE_ROOT;
        return 0;
    }
    return err_input(path, "holds no dump.json or debug.json, no rank* or proc{PID} and no step* directories: not a "
                           "msprobe dump");
}

int dumptree_want_level(const char *path, int want, const char *option)
{
    static const char *const holds[] = {"", "a dump.json", "rank0, rank1, ...", "step0, step1, ..."};
    int kind;
    if (path_kind(path) != PATH_DIR && path_kind(path) != PATH_FILE)
        return 0;
    if (dumptree_classify(path, &kind) != 0) {
        err_clear();
        return 0;
    }
    if (kind == want || want < DUMPTREE_RANK)
        return 0;
    return err_input(path, "this is %s; %s takes %s that holds %s", dumptree_kind_name(kind), option,
                     dumptree_kind_name(want), holds[want]);
}

static int by_number(const void *a, const void *b)
{
    const dumptree_dir *x = a, *y = b;
    return x->number < y->number ? -1 : x->number > y->number;
}

void dumptree_list_free(dumptree_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].name);
        free(l->v[i].path);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* How a listed directory is named: proc{PID}, bare "rank", or numbered. */
static int naming_of(int proc, long num) { return proc ? DUMPTREE_PROC : num < 0 ? DUMPTREE_BARE : DUMPTREE_NUMBERED; }

static void add(dumptree_list *l, const char *dir, const char *name, long number, int naming)
{
    GROW(l->v, l->cap, l->n + 1);
    dumptree_dir *d = &l->v[l->n++];
    d->name = xstrdup(name);
    d->path = path_join(dir, name);
    d->number = number;
    d->naming = naming;
}

#define RANKS_AND_PROC                                                                                         \
    "holds both rank directories and a proc{PID} directory: the dumps of two different runs? Expected rank, "   \
    "rank0, rank1, ... or exactly one proc{PID}."

/* The entries of `dir` named by `prefix` (and proc{PID} when ranks), each a
 * directory; anything else is refused. */
static int list_level(const char *dir, int ranks, dumptree_list *out)
{
    memset(out, 0, sizeof *out);
    char **names;
    long n = dir_list(dir, &names);
    if (n < 0)
        return -1;
    const char *prefix = ranks ? "rank" : "step";
    size_t procs = 0;
    int rc = 0;
    for (long i = 0; i < n && rc == 0; i++) {
        long num = numbered(names[i], prefix, ranks);
        int proc = ranks && num < -1 && is_proc(names[i]);
        int is_dir = is_subdir(dir, names[i]);
        if ((num < -1 && !proc) || !is_dir) {
            rc = err_input(dir, "contains '%s'. Expected only %s directories. This name is not in the format of "
                                "dump output. Please check and delete irrelevant files and try again.",
                           names[i], ranks ? "'rank', 'rank0', 'rank1', ... or one 'proc{PID}'" : "'step0', 'step1', ...");
            break;
        }
        procs += proc;
        add(out, dir, names[i], proc ? -1 : num, naming_of(proc, num));
    }
    names_free(names, n);
    if (rc == 0 && procs > 1) {
        strbuf sb = STRBUF_INIT;
        for (size_t i = 0, k = 0; i < out->n && k < 3; i++)
            if (out->v[i].naming == DUMPTREE_PROC)
                sb_addf(&sb, "%s%s", k++ ? ", " : "", out->v[i].name);
        rc = err_input(dir, "No or multiple proc directories were found (%zu: %s%s). Expected exactly one.", procs,
                       sb_str(&sb), procs > 3 ? ", ..." : "");
        sb_free(&sb);
    } else if (rc == 0 && procs && out->n > 1) {
        rc = err_input(dir, RANKS_AND_PROC);
    }
    if (rc) {
        dumptree_list_free(out);
        return -1;
    }
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, by_number);
    return 0;
}

int dumptree_ranks(const char *step_dir, dumptree_list *out) { return list_level(step_dir, 1, out); }

int dumptree_steps(const char *root, dumptree_list *out) { return list_level(root, 0, out); }

/* "rank" -> -1, "rank<digits>" -> the number (leading zeros allowed), else -2. */
static long loose_rank(const char *name)
{
    if (strncmp(name, "rank", 4) != 0)
        return -2;
    return name[4] ? digits_value(name + 4) : -1;
}

int dumptree_ranks_loose(const char *step_dir, dumptree_list *out, dumptree_list *skipped)
{
    memset(out, 0, sizeof *out);
    if (skipped)
        memset(skipped, 0, sizeof *skipped);
    char **names;
    long n = dir_list(step_dir, &names);
    if (n < 0)
        return -1;
    size_t procs = 0;
    for (long i = 0; i < n; i++) {
        long num = loose_rank(names[i]);
        int proc = num < -1 && is_proc(names[i]);
        int is_dir = is_subdir(step_dir, names[i]);
        if ((num < -1 && !proc) || !is_dir) {
            if (skipped)
                add(skipped, step_dir, names[i], -1, DUMPTREE_NUMBERED);
            continue;
        }
        procs += proc;
        add(out, step_dir, names[i], proc ? -1 : num, naming_of(proc, num));
    }
    names_free(names, n);
    int rc = 0;
    if (procs > 1)
        rc = err_input(step_dir, "holds %zu proc{PID} directories: the dumps of several runs? Expected exactly one.",
                       procs);
    else if (procs && out->n > 1)
        rc = err_input(step_dir, RANKS_AND_PROC);
    if (rc == 0 && out->n)
        qsort(out->v, out->n, sizeof *out->v, by_number);
    /* "rank" is rank 0 too; sorted, a repeated rank is next to its twin */
    for (size_t i = 1; i < out->n && rc == 0; i++) {
        long a = out->v[i - 1].number < 0 ? 0 : out->v[i - 1].number, b = out->v[i].number < 0 ? 0 : out->v[i].number;
        if (a == b)
            rc = err_input(step_dir, "holds both %s and %s: two dumps of rank %ld", out->v[i - 1].name, out->v[i].name,
                           a);
    }
    if (rc) {
        dumptree_list_free(out);
        if (skipped)
            dumptree_list_free(skipped);
    }
    return rc;
}

/* [+-]?digits after the prefix: 0 and *v, or -1 when there are none. */
static int scan_number(const char *s, long *v)
{
    int neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    long x = *s ? digits_value(s) : -2;
    if (x < 0)
        return -1;
    *v = neg ? -x : x;
    return 0;
}

static int by_number_name(const void *a, const void *b)
{
    const dumptree_dir *x = a, *y = b;
    if (x->naming != y->naming && (x->naming == DUMPTREE_PROC || y->naming == DUMPTREE_PROC))
        return x->naming == DUMPTREE_PROC ? 1 : -1;
    if (x->number != y->number)
        return x->number < y->number ? -1 : 1;
    return strcmp(x->name, y->name);
}

int dumptree_scan(const char *dir, int ranks, dumptree_list *out, char ***skipped, size_t *nskipped)
{
    memset(out, 0, sizeof *out);
    if (skipped) {
        *skipped = NULL;
        *nskipped = 0;
    }
    char **names;
    long n = dir_list(dir, &names);
    if (n < 0)
        return -1;
    size_t skip_cap = 0;
    for (long i = 0; i < n; i++) {
        const char *nm = names[i];
        int proc = ranks && !strncmp(nm, "proc", 4);
        if (strncmp(nm, ranks ? "rank" : "step", 4) != 0 && !proc)
            continue;
        int is_dir = is_subdir(dir, nm);
        long num = -1;
        int bare = ranks && !strcmp(nm, "rank");
        if (!is_dir || (!bare && scan_number(nm + 4, &num) != 0)) {
            if (skipped) {
                GROW(*skipped, skip_cap, *nskipped + 1);
                (*skipped)[(*nskipped)++] = xstrdup(nm);
            }
            continue;
        }
        add(out, dir, nm, num, proc ? DUMPTREE_PROC : bare ? DUMPTREE_BARE : DUMPTREE_NUMBERED);
    }
    names_free(names, n);
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, by_number_name);
    return 0;
}
