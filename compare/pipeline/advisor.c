/* The advisor file (spec/compare.md §7): the first failing row of the table
 * and msprobe's advice for it, or that everything reached accuracy. */
#include "compare/pipeline/compare.h"
#include "base/outdir.h"
#include "base/strbuf.h"
#include "model/table.h"

#include <stdio.h>
#include <string.h>

static const char *advice_for(const char *node)
{
    static const char *const deterministic[] = {"conv2d", "conv3d", "matmul", "nll_loss", "layer_norm", "lstm"};
    const char *msg;
    int output_case = 0;
    if (strstr(node, "forward")) {
        if (strstr(node, "input")) {
            msg = "1. Analyze the model to view the input source.\n"
                  "2. Check whether an inplace API causes the output result to overwrite the input result. "
                  "That is, the fault is actually caused by a computation error.\n"
                  "3. The fault may be caused by memory corruption and further analysis is required.";
        } else {
            msg = "This is a forward API computation error. Check the computation implementation.";
            output_case = 1;
        }
    } else if (strstr(node, "input")) {
        msg = "Check whether the forward computation result is affected.";
    } else {
        msg = "This is a backward API computation error. Check the computation implementation.";
        output_case = 1;
    }
    if (output_case)
        for (size_t i = 0; i < sizeof deterministic / sizeof deterministic[0]; i++)
            if (strstr(node, deterministic[i])) {
                msg = "This torch api may be uncertainty in the calculation, "
                      "can seed_all(mode=True) to enable deterministic computing.";
                break;
            }
    if (strstr(node, "Functional_batch_norm") && strstr(node, "forward_input.1"))
        msg = "Torch API batch_norm input not fixed, the following suggestions may fix it:\n"
              "1. If use torch.nn.functional.batch_norm, you can set parameter training=False.\n"
              "2. If use torch.nn.BatchNormXXX, you can set parameter affine=False.\n"
              "3. Use seed_all(mode=True) to enable deterministic computing.";
    return msg;
}

/* The line of a csv file on which its record `rec` (0: the header) starts:
 * a quoted cell may hold line breaks (the stack column does). 0 when the
 * file cannot be read that far. */
static size_t csv_line_of(const char *path, size_t rec)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t line = 1, r = 0;
    int quoted = 0, ch;
    while (r < rec && (ch = getc(f)) != EOF) {
        if (ch == '"')
            quoted = !quoted; /* "" inside a quoted cell toggles twice */
        else if (ch == '\n') {
            line++;
            r += !quoted;
        }
    }
    fclose(f);
    return r == rec ? line : 0;
}

/* Where a user finds data row `index` (msprobe's "Line", 0-based, the
 * header not counted): the row a spreadsheet shows -- a sheet holds a header
 * and XLSX_MAX_ROWS - 1 rows, longer tables go on -- and in a csv result the
 * line of the file too. */
static void where(strbuf *sb, const char *result, size_t index)
{
    size_t per = XLSX_MAX_ROWS - 1, n = result ? strlen(result) : 0;
    if (n > 4 && !strcmp(result + n - 4, ".csv")) {
        size_t line = csv_line_of(result, index + 1);
        sb_addf(sb, " (row %zu in a spreadsheet", index + 2);
        if (line)
            sb_addf(sb, ", line %zu of %s", line, result);
        sb_addc(sb, ')');
    } else if (index < per) {
        sb_addf(sb, " (row %zu of the sheet)", index + 2);
    } else {
        sb_addf(sb, " (row %zu of sheet %zu)", index % per + 2, index / per + 1);
    }
}

int write_advisor(compare_ctx *c, char **path, compare_result *res)
{
    (void)c;
    strbuf sb = STRBUF_INIT;
    if (res->first_failing == (size_t)-1) {
        sb_adds(&sb, "Line: NA\nSuspect Nodes: NA\n"
                     "Expert Advice: All data in comparison result meets the accuracy requirements.\n");
    } else {
        /* msprobe's 0-based index first, for whoever reads it; then where
         * a user finds the row */
        const char *node = c->pairs[res->first_failing].n->name;
        sb_addf(&sb, "Line: %zu", res->first_failing);
        where(&sb, res->result_path, res->first_failing);
        sb_addf(&sb, "\nSuspect Nodes: %s\nExpert Advice: %s\n", node, advice_for(node));
    }
    int rc = file_write_new(path, sb.buf, sb.len) < 0 ? -1 : 0;
    sb_free(&sb);
    return rc;
}

