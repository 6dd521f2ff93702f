/* CRC-32C (Castagnoli): the checksum of TFRecord framing (TensorBoard event
 * files) and of other formats that need it. Reflected polynomial
 * 0x82F63B78, initial value and final xor 0xFFFFFFFF, so that
 * crc32c("123456789") == 0xE3069283.
 *
 * Event files checksum every byte they hold (about four times the csv they
 * come from), so the hardware instruction is used where the CPU has it
 * (x86-64 SSE4.2, AArch64 CRC32), found at run time; elsewhere a
 * slicing-by-8 table. Both give the same values. Thread-safe. */
#ifndef MSP_CRC32C_H
#define MSP_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Continue a CRC: crc32c_update(0, ...) starts one, and
 * crc32c_update(crc32c_update(0, a), b) == crc of a followed by b. */
uint32_t crc32c_update(uint32_t crc, const void *data, size_t n);
static inline uint32_t crc32c(const void *data, size_t n) { return crc32c_update(0, data, n); }

/* TFRecord's masked form: rotate right by 15, add 0xA282EAD8. */
static inline uint32_t crc32c_mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xA282EAD8u; }

/* The implementation crc32c_update uses on this CPU, to call it directly
 * where a call per few bytes matters (TFRecord framing). */
typedef uint32_t (*crc32c_fn)(uint32_t crc, const void *data, size_t n);
crc32c_fn crc32c_best(void);

/* The table version alone (for tests: both must agree). */
uint32_t crc32c_update_soft(uint32_t crc, const void *data, size_t n);
/* Whether crc32c_update uses the CPU's instruction. */
int crc32c_hardware(void);

#endif
