/* `msprobe data2db`: the newest msprobe's command, dump trees and monitor
 * output into the SQLite trend databases its TensorBoard plugin reads. */
#include "monitor/commands.h"
#include "monitor/data2db/dump2db.h"
#include "monitor/data2db/monitor2trend.h"
#include "model/dumptree.h"
#include "format/json.h"
#include "base/err.h"
#include "base/files.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/opts.h"
#include "base/outdir.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { F_AUTO, F_DUMP, F_MONITOR };

typedef struct {
    const char *db, *data, *mapping;
    int format, micro, process_num, quiet;
} cli;

static const opt_choice formats[] = {{"auto", F_AUTO, NULL}, {"dump", F_DUMP, NULL}, {"monitor", F_MONITOR, NULL},
                                     {NULL, 0, NULL}};
static const opt_choice bools[] = {{"true", 1, NULL}, {"false", 0, NULL}, {"True", 1, NULL}, {"False", 0, NULL},
                                   {NULL, 0, NULL}};

static const opt options[] = {
    OPT_STRING("--db", cli, db, "OUT_DIR", "Path to SQLite database output directory (created if needed)",
               .flags = OPT_REQUIRED | OPT_DIR),
    OPT_STRING("--data", cli, data, "DATA_DIR", "Path to input data directory: a dump root (step*/rank*) or a "
                                                "monitor's output directory",
               .flags = OPT_REQUIRED | OPT_DIR | OPT_INPUT),
    OPT_CHOICE("--format", cli, format, formats,
               "auto (both importers, each where it finds its data), dump or monitor", .def = "auto"),
    OPT_STRING("--mapping", cli, mapping, "FILE",
               "JSON object of name replacements {\"from\": \"to\"}, applied in order to every name",
               .flags = OPT_FILE),
    OPT_CHOICE("--micro_step", cli, micro, bools,
               "Use micro-step counting: steps numbered per micro step (default: true)", .def = "true"),
    OPT_INT("--process_num | -j --jobs", cli, process_num, "N", 1, 128,
            "Number of threads for monitor data", .def = "1"),
    OPT_BOOL("-q --quiet", cli, quiet, "print nothing but errors"),
    OPT_END(),
};

static const opts_spec spec = {
    .usage = "--db OUT_DIR --data DATA_DIR [--format auto|dump|monitor] [--mapping FILE] [--micro_step true|false] "
             "[--process_num N]",
    .about = "The newest msprobe's data2db: convert precision dumps and training-monitor output into the SQLite trend "
             "databases of its TensorBoard trend plugin, so that statistics across steps and ranks can be plotted "
             "and queried with SQL.\n\n"
             "dump: every step*/rank*|proc*/dump.json of DATA_DIR (statistics, tensor or md5 dumps) becomes "
             "OUT_DIR/dump_data.trend.db: each float tensor of each entry one row of trend_data with its norm, "
             "max, min and mean, by rank, step, target and metric (forward, backward, recompute, "
             "parameters_grad).\n\n"
             "monitor: the monitor's {time}-rank{R}-{id}/*.csv files become OUT_DIR/monitor_data.trend.db.",
    .opts = options,
    .epilog = "Exit status: 0 done, 2 bad input or usage (also when DATA_DIR holds nothing to import; nothing "
              "written), 1 internal error.",
};

const command data2db_command = {
    "data2db", NULL, "dumps and monitor output to trend databases (the newest msprobe's data2db)", &spec,
    cmd_data2db,
};

/* --mapping: a JSON object of strings, kept in file order. */
static int load_mapping(const char *path, arena *a, const char ***from, const char ***to, size_t *n)
{
    *from = *to = NULL;
    *n = 0;
    mapped_file f;
    jval doc;
    int rc = json_load_file(path, 0, &f, a, &doc, "is not a JSON object of name replacements {\"from\": \"to\"}");
    if (rc == 0) {
        *from = xcalloc(doc.len + 1, sizeof **from);
        *to = xcalloc(doc.len + 1, sizeof **to);
        for (uint32_t i = 0; i < doc.len && rc == 0; i++) {
            const jmember *m = &doc.u.members[i];
            const jval *v = json_member_value(&doc, i);
            if (v->type != J_STRING) {
                rc = err_input(path, "the replacement of '%.*s' is not a string", (int)(m->keylen > 80 ? 80 : m->keylen),
                               m->key);
                break;
            }
            if (memchr(m->key, 0, m->keylen) || memchr(v->u.str, 0, v->len)) {
                rc = err_input(path, "a name holds a NUL character");
                break;
            }
            (*from)[*n] = arena_strndup(a, m->key, m->keylen);
            (*to)[*n] = arena_strndup(a, v->u.str, v->len);
            ++*n;
        }
    }
    file_unmap(&f);
    return rc;
}

int cmd_data2db(int argc, char **argv, const global_opts *g)
{
    cli o;
    memset(&o, 0, sizeof o);
    opts_result pr = opts_parse(&spec, argc, argv, &o, 0, NULL);
    if (pr != OPTS_RUN)
        return opts_exit_status(pr);
    if (o.quiet)
        log_set_quiet(1);
    arena a;
    arena_init(&a, 1 << 12);
    const char **from = NULL, **to = NULL;
    size_t nmap = 0;
    int status = EXIT_OK;
    out_run *outputs = out_run_new();
    char *why_dump = NULL, *why_monitor = NULL;
    if ((o.mapping && load_mapping(o.mapping, &a, &from, &to, &nmap) != 0) || path_require(o.data, 1) != 0 ||
        (path_kind(o.db) != PATH_MISSING && path_require(o.db, 1) != 0)) {
        status = err_report();
        goto done;
    }
    /* a step or rank directory given for the dump root: say so, alone */
    if (o.format != F_MONITOR && dumptree_want_level(o.data, DUMPTREE_ROOT, "--data") != 0) {
        status = err_report();
        goto done;
    }
    int found = 0;
    if (o.format != F_MONITOR) {
        dump2db_opts d = {o.data, o.db, o.micro, from, to, nmap, o.quiet};
        int rc = dump2db_run(&d, outputs, &why_dump);
        if (rc < 0) {
            status = err_report();
            goto done;
        }
        found += rc == 0;
    }
    if (o.format != F_DUMP) {
        monitor2trend_opts m = {o.data, o.db, o.micro, from, to, nmap, o.process_num, o.quiet};
        int rc = monitor2trend_run(&m, outputs, &why_monitor);
        if (rc < 0) {
            status = err_report();
            goto done;
        }
        found += rc == 0;
    }
    if (!found) {
        if (o.format == F_AUTO)
            err_input(o.data, "no dump and no monitor output to import: %s; %s", why_dump, why_monitor);
        else
            err_input(o.data, "%s", o.format == F_DUMP ? why_dump : why_monitor);
        status = err_report();
    }
done:
    if (status != EXIT_OK)
        out_run_rollback(outputs);
    out_run_free(outputs);
    free(from);
    free(to);
    free(why_dump);
    free(why_monitor);
    arena_free(&a);
    return status;
}
