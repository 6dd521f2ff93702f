/* ZIP archives as torch.save writes them, read from a buffer in place.
 *
 * Reading: the central directory is located from the end-of-central-
 * directory record (ZIP64 records too: sizes and offsets of 0xFFFFFFFF
 * are taken from the zip64 extra field), every entry is bounds-checked,
 * and an entry's data offset is computed from its *local* header (torch
 * pads the local extra field so data is 64-byte aligned; the central
 * directory does not show that padding).  Sizes come from the central
 * directory, so bit-3 data descriptors need no special handling.
 *
 * Stored entries (method 0) are returned in place, without a copy;
 * deflated entries (method 8) are inflated into a new buffer. Every
 * entry's CRC-32 is checked (torch does not: a flipped byte in a tensor
 * would be used silently); for a stored entry whose bytes a later pass
 * reads anyway (a tensor's elements), zip_read_unchecked leaves the check
 * to that pass (format/crc32.h, tensor.h's tensor_crc).  Before any
 * allocation the declared size is checked against the caller's limit and
 * the limits below, so a zip bomb is refused up front; an entry that
 * inflates to more or less than declared is an error.  Encrypted entries,
 * other methods and multi-disk archives are refused.
 *
 * (The writer is zip_write.h.)
 */
#ifndef MSP_ZIP_H
#define MSP_ZIP_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *name;       /* into the archive buffer, not NUL-terminated */
    size_t name_len;
    uint64_t comp_size, size, local_offset;
    uint32_t crc;
    uint16_t method, flags;
} zip_entry;

/* Limits of zip_read() on deflated entries, which it inflates into memory
 * (xlsx parts are inflated as a stream instead, see xmltok.h):
 *   - the output never exceeds the entry's declared size;
 *   - an entry may declare at most ZIP_MAX_RATIO times its compressed size
 *     (deflate itself reaches 1032:1, which let a 2 MB .pt claim 2.1 GB);
 *   - all deflated entries read from one archive together may declare at
 *     most ZIP_MAX_RATIO times the archive's size, so entries sharing their
 *     compressed bytes (an overlapping bomb) cannot multiply it either.
 * Entries up to ZIP_RATIO_FREE bytes are exempt from both ratios. Memory
 * for inflated data is thus at most 32 times the file's size (plus 1 MiB).
 * Over a limit: ERR_LIMIT naming the entry. torch.save stores its entries
 * uncompressed; deflated ones come only from re-zipping, and a tensor that
 * compresses better than 32:1 (mostly zeros) is refused: re-save it with
 * torch.save. */
#define ZIP_MAX_RATIO 32
#define ZIP_RATIO_FREE ((uint64_t)1 << 20)

typedef struct {
    const char *path;       /* for error messages (not owned) */
    const unsigned char *data;
    size_t size;
    zip_entry *entries;
    size_t count;
    uint64_t inflated;      /* bytes declared by the deflated entries read so far */
    size_t *sorted;         /* zip_index(): entry indexes in name order, else NULL */
} zip_archive;

/* Read the central directory of data[0..size).  The archive refers to
 * `data` and `path`; both must outlive it.  0 or -1 (error recorded). */
int zip_open(zip_archive *z, const char *path, const unsigned char *data, size_t size);
void zip_close(zip_archive *z);

/* Archives from unknown hands (config_check's packs, checkpoints): check
 * every entry before any is read, and index them by name.
 *   - at most max_entries entries (ERR_LIMIT);
 *   - names are relative paths without surprises: not empty, no leading
 *     '/', no "." or ".." component, no empty component ("a//b"; a final
 *     '/' marks a directory entry), no NUL or other control character
 *     (ERR_MALFORMED: Python's extraction would rewrite such a name, which
 *     is how a zip-slip archive writes outside its folder);
 *   - no name twice (ERR_MALFORMED: which of two entries counts is up to
 *     the reader, so the archive means different things to different tools);
 *   - entries declare at most max_entry bytes each and max_total together
 *     (0: no limit) (ERR_LIMIT), before the inflate limits above.
 * Then zip_find() searches the index (binary search). 0 or -1. */
#define ZIP_MAX_ENTRIES ((size_t)1 << 20)
int zip_index(zip_archive *z, size_t max_entries, uint64_t max_entry, uint64_t max_total);

/* First entry with exactly this name, or NULL. */
const zip_entry *zip_find(const zip_archive *z, const char *name, size_t name_len);

/* The uncompressed bytes of an entry.  Stored: *data points into the
 * archive and *owned is NULL.  Deflated: *data == *owned, a malloc'ed
 * buffer for the caller to free().  Entries declaring more than max_size
 * bytes are refused (0: no limit besides the ratios above), ERR_LIMIT. */
int zip_read(zip_archive *z, const zip_entry *e, size_t max_size, const unsigned char **data, size_t *size,
             void **owned);
/* The same, but a stored entry's CRC-32 is left to the caller: when
 * *owned is NULL, the caller must check crc32 of *data against e->crc
 * before it trusts the bytes (an inflated entry is checked here). */
int zip_read_unchecked(zip_archive *z, const zip_entry *e, size_t max_size, const unsigned char **data,
                       size_t *size, void **owned);

/* Record signatures and fixed lengths (APPNOTE 6.3). */
#define ZIP_SIG_LOCAL 0x04034b50u
#define ZIP_SIG_CENTRAL 0x02014b50u
#define ZIP_SIG_EOCD 0x06054b50u
#define ZIP_SIG_EOCD64 0x06064b50u
#define ZIP_SIG_LOCATOR64 0x07064b50u

#define ZIP_EOCD_LEN 22
#define ZIP_LOCATOR64_LEN 20
#define ZIP_EOCD64_LEN 56
#define ZIP_CENTRAL_LEN 46
#define ZIP_LOCAL_LEN 30

#endif
