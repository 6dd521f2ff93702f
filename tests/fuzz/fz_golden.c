/* Megatron golden values (format/golden_values.h): what is read must be
 * written back (golden_format, as Megatron's CLI writes them) and read
 * again as the same curves -- names, steps, values and their kinds (a NaN
 * comes back as the string "nan"). */
#include "tests/fuzz/fuzz.h"

#include "format/curves.h"
#include "format/golden_values.h"
#include "base/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void same(const curves *a, const curves *b)
{
    if (a->n != b->n)
        goto differ;
    for (size_t m = 0; m < a->n; m++) {
        const curve *x = &a->v[m], *y = &b->v[m];
        if (strcmp(x->name, y->name) != 0 || x->n != y->n)
            goto differ;
        for (size_t i = 0; i < x->n; i++) {
            int kx = curve_kind_at(x, i), ky = curve_kind_at(y, i);
            if (x->step[i] != y->step[i])
                goto differ;
            if (kx == CV_STR || isnan(x->value[i])) {
                if (ky != CV_STR)
                    goto differ;
                continue;
            }
            if (kx != ky || x->value[i] != y->value[i])
                goto differ;
        }
    }
    return;
differ:
    fprintf(stderr, "fz_golden: the golden values do not survive being written back\n");
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    curves c;
    curves_init(&c);
    int rc = golden_parse(fz_dir(), data, size, &c);
    fz_done(rc);
    if (rc == 0) {
        strbuf sb = STRBUF_INIT;
        golden_format(&sb, &c, 1, 1);
        curves back;
        curves_init(&back);
        int rc2 = golden_parse(fz_dir(), sb.buf, sb.len, &back);
        fz_done(rc2);
        if (rc2 != 0) {
            fprintf(stderr, "fz_golden: what we wrote does not read back: %s\n", sb_str(&sb));
            abort();
        }
        same(&c, &back);
        curves_free(&back);
        sb_free(&sb);
    }
    curves_free(&c);
    return 0;
}
