/* TensorBoard event files (format/tfevents.h's reader over
 * format/tfrecord.h and format/protobuf.h): every scalar and text handed
 * out must lie inside the input; a file cut inside its last record is no
 * error; anything else wrong is one line naming the file. */
#include "tests/fuzz/fuzz.h"

#include "format/tfevents.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
    const uint8_t *lo, *hi;
    uint64_t scalars, texts;
} span;

static void inside(const span *s, const void *p, size_t n, const char *what)
{
    const uint8_t *q = p;
    if (n && (q < s->lo || q + n > s->hi)) {
        fprintf(stderr, "fz_tfevents: a %s outside the input\n", what);
        abort();
    }
}

static int on_scalar(void *ctx, const tfevents_value *v)
{
    span *s = ctx;
    inside(s, v->tag, v->taglen, "tag");
    if (v->plugin)
        inside(s, v->plugin, v->pluginlen, "plugin name");
    if (v->kind != TFEV_SIMPLE && v->kind != TFEV_TENSOR) {
        fprintf(stderr, "fz_tfevents: a scalar of kind %d\n", v->kind);
        abort();
    }
    s->scalars++;
    return 0;
}

static int on_text(void *ctx, const tfevents_value *v)
{
    span *s = ctx;
    inside(s, v->tag, v->taglen, "tag");
    inside(s, v->text, v->textlen, "text");
    s->texts++;
    return 0;
}

static int on_restart(void *ctx, int64_t step)
{
    (void)ctx;
    (void)step;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    span s = {data, data + size, 0, 0};
    tfevents_sink sink = {&s, on_scalar, on_text, on_restart, NULL};
    tfevents_stats st;
    int rc = tfevents_read(fz_dir(), data, size, &sink, &st);
    fz_done(rc);
    if (rc == 0 && (st.scalars != s.scalars || st.texts != s.texts || (st.truncated && st.truncated_at >= size))) {
        fprintf(stderr, "fz_tfevents: the counts do not add up\n");
        abort();
    }
    return 0;
}
