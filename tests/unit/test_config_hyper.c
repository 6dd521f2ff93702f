/* Unit tests of config_check's hyper-parameter readers and name matching
 * (config_check/hyper.h): msprobe's shell parser (spec/configcheck.md
 * §A.4.4) on launch scripts shaped like its unit-test fixtures and on each
 * quirk, the 8.1.0 yaml flattening (§A.4.5, the spec's golden example),
 * update_dict's duplicate records, the JSON text, and the fuzzy match of
 * parameter names (§A.6.3). */
#include "config_check/hyper.h"
#include "base/mem.h"
#include "format/jsonw.h"
#include "format/yaml_read.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* The dict as one JSON line, for comparing with expectations. */
static char *json_of(const char *script)
{
    arena a;
    arena_init(&a, 4096);
    hp_dict d;
    hp_init(&d, &a);
    shell_parse(script, strlen(script), &d);
    strbuf sb = STRBUF_INIT;
    jval obj;
    memset(&obj, 0, sizeof obj);
    obj.type = J_OBJECT;
    obj.u.members = d.m;
    obj.len = (uint32_t)d.n;
    jsonw_value(&sb, &obj, 0, 0);
    hp_free(&d);
    arena_free(&a);
    return sb_detach(&sb);
}

static void expect(const char *script, const char *want)
{
    char *got = json_of(script);
    /* indent 0 puts newlines between members: compare without them */
    char *o = got;
    for (char *p = got; *p; p++)
        if (*p != '\n')
            *o++ = *p;
    *o = 0;
    if (strcmp(got, want))
        fail_msg("script:\n%s\ngot  %s\nwant %s", script, got, want);
    free(got);
}

/* A Megatron launch script like msprobe's test fixture bench.sh. */
static const char launch[] =
    "PORT=6000\n"
    "CKPT_OUT=\"path to save\"\n"
    "TOKENIZER=\"path to tokenizer\"\n"
    "CKPT_IN=\"path to load\"\n"
    "TP=1\n"
    "\n"
    "DISTRIBUTED_ARGS=\"\n"
    "    --master_port $PORT\n"
    "\"\n"
    "\n"
    "GPT_ARGS=\"\n"
    "    --tensor-model-parallel-size ${TP} \\\n"
    "    --sequence-parallel \\\n"
    "    --tokenizer-model ${TOKENIZER} \\\n"
    "\"\n"
    "\n"
    "torchrun $DISTRIBUTED_ARGS pretrain_gpt.py \\\n"
    "    $GPT_ARGS \\\n"
    "    --distributed-backend nccl \\\n"
    "    --load $CKPT_IN \\\n"
    "    --save $CKPT_OUT \\\n"
    "    | tee logs/train.log";

static void shell_fixture(void **state)
{
    (void)state;
    expect(launch, "{\"master_port\": \"6000\",\"tensor-model-parallel-size\": \"1\",\"sequence-parallel\": true,"
                   "\"tokenizer-model\": \"\\\"path to tokenizer\\\"\",\"distributed-backend\": \"nccl\","
                   "\"load\": \"\\\"path to load\\\"\",\"save\": \"\\\"path to save\\\"\"}");
}

static void shell_quirks(void **state)
{
    (void)state;
    /* no launcher: nothing */
    expect("python train.py --lr 0.1\n", "{}");
    /* `#` cuts anywhere, even inside quotes; comment lines go */
    expect("# torchrun --x 1\ntorchrun --a 1 # --b 2\n", "{\"a\": \"1\"}");
    /* --a --b: b is a's value and not a key; --k=v loses v */
    expect("torchrun --a --b --lr=0.1 --c x\n", "{\"a\": \"--b\",\"lr\": true,\"c\": \"x\"}");
    /* the command ends at the first '|' */
    expect("torchrun --a 1 | grep --b 2\n", "{\"a\": \"1\"}");
    /* no word boundary: xtorchrun matches; msrun and python -m torch.distributed.launch too */
    expect("xtorchrun --a 1\n", "{\"a\": \"1\"}");
    expect("msrun --worker_num 8 train.py\n", "{\"worker_num\": \"8\"}");
    expect("python3 -m torch.distributed.launch --nproc 2 t.py\n", "{\"nproc\": \"2\"}");
    expect("python -m torchXdistributedYlaunch --nproc 2 t.py\n", "{\"nproc\": \"2\"}");
    /* $VAR: the last VAR= line, verbatim; unanchored (XTP= counts for TP) */
    expect("TP=1\nTP=2\ntorchrun --tp $TP\n", "{\"tp\": \"2\"}");
    expect("XTP=7\ntorchrun --tp ${TP}\n", "{\"tp\": \"7\"}");
    expect("torchrun --tp ${TP}\n", "{\"tp\": \"${TP}\"}");
    expect("A=$B/z\ntorchrun --p $A\n", "{\"p\": \"$B/z\"}");
    /* \s* after VAR= crosses lines */
    expect("V=\n  7\ntorchrun --v $V\n", "{\"v\": \"7\"}");
    /* *_ARGS blocks: newlines become spaces, $NAME also inside $NAME_X */
    expect("A_ARGS=\"--x 1\n--y 2\"\ntorchrun $A_ARGS\n", "{\"x\": \"1\",\"y\": \"2\"}");
    expect("A_ARGS=\"--x 1\"\ntorchrun $A_ARGS_X\n", "{\"x\": \"1_X\"}");
    /* a name longer than 20 characters before _ARGS: its last 20 */
    expect("ABCDEFGHIJKLMNOPQRSTUVWXYZ_ARGS=\"--q 1\"\ntorchrun $GHIJKLMNOPQRSTUVWXYZ_ARGS\n", "{\"q\": \"1\"}");
    /* a later duplicate keeps the first place */
    expect("torchrun --a 1 --b 2 --a 3\n", "{\"a\": \"3\",\"b\": \"2\"}");
    /* \r\n and \r end lines as in Python's text mode */
    expect("TP=4\r\ntorchrun --tp $TP\r\n", "{\"tp\": \"4\"}");
}

static jval yaml(arena *a, const char *text)
{
    jval v;
    assert_int_equal(yaml_parse("t.yaml", text, strlen(text), a, &v), 0);
    return v;
}

static char *dict_json(hp_dict *d)
{
    strbuf sb = STRBUF_INIT;
    hp_json(d, &sb);
    return sb_detach(&sb);
}

static void yaml_golden(void **state)
{
    (void)state;
    arena a;
    arena_init(&a, 4096);
    hp_dict d;
    hp_init(&d, &a);
    jval doc = yaml(&a, "model: {hidden-size: 4096, layers: [1, 2, 3], lr: 1.0e-4, name: llama, dropout: null, "
                        "flags: [{a: 1}, {b: 2}], when: 2024-01-01}\ntrain: {micro_batch_size: 2, enabled: yes}\n");
    yaml_flatten(&doc, &d);
    char *got = dict_json(&d);
    assert_string_equal(got, "{\n    \"model.hidden-size\": 4096,\n    \"model.layers\": 3,\n    \"model.name\": "
                             "\"llama\",\n    \"model.flags.a\": 1,\n    \"model.flags.b\": 2,\n    "
                             "\"train.micro_batch_size\": 2,\n    \"train.enabled\": true\n}");
    free(got);
    hp_free(&d);
    arena_free(&a);
}

static void update_dict(void **state)
{
    (void)state;
    arena a;
    arena_init(&a, 4096);
    hp_dict acc, sh, y;
    hp_init(&acc, &a);
    hp_init(&sh, &a);
    hp_init(&y, &a);
    shell_parse("torchrun --seed 1234 --lr 1e-4\n", 31, &sh);
    hp_update(&acc, &sh);
    jval doc = yaml(&a, "seed: 1234\nlr: 1e-4\nother: x\n");
    yaml_flatten(&doc, &y);
    hp_update(&acc, &y);
    /* "1234" (shell) != 1234 (yaml): a duplicate record; "1e-4" is a yaml
     * string too, so equal */
    char *got = dict_json(&acc);
    assert_string_equal(got, "{\n    \"seed\": {\n        \"description\": \"duplicate_value\",\n        \"values\": [\n"
                             "            \"1234\",\n            1234\n        ]\n    },\n    \"lr\": \"1e-4\",\n"
                             "    \"other\": \"x\"\n}");
    free(got);
    /* a third value wraps the record again, as 8.1.0 does */
    hp_dict third;
    hp_init(&third, &a);
    shell_parse("torchrun --seed 7\n", 18, &third);
    hp_update(&acc, &third);
    const jval *seed = hp_get(&acc, "seed", 4);
    const jval *vals = json_get(seed, "values");
    assert_non_null(vals);
    assert_int_equal(vals->len, 2);
    assert_int_equal(vals->u.items[0].type, J_OBJECT);
    hp_free(&third);
    hp_free(&acc);
    hp_free(&sh);
    hp_free(&y);
    arena_free(&a);
}

static long match(const char *name, const char *const *avail, size_t n, char *how)
{
    jmember *m = xcalloc(n + 1, sizeof *m);
    const jmember **pm = xcalloc(n + 1, sizeof *pm);
    for (size_t i = 0; i < n; i++) {
        m[i].key = avail[i];
        m[i].keylen = (uint32_t)strlen(avail[i]);
        pm[i] = &m[i];
    }
    avail_names names = {pm, n};
    strbuf sb = STRBUF_INIT;
    long k = hyper_match(&names, name, strlen(name), &sb);
    snprintf(how, 64, "%s", sb_str(&sb));
    sb_free(&sb);
    free(m);
    free(pm);
    return k;
}

static void fuzzy_match(void **state)
{
    (void)state;
    static const char *const avail[] = {"lr", "batch", "optimizer", "num_epochs"};
    char how[64];
    assert_int_equal(match("lr", avail, 4, how), 0);
    assert_string_equal(how, "pure name");
    assert_int_equal(match("learning_rate", avail, 4, how), 0);
    assert_string_equal(how, "mapping");
    /* bs is an alias of batch_size: the first alias present */
    assert_int_equal(match("bs", avail, 4, how), 1);
    assert_string_equal(how, "mapping");
    assert_int_equal(match("epochs", avail, 4, how), 3);
    assert_string_equal(how, "mapping");
    assert_int_equal(match("Optimize", avail, 4, how), 2);
    assert_string_equal(how, "similarity:0.9411764705882353");
    assert_int_equal(match("nonexistent", avail, 4, how), -1);
    /* strictly above 0.8 */
    static const char *const eight[] = {"abcd"};
    assert_int_equal(match("abce", eight, 1, how), -1); /* 0.75 */
    static const char *const close[] = {"micro-batch-size"};
    assert_int_equal(match("micro_batch_size", close, 1, how), 0);
    assert_string_equal(how, "similarity:0.875");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shell_fixture), cmocka_unit_test(shell_quirks), cmocka_unit_test(yaml_golden),
        cmocka_unit_test(update_dict),   cmocka_unit_test(fuzzy_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
