/* The option parser (base/opts.h) with every command's table: the
 * input's first byte picks the command, the rest is its argv, split at NUL
 * bytes. And the number lists of --ranks / --steps (base/numlist.h). A
 * usage error must be one line; --help texts go to /dev/null. */
#include "tests/fuzz/fuzz.h"

#include "base/numlist.h"
#include "base/opts.h"
#include "compare/commands.h"
#include "config_check/commands.h"
#include "monitor/commands.h"
#include "nan_analyze/commands.h"
#include "parse/commands.h"
#include "train/commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const command *const commands[] = {
    &compare_command,     &merge_result_command, &parse_command,      &nan_analyze_command,
    &config_check_command, &ckpt_compare_command, &anomaly_command,    &monitor2tb_command,
    &monitor2db_command,  &data2db_command,      &monitor_command,      &train_compare_command,
};
enum { NCOMMANDS = sizeof commands / sizeof commands[0], MAX_ARGS = 64 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int once;
    if (!once) {
        once = 1;
        fz_init();
        if (!freopen("/dev/null", "w", stdout))
            abort();
    }
    if (size < 1 || size > 4096)
        return 0;
    const command *c = commands[data[0] % NCOMMANDS];
    char *text = malloc(size + 1);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = 0;
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = (char *)c->name;
    for (char *s = text; s < text + size - 1 && argc <= MAX_ARGS; s += strlen(s) + 1)
        argv[argc++] = s;
    argv[argc] = NULL;
    /* room for any command's option struct, zeroed as the commands do */
    static _Alignas(64) unsigned char dest[1 << 16];
    memset(dest, 0, sizeof dest);
    opts_result pr = opts_parse(c->spec, argc, argv, dest, OPTS_NO_REPORT, NULL);
    fz_done_anywhere(pr == OPTS_USAGE_ERROR ? -1 : 0);
    /* lists given several times (OPT_APPEND) own their arrays */
    for (const opt *o = c->spec->opts; o->type != OPT_T_END; o++)
        if (o->type == OPT_T_LIST && (o->flags & OPT_APPEND))
            opts_list_free((opt_list *)(void *)(dest + o->off));

    numlist l = {0};
    int r = numlist_parse(argc > 1 ? argv[1] : "", "--ranks", &l);
    fz_done_anywhere(r);
    if (r == 0)
        for (long v = -2; v < 70; v++)
            numlist_has(&l, v);
    numlist_free(&l);
    free(text);
    return 0;
}
