/* What the option tables say to people: --help text wrapped to 80 columns,
 * and the tag lines a manual page's OPTIONS section must have. */
#include "base/opts_help.h"
#include "base/log.h"
#include "base/strbuf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- help ---------------------------------------------------------------- */

/* Words of text[0..n) from column `col` on, wrapped at OPTS_WIDTH with
 * continuation lines indented by `indent`. */
static void wrap(FILE *out, const char *text, size_t n, int col, int indent)
{
    size_t i = 0;
    int first = 1;
    while (i < n) {
        while (i < n && isspace((unsigned char)text[i]))
            i++;
        size_t w = i;
        while (w < n && !isspace((unsigned char)text[w]))
            w++;
        if (w == i)
            break;
        int len = (int)(w - i);
        if (!first && col + 1 + len > OPTS_WIDTH) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        } else if (!first) {
            fputc(' ', out);
            col++;
        }
        fwrite(text + i, 1, (size_t)len, out);
        col += len;
        first = 0;
        i = w;
    }
    fputc('\n', out);
}

void opts_wrap(FILE *out, const char *text, int indent)
{
    /* paragraphs are separated by blank lines; a line that starts with a
     * space is printed as it is (examples, lists) */
    strbuf para = STRBUF_INIT;
    const char *p = text;
    for (;;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        int plain = len > 0 && p[0] != ' ';
        if (plain) {
            sb_add(&para, p, len);
            sb_addc(&para, ' ');
        }
        if (!plain || !eol) {
            if (para.len) {
                fprintf(out, "%*s", indent, "");
                wrap(out, para.buf, para.len, indent, indent);
                sb_reset(&para);
            }
            if (len == 0 && eol)
                fputc('\n', out);
            else if (!plain && len)
                fprintf(out, "%*s%.*s\n", indent, "", (int)len, p);
        }
        if (!eol)
            break;
        p = eol + 1;
    }
    sb_free(&para);
}

void opts_item(FILE *out, const char *tag, const char *text, int col)
{
    int len = fprintf(out, "  %s", tag);
    if (!text || !*text) {
        fputc('\n', out);
        return;
    }
    if (len + 2 > col)
        fprintf(out, "\n%*s", col, "");
    else
        fprintf(out, "%*s", col - len, "");
    wrap(out, text, strlen(text), col, col);
}

static void value_tag(strbuf *sb, const opt *o)
{
    if (o->type == OPT_T_CHOICE) {
        sb_addc(sb, ' ');
        opts_choice_list(sb, o->choices, "|", "|");
    } else if (o->type == OPT_T_OPTSTRING) {
        sb_addf(sb, " [%s]", o->metavar ? o->metavar : "VALUE");
    } else if (opts_takes_value(o)) {
        sb_addf(sb, " %s", o->metavar ? o->metavar : "VALUE");
    }
}

static void item(FILE *out, const opt *o)
{
    strbuf tag = STRBUF_INIT, text = STRBUF_INIT;
    if (opts_is_positional(o)) {
        sb_adds(&tag, o->names);
    } else {
        size_t pos = 0;
        char name[OPTS_NAME_MAX];
        int k = 0;
        while (opts_next_name(o, &pos, name, sizeof name))
            sb_addf(&tag, "%s%s", k++ ? ", " : "", name);
        value_tag(&tag, o);
    }
    sb_adds(&text, o->help ? o->help : "");
    if (o->type == OPT_T_FLAGS) {
        sb_addf(&text, " (%s: ", o->metavar ? o->metavar : "VALUE");
        opts_choice_list(&text, o->choices, ", ", " or ");
        sb_adds(&text, ", comma-separated)");
    }
    if (o->def && o->type != OPT_T_SET)
        sb_addf(&text, " (default: %s)", o->def);
    opts_item(out, sb_str(&tag), sb_str(&text), OPTS_HELP_COL);
    sb_free(&tag);
    sb_free(&text);
}

static void usage_line(FILE *out, const char *head, const char *prog, const char *line, size_t n)
{
    int col = fprintf(out, "%s%s ", head, prog);
    wrap(out, line, n, col, col);
}

void opts_help(const opts_spec *spec, FILE *out)
{
    const char *prog = log_prog();
    const char *u = spec->usage ? spec->usage : "[options]";
    for (int k = 0; *u; k++) {
        const char *eol = strchr(u, '\n');
        size_t n = eol ? (size_t)(eol - u) : strlen(u);
        usage_line(out, k ? "       " : "usage: ", prog, u, n);
        u += n + (eol != NULL);
    }
    if (spec->about) {
        fputc('\n', out);
        opts_wrap(out, spec->about, 0);
    }
    if (spec->more) {
        fputc('\n', out);
        spec->more(out);
    }
    size_t nentries;
    const opt **entries = opts_entries(spec, &nentries);
    int heading = 0;
    for (size_t e = 0; e < nentries; e++)
        if (opts_is_positional(entries[e]) && !(entries[e]->flags & OPT_HIDDEN)) {
            if (!heading++)
                fprintf(out, "\narguments:\n");
            item(out, entries[e]);
        }
    heading = 0;
    for (size_t e = 0; e < nentries; e++) {
        const opt *o = entries[e];
        if (o->type == OPT_T_GROUP) {
            fprintf(out, "\n%s:\n", o->help);
            heading = 1;
            continue;
        }
        if (!opts_is_option(o) || (o->flags & OPT_HIDDEN))
            continue;
        if (!heading++)
            fprintf(out, "\noptions:\n");
        item(out, o);
    }
    free(entries);
    if (spec->epilog) {
        fputc('\n', out);
        opts_wrap(out, spec->epilog, 0);
    }
}

void opts_version(FILE *out) { fprintf(out, "msprobe %s (C; compatible with msprobe 8.1.0 compare output)\n", MSPROBE_VERSION); }

/* ---- man page tags --------------------------------------------------------- */

static void roff_escape(strbuf *sb, const char *s)
{
    for (; *s; s++) {
        if (*s == '-')
            sb_adds(sb, "\\-");
        else if (*s == '\\')
            sb_adds(sb, "\\e");
        else
            sb_addc(sb, *s);
    }
}

/* One .TP tag in the style of the pages: spellings bold, separators roman,
 * the value italic: .BR \-o ", " \-\-output_path " [\fIDIR\fR]" */
static void man_tag(FILE *out, const opt *o)
{
    strbuf sb = STRBUF_INIT;
    size_t pos = 0;
    char name[OPTS_NAME_MAX];
    int parts = 0;
    while (opts_next_name(o, &pos, name, sizeof name)) {
        if (parts)
            sb_adds(&sb, " \", \" ");
        roff_escape(&sb, name);
        parts += parts ? 2 : 1;
    }
    const char *meta = o->metavar ? o->metavar : "VALUE";
    if (o->type == OPT_T_CHOICE) {
        sb_adds(&sb, " \" \"");
        int k = 0;
        for (const opt_choice *c = o->choices; c->name; c++) {
            if (c->refusal)
                continue;
            sb_adds(&sb, k++ ? " | " : " ");
            roff_escape(&sb, c->name);
        }
        parts += 2;
    } else if (o->type == OPT_T_OPTSTRING) {
        sb_addf(&sb, " \" [\\fI%s\\fR]\"", meta);
        parts++;
    } else if (opts_takes_value(o)) {
        sb_addf(&sb, " \" \" \\fI%s\\fR", meta);
        parts += 2;
    }
    fprintf(out, ".TP\n%s %s\n", parts > 1 ? ".BR" : ".B", sb_str(&sb));
    sb_free(&sb);
}

void opts_man_tags(const opts_spec *spec, FILE *out)
{
    size_t nentries;
    const opt **entries = opts_entries(spec, &nentries);
    for (size_t e = 0; e < nentries; e++)
        if (opts_is_option(entries[e]) && !(entries[e]->flags & OPT_HIDDEN))
            man_tag(out, entries[e]);
    free(entries);
}
