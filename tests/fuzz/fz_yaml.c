/* The YAML reader (format/yaml_read.h: libyaml underneath, PyYAML's
 * safe_load on top): a document becomes the JSON value tree, which
 * json.dump's text (jsonw) must read back as the same tree. */
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/jtree.h"

#include "base/err.h"
#include "base/strbuf.h"
#include "format/json.h"
#include "format/jsonw.h"
#include "format/yaml_read.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    arena a;
    arena_init(&a, 4096);
    jval root;
    int rc = yaml_parse(fz_dir(), data, size, &a, &root);
    fz_done(rc);
    if (rc == 0) {
        strbuf sb = STRBUF_INIT;
        jsonw_value(&sb, &root, 0, 0);
        arena b;
        arena_init(&b, 4096);
        jval again;
        if (json_parse(fz_dir(), sb.len ? sb.buf : "", sb.len, &b, &again) != 0 || !jtree_eq(&root, &again)) {
            fprintf(stderr, "fz_yaml: the tree does not survive json.dump: %s (%s)\n", sb_str(&sb), err_message());
            abort();
        }
        arena_free(&b);
        sb_free(&sb);
    }
    arena_free(&a);
    return 0;
}
