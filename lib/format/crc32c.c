/* CRC-32C (crc32c.h): slicing-by-8 tables computed once, and the CPU's own
 * instruction when it has one. */
#include "format/crc32c.h"

#include <pthread.h>
#include <string.h>

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
#endif

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static int have_hw;

static void init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xFF];
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    have_hw = __builtin_cpu_supports("sse4.2");
#elif defined(__aarch64__) && defined(__linux__)
    have_hw = (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
#endif
}

uint32_t crc32c_update_soft(uint32_t crc, const void *data, size_t n)
{
    pthread_once(&table_once, init);
    const unsigned char *p = data;
    uint32_t c = ~crc;
    for (; n && ((uintptr_t)p & 7); n--)
        c = (c >> 8) ^ table[0][(c ^ *p++) & 0xFF];
    for (; n >= 8; n -= 8, p += 8) {
        uint32_t lo, hi;
        memcpy(&lo, p, 4);
        memcpy(&hi, p + 4, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        lo = __builtin_bswap32(lo);
        hi = __builtin_bswap32(hi);
#endif
        lo ^= c;
        c = table[7][lo & 0xFF] ^ table[6][(lo >> 8) & 0xFF] ^ table[5][(lo >> 16) & 0xFF] ^ table[4][lo >> 24] ^
            table[3][hi & 0xFF] ^ table[2][(hi >> 8) & 0xFF] ^ table[1][(hi >> 16) & 0xFF] ^ table[0][hi >> 24];
    }
    while (n--)
        c = (c >> 8) ^ table[0][(c ^ *p++) & 0xFF];
    return ~c;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("sse4.2"))) static uint32_t update_hw(uint32_t crc, const void *data, size_t n)
{
    const unsigned char *p = data;
    /* unaligned loads cost nothing here; records are short, so no
     * byte-by-byte run up to an aligned address */
    uint64_t c = ~crc;
    for (; n >= 8; n -= 8, p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        c = __builtin_ia32_crc32di(c, w);
    }
    while (n--)
        c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
    return ~(uint32_t)c;
}
#define HAVE_UPDATE_HW 1
#elif defined(__aarch64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
#include <arm_acle.h>
__attribute__((target("+crc"))) static uint32_t update_hw(uint32_t crc, const void *data, size_t n)
{
    const unsigned char *p = data;
    uint32_t c = ~crc;
    for (; n >= 8; n -= 8, p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        c = __crc32cd(c, w);
    }
    while (n--)
        c = __crc32cb(c, *p++);
    return ~c;
}
#define HAVE_UPDATE_HW 1
#endif

int crc32c_hardware(void)
{
    pthread_once(&table_once, init);
    return have_hw;
}

crc32c_fn crc32c_best(void)
{
    pthread_once(&table_once, init);
#ifdef HAVE_UPDATE_HW
    if (have_hw)
        return update_hw;
#endif
    return crc32c_update_soft;
}

uint32_t crc32c_update(uint32_t crc, const void *data, size_t n)
{
    pthread_once(&table_once, init);
#ifdef HAVE_UPDATE_HW
    if (have_hw)
        return update_hw(crc, data, n);
#endif
    return crc32c_update_soft(crc, data, n);
}
