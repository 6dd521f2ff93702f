/* Turning the two paths a user gives into pairs of dump files to compare.
 *
 * A path is a dump.json/debug.json file, a rank directory (holding the
 * file), a step directory (holding rank, rank0, rank1, ... directories) or a
 * dump root (holding step0, step1, ...). Both sides must be of the same
 * kind. Ranks are sorted by number and paired in order (msprobe pairs them
 * by position); steps are paired by number; each pair of rank directories
 * compares its dump.json (and debug.json when both have one).
 */
#include "compare/pipeline/inputs.h"
#include "base/files.h"
#include "base/log.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/strbuf.h"

#include <stdlib.h>
#include <string.h>

enum kind { K_FILE, K_RANK, K_STEP, K_ROOT };
static const char *const kind_names[] = {"a dump file", "a rank directory", "a step directory", "a dump root"};

/* "rank" -> -1, "rank12" -> 12, anything else -> -2 (msprobe's
 * ^rank(?:0|[1-9][0-9]*)?$). Same for "step" except the number is needed. */
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
    long v = 0;
    for (; *d; d++) {
        if (*d < '0' || *d > '9' || v > 100000000)
            return -2;
        v = v * 10 + (*d - '0');
    }
    return v;
}

static int has_file(const char *dir, const char *name)
{
    char *p = path_join(dir, name);
    int r = path_kind(p) == PATH_FILE;
    free(p);
    return r;
}

static int classify(const char *path, int *kind)
{
    enum path_kind pk = path_kind(path);
    if (pk == PATH_FILE) {
        *kind = K_FILE;
        return 0;
    }
    if (pk != PATH_DIR)
        return path_require(path, 1);
    if (has_file(path, "dump.json") || has_file(path, "debug.json")) {
        *kind = K_RANK;
        return 0;
    }
    char **names;
    long n = dir_list(path, &names);
    if (n < 0)
        return -1;
    int ranks = 0, steps = 0;
    for (long i = 0; i < n; i++) {
        ranks += numbered(names[i], "rank", 1) >= -1;
        steps += numbered(names[i], "step", 0) >= 0;
    }
    names_free(names, n);
    if (ranks) {
        *kind = K_STEP;
        return 0;
    }
    if (steps) {
        *kind = K_ROOT;
        return 0;
    }
    return err_input(path, "holds no dump.json or debug.json, no rank* and no step* directories: not a msprobe dump");
}

typedef struct {
    char *name;
    long number;
} numbered_dir;

static int by_number(const void *a, const void *b)
{
    const numbered_dir *x = a, *y = b;
    return x->number < y->number ? -1 : x->number > y->number;
}

/* The rank (or step) directories of `dir`, sorted by number. msprobe
 * accepts nothing else inside a step directory; neither do we. */
static long list_numbered(const char *dir, const char *prefix, numbered_dir **out)
{
    char **names;
    long n = dir_list(dir, &names);
    if (n < 0)
        return -1;
    numbered_dir *v = xcalloc((size_t)n + 1, sizeof *v);
    int is_rank = !strcmp(prefix, "rank");
    for (long i = 0; i < n; i++) {
        long num = numbered(names[i], prefix, is_rank);
        char *full = path_join(dir, names[i]);
        int is_dir = path_kind(full) == PATH_DIR;
        free(full);
        if (num < -1 || !is_dir) {
            err_input(dir, "contains '%s'. Expected only '%s' directories (%s). This name is not in the format of "
                           "dump output. Please check and delete irrelevant files and try again.",
                      names[i], is_rank ? "rank, rank0, rank1, ..." : "step0, step1, ...", prefix);
            for (long k = 0; k < i; k++)
                free(v[k].name);
            free(v);
            names_free(names, n);
            return -1;
        }
        v[i].name = names[i];
        v[i].number = num;
        names[i] = NULL;
    }
    free(names);
    qsort(v, (size_t)n, sizeof *v, by_number);
    *out = v;
    return n;
}

static void free_numbered(numbered_dir *v, long n)
{
    for (long i = 0; i < n; i++)
        free(v[i].name);
    free(v);
}

static void add_job(job_list *jl, const char *npu, const char *bench, const char *stack, const char *out_dir,
                    const char *suffix, const char *label)
{
    if (jl->n == jl->cap) {
        jl->cap = jl->cap ? jl->cap * 2 : 8;
        jl->v = xrealloc(jl->v, jl->cap * sizeof *jl->v);
    }
    compare_job *j = &jl->v[jl->n++];
    j->npu_json = xstrdup(npu);
    j->bench_json = xstrdup(bench);
    j->stack_json = stack ? xstrdup(stack) : NULL;
    j->out_dir = xstrdup(out_dir);
    j->suffix = xstrdup(suffix);
    j->label = xstrdup(label);
}

/* Where the stack of a target dump.json comes from, per policy. */
static int stack_for(const char *npu_json, const resolve_opts *o, char **stack)
{
    *stack = NULL;
    if (o->stack_policy == STACK_GIVEN) {
        if (o->stack_flag) {
            if (path_require(o->stack_path, 0) != 0)
                return -1;
            *stack = xstrdup(o->stack_path);
        }
        return 0;
    }
    if (o->stack_policy == STACK_NONE || (o->stack_policy == STACK_FLAG && !o->stack_flag))
        return 0;
    char *dir = path_dirname(npu_json);
    char *p = path_join(dir, "stack.json");
    free(dir);
    if (path_kind(p) == PATH_FILE) {
        *stack = p;
        return 0;
    }
    if (o->stack_policy == STACK_FLAG) {
        err_input(p, "not found: -s shows the NPU_Stack_Info column from the stack.json beside the target dump");
        free(p);
        return -1;
    }
    free(p);
    return 0;
}

static int file_pair(const char *npu, const char *bench, const resolve_opts *o, const char *out_dir,
                     const char *suffix, const char *label, job_list *jl)
{
    char *nb = path_basename(npu), *bb = path_basename(bench);
    int n_debug = !strcmp(nb, "debug.json"), b_debug = !strcmp(bb, "debug.json");
    free(nb);
    free(bb);
    if (n_debug != b_debug)
        return err_input(npu, "cannot be compared with %s: one is a debug.json, the other a dump.json", bench);
    char *stack;
    if (stack_for(npu, o, &stack) != 0)
        return -1;
    add_job(jl, npu, bench, stack, out_dir, suffix, label);
    free(stack);
    return 0;
}

static int rank_pair(const char *npu, const char *bench, const resolve_opts *o, const char *out_dir,
                     const char *suffix, const char *label, job_list *jl)
{
    int found = 0;
    static const char *const files[2] = {"dump.json", "debug.json"};
    for (int f = 0; f < 2; f++) {
        char *a = path_join(npu, files[f]), *b = path_join(bench, files[f]);
        int ha = path_kind(a) == PATH_FILE, hb = path_kind(b) == PATH_FILE;
        int rc = 0;
        if (ha && hb) {
            rc = file_pair(a, b, o, out_dir, suffix, label, jl);
            found = 1;
        } else if (ha != hb && f == 0) {
            rc = path_require(ha ? b : a, 0);
        }
        free(a);
        free(b);
        if (rc)
            return -1;
    }
    if (!found)
        return err_input(npu, "no dump.json or debug.json to compare with %s", bench);
    return 0;
}

static int step_pair(const char *npu, const char *bench, const resolve_opts *o, const char *out_dir,
                     const char *step_label, job_list *jl)
{
    numbered_dir *nr = NULL, *br = NULL;
    long nn = list_numbered(npu, "rank", &nr);
    if (nn < 0)
        return -1;
    long bn = list_numbered(bench, "rank", &br);
    if (bn < 0) {
        free_numbered(nr, nn);
        return -1;
    }
    int rc = 0;
    if (nn != bn) {
        rc = err_input(npu, "has %ld rank directories but %s has %ld: the number of ranks in the two runs are "
                            "different, unable to match the ranks",
                       nn, bench, bn);
    }
    for (long i = 0; i < nn && rc == 0; i++) {
        /* "rank" (a run without ranks) is rank 0 for --ranks */
        if (o->ranks && !numlist_has(o->ranks, nr[i].number < 0 ? 0 : nr[i].number))
            continue;
        char *a = path_join(npu, nr[i].name), *b = path_join(bench, br[i].name);
        strbuf suffix = STRBUF_INIT, label = STRBUF_INIT;
        sb_addf(&suffix, "_%s", nr[i].name);
        if (step_label)
            sb_addf(&label, "%s/%s", step_label, nr[i].name);
        else
            sb_adds(&label, nr[i].name);
        if (nr[i].number != br[i].number)
            log_warn("pairing target %s with bench %s (ranks are paired in numeric order)", a, b);
        rc = rank_pair(a, b, o, out_dir, sb_str(&suffix), sb_str(&label), jl);
        sb_free(&suffix);
        sb_free(&label);
        free(a);
        free(b);
    }
    free_numbered(nr, nn);
    free_numbered(br, bn);
    return rc;
}

static int root_pair(const char *npu, const char *bench, const resolve_opts *o, job_list *jl)
{
    numbered_dir *ns = NULL, *bs = NULL;
    long nn = list_numbered(npu, "step", &ns);
    if (nn < 0)
        return -1;
    long bn = list_numbered(bench, "step", &bs);
    if (bn < 0) {
        free_numbered(ns, nn);
        return -1;
    }
    int rc = 0;
    long i = 0, k = 0;
    while (rc == 0 && (i < nn || k < bn)) {
        if (k >= bn || (i < nn && ns[i].number < bs[k].number)) {
            rc = err_input(npu, "has %s but %s has not: the steps of the two runs differ", ns[i].name, bench);
        } else if (i >= nn || bs[k].number < ns[i].number) {
            rc = err_input(bench, "has %s but %s has not: the steps of the two runs differ", bs[k].name, npu);
        } else {
            if (!o->steps || numlist_has(o->steps, ns[i].number)) {
                char *a = path_join(npu, ns[i].name), *b = path_join(bench, bs[k].name);
                char *out = path_join(o->out_dir, ns[i].name);
                rc = step_pair(a, b, o, out, ns[i].name, jl);
                free(a);
                free(b);
                free(out);
            }
            i++;
            k++;
        }
    }
    free_numbered(ns, nn);
    free_numbered(bs, bn);
    return rc;
}

int jobs_resolve(const char *npu, const char *bench, const resolve_opts *o, job_list *jl)
{
    memset(jl, 0, sizeof *jl);
    int kn, kb;
    if (classify(npu, &kn) != 0 || classify(bench, &kb) != 0)
        return -1;
    if (kn != kb)
        return err_input(npu, "is %s but %s is %s: the target and bench paths need to be of the same kind",
                         kind_names[kn], bench, kind_names[kb]);
    if (o->ranks && kn != K_STEP && kn != K_ROOT)
        return err_input(npu, "is %s: --ranks selects ranks of step directories or dump roots", kind_names[kn]);
    if (o->steps && kn != K_ROOT)
        return err_input(npu, "is %s: --steps selects steps of a dump root", kind_names[kn]);
    int rc;
    switch (kn) {
    case K_FILE:
        rc = file_pair(npu, bench, o, o->out_dir, "", "", jl);
        break;
    case K_RANK:
        rc = rank_pair(npu, bench, o, o->out_dir, "", "", jl);
        break;
    case K_STEP:
        rc = step_pair(npu, bench, o, o->out_dir, NULL, jl);
        break;
    default:
        rc = root_pair(npu, bench, o, jl);
        break;
    }
    if (rc == 0 && jl->n == 0)
        rc = err_input(npu, "no rank or step is left to compare after --ranks/--steps");
    if (rc)
        jobs_free(jl);
    return rc;
}

void job_free(compare_job *j)
{
    free(j->npu_json);
    free(j->bench_json);
    free(j->stack_json);
    free(j->out_dir);
    free(j->suffix);
    free(j->label);
}

void jobs_free(job_list *jl)
{
    for (size_t i = 0; i < jl->n; i++)
        job_free(&jl->v[i]);
    free(jl->v);
    memset(jl, 0, sizeof *jl);
}
