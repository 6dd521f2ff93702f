/* The dump.json loader (model/dump.h): msprobe 8.1.0's rows and msprobe
 * 8.3's first-diff rows, from a dump.json and a debug.json (the file type
 * comes from the name). Every row it keeps must be a complete row. */
#include "tests/fuzz/fuzz.h"

#include "model/dump.h"

#include <stdio.h>
#include <stdlib.h>

static void check_rows(const dump_data *d)
{
    for (size_t i = 0; i < d->nrows; i++) {
        const dump_row *r = &d->rows[i];
        if (!r->name || !r->dtype || !r->shape || !r->data_name || r->entry >= d->nentries) {
            fprintf(stderr, "fz_dump: row %zu incomplete\n", i);
            abort();
        }
    }
    for (size_t e = 0; e < d->nentries; e++)
        if (d->entries[e].first_row + d->entries[e].nrows > d->nrows) {
            fprintf(stderr, "fz_dump: entry %zu points past the rows\n", e);
            abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    static const char *const names[] = {"dump.json", "debug.json"};
    const char *path = fz_write(names[size & 1], data, size);
    char *own = fz_path(names[size & 1]);
    for (unsigned flags = 0; flags <= DUMP_FIRST_DIFF; flags += DUMP_FIRST_DIFF) {
        dump_data d;
        int rc = dump_load_ex(own, flags, &d);
        fz_done(rc);
        if (rc == 0) {
            check_rows(&d);
            dump_framework(&d);
            for (size_t i = 0; i < d.nrows; i++) {
                size_t api_len;
                int state;
                row_name_state(d.rows[i].name, &api_len, &state);
            }
        }
        dump_free(&d);
    }
    (void)path;
    free(own);
    return 0;
}
