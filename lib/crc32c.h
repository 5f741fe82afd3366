/*
 * crc32c.h - CRC-32C (Castagnoli, reflected polynomial 0x82f63b78), the
 * checksum of ext4's metadata_csum and of jbd2's csum v2/v3.
 *
 * crc32c() continues @crc over @len bytes and returns it without the final
 * inversion, as the kernel's crc32c_le() / ext4_chksum() and e2fsprogs'
 * ext2fs_crc32c_le() do: a checksum starts from ~0 (or from a seed that was
 * itself such a value) and is stored as returned.
 */
#ifndef EXT4SIM_CRC32C_H
#define EXT4SIM_CRC32C_H

#include <stddef.h>
#include <stdint.h>

uint32_t crc32c(uint32_t crc, const void *buf, size_t len);
/* The same by tables alone (what crc32c uses without SSE 4.2; for its test). */
uint32_t crc32c_sw(uint32_t crc, const void *buf, size_t len);

#endif
