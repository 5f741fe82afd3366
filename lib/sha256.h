/*
 * sha256.h - SHA-256 (FIPS 180-4), for the content digests of crash states.
 */
#ifndef EXT4SIM_SHA256_H
#define EXT4SIM_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t len;           /* bytes hashed */
	uint8_t buf[64];
	uint32_t used;          /* bytes in buf */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, uint8_t out[32]);
/* Lower-case hex of a digest, NUL-terminated (65 bytes). */
void sha256_hex(const uint8_t digest[32], char out[65]);

#endif
