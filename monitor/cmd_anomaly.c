/* `msprobe anomaly`: msprobe's anomaly_processor (python -m
 * msprobe.core.monitor.anomaly_processor -d DIR [-o OUT] [-k N] [-s LIST]):
 * the K earliest anomalies of every rank's anomaly.json, written to
 * OUT/anomaly_analyse.json as msprobe writes it, and shown as a table. */
#include "monitor/commands.h"
#include "monitor/anomaly/anomaly.h"
#include "base/err.h"
#include "base/files.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/numlist.h"
#include "base/opts.h"
#include "base/outdir.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "format/jsonw.h"
#include "model/table.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *dir, *out, *steps;
    int k, format, quiet;
} cli;

static const opt options[] = {
    OPT_STRING("-d --data_path", cli, dir, "ANOMALY_DIR",
               "the monitor's anomaly_detected directory (one rank{N}/anomaly.json per rank)",
               .flags = OPT_REQUIRED | OPT_DIR | OPT_INPUT),
    OPT_STRING("-o --out_path", cli, out, "OUT", "where anomaly_analyse.json goes (default: ANOMALY_DIR)",
               .flags = OPT_DIR),
    OPT_INT("-k --topk", cli, k, "N", INT_MIN, INT_MAX, "keep the N earliest anomalies", .def = "8"),
    OPT_STRING("-s --step | --step_list", cli, steps, "STEPS",
               "only these steps: msprobe's list [13,14], or 13,14,20-29 (default: all)"),
    OPT_CHOICE("--format", cli, format, table_formats, "also write the table as anomaly_analyse.xlsx or .csv"),
    OPT_BOOL("-q --quiet", cli, quiet, "print nothing but errors"),
    OPT_END(),
};

static const opts_spec spec = {
    .usage = "-d ANOMALY_DIR [-o OUT] [-k N] [-s STEPS] [--format xlsx|csv]",
    .about = "Rank the anomalies msprobe's training monitor recorded (anomaly_detected/rank{N}/anomaly.json) the way "
             "msprobe's anomaly_processor does: earliest step first, then micro step, training stage (forward, "
             "backward, optimizer), pipeline stages (forward: first stage first; backward and optimizer: last "
             "first) and call order. The N earliest go to OUT/anomaly_analyse.json, exactly as msprobe writes "
             "it, and to a table on standard output.",
    .opts = options,
    .epilog = "Exit status: 0 done, 2 bad input or usage, 1 internal error.",
};

const command anomaly_command = {
    "anomaly", "anomaly_analyse", "the earliest anomalies of the training monitor (anomaly_processor)", &spec,
    cmd_anomaly,
};

/* The parts of msprobe's message "Rule R reports anomaly signal in ('TAG',
 * 'OP') at step S, current value V, history mean H." */
typedef struct {
    const char *rule, *op, *value, *mean;
    size_t rule_len, op_len, value_len, mean_len;
} message_parts;

static void split_message(const jval *m, message_parts *mp)
{
    memset(mp, 0, sizeof *mp);
    if (!m || m->type != J_STRING)
        return;
    const char *s = m->u.str, *e = s + m->len;
    if (m->len > 5 && !memcmp(s, "Rule ", 5)) {
        mp->rule = s + 5;
        const char *sp = memchr(mp->rule, ' ', (size_t)(e - mp->rule));
        mp->rule_len = sp ? (size_t)(sp - mp->rule) : 0;
    }
    const char *q = memmem(s, m->len, "', '", 4);
    if (q) {
        mp->op = q + 4;
        const char *qe = memchr(mp->op, '\'', (size_t)(e - mp->op));
        mp->op_len = qe ? (size_t)(qe - mp->op) : 0;
    }
    const char *v = memmem(s, m->len, "current value ", 14);
    if (v) {
        mp->value = v + 14;
        const char *c = memchr(mp->value, ',', (size_t)(e - mp->value));
        mp->value_len = c ? (size_t)(c - mp->value) : 0;
    }
    const char *h = memmem(s, m->len, "history mean ", 13);
    if (h) {
        mp->mean = h + 13;
        mp->mean_len = (size_t)(e - mp->mean);
        if (mp->mean_len && mp->mean[mp->mean_len - 1] == '.')
            mp->mean_len--;
    }
}

static const char *const HEADER[] = {"index", "step", "rank", "micro_step", "pp_stage", "vpp_stage", "call_id",
                                     "module", "kind", "rule", "op", "value", "history_mean", "tag_name"};
enum { NCOLS = sizeof HEADER / sizeof HEADER[0] };

/* The cells of one anomaly; its message is parsed again into `scratch`
 * (the caller resets it). */
static int row_cells(const anomaly_list *l, const anomaly *a, size_t index, arena *scratch, char num[7][24], cell *c)
{
    const jval *field[AF_COUNT];
    if (anomaly_fields_of(l, a, scratch, field) != 0)
        return -1;
    message_parts mp;
    split_message(field[AF_MESSAGE], &mp);
    long long v[7] = {(long long)index, a->step, a->rank, a->micro_step, a->pp_stage, a->vpp_stage, a->call_id};
    for (int i = 0; i < 7; i++) {
        snprintf(num[i], 24, "%lld", v[i]);
        c[i] = cell_str(num[i], strlen(num[i]));
    }
    const char *slash = memchr(a->tag, '/', a->tag_len);
    size_t mod_len = slash ? (size_t)(slash - a->tag) : a->tag_len;
    size_t k = a->tag_len;
    while (k && a->tag[k - 1] != '/')
        k--;
    c[7] = cell_str(a->tag, mod_len);
    c[8] = cell_str(a->tag + k, a->tag_len - k);
    c[9] = cell_str(mp.rule ? mp.rule : "", mp.rule_len);
    c[10] = cell_str(mp.op ? mp.op : "", mp.op_len);
    c[11] = cell_str(mp.value ? mp.value : "", mp.value_len);
    c[12] = cell_str(mp.mean ? mp.mean : "", mp.mean_len);
    c[13] = cell_str(a->tag, a->tag_len);
    return 0;
}

static int print_table(const anomaly_list *l, const anomaly *const *sel, size_t n)
{
    /* columns shown: index step rank kind module rule op value history_mean */
    static const int shown[] = {0, 1, 2, 8, 7, 9, 10, 11, 12};
    enum { NSHOWN = sizeof shown / sizeof shown[0] };
    size_t width[NSHOWN];
    for (int j = 0; j < NSHOWN; j++)
        width[j] = strlen(HEADER[shown[j]]);
    cell c[NCOLS];
    char num[7][24];
    arena scratch;
    arena_init(&scratch, 1 << 14);
    for (size_t i = 0; i < n; i++, arena_reset(&scratch)) {
        if (row_cells(l, sel[i], i, &scratch, num, c) != 0) {
            arena_free(&scratch);
            return -1;
        }
        for (int j = 0; j < NSHOWN; j++)
            if (c[shown[j]].len > width[j])
                width[j] = c[shown[j]].len;
    }
    for (int j = 0; j < NSHOWN; j++)
        printf("%s%-*s", j ? "  " : "", j == NSHOWN - 1 ? 0 : (int)width[j], HEADER[shown[j]]);
    printf("\n");
    for (size_t i = 0; i < n; i++, arena_reset(&scratch)) {
        if (row_cells(l, sel[i], i, &scratch, num, c) != 0)
            break;
        for (int j = 0; j < NSHOWN; j++) {
            const cell *x = &c[shown[j]];
            int right = shown[j] <= 2;   /* numbers to the right */
            int pad = j == NSHOWN - 1 ? 0 : (int)width[j] - (int)x->len;
            printf("%s%*s%.*s%*s", j ? "  " : "", right ? pad : 0, "", (int)x->len, x->str, right ? 0 : pad, "");
        }
        printf("\n");
    }
    arena_free(&scratch);
    return 0;
}

/* get_key()'s equality without the key's text: tag + "_step_" + step +
 * "_call_" + call_id, with step and call_id integers (no "_" in their
 * text), is read back from its end uniquely. */
static uint64_t key_hash(const anomaly *a)
{
    uint64_t h = strmap_hash64(0, a->tag, a->tag_len);
    h = strmap_hash64(h, (const char *)&a->step, sizeof a->step);
    return strmap_hash64_end(strmap_hash64(h, (const char *)&a->call_id, sizeof a->call_id));
}

static int same_key(const anomaly *a, const anomaly *b)
{
    return a->step == b->step && a->call_id == b->call_id && a->tag_len == b->tag_len &&
           !memcmp(a->tag, b->tag, a->tag_len);
}

/* anomaly_analyse.json: json.dump(dict, indent=1) of get_key() -> to_dict(),
 * a repeated key keeping its first place and its last record; written as
 * it is made, each record's fields read again from its text, into a
 * temporary file beside `path` (returned; NULL on failure, nothing left). */
static char *write_json(const char *path, const anomaly_list *l, const anomaly *const *sel, size_t n)
{
    /* keys by an open-addressing table of record indices (no key texts) */
    size_t cap = 16;
    while (cap < n * 2)
        cap *= 2;
    size_t *slot = xmalloc_array(cap, sizeof *slot), *last = xmalloc_array(n ? n : 1, sizeof *last);
    size_t *uniq = xmalloc_array(n ? n : 1, sizeof *uniq), nuniq = 0;
    for (size_t i = 0; i < cap; i++)
        slot[i] = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        size_t j = (size_t)key_hash(sel[i]) & (cap - 1);
        while (slot[j] != SIZE_MAX && !same_key(sel[uniq[slot[j]]], sel[i]))
            j = (j + 1) & (cap - 1);
        if (slot[j] == SIZE_MAX) {
            slot[j] = nuniq;
            uniq[nuniq++] = i;
        }
        last[slot[j]] = i;
    }
    free(slot);
    static const jval zero = {.type = J_NUMBER, .is_int = 1, .len = 1, .u.num = 0, .text = "0"};
    static const jval empty = {.type = J_STRING, .len = 0, .u.str = ""};
    static const jval null = {.type = J_NULL};
    /* a temporary file beside it, renamed over it when complete */
    char *tmp = out_tmp_create(path);
    FILE *fp = tmp ? out_tmp_fopen(tmp) : NULL;
    int rc = fp ? 0 : -1;
    strbuf text = STRBUF_INIT, *sb = &text;
    arena scratch;
    arena_init(&scratch, 1 << 14);
    if (rc == 0)
        sb_addc(sb, '{');
    for (size_t u = 0; u < nuniq && rc == 0; u++, arena_reset(&scratch)) {
        const anomaly *a = sel[last[u]];
        const jval *field[AF_COUNT];
        if (anomaly_fields_of(l, a, &scratch, field) != 0) {
            rc = -1;
            break;
        }
        char *key;
        size_t klen;
        anomaly_key(sel[uniq[u]], &key, &klen);
        sb_adds(sb, u ? "," : "");
        jsonw_newline(sb, 1, 1);
        jsonw_str_ascii(sb, key, klen);
        free(key);
        sb_adds(sb, ": {");
        for (int f = 0; f < AF_COUNT; f++) {
            const jval *v = field[f] ? field[f] : f < AF_TAG_NAME ? &zero : f == AF_MESSAGE ? &empty : &null;
            sb_adds(sb, f ? "," : "");
            jsonw_newline(sb, 1, 2);
            jsonw_str_ascii(sb, anomaly_fields[f], strlen(anomaly_fields[f]));
            sb_adds(sb, ": ");
            jsonw_value(sb, v, 1, 2);
        }
        jsonw_newline(sb, 1, 1);
        sb_addc(sb, '}');
        if (sb->len >= (1 << 20)) {
            if (fwrite(sb->buf, 1, sb->len, fp) != sb->len)
                rc = err_set(ERR_OUTPUT, path, "cannot write: %s", strerror(errno));
            sb_reset(sb);
        }
    }
    if (rc == 0) {
        if (nuniq)
            jsonw_newline(sb, 1, 0);
        sb_addc(sb, '}');
        if (fwrite(sb->buf, 1, sb->len, fp) != sb->len || fflush(fp) != 0)
            rc = err_set(ERR_OUTPUT, path, "cannot write: %s", strerror(errno));
    }
    if (fp && fclose(fp) != 0 && rc == 0)
        rc = err_set(ERR_OUTPUT, path, "cannot write: %s", strerror(errno));
    if (rc != 0) {
        out_tmp_discard(tmp);
        tmp = NULL;
    }
    sb_free(&text);
    arena_free(&scratch);
    free(last);
    free(uniq);
    return tmp;
}

static int write_table(const char *path, int format, const anomaly_list *l, const anomaly *const *sel, size_t n,
                       out_run *outputs)
{
    table_writer *t = table_open(path, format, HEADER, NCOLS);
    if (!t)
        return -1;
    cell c[NCOLS];
    char num[7][24];
    arena scratch;
    arena_init(&scratch, 1 << 14);
    for (size_t i = 0; i < n; i++, arena_reset(&scratch)) {
        if (row_cells(l, sel[i], i, &scratch, num, c) != 0 || table_row(t, c, FILL_NONE) != 0) {
            arena_free(&scratch);
            table_abort(t);
            return -1;
        }
    }
    arena_free(&scratch);
    /* replaced, as msprobe replaces anomaly_analyse.json beside it */
    return table_close_replace(t, outputs, "table");
}

/* Why dir gave no anomaly.json: a level too shallow (the monitor's output
 * directory) or too deep (a rank directory), or none at all. */
static void no_anomaly_files(const char *dir)
{
    char *sub = path_join(dir, "anomaly_detected"), *file = path_join(dir, "anomaly.json");
    if (path_kind(sub) == PATH_DIR)
        err_input(dir, "holds no rank directory with an anomaly.json, but %s does: -d takes that directory", sub);
    else if (path_kind(file) == PATH_FILE)
        err_input(dir, "this is a rank directory of anomaly_detected; -d takes the directory above it, which holds "
                       "rank0, rank1, ...");
    else
        err_input(dir, "holds no rank directory with an anomaly.json (the monitor's anomaly_detected directory?)");
    free(sub);
    free(file);
}

int cmd_anomaly(int argc, char **argv, const global_opts *g)
{
    cli o;
    memset(&o, 0, sizeof o);
    o.format = -1;
    opts_result pr = opts_parse(&spec, argc, argv, &o, 0, NULL);
    if (pr != OPTS_RUN)
        return opts_exit_status(pr);
    if (o.quiet)
        log_set_quiet(1);
    numlist steps;
    if (numlist_parse(o.steps ? o.steps : "[]", "-s", &steps) != 0)
        return err_report();
    int all = steps.n == 0;
    if (o.k <= 0) {
        numlist_free(&steps);
        err_set(ERR_USAGE, NULL, "-k %d: the top k number must be greater than 0", o.k);
        return err_report();
    }
    anomaly_list list;
    int status = EXIT_OK;
    out_run *outputs = out_run_new();
    char *json_path = NULL, *table_path = NULL;
    const anomaly **cand = NULL, **sel = NULL;
    size_t *idx = NULL;
    if (anomaly_load(o.dir, &list) != 0) {
        status = err_report();
        goto done;
    }
    log_warn_totals();
    if (list.files == 0) {
        no_anomaly_files(o.dir);
        status = err_report();
        goto done;
    }
    cand = xcalloc(list.n ? list.n : 1, sizeof *cand);
    size_t nc = 0;
    for (size_t i = 0; i < list.n; i++) {
        if (numlist_meets(&steps, list.v[i].step, list.v[i].step))
            cand[nc++] = &list.v[i];
    }
    idx = xcalloc(nc ? nc : 1, sizeof *idx);
    size_t nsel = anomaly_top_k(cand, nc, (size_t)o.k, idx);
    sel = xcalloc(nsel ? nsel : 1, sizeof *sel);
    for (size_t i = 0; i < nsel; i++)
        sel[i] = cand[idx[i]];
    const char *out = o.out ? o.out : o.dir;
    json_path = path_join(out, "anomaly_analyse.json");
    char *tmp = NULL;
    int failed = out_run_mkdir(outputs, out) != 0 ||
                 (path_kind(json_path) != PATH_MISSING && out_check_replaceable(json_path) != 0) ||
                 !(tmp = write_json(json_path, &list, sel, nsel)) ||
                 out_run_replace(outputs, tmp, json_path, "file") != 0;
    if (failed) {
        status = err_report();
        goto done;
    }
    if (o.format >= 0) {
        char name[32];
        snprintf(name, sizeof name, "anomaly_analyse.%s", table_ext(o.format));
        table_path = path_join(out, name);
        if (write_table(table_path, o.format, &list, sel, nsel, outputs) != 0) {
            status = err_report();
            goto done;
        }
    }
    if (!o.quiet) {
        printf("top %zu of %zu anomal%s%s (%zu file%s) -> %s%s%s\n", nsel, nc, nc == 1 ? "y" : "ies",
               all ? "" : " of the chosen steps", list.files, list.files == 1 ? "" : "s", json_path,
               table_path ? ", " : "", table_path ? table_path : "");
        if (nsel && print_table(&list, sel, nsel) != 0) {
            status = err_report();
            goto done;
        }
    }
done:
    if (status != EXIT_OK)
        out_run_rollback(outputs);
    out_run_free(outputs);
    anomaly_list_free(&list);
    free(json_path);
    free(table_path);
    free(cand);
    free(sel);
    free(idx);
    numlist_free(&steps);
    return status;
}
