/* The zip reader of zip.h. zip_open reads the central directory once into
 * an entry table (names point into the buffer); nothing else is scanned
 * until an entry is asked for. Callers that look up many entries by name
 * (a checkpoint's storages, a config_check pack) call zip_index, which
 * also refuses names that could point outside a folder, entries declaring
 * more than the caller's limits, and a name given twice, then finds
 * entries by binary search; a torch.save file of three entries is searched
 * linearly. Each check names the archive and the entry.
 */
#include "format/zip.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/le.h"
#include "base/strbuf.h"
#include "format/crc32.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>


/* Is [off, off+len) inside [0, limit)? */
static int fits(uint64_t off, uint64_t len, uint64_t limit) { return off <= limit && len <= limit - off; }

static int find_eocd(const zip_archive *z, size_t *at)
{
    if (z->size < ZIP_EOCD_LEN)
        return err_input(z->path, "not a zip archive: too short for an end-of-central-directory record");
    size_t lowest = z->size - ZIP_EOCD_LEN > 0xffff ? z->size - ZIP_EOCD_LEN - 0xffff : 0;
    for (size_t p = z->size - ZIP_EOCD_LEN + 1; p-- > lowest;) {
        if (le_get32(z->data + p) == ZIP_SIG_EOCD && p + ZIP_EOCD_LEN + le_get16(z->data + p + 20) <= z->size) {
            *at = p;
            return 0;
        }
    }
    return err_input(z->path, "not a zip archive: no end-of-central-directory record");
}

/* Fill in count, cd offset and size, from the zip64 records when present. */
static int read_end_records(const zip_archive *z, size_t eocd, uint64_t *count, uint64_t *cd_off, uint64_t *cd_size,
                            uint64_t *cd_limit)
{
    const unsigned char *e = z->data + eocd;
    if (le_get16(e + 4) != 0 || (le_get16(e + 6) != 0 && le_get16(e + 6) != 0xffff))
        return err_input(z->path, "multi-disk zip archives are not supported");
    *count = le_get16(e + 10);
    *cd_size = le_get32(e + 12);
    *cd_off = le_get32(e + 16);
    *cd_limit = eocd;
    if (eocd >= ZIP_LOCATOR64_LEN && le_get32(z->data + eocd - ZIP_LOCATOR64_LEN) == ZIP_SIG_LOCATOR64) {
        const unsigned char *loc = z->data + eocd - ZIP_LOCATOR64_LEN;
        uint64_t off = le_get64(loc + 8);
        if (le_get32(loc + 4) != 0 || le_get32(loc + 16) > 1)
            return err_input(z->path, "multi-disk zip archives are not supported");
        if (!fits(off, ZIP_EOCD64_LEN, eocd - ZIP_LOCATOR64_LEN) || le_get32(z->data + off) != ZIP_SIG_EOCD64)
            return err_input(z->path, "corrupt zip archive: bad zip64 end-of-central-directory offset");
        const unsigned char *e64 = z->data + off;
        if (le_get32(e64 + 16) != 0 || le_get32(e64 + 20) != 0)
            return err_input(z->path, "multi-disk zip archives are not supported");
        *count = le_get64(e64 + 32);
        *cd_size = le_get64(e64 + 40);
        *cd_off = le_get64(e64 + 48);
        *cd_limit = off;
    } else if (*count == 0xffff || *cd_size == 0xffffffffu || *cd_off == 0xffffffffu) {
        return err_input(z->path, "corrupt zip archive: zip64 values without a zip64 end record");
    }
    if (!fits(*cd_off, *cd_size, *cd_limit))
        return err_input(z->path, "corrupt zip archive: central directory (offset %llu, %llu bytes) lies outside "
                                  "the file", (unsigned long long)*cd_off, (unsigned long long)*cd_size);
    if (*count > *cd_size / ZIP_CENTRAL_LEN)
        return err_input(z->path, "corrupt zip archive: %llu entries cannot fit in a %llu-byte central directory",
                         (unsigned long long)*count, (unsigned long long)*cd_size);
    return 0;
}

/* Replace 0xFFFFFFFF fields by their zip64 extra-field values. */
static int apply_zip64(const zip_archive *z, const unsigned char *extra, size_t xlen, zip_entry *e, int need_size,
                       int need_csize, int need_off)
{
    size_t p = 0;
    while (p + 4 <= xlen) {
        uint16_t id = le_get16(extra + p), len = le_get16(extra + p + 2);
        if (len > xlen - p - 4)
            return err_input(z->path, "corrupt zip archive: extra field of '%.*s' overruns its header",
                             (int)e->name_len, e->name);
        if (id == 0x0001) {
            const unsigned char *f = extra + p + 4, *end = f + len;
            if (need_size) {
                if (end - f < 8)
                    break;
                e->size = le_get64(f);
                f += 8;
                need_size = 0;
            }
            if (need_csize) {
                if (end - f < 8)
                    break;
                e->comp_size = le_get64(f);
                f += 8;
                need_csize = 0;
            }
            if (need_off) {
                if (end - f < 8)
                    break;
                e->local_offset = le_get64(f);
                need_off = 0;
            }
        }
        p += 4 + (size_t)len;
    }
    if (need_size || need_csize || need_off)
        return err_input(z->path, "corrupt zip archive: entry '%.*s' lacks its zip64 sizes", (int)e->name_len,
                         e->name);
    return 0;
}

int zip_open(zip_archive *z, const char *path, const unsigned char *data, size_t size)
{
    memset(z, 0, sizeof *z);
    z->path = path;
    z->data = data;
    z->size = size;
    size_t eocd = 0;
    uint64_t count = 0, cd_off = 0, cd_size = 0, cd_limit = 0;
    if (find_eocd(z, &eocd) != 0 || read_end_records(z, eocd, &count, &cd_off, &cd_size, &cd_limit) != 0)
        return -1;
    z->entries = xcalloc(count ? (size_t)count : 1, sizeof *z->entries);
    const unsigned char *p = data + cd_off, *end = p + cd_size;
    for (uint64_t i = 0; i < count; i++) {
        if (end - p < ZIP_CENTRAL_LEN || le_get32(p) != ZIP_SIG_CENTRAL)
            goto corrupt;
        size_t nlen = le_get16(p + 28), xlen = le_get16(p + 30), clen = le_get16(p + 32);
        if ((size_t)(end - p) - ZIP_CENTRAL_LEN < nlen + xlen + clen)
            goto corrupt;
        zip_entry *e = &z->entries[i];
        e->flags = le_get16(p + 8);
        e->method = le_get16(p + 10);
        e->crc = le_get32(p + 16);
        e->comp_size = le_get32(p + 20);
        e->size = le_get32(p + 24);
        e->local_offset = le_get32(p + 42);
        e->name = (const char *)p + ZIP_CENTRAL_LEN;
        e->name_len = nlen;
        if (le_get16(p + 34) != 0 && le_get16(p + 34) != 0xffff) {
            zip_close(z);
            return err_input(path, "multi-disk zip archives are not supported");
        }
        if (apply_zip64(z, p + ZIP_CENTRAL_LEN + nlen, xlen, e, e->size == 0xffffffffu, e->comp_size == 0xffffffffu,
                        e->local_offset == 0xffffffffu) != 0) {
            zip_close(z);
            return -1;
        }
        z->count++;
        p += ZIP_CENTRAL_LEN + nlen + xlen + clen;
    }
    return 0;
corrupt:
    zip_close(z);
    return err_input(path, "corrupt zip archive: bad central directory entry");
}

void zip_close(zip_archive *z)
{
    free(z->entries);
    free(z->sorted);
    z->entries = NULL;
    z->sorted = NULL;
    z->count = 0;
}

/* Name order: bytes, then length (a prefix first). */
static int name_cmp(const char *a, size_t an, const char *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    return c ? c : (an > bn) - (an < bn);
}

/* Merge sort of entry indexes by name: qsort would need a global for the
 * entries, which threads reading other archives must not share. */
static void sort_indexes(const zip_entry *e, size_t *v, size_t *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    sort_indexes(e, v, tmp, h);
    sort_indexes(e, v + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = name_cmp(e[v[j]].name, e[v[j]].name_len, e[v[i]].name, e[v[i]].name_len) < 0 ? v[j++] : v[i++];
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

/* Why a name is refused, or NULL. */
static const char *bad_name(const char *s, size_t n)
{
    if (n == 0)
        return "an empty name";
    if (s[0] == '/')
        return "an absolute path";
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && ((unsigned char)s[i] < 0x20 || s[i] == 0x7f))
            return "a control character in its name";
        if (i < n && s[i] != '/')
            continue;
        size_t len = i - start;
        if (len == 0 && i < n)
            return "an empty path component";
        if (len == 2 && s[start] == '.' && s[start + 1] == '.')
            return "a '..' component (it would point outside its folder)";
        if (len == 1 && s[start] == '.')
            return "a '.' component";
        start = i + 1;
    }
    return NULL;
}

int zip_index(zip_archive *z, size_t max_entries, uint64_t max_entry, uint64_t max_total)
{
    if (z->count > max_entries)
        return err_set(ERR_LIMIT, z->path, "zip archive has %zu entries, more than the %zu allowed", z->count,
                       max_entries);
    uint64_t total = 0;
    for (size_t i = 0; i < z->count; i++) {
        const zip_entry *e = &z->entries[i];
        const char *why = bad_name(e->name, e->name_len);
        if (why) {
            strbuf shown = STRBUF_INIT;
            for (size_t k = 0; k < e->name_len && k < 200; k++) {
                unsigned char c = (unsigned char)e->name[k];
                if (c < 0x20 || c == 0x7f)
                    sb_addf(&shown, "\\x%02x", c);
                else
                    sb_addc(&shown, (char)c);
            }
            int rc = err_input(z->path, "zip entry '%s' is refused: %s", sb_str(&shown), why);
            sb_free(&shown);
            return rc;
        }
        if (max_entry && e->size > max_entry)
            return err_set(ERR_LIMIT, z->path, "zip entry '%.*s' declares %llu bytes, more than the %llu allowed",
                           (int)e->name_len, e->name, (unsigned long long)e->size, (unsigned long long)max_entry);
        total += e->size;
        if (max_total && total > max_total)
            return err_set(ERR_LIMIT, z->path, "zip entries declare more than %llu bytes together (a zip bomb?)",
                           (unsigned long long)max_total);
    }
    size_t *v = xmalloc_array(z->count ? z->count : 1, sizeof *v), *tmp = xmalloc_array(z->count ? z->count : 1,
                                                                                              sizeof *tmp);
    for (size_t i = 0; i < z->count; i++)
        v[i] = i;
    sort_indexes(z->entries, v, tmp, z->count);
    free(tmp);
    for (size_t i = 1; i < z->count; i++) {
        const zip_entry *a = &z->entries[v[i - 1]], *b = &z->entries[v[i]];
        if (name_cmp(a->name, a->name_len, b->name, b->name_len) == 0) {
            free(v);
            return err_input(z->path, "zip entry '%.*s' appears twice (an archive appended to twice?); refused "
                                      "rather than guessing which one counts", (int)a->name_len, a->name);
        }
    }
    free(z->sorted);
    z->sorted = v;
    return 0;
}

const zip_entry *zip_find(const zip_archive *z, const char *name, size_t name_len)
{
    if (z->sorted) {
        size_t lo = 0, hi = z->count;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            const zip_entry *e = &z->entries[z->sorted[mid]];
            int c = name_cmp(e->name, e->name_len, name, name_len);
            if (c == 0)
                return e;
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        return NULL;
    }
    for (size_t i = 0; i < z->count; i++)
        if (z->entries[i].name_len == name_len && memcmp(z->entries[i].name, name, name_len) == 0)
            return &z->entries[i];
    return NULL;
}

static int inflate_entry(const zip_archive *z, const zip_entry *e, const unsigned char *src, unsigned char *dst)
{
    z_stream s;
    memset(&s, 0, sizeof s);
    if (inflateInit2(&s, -MAX_WBITS) != Z_OK)
        return err_internal(z->path, "cannot initialise zlib");
    uint64_t in_left = e->comp_size, out_left = e->size;
    s.next_in = (unsigned char *)src;
    s.next_out = dst;
    int rc = Z_OK;
    while (rc == Z_OK) {
        /* zlib counts in 32 bits; feed big entries piecewise. */
        if (s.avail_in == 0) {
            s.avail_in = in_left > 0x40000000u ? 0x40000000u : (uInt)in_left;
            in_left -= s.avail_in;
        }
        if (s.avail_out == 0) {
            s.avail_out = out_left > 0x40000000u ? 0x40000000u : (uInt)out_left;
            out_left -= s.avail_out;
        }
        rc = inflate(&s, Z_NO_FLUSH);
    }
    const char *msg = s.msg;
    int input_used_up = s.avail_in == 0 && in_left == 0;
    uint64_t produced = e->size - out_left - s.avail_out;
    inflateEnd(&s);
    const char *nm = e->name;
    int nl = (int)e->name_len;
    if (rc == Z_STREAM_END && produced == e->size)
        return 0;
    if (rc == Z_STREAM_END)
        return err_input(z->path, "zip entry '%.*s' inflates to %llu bytes, %llu were declared", nl, nm,
                         (unsigned long long)produced, (unsigned long long)e->size);
    if (rc == Z_BUF_ERROR && input_used_up)
        return err_input(z->path, "zip entry '%.*s' is truncated: its deflate stream ends early", nl, nm);
    if (rc == Z_BUF_ERROR)
        return err_input(z->path, "zip entry '%.*s' inflates to more than its declared %llu bytes", nl, nm,
                         (unsigned long long)e->size);
    return err_input(z->path, "zip entry '%.*s' has corrupt deflate data (%s)", nl, nm, msg ? msg : "zlib error");
}

int zip_read_unchecked(zip_archive *z, const zip_entry *e, size_t max_size, const unsigned char **data,
                       size_t *size, void **owned)
{
    *data = NULL;
    *size = 0;
    *owned = NULL;
    const char *nm = e->name;
    int nl = (int)e->name_len;
    if (e->flags & 1)
        return err_input(z->path, "zip entry '%.*s' is encrypted", nl, nm);
    if (e->method != 0 && e->method != 8)
        return err_input(z->path, "zip entry '%.*s' uses compression method %u; only stored and deflated are "
                                  "supported", nl, nm, e->method);
    if (!fits(e->local_offset, ZIP_LOCAL_LEN, z->size) || le_get32(z->data + e->local_offset) != ZIP_SIG_LOCAL)
        return err_input(z->path, "corrupt zip archive: bad local header offset for '%.*s'", nl, nm);
    const unsigned char *lh = z->data + e->local_offset;
    uint64_t start = e->local_offset + ZIP_LOCAL_LEN + le_get16(lh + 26) + le_get16(lh + 28);
    if (le_get16(lh + 26) != e->name_len || !fits(e->local_offset + ZIP_LOCAL_LEN, e->name_len, z->size)
        || memcmp(lh + ZIP_LOCAL_LEN, e->name, e->name_len) != 0)
        return err_input(z->path, "corrupt zip archive: local header of '%.*s' does not match the central directory",
                         nl, nm);
    if (!fits(start, e->comp_size, z->size))
        return err_input(z->path, "corrupt zip archive: data of '%.*s' (%llu bytes at offset %llu) lies outside the "
                                  "file", nl, nm, (unsigned long long)e->comp_size, (unsigned long long)start);
    if (max_size && e->size > max_size)
        return err_set(ERR_LIMIT, z->path, "zip entry '%.*s' is too large (%llu bytes, the limit is %zu)", nl, nm,
                       (unsigned long long)e->size, max_size);
    if (e->method == 0) {
        if (e->comp_size != e->size)
            return err_input(z->path, "corrupt zip archive: stored entry '%.*s' has different sizes", nl, nm);
        *data = z->data + start;
        *size = (size_t)e->size;
        return 0;
    }
    if (e->size > SIZE_MAX / 2 || (e->size > ZIP_RATIO_FREE && e->size / ZIP_MAX_RATIO > e->comp_size))
        return err_set(ERR_LIMIT, z->path, "zip entry '%.*s' would inflate %llu bytes to %llu, more than %d times "
                                           "(a zip bomb?); refused", nl, nm, (unsigned long long)e->comp_size,
                       (unsigned long long)e->size, ZIP_MAX_RATIO);
    uint64_t budget = (uint64_t)z->size * ZIP_MAX_RATIO;
    if (e->size > ZIP_RATIO_FREE && z->inflated + e->size > budget)
        return err_set(ERR_LIMIT, z->path, "zip entries would inflate to more than %d times the archive's %zu bytes "
                                           "(a zip bomb?); refused at '%.*s'", ZIP_MAX_RATIO, z->size, nl, nm);
    z->inflated += e->size;
    /* The size comes from the file: running out of memory here is the
     * input's fault, reported as such rather than aborting. */
    unsigned char *buf = malloc(e->size ? (size_t)e->size : 1);
    if (!buf)
        return err_input(z->path, "zip entry '%.*s' needs %llu bytes when inflated; not enough memory", nl, nm,
                         (unsigned long long)e->size);
    if (inflate_entry(z, e, z->data + start, buf) != 0) {
        free(buf);
        return -1;
    }
    if (crc32_update(0, buf, (size_t)e->size) != e->crc) {
        free(buf);
        return err_input(z->path, "zip entry '%.*s' fails its CRC-32 check (the archive is damaged)", nl, nm);
    }
    *data = buf;
    *owned = buf;
    *size = (size_t)e->size;
    return 0;
}

int zip_read(zip_archive *z, const zip_entry *e, size_t max_size, const unsigned char **data, size_t *size,
             void **owned)
{
    if (zip_read_unchecked(z, e, max_size, data, size, owned) != 0)
        return -1;
    if (!*owned && crc32_update(0, *data, *size) != e->crc) {
        *data = NULL;
        *size = 0;
        return err_input(z->path, "zip entry '%.*s' fails its CRC-32 check (the archive is damaged)",
                         (int)e->name_len, e->name);
    }
    return 0;
}

