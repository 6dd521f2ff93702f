/* construct.json: the two readers of it -- compare's layer mapping
 * (lm_side_load, beside a fixed dump.json and stack.json) and data2db's
 * micro steps (micro_load) -- on the input as construct.json. */
#include "tests/fuzz/fuzz.h"

#include "model/layer_scope.h"
#include "monitor/data2db/micro.h"
#include "model/dump.h"

#include <stdlib.h>
#include <string.h>

/* A MindSpore dump of two cells and their APIs, with its stack. */
static const char dump_json[] =
    "{\"task\": \"statistics\", \"level\": \"mix\", \"framework\": \"mindspore\", \"dump_data_dir\": null, \"data\": {"
    "\"Cell.net.Net.forward.0\": {\"input_args\": [{\"type\": \"mindspore.Tensor\", \"dtype\": \"Float32\", \"shape\": [2], "
    "\"Max\": 1.0, \"Min\": 0.0, \"Mean\": 0.5, \"Norm\": 1.0}], \"output\": []},"
    "\"Cell.net.fc.Dense.forward.0\": {\"input_args\": [], \"output\": []},"
    "\"Mint.matmul.0.forward\": {\"input_args\": [{\"type\": \"int\", \"value\": 3}], \"output\": []},"
    "\"Functional.relu.1.forward\": {\"input_args\": [], \"output\": []}}}";
static const char stack_json[] =
    "{\"Mint.matmul.0.forward\": [\"File model.py, line 3, in construct, \\n x = mint.matmul(a, b)\"], "
    "\"Functional.relu.1.forward\": [\"File net.py, line 9, in construct, \\n y = relu(x)\"], "
    "\"Cell.net.Net.forward.0\": [], \"Cell.net.fc.Dense.forward.0\": []}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    fz_write("run/dump.json", dump_json, sizeof dump_json - 1);
    fz_write("run/stack.json", stack_json, sizeof stack_json - 1);
    fz_write("run/construct.json", data, size);
    char *dump = fz_path("run/dump.json"), *construct = fz_path("run/construct.json");

    dump_data d;
    if (dump_load(dump, &d) != 0)
        abort();
    for (int bench = 0; bench < 2; bench++) {
        arena m;
        arena_init(&m, 4096);
        lm_side sd;
        fz_done(lm_side_load(&sd, &d, bench, &m));
        lm_side_free(&sd);
        arena_free(&m);
    }
    dump_free(&d);

    micro_map mm;
    int rc = micro_load(construct, &mm);
    fz_done(rc);
    if (rc == 0) {
        static const char *const keys[] = {"Cell.net.Net.forward.0", "Mint.matmul.0.forward", "x"};
        for (int k = 0; k < 3; k++) {
            const char *renamed;
            size_t rlen;
            long long micro;
            micro_lookup(&mm, keys[k], strlen(keys[k]), &renamed, &rlen, &micro);
        }
    }
    micro_free(&mm);
    free(dump);
    free(construct);
    return 0;
}
