/* Unit tests of lib/numfmt: every result is checked against glibc
 * (snprintf "%.16g", strtod) or against outputs of CPython 3.11 repr().
 *
 * pow10.c, numfmt.c and numparse.c are included rather than linked so that
 * their internals (the table of powers of ten, the log10 estimate, the
 * digit tricks, the glibc-based fallbacks) can be checked on their own as
 * well.
 *
 * NUMFMT_TEST_SCALE (default 1) multiplies the randomized iteration
 * counts; NUMFMT_TEST_SEED picks another random sequence.
 */
#include "py/pow10.c"
#include "py/numfmt.c"
#include "py/numparse.c"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

/* ---- helpers -------------------------------------------------------------- */

static uint64_t seed_state = 0x243F6A8885A308D3ull;

/* splitmix64: small, fast, and good enough to spray bit patterns */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t rnd(void)
{
    return next_u64(&seed_state);
}

static long iters(long base)
{
    const char *s = getenv("NUMFMT_TEST_SCALE");
    double k = s ? atof(s) : 1.0;
    long n = (long)((double)base * (k > 0 ? k : 1.0));
    return n < 1 ? 1 : n;
}

static double from_bits(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

static int same_double(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static double unit_real(uint64_t *s)
{
    return (double)(next_u64(s) >> 11) / 9007199254740992.0;
}

/* Values of the kinds a compare prints: full-precision statistics, float32
 * values, integers, short decimals, and the binary/decimal boundaries. */
static double realistic(uint64_t *s)
{
    char text[64];
    double sign = (next_u64(s) & 1) ? -1.0 : 1.0;
    double mag = pow(10.0, unit_real(s) * 20.0 - 10.0);
    switch (next_u64(s) % 8) {
    case 0:
        return sign * mag;
    case 1:
        return sign * (double)(float)mag;
    case 2:
        return (double)((int64_t)(next_u64(s) % 200001) - 100000);
    case 3:
        snprintf(text, sizeof text, "%" PRIu64 "e-%d", next_u64(s) % 1000000000,
                 (int)(next_u64(s) % 13));
        return sign * strtod(text, NULL);
    case 4: {
        uint32_t b = (uint32_t)next_u64(s);
        float f;
        memcpy(&f, &b, sizeof f);
        return isfinite(f) ? (double)f : sign;
    }
    case 5: {
        double x = ldexp(1.0, (int)(next_u64(s) % 2098) - 1074);
        for (int i = (int)(next_u64(s) % 4); i > 0; i--)
            x = nextafter(x, (next_u64(s) & 1) ? INFINITY : 0.0);
        return sign * x;
    }
    case 6: {
        snprintf(text, sizeof text, "1e%d", (int)(next_u64(s) % 632) - 323);
        double x = strtod(text, NULL);
        for (int i = (int)(next_u64(s) % 3); i > 0; i--)
            x = nextafter(x, (next_u64(s) & 1) ? INFINITY : 0.0);
        return sign * x;
    }
    default: {
        int bits = 1 + (int)(next_u64(s) % 53);
        double m = (double)((next_u64(s) >> (64 - bits)) | 1);
        return sign * ldexp(m, (int)(next_u64(s) % 161) - 80);
    }
    }
}

static double any_double(uint64_t *s)
{
    return (next_u64(s) & 1) ? from_bits(next_u64(s)) : realistic(s);
}

/* ---- reference implementations ------------------------------------------- */

/* Adds delta (+1 or -1) to the decimal digit string d of length n, keeping
 * n digits: on carry/borrow out of the first digit the exponent moves. */
static void step_digits(char *d, int n, int *x10, int delta)
{
    int i = n - 1;
    if (delta > 0) {
        while (i >= 0 && d[i] == '9')
            d[i--] = '0';
        if (i >= 0) {
            d[i]++;
        } else {
            d[0] = '1';
            (*x10)++;
        }
    } else {
        while (i >= 0 && d[i] == '0')
            d[i--] = '9';
        d[i]--;
        if (d[0] == '0') {
            memset(d, '9', (size_t)n);
            (*x10)--;
        }
    }
}

static double read_digits(const char *d, int n, int x10)
{
    char text[64];
    snprintf(text, sizeof text, "%.1s.%.*se%d", d, n - 1, d + 1, x10);
    return strtod(text, NULL);
}

/* CPython's repr by brute force with glibc: the shortest length n at which
 * the nearest n-digit decimal or, failing that, the neighbour on the other
 * side of x reads back as x; then Python's layout rules. */
static void ref_repr(double x, char *out)
{
    if (isnan(x)) {
        strcpy(out, "nan");
        return;
    }
    char *o = out;
    if (signbit(x))
        *o++ = '-';
    double ax = fabs(x);
    if (isinf(ax) || ax == 0) {
        strcpy(o, isinf(ax) ? "inf" : "0.0");
        return;
    }
    char d[32], text[64];
    int n, x10 = 0;
    for (n = 1; n <= 17; n++) {
        snprintf(text, sizeof text, "%.*e", n - 1, ax);
        d[0] = text[0];
        memcpy(d + 1, text + 2, (size_t)n - 1);
        x10 = atoi(strchr(text, 'e') + 1);
        double near = strtod(text, NULL);
        if (near == ax)
            break;
        step_digits(d, n, &x10, near < ax ? 1 : -1);
        if (read_digits(d, n, x10) == ax)
            break;
        x10 = atoi(strchr(text, 'e') + 1);
    }
    while (n > 1 && d[n - 1] == '0')
        n--;
    d[n] = '\0';
    int decpt = x10 + 1;
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            o += sprintf(o, "0.");
            for (int i = 0; i < -decpt; i++)
                *o++ = '0';
            strcpy(o, d);
        } else if (decpt >= n) {
            o += sprintf(o, "%s", d);
            for (int i = n; i < decpt; i++)
                *o++ = '0';
            strcpy(o, ".0");
        } else {
            sprintf(o, "%.*s.%s", decpt, d, d + decpt);
        }
    } else {
        sprintf(o, "%c%s%se%c%02d", d[0], n > 1 ? "." : "", d + 1, x10 < 0 ? '-' : '+',
                abs(x10));
    }
}

static void expect_g16(double x)
{
    char got[NUMFMT_BUFSZ], want[64];
    size_t n = fmt_g16(x, got);
    snprintf(want, sizeof want, "%.16g", x);
    if (strcmp(got, want) != 0 || n != strlen(want))
        fail_msg("fmt_g16(%a) = \"%s\" (%zu), glibc \"%s\"", x, got, n, want);
}

static void expect_repr(double x)
{
    char got[NUMFMT_BUFSZ], want[64];
    size_t n = fmt_pyrepr(x, got);
    ref_repr(x, want);
    if (strcmp(got, want) != 0 || n != strlen(want))
        fail_msg("fmt_pyrepr(%a) = \"%s\" (%zu), reference \"%s\"", x, got, n, want);
}

static void expect_parse(const char *text)
{
    size_t n = strlen(text);
    /* an exact-size copy, so that reading past the token trips ASan */
    char *copy = malloc(n ? n : 1);
    assert_non_null(copy);
    memcpy(copy, text, n);
    double got = parse_double(copy, n), want = strtod(text, NULL);
    free(copy);
    if (!same_double(got, want))
        fail_msg("parse_double(\"%s\") = %a, strtod %a", text, got, want);
}

/* ---- internals ------------------------------------------------------------ */

static void test_pow10_table(void **state)
{
    pow10_ready();
    for (int k = POW10_MIN; k <= POW10_MAX; k++) {
        const struct pow10 *p = pow10_at(k);
        char text[32];
        snprintf(text, sizeof text, "1e%d", k);
        int ex;
        long double mant = frexpl(strtold(text, NULL), &ex);
        /* glibc's 64-bit rounded significand vs our truncated one */
        uint64_t r64 = (uint64_t)ldexpl(mant, 64);
        assert_true(p->hi >> 63);
        if (p->e2 + 128 == ex)
            assert_true(p->hi == r64 || p->hi + 1 == r64);
        else
            assert_true(p->e2 + 128 == ex - 1 && p->hi == UINT64_MAX);
    }
    u128 five = 1;
    for (int k = 0; k <= POW10_EXACT_MAX; k++, five *= 5) {
        const struct pow10 *p = pow10_at(k);
        int len = 128;
        while (!(five >> (len - 1)))
            len--;
        assert_true((((u128)p->hi << 64) | p->lo) == five << (128 - len));
        assert_int_equal(p->e2, k + len - 128);
        assert_true(pow10_exact(k));
    }
    assert_false(pow10_exact(-1));
    assert_false(pow10_exact(POW10_EXACT_MAX + 1));
}

static void test_log10_estimate(void **state)
{
    for (int g = -1100; g <= 1100; g++)
        assert_int_equal(floor_log10_pow2(g), (int)floorl((long double)g * log10l(2.0L)));
    for (int i = 1; i < 20; i++) {
        assert_int_equal(decimal_len(POW10_U64[i] - 1), i);
        assert_int_equal(decimal_len(POW10_U64[i]), i + 1);
    }
    for (int i = 0; i < 64; i++) {
        char text[32];
        assert_int_equal(decimal_len(UINT64_C(1) << i),
                         snprintf(text, sizeof text, "%" PRIu64, UINT64_C(1) << i));
    }
}

static void test_digit_tricks(void **state)
{
    long n = iters(200000);
    for (long i = 0; i < n; i++) {
        uint32_t v = i < 10000 ? (uint32_t)i : (uint32_t)(rnd() % 100000000);
        char want[16], got[9];
        snprintf(want, sizeof want, "%08" PRIu32, v);
        uint64_t w = digits8(v);
        for (int b = 0; b < 8; b++)
            got[b] = (char)(w >> (8 * b));
        got[8] = '\0';
        assert_string_equal(got, want);
        for (int k = 0; k <= 8; k++) {
            uint64_t word = 0;
            for (int b = 0; b < 8; b++)
                word |= (uint64_t)(unsigned char)(b < k ? want[b] : "x.e-+E/:"[b]) << (8 * b);
            assert_int_equal(digit_prefix(word), k);
            assert_int_equal(prefix_value(word, k), k ? strtoull(want, NULL, 10) /
                                                            POW10_U64[8 - k] : 0);
        }
    }
    assert_int_equal(digit_prefix(0), 0);
    assert_int_equal(zero_prefix(0x3030303030303030ull), 8);
    assert_int_equal(zero_prefix(0x3130303030303030ull), 7);
}

/* ---- %.16g ------------------------------------------------------------------ */

static void test_g16_known(void **state)
{
    static const struct {
        double x;
        const char *want;
    } cases[] = {
        {0.0, "0"},
        {-0.0, "-0"},
        {1.0, "1"},
        {-1.5, "-1.5"},
        {0.1, "0.1"},
        {1e-5, "1e-05"},
        {1e16, "1e+16"},
        {1e15, "1000000000000000"},
        {123456789012345678.0, "1.234567890123457e+17"},
        {0.30000000000000004, "0.3"},
        {2.6616761684417725, "2.661676168441772"},
        {-0.0003330707550049383, "-0.0003330707550049383"},
        {1.1920928955078125e-07, "1.192092895507812e-07"},
        {5e-324, "4.940656458412465e-324"},
        {1.7976931348623157e308, "1.797693134862316e+308"},
        {9007199254740993.0, "9007199254740992"},
        {0.0001, "0.0001"},
        {0.00001234, "1.234e-05"},
        {1e100, "1e+100"},
        {1e-100, "1e-100"},
        {4503599627370496.5, "4503599627370496"},
        {9999999999999999.0, "1e+16"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[NUMFMT_BUFSZ];
        assert_int_equal(fmt_g16(cases[i].x, buf), strlen(cases[i].want));
        assert_string_equal(buf, cases[i].want);
        expect_g16(cases[i].x);
    }
    char buf[NUMFMT_BUFSZ];
    fmt_g16(INFINITY, buf);
    assert_string_equal(buf, "inf");
    fmt_g16(-INFINITY, buf);
    assert_string_equal(buf, "-inf");
    fmt_g16(NAN, buf);
    expect_g16(NAN);
    expect_g16(-NAN);
    expect_g16(from_bits(0xFFF8000000000001ull));
    expect_g16(from_bits(0x7FF0000000000001ull));
}

static void test_g16_random(void **state)
{
    long n = iters(2000000);
    for (long i = 0; i < n; i++)
        expect_g16(from_bits(rnd()));
    n = iters(500000);
    for (long i = 0; i < n; i++)
        expect_g16(realistic(&seed_state));
    /* every power of two and its neighbours: exponent boundaries and ties */
    for (int e = -1074; e <= 1023; e++) {
        double x = ldexp(1.0, e);
        expect_g16(x);
        expect_g16(nextafter(x, 0.0));
        expect_g16(nextafter(x, INFINITY));
    }
}

/* ---- repr -------------------------------------------------------------------- */

static void test_repr_known(void **state)
{
    /* outputs of CPython 3.11 repr() */
    static const struct {
        double x;
        const char *want;
    } cases[] = {
        {0.1, "0.1"},
        {1e-05, "1e-05"},
        {0.0001, "0.0001"},
        {9.999999999999999e-05, "9.999999999999999e-05"},
        {1e16, "1e+16"},
        {1e16 + 2, "1.0000000000000002e+16"},
        {9999999999999998.0, "9999999999999998.0"},
        {123456789012345678.0, "1.2345678901234568e+17"},
        {9007199254740993.0, "9007199254740992.0"},
        {5e-324, "5e-324"},
        {1.5e-323, "1.5e-323"},
        {1e-320, "1e-320"},
        {5e-310, "5e-310"},
        {1.7976931348623157e+308, "1.7976931348623157e+308"},
        {2.2250738585072014e-308, "2.2250738585072014e-308"},
        {-0.0, "-0.0"},
        {0.0, "0.0"},
        {100.0, "100.0"},
        {1.0, "1.0"},
        {10.0, "10.0"},
        {0.5, "0.5"},
        {-1.5, "-1.5"},
        {65504.0, "65504.0"},
        {0.30000000000000004, "0.30000000000000004"},
        {0.3, "0.3"},
        {2.0 / 3.0, "0.6666666666666666"},
        {4503599627370496.0, "4503599627370496.0"},
        {1e15, "1000000000000000.0"},
        {1e17, "1e+17"},
        {1e22, "1e+22"},
        {1e23, "1e+23"},
        {1234567890123456.7, "1234567890123456.8"},
        {12345678901234567.0, "1.2345678901234568e+16"},
        {9223372036854775808.0, "9.223372036854776e+18"},
        {18446744073709551616.0, "1.8446744073709552e+19"},
        {72057594037927936.0, "7.205759403792794e+16"},
        {1152921504606846976.0, "1.152921504606847e+18"},
        {1.1920928955078125e-07, "1.1920928955078125e-07"},
        {9.5367431640625e-07, "9.5367431640625e-07"},
        {3.0517578125e-05, "3.0517578125e-05"},
        {1e-07, "1e-07"},
        {1.00000762939453125, "1.0000076293945312"},
        {0.9999999999999999, "0.9999999999999999"},
        {1.0000000000000002, "1.0000000000000002"},
        {0.100000001490116119384765625, "0.10000000149011612"},
        {2.6616761684417725, "2.6616761684417725"},
        {-0.0003330707550049383, "-0.0003330707550049383"},
        {123.456, "123.456"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[NUMFMT_BUFSZ];
        assert_int_equal(fmt_pyrepr(cases[i].x, buf), strlen(cases[i].want));
        assert_string_equal(buf, cases[i].want);
        expect_repr(cases[i].x);
    }
    char buf[NUMFMT_BUFSZ];
    fmt_pyrepr(INFINITY, buf);
    assert_string_equal(buf, "inf");
    fmt_pyrepr(-INFINITY, buf);
    assert_string_equal(buf, "-inf");
    fmt_pyrepr(NAN, buf);
    assert_string_equal(buf, "nan");
    fmt_pyrepr(-NAN, buf);
    assert_string_equal(buf, "nan");
    fmt_pyrepr(ldexp(1.0, -1074), buf);
    assert_string_equal(buf, "5e-324");
}

static void test_repr_random(void **state)
{
    long n = iters(60000);
    for (long i = 0; i < n; i++)
        expect_repr(any_double(&seed_state));
    /* round trip and length on many more */
    n = iters(600000);
    for (long i = 0; i < n; i++) {
        double x = any_double(&seed_state);
        char buf[NUMFMT_BUFSZ];
        size_t len = fmt_pyrepr(x, buf);
        assert_true(len < NUMFMT_BUFSZ && len == strlen(buf));
        if (!isnan(x) && !same_double(strtod(buf, NULL), x))
            fail_msg("fmt_pyrepr(%a) = \"%s\" does not read back", x, buf);
    }
}

/* Formats x through the glibc trial fallback alone. */
static void slow_repr(double x, char *out)
{
    uint64_t c;
    int j;
    shortest_slow(x, &c, &j);
    struct digits dg;
    int len = decimal_len(c);
    split17(len <= 17 ? c * POW10_U64[17 - len] : c / 10, j + len - 1, &dg);
    layout(out, &dg, 1);
}

static int fast_declines(double x)
{
    uint64_t bits = dbl_bits(x), frac = bits & MANT_MASK, c;
    int bexp = (int)(bits >> 52), j;
    return !shortest(bexp ? frac | HIDDEN_BIT : frac, bexp ? bexp - 1075 : -1074,
                     frac == 0 && bexp > 1, &c, &j);
}

/* The glibc trial fallback against the reference, on huge integers (where
 * the fast path declines when a rounding bound is an exact integer) and on
 * everything else. */
static void test_repr_paths(void **state)
{
    static const struct {
        double x;
        const char *want;
    } declined[] = {
        {0x1.f93f2a28c4196p+58, "5.688572541759912e+17"},
        {0x1.57684c0ff4efcp+57, "1.933211858125372e+17"},
        {0x1.67f44afe18f8ep+56, "1.013181195669322e+17"},
        {0x1.84f1823654f28p+56, "1.094778325233138e+17"},
        {0x1.380031b5e65a1p+58, "3.5128162495557843e+17"},
    };
    char got[NUMFMT_BUFSZ], want[64];
    pow10_ready();
    for (size_t i = 0; i < sizeof declined / sizeof declined[0]; i++) {
        assert_true(fast_declines(declined[i].x));
        fmt_pyrepr(declined[i].x, got);
        assert_string_equal(got, declined[i].want);
    }
    long n = iters(20000);
    for (long i = 0; i < n; i++) {
        double x = i % 2 ? ldexp((double)(rnd() >> 11), 4 + (int)(rnd() % 60))
                         : fabs(any_double(&seed_state));
        if (!isfinite(x) || x == 0)
            continue;
        slow_repr(x, got);
        ref_repr(x, want);
        if (strcmp(got, want) != 0)
            fail_msg("slow repr of %a: \"%s\", reference \"%s\"", x, got, want);
        expect_repr(x);
    }
}

/* ---- parsing ----------------------------------------------------------------- */

static void test_parse_known(void **state)
{
    static const char *const cases[] = {
        "0", "-0", "0.0", "-0.0", "0e999", "-0e-999", "1", "-1", "0.1", "1e-05", "1E+5",
        "1e5", "2.6616761684417725", "-0.0003330707550049383", "9007199254740993",
        "9007199254740993.0", "90071992547409930e-1", "9007199254740992.5",
        "9007199254740993.000000000000001", "2.2250738585072011e-308",
        "2.2250738585072012e-308", "2.2250738585072014e-308", "4.9406564584124654e-324",
        "2.4703282292062327e-324", "2.4703282292062328e-324", "1e-400", "-1e-400", "1e400",
        "-1e400", "1.7976931348623157e308", "1.7976931348623158e308",
        "1.7976931348623159e308", "123456789012345678901234567890",
        "0.000000000000000000000000000000000000001", "7.2057594037927933e16", "1e23",
        "8.98846567431158e307", "123.456e-2", "1.00000000000000011102230246251565404236316680908203125",
        "1.00000000000000011102230246251565404236316680908203124",
        "1.00000000000000011102230246251565404236316680908203126",
        "0.30000000000000004", "1e22", "1e-22", "4503599627370497.5",
        "1e99999999999999999999", "1e-99999999999999999999", "12345678901234567890123e-30",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_parse(cases[i]);
    /* the token is not NUL-terminated: digits after it must be ignored */
    assert_true(same_double(parse_double("1.5999", 3), 1.5));
    assert_true(same_double(parse_double("-0.25e-12345", 5), -0.25));
    assert_true(same_double(parse_double("12345678901234567890", 9), 123456789.0));
}

/* A random JSON number: up to 25 digits, the point anywhere, exponents
 * -350..350. */
static void random_number(char *out)
{
    char *p = out;
    int nd = 1 + (int)(rnd() % 25);
    if (rnd() & 1)
        *p++ = '-';
    int point = (int)(rnd() % (unsigned)(nd + 1));
    int lead0 = rnd() % 3 == 0;
    if (lead0) {
        *p++ = '0';
        point = 0;
    }
    for (int k = 0; k < nd; k++) {
        if (k == point && (k > 0 || lead0))
            *p++ = '.';
        int dgt = (int)(rnd() % 10);
        if (k == 0 && !lead0 && point != 0 && dgt == 0)
            dgt = 1;
        if (k == 0 && !lead0 && point == 0)
            dgt = 1 + dgt % 9;
        *p++ = (char)('0' + dgt);
    }
    if (rnd() & 1)
        p += sprintf(p, "%s%d", (rnd() & 1) ? "e" : "E", (int)(rnd() % 701) - 350);
    *p = '\0';
}

static void test_parse_random(void **state)
{
    char text[128];
    long n = iters(700000);
    for (long i = 0; i < n; i++) {
        random_number(text);
        expect_parse(text);
    }
    /* the formatters' own outputs, as a compare reads them back */
    n = iters(300000);
    for (long i = 0; i < n; i++) {
        double x = any_double(&seed_state);
        if (!isfinite(x))
            continue;
        fmt_pyrepr(x, text);
        expect_parse(text);
        fmt_g16(x, text);
        expect_parse(text);
        snprintf(text, sizeof text, "%.17g", x);
        expect_parse(text);
    }
}

/* Decimals at and next to the exact midpoint between two doubles. */
static void test_parse_halfway(void **state)
{
    char text[1024];
    long n = iters(20000);
    for (long i = 0; i < n; i++) {
        double x = fabs(i % 2 ? from_bits(rnd()) : realistic(&seed_state));
        double y = nextafter(x, INFINITY);
        if (!isfinite(x) || !isfinite(y))
            continue;
        long double mid = ((long double)x + (long double)y) / 2;
        snprintf(text, sizeof text, "%.800Le", mid);
        expect_parse(text);
        snprintf(text, sizeof text, "%.*Le", 16 + (int)(rnd() % 10), mid);
        expect_parse(text);
        char *e = strchr(text, 'e');
        e[-1] = e[-1] == '9' ? '8' : (char)(e[-1] + 1);
        expect_parse(text);
    }
}

/* ---- threads ------------------------------------------------------------------ */

static void *thread_work(void *arg)
{
    uint64_t s = (uint64_t)(uintptr_t)arg;
    long bad = 0;
    for (int i = 0; i < 20000; i++) {
        double x = any_double(&s);
        char a[NUMFMT_BUFSZ], b[64];
        fmt_g16(x, a);
        snprintf(b, sizeof b, "%.16g", x);
        bad += strcmp(a, b) != 0;
        fmt_pyrepr(x, a);
        bad += !isnan(x) && !same_double(parse_double(a, strlen(a)), x);
    }
    return (void *)(intptr_t)bad;
}

/* Runs first, so that the threads race to build the table. */
static void test_threads(void **state)
{
    pthread_t t[4];
    for (uintptr_t i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, thread_work, (void *)(i + 1)), 0);
    for (int i = 0; i < 4; i++) {
        void *bad;
        assert_int_equal(pthread_join(t[i], &bad), 0);
        assert_int_equal((intptr_t)bad, 0);
    }
}

int main(void)
{
    const char *seed = getenv("NUMFMT_TEST_SEED");
    if (seed)
        seed_state = strtoull(seed, NULL, 0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_pow10_table),
        cmocka_unit_test(test_log10_estimate),
        cmocka_unit_test(test_digit_tricks),
        cmocka_unit_test(test_g16_known),
        cmocka_unit_test(test_g16_random),
        cmocka_unit_test(test_repr_known),
        cmocka_unit_test(test_repr_random),
        cmocka_unit_test(test_repr_paths),
        cmocka_unit_test(test_parse_known),
        cmocka_unit_test(test_parse_random),
        cmocka_unit_test(test_parse_halfway),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
