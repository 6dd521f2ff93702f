/* The training monitor's csv files (format/monitor_csv.h), read the way
 * monitor2tb and monitor2db read them, with msprobe's op columns wanted. */
#include "tests/fuzz/fuzz.h"

#include "format/monitor_csv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const wanted[] = {"min", "max", "mean", "norm", "zeros", "nans", "id"};
enum { NW = sizeof wanted / sizeof wanted[0] };

static int on_header(void *ctx, const mcsv_header *h)
{
    (void)ctx;
    if (h->nfile_ops > NW) {
        fprintf(stderr, "fz_monitor_csv: %zu op columns of %d wanted\n", h->nfile_ops, NW);
        abort();
    }
    return 0;
}

static int on_row(void *ctx, const mcsv_row *r)
{
    double *sum = ctx;
    for (int i = 0; i < NW; i++)
        *sum += isnan(r->value[i]) ? 0 : 1;
    if (!r->s || !r->s->name || r->s->name[r->s->name_len] != 0) {
        fprintf(stderr, "fz_monitor_csv: a series without its name\n");
        abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    double sum = 0;
    mcsv_reader r = {wanted, NW, on_header, on_row, &sum, NULL};
    fz_done(mcsv_read(fz_dir(), data, size, &r));
    mcsv_header h;
    fz_done(mcsv_read_header(fz_dir(), data, size, &r, &h));
    return 0;
}
