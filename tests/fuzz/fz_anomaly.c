/* The training monitor's anomaly.json (monitor/anomaly): the input as
 * rank0's file of an anomaly_detected tree, its records built and ranked
 * as msprobe's anomaly_processor does. And anomaly's -s step list (the
 * input's first line, base/numlist.h), which is text from the command line. */
#include "tests/fuzz/fuzz.h"

#include "base/err.h"
#include "base/numlist.h"
#include "monitor/anomaly/anomaly.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    fz_write("anomaly_detected/rank0/anomaly.json", data, size);
    char *dir = fz_path("anomaly_detected");
    anomaly_list l;
    int rc = anomaly_load(dir, &l);
    fz_done(rc);
    if (rc == 0 && l.n) {
        const anomaly **in = malloc(l.n * sizeof *in);
        size_t *out = malloc(l.n * sizeof *out);
        for (size_t i = 0; i < l.n; i++) {
            in[i] = &l.v[i];
            char *key;
            size_t klen;
            anomaly_key(&l.v[i], &key, &klen);
            free(key);
        }
        anomaly_top_k(in, l.n, l.n, out);
        anomaly_top_k(in, l.n, l.n / 2 + 1, out);
        free(in);
        free(out);
    }
    anomaly_list_free(&l);
    free(dir);

    size_t n = 0;
    while (n < size && n < 4096 && data[n] != '\n' && data[n] != 0)
        n++;
    char *text = strndup((const char *)data, n);
    numlist steps;
    fz_done_anywhere(numlist_parse(text, "-s", &steps));
    numlist_free(&steps);
    free(text);
    return 0;
}
