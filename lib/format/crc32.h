/* CRC-32 of zip archives (and zlib, gzip, PNG): reflected polynomial
 * 0xEDB88320, initial value and final xor 0xFFFFFFFF, so that
 * crc32_update(0, "123456789", 9) == 0xCBF43926 -- the values of zlib's
 * crc32(), which it continues.
 *
 * Every stored entry of a .pt is checked against its CRC as its bytes are
 * read, so this runs over every byte of a tensor compare: zlib's table
 * code (about 2 GB/s a core) would cost more than the compare itself.
 * Where the CPU has a carry-less multiply (x86-64 PCLMULQDQ, and
 * VPCLMULQDQ on 512-bit registers where AVX-512 is there) the data is
 * folded 16 bytes (64 with AVX-512) at a time; on AArch64 the CRC32
 * instructions take 8 bytes each; elsewhere zlib's own crc32_z. All give
 * the same values (test_crc32 holds them to zlib). Thread-safe. */
#ifndef MSP_CRC32_H
#define MSP_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Continue a CRC: crc32_update(0, ...) starts one, and
 * crc32_update(crc32_update(0, a), b) == the CRC of a followed by b. */
uint32_t crc32_update(uint32_t crc, const void *data, size_t n);

/* The CRC of a followed by b from the CRC of a, the CRC of b and b's
 * length (zlib's crc32_combine): pieces checked on several threads, or out
 * of order, make the CRC of the whole. */
uint32_t crc32_join(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);

/* A part of a buffer whose CRC is known: [from, to) and its CRC. A reader
 * that checks while it reads (tensor.h's tensor_crc_*) keeps one per pass
 * over the data. */
typedef struct {
    size_t from, to;
    uint32_t crc;
} crc_run;

/* Feed n bytes at p to the run when they continue it (p is base + to);
 * anything else is left for crc32_fill. */
static inline void crc_run_feed(crc_run *r, const unsigned char *base, const unsigned char *p, size_t n)
{
    if (p == base + r->to) {
        r->crc = crc32_update(r->crc, p, n);
        r->to += n;
    }
}

/* The CRC of base[0, size) given runs already computed over parts of it,
 * in order of `from`: what they do not cover is computed now (a run that
 * starts before the previous one ended, or reaches past size, is not
 * used). */
uint32_t crc32_fill(const unsigned char *base, size_t size, const crc_run *runs, size_t nruns);

/* Which implementation crc32_update uses here: "vpclmulqdq", "pclmulqdq",
 * "armv8-crc" or "zlib" (for the benchmarks' record). */
const char *crc32_kind(void);

/* zlib's table code, for tests: every path must agree with it. */
uint32_t crc32_update_zlib(uint32_t crc, const void *data, size_t n);
/* The folding path forced (tests: 0 zlib, 1 the 16-byte fold, 2 the
 * 64-byte fold; a path the CPU lacks falls back to the one below it). */
uint32_t crc32_update_level(int level, uint32_t crc, const void *data, size_t n);

#endif
