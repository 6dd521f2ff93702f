/* The page of a graph (spec §13): one self-contained HTML file holding the
 * .vis itself (minified, its '<', '>' and '&' escaped so that it cannot end
 * the script element it sits in; NaN and Infinity, which JSON.parse
 * refuses, as strings) and our own script and style sheet (viewer.js and
 * viewer.css beside this file, built into the binary). Nothing is fetched
 * when it opens: no server, no network, no framework. Every page is made from a .vis file -- the one a
 * run writes, a temporary one under --format db, or any .vis given to
 * `graph view` (msprobe's included). */
#include "graph/write/page/page.h"
#include "graph/write/vis.h"
#include "base/err.h"
#include "base/files.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/outdir.h"
#include "base/outstream.h"
#include "format/json.h"
#include "format/htmlw.h"
#include "format/jsonw.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const char graph_viewer_js[], graph_viewer_css[];

/* JSON text made safe inside <script>: whitespace between tokens dropped,
 * <, > and & in strings as \u escapes, the non-JSON tokens NaN, Infinity
 * and -Infinity as strings. `in_str` carries the state across calls. */
typedef struct {
    int in_str, esc;
} json_filter;

static void filter(json_filter *f, strbuf *sb, const unsigned char *p, size_t n)
{
    sb_grow(sb, n + n / 8 + 16);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        if (f->in_str) {
            if (f->esc) {
                f->esc = 0;
            } else if (c == '\\') {
                f->esc = 1;
            } else if (c == '"') {
                f->in_str = 0;
            } else if (c == '<' || c == '>' || c == '&') {
                sb_addf(sb, "\\u%04x", c);
                continue;
            }
            sb_addc(sb, (char)c);
            continue;
        }
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
            continue;
        if (c == '"') {
            f->in_str = 1;
        } else if (c == 'N' && i + 3 <= n && !memcmp(p + i, "NaN", 3)) {
            sb_adds(sb, "\"NaN\"");
            i += 2;
            continue;
        } else if (c == 'I' && i + 8 <= n && !memcmp(p + i, "Infinity", 8)) {
            sb_adds(sb, "\"Infinity\"");
            i += 7;
            continue;
        } else if (c == '-' && i + 9 <= n && !memcmp(p + i, "-Infinity", 9)) {
            sb_adds(sb, "\"-Infinity\"");
            i += 8;
            continue;
        }
        sb_addc(sb, (char)c);
    }
}

/* One value of a .vis, checked as JSON: objects member by member down to
 * VIS_WALK_DEPTH (a .vis is an object of graphs of nodes: the file is
 * mostly one member), anything below parsed into an arena reset after each
 * member, so memory follows the largest node, not the file. */
enum { VIS_WALK_DEPTH = 3 };

static int vis_check_value(jparser *jp, arena *a, int depth)
{
    if (jp_peek(jp) != '{' || depth >= VIS_WALK_DEPTH) {
        if (jp_skim(jp, 0) == 1)
            return 0;
        arena_reset(a);
        return jp_skip(jp);
    }
    if (jp_object_begin(jp) != 0)
        return -1;
    for (;;) {
        const char *key;
        size_t keylen;
        arena_reset(a);
        int r = jp_object_next(jp, a, &key, &keylen);
        if (r <= 0)
            return r;
        if (vis_check_value(jp, a, depth + 1) != 0)
            return -1;
    }
}

/* A .vis (ours or msprobe's) is one JSON object holding a graph: "node"
 * (a build) or "NPU" (a compare, beside "Bench") at its top. Checked before
 * any of it goes into a page: the page's script element holds it as data,
 * and text that is not JSON could end that element and run as script there
 * (a crafted "</script><script>..." outside any string); any other JSON (a
 * dump.json) would give a page that shows nothing. */
static int vis_check(const char *vis, const mapped_file *f)
{
    jparser jp;
    jp_init(&jp, vis, f->data, f->size);
    arena a;
    arena_init(&a, 1 << 16);
    int rc = jp_peek(&jp) == '{' ? 0 : err_input(vis, "not a .vis file: it does not hold a JSON object");
    int has_graph = 0;
    if (rc == 0)
        rc = jp_object_begin(&jp);
    while (rc == 0) {
        const char *key;
        size_t keylen;
        arena_reset(&a);
        int r = jp_object_next(&jp, &a, &key, &keylen);
        if (r <= 0) {
            rc = r;
            break;
        }
        if (((keylen == 4 && !memcmp(key, "node", 4)) || (keylen == 3 && !memcmp(key, "NPU", 3))) &&
            jp_peek(&jp) == '{')
            has_graph = 1;
        rc = vis_check_value(&jp, &a, 1);
    }
    if (rc == 0)
        rc = jp_end(&jp);
    if (rc == 0 && !has_graph)
        rc = err_input(vis, "not a .vis file: it holds no graph (\"node\", or \"NPU\" and \"Bench\"); graph view "
                            "shows the .vis that graph writes (graph -tp DUMP_DIR -o DIR --html draws a dump)");
    arena_free(&a);
    jp_free(&jp);
    return rc;
}

/* The page of the .vis at `vis`, shown under the name `shown`; *page
 * replaced (`replace`, graph view -o) or never (a run's page). */
static int page_from_vis(const char *vis, const char *shown, char **page, int replace)
{
    mapped_file f;
    if (file_map(vis, 0, &f) != 0)
        return -1;
    file_guard check_guard;
    file_guard_begin(&check_guard, &f);
    int checked = vis_check(vis, &f);
    if (file_guard_end(&check_guard) != 0 || checked != 0) {
        file_unmap(&f);
        return -1;
    }
    out_stream os;
    int rc = out_stream_open(&os, *page);
    *page = NULL;
    if (rc == 0) {
        strbuf *sb = &os.sb;
        char *base = path_basename(shown), *pbase = path_basename(os.path);
        sb_adds(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>msprobe graph \xc2\xb7 ");
        htmlw_text(sb, base);
        sb_adds(sb, "</title>\n<style>\n");
        sb_adds(sb, graph_viewer_css);
        sb_adds(sb, "</style>\n</head>\n<body>\n<header></header>\n<div id=\"toolbar\"></div>\n<div id=\"legend\"></div>\n"
                    "<main id=\"panes\"></main>\n<section id=\"details\"><div class=\"body\"></div></section>\n"
                    "<script type=\"application/json\" id=\"msprobe-meta\">");
        strbuf m = STRBUF_INIT;
        sb_adds(&m, "{\"file\": ");
        jsonw_str_ascii(&m, base, strlen(base));
        sb_adds(&m, ", \"page\": ");
        jsonw_str_ascii(&m, pbase, strlen(pbase));
        sb_adds(&m, "}");
        json_filter jf = {0, 0};
        filter(&jf, sb, (const unsigned char *)m.buf, m.len);
        sb_free(&m);
        free(base);
        free(pbase);
        sb_adds(sb, "</script>\n<script type=\"application/json\" id=\"msprobe-vis\">");
        file_guard guard;
        file_guard_begin(&guard, &f);
        memset(&jf, 0, sizeof jf);
        for (size_t off = 0, n; off < f.size && rc == 0; off += n) {
            n = f.size - off < OUT_STREAM_CHUNK ? f.size - off : OUT_STREAM_CHUNK;
            /* a chunk ends after a run of letters, never inside NaN or
             * (-)Infinity, which filter() must see whole */
            while (off + n < f.size && ((f.data[off + n] | 0x20) >= 'a' && (f.data[off + n] | 0x20) <= 'z'))
                n++;
            filter(&jf, sb, f.data + off, n);
            rc = out_stream_flush(&os, OUT_STREAM_CHUNK);
        }
        if (file_guard_end(&guard) != 0)
            rc = -1;
        sb_adds(sb, "</script>\n<script>\n");
        sb_adds(sb, graph_viewer_js);
        sb_adds(sb, "</script>\n</body>\n</html>\n");
        if (rc == 0 && !replace) {
            rc = out_stream_commit(&os);
        } else if (rc == 0) {
            rc = out_stream_flush(&os, 0);
            if (rc == 0 && close(os.fd) != 0)
                rc = err_set(ERR_OUTPUT, os.path, "cannot write the page");
            os.fd = -1;
            if (rc == 0) {
                rc = out_tmp_commit(os.tmp, os.path);
                os.tmp = NULL;
            }
        }
    }
    *page = os.path;
    out_stream_close(&os);
    file_unmap(&f);
    return rc;
}

int page_from_vis_file(const char *vis, char **page)
{
    return page_from_vis(vis, vis, page, 1);
}

int page_write(char **path, const char *vis, graph *n, graph *b, const gcompare *cmp, int overflow_check, int threads)
{
    if (vis)
        return page_from_vis(vis, vis, path, 0);
    /* no .vis of the run (--format db): one for the page, then gone */
    char *tmp_vis = NULL;
    strbuf name = STRBUF_INIT;
    sb_adds(&name, *path);
    if (name.len > 5 && !strcmp(name.buf + name.len - 5, ".html"))
        name.len -= 5;
    sb_adds(&name, ".vis");
    char *shown = xstrdup(sb_str(&name));
    out_stream os;
    int rc = out_stream_open(&os, sb_detach(&name));
    if (rc == 0)
        rc = vis_render(&os, n, b, cmp, overflow_check, threads);
    if (rc == 0)
        rc = out_stream_flush(&os, 0);
    if (rc == 0) {
        tmp_vis = os.tmp;
        rc = page_from_vis(tmp_vis, shown, path, 0);
    }
    free(os.path);
    out_stream_close(&os);
    free(shown);
    return rc;
}

int page_view(const char *vis, const char *out)
{
    char *page;
    if (out) {
        page = xstrdup(out);
    } else {
        size_t n = strlen(vis);
        strbuf sb = STRBUF_INIT;
        sb_add(&sb, vis, n > 4 && !strcmp(vis + n - 4, ".vis") ? n - 4 : n);
        sb_adds(&sb, ".html");
        page = sb_detach(&sb);
    }
    /* a page that exists is replaced, as any output named by the user */
    if (out_check_replaceable(page) != 0) {
        free(page);
        return err_report();
    }
    char *dir = path_dirname(page);
    if (path_kind(dir) != PATH_DIR) {
        err_set(ERR_OUTPUT, page, "cannot write the page: %s is not a directory", dir);
        free(dir);
        free(page);
        return err_report();
    }
    free(dir);
    int rc = page_from_vis_file(vis, &page);
    int status = EXIT_OK;
    if (rc != 0)
        status = err_report();
    else
        log_info("%s", page);
    free(page);
    return status;
}
