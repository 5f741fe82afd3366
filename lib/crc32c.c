/*
 * crc32c.c - CRC-32C: the SSE 4.2 crc32 instruction where the processor has
 * it (x86-64, as the kernel's crc32c-intel), else slicing-by-8 (eight
 * 256-entry tables, built on the first call from the polynomial: no table is
 * written by hand).  Both paths compute the same function
 * (tests/unit/test_jbd2.c compares each with a bit-by-bit CRC), so the
 * choice changes no output.
 */
#include "crc32c.h"

#include <stdbool.h>
#include <string.h>

#define CRC32C_POLY 0x82f63b78u

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the slices read little-endian words");

static uint32_t crc32c_table[8][256];
static bool tables_built;

static void build_tables(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ ((c & 1) ? CRC32C_POLY : 0);
		crc32c_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc32c_table[t][i] = (crc32c_table[t - 1][i] >> 8) ^
					     crc32c_table[0][crc32c_table[t - 1][i] & 0xff];
	tables_built = true;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The same CRC by the crc32 instruction, 8 bytes at a time. */
__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t crc, const uint8_t *p,
							    size_t len)
{
	uint64_t c = crc, w;

	for (; len && ((uintptr_t)p & 7); len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	for (; len >= 8; len -= 8, p += 8) {
		memcpy(&w, p, 8);
		c = __builtin_ia32_crc32di(c, w);
	}
	while (len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return (uint32_t)c;
}

static int have_hw = -1;        /* -1: not asked yet */
#endif

uint32_t crc32c(uint32_t crc, const void *buf, size_t len)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (have_hw < 0) {
		__builtin_cpu_init();
		have_hw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
	}
	if (have_hw)
		return crc32c_hw(crc, buf, len);
#endif
	return crc32c_sw(crc, buf, len);
}

uint32_t crc32c_sw(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (!tables_built)
		build_tables();
	for (; len && ((uintptr_t)p & 7); len--)
		crc = (crc >> 8) ^ crc32c_table[0][(crc ^ *p++) & 0xff];
	for (; len >= 8; len -= 8, p += 8) {
		uint32_t lo, hi;

		memcpy(&lo, p, 4);      /* little-endian words (asserted above) */
		memcpy(&hi, p + 4, 4);
		lo ^= crc;
		crc = crc32c_table[7][lo & 0xff] ^ crc32c_table[6][(lo >> 8) & 0xff] ^
		      crc32c_table[5][(lo >> 16) & 0xff] ^ crc32c_table[4][lo >> 24] ^
		      crc32c_table[3][hi & 0xff] ^ crc32c_table[2][(hi >> 8) & 0xff] ^
		      crc32c_table[1][(hi >> 16) & 0xff] ^ crc32c_table[0][hi >> 24];
	}
	while (len--)
		crc = (crc >> 8) ^ crc32c_table[0][(crc ^ *p++) & 0xff];
	return crc;
}
