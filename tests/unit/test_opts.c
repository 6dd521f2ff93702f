/* The option parser every subcommand uses: spellings, argparse's
 * abbreviations and their ambiguity, `=`, `--`, optional values, required
 * values that must not swallow the next option, choices, numbers,
 * positional arguments, "did you mean", and the help text's width. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/err.h"
#include "base/numlist.h"
#include "base/opts.h"
#include "compare/commands.h"
#include "parse/commands.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    const char *target, *out, *map_file, *fail_on, *ranks, *file, *file2;
    int stack, steps_a, steps_b, jobs, format, mode, map, compat, xlsx_sheet, quiet;
} cli;

static const opt_choice formats[] = {{"xlsx", 1, NULL}, {"csv", 2, NULL}, {NULL, 0, NULL}};
static const opt_choice modes[] = {{"auto", 0, NULL}, {"torchair", 9, "not offered here"}, {NULL, 0, NULL}};

static const opt table[] = {
    OPT_STRING("-n -tp --target_path | --npu_path", cli, target, "PATH", "target"),
    OPT_OPTSTRING("-o --output_path", cli, out, "DIR", "output", .def = "./output"),
    OPT_OPTSTRING("-am --api_mapping", cli, map_file, "FILE", "mapping", OPT_ALSO_SETS(cli, map)),
    OPT_BOOL("-s --stack_mode", cli, stack, "stack"),
    OPT_BOOL("--step", cli, steps_a, "one step"),
    OPT_BOOL("--steps", cli, steps_b, "steps"),
    OPT_BOOL("--summary", cli, xlsx_sheet, "summary"),
    OPT_INT("-j --jobs", cli, jobs, "N", 1, 64, "jobs"),
    OPT_CHOICE("--format", cli, format, formats, "format", .def = "xlsx"),
    OPT_CHOICE("-m --mode", cli, mode, modes, "mode"),
    OPT_BOOL("--zero-d-repeat | --compat", cli, compat, "0-d"),
    OPT_BOOL("-tensor_log --is_print_compare_log", cli, quiet, "ignored"),
    OPT_BOOL("-da --diff_analyze", cli, quiet, "da"),
    OPT_BOOL("-dm", cli, quiet, "dm"),
    OPT_STRING("--fail-on", cli, fail_on, "KINDS", "gate"),
    OPT_STRING("--ranks --rank", cli, ranks, "LIST", "ranks"),
    OPT_REFUSE("-fr --fusion_rule_file", "offline_data is not offered"),
    OPT_STRING("FILE", cli, file, "FILE", "first"),
    OPT_STRING("BENCH", cli, file2, "BENCH", "second"),
    OPT_END(),
};
static const opts_spec spec = {.usage = "[options] FILE [BENCH]", .opts = table};

/* Parse the words of `line` (split at spaces) into *o. */
static opts_result run(cli *o, const char *line)
{
    static char buf[512];
    static char *argv[64];
    snprintf(buf, sizeof buf, "prog %s", line);
    int argc = 0;
    for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " "))
        argv[argc++] = t;
    argv[argc] = NULL;
    memset(o, 0, sizeof *o);
    err_clear();
    return opts_parse(&spec, argc, argv, o, OPTS_NO_REPORT, NULL);
}

#define assert_error(o, line, text)                            \
    do {                                                       \
        assert_int_equal(run(o, line), OPTS_USAGE_ERROR);                    \
        assert_int_equal(err_cause(), ERR_USAGE);              \
        assert_string_equal(err_message(), text);              \
    } while (0)

static void test_spellings_and_values(void **state)
{
    cli o;
    assert_int_equal(run(&o, "-n a"), OPTS_RUN);
    assert_string_equal(o.target, "a");
    assert_int_equal(run(&o, "-tp a"), OPTS_RUN);
    assert_string_equal(o.target, "a");
    assert_int_equal(run(&o, "--target_path=a=b"), OPTS_RUN);
    assert_string_equal(o.target, "a=b");
    assert_int_equal(run(&o, "-n=x"), OPTS_RUN);
    assert_string_equal(o.target, "x");
    /* an alias works when typed in full */
    assert_int_equal(run(&o, "--npu_path p --compat"), OPTS_RUN);
    assert_string_equal(o.target, "p");
    assert_int_equal(o.compat, 1);
    /* the last one wins, as in argparse */
    assert_int_equal(run(&o, "-n a -n b"), OPTS_RUN);
    assert_string_equal(o.target, "b");
    /* single-dash names of several letters */
    assert_int_equal(run(&o, "-tensor_log"), OPTS_RUN);
    assert_int_equal(o.quiet, 1);
    /* a one-letter option's value may be attached when it is a number or
     * one of its choices; -npu is no -n with the path "pu" */
    assert_int_equal(run(&o, "-j4"), OPTS_RUN);
    assert_int_equal(o.jobs, 4);
    assert_error(&o, "-nfoo", "unknown option '-nfoo'; did you mean '-n'?");
    assert_error(&o, "-npu a", "unknown option '-npu'; did you mean '-n'?");
    assert_error(&o, "-jx", "unknown option '-jx'; did you mean '-j'?");
    /* defaults come from the table */
    assert_int_equal(run(&o, ""), OPTS_RUN);
    assert_string_equal(o.out, "./output");
    assert_int_equal(o.format, 1);
    assert_null(o.target);
}

static void test_abbreviations(void **state)
{
    cli o;
    /* a unique prefix stands for the option */
    assert_int_equal(run(&o, "--stack"), OPTS_RUN);
    assert_int_equal(o.stack, 1);
    assert_int_equal(run(&o, "--targ x"), OPTS_RUN);
    assert_string_equal(o.target, "x");
    assert_int_equal(run(&o, "--form=csv"), OPTS_RUN);
    assert_int_equal(o.format, 2);
    assert_int_equal(run(&o, "-tens"), OPTS_RUN);
    assert_int_equal(o.quiet, 1);
    /* an exact spelling wins over the longer ones it begins */
    assert_int_equal(run(&o, "--step"), OPTS_RUN);
    assert_int_equal(o.steps_a, 1);
    assert_int_equal(o.steps_b, 0);
    assert_int_equal(run(&o, "--steps"), OPTS_RUN);
    assert_int_equal(o.steps_b, 1);
    /* several options: refused, naming them */
    assert_error(&o, "--ste", "option '--ste' is ambiguous; it could be --step or --steps");
    assert_error(&o, "--s", "option '--s' is ambiguous; it could be --stack_mode, --step, --steps or --summary");
    assert_error(&o, "-d", "option '-d' is ambiguous; it could be -da or -dm");
    /* aliases are never abbreviated: --comp is no --compat */
    assert_error(&o, "--comp", "unknown option '--comp'");
    /* two spellings of one option are not ambiguous */
    assert_int_equal(run(&o, "--ra 1,2"), OPTS_RUN);
    assert_string_equal(o.ranks, "1,2");
    assert_int_equal(run(&o, "--rank 3"), OPTS_RUN);
    assert_string_equal(o.ranks, "3");
    /* the hidden --help-man is not abbreviated */
    assert_error(&o, "--help-", "unknown option '--help-'; did you mean '--help'?");
}

static void test_double_dash(void **state)
{
    cli o;
    assert_int_equal(run(&o, "-s -- -n --x"), OPTS_RUN);
    assert_int_equal(o.stack, 1);
    assert_null(o.target);
    assert_string_equal(o.file, "-n");
    assert_string_equal(o.file2, "--x");
    /* "-" alone is an argument */
    assert_int_equal(run(&o, "- -s"), OPTS_RUN);
    assert_string_equal(o.file, "-");
    assert_error(&o, "a b c", "unexpected argument 'c'");
    /* a path typed without its option: which option takes it */
    static const opt in_table[] = {
        OPT_STRING("-n -tp --target_path", cli, target, "TARGET", "target", .flags = OPT_INPUT),
        OPT_STRING("-b --golden_path", cli, file, "BENCH", "bench", .flags = OPT_INPUT),
        OPT_STRING("--data", cli, file2, "DATA_DIR", "data", .flags = OPT_INPUT),
        OPT_END(),
    };
    static const opts_spec in_spec = {.opts = in_table};
    char *argv[] = {"prog", "dir1", NULL};
    err_clear();
    assert_int_equal(opts_parse(&in_spec, 2, argv, &o, OPTS_NO_REPORT, NULL), OPTS_USAGE_ERROR);
    assert_non_null(strstr(err_message(), "unexpected argument 'dir1': "));
    assert_non_null(strstr(err_message(), " takes TARGET with -n (or -tp), BENCH with -b and DATA_DIR with --data"));
    assert_int_equal(run(&o, "a -s b"), OPTS_RUN);
    assert_string_equal(o.file, "a");
    assert_string_equal(o.file2, "b");
}

static void test_optional_values(void **state)
{
    cli o;
    /* -o [DIR]: the default when nothing follows or an option follows */
    assert_int_equal(run(&o, "-o"), OPTS_RUN);
    assert_string_equal(o.out, "./output");
    assert_int_equal(run(&o, "-o -s"), OPTS_RUN);
    assert_string_equal(o.out, "./output");
    assert_int_equal(o.stack, 1);
    assert_int_equal(run(&o, "-o dir -s"), OPTS_RUN);
    assert_string_equal(o.out, "dir");
    assert_int_equal(run(&o, "--output_path=d"), OPTS_RUN);
    assert_string_equal(o.out, "d");
    /* -am [FILE]: given or not, with or without a file */
    assert_int_equal(run(&o, "-s"), OPTS_RUN);
    assert_int_equal(o.map, 0);
    assert_int_equal(run(&o, "-am"), OPTS_RUN);
    assert_int_equal(o.map, 1);
    assert_null(o.map_file);
    assert_int_equal(run(&o, "-am --stack"), OPTS_RUN);
    assert_int_equal(o.map, 1);
    assert_null(o.map_file);
    assert_int_equal(run(&o, "-am m.yaml"), OPTS_RUN);
    assert_int_equal(o.map, 1);
    assert_string_equal(o.map_file, "m.yaml");
}

static void test_missing_values(void **state)
{
    cli o;
    assert_error(&o, "-n", "-n needs a value (PATH)");
    /* a following option is not taken as the value */
    assert_error(&o, "-n -s", "-n needs a value (PATH)");
    assert_error(&o, "--targ --", "--target_path needs a value (PATH)");
    assert_error(&o, "--format", "--format needs a value (xlsx or csv)");
    /* a negative number is a value, as in argparse */
    assert_error(&o, "-j -3", "-j needs a number from 1 to 64, not '-3'");
    assert_error(&o, "-j x", "-j needs a number from 1 to 64, not 'x'");
    assert_error(&o, "-j 4x", "-j needs a number from 1 to 64, not '4x'");
    assert_error(&o, "--jobs=", "--jobs needs a number from 1 to 64, not ''");
    /* flags take no value */
    assert_error(&o, "--stack_mode=1", "--stack_mode takes no value (got '1')");
}

static void test_choices(void **state)
{
    cli o;
    assert_int_equal(run(&o, "--format csv"), OPTS_RUN);
    assert_int_equal(o.format, 2);
    assert_error(&o, "--format ods", "--format needs xlsx or csv, not 'ods'");
    assert_error(&o, "--format=cvs", "--format needs xlsx or csv, not 'cvs'; did you mean 'csv'?");
    assert_error(&o, "--format CSV", "--format needs xlsx or csv, not 'CSV'");
    /* a name msprobe takes that we do not: its own reason */
    assert_error(&o, "-m torchair", "-m torchair: not offered here");
    assert_int_equal(run(&o, "-m auto"), OPTS_RUN);
    assert_error(&o, "-fr x", "-fr: offline_data is not offered");
    assert_error(&o, "--fusion_rule_file=x", "--fusion_rule_file: offline_data is not offered");
}

static void test_unknown_options(void **state)
{
    cli o;
    assert_error(&o, "--bogus", "unknown option '--bogus'");
    assert_error(&o, "--stak", "unknown option '--stak'; did you mean '--stack_mode'?");
    assert_error(&o, "-stack_mode", "unknown option '-stack_mode'; did you mean '--stack_mode'?");
    assert_error(&o, "--target-path=x", "unknown option '--target-path'; did you mean '--target_path'?");
    assert_error(&o, "--fromat", "unknown option '--fromat'; did you mean '--format'?");
    assert_error(&o, "--tp x", "unknown option '--tp'; did you mean '-tp'?");
    /* hidden spellings are never suggested */
    assert_error(&o, "--npu_pat", "unknown option '--npu_pat'");
    assert_error(&o, "-x", "unknown option '-x'");
    assert_int_equal(opts_similarity("comapre", "compare"), 1);
    assert_int_equal(opts_similarity("merge", "merge_result"), 1);
    assert_int_equal(opts_similarity("frobnicate", "compare"), -1);
    assert_int_equal(opts_similarity("-x", "-s"), -1);
}

typedef struct {
    const char *in, *out, *cfg;
    int quiet;
} req_cli;

static void test_required_and_stop(void **state)
{
    static const opt req[] = {
        OPT_STRING("-i --input_dir", req_cli, in, "DIR", "in", .flags = OPT_REQUIRED),
        OPT_STRING("-o --output_dir", req_cli, out, "DIR", "out", .flags = OPT_REQUIRED),
        OPT_STRING("-config --config-path", req_cli, cfg, "FILE", "config", .flags = OPT_REQUIRED),
        OPT_BOOL("-q", req_cli, quiet, "quiet"),
        OPT_END(),
    };
    static const opts_spec rs = {.opts = req};
    req_cli r = {0};
    char *argv[] = {"merge", "-i", "x", "-q", NULL};
    assert_int_equal(opts_parse(&rs, 4, argv, &r, OPTS_NO_REPORT, NULL), OPTS_USAGE_ERROR);
    assert_string_equal(err_message(),
                        "the following arguments are required: -o/--output_dir, -config/--config-path");
    /* argparse abbreviates single-dash names too */
    char *argv2[] = {"merge", "-i", "x", "-o", "y", "-conf", "c.yaml", NULL};
    assert_int_equal(opts_parse(&rs, 7, argv2, &r, OPTS_NO_REPORT, NULL), OPTS_RUN);
    assert_string_equal(r.cfg, "c.yaml");
    /* global options: stop at the command */
    char *argv3[] = {"msprobe", "-q", "compare", "-x", NULL};
    static const opt top[] = {OPT_BOOL("-q", req_cli, quiet, "quiet"), OPT_END()};
    static const opts_spec ts = {.opts = top};
    int next = -1;
    assert_int_equal(opts_parse(&ts, 4, argv3, &r, OPTS_STOP_AT_ARG | OPTS_NO_REPORT, &next), OPTS_RUN);
    assert_int_equal(next, 2);
    char *argv4[] = {"msprobe", "-q", NULL};
    assert_int_equal(opts_parse(&ts, 2, argv4, &r, OPTS_STOP_AT_ARG | OPTS_NO_REPORT, &next), OPTS_RUN);
    assert_int_equal(next, 2);
    /* a missing word to type (monitor's ACTION) says which words there are */
    static const opt_choice actions[] = {{"summary", 0, NULL}, {"list", 1, NULL}, {NULL, 0, NULL}};
    static const opt act[] = {
        OPT_CHOICE("ACTION", req_cli, quiet, actions, "what", .flags = OPT_REQUIRED),
        OPT_STRING("-m", req_cli, in, "DIR", "in", .flags = OPT_REQUIRED),
        OPT_END(),
    };
    static const opts_spec as = {.opts = act};
    char *argv5[] = {"monitor", "-m", "x", NULL};
    assert_int_equal(opts_parse(&as, 3, argv5, &r, OPTS_NO_REPORT, NULL), OPTS_USAGE_ERROR);
    assert_string_equal(err_message(), "the following arguments are required: ACTION; ACTION is one of 'summary' "
                                       "or 'list'");
}

/* run() with what it prints on stdout (help, version) thrown away. */
static opts_result run_unseen(cli *o, const char *line)
{
    fflush(stdout);
    int saved = dup(1), null = open("/dev/null", O_WRONLY);
    assert_true(saved >= 0 && null >= 0);
    dup2(null, 1);
    opts_result r = run(o, line);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    close(null);
    return r;
}

static void test_help_and_version(void **state)
{
    cli o;
    assert_int_equal(run_unseen(&o, "-s --he"), OPTS_DONE);
    assert_int_equal(run_unseen(&o, "--version"), OPTS_DONE);
    assert_int_equal(run_unseen(&o, "--help-man"), OPTS_DONE);
    /* an error before --help is reported */
    assert_error(&o, "--bogus --help", "unknown option '--bogus'");
}

/* Every command stops the same way: 0 after help, 2 after a usage error. */
static void test_exit_status(void **state)
{
    cli o;
    assert_int_equal(opts_exit_status(run_unseen(&o, "--help")), EXIT_OK);
    assert_int_equal(opts_exit_status(run(&o, "--bogus")), EXIT_BADINPUT);
    assert_int_equal(opts_exit_status(run(&o, "-j")), EXIT_BADINPUT);
    assert_int_equal(run(&o, "-n a"), OPTS_RUN);
    /* asked to stop when the command should run: a mistake of ours */
    assert_int_equal(opts_exit_status(OPTS_RUN), EXIT_INTERNAL);
}

/* Every line of `text` fits in OPTS_WIDTH columns. */
static void assert_narrow(const char *text)
{
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        if (n > OPTS_WIDTH)
            fail_msg("%zu columns: %.*s", n, (int)n, p);
        p += n + (p[n] == '\n');
    }
}

static void test_help_width(void **state)
{
    const command *cmds[] = {&compare_command, &merge_result_command, &parse_command};
    for (size_t k = 0; k < 3; k++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        opts_help(cmds[k]->spec, f);
        fclose(f);
        assert_true(len > 200);
        assert_narrow(buf);
        free(buf);
    }
    /* a tag too long for its column has the text on the next lines */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    opts_item(f, "--an-option-with-a-long-name VALUE",
              "words words words words words words words words words words words words", 30);
    fclose(f);
    assert_string_equal(buf, "  --an-option-with-a-long-name VALUE\n"
                             "                              words words words words words words words words\n"
                             "                              words words words words\n");
    free(buf);
}

static void test_man_tags(void **state)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    opts_man_tags(&spec, f);
    fclose(f);
    assert_non_null(strstr(buf, ".TP\n.BR \\-n \", \" \\-tp \", \" \\-\\-target_path \" \" \\fIPATH\\fR\n"));
    assert_non_null(strstr(buf, ".TP\n.BR \\-o \", \" \\-\\-output_path \" [\\fIDIR\\fR]\"\n"));
    assert_non_null(strstr(buf, ".TP\n.BR \\-\\-format \" \" xlsx | csv\n"));
    assert_non_null(strstr(buf, ".TP\n.B \\-\\-step\n"));
    /* hidden ones and aliases are not documented as options */
    assert_null(strstr(buf, "npu_path"));
    assert_null(strstr(buf, "fusion"));
    assert_null(strstr(buf, "compat"));
    free(buf);
}

/* The newest msprobe's --rank takes "0, 1"; ours also ranges. */
static void test_rank_lists(void **state)
{
    numlist l;
    assert_int_equal(numlist_parse("0, 2 ,4-5", "--ranks", &l), 0);
    assert_true(numlist_has(&l, 0) && numlist_has(&l, 2) && numlist_has(&l, 5));
    assert_false(numlist_has(&l, 1) || numlist_has(&l, 3));
    numlist_free(&l);
    assert_int_equal(numlist_parse("0,,1", "--ranks", &l), -1);
    err_clear();
}

/* One parser for every step list: msprobe's Python list of anomaly's -s
 * ([13, 21]; [] for all) and the ranges of --steps (13-21) alike. */
static void test_step_lists(void **state)
{
    numlist l;
    assert_int_equal(numlist_parse(" [13, 21] ", "-s", &l), 0);
    assert_int_equal(l.n, 2);
    assert_true(numlist_has(&l, 13) && numlist_has(&l, 21) && !numlist_has(&l, 14));
    numlist_free(&l);
    assert_int_equal(numlist_parse("13-21", "-s", &l), 0);
    assert_true(numlist_has(&l, 14) && numlist_meets(&l, 20, 30) && !numlist_meets(&l, 22, 30));
    numlist_free(&l);
    assert_int_equal(numlist_parse("[13-21, 30]", "-s", &l), 0);
    assert_true(numlist_has(&l, 15) && numlist_has(&l, 30) && !numlist_has(&l, 29));
    numlist_free(&l);
    assert_int_equal(numlist_parse("[]", "-s", &l), 0);
    assert_int_equal(l.n, 0);
    assert_true(numlist_has(&l, 7) && numlist_meets(&l, 0, 1));
    numlist_free(&l);
    assert_int_equal(numlist_parse("7 ", "-s", &l), 0);
    assert_true(numlist_has(&l, 7) && !numlist_has(&l, 8));
    numlist_free(&l);
    assert_int_equal(numlist_parse("[1, 99999999999999999999]", "-s", &l), -1);
    assert_string_equal(err_message(), "-s: 99999999999999999999 is beyond the largest rank or step, 100000000");
    err_clear();
    static const char *const bad[] = {"[13", "13]", "[a]", "[1,,2]", "", "[1.5]", "(1, 2)", "[", "]", "1-"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(numlist_parse(bad[i], "-s", &l), -1);
        assert_non_null(strstr(err_message(), "-s needs a list of numbers like 0,2,4-7 or [13, 21]"));
        err_clear();
    }
}

/* OPT_FLAGS: comma-separated words of a table, OR'ed; --help lists them. */
typedef struct {
    unsigned gate;
} fcli;

static void test_flags(void **state)
{
    static const opt_choice kinds[] = {{"warning", 1, NULL}, {"red", 2, NULL}, {"any", 5, NULL},
                                       {"old", 8, "not any more"}, {NULL, 0, NULL}};
    static const opt ft[] = {OPT_FLAGS("--fail-on", fcli, gate, kinds, "KINDS", "gate"), OPT_END()};
    static const opts_spec fs = {.opts = ft};
    fcli f = {0};
    char *a1[] = {"c", "--fail-on", "warning,red", NULL};
    assert_int_equal(opts_parse(&fs, 3, a1, &f, OPTS_NO_REPORT, NULL), OPTS_RUN);
    assert_int_equal(f.gate, 3);
    char *a2[] = {"c", "--fail-on=any", NULL};
    assert_int_equal(opts_parse(&fs, 2, a2, &f, OPTS_NO_REPORT, NULL), OPTS_RUN);
    assert_int_equal(f.gate, 5);
    static const struct {
        const char *arg, *msg;
    } bad[] = {
        {"--fail-on=blue", "--fail-on takes warning, red or any, comma-separated, not 'blue'"},
        {"--fail-on=red,", "--fail-on takes warning, red or any, comma-separated, not ''"},
        {"--fail-on=old", "--fail-on old: not any more"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *a[] = {"c", (char *)bad[i].arg, NULL};
        err_clear();
        assert_int_equal(opts_parse(&fs, 2, a, &f, OPTS_NO_REPORT, NULL), OPTS_USAGE_ERROR);
        assert_string_equal(err_message(), bad[i].msg);
    }
    err_clear();
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    opts_help(&fs, out);
    fclose(out);
    assert_non_null(strstr(buf, "gate (KINDS: warning, red or any, comma-separated)"));
    free(buf);
}

/* OPT_LIST: argparse's nargs '*' and 2. */
typedef struct {
    opt_list d, c, b;
    const char *o;
} lcli;

static const opt ltable[] = {
    OPT_LIST("-d --dump", lcli, d, "[FILE ...]", 0, -1, "pack"),
    OPT_LIST("-c --compare", lcli, c, "A B", 2, 2, "compare"),
    OPT_LIST("-b --golden", lcli, b, "G", 1, 1, "golden", .flags = OPT_APPEND),
    OPT_STRING("-o --output", lcli, o, "P", "out"),
    OPT_END(),
};
static const opts_spec lspec = {.opts = ltable};

static opts_result lrun(lcli *o, const char *line)
{
    static char buf[512];
    static char *argv[64];
    snprintf(buf, sizeof buf, "prog %s", line);
    int argc = 0;
    for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " "))
        argv[argc++] = t;
    argv[argc] = NULL;
    memset(o, 0, sizeof *o);
    err_clear();
    return opts_parse(&lspec, argc, argv, o, OPTS_NO_REPORT, NULL);
}

static void test_lists(void **state)
{
    (void)state;
    lcli o;
    assert_int_equal(lrun(&o, "-d"), OPTS_RUN);
    assert_int_equal(o.d.given, 1);
    assert_int_equal(o.d.n, 0);
    assert_int_equal(o.c.given, 0);
    assert_int_equal(lrun(&o, "-d a.sh b.yaml -o x.zip"), OPTS_RUN);
    assert_int_equal(o.d.n, 2);
    assert_string_equal(o.d.v[0], "a.sh");
    assert_string_equal(o.d.v[1], "b.yaml");
    assert_string_equal(o.o, "x.zip");
    assert_int_equal(lrun(&o, "--dump=a.sh"), OPTS_RUN);
    assert_int_equal(o.d.n, 1);
    assert_string_equal(o.d.v[0], "a.sh");
    assert_int_equal(lrun(&o, "-c a.zip -5"), OPTS_RUN);
    assert_string_equal(o.c.v[1], "-5");
    assert_int_equal(lrun(&o, "--comp a b"), OPTS_RUN);
    assert_int_equal(o.c.n, 2);
    assert_int_equal(lrun(&o, "-c a.zip"), OPTS_USAGE_ERROR);
    assert_string_equal(err_message(), "-c needs 2 values (A B), got 1");
    assert_int_equal(lrun(&o, "-c a -o x"), OPTS_USAGE_ERROR);
    assert_string_equal(err_message(), "-c needs 2 values (A B), got 1");
    assert_int_equal(lrun(&o, "-c a b c"), OPTS_USAGE_ERROR);
    assert_non_null(strstr(err_message(), "unexpected argument 'c'"));
    assert_int_equal(lrun(&o, "-d a -- b"), OPTS_USAGE_ERROR);
    /* the last one counts */
    assert_int_equal(lrun(&o, "-d a -d b c"), OPTS_RUN);
    assert_int_equal(o.d.n, 2);
    assert_string_equal(o.d.v[0], "b");
    /* OPT_APPEND: every time adds (argparse action='append') */
    assert_int_equal(lrun(&o, "-b A -o x --golden=B -d q -b C"), 0);
    assert_int_equal(o.b.n, 3);
    assert_string_equal(o.b.v[0], "A");
    assert_string_equal(o.b.v[1], "B");
    assert_string_equal(o.b.v[2], "C");
    assert_string_equal(o.o, "x");
    opts_list_free(&o.b);
    assert_int_equal(lrun(&o, "-b A"), 0);
    assert_int_equal(o.b.n, 1);
    assert_null(o.b.alloc);
    assert_int_equal(lrun(&o, "-b A -b"), -1);
    assert_non_null(strstr(err_message(), "-b needs 1 values (G), got 0"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spellings_and_values),
        cmocka_unit_test(test_abbreviations),
        cmocka_unit_test(test_double_dash),
        cmocka_unit_test(test_optional_values),
        cmocka_unit_test(test_missing_values),
        cmocka_unit_test(test_choices),
        cmocka_unit_test(test_unknown_options),
        cmocka_unit_test(test_required_and_stop),
        cmocka_unit_test(test_help_and_version),
        cmocka_unit_test(test_exit_status),
        cmocka_unit_test(test_help_width),
        cmocka_unit_test(test_man_tags),
        cmocka_unit_test(test_rank_lists),
        cmocka_unit_test(test_step_lists),
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_flags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
