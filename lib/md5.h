/*
 * md5.h - MD5 (RFC 1321), for the checksums an fstests golden output prints
 * (fstests' tests compare files with md5sum).  Not for anything that needs a
 * secure digest.
 */
#ifndef EXT4SIM_MD5_H
#define EXT4SIM_MD5_H

#include <stddef.h>
#include <stdint.h>

struct md5 {
	uint32_t h[4];
	uint64_t len;           /* bytes hashed */
	uint8_t buf[64];
	uint32_t used;          /* bytes in buf */
};

void md5_init(struct md5 *m);
void md5_update(struct md5 *m, const void *data, size_t len);
void md5_final(struct md5 *m, uint8_t out[16]);
/* Lower-case hex of a digest, NUL-terminated (33 bytes). */
void md5_hex(const uint8_t digest[16], char out[33]);

#endif
