/* PyYAML's emitter, reduced to what a flat mapping of strings needs: the
 * analysis that decides a scalar's style and the three scalar writers with
 * their line folding. The emitter state (column, whether the last thing
 * written was whitespace or an indentation) decides spaces and line breaks,
 * so it is tracked exactly as PyYAML tracks it. */
#include "format/yaml_write.h"
#include "base/mem.h"
#include "format/yaml_scalar.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BEST_WIDTH 80
#define BEST_INDENT 2
/* PyYAML counts the tag "!!str" in the length of a simple key even though
 * an implicit tag is never written. */
#define SIMPLE_KEY_LIMIT 128
#define STR_TAG_LEN 5

typedef struct {
    strbuf *out;
    size_t column;
    int whitespace, indention;
    size_t indent;
} emitter;

typedef struct {
    uint32_t *cp;
    size_t n;
    const char *utf8;   /* NUL-terminated */
    size_t len;
} scalar;

/* Lenient UTF-8 decoding (the text came out of a JSON parser, which checked
 * it; surrogates written as escapes decode to their own values). */
static size_t decode(const char *s, size_t len, uint32_t *cp)
{
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
        uint32_t v = extra == 3 ? c & 0x07u : extra == 2 ? c & 0x0Fu : extra == 1 ? c & 0x1Fu : c;
        if (extra && i + (size_t)extra >= len) {
            extra = 0;
            v = c;
        }
        for (int k = 1; k <= extra; k++)
            v = (v << 6) | ((unsigned char)s[i + k] & 0x3Fu);
        cp[n++] = v;
        i += 1 + (size_t)extra;
    }
    return n;
}

static int is_break(uint32_t c) { return c == '\n' || c == 0x85 || c == 0x2028 || c == 0x2029; }
static int is_ws_or_end(uint32_t c) { return c == 0 || c == ' ' || c == '\t' || c == '\r' || is_break(c); }
static int in_set(uint32_t c, const char *set) { return c && c < 0x80 && strchr(set, (int)c) != NULL; }

typedef struct {
    int empty, multiline, allow_block_plain, allow_single;
} analysis;

/* PyYAML's analyze_scalar(), for the block context of a mapping. */
static analysis analyze(const scalar *s)
{
    analysis a = {0};
    if (s->n == 0) {
        a.empty = 1;
        a.allow_block_plain = a.allow_single = 1;
        return a;
    }
    int block_ind = 0, line_breaks = 0, special = 0;
    int leading_space = 0, leading_break = 0, trailing_space = 0, trailing_break = 0;
    int break_space = 0, space_break = 0, prev_space = 0, prev_break = 0;
    if (s->len >= 3 && (!memcmp(s->utf8, "---", 3) || !memcmp(s->utf8, "...", 3)))
        block_ind = 1;
    int preceded_ws = 1;
    int followed_ws = s->n == 1 || is_ws_or_end(s->cp[1]);
    for (size_t i = 0; i < s->n; i++) {
        uint32_t ch = s->cp[i];
        if (i == 0) {
            if (in_set(ch, "#,[]{}&*!|>'\"%@`"))
                block_ind = 1;
            if (in_set(ch, "?:") && followed_ws)
                block_ind = 1;
            if (ch == '-' && followed_ws)
                block_ind = 1;
        } else {
            if (ch == ':' && followed_ws)
                block_ind = 1;
            if (ch == '#' && preceded_ws)
                block_ind = 1;
        }
        if (is_break(ch))
            line_breaks = 1;
        /* allow_unicode is off: anything but printable ASCII and \n is
         * special, whether or not it is a printable Unicode character */
        if (!(ch == '\n' || (ch >= 0x20 && ch <= 0x7E)))
            special = 1;
        if (ch == ' ') {
            if (i == 0)
                leading_space = 1;
            if (i == s->n - 1)
                trailing_space = 1;
            if (prev_break)
                break_space = 1;
            prev_space = 1;
            prev_break = 0;
        } else if (is_break(ch)) {
            if (i == 0)
                leading_break = 1;
            if (i == s->n - 1)
                trailing_break = 1;
            if (prev_space)
                space_break = 1;
            prev_space = 0;
            prev_break = 1;
        } else {
            prev_space = prev_break = 0;
        }
        preceded_ws = is_ws_or_end(ch);
        followed_ws = i + 2 >= s->n || is_ws_or_end(s->cp[i + 2]);
    }
    a.allow_block_plain = a.allow_single = 1;
    if (leading_space || leading_break || trailing_space || trailing_break)
        a.allow_block_plain = 0;
    if (break_space)
        a.allow_block_plain = a.allow_single = 0;
    if (space_break || special)
        a.allow_block_plain = a.allow_single = 0;
    if (line_breaks)
        a.allow_block_plain = 0;
    if (block_ind)
        a.allow_block_plain = 0;
    a.multiline = line_breaks;
    return a;
}

/* choose_scalar_style(): '\0' plain, '\'' or '"'. */
static char style_of(const scalar *s, const analysis *a, int simple_key)
{
    /* plain only when it would load back as a string, not as null/bool/... */
    int implicit = yaml_resolve_plain(s->utf8) == T_STR;
    if (implicit && !(simple_key && (a->empty || a->multiline)) && a->allow_block_plain)
        return 0;
    if (a->allow_single && !(simple_key && a->multiline))
        return '\'';
    return '"';
}

static void put(emitter *e, const char *s, size_t n)
{
    sb_add(e->out, s, n);
    e->column += n;
}

static void line_break(emitter *e)
{
    sb_addc(e->out, '\n');
    e->whitespace = e->indention = 1;
    e->column = 0;
}

static void write_indent(emitter *e)
{
    if (!e->indention || e->column > e->indent || (e->column == e->indent && !e->whitespace))
        line_break(e);
    if (e->column < e->indent) {
        e->whitespace = 1;
        while (e->column < e->indent) {
            sb_addc(e->out, ' ');
            e->column++;
        }
    }
}

static void indicator(emitter *e, const char *ind, int need_ws, int whitespace, int indention)
{
    if (!e->whitespace && need_ws)
        put(e, " ", 1);
    put(e, ind, strlen(ind));
    e->whitespace = whitespace;
    e->indention = e->indention && indention;
}

/* Plain and single-quoted scalars hold printable ASCII and \n only (any
 * other character forces double quotes), so bytes are characters here. */
static void write_plain(emitter *e, const scalar *s, int split)
{
    if (!s->len)
        return;
    if (!e->whitespace)
        put(e, " ", 1);
    e->whitespace = e->indention = 0;
    const char *t = s->utf8;
    size_t n = s->len, start = 0;
    int spaces = 0;
    for (size_t end = 0; end <= n; end++) {
        int ch = end < n ? (unsigned char)t[end] : -1;
        if (spaces) {
            if (ch != ' ') {
                if (start + 1 == end && e->column > BEST_WIDTH && split) {
                    write_indent(e);
                    e->whitespace = e->indention = 0;
                } else {
                    put(e, t + start, end - start);
                }
                start = end;
            }
        } else if (ch == -1 || ch == ' ') {
            put(e, t + start, end - start);
            start = end;
        }
        if (ch != -1)
            spaces = ch == ' ';
    }
}

static void write_single(emitter *e, const scalar *s, int split)
{
    indicator(e, "'", 1, 0, 0);
    const char *t = s->utf8;
    size_t n = s->len, start = 0;
    int spaces = 0, breaks = 0;
    for (size_t end = 0; end <= n; end++) {
        int ch = end < n ? (unsigned char)t[end] : -1;
        if (spaces) {
            if (ch != ' ') {
                if (start + 1 == end && e->column > BEST_WIDTH && split && start != 0 && end != n)
                    write_indent(e);
                else
                    put(e, t + start, end - start);
                start = end;
            }
        } else if (breaks) {
            if (ch != '\n') {
                if (t[start] == '\n')
                    line_break(e);
                for (size_t k = start; k < end; k++)
                    line_break(e);
                write_indent(e);
                start = end;
            }
        } else if (ch == -1 || ch == ' ' || ch == '\n' || ch == '\'') {
            if (start < end) {
                put(e, t + start, end - start);
                start = end;
            }
        }
        if (ch == '\'') {
            put(e, "''", 2);
            start = end + 1;
        }
        if (ch != -1) {
            spaces = ch == ' ';
            breaks = ch == '\n';
        }
    }
    indicator(e, "'", 0, 0, 0);
}

static void escape(emitter *e, uint32_t ch)
{
    static const struct {
        uint32_t ch;
        char esc;
    } named[] = {{0, '0'},    {7, 'a'},     {8, 'b'},      {9, 't'},      {10, 'n'},    {11, 'v'},
                 {12, 'f'},   {13, 'r'},    {27, 'e'},     {'"', '"'},    {'\\', '\\'}, {0x85, 'N'},
                 {0xA0, '_'}, {0x2028, 'L'}, {0x2029, 'P'}};
    char buf[12];
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (named[i].ch == ch) {
            buf[0] = '\\';
            buf[1] = named[i].esc;
            put(e, buf, 2);
            return;
        }
    int n = ch <= 0xFF ? snprintf(buf, sizeof buf, "\\x%02X", ch)
            : ch <= 0xFFFF ? snprintf(buf, sizeof buf, "\\u%04X", ch)
                           : snprintf(buf, sizeof buf, "\\U%08X", ch);
    put(e, buf, (size_t)n);
}

/* Raw runs are printable ASCII, so one code point is one byte of output. */
static void write_double(emitter *e, const scalar *s, int split)
{
    indicator(e, "\"", 1, 0, 0);
    const uint32_t *t = s->cp;
    size_t n = s->n, start = 0;
    for (size_t end = 0; end <= n; end++) {
        int have = end < n;
        uint32_t ch = have ? t[end] : 0;
        if (!have || ch == '"' || ch == '\\' || ch < 0x20 || ch > 0x7E) {
            for (; start < end; start++) {
                char c = (char)t[start];
                put(e, &c, 1);
            }
            if (have) {
                escape(e, ch);
                start = end + 1;
            }
        }
        if (end > 0 && end + 1 < n && (ch == ' ' || start >= end) && e->column + (end - start) > BEST_WIDTH &&
            split) {
            for (; start < end; start++) {
                char c = (char)t[start];
                put(e, &c, 1);
            }
            put(e, "\\", 1);
            write_indent(e);
            e->whitespace = e->indention = 0;
            if (t[start] == ' ')
                put(e, "\\", 1);
        }
    }
    indicator(e, "\"", 0, 0, 0);
}

static void write_scalar(emitter *e, const scalar *s, int simple_key)
{
    analysis a = analyze(s);
    char style = style_of(s, &a, simple_key);
    /* a scalar is written one indentation step deeper than its mapping */
    size_t saved = e->indent;
    e->indent += BEST_INDENT;
    int split = !simple_key;
    if (style == '"')
        write_double(e, s, split);
    else if (style == '\'')
        write_single(e, s, split);
    else
        write_plain(e, s, split);
    e->indent = saved;
}

static void make_scalar(const char *text, size_t len, scalar *s, strbuf *tmp)
{
    sb_reset(tmp);
    sb_add(tmp, text, len);
    s->utf8 = sb_str(tmp);
    s->len = len;
    s->cp = xmalloc_array(len + 1, sizeof *s->cp);
    s->n = decode(text, len, s->cp);
}

int yaml_dump_str_map(strbuf *out, const jval *map)
{
    if (map->type != J_OBJECT)
        return -1;
    for (uint32_t i = 0; i < map->len; i++)
        if (map->u.members[i].val.type != J_STRING)
            return -1;
    if (map->len == 0) {
        sb_adds(out, "{}\n");
        return 0;
    }
    emitter e = {.out = out, .column = 0, .whitespace = 1, .indention = 1, .indent = 0};
    strbuf kb = STRBUF_INIT, vb = STRBUF_INIT;
    for (uint32_t i = 0; i < map->len; i++) {
        const jmember *m = &map->u.members[i];
        scalar k, v;
        make_scalar(m->key, m->keylen, &k, &kb);
        make_scalar(m->val.u.str, m->val.len, &v, &vb);
        write_indent(&e);
        analysis ka = analyze(&k);
        if (!ka.empty && !ka.multiline && STR_TAG_LEN + k.n < SIMPLE_KEY_LIMIT) {
            write_scalar(&e, &k, 1);
            indicator(&e, ":", 0, 0, 0);
        } else {
            indicator(&e, "?", 1, 0, 1);
            write_scalar(&e, &k, 0);
            write_indent(&e);
            indicator(&e, ":", 1, 0, 1);
        }
        write_scalar(&e, &v, 0);
        free(k.cp);
        free(v.cp);
    }
    write_indent(&e);
    sb_free(&kb);
    sb_free(&vb);
    return 0;
}
