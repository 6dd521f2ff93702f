/* dump.json / debug.json loading (spec/compare.md §1, §3): flattening of
 * entries into rows, row fields, re-ordering and states, md5 presence,
 * task/framework and duplicates (refusals: test_dump_errors.c).
 *
 * The expected rows were produced by running msprobe 8.1.0's own
 * flattening code (read_op / op_item_parse / gen_op_item /
 * get_name_and_state, with str() of dtype and shape) on the same fixtures.
 * A row is written as name|dtype|shape|md5|data_name|state|api_len|Max|Min|
 * Mean|Norm, each statistic as kind:str(value) (a Python int beyond 64 bits
 * as int:wide), md5 None as NULL; "ENTRY name nrows" starts each entry. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model/dump.h"
#include "base/err.h"
#include "py/pdnum.h"
#include "py/pystr.h"
#include "base/strbuf.h"
#include "testutil.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump_harness.h"

static const char *const state_names[] = {"input", "kwargs", "output", "parameters", "parameters_grad", "debug"};

static void fmt_stat(strbuf *sb, const pyval *v)
{
    switch (v->kind) {
    case PV_NONE: sb_adds(sb, "None"); break;
    case PV_BOOL: sb_adds(sb, v->num ? "bool:True" : "bool:False"); break;
    case PV_INT:
        if (v->wide_int)
            sb_adds(sb, "int:wide");
        else
            sb_addf(sb, "int:%.0f", v->num);
        break;
    case PV_FLOAT: sb_adds(sb, "float:"); py_repr_float(sb, v->num); break;
    case PV_STR: sb_adds(sb, "str:"); sb_add(sb, v->text, v->len); break;
    default: sb_adds(sb, "other:"); sb_add(sb, v->text, v->len); break;
    }
}

static void stats_of(const dump_row *r, pyval *s)
{
    for (int k = 0; k < 4; k++)
        s[k] = dump_stat(r, k);
}

static void fmt_row(strbuf *sb, const dump_row *r)
{
    sb_reset(sb);
    sb_addf(sb, "%s|%s|%s|%s|%s|%s|%u", r->name, r->dtype, r->shape, r->md5 ? r->md5 : "NULL", r->data_name,
            state_names[r->state], r->api_len);
    for (int k = 0; k < 4; k++) {
        sb_addc(sb, '|');
        fmt_stat(sb, (const pyval[]){dump_stat(r, k)});
    }
}

/* The loaded rows, entry by entry, must be exactly `want`. */
static void expect_rows(const dump_data *d, const char *const *want)
{
    strbuf sb = STRBUF_INIT;
    size_t w = 0, next_row = 0;
    for (size_t e = 0; e < d->nentries; e++) {
        const dump_entry *en = &d->entries[e];
        sb_reset(&sb);
        sb_addf(&sb, "ENTRY %s %zu", en->name, en->nrows);
        if (!want[w] || strcmp(sb_str(&sb), want[w]) != 0)
            fail_msg("got \"%s\", want \"%s\"", sb_str(&sb), want[w] ? want[w] : "(end)");
        w++;
        /* rows of consecutive entries are consecutive */
        assert_int_equal(en->first_row, next_row);
        for (size_t i = en->first_row; i < en->first_row + en->nrows; i++) {
            assert_int_equal(d->rows[i].entry, e);
            fmt_row(&sb, &d->rows[i]);
            if (!want[w] || strcmp(sb_str(&sb), want[w]) != 0)
                fail_msg("got \"%s\",\nwant \"%s\"", sb_str(&sb), want[w] ? want[w] : "(end)");
            w++;
        }
        next_row = en->first_row + en->nrows;
    }
    assert_int_equal(next_row, d->nrows);
    if (want[w])
        fail_msg("missing \"%s\"", want[w]);
    sb_free(&sb);
}

static void load_expect(const char *json, const char *base, const char *const *want, int file_type)
{
    dump_data d;
    if (load_as(json, (size_t)-1, base, &d) != 0)
        fail_msg("load failed: %s", err_message());
    assert_int_equal(d.file_type, file_type);
    expect_rows(&d, want);
    dump_free(&d);
}

static const char *const rows_basic[] = {
    "ENTRY Functional.max_pool2d.0.forward 8",
    "Functional.max_pool2d.0.forward.input.0|torch.float32|[1, 3, 4, 4]|00000000|-1|input|32|float:1.63|float:0.0|float:0.25|float:70.5",
    "Functional.max_pool2d.0.forward.input.1|<class 'int'>|[]|6dd28e9b|-1|input|32|int:3|int:3|int:3|int:3",
    "Functional.max_pool2d.0.forward.input.2|<class 'int'>|[]|1ad5be0d|-1|input|32|int:2|int:2|int:2|int:2",
    "Functional.max_pool2d.0.forward.input.3|<class 'int'>|[]|83dcefb7|-1|input|32|int:1|int:1|int:1|int:1",
    "Functional.max_pool2d.0.forward.input.4|<class 'int'>|[]|83dcefb7|-1|input|32|int:1|int:1|int:1|int:1",
    "Functional.max_pool2d.0.forward.input.ceil_mode|<class 'bool'>|[]|ea0c4734|-1|input|32|bool:False|bool:False|bool:False|bool:False",
    "Functional.max_pool2d.0.forward.input.return_indices|<class 'bool'>|[]|ea0c4734|-1|input|32|bool:False|bool:False|bool:False|bool:False",
    "Functional.max_pool2d.0.forward.output.0|torch.float32|[1, 3, 2, 2]|00000000|-1|output|32|float:nan|float:-inf|float:inf|int:3",
    "ENTRY Tensor.__add__.0.backward 3",
    "Tensor.__add__.0.backward.input.0|torch.bfloat16|[]|00000000|-1|input|26|float:1e-05|float:-1e+16|None|float:100.0",
    "Tensor.__add__.0.backward.output.0|None|None|NULL|-1|output|26|None|None|None|None",
    "Tensor.__add__.0.backward.output.1|<class 'float'>|[]|875c9bba|-1|output|26|float:1.5|float:1.5|float:1.5|float:1.5",
    "ENTRY Module.l.Linear.forward.0 4",
    "Module.l.Linear.forward.0.input.0|torch.float32|[2, 8]|00000000|-1|input|26|int:5|int:6|int:7|int:8",
    "Module.l.Linear.forward.0.parameters.weight|torch.float32|[2, 8]|00000000|-1|parameters|26|float:0.5|float:-0.5|float:0.0|float:1.0",
    "Module.l.Linear.forward.0.parameters.bias|None|None|NULL|-1|parameters|26|None|None|None|None",
    "Module.l.Linear.forward.0.output.0|torch.float32|[2, 2]|00000000|-1|output|26|int:1|int:2|int:3|int:4",
    "ENTRY Module.l.Linear.parameters_grad 2",
    "Module.l.Linear.parameters_grad.weight|torch.float32|[2, 8]|00000000|-1|parameters_grad|16|float:0.1|float:0.2|float:0.3|float:0.4",
    "Module.l.Linear.parameters_grad.bias|None|None|NULL|-1|parameters_grad|16|None|None|None|None",
    "ENTRY Torch.empty.0.forward 0",
    NULL,
};

/* scalars */
static const char fx_scalars[] =
    "{\"task\": \"statistics\", \"level\": \"L1\", \"data\": {\n"
    " \"Torch.x.0.forward\": {\"input_args\": [\n"
    "   {\"type\": \"int\", \"value\": 2}, {\"type\": \"float\", \"value\": 1.5}, {\"type\": \"bool\", \"value\": true}, {\"type\": \"str\", \"value\": \"abc\"},\n"
    "   {\"type\": \"torch.Size\", \"value\": [2, 3]}, {\"type\": \"torch.Size\"}, {\"type\": \"slice\", \"value\": [1, null, 2]}, {\"type\": \"slice\", \"value\": [[1, 2], [3, 4]]}, {\"type\": \"slice\"},\n"
    "   {\"type\": \"ellipsis\", \"value\": \"...\"}, {\"type\": \"torch.ProcessGroup\", \"group_ranks\": [0, 1, 2, 3], \"group_id\": \"abcd\"}, {\"type\": \"torch.ProcessGroup\"},\n"
    "   {\"type\": \"torch.memory_format\", \"format\": \"contiguous_format\"}, {\"type\": \"torch.dtype\", \"value\": \"torch.float32\"}, {\"type\": \"int\", \"value\": null},\n"
    "   {\"type\": \"list\", \"value\": [1, \"a\", null]}, {\"type\": \"dict\", \"value\": {\"k\": 1.0}}, {\"type\": \"float\", \"value\": NaN}, {\"type\": \"float\", \"value\": -0.0},\n"
    "   {\"type\": \"int\", \"value\": 123456789012345678901234567890}, {\"type\": \"int\", \"value\": -0}, {\"type\": \"str\", \"value\": \"1e5\"}, {\"type\": \"str\", \"value\": \"\"},\n"
    "   {\"type\": \"float\", \"value\": 1e16}, {\"type\": \"int\", \"value\": 2, \"md5\": \"deadbeef\"}, {\"type\": \"int\", \"value\": 2, \"md5\": \"\"}, {\"type\": \"numpy.int64\", \"value\": 7},\n"
    "   {\"type\": \"float32\", \"value\": 0.1, \"Max\": 5}, {\"type\": \"torch.Tensor\", \"dtype\": \"\", \"shape\": [1], \"value\": 3}\n"
    " ]}\n"
    "}}\n";

static const char *const rows_scalars[] = {
    "ENTRY Torch.x.0.forward 29",
    "Torch.x.0.forward.input.0|<class 'int'>|[]|1ad5be0d|-1|input|18|int:2|int:2|int:2|int:2",
    "Torch.x.0.forward.input.1|<class 'float'>|[]|875c9bba|-1|input|18|float:1.5|float:1.5|float:1.5|float:1.5",
    "Torch.x.0.forward.input.2|<class 'bool'>|[]|5dcee3b3|-1|input|18|bool:True|bool:True|bool:True|bool:True",
    "Torch.x.0.forward.input.3|<class 'str'>|[]|352441c2|-1|input|18|str:abc|str:abc|str:abc|str:abc",
    "Torch.x.0.forward.input.4|torch.Size|[2, 3]|3f72ac6e|-1|input|18|None|None|None|None",
    "Torch.x.0.forward.input.5|torch.Size|None|00000000|-1|input|18|None|None|None|None",
    "Torch.x.0.forward.input.6|slice|(3,)|008e98d6|-1|input|18|None|None|None|None",
    "Torch.x.0.forward.input.7|slice|(2, 2)|b6b56cd9|-1|input|18|None|None|None|None",
    "Torch.x.0.forward.input.8|slice|()|00000000|-1|input|18|None|None|None|None",
    "Torch.x.0.forward.input.9|ellipsis|[]|1a43b61b|-1|input|18|str:...|str:...|str:...|str:...",
    "Torch.x.0.forward.input.10|torch.ProcessGroup|[]|00000000|-1|input|18|str:[0, 1, 2, 3]|str:[0, 1, 2, 3]|str:[0, 1, 2, 3]|str:[0, 1, 2, 3]",
    "Torch.x.0.forward.input.11|torch.ProcessGroup|[]|00000000|-1|input|18|str:None|str:None|str:None|str:None",
    "Torch.x.0.forward.input.12|<class 'NoneType'>|[]|00000000|-1|input|18|None|None|None|None",
    "Torch.x.0.forward.input.13|<class 'str'>|[]|d8ca9648|-1|input|18|str:torch.float32|str:torch.float32|str:torch.float32|str:torch.float32",
    "Torch.x.0.forward.input.14|<class 'NoneType'>|[]|dfa2aff1|-1|input|18|None|None|None|None",
    "Torch.x.0.forward.input.15|<class 'list'>|[]|29c44190|-1|input|18|other:[1, 'a', None]|other:[1, 'a', None]|other:[1, 'a', None]|other:[1, 'a', None]",
    "Torch.x.0.forward.input.16|<class 'dict'>|[]|63be861f|-1|input|18|other:{'k': 1.0}|other:{'k': 1.0}|other:{'k': 1.0}|other:{'k': 1.0}",
    "Torch.x.0.forward.input.17|<class 'float'>|[]|6be42981|-1|input|18|float:nan|float:nan|float:nan|float:nan",
    "Torch.x.0.forward.input.18|<class 'float'>|[]|7aa974ef|-1|input|18|float:-0.0|float:-0.0|float:-0.0|float:-0.0",
    "Torch.x.0.forward.input.19|<class 'int'>|[]|836bd70f|-1|input|18|int:wide|int:wide|int:wide|int:wide",
    "Torch.x.0.forward.input.20|<class 'int'>|[]|f4dbdf21|-1|input|18|int:0|int:0|int:0|int:0",
    "Torch.x.0.forward.input.21|<class 'str'>|[]|94d10d74|-1|input|18|str:1e5|str:1e5|str:1e5|str:1e5",
    "Torch.x.0.forward.input.22|<class 'str'>|[]|00000000|-1|input|18|str:|str:|str:|str:",
    "Torch.x.0.forward.input.23|<class 'float'>|[]|6b645a30|-1|input|18|float:1e+16|float:1e+16|float:1e+16|float:1e+16",
    "Torch.x.0.forward.input.24|<class 'int'>|[]|deadbeef|-1|input|18|int:2|int:2|int:2|int:2",
    "Torch.x.0.forward.input.25|<class 'int'>|[]|1ad5be0d|-1|input|18|int:2|int:2|int:2|int:2",
    "Torch.x.0.forward.input.26|<class 'int'>|[]|6abf4a82|-1|input|18|int:7|int:7|int:7|int:7",
    "Torch.x.0.forward.input.27|<class 'float'>|[]|81f33594|-1|input|18|float:0.1|float:0.1|float:0.1|float:0.1",
    "Torch.x.0.forward.input.28|<class 'int'>|[]|6dd28e9b|-1|input|18|int:3|int:3|int:3|int:3",
    NULL,
};

/* nested */
static const char fx_nested[] =
    "{\"task\": \"statistics\", \"data\": {\n"
    " \"Functional.f.0.forward\": {\"input_args\": [[{\"type\": \"int\", \"value\": 1}, [null, {\"type\": \"int\", \"value\": 2}]], {\"a\": {\"type\": \"int\", \"value\": 3}, \"b\": [{\"type\": \"int\", \"value\": 4}], \"c\": {\"d\": null}},\n"
    "   0, \"\", [], {}, false, 5, \"str\", true, 1.5, NaN, {\"class_type\": \"torch.distributed.P2POp\", \"tensor\": {\"type\": \"torch.Tensor\", \"dtype\": \"torch.int64\", \"shape\": [3], \"Max\": 1, \"Min\": 1, \"Mean\": 1, \"Norm\": 1}, \"op\": \"isend\", \"peer\": 1, \"tag\": 0}],\n"
    "   \"input_kwargs\": {\"alpha\": {\"type\": \"float\", \"value\": 0.5}, \"z\": null, \"e\": {}, \"dup\": {\"type\": \"int\", \"value\": 1}, \"dup\": {\"type\": \"int\", \"value\": 9}},\n"
    "   \"output\": {\"x\": {\"type\": \"int\", \"value\": 1}},\n"
    "   \"other_key\": [{\"type\": \"int\", \"value\": 1}],\n"
    "   \"grad_input\": [{\"type\": \"int\", \"value\": 1}]},\n"
    " \"Functional.g.0.forward\": {\"input\": [{\"type\": \"int\", \"value\": 1}], \"input_args\": [{\"type\": \"int\", \"value\": 2}], \"input_kwargs\": {\"k\": {\"type\": \"int\", \"value\": 3}}, \"parameters\": [{\"type\": \"int\", \"value\": 4}]}\n"
    "}}\n";

static const char *const rows_nested[] = {
    "ENTRY Functional.f.0.forward 11",
    "Functional.f.0.forward.input.0.0|<class 'int'>|[]|83dcefb7|-1|input|23|int:1|int:1|int:1|int:1",
    "Functional.f.0.forward.input.0.1.0|None|None|NULL|-1|input|23|None|None|None|None",
    "Functional.f.0.forward.input.0.1.1|<class 'int'>|[]|1ad5be0d|-1|input|23|int:2|int:2|int:2|int:2",
    "Functional.f.0.forward.input.1.a|<class 'int'>|[]|6dd28e9b|-1|input|23|int:3|int:3|int:3|int:3",
    "Functional.f.0.forward.input.1.b.0|<class 'int'>|[]|f3b61b38|-1|input|23|int:4|int:4|int:4|int:4",
    "Functional.f.0.forward.input.1.c.d|None|None|NULL|-1|input|23|None|None|None|None",
    "Functional.f.0.forward.input.12.tensor|torch.int64|[3]|00000000|-1|input|23|int:1|int:1|int:1|int:1",
    "Functional.f.0.forward.input.alpha|<class 'float'>|[]|869ef18d|-1|input|23|float:0.5|float:0.5|float:0.5|float:0.5",
    "Functional.f.0.forward.input.z|None|None|NULL|-1|input|23|None|None|None|None",
    "Functional.f.0.forward.input.dup|<class 'int'>|[]|8d076785|-1|input|23|int:9|int:9|int:9|int:9",
    "Functional.f.0.forward.output.x|<class 'int'>|[]|83dcefb7|-1|output|23|int:1|int:1|int:1|int:1",
    "ENTRY Functional.g.0.forward 4",
    "Functional.g.0.forward.input.0|<class 'int'>|[]|1ad5be0d|-1|input|23|int:2|int:2|int:2|int:2",
    "Functional.g.0.forward.input.k|<class 'int'>|[]|6dd28e9b|-1|input|23|int:3|int:3|int:3|int:3",
    "Functional.g.0.forward.input.0|<class 'int'>|[]|83dcefb7|-1|input|23|int:1|int:1|int:1|int:1",
    "Functional.g.0.forward.parameters.0|<class 'int'>|[]|f3b61b38|-1|parameters|23|int:4|int:4|int:4|int:4",
    NULL,
};

/* dataname */
static const char fx_dataname[] =
    "{\"task\": \"tensor\", \"data\": {\n"
    " \"X.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], \"Max\": 1, \"Min\": 1, \"Mean\": 1, \"Norm\": 1, \"data_name\": \"X.0.forward.input.0.pt\"}],\n"
    "   \"input_kwargs\": {\"alpha\": {\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], \"Max\": 1, \"Min\": 1, \"Mean\": 1, \"Norm\": 1, \"data_name\": \"X.0.forward.kwargs.alpha.pt\"},\n"
    "                    \"beta\": {\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], \"data_name\": \"\"}},\n"
    "   \"output\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], \"data_name\": \"X.0.forward.output.0.npy\"}]},\n"
    " \"Cell.net.Dense.backward.0\": {\"input\": [{\"type\": \"mindspore.Tensor\", \"dtype\": \"Float32\", \"shape\": [4], \"data_name\": \"Cell.net.Dense.backward.0.input.0.npy\"}]}\n"
    "}}\n";

static const char *const rows_dataname[] = {
    "ENTRY X.0.forward 4",
    "X.0.forward.input.0|torch.float32|[2]|00000000|X.0.forward.input.0.pt|input|12|int:1|int:1|int:1|int:1",
    "X.0.forward.kwargs.alpha|torch.float32|[2]|00000000|X.0.forward.kwargs.alpha.pt|kwargs|12|int:1|int:1|int:1|int:1",
    "X.0.forward.input.beta|torch.float32|[2]|00000000|-1|input|12|None|None|None|None",
    "X.0.forward.output.0|torch.float32|[2]|00000000|X.0.forward.output.0.npy|output|12|None|None|None|None",
    "ENTRY Cell.net.Dense.backward.0 1",
    "Cell.net.Dense.backward.0.input.0|Float32|[4]|00000000|Cell.net.Dense.backward.0.input.0.npy|input|26|None|None|None|None",
    NULL,
};

/* debug */
static const char fx_debug[] =
    "{\"task\": \"statistics\", \"level\": \"debug\", \"framework\": \"pytorch\", \"data\": {\n"
    " \"x_tensor.0.debug\": {\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], \"Max\": 1, \"Min\": 0, \"Mean\": 0.5, \"Norm\": 1.2},\n"
    " \"y_grad.0.debug\": [{\"type\": \"int\", \"value\": 5}, {\"a\": {\"type\": \"str\", \"value\": \"s\"}}, null],\n"
    " \"z.1.debug\": {\"k\": {\"v\": {\"type\": \"float\", \"value\": 2.5}}}\n"
    "}}\n";

static const char *const rows_debug[] = {
    "ENTRY x_tensor.0.debug 1",
    "x_tensor.0.debug|torch.float32|[2]|00000000|-1|debug|11|int:1|int:0|float:0.5|float:1.2",
    "ENTRY y_grad.0.debug 3",
    "y_grad.0.debug.0|<class 'int'>|[]|84b12bae|-1|debug|9|int:5|int:5|int:5|int:5",
    "y_grad.0.debug.1.a|<class 'str'>|[]|1b0ecf0b|-1|debug|9|str:s|str:s|str:s|str:s",
    "y_grad.0.debug.2|None|None|NULL|-1|debug|9|None|None|None|None",
    "ENTRY z.1.debug 1",
    "z.1.debug.k.v|<class 'float'>|[]|851a25e3|-1|debug|4|float:2.5|float:2.5|float:2.5|float:2.5",
    NULL,
};

/* dupentries */
static const char fx_dupentries[] =
    "{\"task\": \"statistics\", \"data\": {\n"
    " \"A.0.forward\": {\"output\": [{\"type\": \"int\", \"value\": 1}]},\n"
    " \"B.0.forward\": {\"output\": [{\"type\": \"int\", \"value\": 2}]},\n"
    " \"A.0.forward\": {\"input_args\": [{\"type\": \"int\", \"value\": 3}], \"output\": [{\"type\": \"int\", \"value\": 4}]},\n"
    " \"C.0.forward\": {\"output\": [{\"type\": \"int\", \"value\": 5}]}\n"
    "}}\n";

static const char *const rows_dupentries[] = {
    "ENTRY A.0.forward 2",
    "A.0.forward.input.0|<class 'int'>|[]|6dd28e9b|-1|input|12|int:3|int:3|int:3|int:3",
    "A.0.forward.output.0|<class 'int'>|[]|f3b61b38|-1|output|12|int:4|int:4|int:4|int:4",
    "ENTRY B.0.forward 1",
    "B.0.forward.output.0|<class 'int'>|[]|1ad5be0d|-1|output|12|int:2|int:2|int:2|int:2",
    "ENTRY C.0.forward 1",
    "C.0.forward.output.0|<class 'int'>|[]|84b12bae|-1|output|12|int:5|int:5|int:5|int:5",
    NULL,
};

/* states */
static const char fx_states[] =
    "{\"task\": \"statistics\", \"data\": {\"x.debug.forward.input.0\": {\"output\": []}, \"A.0.forward\": {\"output\": [{\"type\": \"int\", \"value\": 1, \"data_name\": \"B.backward.0.output.x.y.pt\"}]}}}\n";

static const char *const rows_states[] = {
    "ENTRY x.debug.forward.input.0 0",
    "ENTRY A.0.forward 1",
    "B.backward.0.output.x.y|<class 'int'>|[]|83dcefb7|B.backward.0.output.x.y.pt|output|13|int:1|int:1|int:1|int:1",
    NULL,
};

/* statkinds */
static const char fx_statkinds[] =
    "{\"task\": \"statistics\", \"data\": {\"A.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], \"Max\": \"1e5\", \"Min\": \"abc\", \"Mean\": [1, 2], \"Norm\": {\"a\": 1}}]}}}\n";

static const char *const rows_statkinds[] = {
    "ENTRY A.0.forward 1",
    "A.0.forward.input.0|torch.float32|[2]|00000000|-1|input|12|str:1e5|str:abc|other:[1, 2]|other:{'a': 1}",
    NULL,
};

/* dbgnull */
static const char fx_dbgnull[] =
    "{\"task\": \"statistics\", \"data\": {\"x.0.debug\": null}}\n";

static const char *const rows_dbgnull[] = {
    "ENTRY x.0.debug 1",
    "x.0.debug|None|None|NULL|-1|debug|4|None|None|None|None",
    NULL,
};

/* dbgmd5 */
static const char fx_dbgmd5[] =
    "{\"task\": \"statistics\", \"data\": {\"x.0.debug\": [[{\"k\": {\"type\": \"int\", \"value\": 1, \"md5\": \"ab\"}}]]}}\n";

static const char *const rows_dbgmd5[] = {
    "ENTRY x.0.debug 1",
    "x.0.debug.0.0.k|<class 'int'>|[]|ab|-1|debug|4|int:1|int:1|int:1|int:1",
    NULL,
};

/* depthcheck11 */
static const char fx_depthcheck11[] =
    "{\"task\": \"statistics\", \"data\": {\"A.0.forward\": {\"output\": [{\"type\": \"torch.Tensor\", \"dtype\": \"x\", \"shape\": [1], \"extra\": {\"k9\": {\"k8\": {\"k7\": {\"k6\": {\"k5\": {\"k4\": {\"k3\": {\"k2\": {\"k1\": {\"k0\": {\"s\": \"=x\"}}}}}}}}}}}}]}}}\n";

static const char *const rows_depthcheck11[] = {
    "ENTRY A.0.forward 1",
    "A.0.forward.output.0|x|[1]|00000000|-1|output|12|None|None|None|None",
    NULL,
};

/* depth10 */
static const char fx_depth10[] =
    "{\"task\": \"statistics\", \"data\": {\"A.0.forward\": {\"input_args\": [[[[[[[[[[{\"type\": \"int\", \"value\": 1}]]]]]]]]]]}}}\n";

static const char *const rows_depth10[] = {
    "ENTRY A.0.forward 1",
    "A.0.forward.input.0.0.0.0.0.0.0.0.0.0|<class 'int'>|[]|83dcefb7|-1|input|12|int:1|int:1|int:1|int:1",
    NULL,
};

static void test_basic_rows(void **state) { load_expect(fx_basic, "dump.json", rows_basic, DUMP_JSON); }
static void test_scalar_leaves(void **state) { load_expect(fx_scalars, "dump.json", rows_scalars, DUMP_JSON); }
static void test_nested_items(void **state) { load_expect(fx_nested, "dump.json", rows_nested, DUMP_JSON); }
static void test_data_name_rows(void **state) { load_expect(fx_dataname, "dump.json", rows_dataname, DUMP_JSON); }
static void test_debug_json(void **state)
{
    load_expect(fx_debug, "debug.json", rows_debug, DEBUG_JSON);
    load_expect(fx_dbgnull, "debug.json", rows_dbgnull, DEBUG_JSON);
    load_expect(fx_dbgmd5, "debug.json", rows_dbgmd5, DEBUG_JSON);
}
static void test_row_states_from_names(void **state) { load_expect(fx_states, "dump.json", rows_states, DUMP_JSON); }
static void test_statistic_kinds(void **state) { load_expect(fx_statkinds, "dump.json", rows_statkinds, DUMP_JSON); }

/* Python dict semantics: a repeated entry name keeps its first position and
 * takes its last value. */
static void test_duplicate_entries(void **state)
{
    load_expect(fx_dupentries, "dump.json", rows_dupentries, DUMP_JSON);

    /* many entries, the first one repeated at the end: rows are compacted
     * and every index stays right */
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "{\"task\": \"statistics\", \"data\": {");
    for (int i = 0; i < 3000; i++)
        sb_addf(&sb, "%s\"Torch.op%d.0.forward\": {\"input_args\": [{\"type\": \"int\", \"value\": %d}], "
                     "\"output\": [{\"type\": \"int\", \"value\": %d}]}",
                i ? ", " : "", i, i, -i);
    sb_adds(&sb, ", \"Torch.op0.0.forward\": {\"output\": [{\"type\": \"int\", \"value\": 77}, null, null]}}}");
    dump_data d;
    assert_int_equal(load(sb_str(&sb), &d), 0);
    assert_int_equal(d.nentries, 3000);
    assert_int_equal(d.nrows, 3 + 2 * 2999);
    assert_string_equal(d.entries[0].name, "Torch.op0.0.forward");
    assert_int_equal(d.entries[0].nrows, 3);
    assert_string_equal(d.rows[0].name, "Torch.op0.0.forward.output.0");
    assert_int_equal(dump_stat(&d.rows[0], 0).num, 77);
    assert_string_equal(d.rows[2].name, "Torch.op0.0.forward.output.2");
    for (size_t e = 1; e < 3000; e++) {
        char want[64];
        snprintf(want, sizeof want, "Torch.op%zu.0.forward", e);
        assert_string_equal(d.entries[e].name, want);
        assert_int_equal(d.entries[e].first_row, 3 + 2 * (e - 1));
        const dump_row *r = &d.rows[d.entries[e].first_row];
        assert_int_equal(r[0].entry, e);
        assert_int_equal(r[1].entry, e);
        assert_int_equal(dump_stat(&r[0], 0).num, (double)e);
        assert_true(dump_stat(&r[1], 0).num == -(double)e);
        assert_int_equal(r[1].state, ST_OUTPUT);
    }
    dump_free(&d);
    sb_free(&sb);
}

/* A second "data" key replaces the first, as json.loads does. */
static void test_repeated_data_key(void **state)
{
    dump_data d;
    assert_int_equal(load("{\"data\": {\"A.0.forward\": {\"output\": [{\"type\": \"int\", \"value\": 1, \"md5\": \"ff\"}]}},"
                          " \"task\": \"x\", \"data\": {\"B.0.forward\": {\"output\": [null]}}, \"task\": \"statistics\"}",
                          &d),
                     0);
    static const char *const want[] = {"ENTRY B.0.forward 1", "B.0.forward.output.0|None|None|NULL|-1|output|12|None|None|None|None",
                                       NULL};
    expect_rows(&d, want);
    assert_false(d.has_md5);
    assert_string_equal(d.task, "statistics");
    dump_free(&d);
}

/* Rows are re-ordered stably: inputs/kwargs/debug, parameters, outputs,
 * parameters_grad; the state comes from the row name (here from data_name). */
static void test_reorder(void **state)
{
    dump_data d;
    assert_int_equal(load("{\"task\": \"tensor\", \"data\": {\"M.a.B.forward.0\": {\"input_args\": ["
                          "{\"type\": \"int\", \"value\": 1, \"data_name\": \"M.a.B.forward.0.output.7.pt\"},"
                          "{\"type\": \"int\", \"value\": 2, \"data_name\": \"M.a.B.forward.0.parameters_grad.w.pt\"},"
                          "{\"type\": \"int\", \"value\": 3, \"data_name\": \"M.a.B.forward.0.parameters.p.pt\"},"
                          "{\"type\": \"int\", \"value\": 4},"
                          "{\"type\": \"int\", \"value\": 5, \"data_name\": \"M.a.B.forward.0.kwargs.k.pt\"},"
                          "{\"type\": \"int\", \"value\": 6, \"data_name\": \"v.0.debug.pt\"},"
                          "{\"type\": \"int\", \"value\": 7, \"data_name\": \"M.a.B.forward.0.output.8.pt\"}]}}}",
                          &d),
                     0);
    static const char *const names[] = {
        "M.a.B.forward.0.input.3",      "M.a.B.forward.0.kwargs.k", "v.0.debug", "M.a.B.forward.0.parameters.p",
        "M.a.B.forward.0.output.7",     "M.a.B.forward.0.output.8", "M.a.B.forward.0.parameters_grad.w",
    };
    static const int states[] = {ST_INPUT, ST_KWARGS, ST_DEBUG, ST_PARAMS, ST_OUTPUT, ST_OUTPUT, ST_PARAMS_GRAD};
    static const int values[] = {4, 5, 6, 3, 1, 7, 2};
    assert_int_equal(d.nrows, 7);
    for (int i = 0; i < 7; i++) {
        assert_string_equal(d.rows[i].name, names[i]);
        assert_int_equal(d.rows[i].state, states[i]);
        assert_int_equal(dump_stat(&d.rows[i], 0).num, values[i]);
    }
    dump_free(&d);
}

static void test_row_name_state(void **state)
{
    static const struct {
        const char *name;
        int state;
        const char *api; /* NULL: the name is refused */
    } cases[] = {
        {"Functional.pad.0.backward.output.0", ST_OUTPUT, "Functional.pad.0.backward."},
        {"Module.l.Linear.forward.0.input.0", ST_INPUT, "Module.l.Linear.forward.0."},
        {"Functional.conv2d.0.forward.input.0", ST_INPUT, "Functional.conv2d.0.forward."},
        {"Functional.x.0.forward.input.ceil_mode", ST_INPUT, "Functional.x.0.forward."},
        {"X.0.forward.kwargs.alpha", ST_KWARGS, "X.0.forward."},
        {"Module.m.L.forward.12.parameters.weight", ST_PARAMS, "Module.m.L.forward.12."},
        {"Module.m.L.backward.3.output.0.1", ST_OUTPUT, "Module.m.L.backward.3."},
        {"Module.l.Linear.parameters_grad.weight", ST_PARAMS_GRAD, "Module.l.Linear."},
        {"Module.l.Linear.parameters_grad", ST_PARAMS_GRAD, "Module.l.Linear."},
        {"x_tensor.0.debug.0", ST_DEBUG, "x_tensor.0."},
        {"x_grad.1.debug", ST_DEBUG, "x_grad.1."},
        /* split('debug')[0] cuts at the first substring occurrence */
        {"mydebug.0.debug", ST_DEBUG, "my"},
        {"a.parameters_gradx.forward.input.0", ST_INPUT, "a.parameters_gradx.forward."},
        {"debugger.0.forward.input.0", ST_INPUT, "debugger.0.forward."},
        {"A.forward.input.0", ST_INPUT, "A.forward."},
        /* the third part ends where a second direction word starts */
        {"A.0.forward.output.0.forward.x", ST_OUTPUT, "A.0.forward."},
        {"A.0.backward.input.x.backward.output.0", ST_INPUT, "A.0.backward."},
        {"A.0.forward.input.x.y.z", ST_INPUT, "A.0.forward."},
        {"Foo.bar.input.0", 0, NULL},
        {"A.forward.b.forward.0.input.0", 0, NULL},
        {"A.0.forward.output.forward.x", 0, NULL},
        {"A.0.forward.input", 0, NULL},
        {"A.0.forward.input.", 0, NULL},
        {"A.0.forward.inputs.0", 0, NULL},
        {"A.0.forward.12.x", 0, NULL},
        {"A.0.forward.12input.x", 0, NULL},
        {"A.0.forward.0.1.input.x", 0, NULL},
        {"A.0.forward..input.x", 0, NULL},
        {"forward.input.0", 0, NULL},
        {"A.0.forwardinput.0", 0, NULL},
        {"A.0.forward.input.a\nb", 0, NULL},
        {"", 0, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t api_len = 12345;
        int st = -7;
        int rc = row_name_state(cases[i].name, &api_len, &st);
        if (!cases[i].api) {
            if (rc != -1)
                fail_msg("%s accepted", cases[i].name);
            continue;
        }
        if (rc != 0)
            fail_msg("%s refused", cases[i].name);
        assert_int_equal(st, cases[i].state);
        assert_int_equal(api_len, strlen(cases[i].api));
        assert_memory_equal(cases[i].name, cases[i].api, api_len);
    }
}

/* Nesting: 10 levels below input_args flatten, 11 do not (whatever is
 * there: a leaf, None or a falsy value). */
static void test_depth_limit(void **state)
{
    load_expect(fx_depth10, "dump.json", rows_depth10, DUMP_JSON);
    static const char *const inner[] = {"{\"type\": \"int\", \"value\": 1}", "null", "0", "[]"};
    for (int k = 0; k < 4; k++) {
        strbuf sb = STRBUF_INIT;
        sb_adds(&sb, "{\"task\": \"statistics\", \"data\": {\"A.0.forward\": {\"input_args\": ");
        for (int i = 0; i < 11; i++)
            sb_addc(&sb, '[');
        sb_adds(&sb, inner[k]);
        for (int i = 0; i < 11; i++)
            sb_addc(&sb, ']');
        sb_adds(&sb, "}}}");
        dump_data d;
        assert_int_equal(load(sb_str(&sb), &d), -1);
        tu_assert_err(cur_path, ": parse of api/module of A.0.forward.input.0.0.0.0.0.0.0.0.0.0.0 exceeds the recursion limit.");
        dump_free(&d);
        sb_free(&sb);
    }
    /* dict nesting counts the same way */
    dump_data d;
    assert_int_equal(load("{\"task\": \"statistics\", \"data\": {\"A.0.forward\": {\"input_args\": [{\"a\": {\"b\": {\"c\": "
                          "{\"d\": {\"e\": {\"f\": {\"g\": {\"h\": {\"i\": {\"j\": {\"type\": \"int\", \"value\": 1}}}}}}}}}}}]}}}",
                          &d),
                     -1);
    tu_assert_err("parse of api/module of A.0.forward.input.0.a.b.c.d.e.f.g.h.i.j exceeds the recursion limit.");
    dump_free(&d);
    /* the string check stops quietly below 10 levels (msprobe only logs) */
    load_expect(fx_depthcheck11, "dump.json", rows_depthcheck11, DUMP_JSON);
    assert_int_equal(load("{\"task\": \"statistics\", \"data\": {\"A.0.forward\": {\"output\": [{\"type\": \"torch.Tensor\", "
                          "\"dtype\": \"x\", \"shape\": [1], \"extra\": {\"k8\": {\"k7\": {\"k6\": {\"k5\": {\"k4\": {\"k3\": "
                          "{\"k2\": {\"k1\": {\"k0\": {\"s\": \"=x\"}}}}}}}}}}}]}}}",
                          &d),
                     -1);
    tu_assert_err("data info of A.0.forward contains special characters, please check!");
    dump_free(&d);
}

static void test_md5_presence(void **state)
{
    static const struct {
        const char *data; /* the value of "data" */
        const char *base;
        int has_md5;
    } cases[] = {
        {"{\"A.0.forward\": {\"output\": [{\"type\": \"torch.Tensor\", \"dtype\": \"x\", \"shape\": [1], \"md5\": \"12345678\"}]}}",
         "dump.json", 1},
        {"{\"A.0.forward\": {\"output\": [{\"type\": \"torch.Tensor\", \"dtype\": \"x\", \"shape\": [1]}]}}", "dump.json", 0},
        /* a dict value is checked for the key directly */
        {"{\"A.0.forward\": {\"output\": {\"md5\": 1}}}", "dump.json", 1},
        /* a list holding the string "md5", a string containing it */
        {"{\"A.0.forward\": {\"output\": [\"md5\"]}}", "dump.json", 1},
        {"{\"A.0.forward\": {\"tag\": \"xmd5x\"}}", "dump.json", 1},
        /* only first-level list elements count; booleans are skipped */
        {"{\"A.0.forward\": {\"flag\": true, \"output\": [{\"x\": {\"md5\": \"1\"}}]}}", "dump.json", 0},
        {"{\"A.0.forward\": {\"output\": [[{\"type\": \"int\", \"md5\": \"1\"}]]}}", "dump.json", 0},
        /* a repeated name counts with its last value */
        {"{\"A.0.forward\": {\"output\": [{\"type\": \"int\", \"value\": 1, \"md5\": \"aa\"}]}, \"A.0.forward\": {\"output\": "
         "[{\"type\": \"int\", \"value\": 1}]}}",
         "dump.json", 0},
        {"{\"A.0.forward\": {\"output\": [{\"type\": \"int\", \"value\": 1}]}, \"B.0.forward\": {\"output\": [{\"type\": \"int\", "
         "\"md5\": \"aa\"}]}, \"A.0.forward\": {\"output\": []}}",
         "dump.json", 1},
        {"{\"A.0.forward\": {\"output\": [{\"type\": \"int\", \"value\": 1}]}, \"A.0.forward\": {\"output\": [{\"type\": "
         "\"int\", \"md5\": \"aa\"}]}}",
         "dump.json", 1},
        /* debug.json: a dict with the key at any depth, through lists too */
        {"{\"x.0.debug\": [[{\"k\": {\"type\": \"int\", \"value\": 1, \"md5\": \"ab\"}}]]}", "debug.json", 1},
        {"{\"x.0.debug\": {\"type\": \"int\", \"value\": 1}, \"y.0.debug\": null}", "debug.json", 0},
        {"{}", "dump.json", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        strbuf sb = STRBUF_INIT;
        sb_addf(&sb, "{\"task\": \"statistics\", \"data\": %s}", cases[i].data);
        dump_data d;
        if (load_as(sb_str(&sb), (size_t)-1, cases[i].base, &d) != 0)
            fail_msg("%s: %s", cases[i].data, err_message());
        if (d.has_md5 != cases[i].has_md5)
            fail_msg("has_md5 of %s should be %d", cases[i].data, cases[i].has_md5);
        dump_free(&d);
        sb_free(&sb);
    }
}

static void test_task_and_framework(void **state)
{
    static const struct {
        const char *json;
        const char *task, *framework;
        int task_present, fw;
    } cases[] = {
        {"{\"task\": \"statistics\", \"framework\": \"pytorch\", \"data\": {}}", "statistics", "pytorch", 1, 'p'},
        {"{\"framework\": \"mindspore\", \"data\": {}, \"task\": \"tensor\"}", "tensor", "mindspore", 1, 'm'},
        {"{\"task\": \"\", \"framework\": 5, \"data\": {}}", "", NULL, 0, 0},
        {"{\"task\": null, \"data\": {}}", NULL, NULL, 0, 0},
        {"{\"task\": 1, \"data\": {}}", NULL, NULL, 1, 0},
        {"{\"data\": {}}", NULL, NULL, 0, 0},
        /* the framework key wins over the leaf types */
        {"{\"framework\": \"pytorch\", \"data\": {\"A.0.forward\": {\"output\": [{\"type\": \"mindspore.Tensor\"}]}}}", NULL,
         "pytorch", 0, 'p'},
        /* without it (or with another value) the text is scanned line by
         * line: "type":\s*"mindspore or "type":\s*"torch */
        {"{\"data\": {\"A.0.forward\": {\"output\": [{\"type\": \"mindspore.Tensor\", \"dtype\": \"Float32\", \"shape\": []}]}}}",
         NULL, NULL, 0, 'm'},
        {"{\"framework\": \"mindtorch\", \"data\": {\"A.0.forward\": {\"output\": [\n{\"type\":  \"torch.Tensor\"},\n"
         "{\"type\": \"mindspore.Tensor\"}]}}}",
         NULL, "mindtorch", 0, 'p'},
        /* on one line mindspore is tested first, wherever it is */
        {"{\"framework\": \"mindtorch\", \"data\": {\"A.0.forward\": {\"output\": [{\"type\":\t\"torch.Tensor\"}, "
         "{\"type\": \"mindspore.Tensor\"}]}}}",
         NULL, "mindtorch", 0, 'm'},
        /* \s* does not cross a line end (Python reads universal newlines) */
        {"{\"data\": {\"A.0.forward\": {\"output\": [{\"type\":\n\"torch.Tensor\"}]}}}", NULL, NULL, 0, 0},
        {"{\"data\": {\"A.0.forward\": {\"output\": [{\"type\":\r\"torch.Tensor\"}]}}}", NULL, NULL, 0, 0},
        {"{\"data\": {\"A.0.forward\": {\"output\": [{\"type\":\r\n\"mindspore.Tensor\"}, {\"type\": \"torch.x\"}]}}}", NULL,
         NULL, 0, 'p'},
        {"{\"data\": {\"A.0.forward\": {\"output\": [{\"type\": \"int\", \"value\": \"torch\"}]}}}", NULL, NULL, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dump_data d;
        if (load(cases[i].json, &d) != 0)
            fail_msg("%s: %s", cases[i].json, err_message());
        if (cases[i].task)
            assert_string_equal(d.task, cases[i].task);
        else
            assert_null(d.task);
        if (cases[i].framework)
            assert_string_equal(d.framework, cases[i].framework);
        else
            assert_null(d.framework);
        assert_int_equal(d.task_present, cases[i].task_present);
        if (dump_framework(&d) != cases[i].fw)
            fail_msg("framework of %s: got %d, want %d", cases[i].json, dump_framework(&d), cases[i].fw);
        dump_free(&d);
    }
}

/* Numbers as compare sees them: the Python kind, and for ints and strings
 * the value pandas gets back from str(value) (pandas 1.5.3 results). */
static void test_statistic_values(void **state)
{
    dump_data d;
    assert_int_equal(load("{\"data\": {\"A.0.forward\": {\"output\": [{\"type\": \"torch.Tensor\", \"dtype\": \"x\", \"shape\": [],"
                          " \"Max\": -0.01070163212716579, \"Min\": 1165115433906158532, \"Mean\": NaN, \"Norm\": -0},"
                          "{\"type\": \"torch.Tensor\", \"dtype\": \"x\", \"shape\": [], \"Max\": 18446744073709551615,"
                          " \"Min\": 18446744073709551616, \"Mean\": -9223372036854775808, \"Norm\": -9223372036854775809},"
                          "{\"type\": \"torch.Tensor\", \"dtype\": \"x\", \"shape\": [], \"Max\": \" 1.5 \", \"Min\": \"inf\","
                          " \"Mean\": \"True\", \"Norm\": true}]}}}",
                          &d),
                     0);
    assert_int_equal(d.nrows, 3);
    pyval s[4];
    stats_of(&d.rows[0], s);
    assert_int_equal(s[0].kind, PV_FLOAT);
    assert_true(s[0].num == -0.01070163212716579);
    assert_true(s[0].pd_ok);
    /* a float carries its own value; compare derives pandas' from it */
    assert_true(s[0].pd_num == s[0].num);
    assert_true(pd_float_roundtrip(s[0].num) == -0x1.5eabcbfffffcap-7);
    assert_int_equal(s[1].kind, PV_INT);
    assert_false(s[1].wide_int);
    assert_true(s[1].num == 1165115433906158532.0);
    /* pandas: 1.1651154339061583e+18, not the exact 1.1651154339061586e+18 */
    assert_true(s[1].pd_ok);
    assert_true(s[1].pd_num == 1.1651154339061583e+18);
    assert_int_equal(s[2].kind, PV_FLOAT);
    assert_true(isnan(s[2].num) && s[2].pd_ok && isnan(s[2].pd_num));
    /* int -0 is 0 in Python */
    assert_int_equal(s[3].kind, PV_INT);
    assert_false(signbit(s[3].num));
    assert_false(signbit(s[3].pd_num));

    stats_of(&d.rows[1], s);
    assert_false(s[0].wide_int);
    assert_true(s[1].wide_int);
    assert_false(s[2].wide_int);
    assert_true(s[3].wide_int);
    assert_true(s[0].pd_ok && s[0].pd_num == 18446744073709551615.0);

    stats_of(&d.rows[2], s);
    assert_int_equal(s[0].kind, PV_STR);
    assert_true(s[0].pd_ok && s[0].pd_num == 1.5);
    assert_int_equal(s[0].len, 5);
    assert_memory_equal(s[0].text, " 1.5 ", 5);
    assert_true(s[1].pd_ok && isinf(s[1].pd_num));
    assert_false(s[2].pd_ok);
    assert_int_equal(s[3].kind, PV_BOOL);
    assert_true(s[3].num == 1);
    assert_false(s[3].pd_ok);
    dump_free(&d);
}

/* parameters_grad and debug entries are flattened whole, whatever the value
 * is; list items add no index under parameters_grad. */
static void test_whole_entry_values(void **state)
{
    dump_data d;
    assert_int_equal(load("{\"data\": {\"Module.a.B.parameters_grad\": [{\"type\": \"int\", \"value\": 1}, null]}}", &d), 0);
    static const char *const want[] = {
        "ENTRY Module.a.B.parameters_grad 2",
        "Module.a.B.parameters_grad|<class 'int'>|[]|83dcefb7|-1|parameters_grad|11|int:1|int:1|int:1|int:1",
        "Module.a.B.parameters_grad|None|None|NULL|-1|parameters_grad|11|None|None|None|None",
        NULL,
    };
    expect_rows(&d, want);
    dump_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic_rows),
        cmocka_unit_test(test_scalar_leaves),
        cmocka_unit_test(test_nested_items),
        cmocka_unit_test(test_data_name_rows),
        cmocka_unit_test(test_debug_json),
        cmocka_unit_test(test_row_states_from_names),
        cmocka_unit_test(test_statistic_kinds),
        cmocka_unit_test(test_whole_entry_values),
        cmocka_unit_test(test_duplicate_entries),
        cmocka_unit_test(test_repeated_data_key),
        cmocka_unit_test(test_reorder),
        cmocka_unit_test(test_row_name_state),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_md5_presence),
        cmocka_unit_test(test_task_and_framework),
        cmocka_unit_test(test_statistic_values),
    };
    int rc = cmocka_run_group_tests(tests, tu_dir_setup, tu_dir_teardown);
    free(cur_path);
    return rc;
}
