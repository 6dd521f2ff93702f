/* Python spellings: str()/repr() of JSON values, repr() of str with
 * Python's quote choice and escapes, float repr, int tokens, and msprobe's
 * formula-injection blacklist. Every expected string below was produced by
 * CPython 3.11 (json.loads, str, repr, re.search) and pasted in. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/arena.h"
#include "format/json.h"
#include "py/pystr.h"
#include "base/strbuf.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void assert_sb(strbuf *sb, const char *want, size_t n)
{
    if (sb->len != n || memcmp(sb->buf, want, n) != 0)
        fail_msg("got \"%.*s\", want \"%.*s\"", (int)sb->len, sb->buf ? sb->buf : "", (int)n, want);
}

/* Input bytes, their length, and Python's repr() of that str. */
static const struct {
    const char *s;
    size_t n;
    const char *repr;
} repr_cases[] = {
        {"a", 1, "'a'"},
        {"a'b", 3, "\"a'b\""},
        {"a\"b", 3, "'a\"b'"},
        {"a'b\"c", 5, "'a\\'b\"c'"},
        {"", 0, "''"},
        {"'", 1, "\"'\""},
        {"\"", 1, "'\"'"},
        {"'\"", 2, "'\\'\"'"},
        {"\\", 1, "'\\\\'"},
        {"x\ny\tz\x0d", 6, "'x\\ny\\tz\\r'"},
        {"\x07\x00\x1b\x1f\x7f\x08\x0c", 7, "'\\x07\\x00\\x1b\\x1f\\x7f\\x08\\x0c'"},
        {"\xe4\xb8\xad\xe6\x96\x87", 6, "'\xe4\xb8\xad\xe6\x96\x87'"},
        {"\xc3\xa9", 2, "'\xc3\xa9'"},
        {"\xc2\xa0", 2, "'\\xa0'"},
        {"\xc2\xad", 2, "'\\xad'"},
        {"\xe2\x80\xa8", 3, "'\\u2028'"},
        {"\xe2\x80\x8b", 3, "'\\u200b'"},
        {"\xef\xbb\xbf", 3, "'\\ufeff'"},
        {"\xe3\x80\x80", 3, "'\\u3000'"},
        {"\xf0\x9f\x98\x80", 4, "'\xf0\x9f\x98\x80'"},
        {"\xee\x80\x80", 3, "'\\ue000'"},
        {"\xf4\x8f\xbf\xbf", 4, "'\\U0010ffff'"},
        {"\xc2\x85", 2, "'\\x85'"},
        {"\xe0\xa2\x90", 3, "'\\u0890'"},
        {"\xf0\x93\x90\xb0", 4, "'\\U00013430'"},
        {"\xf0\x9b\xb2\xa0", 4, "'\\U0001bca0'"},
        {"\xf3\xa0\x84\x80", 4, "'\xf3\xa0\x84\x80'"},
        {"\xf3\xa0\x80\x81", 4, "'\\U000e0001'"},
        {"\xed\xa0\x80", 3, "'\\ud800'"},
        {"\xef\xa4\x80", 3, "'\xef\xa4\x80'"},
        {"File a.py, line 5, in f, \n x = g()", 34, "'File a.py, line 5, in f, \\n x = g()'"},
        {"it's \"q\" \\ \xe4\xb8\xad \n", 16, "'it\\'s \"q\" \\\\ \xe4\xb8\xad \\n'"},
        {"\xd8\x80\xc3\xa9\xf0\x91\x83\x8d", 8, "'\\u0600\xc3\xa9\\U000110cd'"},
};

static void test_repr_str(void **state)
{
    for (size_t i = 0; i < sizeof repr_cases / sizeof repr_cases[0]; i++) {
        strbuf sb = STRBUF_INIT;
        /* exact-size copy: a read past the end is an ASan error */
        char *in = malloc(repr_cases[i].n + 1);
        memcpy(in, repr_cases[i].s, repr_cases[i].n);
        py_repr_str(&sb, in, repr_cases[i].n);
        assert_sb(&sb, repr_cases[i].repr, strlen(repr_cases[i].repr));
        /* appends, never resets */
        py_repr_str(&sb, "x", 1);
        assert_int_equal(sb.len, strlen(repr_cases[i].repr) + 3);
        sb_free(&sb);
        free(in);
    }
}

/* Bytes that are not UTF-8 cannot come from Python; they are kept as they
 * are, and a sequence cut by the end of the text is not read past. */
static void test_repr_invalid_utf8(void **state)
{
    static const struct {
        const char *s;
        size_t n;
        const char *repr;
    } cases[] = {
        {"\xff", 1, "'\xff'"},
        {"a\x80" "b", 3, "'a\x80" "b'"},
        {"\xe4\xb8", 2, "'\xe4\xb8'"},
        {"\xf0\x9f\x98", 3, "'\xf0\x9f\x98'"},
        {"\xc3" "A", 2, "'\xc3" "A'"},
        {"\xe4\xb8\xad\xe4", 4, "'\xe4\xb8\xad\xe4'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *in = malloc(cases[i].n);
        memcpy(in, cases[i].s, cases[i].n);
        strbuf sb = STRBUF_INIT;
        py_repr_str(&sb, in, cases[i].n);
        assert_sb(&sb, cases[i].repr, strlen(cases[i].repr));
        sb_free(&sb);
        free(in);
    }
}

/* JSON text, str() and repr() of what json.loads gives for it. */
static const struct {
    const char *json;
    const char *str;
    const char *repr;
} json_cases[] = {
        {"null", "None", "None"},
        {"true", "True", "True"},
        {"false", "False", "False"},
        {"3", "3", "3"},
        {"-0", "0", "0"},
        {"0", "0", "0"},
        {"-12", "-12", "-12"},
        {"123456789012345678901234567890", "123456789012345678901234567890", "123456789012345678901234567890"},
        {"3.0", "3.0", "3.0"},
        {"1e5", "100000.0", "100000.0"},
        {"1E-5", "1e-05", "1e-05"},
        {"1e-05", "1e-05", "1e-05"},
        {"1e16", "1e+16", "1e+16"},
        {"1e+16", "1e+16", "1e+16"},
        {"100.0", "100.0", "100.0"},
        {"-0.0", "-0.0", "-0.0"},
        {"0.1", "0.1", "0.1"},
        {"2.5", "2.5", "2.5"},
        {"NaN", "nan", "nan"},
        {"Infinity", "inf", "inf"},
        {"-Infinity", "-inf", "-inf"},
        {"1e400", "inf", "inf"},
        {"\"abc\"", "abc", "'abc'"},
        {"\"a'b\"", "a'b", "\"a'b\""},
        {"\"\\u00a0x\"", "\xc2\xa0x", "'\\xa0x'"},
        {"\"\"", "", "''"},
        {"[1, \"a\", null, true, 2.5]", "[1, 'a', None, True, 2.5]", "[1, 'a', None, True, 2.5]"},
        {"[]", "[]", "[]"},
        {"{}", "{}", "{}"},
        {"{\"k\": [1, 2]}", "{'k': [1, 2]}", "{'k': [1, 2]}"},
        {"{\"a\": 1, \"b\": 2, \"a\": 3}", "{'a': 3, 'b': 2}", "{'a': 3, 'b': 2}"},
        {"[[1], {\"a\": null}, [[]], {\"\": \"\"}]", "[[1], {'a': None}, [[]], {'': ''}]", "[[1], {'a': None}, [[]], {'': ''}]"},
        {"{\"it's\": \"x\\ny\", \"q\\\"\": -0}", "{\"it's\": 'x\\ny', 'q\"': 0}", "{\"it's\": 'x\\ny', 'q\"': 0}"},
        {"[NaN, Infinity, -Infinity, -0.0, -0, 1e22]", "[nan, inf, -inf, -0.0, 0, 1e+22]", "[nan, inf, -inf, -0.0, 0, 1e+22]"},
        {"{\"k\": {\"k\": {\"k\": false}}}", "{'k': {'k': {'k': False}}}", "{'k': {'k': {'k': False}}}"},
        {"[\"\\u00e9\", \"\\ud83d\\ude00\"]", "['\xc3\xa9', '\xf0\x9f\x98\x80']", "['\xc3\xa9', '\xf0\x9f\x98\x80']"},
        {"[1.0, 10.0, 1e15, 1e-4, 0.00001, 12345678901234567890.0]", "[1.0, 10.0, 1000000000000000.0, 0.0001, 1e-05, 1.2345678901234567e+19]", "[1.0, 10.0, 1000000000000000.0, 0.0001, 1e-05, 1.2345678901234567e+19]"},
        {"{\"a\": 1, \"a\": 2, \"a\": 3}", "{'a': 3}", "{'a': 3}"},
        {"{\"x\": 1, \"y\": 2, \"x\": 3, \"z\": 4, \"y\": 5}", "{'x': 3, 'y': 5, 'z': 4}", "{'x': 3, 'y': 5, 'z': 4}"},
};

static void test_str_repr_json(void **state)
{
    for (size_t i = 0; i < sizeof json_cases / sizeof json_cases[0]; i++) {
        arena a;
        arena_init(&a, 1024);
        jval v;
        size_t n = strlen(json_cases[i].json);
        err_clear();
        if (json_parse("case.json", json_cases[i].json, n, &a, &v) != 0)
            fail_msg("%s: %s", json_cases[i].json, err_message());
        strbuf sb = STRBUF_INIT;
        py_str_json(&sb, &v);
        assert_sb(&sb, json_cases[i].str, strlen(json_cases[i].str));
        sb_reset(&sb);
        py_repr_json(&sb, &v);
        assert_sb(&sb, json_cases[i].repr, strlen(json_cases[i].repr));
        sb_free(&sb);
        arena_free(&a);
    }
}

/* A double (as a hex literal, bit-exact) and Python's repr() of it. */
static const struct {
    double x;
    const char *repr;
} float_cases[] = {
        {0x1.4f8b588e368f1p-17, "1e-05"},
        {0x1.1c37937e08000p+53, "1e+16"},
        {0x1.9000000000000p+6, "100.0"},
        {0x1.999999999999ap-4, "0.1"},
        {-0x0p+0, "-0.0"},
        {0x0.0p+0, "0.0"},
        {0x1.c12218377de66p+46, "123456789012345.6"},
        {0x1.18b54f22aeb03p+50, "1234567890123456.8"},
        {0x1.a36e2eb1c432dp-14, "0.0001"},
        {0x0.0000000000001p-1022, "5e-324"},
        {0x1.fffffffffffffp+1023, "1.7976931348623157e+308"},
        {0x1.4000000000000p+1, "2.5"},
        {0x1.5555555555555p-2, "0.3333333333333333"},
        {0x1.0f0cf064dd592p+73, "1e+22"},
        {0x1.0000000000000p+53, "9007199254740992.0"},
        {-0x1.421f5f40d8376p-23, "-1.5e-07"},
        {0x1.c6bf526340000p+49, "1000000000000000.0"},
        {0x1.c6bf52633ffffp+49, "999999999999999.9"},
        {0x1.1c37937e07fffp+53, "9999999999999998.0"},
        {0x1.a36e2eb1c432cp-14, "9.999999999999999e-05"},
        {0x1.0000000000000p-1022, "2.2250738585072014e-308"},
        {0x1.8000000000000p+0, "1.5"},
        {-0x1.0000000000000p+1, "-2.0"},
        {0x1.921f9f01b866ep+1, "3.14159"},
        {0x1.a36e2eb1c432dp-14, "0.0001"},
        {0x1.4f8b588e368f1p-17, "1e-05"},
        {-0x1.74de452e6b438p+811, "-1.989032661366619e+244"},
        {0x1.3270e269e0d37p+594, "7.761117632285041e+178"},
        {0x1.c7fd0a6a3a450p-826, "3.980498358697587e-249"},
        {-0x1.f0824128b2f33p+292, "-1.5432835417340557e+88"},
        {0x1.8e811892f902bp-638, "1.3647584518757569e-192"},
        {-0x1.1985d5d9dc9f8p-684, "-1.3701135617873088e-206"},
        {-0x1.25d940ed90475p+655, "-1.7160537630466207e+197"},
        {0x1.675cc81e74ef5p-144, "6.294675241195386e-44"},
        {0x1.0a35a099950d8p-671, "1.0613447212142254e-202"},
        {0x1.d549b6f03675ap+689, "4.708325160387546e+207"},
        {0x1.c172411e20b8fp-38, "6.387016158513563e-12"},
        {-0x1.16ece1738f7d9p-814, "-9.973130378568733e-246"},
        {0x1.1ddb66cad4a26p-781, "8.779753225680271e-236"},
        {-0x1.192cfd3ac94afp-755, "-5.795503248498993e-228"},
        {-0x1.c105d1fb17c23p+809, "-5.988180159386011e+243"},
        {-0x1.0b33839263059p-488, "-1.306052388527796e-147"},
        {-0x1.f48f1a09f76b5p-684, "-2.436117699484841e-206"},
        {0x1.630f1f29d0da9p-770, "2.233386999150174e-232"},
        {-0x1.60af593bd04cfp-673, "-3.51527970626667e-203"},
        {0x1.1e29c658cda14p-820, "1.5987381841032883e-247"},
        {0x1.8d190f9ebdaccp-118, "4.6678633181812096e-36"},
        {-0x1.1973e0becd7b0p-791, "-8.441872792105456e-239"},
        {0x1.7beaddbc496cbp-478, "1.9015657400796622e-144"},
        {0x1.cb2424a23d596p+693, "7.370437700706684e+208"},
        {-0x1.a63ec24ede6a4p-857, "-1.7163996725272777e-258"},
        {-0x1.766581e27a1c0p-733, "-3.2367190832119987e-221"},
        {-0x1.d05584ef8aa38p-777, "-2.2818334634712625e-234"},
        {-0x1.7ba94d0eda82fp-278, "-3.0536383926309363e-84"},
        {0x1.1dbe22e44158bp-601, "1.3449551894627777e-181"},
        {-0x1.a736994e3bf91p-732, "-7.317495976062606e-221"},
        {0x1.850c5a38fd547p-254, "5.249822308814304e-77"},
        {0x1.135d25f557203p-624, "1.5450754142984396e-188"},
        {-0x1.ce4228c38fb29p-155, "-3.953625698224792e-47"},
        {-0x1.a70c31012f037p-760, "-2.72491267476498e-229"},
        {-0x1.769b10f4205b4p-536, "-6.505141861548772e-162"},
        {0x1.5052434b9b5dfp+1010, "1.441484839555994e+304"},
        {-0x1.ed162ae2eb154p-894, "-1.4583679262758548e-269"},
        {-0x1.877186d76b07ep+112, "-7.939416668807721e+33"},
        {0x1.1af10506bf2efp+884, "1.4255183989699612e+266"},
        {-0x1.6a78795e761d1p+711, "-1.525315701232403e+214"},
        {0x1.0a9587403e430p+458, "7.750545741548908e+137"},
        {0x1.8e2774cbd87adp-6, "0.024301399287089676"},
        {0x1.5319acb5c7427p-287, "5.326960081783017e-87"},
        {-0x1.2ea20b2f14c94p+123, "-1.2570882301712172e+37"},
        {0x1.4733f3e7d1bfbp-688, "9.952684009002448e-208"},
        {0x1.d2055930d6eafp+206, "1.8721667527122837e+62"},
        {0x1.ff20686734721p+1004, "3.422978398947072e+302"},
        {0x1.e05cde00902c7p+383, "3.6967297937384553e+115"},
        {0x1.6cc3ababced20p+815, "3.113284956169447e+245"},
        {-0x1.4bcfc49b64a08p-577, "-2.6202582260546103e-174"},
        {0x1.d4acefaecbd38p-724, "2.0745096302730225e-218"},
        {-0x1.e07bc1e398f10p-975, "-5.877500503097409e-294"},
        {0x1.af4d46b0a18e8p-348, "2.938345597354166e-105"},
        {0x1.0f82ec1d3fcffp+378, "6.529598674765832e+113"},
        {-0x1.acbe226e87555p+751, "-1.9837344250050814e+226"},
        {0x1.46c697d2caf82p+704, "1.0743030475716402e+212"},
        {-0x1.6e1f40a097c97p+869, "-5.629271400715247e+261"},
        {0x1.eef86ab1031d0p-706, "5.743310614918485e-213"},
        {-0x1.e0d7ac3baea9ep-786, "-4.61515470702556e-237"},
        {-0x1.2135e92b1d3f2p+161, "-3.302201168194502e+48"},
        {-0x1.f9acae01f5057p+280, "-3.8373366379117136e+84"},
        {0x1.242425051c1ccp+370, "2.7444240984593666e+111"},
        {0x1.54a7bb1fee08fp+411, "7.037254769664525e+123"},
        {0x1.6144b98289fcdp+1011, "3.0282415270685036e+304"},
        {-0x1.11cdd9474031bp+193, "-1.3427313830183207e+58"},
        {0x1.a72d174c9df6ap-742, "7.145365052251808e-224"},
        {0x1.5e837d70820fep-640, "3.0010119427191346e-193"},
        {0x1.abd81f1d69ed6p+82, "8.08174890787967e+24"},
        {-0x1.15945795e8229p-216, "-1.029599445714058e-65"},
        {0x1.3d6b2aa05e11ap-757, "1.6356324386913733e-228"},
        {-0x1.d420f0f88080bp-77, "-1.210084267904234e-23"},
        {0x1.26dcbb394fb36p+245, "6.512205859834416e+73"},
        {-0x1.448b3a5aa3c81p-704, "-1.5063173670565552e-212"},
        {-0x1.58f33fe3b890bp-281, "-3.468068334360956e-85"},
        {0x1.58370d269a9a5p+802, "3.5862982565236525e+241"},
        {-0x1.4eb5248db40afp-136, "-1.500880737539812e-41"},
        {-0x1.5128862c33a4fp+562, "-1.9881605394901064e+169"},
        {0x1.5563dab2cd31ep+398, "8.608929980762736e+119"},
        {-0x1.e583505c6af07p+781, "-2.412056419517317e+235"},
        {0x1.fb2297631a992p+432, "2.1970596639628e+130"},
        {-0x1.539382b0537e6p-569, "-6.864829614150003e-172"},
        {0x1.2aa0a1df9fd78p+999, "6.249646571111859e+300"},
        {0x1.c76fb0f17a300p-130, "1.3070380624806793e-39"},
        {0x1.52399c4aaeac1p+154, "3.0170681842882087e+46"},
        {-0x1.561e6211c70cfp-47, "-9.495701001087435e-15"},
        {0x1.c9f503f63af83p+606, "4.750750204750985e+182"},
        {-0x1.477d26415479cp+684, "-1.0267710304426359e+206"},
        {0x1.b103cdf1582b0p+1010, "1.8559166032057722e+304"},
        {0x1.6fb1a14a0f9e7p-342, "1.6032007377980954e-103"},
        {0x1.2287672fdf202p+622, "1.9751801151887592e+187"},
        {0x1.0771f8ca81811p+115, "4.274642804177215e+34"},
        {0x1.d977ee2257159p-463, "7.765387138513795e-140"},
        {0x1.6aab0d1bc52d9p+740, "8.193439767873551e+222"},
        {-0x1.b305fdd2e1609p-818, "-9.721565446084252e-247"},
        {-0x1.66a3a47469a4dp-178, "-3.6566096214330605e-54"},
        {-0x1.91b4a6a50df4dp+969, "-7.829495745681799e+291"},
        {-0x1.6f0245bd86d40p-275, "-2.361499160522349e-83"},
        {0x1.499c9e25a7605p+535, "1.448139668433268e+161"},
        {0x1.287fff52ddf5dp-78, "3.8321725482165366e-24"},
        {0x1.e7c2a26a2c0bdp-684, "2.373829056313949e-206"},
        {0x1.b7dbd2d1c9af0p-404, "4.1586747791282524e-122"},
        {-0x1.48c893b618676p-374, "-3.337733639824717e-113"},
        {0x1.6909e3bbbe9eap-974, "8.832790543982714e-294"},
        {-0x1.28c2e7c26847fp+333, "-2.0284108606212458e+100"},
        {0x1.e05cf96d0cc5fp-277, "7.7271785554382585e-84"},
        {0x1.c9cbc43435cc5p+131, "4.868121678598285e+39"},
        {0x1.b0c4e010c4759p-427, "4.877621251706118e-129"},
        {-0x1.af4016b4013efp-882, "-5.224362650831876e-266"},
        {-0x1.caaf75e8766edp-574, "-2.8977267740353203e-173"},
        {0x1.088f590fbbd11p+282, "8.030506098092244e+84"},
        {0x1.03626f3fe39c0p-509, "6.045556425707975e-154"},
        {-0x1.4a8b2b0c4312dp+448, "-9.38484012349791e+134"},
        {-0x1.1e07a83f73f16p+821, "-1.5624204901097633e+247"},
        {-0x1.be1c29e1a8ef4p-389, "-1.3820816268679183e-117"},
        {-0x1.28881ad1b72dbp-41, "-5.267460409693142e-13"},
        {0x1.69a5d0dd27a65p+847, "1.3257208647146701e+255"},
        {-0x1.88334e647cb8fp+496, "-3.1343387564175544e+149"},
        {-0x1.ed0b6c7ac1491p+827, "-1.7236642596087033e+249"},
        {-0x1.a2b7fdfe01893p-284, "-5.26215508230537e-86"},
        {-0x1.c6ec8cc4169a3p-781, "-1.3972441246414233e-235"},
        {-0x1.06bf2ee5bbcfap+21, "-2152421.8621746274"},
        {-0x1.f8e00701f88aep+30, "-2117599680.4927173"},
        {0x1.c299dbcac6187p-16, "2.68579131371418e-05"},
        {-0x1.8c05111539713p+2, "-6.187809248663842"},
        {-0x1.374944b45a5d9p-10, "-0.0011874626335049902"},
        {-0x1.0c586eeb491abp-15, "-3.1989269553531326e-05"},
        {-0x1.cee41d39ede3cp+42, "-7952408045495.559"},
        {-0x1.c918123770bdcp-8, "-0.006974701354411441"},
        {0x1.46a73905817aep+46, "89789751713886.72"},
        {-0x1.0139fae7bb1e1p+73, "-9.489982266677087e+21"},
        {-0x1.6480c960b0ee2p+22, "-5840946.344424935"},
        {-0x1.5f731364b2e4cp+9, "-702.8990293382171"},
        {0x1.4b6587d162992p+46, "91093604784294.28"},
        {-0x1.64165f64a14b0p-9, "-0.002716731209434352"},
        {-0x1.ca88ca8dd2da6p+32, "-7692929677.823645"},
        {0x1.d642681b46821p+29, "986205443.4094278"},
        {-0x1.8819107a69d20p+8, "-392.0979076870299"},
        {-0x1.0f65065a98098p-7, "-0.008282306768876688"},
        {0x1.bb828dccd33abp+58, "4.9934784088486163e+17"},
        {-0x1.9814ed1394077p+68, "-4.704862165656398e+20"},
        {0x1.1e2fd7d521facp+35, "38411353769.06186"},
        {-0x1.635245beef34cp+36, "-95380855790.95038"},
        {-0x1.88ec532978aa2p+54, "-2.7649508198197896e+16"},
        {0x1.cf8f75ec9d64dp-21, "8.634485176422868e-07"},
        {0x1.42adbf3ec460ap+12, "5162.859190718746"},
        {0x1.0365631a72597p+73, "9.570024854379456e+21"},
        {-0x1.bb6d6007f9dd5p+72, "-8.179788932770971e+21"},
        {-0x1.d29266c130326p+18, "-477769.60554127616"},
        {0x1.8eb0a2cb60105p+19, "816517.0873260802"},
        {0x1.fa861975903ffp+38, "543875816804.06244"},
        {0x1.ef84caac0a02bp+32, "8313424556.0391035"},
        {-0x1.108937d0b62c8p+5, "-34.067000990447525"},
        {0x1.3a457dbf7dfa4p+64, "2.2645644562708185e+19"},
        {0x1.06e10221a40f8p+73, "9.698521011817816e+21"},
        {-0x1.e7c42f9ec8c6dp+5, "-60.970793953420845"},
        {0x1.1abc8805cda8cp+59, "6.366658866507464e+17"},
        {0x1.8441e284473fep+2, "6.066521290948911"},
        {0x1.139ae5a016ea4p+15, "35277.44848701105"},
        {0x1.360c5e102ac1dp-18, "4.620079849508425e-06"},
        {0x1.59d7ceeca374ap+32, "5802282732.638498"},
        {-0x1.563bdb3417d26p+55, "-4.816512734644869e+16"},
        {0x1.9ab3081c54627p+17, "210278.0633645516"},
        {-0x1.76f84b815fb11p+56, "-1.055446444665531e+17"},
        {0x1.dc9983b9987d4p+19, "976076.1164057204"},
        {-0x1.12e6065456f85p-7, "-0.008389237490227472"},
        {-0x1.5da328d4c9864p+2, "-5.463083465385441"},
        {-0x1.82dd2ec67572dp+31, "-3245250403.2293916"},
        {0x1.50485b5ce3335p+74, "2.4813279487563636e+22"},
        {0x1.27fb92049f4b6p-19, "2.2052429378681654e-06"},
        {-0x1.2ab3722d9ddc4p+45, "-41053147476923.53"},
        {-0x1.1bbff263e24fep+48, "-311986196046415.9"},
        {-0x1.d80d5d85d500ep+52, "-8304430270992398.0"},
        {-0x1.cffc1d8879d4bp+22, "-7601927.383277248"},
        {0x1.396b4e30cacb4p+62, "5.6460576819618e+18"},
        {-0x1.977f89b51798ep+75, "-6.013611930901894e+22"},
        {-0x1.be2407640530ap+65, "-6.429565633248528e+19"},
        {0x1.1ce1bcc1a9d3dp-12, "0.00027168444294508096"},
        {0x1.0b2f5c4b09c2ep+59, "6.016471377933821e+17"},
        {-0x1.fc99e193e92adp+20, "-2083230.0986110375"},
        {0x1.fe58fde5c3e10p-12, "0.0004867054216086417"},
};

static void test_repr_float(void **state)
{
    for (size_t i = 0; i < sizeof float_cases / sizeof float_cases[0]; i++) {
        strbuf sb = STRBUF_INIT;
        py_repr_float(&sb, float_cases[i].x);
        assert_sb(&sb, float_cases[i].repr, strlen(float_cases[i].repr));
        sb_free(&sb);
    }
    static const struct {
        double x;
        const char *repr;
    } special[] = {{INFINITY, "inf"}, {-INFINITY, "-inf"}, {NAN, "nan"}, {-NAN, "nan"}};
    for (size_t i = 0; i < 4; i++) {
        strbuf sb = STRBUF_INIT;
        py_repr_float(&sb, special[i].x);
        assert_sb(&sb, special[i].repr, strlen(special[i].repr));
        sb_free(&sb);
    }
}

static void test_str_int_token(void **state)
{
    static const struct {
        const char *tok, *str;
    } cases[] = {
        {"-0", "0"}, {"0", "0"}, {"7", "7"}, {"-12", "-12"}, {"-05", "-05"},
        {"123456789012345678901234567890", "123456789012345678901234567890"},
        {"-99999999999999999999999", "-99999999999999999999999"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        strbuf sb = STRBUF_INIT;
        sb_adds(&sb, "<");
        py_str_int_token(&sb, cases[i].tok, strlen(cases[i].tok));
        assert_int_equal(sb.len, strlen(cases[i].str) + 1);
        assert_memory_equal(sb.buf + 1, cases[i].str, sb.len - 1);
        sb_free(&sb);
    }
    /* only the text given counts: "-0" is a prefix of "-05" here */
    strbuf sb = STRBUF_INIT;
    py_str_int_token(&sb, "-05", 2);
    assert_sb(&sb, "0", 1);
    sb_free(&sb);
}

/* Text and whether re.search(r'^[＋－＝％＠+\-=%@]|;[＋－＝％＠+\-=%@]', text)
 * matches. */
static const struct {
    const char *s;
    int hit;
} blacklist_cases[] = {
        {"+a", 1},
        {"-1", 1},
        {"=x", 1},
        {"%x", 1},
        {"@x", 1},
        {"a;+b", 1},
        {"a;b", 0},
        {"a;", 0},
        {";", 0},
        {";;", 0},
        {";;-", 1},
        {"\xef\xbc\x8bx", 1},
        {"a;\xef\xbc\xa0", 1},
        {"a+b", 0},
        {"", 0},
        {" +a", 0},
        {"a\n+b", 0},
        {"Functional.conv2d.0.forward", 0},
        {"\xef\xbc\x8d", 1},
        {"\xef\xbc\x85", 1},
        {"\xef\xbc\x9d", 1},
        {"\xef\xbc\x8ax", 0},
        {"\xef\xbc\x9b+", 0},
        {"a;\xef\xbc\x8b", 1},
        {"a;\xef\xbc\x8d" "b", 1},
        {"x;y;z;=", 1},
        {"a\n;=b", 1},
        {"-1.5", 1},
        {"a;;", 0},
        {"\xef\xbc\xa0", 1},
        {"\xef\xbc\x8b", 1},
        {"a\xef\xbc\x9b+", 0},
        {"a; +", 0},
        {"a;\n+", 0},
        {"\xe4\xb8\xad;@", 1},
        {"File x.py, line 3, in f, \n y = -1", 0},
        {"a;=;", 1},
};

static void test_blacklist(void **state)
{
    for (size_t i = 0; i < sizeof blacklist_cases / sizeof blacklist_cases[0]; i++) {
        size_t n = strlen(blacklist_cases[i].s);
        char *in = malloc(n ? n : 1);
        memcpy(in, blacklist_cases[i].s, n);
        if (py_blacklisted(in, n) != blacklist_cases[i].hit)
            fail_msg("py_blacklisted(\"%s\") should be %d", blacklist_cases[i].s, blacklist_cases[i].hit);
        free(in);
    }
    /* the length is what counts, not a terminator */
    assert_false(py_blacklisted("a;+b", 2));
    assert_true(py_blacklisted("a;+b", 3));
    assert_false(py_blacklisted("+", 0));
    assert_true(py_blacklisted("a\0;=", 4));
    /* a full-width sign cut short by the length is not one */
    assert_false(py_blacklisted("\xef\xbc\x8b", 2));
    assert_false(py_blacklisted("a;\xef\xbc", 4));
}

/* The decimal syntax shared by the pandas and openpyxl number readers. */
static void test_decimal_len(void **state)
{
    static const struct {
        const char *text;
        size_t len;
        int is_int;
    } cases[] = {
        {"1", 1, 1},        {"007", 3, 1},      {"1.", 2, 0},      {".5", 2, 0},       {"2.5E-3", 6, 0},
        {"1e+10", 5, 0},    {"1e5x", 3, 0},     {"12abc", 2, 1},   {"1.5.5", 3, 0},    {"", 0, 1},
        {".", 0, 0},        {"e5", 0, 1},       {"1e", 0, 0},      {"1e+", 0, 0},      {"+1", 0, 1},
        {"inf", 0, 1},      {"nan", 0, 1},      {"1_000", 1, 1},   {" 1", 0, 1},       {"1.e2", 4, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int is_int = -1;
        size_t len = py_decimal_len(cases[i].text, &is_int);
        if (len != cases[i].len || (len && is_int != cases[i].is_int))
            fail_msg("%s: length %zu is_int %d", cases[i].text, len, is_int);
    }
}

/* A trimmed decimal the way float() and int() read it (xlsx number cells,
 * merge_result's csv cells): sign and blanks around, nothing else. */
static void test_decimal_number(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int ok, is_int;
        double value;
    } cases[] = {
        {"1", 1, 1, 1},           {" -2.5 ", 1, 0, -2.5},     {"+7", 1, 1, 7},          {"\t1e3\n", 1, 0, 1000},
        {"\f.5\v", 1, 0, 0.5},    {"1.", 1, 0, 1},            {"0.1", 1, 0, 0.1},       {"-0", 1, 1, -0.0},
        {"", 0, 0, 0},            {"   ", 0, 0, 0},           {"+", 0, 0, 0},           {"inf", 0, 0, 0},
        {"-Infinity", 0, 0, 0},   {"nan", 0, 0, 0},           {"1_000", 0, 0, 0},       {"1 2", 0, 0, 0},
        {"--1", 0, 0, 0},         {"0x10", 0, 0, 0},          {"1e", 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double v = -99;
        int is_int = -1;
        int rc = py_decimal_number(cases[i].text, strlen(cases[i].text), &v, &is_int);
        if ((rc == 0) != cases[i].ok || (rc == 0 && (v != cases[i].value || is_int != cases[i].is_int)))
            fail_msg("'%s': rc %d value %g is_int %d", cases[i].text, rc, v, is_int);
    }
    /* only the given length counts: the text need not end there */
    double v;
    int is_int;
    assert_int_equal(py_decimal_number("12345", 2, &v, &is_int), 0);
    assert_true(v == 12 && is_int == 1);
    /* the longest text taken, and one past it */
    char buf[PY_DECIMAL_MAX + 1];
    memset(buf, '0', sizeof buf);
    buf[0] = '1';
    assert_int_equal(py_decimal_number(buf, PY_DECIMAL_MAX - 1, &v, &is_int), 0);
    assert_true(isinf(v) && v > 0);   /* 1e398, as float() makes it */
    assert_int_equal(py_decimal_number(buf, PY_DECIMAL_MAX, &v, &is_int), -1);
}

static void test_strip(void **state)
{
    (void)state;
    const char *s = " \t\n\r\f\vab c \v";
    size_t n = strlen(s);
    py_strip(&s, &n);
    assert_int_equal(n, 4);
    assert_memory_equal(s, "ab c", 4);
    s = " \t ";
    n = strlen(s);
    py_strip(&s, &n);
    assert_int_equal(n, 0);
    /* other control characters are not Python blanks here */
    assert_false(py_is_blank('\0'));
    assert_false(py_is_blank('\x1c'));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_repr_str),
        cmocka_unit_test(test_repr_invalid_utf8),
        cmocka_unit_test(test_str_repr_json),
        cmocka_unit_test(test_repr_float),
        cmocka_unit_test(test_str_int_token),
        cmocka_unit_test(test_blacklist),
        cmocka_unit_test(test_decimal_len),
        cmocka_unit_test(test_decimal_number),
        cmocka_unit_test(test_strip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
