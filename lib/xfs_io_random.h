/*
 * xfs_io_random.h - the C library's random(3) as xfs_io's `pwrite -R -Z N`
 * draws its offsets from it: glibc's default generator (TYPE_3, an additive
 * feedback generator of 31 words with a tap at 3, seeded by srandom() with
 * the Park-Miller "minimal standard" sequence, its first 310 outputs
 * discarded).  This is not a generator of the program's own (lib/prng.h is
 * the only one): it reproduces a sequence an outside tool draws, so that a
 * scenario step writes where the real command writes.  The same seed gives
 * the same offsets as glibc's srandom(seed) and random() on any host.
 */
#ifndef EXT4SIM_XFS_IO_RANDOM_H
#define EXT4SIM_XFS_IO_RANDOM_H

#include <stdint.h>

#define GLIBC_RANDOM_DEG 31     /* words of state (TYPE_3) */
#define GLIBC_RANDOM_SEP 3      /* distance of the second tap */

struct glibc_random {
	int32_t r_state[GLIBC_RANDOM_DEG];
	unsigned r_front, r_rear;   /* glibc's fptr and rptr, as indexes */
};

/* random(): the next value, 0..2^31-1. */
static inline int32_t glibc_random(struct glibc_random *g)
{
	uint32_t v = (uint32_t)g->r_state[g->r_front] + (uint32_t)g->r_state[g->r_rear];

	g->r_state[g->r_front] = (int32_t)v;
	g->r_front = (g->r_front + 1) % GLIBC_RANDOM_DEG;
	g->r_rear = (g->r_rear + 1) % GLIBC_RANDOM_DEG;
	return (int32_t)(v >> 1);
}

/* srandom(@seed) (0 is taken as 1, as glibc does). */
static inline void glibc_srandom(struct glibc_random *g, uint32_t seed)
{
	int32_t word = seed ? (int32_t)seed : 1;

	g->r_state[0] = word;
	for (unsigned i = 1; i < GLIBC_RANDOM_DEG; i++) {
		/* 16807 * word % 2147483647 without overflow (Schrage's method) */
		int32_t hi = word / 127773, lo = word % 127773;

		word = 16807 * lo - 2836 * hi;
		if (word < 0)
			word += 2147483647;
		g->r_state[i] = word;
	}
	g->r_front = GLIBC_RANDOM_SEP;
	g->r_rear = 0;
	for (unsigned i = 0; i < 10 * GLIBC_RANDOM_DEG; i++)
		(void)glibc_random(g);
}

#endif
