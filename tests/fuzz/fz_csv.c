/* csv text (format/csv_read.h): the copying reader and the in-place one
 * must read the same rows and fields, and agree on what they refuse. */
#include "tests/fuzz/fuzz.h"

#include "format/csv_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t hash;
    size_t rows;
} digest;

static void mix(uint64_t *h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++)
        *h = (*h ^ s[i]) * 0x100000001b3ULL;
}

static int on_row(void *ctx, size_t row, const csv_field *f, size_t n)
{
    digest *d = ctx;
    mix(&d->hash, &row, sizeof row);
    mix(&d->hash, &n, sizeof n);
    for (size_t i = 0; i < n; i++) {
        mix(&d->hash, &f[i].len, sizeof f[i].len);
        mix(&d->hash, f[i].s, f[i].len);
        mix(&d->hash, &f[i].quoted, sizeof f[i].quoted);
        if (f[i].quoted && f[i].s[f[i].len] != 0) {
            fprintf(stderr, "fz_csv: a quoted field not NUL-terminated\n");
            abort();
        }
    }
    d->rows++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    digest a = {0xcbf29ce484222325ULL, 0}, b = a;
    int ra = csv_read(fz_dir(), data, size, on_row, &a);
    fz_done(ra);
    int rb = csv_read_fields(fz_dir(), data, size, on_row, &b);
    fz_done(rb);
    if ((ra == 0) != (rb == 0) || (ra == 0 && (a.hash != b.hash || a.rows != b.rows))) {
        fprintf(stderr, "fz_csv: the two readers differ (%d/%d, %zu/%zu rows)\n", ra, rb, a.rows, b.rows);
        abort();
    }
    return 0;
}
