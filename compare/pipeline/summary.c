/* What a compare run tells its caller: one line per result on stdout, a
 * total line when there are several, an optional JSON summary for pipelines,
 * and the CI gate (--fail-on) that turns failing rows into exit status 3. */
#include "compare/pipeline/summary.h"
#include "base/files.h"
#include "base/outdir.h"
#include "base/log.h"
#include "base/err.h"
#include "format/jsonw.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const mode_names[] = {"tensor", "statistics", "md5"};

static const char *const gate_kinds[] = {"warning", "no", "different", "unmatched", "red", "yellow", "error"};
#define NKINDS (sizeof gate_kinds / sizeof *gate_kinds)

/* The failing rows of a result: Result Warning (statistics), Accuracy No
 * (tensors) or Result Different (md5) — msprobe's own notion, which the
 * advisor uses too; in the newest dialect Result error. */
static size_t failing(const compare_result *r)
{
    if (r->dialect == DIALECT_NEWEST)
        return r->error;
    return r->mode == MODE_SUMMARY ? r->warning : r->mode == MODE_MD5 ? r->different : r->accuracy_no;
}

static const char *failing_kind(const compare_result *r)
{
    if (r->dialect == DIALECT_NEWEST)
        return "error";
    return r->mode == MODE_SUMMARY ? "Warning" : r->mode == MODE_MD5 ? "Different" : "No";
}

int gate_fails(unsigned mask, const compare_result *r)
{
    if (!r->result_path)
        return 0;
    return ((mask & FAIL_WARNING) && r->warning) || ((mask & FAIL_NO) && r->accuracy_no) ||
           ((mask & FAIL_DIFFERENT) && r->different) || ((mask & FAIL_UNMATCHED) && r->unmatched) ||
           ((mask & FAIL_RED) && r->red) || ((mask & FAIL_YELLOW) && r->yellow) || ((mask & FAIL_ERROR) && r->error);
}

void summary_line(const compare_job *job, const compare_result *r, int highlighted)
{
    if (!r->result_path)
        return;
    /* rows whose tensor files could not be read say only that in the table */
    char unreadable[48] = "";
    if (r->unreadable)
        snprintf(unreadable, sizeof unreadable, ", %zu tensors unreadable", r->unreadable);
    /* -da highlights nothing: no counts that say so */
    char hl[64] = "";
    if (highlighted)
        snprintf(hl, sizeof hl, ", highlighted %zu red %zu yellow", r->red, r->yellow);
    if (r->dialect == DIALECT_NEWEST)
        log_info("%s: %zu rows, %zu matched, %zu unmatched, %zu failing (error), %zu warning%s -> %s",
                 job->label[0] ? job->label : "compare", r->rows, r->matched, r->unmatched, r->error, r->warning,
                 unreadable, r->result_path);
    else
        log_info("%s: %zu rows, %zu matched, %zu unmatched, %zu failing (%s)%s%s -> %s",
                 job->label[0] ? job->label : "compare", r->rows, r->matched, r->unmatched, failing(r),
                 failing_kind(r), unreadable, hl, r->result_path);
}

void summary_total(const compare_result *rs, size_t n, int highlighted)
{
    size_t results = 0, rows = 0, matched = 0, unmatched = 0, fail = 0, red = 0, yellow = 0, unread = 0;
    for (size_t i = 0; i < n; i++) {
        if (!rs[i].result_path)
            continue;
        results++;
        rows += rs[i].rows;
        matched += rs[i].matched;
        unmatched += rs[i].unmatched;
        fail += failing(&rs[i]);
        red += rs[i].red;
        yellow += rs[i].yellow;
        unread += rs[i].unreadable;
    }
    char unreadable[48] = "";
    if (unread)
        snprintf(unreadable, sizeof unreadable, ", %zu tensors unreadable", unread);
    char hl[64] = "";
    if (highlighted)
        snprintf(hl, sizeof hl, ", highlighted %zu red %zu yellow", red, yellow);
    if (results > 1)
        log_info("total: %zu results, %zu rows, %zu matched, %zu unmatched, %zu failing%s%s", results, rows, matched,
                 unmatched, fail, unreadable, hl);
}

static void json_counts(strbuf *sb, const compare_result *r)
{
    sb_addf(sb, "\"rows\": %zu, \"matched\": %zu, \"unmatched\": %zu, \"warning\": %zu, \"accuracy_no\": %zu, "
                "\"different\": %zu, \"error\": %zu, \"red\": %zu, \"yellow\": %zu",
            r->rows, r->matched, r->unmatched, r->warning, r->accuracy_no, r->different, r->error, r->red, r->yellow);
}

int summary_write_json(const char *path, const compare_job *jobs, const compare_result *rs, size_t n, unsigned mask,
                       int exit_status)
{
    strbuf sb = STRBUF_INIT;
    compare_result total = {0};
    sb_adds(&sb, "{\n  \"results\": [");
    size_t written = 0;
    for (size_t i = 0; i < n; i++) {
        const compare_result *r = &rs[i];
        sb_adds(&sb, written++ ? ",\n    {" : "\n    {");
        sb_adds(&sb, "\"label\": ");
        jsonw_str(&sb, jobs[i].label);
        sb_adds(&sb, ", \"target\": ");
        jsonw_str(&sb, jobs[i].npu_json);
        sb_adds(&sb, ", \"bench\": ");
        jsonw_str(&sb, jobs[i].bench_json);
        if (r->result_path) {
            sb_addf(&sb, ", \"mode\": \"%s\", \"result\": ", mode_names[r->mode]);
            jsonw_str(&sb, r->result_path);
            sb_adds(&sb, ", \"advisor\": ");
            if (r->advisor_path)
                jsonw_str(&sb, r->advisor_path);
            else
                sb_adds(&sb, "null");
            sb_adds(&sb, ", ");
            json_counts(&sb, r);
            sb_addf(&sb, ", \"failed\": %s", gate_fails(mask, r) ? "true" : "false");
        } else {
            sb_adds(&sb, ", \"result\": null");
        }
        sb_addc(&sb, '}');
        total.rows += r->rows, total.matched += r->matched, total.unmatched += r->unmatched;
        total.warning += r->warning, total.accuracy_no += r->accuracy_no, total.different += r->different;
        total.error += r->error;
        total.red += r->red, total.yellow += r->yellow;
    }
    sb_adds(&sb, "\n  ],\n  \"total\": {");
    json_counts(&sb, &total);
    sb_adds(&sb, "},\n  \"fail_on\": [");
    int first = 1;
    for (size_t k = 0; k < NKINDS; k++)
        if (mask & (1u << k)) {
            sb_addf(&sb, "%s\"%s\"", first ? "" : ", ", gate_kinds[k]);
            first = 0;
        }
    sb_addf(&sb, "],\n  \"exit_status\": %d\n}\n", exit_status);

    /* checked before the run too; again, as the rename replaces whatever
     * is there by now */
    int rc = out_check_replaceable(path) != 0 ? -1 : file_write_atomic(path, sb.buf, sb.len);
    sb_free(&sb);
    return rc;
}
