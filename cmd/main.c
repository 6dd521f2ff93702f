/* msprobe: one binary, one table of subcommands (like git). The subcommand
 * is argv[1], or comes from the program name (msprobe-compare), and may be
 * preceded by msprobe 8.x's global framework option: -f pytorch|mindspore. */
#include "compare/commands.h"
#include "parse/commands.h"
#include "base/log.h"
#include "base/err.h"
#include "base/process.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    const char *name;
    cmd_fn fn;
    void (*usage)(void *stream);
    const char *help;
} command;

static const command commands[] = {
    {"compare", cmd_compare, cmd_compare_usage, "compare a target dump with a bench dump (statistics, md5)"},
    {"merge_result", cmd_merge_result, cmd_merge_result_usage, "merge chosen APIs of per-rank compare results"},
    {"parse", cmd_parse, cmd_parse_usage, "inspect a tensor file (.npy, .pt) or compare two"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fprintf(out, "usage: msprobe [-f pytorch|mindspore] <command> [options]\n"
                 "       msprobe help <command>\n"
                 "       msprobe --version\n\n"
                 "Offline analyzers for MindStudio Probe (msprobe) dump directories.\n\n"
                 "commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-14s %s\n", commands[i].name, commands[i].help);
    fprintf(out, "\nSee msprobe(1) and msprobe-<command>(1).\n");
}

static const command *find(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(commands[i].name, name))
            return &commands[i];
    return NULL;
}

static int run(const command *c, int argc, char **argv, const global_opts *g)
{
    static char prog[64];
    snprintf(prog, sizeof prog, "msprobe %s", c->name);
    log_set_prog(prog);
    return c->fn(argc, argv, g);
}

int main(int argc, char **argv)
{
    /* before any thread: signals, then libraries' stderr lines kept off the
     * progress line */
    process_setup();
    log_own_stderr();
    global_opts g = {0};
    const char *self = strrchr(argv[0], '/');
    self = self ? self + 1 : argv[0];
    if (!strncmp(self, "msprobe-", 8)) {
        const command *c = find(self + 8);
        if (c)
            return run(c, argc, argv, &g);
    }
    int i = 1;
    while (i < argc && argv[i][0] == '-') {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return EXIT_OK;
        }
        if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
            printf("msprobe %s (C; compatible with msprobe 8.1.0 compare output)\n", MSPROBE_VERSION);
            return EXIT_OK;
        }
        if (!strcmp(a, "--list-commands")) {
            for (size_t k = 0; k < NCOMMANDS; k++)
                printf("%s\n", commands[k].name);
            return EXIT_OK;
        }
        if (!strcmp(a, "-f") || !strcmp(a, "--framework")) {
            if (i + 1 >= argc || (strcmp(argv[i + 1], "pytorch") && strcmp(argv[i + 1], "mindspore"))) {
                fprintf(stderr, "msprobe: %s needs pytorch or mindspore\n", a);
                return EXIT_BADINPUT;
            }
            g.framework = argv[i + 1][0];
            i += 2;
            continue;
        }
        fprintf(stderr, "msprobe: unknown option '%s'\nTry 'msprobe --help'.\n", a);
        return EXIT_BADINPUT;
    }
    if (i >= argc) {
        usage(stderr);
        return EXIT_BADINPUT;
    }
    if (!strcmp(argv[i], "help")) {
        if (i + 1 >= argc) {
            usage(stdout);
            return EXIT_OK;
        }
        const command *c = find(argv[i + 1]);
        if (!c) {
            fprintf(stderr, "msprobe: no such command '%s'\n", argv[i + 1]);
            return EXIT_BADINPUT;
        }
        c->usage(stdout);
        return EXIT_OK;
    }
    const command *c = find(argv[i]);
    if (!c) {
        fprintf(stderr, "msprobe: '%s' is not a command\nTry 'msprobe --help'.\n", argv[i]);
        return EXIT_BADINPUT;
    }
    return run(c, argc - i, argv + i, &g);
}
