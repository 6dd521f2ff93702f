/* format/json: every number token gets exactly strtod()'s double, whichever
 * way the reader takes (the digits gathered while scanning and one exact
 * IEEE operation, or parse_double), on random tokens built to sit on the
 * edges between the two: 15 to 20 significant digits, values around 2^53,
 * exponents around +-22, leading and trailing zeros, huge and tiny
 * exponents, saturated exponents. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "format/json.h"
#include "base/strbuf.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x243F6A8885A308D3ULL;

static unsigned pick(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static void digits(strbuf *sb, unsigned n, int first_nonzero)
{
    for (unsigned i = 0; i < n; i++) {
        unsigned d = pick(10);
        /* runs of zeros and nines sit on rounding edges */
        if (pick(4) == 0)
            d = pick(2) ? 0 : 9;
        if (i == 0 && first_nonzero && d == 0)
            d = 1 + pick(9);
        sb_addc(sb, (char)('0' + d));
    }
}

static void random_number(strbuf *sb)
{
    sb_reset(sb);
    if (pick(2))
        sb_addc(sb, '-');
    if (pick(3) == 0)
        sb_addc(sb, '0');
    else
        digits(sb, 1 + pick(21), 1);
    if (pick(3)) {
        sb_addc(sb, '.');
        if (pick(3) == 0)
            sb_adds(sb, pick(2) ? "000" : "0000000000000000000000");
        digits(sb, 1 + pick(21), 0);
    }
    if (pick(3) == 0) {
        sb_addc(sb, pick(2) ? 'e' : 'E');
        unsigned sign = pick(3);
        if (sign == 1)
            sb_addc(sb, '-');
        else if (sign == 2)
            sb_addc(sb, '+');
        static const char *const ex[] = {"0", "1", "5", "15", "21", "22", "23", "30", "37", "300", "308", "309",
                                         "320", "324", "330", "99999", "100000", "1000000000000"};
        sb_adds(sb, ex[pick(sizeof ex / sizeof ex[0])]);
    }
}

static void test_numbers_as_strtod(void **state)
{
    (void)state;
    strbuf sb = STRBUF_INIT;
    static const char *const fixed[] = {
        "9007199254740992", "9007199254740993", "9007199254740993.0", "900719925474099.3e1",
        "0.1", "0.0693359375", "-0.0002460479736328125", "188.0", "1e22", "1e23", "1e-22", "1e-23",
        "123456789012345678", "1234567890123456789", "12345678901234567890", "0.00000000000000000000001",
        "-0.0", "0e400", "0.000e-999999", "4.9406564584124654e-324", "2.2250738585072011e-308",
        "1.7976931348623157e308", "1.7976931348623159e308", "0.1e100001", "1e-100001", "5e-324",
        "2e-324", "3.0e-324", "100000000000000000000000e-23", "9.999999999999999e22", "8.98846567431158e307"};
    int n = (int)(sizeof fixed / sizeof fixed[0]);
    for (int i = 0; i < n + 2 + 200000; i++) {
        if (i < n) {
            sb_reset(&sb);
            sb_adds(&sb, fixed[i]);
        } else if (i < n + 2) {
            /* a saturated exponent beside a fraction as long: the gathered
             * digits must not be trusted (the value is inf, or 0) */
            sb_reset(&sb);
            sb_adds(&sb, "0.");
            for (int z = 0; z < 99995; z++)
                sb_addc(&sb, '0');
            sb_adds(&sb, i == n ? "1e1000006" : "1e-1000006");
        } else {
            random_number(&sb);
        }
        jparser jp;
        jp_init(&jp, "numbers.json", sb.buf, sb.len);
        jval v;
        assert_int_equal(jp_scalar(&jp, NULL, &v), 0);
        assert_int_equal(v.type, J_NUMBER);
        if (jp.p != sb.buf + sb.len) {
            print_error("%s: stopped after %d bytes\n", sb.buf, (int)(jp.p - sb.buf));
            fail();
        }
        double want = strtod(sb.buf, NULL);
        if (memcmp(&v.u.num, &want, sizeof want) != 0) {
            print_error("%s: %.17g, strtod %.17g\n", sb.buf, v.u.num, want);
            fail();
        }
        jp_free(&jp);
    }
    sb_free(&sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers_as_strtod),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
