/* `msprobe completion bash|zsh`: shell completion scripts made from the
 * option tables of every command, so they cannot fall behind the parser:
 * command names, option spellings, the names an option chooses from, and
 * file or directory names where an option wants a path. */
#include "cmd/cmd.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/opts.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SH_BASH, SH_ZSH };

typedef struct {
    int shell;
} cli;

static const opt_choice shells[] = {{"bash", SH_BASH, NULL}, {"zsh", SH_ZSH, NULL}, {NULL, 0, NULL}};

static const opt options[] = {
    OPT_CHOICE("SHELL", cli, shell, shells, "bash or zsh", .flags = OPT_REQUIRED),
    OPT_END(),
};

static const opts_spec spec = {
    .usage = "bash|zsh",
    .about = "Print a completion script for bash or zsh: the commands, their options, the names an option "
             "chooses from, and file names where a path is wanted. Made from the same option tables as the "
             "parser and --help. To use it:\n"
             "\n"
             "  source <(msprobe completion bash)           # bash, e.g. in ~/.bashrc\n"
             "  msprobe completion zsh > ~/.zfunc/_msprobe  # zsh: a directory of $fpath",
    .opts = options,
    .epilog = "Exit status: 0 done, 2 usage.",
};

/* The words of one command's table. */
typedef struct {
    const opt **v;
    size_t n;
} entries;

static int shown(const opt *o)
{
    return o->names && o->type != OPT_T_GROUP && !(o->flags & OPT_HIDDEN);
}

/* Every shown spelling of o, joined by `sep`. */
static void names(strbuf *sb, const opt *o, const char *sep)
{
    size_t pos = 0;
    char name[128];
    for (int k = 0; opts_next_name(o, &pos, name, sizeof name); k++)
        sb_addf(sb, "%s%s", k ? sep : "", name);
}

static void choices(strbuf *sb, const opt *o)
{
    int k = 0;
    for (const opt_choice *c = o->choices; c->name; c++)
        if (!c->refusal)
            sb_addf(sb, "%s%s", k++ ? " " : "", c->name);
}

static const opt *first_positional(const entries *e)
{
    for (size_t i = 0; i < e->n; i++)
        if (opts_is_positional(e->v[i]))
            return e->v[i];
    return NULL;
}

/* ---- bash ---------------------------------------------------------------- */

/* What to offer for the value of o (or for a positional argument). */
static void bash_value(strbuf *sb, const opt *o)
{
    /* (a list of flags: its first word) */
    if (o->type == OPT_T_CHOICE || o->type == OPT_T_FLAGS) {
        sb_adds(sb, "_msprobe_words '");
        choices(sb, o);
        sb_adds(sb, "' \"$cur\"");
    } else if (o->flags & OPT_DIR) {
        sb_adds(sb, "_msprobe_paths -d \"$cur\"");
    } else if (o->flags & OPT_FILE) {
        sb_adds(sb, "_msprobe_paths -f \"$cur\"");
    } else {
        sb_adds(sb, ":"); /* a value we cannot guess */
    }
}

static void bash_options(strbuf *sb, const entries *e)
{
    int k = 0;
    for (size_t i = 0; i < e->n; i++)
        if (shown(e->v[i]) && !opts_is_positional(e->v[i])) {
            if (k++)
                sb_addc(sb, ' ');
            names(sb, e->v[i], " ");
        }
}

/* One command's completion: the value of the option before the cursor,
 * else options, arguments. */
static void bash_command(strbuf *sb, const entries *e, const char *indent, const char *words)
{
    sb_addf(sb, "%scase $prev in\n", indent);
    for (size_t i = 0; i < e->n; i++) {
        const opt *o = e->v[i];
        if (!shown(o) || opts_is_positional(o) || !opts_takes_value(o))
            continue;
        sb_addf(sb, "%s", indent);
        names(sb, o, "|");
        sb_adds(sb, ")\n");
        /* -o [DIR]: an option may follow instead of the value */
        if (o->type == OPT_T_OPTSTRING)
            sb_addf(sb, "%s    case $cur in -*) ;; *) ", indent);
        else
            sb_addf(sb, "%s    ", indent);
        bash_value(sb, o);
        sb_adds(sb, "; return ;;");
        if (o->type == OPT_T_OPTSTRING)
            sb_adds(sb, " esac ;;");
        sb_addc(sb, '\n');
    }
    sb_addf(sb, "%sesac\n", indent);
    sb_addf(sb, "%scase $cur in\n%s-*) _msprobe_words '", indent, indent);
    bash_options(sb, e);
    sb_addf(sb, "' \"$cur\" ;;\n%s*) ", indent);
    const opt *arg = first_positional(e);
    if (arg)
        bash_value(sb, arg);
    else if (words)
        sb_addf(sb, "_msprobe_words '%s' \"$cur\"", words);
    else {
        sb_adds(sb, "_msprobe_words '");
        bash_options(sb, e);
        sb_adds(sb, "' \"$cur\"");
    }
    sb_addf(sb, " ;;\n%sesac\n", indent);
}

static void command_names(strbuf *sb, const command *const *cmds, size_t n, const char *sep, int aliases)
{
    for (size_t i = 0; i < n; i++) {
        sb_addf(sb, "%s%s", i ? sep : "", cmds[i]->name);
        for (const char *a = cmds[i]->aliases; aliases && a && *a; a += strspn(a, " ")) {
            size_t len = strcspn(a, " ");
            sb_addf(sb, "%s%.*s", sep, (int)len, a);
            a += len;
        }
    }
}

static void bash(strbuf *sb, const command *const *cmds, size_t n)
{
    entries top;
    top.v = opts_entries(&msprobe_spec, &top.n);
    strbuf names_sp = STRBUF_INIT;
    command_names(&names_sp, cmds, n, " ", 1);
    sb_adds(sb, "# bash completion for msprobe, made by `msprobe completion bash` from its option tables.\n"
                "# Use: source <(msprobe completion bash)\n"
                "\n"
                "_msprobe_words() { COMPREPLY=($(compgen -W \"$1\" -- \"$2\")); }\n"
                "_msprobe_paths() {\n"
                "    local IFS=$'\\n'\n"
                "    compopt -o filenames 2>/dev/null\n"
                "    COMPREPLY=($(compgen \"$1\" -- \"$2\"))\n"
                "}\n"
                "\n"
                "_msprobe() {\n"
                "    local cur=${COMP_WORDS[COMP_CWORD]} prev='' cmd='' i=1 w\n"
                "    COMPREPLY=()\n"
                "    [ \"$COMP_CWORD\" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}\n"
                "    # bash splits --opt=value at '='\n"
                "    if [ \"$cur\" = = ]; then\n"
                "        cur=''\n"
                "    elif [ \"$prev\" = = ] && [ \"$COMP_CWORD\" -gt 1 ]; then\n"
                "        prev=${COMP_WORDS[COMP_CWORD-2]}\n"
                "    fi\n"
                "    w=${COMP_WORDS[0]##*/}\n"
                "    case $w in\n"
                "    msprobe-*) cmd=${w#msprobe-} ;;\n"
                "    *)\n"
                "        # the command: the first word that is neither an option nor its value\n"
                "        while [ \"$i\" -lt \"$COMP_CWORD\" ]; do\n"
                "            w=${COMP_WORDS[i]}\n"
                "            case $w in\n");
    for (size_t i = 0; i < top.n; i++)
        if (shown(top.v[i]) && opts_takes_value(top.v[i]) && !opts_is_positional(top.v[i])) {
            sb_adds(sb, "            ");
            names(sb, top.v[i], "|");
            sb_adds(sb, ") [ \"${COMP_WORDS[i+1]}\" = = ] && i=$((i + 1)); i=$((i + 1)) ;;\n");
        }
    sb_adds(sb, "            -*) ;;\n"
                "            *) cmd=$w; break ;;\n"
                "            esac\n"
                "            i=$((i + 1))\n"
                "        done ;;\n"
                "    esac\n"
                "    case $cmd in\n"
                "    '')\n");
    strbuf top_words = STRBUF_INIT;
    sb_addf(&top_words, "%s help", sb_str(&names_sp));
    bash_command(sb, &top, "        ", sb_str(&top_words));
    sb_adds(sb, "        ;;\n");
    sb_addf(sb, "    help) _msprobe_words '%s' \"$cur\" ;;\n", sb_str(&names_sp));
    for (size_t c = 0; c < n; c++) {
        entries e;
        e.v = opts_entries(cmds[c]->spec, &e.n);
        sb_addf(sb, "    ");
        command_names(sb, &cmds[c], 1, "|", 1);
        sb_adds(sb, ")\n");
        bash_command(sb, &e, "        ", NULL);
        sb_adds(sb, "        ;;\n");
        free(e.v);
    }
    sb_adds(sb, "    esac\n"
                "}\n"
                "\n"
                "complete -F _msprobe msprobe");
    for (size_t c = 0; c < n; c++) {
        sb_addc(sb, ' ');
        strbuf one = STRBUF_INIT;
        command_names(&one, &cmds[c], 1, " msprobe-", 1);
        sb_addf(sb, "msprobe-%s", sb_str(&one));
        sb_free(&one);
    }
    sb_addc(sb, '\n');
    sb_free(&top_words);
    sb_free(&names_sp);
    free(top.v);
}

/* ---- zsh ------------------------------------------------------------------- */

/* Text for inside '...' and a [...] description. */
static void zsh_text(strbuf *sb, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '\'')
            sb_adds(sb, "'\\''");
        else if (*s == '[' || *s == ']' || *s == '\\')
            sb_addf(sb, "\\%c", *s);
        else
            sb_addc(sb, *s);
    }
}

/* The action part of a spec: what to complete for o's value. */
static void zsh_action(strbuf *sb, const opt *o)
{
    if (o->type == OPT_T_CHOICE || o->type == OPT_T_FLAGS) {
        sb_addc(sb, '(');
        choices(sb, o);
        sb_addc(sb, ')');
    } else if (o->flags & OPT_DIR) {
        sb_adds(sb, "_files -/");
    } else if (o->flags & OPT_FILE) {
        sb_adds(sb, "_files");
    } else {
        sb_addc(sb, ' ');
    }
}

/* The _arguments specs of one table, one per line. */
static void zsh_specs(strbuf *sb, const entries *e)
{
    int nth = 0;
    for (size_t i = 0; i < e->n; i++) {
        const opt *o = e->v[i];
        if (!shown(o))
            continue;
        sb_adds(sb, " \\\n    ");
        if (opts_is_positional(o)) {
            sb_addf(sb, "'%d:%s", ++nth, o->flags & OPT_REQUIRED ? "" : ":");
            zsh_text(sb, o->names);
            sb_addc(sb, ':');
            zsh_action(sb, o);
            sb_addc(sb, '\'');
            continue;
        }
        strbuf all = STRBUF_INIT;
        names(&all, o, " ");
        int several = strchr(sb_str(&all), ' ') != NULL;
        int ends = o->type == OPT_T_HELP || o->type == OPT_T_VERSION;
        sb_addf(sb, "'(%s%s)'", ends ? "- *" : "", ends ? "" : sb_str(&all));
        /* --opt=: the value also after '=' in the same word */
        int eq = opts_takes_value(o) && o->type != OPT_T_OPTSTRING;
        size_t at = 0;
        char name[128];
        if (several)
            sb_addc(sb, '{');
        for (int k = 0; opts_next_name(o, &at, name, sizeof name); k++)
            sb_addf(sb, "%s%s%s", k ? "," : "", name, eq && name[1] == '-' ? "=" : "");
        if (several)
            sb_addc(sb, '}');
        sb_adds(sb, "'[");
        zsh_text(sb, o->help);
        sb_addc(sb, ']');
        if (opts_takes_value(o)) {
            sb_adds(sb, o->type == OPT_T_OPTSTRING ? "::" : ":");
            zsh_text(sb, o->metavar ? o->metavar : "value");
            sb_addc(sb, ':');
            zsh_action(sb, o);
        }
        sb_addc(sb, '\'');
        sb_free(&all);
    }
}

static void zsh_function_name(strbuf *sb, const char *name)
{
    sb_adds(sb, "_msprobe_");
    for (; *name; name++)
        sb_addc(sb, (*name >= 'a' && *name <= 'z') || (*name >= '0' && *name <= '9') ? *name : '_');
}

static void zsh(strbuf *sb, const command *const *cmds, size_t n)
{
    strbuf progs = STRBUF_INIT;
    sb_adds(&progs, "msprobe");
    for (size_t c = 0; c < n; c++) {
        sb_adds(&progs, " msprobe-");
        command_names(&progs, &cmds[c], 1, " msprobe-", 1);
    }
    sb_addf(sb, "#compdef %s\n"
                "# zsh completion for msprobe, made by `msprobe completion zsh` from its option tables.\n"
                "# Use: msprobe completion zsh > DIR/_msprobe with DIR in $fpath (before compinit),\n"
                "# or source <(msprobe completion zsh) after compinit.\n",
            sb_str(&progs));
    for (size_t c = 0; c < n; c++) {
        entries e;
        e.v = opts_entries(cmds[c]->spec, &e.n);
        sb_addc(sb, '\n');
        zsh_function_name(sb, cmds[c]->name);
        sb_adds(sb, "() {\n  _arguments");
        zsh_specs(sb, &e);
        sb_adds(sb, "\n}\n");
        free(e.v);
    }
    entries top;
    top.v = opts_entries(&msprobe_spec, &top.n);
    sb_adds(sb, "\n_msprobe() {\n"
                "  local curcontext=$curcontext state state_descr line ret=1\n"
                "  typeset -A opt_args\n"
                "  local -a cmds\n"
                "  case $service in\n");
    for (size_t c = 0; c < n; c++) {
        sb_adds(sb, "  msprobe-");
        command_names(sb, &cmds[c], 1, "|msprobe-", 1);
        sb_adds(sb, ") ");
        zsh_function_name(sb, cmds[c]->name);
        sb_adds(sb, "; return ;;\n");
    }
    sb_adds(sb, "  esac\n  _arguments -C");
    zsh_specs(sb, &top);
    sb_adds(sb, " \\\n    '1:command:->command' \\\n    '*::argument:->argument' && ret=0\n"
                "  case $state in\n"
                "  command)\n"
                "    cmds=(");
    for (size_t c = 0; c < n; c++) {
        sb_addf(sb, "\n      '%s:", cmds[c]->name);
        zsh_text(sb, cmds[c]->summary);
        sb_addc(sb, '\'');
    }
    sb_adds(sb, "\n      'help:show the help of a command'\n    )\n"
                "    _describe -t commands 'msprobe command' cmds && ret=0 ;;\n"
                "  argument)\n"
                "    curcontext=${curcontext%:*:*}:msprobe-$words[1]:\n"
                "    case $words[1] in\n");
    for (size_t c = 0; c < n; c++) {
        sb_adds(sb, "    ");
        command_names(sb, &cmds[c], 1, "|", 1);
        sb_adds(sb, ") ");
        zsh_function_name(sb, cmds[c]->name);
        sb_adds(sb, " && ret=0 ;;\n");
    }
    sb_adds(sb, "    help)\n      cmds=(");
    command_names(sb, cmds, n, " ", 1);
    sb_adds(sb, ")\n      _describe -t commands 'msprobe command' cmds && ret=0 ;;\n"
                "    esac ;;\n"
                "  esac\n"
                "  return ret\n"
                "}\n"
                "\n"
                "if [ \"$funcstack[1]\" = _msprobe ]; then\n"
                "  _msprobe \"$@\"\n"
                "else\n");
    sb_addf(sb, "  compdef _msprobe %s\nfi\n", sb_str(&progs));
    free(top.v);
    sb_free(&progs);
}

static int cmd_completion(int argc, char **argv, const global_opts *g)
{
    cli o = {0};
    opts_result pr = opts_parse(&spec, argc, argv, &o, 0, NULL);
    if (pr != OPTS_RUN)
        return opts_exit_status(pr);
    size_t n;
    const command *const *cmds = cmd_list(&n);
    strbuf sb = STRBUF_INIT;
    if (o.shell == SH_BASH)
        bash(&sb, cmds, n);
    else
        zsh(&sb, cmds, n);
    int status = EXIT_OK;
    if (fwrite(sb.buf, 1, sb.len, stdout) != sb.len || fflush(stdout) != 0)
        status = err_set(ERR_OUTPUT, NULL, "cannot write the script to standard output") ? err_report() : 0;
    sb_free(&sb);
    return status;
}

const command completion_command = {
    "completion", NULL, "print a bash or zsh completion script", &spec, cmd_completion,
};
