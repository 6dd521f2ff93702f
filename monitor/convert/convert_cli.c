/* The run of monitor2tb and monitor2db from their options to their outputs. */
#include "monitor/convert/convert_cli.h"
#include "monitor/convert/convert_run.h"
#include "base/err.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/outdir.h"
#include "base/pool.h"

#include <stdlib.h>
#include <string.h>

int conv_cli_run(int argc, char **argv, const opts_spec *spec, int db)
{
    conv_cli o;
    memset(&o, 0, sizeof o);
    o.c.jobs = pool_cpus();
    opts_result pr = opts_parse(spec, argc, argv, &o, 0, NULL);
    if (pr != OPTS_RUN)
        return opts_exit_status(pr);
    if (o.c.quiet)
        log_set_quiet(1);
    unsigned allowed = db ? (1u << MT_COUNT) - 1 : ((1u << MT_COUNT) - 1) & ~(1u << MT_OTHER);
    conv_plan p;
    if (conv_plan_make(&o.c, allowed, &p) != 0)
        return err_report();
    int status = EXIT_OK;
    char *out = NULL;
    out_run *outputs = out_run_new();
    if (p.nfiles == 0) {
        char *why = p.runs.n ? xstrdup("the run directories hold no csv files of the chosen data types and steps")
                             : monitor_runs_absent(o.c.monitor_dir, o.c.time_start || o.c.time_end, "-m");
        err_input(o.c.monitor_dir, "%s", why);
        free(why);
        status = err_report();
        goto done;
    }
    out = o.c.out_dir ? xstrdup(o.c.out_dir)
                      : conv_default_out(o.c.monitor_dir, db ? "csv2db" : "csv2tensorboard_by_step");
    if (out_run_mkdir(outputs, out) != 0 ||
        (db ? conv_db(&o.c, &p, out, o.partition, outputs) : conv_tb(&o.c, &p, out, outputs)) != 0)
        status = err_report();
done:
    if (status != EXIT_OK)
        out_run_rollback(outputs);
    out_run_free(outputs);
    free(out);
    conv_plan_free(&p);
    return status;
}
