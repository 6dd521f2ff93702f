/* config_check's packs (spec/configcheck.md §A.2): the zips msprobe's
 * ConfigChecker writes (and `config_check -d`), read in place from their
 * mapping, never extracted. And the sheets the checkers fill.
 *
 * An entry "dir/file" stands for the file msprobe extracts; a folder
 * "exists" when some entry lies below it (extraction creates it). Before
 * anything is read, every name is checked (zip_index: no absolute or ".."
 * paths, no name twice, at most ZIP_MAX_ENTRIES entries, each declaring at
 * most 1 GiB and all together 10 GiB -- msprobe's own limits), and entries
 * are inflated within zip.h's ratio limits. */
#ifndef MSP_CC_PACK_H
#define MSP_CC_PACK_H

#include <stddef.h>

#include "base/arena.h"
#include "base/files.h"
#include "base/value.h"
#include "format/zip.h"
#include "model/table.h"

#define PACK_MAX_ENTRY ((uint64_t)1 << 30)
#define PACK_MAX_TOTAL ((uint64_t)10 << 30)

typedef struct {
    const char *path;
    mapped_file f;
    zip_archive z;
    file_guard guard;
} pack;

/* Map and index a pack; reads of it are guarded until pack_close (close
 * packs in the reverse order of opening, on the same thread). 0 or -1. */
int pack_open(pack *p, const char *path);
/* -1 (ERR_CHANGED recorded) when the file changed while it was read. */
int pack_close(pack *p);

/* The entry called name (a file, not a folder entry), or NULL. */
const zip_entry *pack_file(const pack *p, const char *name);
/* Does name exist as a file or as a folder? */
int pack_exists(const pack *p, const char *name);
/* The files below folder `dir` ("weights"), in name order: entry pointers
 * into *out (malloc'ed), their count returned. */
size_t pack_files_under(const pack *p, const char *dir, const zip_entry ***out);

/* An entry's bytes (inflated when deflated): *data valid until *owned is
 * freed (NULL when the data lies in the mapping). 0 or -1. */
int pack_read(pack *p, const zip_entry *e, const unsigned char **data, size_t *size, void **owned);
/* An entry parsed as JSON (Python's json.load), values in `a`. Errors name
 * "PACK.zip:entry". 0 or -1. */
int pack_json(pack *p, const zip_entry *e, arena *a, jval *out);
/* "PACK.zip:name" for messages, in `a`. */
const char *pack_where(const pack *p, const char *name, size_t len, arena *a);

/* One result sheet: a header and typed cells (the strings in the compare's
 * arena), and whether the checker passed. */
typedef struct {
    const char *name;              /* sheet name and the summary's filename */
    const char *const *header;
    int ncols;
    cell *cells;                   /* nrows * ncols */
    size_t nrows, cap;
    int pass;
} cc_sheet;

void sheet_init(cc_sheet *s, const char *name, const char *const *header, int ncols);
void sheet_row(cc_sheet *s, const cell *row);
void sheet_free(cc_sheet *s);

/* Everything a checker needs. */
typedef struct {
    pack *bench, *cmp;
    arena *a;                      /* cell strings, parsed JSON */
    int framework;                 /* 'm' for mindspore, else pytorch */
} cc_ctx;

/* Cells of Python values as pandas' to_excel writes them: str as text
 * (empty text: an empty cell), bool as a boolean, int/float as a number
 * (NaN: empty, +-inf: "inf"/"-inf"), None as empty, a list or dict as its
 * Python str(). Strings are copied into the arena. */
cell cc_text(cc_ctx *c, const char *s, size_t n);
cell cc_value(cc_ctx *c, const jval *v);
cell cc_number(double x);

/* Python int(s) of a directory name with a part removed (msprobe's
 * int("step12".replace("step", ""))): 0 and *out, or -1 when Python would
 * raise. */
int cc_int_of(const char *s, size_t n, const char *remove, long long *out);

/* The checkers, in msprobe's order (§A.5-§A.6). Each returns 1 with *out
 * filled when it ran, 0 when its entries are not in both packs (no sheet,
 * no summary row), -1 on error. */
int check_env(cc_ctx *c, cc_sheet *out);
int check_pip(cc_ctx *c, cc_sheet *out);
int check_dataset(cc_ctx *c, cc_sheet *out);
int check_weights(cc_ctx *c, cc_sheet *out);
int check_hyper(cc_ctx *c, cc_sheet *out);
int check_random(cc_ctx *c, cc_sheet *out);

#endif
