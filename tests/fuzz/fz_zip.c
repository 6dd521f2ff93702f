/* ZIP archives (format/zip.h): the central directory read, every entry
 * read (stored in place, deflated inflated) within the limits, its CRC-32
 * checked either way: an entry read is one whose bytes have the CRC its
 * directory gives, and zip_read_unchecked differs from zip_read by that
 * check alone. Then the same archive indexed as a hostile one (zip_index:
 * the names checked, each found again by name). */
#include "tests/fuzz/fuzz.h"

#include "base/err.h"
#include "format/crc32.h"
#include "format/zip.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    zip_archive z;
    int rc = zip_open(&z, fz_dir(), data, size);
    fz_done(rc);
    if (rc != 0)
        return 0;
    for (size_t i = 0; i < z.count; i++) {
        const unsigned char *p;
        size_t n;
        void *owned = NULL;
        int r = zip_read(&z, &z.entries[i], (size_t)16 << 20, &p, &n, &owned);
        fz_done(r);
        if (r == 0 && crc32_update(0, p, n) != z.entries[i].crc) {
            fprintf(stderr, "fz_zip: entry %zu read although its CRC-32 is wrong\n", i);
            abort();
        }
        free(owned);
        const unsigned char *q;
        size_t m;
        owned = NULL;
        int u = zip_read_unchecked(&z, &z.entries[i], (size_t)16 << 20, &q, &m, &owned);
        fz_done(u);
        int crc_ok = u == 0 && crc32_update(0, q, m) == z.entries[i].crc;
        if ((r == 0) != crc_ok) {
            fprintf(stderr, "fz_zip: entry %zu: zip_read and zip_read_unchecked disagree beyond the CRC\n", i);
            abort();
        }
        free(owned);
    }
    rc = zip_index(&z, 1000, (uint64_t)1 << 24, (uint64_t)1 << 26);
    fz_done(rc);
    if (rc == 0)
        for (size_t i = 0; i < z.count; i++)
            if (zip_find(&z, z.entries[i].name, z.entries[i].name_len) == NULL) {
                fprintf(stderr, "fz_zip: entry %zu not found by its name\n", i);
                abort();
            }
    zip_close(&z);
    return 0;
}
