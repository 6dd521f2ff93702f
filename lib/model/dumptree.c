/* Walking msprobe's dump trees (dumptree.h).
 *
 * A step directory is ^step(0|[1-9][0-9]*)$ (msprobe 8.1.0). Rank
 * directories follow one rule for every analyzer (rank_dirs below): "rank",
 * "rank" and digits (rank007 is rank 7: the newest msprobe's analyzers read
 * the digits as a number; 8.1.0's compare wanted no leading zero and so
 * refused a directory the others took), and the newest msprobe's
 * proc{PID}, which find_proc_dir() takes only when it is the only one. Two
 * directories of one rank, a number beyond the integer range, a rank's
 * name on something that is no directory, and proc{PID} beside rank
 * directories are refused wherever they are met: each would make one
 * analyzer read the dump another refuses, or read it twice. Anything else
 * in a step directory is refused by compare and graph (msprobe 8.1.0's
 * check: a stray file there usually means a half-copied or mixed-up dump)
 * and skipped, named, by the analyzers that read what they know.
 */
#include "model/dumptree.h"
#include "base/err.h"
#include "base/files.h"
#include "base/mem.h"
#include "base/strbuf.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

const char *dumptree_kind_name(int kind)
{
    static const char *const names[] = {"a dump file", "a rank directory", "a step directory", "a dump root"};
    return kind >= 0 && kind <= DUMPTREE_ROOT ? names[kind] : "?";
}

/* What a rank or step name's digits may not say: none (-2), beyond the
 * integer range (-3). */
enum { NOT_NUMBER = -2, BEYOND = -3 };

/* The number a non-empty string of digits spells (leading zeros allowed),
 * NOT_NUMBER for anything else, BEYOND past INT_MAX. */
static long digits_value(const char *d)
{
    long v = 0;
    int beyond = 0;
    if (!*d)
        return NOT_NUMBER;
    for (; *d; d++) {
        if (*d < '0' || *d > '9')
            return NOT_NUMBER;
        v = v * 10 + (*d - '0');
        if (v > INT_MAX) {
            beyond = 1;
            v = INT_MAX;
        }
    }
    return beyond ? BEYOND : v;
}

long dumptree_rank_name(const char *name, int *proc)
{
    *proc = 0;
    if (!strncmp(name, "rank", 4))
        return name[4] ? digits_value(name + 4) : -1;
    if (!strncmp(name, "proc", 4) && name[4]) {
        long v = digits_value(name + 4);
        *proc = v >= 0 || v == BEYOND;
        return v;
    }
    return NOT_NUMBER;
}

/* "step12" -> 12 (no leading zero), anything else NOT_NUMBER, BEYOND. */
static long step_number(const char *name)
{
    if (strncmp(name, "step", 4) != 0 || !name[4] || (name[4] == '0' && name[5]))
        return NOT_NUMBER;
    return digits_value(name + 4);
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
        int proc;
        long r = dumptree_rank_name(names[i], &proc);
        ranks += r >= -1 || r == BEYOND;
        long st = step_number(names[i]);
        steps += st >= 0 || st == BEYOND;
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

/* The one rule of rank directories (dumptree.h). */
static int rank_dirs(const char *step_dir, unsigned flags, dumptree_list *out, dumptree_list *skipped)
{
    memset(out, 0, sizeof *out);
    if (skipped)
        memset(skipped, 0, sizeof *skipped);
    char **names;
    long n = dir_list(step_dir, &names);
    if (n < 0)
        return -1;
    size_t procs = 0;
    int rc = 0;
    for (long i = 0; i < n && rc == 0; i++) {
        int proc;
        long num = dumptree_rank_name(names[i], &proc);
        if (num == BEYOND) {
            rc = err_input(step_dir, "holds '%s': a %s number beyond the integer range (%d)", names[i],
                           proc ? "process" : "rank", INT_MAX);
        } else if (num == NOT_NUMBER) {
            if (flags & DUMPTREE_ONLY_RANKS)
                rc = err_input(step_dir, "contains '%s'. Expected only 'rank', 'rank0', 'rank1', ... or one "
                                         "'proc{PID}' directories. This name is not in the format of dump output. "
                                         "Please check and delete irrelevant files and try again.", names[i]);
            else if (skipped)
                add(skipped, step_dir, names[i], -1, DUMPTREE_NUMBERED);
        } else {
            char *p = path_join(step_dir, names[i]);
            rc = path_require(p, 1);
            free(p);
            if (rc == 0) {
                procs += proc;
                /* a proc{PID} is rank 0, unless the caller numbers several */
                add(out, step_dir, names[i], proc && !(flags & DUMPTREE_MANY_PROCS) ? -1 : num,
                    naming_of(proc, num));
            }
        }
    }
    names_free(names, n);
    if (rc == 0 && procs > 1 && !(flags & DUMPTREE_MANY_PROCS)) {
        strbuf sb = STRBUF_INIT;
        for (size_t i = 0, k = 0; i < out->n && k < 3; i++)
            if (out->v[i].naming == DUMPTREE_PROC)
                sb_addf(&sb, "%s%s", k++ ? ", " : "", out->v[i].name);
        rc = err_input(step_dir, "No or multiple proc directories were found (%zu: %s%s). Expected exactly one.",
                       procs, sb_str(&sb), procs > 3 ? ", ..." : "");
        sb_free(&sb);
    } else if (rc == 0 && procs && out->n > procs && !(flags & DUMPTREE_MANY_PROCS)) {
        rc = err_input(step_dir, RANKS_AND_PROC);
    }
    if (rc == 0 && out->n)
        qsort(out->v, out->n, sizeof *out->v, by_number);
    /* "rank" (and a lone proc{PID}) is rank 0 too; sorted, a repeated rank
     * is next to its twin (procs numbered by the caller are left out) */
    for (size_t i = 1; i < out->n && rc == 0; i++) {
        const dumptree_dir *x = &out->v[i - 1], *y = &out->v[i];
        if ((flags & DUMPTREE_MANY_PROCS) && (x->naming == DUMPTREE_PROC || y->naming == DUMPTREE_PROC))
            continue;
        long a = x->number < 0 ? 0 : x->number, b = y->number < 0 ? 0 : y->number;
        if (a == b)
            rc = err_input(step_dir, "holds both %s and %s: two dumps of rank %ld", x->name, y->name, a);
    }
    if (rc) {
        dumptree_list_free(out);
        if (skipped)
            dumptree_list_free(skipped);
    }
    return rc;
}

int dumptree_rank_dirs(const char *step_dir, unsigned flags, dumptree_list *out, dumptree_list *skipped)
{
    return rank_dirs(step_dir, flags, out, skipped);
}

int dumptree_ranks(const char *step_dir, dumptree_list *out)
{
    return rank_dirs(step_dir, DUMPTREE_ONLY_RANKS, out, NULL);
}

int dumptree_ranks_loose(const char *step_dir, dumptree_list *out, dumptree_list *skipped)
{
    return rank_dirs(step_dir, 0, out, skipped);
}

int dumptree_steps(const char *root, dumptree_list *out)
{
    memset(out, 0, sizeof *out);
    char **names;
    long n = dir_list(root, &names);
    if (n < 0)
        return -1;
    int rc = 0;
    for (long i = 0; i < n && rc == 0; i++) {
        long num = step_number(names[i]);
        if (num == BEYOND) {
            rc = err_input(root, "holds '%s': a step number beyond the integer range (%d)", names[i], INT_MAX);
        } else if (num < 0 || !is_subdir(root, names[i])) {
            rc = err_input(root, "contains '%s'. Expected only 'step0', 'step1', ... directories. This name is not in "
                                 "the format of dump output. Please check and delete irrelevant files and try again.",
                           names[i]);
        } else {
            add(out, root, names[i], num, DUMPTREE_NUMBERED);
        }
    }
    names_free(names, n);
    if (rc) {
        dumptree_list_free(out);
        return -1;
    }
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, by_number);
    return 0;
}

/* [+-]?digits after the prefix: 0 and *v, NOT_NUMBER when there are none,
 * BEYOND past the integer range. */
static int scan_number(const char *s, long *v)
{
    int neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    long x = digits_value(s);
    if (x < 0)
        return (int)x;
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
    size_t skip_cap = 0;
    if (ranks) {
        /* the one rule, several procs numbered by the caller; what starts
         * as a rank or proc name and is none is reported */
        dumptree_list other;
        if (rank_dirs(dir, DUMPTREE_MANY_PROCS, out, &other) != 0)
            return -1;
        for (size_t i = 0; i < other.n && skipped; i++)
            if (!strncmp(other.v[i].name, "rank", 4) || !strncmp(other.v[i].name, "proc", 4)) {
                GROW(*skipped, skip_cap, *nskipped + 1);
                (*skipped)[(*nskipped)++] = xstrdup(other.v[i].name);
            }
        dumptree_list_free(&other);
        if (out->n)
            qsort(out->v, out->n, sizeof *out->v, by_number_name);
        return 0;
    }
    char **names;
    long n = dir_list(dir, &names);
    if (n < 0)
        return -1;
    int rc = 0;
    for (long i = 0; i < n && rc == 0; i++) {
        const char *nm = names[i];
        if (strncmp(nm, "step", 4) != 0)
            continue;
        long num = -1;
        int r = scan_number(nm + 4, &num);
        if (r == BEYOND) {
            rc = err_input(dir, "holds '%s': a step number beyond the integer range (%d)", nm, INT_MAX);
        } else if (r != 0 || !is_subdir(dir, nm)) {
            if (skipped) {
                GROW(*skipped, skip_cap, *nskipped + 1);
                (*skipped)[(*nskipped)++] = xstrdup(nm);
            }
        } else {
            add(out, dir, nm, num, DUMPTREE_NUMBERED);
        }
    }
    names_free(names, n);
    if (rc) {
        dumptree_list_free(out);
        if (skipped) {
            names_free(*skipped, (long)*nskipped);
            *skipped = NULL;
            *nskipped = 0;
        }
        return -1;
    }
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, by_number_name);
    return 0;
}
