/* The harness of the dump.json unit tests (test_dump.c, test_dump_errors.c):
 * loading of a JSON text written as a file into the group's scratch
 * directory (tu_dir). Include after <cmocka.h> and "testutil.h". */
#ifndef MSP_DUMP_HARNESS_H
#define MSP_DUMP_HARNESS_H

#include "model/dump.h"
#include "base/err.h"

/* Writes `json` as tu_dir/<base> and loads it. The path stays valid until the
 * next call. */
static char *cur_path;

static inline int load_as(const char *json, size_t n, const char *base, dump_data *d)
{
    free(cur_path);
    cur_path = tu_write(tu_dir, base, json, n);
    err_clear();
    return dump_load(cur_path, d);
}

static inline int load(const char *json, dump_data *d) { return load_as(json, (size_t)-1, "dump.json", d); }

/* A valid dump of every kind of entry: the rows of test_basic_rows, the
 * target of a symlink and the text truncated in test_dump_errors.c. */
static const char fx_basic[] =
    "{\"task\": \"statistics\", \"level\": \"L1\", \"framework\": \"pytorch\", \"dump_data_dir\": null, \"data\": {\n"
    " \"Functional.max_pool2d.0.forward\": {\n"
    "  \"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [1, 3, 4, 4], \"Max\": 1.63, \"Min\": 0.0, \"Mean\": 0.25, \"Norm\": 70.5, \"requires_grad\": true},\n"
    "                 {\"type\": \"int\", \"value\": 3}, {\"type\": \"int\", \"value\": 2}, {\"type\": \"int\", \"value\": 1}, {\"type\": \"int\", \"value\": 1}],\n"
    "  \"input_kwargs\": {\"ceil_mode\": {\"type\": \"bool\", \"value\": false}, \"return_indices\": {\"type\": \"bool\", \"value\": false}},\n"
    "  \"output\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [1, 3, 2, 2], \"Max\": NaN, \"Min\": -Infinity, \"Mean\": Infinity, \"Norm\": 3, \"requires_grad\": false}]},\n"
    " \"Tensor.__add__.0.backward\": {\"input\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.bfloat16\", \"shape\": [], \"Max\": 1e-05, \"Min\": -1e+16, \"Mean\": null, \"Norm\": 100.0, \"requires_grad\": false}], \"output\": [null, {\"type\": \"float\", \"value\": 1.5}]},\n"
    " \"Module.l.Linear.forward.0\": {\"output\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2, 2], \"Max\": 1, \"Min\": 2, \"Mean\": 3, \"Norm\": 4, \"requires_grad\": true}],\n"
    "   \"parameters\": {\"weight\": {\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2, 8], \"Max\": 0.5, \"Min\": -0.5, \"Mean\": 0.0, \"Norm\": 1.0, \"requires_grad\": true}, \"bias\": null},\n"
    "   \"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2, 8], \"Max\": 5, \"Min\": 6, \"Mean\": 7, \"Norm\": 8, \"requires_grad\": true}], \"input_kwargs\": {}},\n"
    " \"Module.l.Linear.parameters_grad\": {\"weight\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2, 8], \"Max\": 0.1, \"Min\": 0.2, \"Mean\": 0.3, \"Norm\": 0.4, \"requires_grad\": false}], \"bias\": [null]},\n"
    " \"Torch.empty.0.forward\": {\"input_args\": [], \"input_kwargs\": {}, \"output\": []}\n"
    "}}\n";

#endif
