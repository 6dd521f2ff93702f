/* msprobe: one binary, one list of subcommands (like git). The subcommand
 * is the first argument after the global options (msprobe 8.x's
 * -f pytorch|mindspore), or comes from the program name (msprobe-compare).
 * Each subcommand parses its own arguments from its option table. */
#include "cmd/cmd.h"
#include "compare/commands.h"
#include "nan_analyze/commands.h"
#include "config_check/commands.h"
#include "graph/commands.h"
#include "parse/commands.h"
#include "monitor/commands.h"
#include "train/commands.h"
#include "base/err.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/process.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <string.h>

static const command *const commands[] = {
    &compare_command,
    &merge_result_command,
    &parse_command,
    &nan_analyze_command,
    &config_check_command,
    &ckpt_compare_command,
    &anomaly_command,
    &monitor2tb_command,
    &monitor2db_command,
    &data2db_command,
    &monitor_command,
    &graph_command,
    &graph_visualize_command,
    &train_compare_command,
    &completion_command,
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

const command *const *cmd_list(size_t *n)
{
    *n = NCOMMANDS;
    return commands;
}

typedef struct {
    global_opts g;
    int list;
} top_cli;

static const opt_choice frameworks[] = {{"pytorch", 'p', NULL}, {"mindspore", 'm', NULL}, {NULL, 0, NULL}};

static const opt top_options[] = {
    OPT_CHOICE("-f --framework", top_cli, g.framework, frameworks,
               "msprobe 8.x's framework option, before the command; mindspore: compare a MindSpore target with a "
               "PyTorch bench by dtype family (otherwise read from the dumps)"),
    OPT_BOOL("--list-commands", top_cli, list, "print the command names, one a line", .flags = OPT_HIDDEN),
    OPT_END(),
};

static void list_commands(FILE *out)
{
    fprintf(out, "%zu commands, each with its own --help and man page:\n", NCOMMANDS);
    for (size_t i = 0; i < NCOMMANDS; i++) {
        strbuf tag = STRBUF_INIT;
        sb_adds(&tag, commands[i]->name);
        if (commands[i]->aliases)
            sb_addf(&tag, " (%s)", commands[i]->aliases);
        opts_item(out, sb_str(&tag), commands[i]->summary, 17);
        sb_free(&tag);
    }
}

const opts_spec msprobe_spec = {
    .usage = "[-f pytorch|mindspore] <command> [options]\n"
             "help <command>\n"
             "completion bash|zsh",
    .about = "Offline analyzers for what MindStudio Probe (msprobe) writes -- dumps, checkpoints, config packs, "
             "training-monitor output -- with msprobe's inputs, column names and cell texts, from one C binary.",
    .more = list_commands,
    .opts = top_options,
    .epilog = "'msprobe <command> --help' and msprobe-<command>(1) describe each command. Exit status: 0 done, "
              "3 a --fail-on gate tripped (compare's failing rows, nan_analyze's anomaly), 2 bad input or usage, "
              "1 internal error.",
};

/* The command called `name` (or one of its aliases). */
static const command *find(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++) {
        const command *c = commands[i];
        if (!strcmp(c->name, name))
            return c;
        for (const char *a = c->aliases; a && *a;) {
            size_t n = strcspn(a, " ");
            if (n == strlen(name) && !strncmp(a, name, n))
                return c;
            a += n + (a[n] == ' ');
        }
    }
    return NULL;
}

/* "'comapre' is not a command; did you mean 'compare'?" */
static int no_such_command(const char *what)
{
    strbuf sb = STRBUF_INIT;
    const char *names[NCOMMANDS];
    for (size_t i = 0; i < NCOMMANDS; i++)
        names[i] = commands[i]->name;
    sb_addf(&sb, "'%s' is not a command", what);
    opts_did_you_mean(&sb, what, names, NCOMMANDS);
    log_usage("%s", sb_str(&sb));
    sb_free(&sb);
    return EXIT_BADINPUT;
}

static int run(const command *c, const char *name, int argc, char **argv, const global_opts *g)
{
    static char prog[80];
    snprintf(prog, sizeof prog, "msprobe %s", name);
    log_set_prog(prog);
    return c->run(argc, argv, g);
}

/* msprobe help [command] */
typedef struct {
    const char *name;
} help_cli;

static const opt help_options[] = {
    OPT_STRING("COMMAND", help_cli, name, "COMMAND", "the command to describe"),
    OPT_END(),
};

static const opts_spec help_spec = {
    .usage = "[COMMAND]",
    .about = "Print the help of COMMAND, or of msprobe itself: its usage and the list of commands.",
    .opts = help_options,
};

static int help(int argc, char **argv)
{
    help_cli h = {NULL};
    log_set_prog("msprobe help");
    opts_result pr = opts_parse(&help_spec, argc, argv, &h, 0, NULL);
    log_set_prog("msprobe");
    if (pr != OPTS_RUN)
        return opts_exit_status(pr);
    if (!h.name) {
        opts_help(&msprobe_spec, stdout);
        return EXIT_OK;
    }
    const command *c = find(h.name);
    if (!c)
        return no_such_command(h.name);
    char *args[] = {(char *)h.name, "--help", NULL};
    return run(c, h.name, 2, args, &(global_opts){0});
}

static int dispatch(int argc, char **argv)
{
    top_cli t = {{0}, 0};
    int i;
    opts_result pr = opts_parse(&msprobe_spec, argc, argv, &t, OPTS_STOP_AT_ARG, &i);
    if (pr != OPTS_RUN)
        return opts_exit_status(pr);
    if (t.list) {
        /* one line per command: its name, then its aliases; install makes
         * a msprobe-<name> link for each word */
        for (size_t k = 0; k < NCOMMANDS; k++)
            printf("%s%s%s\n", commands[k]->name, commands[k]->aliases ? " " : "",
                   commands[k]->aliases ? commands[k]->aliases : "");
        return EXIT_OK;
    }
    if (i >= argc) {
        opts_help(&msprobe_spec, stderr);
        return EXIT_BADINPUT;
    }
    if (!strcmp(argv[i], "help"))
        return help(argc - i, argv + i);
    const command *c = find(argv[i]);
    if (!c)
        return no_such_command(argv[i]);
    return run(c, argv[i], argc - i, argv + i, &t.g);
}

int main(int argc, char **argv)
{
    /* before any thread: signals, then libraries' stderr lines kept off the
     * progress line */
    process_setup();
    log_own_stderr();
    const char *self = strrchr(argv[0], '/');
    self = self ? self + 1 : argv[0];
    const command *c = strncmp(self, "msprobe-", 8) ? NULL : find(self + 8);
    if (c)
        return run(c, self + 8, argc, argv, &(global_opts){0});
    return dispatch(argc, argv);
}
