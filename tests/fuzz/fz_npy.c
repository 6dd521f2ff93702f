/* .npy files (format/npy.h): the header strictly parsed, the data bounds-
 * checked; every element of an accepted tensor is read (ASan catches a
 * view reaching past the buffer). */
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/tensor_touch.h"

#include "format/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    tensor t;
    int rc = npy_parse(fz_dir(), data, size, &t);
    fz_done(rc);
    if (rc == 0)
        tensor_touch(&t);
    tensor_free(&t);
    return 0;
}
