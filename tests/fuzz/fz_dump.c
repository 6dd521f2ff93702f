/* The dump.json loader (model/dump.h): msprobe 8.1.0's rows and msprobe
 * 8.3's first-diff rows, from a dump.json and a debug.json (the file type
 * comes from the name). Every row it keeps must be a complete row, and the
 * entries read straight from the text (model/dump_stream.c) must give what
 * the tree walk gives (DUMP_TREE_WALK): the same rows, entries, md5 flag,
 * or the same error. */
#include "tests/fuzz/fuzz.h"

#include "model/dump.h"
#include "base/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int same_text(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

static int same_stat(const pyval *a, const pyval *b)
{
    return a->kind == b->kind && a->wide_int == b->wide_int && a->pd_ok == b->pd_ok && a->len == b->len &&
           !memcmp(&a->num, &b->num, sizeof a->num) && !memcmp(&a->pd_num, &b->pd_num, sizeof a->pd_num) &&
           (a->text == b->text || (a->text && b->text && !memcmp(a->text, b->text, a->len)));
}

static void differ(const char *what)
{
    fprintf(stderr, "fz_dump: read straight from the text and by the tree walk, %s differ\n", what);
    abort();
}

static void same_as_tree(const char *path, int rc, const dump_data *d, const char *msg)
{
    dump_data t;
    int rt = dump_load_ex(path, DUMP_TREE_WALK, &t);
    if (rt != rc)
        differ("the outcomes");
    if (rc != 0) {
        if (strcmp(msg, err_message()) != 0)
            differ("the errors");
    } else {
        if (t.nrows != d->nrows || t.nentries != d->nentries || t.has_md5 != d->has_md5)
            differ("the counts");
        for (size_t e = 0; e < d->nentries; e++)
            if (strcmp(t.entries[e].name, d->entries[e].name) || t.entries[e].first_row != d->entries[e].first_row ||
                t.entries[e].nrows != d->entries[e].nrows)
                differ("the entries");
        for (size_t i = 0; i < d->nrows; i++) {
            const dump_row *a = &d->rows[i], *b = &t.rows[i];
            if (!same_text(a->name, b->name) || !same_text(a->dtype, b->dtype) || !same_text(a->shape, b->shape) ||
                !same_text(a->md5, b->md5) || !same_text(a->data_name, b->data_name) || a->entry != b->entry ||
                a->state != b->state || a->flags != b->flags || a->api_len != b->api_len)
                differ("the rows");
            for (int k = 0; k < 4; k++) {
                pyval pa = dump_stat(a, k), pb = dump_stat(b, k);
                if (!same_stat(&pa, &pb))
                    differ("the statistics");
            }
        }
    }
    fz_done(rt);
    dump_free(&t);
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
        char *msg = strdup(err_message());
        fz_done(rc);
        if (flags == 0)
            same_as_tree(own, rc, &d, msg);
        free(msg);
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
