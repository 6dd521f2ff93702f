/* Training logs (format/trainlog.h): Megatron-LM, MindSpeed and MindSpore
 * Transformers lines. A log read must leave every series in step order
 * without a repeated step; a refusal is one line naming the file. And the
 * reader of str(dict) configurations (py/pylit.h) over the same bytes. */
#include "tests/fuzz/fuzz.h"

#include "format/curves.h"
#include "format/trainlog.h"
#include "py/pylit.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    curves c;
    curves_init(&c);
    int rc = trainlog_parse(fz_dir(), data, size, &c, NULL, NULL);
    fz_done(rc);
    for (size_t m = 0; rc == 0 && m < c.n; m++)
        for (size_t i = 1; i < c.v[m].n; i++)
            if (c.v[m].step[i] <= c.v[m].step[i - 1]) {
                fprintf(stderr, "fz_trainlog: series '%s' is not in step order\n", c.v[m].name);
                abort();
            }
    (void)trainlog_sniff(data, size);
    (void)pylit_dict_leaves((const char *)data, size, NULL, NULL);
    curves_free(&c);
    return 0;
}
