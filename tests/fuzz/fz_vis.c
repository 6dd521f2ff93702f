/* graph view's reader: a .vis file (ours or msprobe's) made into the
 * self-contained page. The input is the .vis. Refused: nothing written.
 * Accepted: the page holds the .vis as the text of a script element, and
 * that text must be JSON (NaN and Infinity made strings) with no '<' in it,
 * so that nothing in a .vis can end the element and run as script (the
 * first run of this harness found that it could). */
#include "tests/fuzz/fuzz.h"

#include "base/arena.h"
#include "base/err.h"
#include "base/files.h"
#include "format/json.h"
#include "graph/write/page/page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char open_tag[] = "<script type=\"application/json\" id=\"msprobe-vis\">";

static void bad(const char *what)
{
    fprintf(stderr, "fz_vis: %s\n", what);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    const char *vis = fz_write("in.vis", data, size);
    char *page = fz_path("out.html");
    char *want = fz_path("out.html");
    unlink(want);
    int rc = page_from_vis_file(vis, &page);
    fz_done(rc);
    if (rc != 0) {
        if (access(want, F_OK) == 0)
            bad("a refused .vis left a page behind");
    } else {
        mapped_file pf;
        if (file_load(want, 0, &pf) != 0)
            bad("no page written");
        const char *text = (const char *)pf.data;
        const char *s = strstr(text, open_tag);
        if (!s)
            bad("the page has no .vis element");
        s += sizeof open_tag - 1;
        const char *e = strstr(s, "</script>");
        if (!e)
            bad("the .vis element is not closed");
        if (memchr(s, '<', (size_t)(e - s)))
            bad("a '<' inside the .vis element");
        arena a;
        arena_init(&a, 4096);
        jval v;
        if (json_parse("page", s, (size_t)(e - s), &a, &v) != 0 || v.type != J_OBJECT)
            bad("the .vis element is not a JSON object");
        arena_free(&a);
        file_unmap(&pf);
        unlink(want);
    }
    free(page);
    free(want);
    return 0;
}
