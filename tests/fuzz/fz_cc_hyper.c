/* config_check's hyper-parameter readers: a yaml file flattened the way
 * msprobe 8.1.0's YamlParser does, a launch script read by its
 * ShellParser, both merged (update_dict) and written as the pack's json,
 * and the compare's fuzzy name matching over the result. */
#include "tests/fuzz/fuzz.h"

#include "base/strbuf.h"
#include "config_check/hyper.h"
#include "format/yaml_read.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    arena a;
    arena_init(&a, 4096);
    hp_dict shared, acc, sh;
    hp_init(&shared, &a);
    hp_init(&acc, &a);
    hp_init(&sh, &a);
    jval doc;
    int rc = yaml_parse(fz_dir(), data, size, &a, &doc);
    fz_done(rc);
    if (rc == 0) {
        yaml_flatten(&doc, &shared);
        hp_update(&acc, &shared);
    }
    shell_parse((const char *)data, size, &sh);
    hp_update(&acc, &sh);
    strbuf sb = STRBUF_INIT;
    hp_json(&acc, &sb);
    /* every name matched against all the others */
    const jmember **names = malloc((acc.n ? acc.n : 1) * sizeof *names);
    for (size_t i = 0; i < acc.n; i++)
        names[i] = &acc.m[i];
    avail_names av = {names, acc.n};
    strbuf how = STRBUF_INIT;
    for (size_t i = 0; i < acc.n && i < 16; i++) {
        sb_reset(&how);
        hyper_match(&av, acc.m[i].key, acc.m[i].keylen, &how);
    }
    sb_free(&how);
    free(names);
    sb_free(&sb);
    hp_free(&sh);
    hp_free(&acc);
    hp_free(&shared);
    arena_free(&a);
    return 0;
}
