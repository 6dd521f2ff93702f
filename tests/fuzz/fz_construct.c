/* construct.json: the three readers of it -- compare's layer mapping
 * (lm_side_load, beside a fixed dump.json and stack.json), data2db's micro
 * steps (micro_load) and graph's tree (rank_load + graph_build, beside a
 * PyTorch dump) -- on the input as construct.json. A tree graph accepts
 * has no node that is its own parent and no loop of parents. */
#include "tests/fuzz/fuzz.h"

#include "graph/model/graph.h"
#include "graph/model/rank.h"
#include "model/layer_scope.h"
#include "monitor/data2db/micro.h"
#include "model/dump.h"

#include <stdio.h>
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

/* A PyTorch dump of a module and its APIs, with its stack, for graph. */
static const char graph_dump[] =
    "{\"task\": \"statistics\", \"level\": \"mix\", \"framework\": \"pytorch\", \"dump_data_dir\": null, \"data\": {"
    "\"Module.fc.Linear.forward.0\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", "
    "\"shape\": [2], \"Max\": 1.0, \"Min\": 0.0, \"Mean\": 0.5, \"Norm\": 1.0, \"requires_grad\": false}], \"output\": []},"
    "\"Functional.linear.0.forward\": {\"input_args\": [], \"output\": []},"
    "\"Torch.add.0.forward\": {\"input_args\": [{\"type\": \"int\", \"value\": 3}], \"output\": []}}}";
static const char graph_stack[] = "{\"Functional.linear.0.forward\": [\"File m.py, line 3, in forward, \\n y = f(x)\"]}";

static void graph_tree(const uint8_t *data, size_t size)
{
    fz_write("graph/dump.json", graph_dump, sizeof graph_dump - 1);
    fz_write("graph/stack.json", graph_stack, sizeof graph_stack - 1);
    fz_write("graph/construct.json", data, size);
    char *dir = fz_path("graph");
    rankdata rd;
    graph g;
    graph_opts o;
    memset(&o, 0, sizeof o);
    memset(&g, 0, sizeof g);
    int rc = rank_load(&rd, dir, 0, NULL);
    fz_done(rc);
    if (rc == 0) {
        rc = graph_build(&g, &rd, &o);
        fz_done(rc);
    }
    for (size_t i = 0; rc == 0 && i < g.n; i++) {
        /* at most n steps up from any node reach one without a parent */
        size_t x = i, steps = 0;
        while (g.nodes[x].up >= 0 && steps++ <= g.n)
            x = (size_t)g.nodes[x].up;
        if (g.nodes[x].up >= 0 || g.nodes[i].up == (int32_t)i) {
            fprintf(stderr, "fz_construct: graph accepted a loop of parents at %s\n", g.nodes[i].id);
            abort();
        }
    }
    graph_free(&g);
    rank_free(&rd);
    free(dir);
}

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
    graph_tree(data, size);
    return 0;
}
