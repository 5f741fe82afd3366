/*
 * md5.c - a plain MD5 (RFC 1321, one 64-byte block at a time).
 */
#include "md5.h"

#include <stdio.h>
#include <string.h>

/* floor(abs(sin(i + 1)) * 2^32) */
static const uint32_t T[64] = {
	0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613,
	0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193,
	0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d,
	0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
	0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122,
	0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
	0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244,
	0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
	0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
	0xeb86d391,
};

/* Per-round left rotations, four per round. */
static const uint8_t S[4][4] = {
	{ 7, 12, 17, 22 }, { 5, 9, 14, 20 }, { 4, 11, 16, 23 }, { 6, 10, 15, 21 },
};

static uint32_t rol(uint32_t x, unsigned n)
{
	return (x << n) | (x >> (32 - n));
}

static void md5_block(struct md5 *m, const uint8_t *p)
{
	uint32_t x[16], a = m->h[0], b = m->h[1], c = m->h[2], d = m->h[3];

	for (int i = 0; i < 16; i++)
		x[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 |
		       (uint32_t)p[4 * i + 2] << 16 | (uint32_t)p[4 * i + 3] << 24;
	for (int i = 0; i < 64; i++) {
		uint32_t f, t;
		int g, r = i / 16;

		switch (r) {
		case 0: f = (b & c) | (~b & d); g = i; break;
		case 1: f = (d & b) | (~d & c); g = (5 * i + 1) % 16; break;
		case 2: f = b ^ c ^ d; g = (3 * i + 5) % 16; break;
		default: f = c ^ (b | ~d); g = (7 * i) % 16; break;
		}
		t = d;
		d = c;
		c = b;
		b = b + rol(a + f + T[i] + x[g], S[r][i % 4]);
		a = t;
	}
	m->h[0] += a;
	m->h[1] += b;
	m->h[2] += c;
	m->h[3] += d;
}

void md5_init(struct md5 *m)
{
	static const uint32_t h0[4] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476 };

	memcpy(m->h, h0, sizeof(h0));
	m->len = 0;
	m->used = 0;
}

void md5_update(struct md5 *m, const void *data, size_t len)
{
	const uint8_t *p = data;

	m->len += len;
	while (len > 0) {
		size_t n = 64 - m->used;

		if (n > len)
			n = len;
		memcpy(m->buf + m->used, p, n);
		m->used += (uint32_t)n;
		p += n;
		len -= n;
		if (m->used == 64) {
			md5_block(m, m->buf);
			m->used = 0;
		}
	}
}

void md5_final(struct md5 *m, uint8_t out[16])
{
	uint64_t bits = m->len * 8;
	static const uint8_t pad[64] = { 0x80 };
	uint8_t lenb[8];

	/* 0x80, then zeros up to 56 bytes into a block, in one update */
	md5_update(m, pad, m->used < 56 ? 56 - m->used : 120 - m->used);
	for (int i = 0; i < 8; i++)
		lenb[i] = (uint8_t)(bits >> (8 * i));
	md5_update(m, lenb, 8);
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < 4; k++)
			out[4 * i + k] = (uint8_t)(m->h[i] >> (8 * k));
}

void md5_hex(const uint8_t digest[16], char out[33])
{
	for (int i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", digest[i]);
}
